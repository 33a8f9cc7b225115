package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/examples/reproduce/support/trials"
	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// depthTol is how far the last-round C2ST of a 5- or 10-layer flow may lie
// from the 8-layer flow's and still count as comparable (Fig. 15 C, D:
// "comparable to the 8-layer NSF"). In a 10-round SPLE run at ε = 10 the
// C2ST of rounds 6–10 (0.504–0.558) had a standard deviation of 0.021, so
// the difference of two runs about 0.03: 0.08 is 2.7 of those, a false
// alarm about 0.8% of the time per comparison (3% over the four of
// Fig. 15 C, D) when the depths are equally accurate.
const depthTol = 0.08

// roundAcc is one round's accuracy against the DA-MCMC reference.
type roundAcc struct {
	round, sims int
	c2st, mmd   float64
	dmean       float64 // largest |posterior mean − DA-MCMC mean| over β
	nlog, lmd   float64 // at the true β; of the posterior predictive at s_dp
}

// accNames name the per-round metrics; accHeader is the saved runs' CSV
// header.
var (
	accNames  = []string{"C2ST", "MMD", "max|Δ mean|", "NLOG", "LMD"}
	accFiles  = []string{"c2st", "mmd", "dmean", "nlog", "lmd"}
	accHeader = []string{"round", "sims", "c2st", "mmd", "max_dmean", "nlog", "lmd"}
)

func (r roundAcc) metric(j int) float64 {
	return [5]float64{r.c2st, r.mmd, r.dmean, r.nlog, r.lmd}[j]
}

// accuracy returns d's C2ST, MMD and largest posterior-mean difference
// against ref (both thinned to the smaller size, as C2ST needs).
func accuracy(d, ref *privinfer.Draws) (c2, mmd, dm float64) {
	n := min(d.Len(), ref.Len())
	x, y := thin(d, n), thin(ref, n)
	c2, err := metrics.C2ST(x.Theta, y.Theta, 3, metrics.C2STOptions{Seed: 1})
	if err != nil {
		c2 = math.NaN()
	}
	mmd, err = metrics.MMD(x.Theta, y.Theta, 3, metrics.MMDOptions{})
	if err != nil {
		mmd = math.NaN()
	}
	for k, m := range d.Mean() {
		dm = math.Max(dm, math.Abs(m-ref.Mean()[k]))
	}
	return c2, mmd, dm
}

// accPath is the file of one run's per-round accuracy under -trials-dir:
// the budget, method, layers and seed, and a hash of every setting that
// changes the numbers and of the reference sample.
func accPath(c config, eps float64, meth string, seed uint64, ref *privinfer.Draws) string {
	h := sha256.New()
	fmt.Fprintf(h, "rounds=%d sims=%d M=%d atoms=%d layers=%d hidden=%d blocks=%d gating=%v epochs=%d patience=%d batch=%d lr=%v mc=%v n=%d%s ref=",
		c.Rounds, c.Sims, c.M, c.Atoms, c.Layers, c.Hidden, c.Blocks, c.Gating, c.Epochs, c.Patience, c.Batch, c.LR, c.MC, c.NPost, c.KeySuffix())
	binary.Write(h, binary.LittleEndian, ref.Theta)
	return filepath.Join(c.trialsDir, fmt.Sprintf("linreg_eps%s_%s_layers%d_seed%d_%x.csv", epsName(eps), meth, c.Layers, seed, h.Sum(nil)[:6]))
}

// readAcc reads a saved run of rounds rounds.
func readAcc(path string, rounds int) ([]roundAcc, error) {
	rows, err := trials.ReadCSV(path, accHeader)
	if err != nil {
		return nil, err
	}
	if len(rows) != rounds {
		return nil, fmt.Errorf("%s: want %d rounds, got %d", path, rounds, len(rows))
	}
	rs := make([]roundAcc, len(rows))
	for i, v := range rows {
		rs[i] = roundAcc{round: int(v[0]), sims: int(v[1]), c2st: v[2], mmd: v[3], dmean: v[4], nlog: v[5], lmd: v[6]}
	}
	return rs, nil
}

// accRun returns one run's per-round accuracy: read from -trials-dir when
// saved there, otherwise (when run is true) trained with the seed and
// saved; ok is false when it was neither found nor run.
func accRun(c config, p privinfer.Problem, eps float64, meth string, seed uint64, ref *privinfer.Draws, run bool, label string) (rs []roundAcc, cached, ok bool, err error) {
	path := ""
	if c.trialsDir != "" {
		path = accPath(c, eps, meth, seed, ref)
		rs, err := readAcc(path, c.Rounds)
		if err == nil {
			c.prog.Printf("%s: reused %s", label, filepath.Base(path))
			return rs, true, true, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			c.prog.Printf("%s: ignoring %v", label, err)
		}
	}
	if !run {
		return nil, false, false, nil
	}
	o := c.Config(3, 9, seed)
	o.Checkpoint = c.CheckpointFile(meth, seed, p.Observed)
	o.Progress = c.prog.Func()
	theta := linreg.PaperTheta()
	o.OnRound = func(round int, est sbi.Estimate, d *privinfer.Draws) {
		c.prog.Printf("%s round %d: C2ST, MMD, means, NLOG and LMD", label, round)
		r := roundAcc{round: round, sims: round * c.Sims, nlog: math.NaN(), lmd: math.NaN()}
		r.c2st, r.mmd, r.dmean = accuracy(d, ref)
		if post, ok := est.(*sbi.Posterior); ok {
			r.nlog = -post.LogDensity(theta)
		} else if v, err := metrics.NLOGSamples(d.Theta, 3, theta); err == nil {
			r.nlog = v
		}
		if pred, err := sbi.PosteriorPredictive(context.Background(), p, d.Theta[:3*min(500, d.Len())], seed+uint64(round)); err == nil {
			if v, err := metrics.LMD(pred, 9, p.Observed); err == nil {
				r.lmd = v
			}
		}
		rs = append(rs, r)
	}
	start := time.Now()
	err = c.prog.While(3*time.Second, label, func() error {
		var err error
		if meth == "sppe" {
			_, err = sbi.SPPE(context.Background(), p, o)
		} else {
			_, err = sbi.SPLE(context.Background(), p, o)
		}
		return err
	})
	if err != nil {
		return nil, false, false, fmt.Errorf("%s: %w", label, err)
	}
	if len(rs) != c.Rounds {
		return nil, false, false, fmt.Errorf("%s: %d rounds recorded, want %d", label, len(rs), c.Rounds)
	}
	c.prog.Printf("%s: done in %v", label, time.Since(start).Round(time.Second))
	if path != "" {
		rows := make([][]string, len(rs))
		for i, r := range rs {
			rows[i] = cli.FloatRow(float64(r.round), float64(r.sims), r.c2st, r.mmd, r.dmean, r.nlog, r.lmd)
		}
		if err := trials.WriteCSV(path, accHeader, rows); err != nil {
			return nil, false, false, err
		}
	}
	return rs, false, true, nil
}

// accSet is one method's runs (trials, or one flow depth).
type accSet struct {
	method string // upper case
	layers int
	runs   [][]roundAcc
	cached int // runs read from -trials-dir
}

// curve returns the per-round mean and quartiles of metric j over the runs.
func (s accSet) curve(j int) (mean, q1, q3 []float64) {
	v := make([][]float64, len(s.runs))
	for k, r := range s.runs {
		for _, x := range r {
			v[k] = append(v[k], x.metric(j))
		}
	}
	return trials.Curve(v)
}

// runTrials is the Fig. 9 mode at the first -eps: -trials independent
// trials of every method (those of -trial-range trained, the others read
// from -trials-dir when saved), their per-round mean and quartiles of
// C2ST, MMD and the largest mean difference against DA-MCMC, NLOG at the
// true β and LMD (the paper's four metrics and the mean difference), CSV,
// charts and a verdict.
func runTrials(c config) error {
	eps := c.Eps[0]
	p, err := problem(eps)
	if err != nil {
		return err
	}
	ref, refName, err := daReference(c, eps)
	if err != nil {
		return err
	}
	w := c.w
	fmt.Fprintf(w, "\n=== linear regression, ε = %s: %d independent trials of %s (this run: trials %d–%d), %d rounds × %d simulations (cf. SBI paper Fig. 9)\n",
		epsName(eps), c.trials, strings.ToUpper(strings.Join(c.Methods, ", ")), c.trialLo, c.trialHi, c.Rounds, c.Sims)
	fmt.Fprintf(w, "  flow: %d layers × %d blocks of %d units, M = %d (%v), %d atoms, at most %d epochs (patience %d); reference %s (%d draws)\n",
		c.Layers, c.Blocks, c.Hidden, c.M, c.Integration(), c.Atoms, c.Epochs, c.Patience, refName, ref.Len())
	var sets []accSet
	for _, meth := range c.Methods {
		s := accSet{method: strings.ToUpper(meth), layers: c.Layers}
		for k := 1; k <= c.trials; k++ {
			seed := trials.Seed(c.Seed, k)
			label := fmt.Sprintf("trial %d/%d, %s (seed %d)", k, c.trials, s.method, seed)
			rs, cached, ok, err := accRun(c, p, eps, meth, seed, ref, k >= c.trialLo && k <= c.trialHi, label)
			if err != nil {
				return err
			}
			if ok {
				s.runs = append(s.runs, rs)
			}
			if cached {
				s.cached++
			}
		}
		sets = append(sets, s)
	}
	if err := accTables(c, "linreg_trials_eps"+epsName(eps), "SBI paper Fig. 9", sets); err != nil {
		return err
	}
	trialsVerdict(w, eps, c.trials, sets)
	return nil
}

// accTables prints every set's per-round mean [lower quartile, upper
// quartile] of each metric, writes them as base.csv and draws each metric
// by round (base_c2st, base_mmd, base_dmean, base_nlog, base_lmd).
func accTables(c config, base, fig string, sets []accSet) error {
	w := c.w
	var rows [][]string
	for _, s := range sets {
		fmt.Fprintf(w, "\n  %s, %d layers: %d runs (%d read from -trials-dir), per round mean [lower quartile, upper quartile] against DA-MCMC (cf. %s):\n",
			s.method, s.layers, len(s.runs), s.cached, fig)
		if len(s.runs) == 0 {
			continue
		}
		fmt.Fprintf(w, "    %5s %6s", "round", "sims")
		for _, m := range accNames {
			fmt.Fprintf(w, " %-26s", m)
		}
		fmt.Fprintln(w)
		var cs [5][3][]float64
		for j := range accNames {
			cs[j][0], cs[j][1], cs[j][2] = s.curve(j)
		}
		for i := range cs[0][0] {
			fmt.Fprintf(w, "    %5d %6d", i+1, s.runs[0][i].sims)
			row := []string{s.method, strconv.Itoa(s.layers), strconv.Itoa(i + 1), strconv.Itoa(s.runs[0][i].sims)}
			for j := range accNames {
				fmt.Fprintf(w, " %-26s", fmt.Sprintf("%.3f [%.3f, %.3f]", cs[j][0][i], cs[j][1][i], cs[j][2][i]))
				row = append(row, cli.FloatRow(cs[j][0][i], cs[j][1][i], cs[j][2][i])...)
			}
			fmt.Fprintln(w)
			rows = append(rows, append(row, strconv.Itoa(len(s.runs))))
		}
	}
	header := []string{"method", "layers", "round", "sims"}
	for _, m := range accFiles {
		header = append(header, m+"_mean", m+"_q1", m+"_q3")
	}
	if _, err := c.WriteCSV(base+".csv", append(header, "runs"), rows); err != nil {
		return err
	}
	if c.Out == "" {
		return nil
	}
	for j, m := range accFiles {
		var series []plot.Series
		for _, s := range sets {
			if len(s.runs) == 0 {
				continue
			}
			mean, q1, q3 := s.curve(j)
			x := make([]float64, len(mean))
			for i := range x {
				x[i] = float64(i + 1)
			}
			series = append(series, plot.Series{Name: fmt.Sprintf("%s, %d layers (%d runs)", s.method, s.layers, len(s.runs)),
				X: x, Y: mean, Lo: q1, Hi: q3, Dashed: s.method == "SPLE"})
		}
		if len(series) == 0 {
			return nil
		}
		var hl []float64
		switch j {
		case 0:
			hl = []float64{0.5, c2stOK}
		case 2:
			hl = []float64{meanOK}
		}
		cv, err := plot.LineChart{Title: fmt.Sprintf("Linear regression: %s against DA-MCMC by round (cf. %s)", accNames[j], fig),
			XLabel: "round", YLabel: accNames[j], Series: series, HLines: hl}.Draw()
		if err != nil {
			return err
		}
		if _, err := c.WritePlot(base+"_"+m, cv); err != nil {
			return err
		}
	}
	return nil
}

// firstBelow is the first round (1-based) whose value is at most limit, or
// 0 when none is.
func firstBelow(v []float64, limit float64) int {
	for i, x := range v {
		if x <= limit {
			return i + 1
		}
	}
	return 0
}

// trialsVerdict judges Fig. 9 (with Fig. 10's posteriors after the last
// round) from the mean over the trials: for each method, the C2ST of the
// last round is below that of the first (accuracy improves with the
// rounds) and the last round matches DA-MCMC (C2ST ≤ c2stOK, largest mean
// difference ≤ meanOK; Fig. 10: both close to the near-exact posterior);
// with both methods, SPLE's mean C2ST reaches c2stOK no later than SPPE's
// (the paper: SPLE converges faster on this task).
func trialsVerdict(w io.Writer, eps float64, n int, sets []accSet) {
	what := fmt.Sprintf("SBI paper Fig. 9 (linear regression, ε = %s: accuracy of SPPE and SPLE per round, mean and quartiles over repeated trials)", epsName(eps))
	var parts []string
	missing := false
	for _, s := range sets {
		if len(s.runs) < n {
			missing = true
			parts = append(parts, fmt.Sprintf("%s %d of %d trials", s.method, len(s.runs), n))
		}
	}
	if missing {
		cli.PrintVerdict(w, cli.Partial, what, strings.Join(parts, ", ")+" so far; the run that has them all gives the verdict")
		return
	}
	good, checks := 0, 0
	reach := map[string]int{}
	for _, s := range sets {
		c2, _, _ := s.curve(0)
		dm, _, _ := s.curve(2)
		last := len(c2) - 1
		if last >= 1 {
			checks++
			ok := c2[last] < c2[0]
			if ok {
				good++
			}
			parts = append(parts, fmt.Sprintf("%s mean C2ST round 1 %.3f → round %d %.3f (%s)", s.method, c2[0], last+1, c2[last], map[bool]string{true: "improves", false: "does not improve"}[ok]))
		}
		checks++
		ok := c2[last] <= c2stOK && dm[last] <= meanOK
		if ok {
			good++
		}
		parts = append(parts, fmt.Sprintf("%s after round %d mean C2ST %.3f, mean max |Δ mean| %.3f (%s C2ST ≤ %.2f, |Δ mean| ≤ %.2f)",
			s.method, last+1, c2[last], dm[last], map[bool]string{true: "within", false: "outside"}[ok], c2stOK, meanOK))
		reach[s.method] = firstBelow(c2, c2stOK)
	}
	if a, ok1 := reach["SPPE"]; ok1 {
		if b, ok2 := reach["SPLE"]; ok2 {
			checks++
			ok := b > 0 && (a == 0 || b <= a)
			if ok {
				good++
			}
			parts = append(parts, fmt.Sprintf("mean C2ST first ≤ %.2f at round %s for SPPE, %s for SPLE (the paper: SPLE converges faster; %s)",
				c2stOK, roundName(a), roundName(b), map[bool]string{true: "holds", false: "does not hold"}[ok]))
		}
	}
	v := cli.Judge(what, good, checks, fmt.Sprintf("%d of %d checks hold: %s", good, checks, strings.Join(parts, "; ")), fmt.Sprintf("means over %d trials against DA-MCMC", n))
	_ = cli.Report(w, v)
}

func roundName(r int) string {
	if r == 0 {
		return "never"
	}
	return strconv.Itoa(r)
}

// runDepths is the Fig. 15 C, D mode at the first -eps: every method is
// trained with a flow of each depth (seed -seed; runs saved in and read
// from -trials-dir), with per-round accuracy against DA-MCMC, CSV, charts
// and a verdict.
func runDepths(c config) error {
	eps := c.Eps[0]
	p, err := problem(eps)
	if err != nil {
		return err
	}
	ref, refName, err := daReference(c, eps)
	if err != nil {
		return err
	}
	w := c.w
	fmt.Fprintf(w, "\n=== linear regression, ε = %s: flow depths %v (cf. SBI paper Fig. 15 C, D), %d rounds × %d simulations, %d blocks of %d units per layer; reference %s (%d draws)\n",
		epsName(eps), c.depths, c.Rounds, c.Sims, c.Blocks, c.Hidden, refName, ref.Len())
	var sets []accSet
	for _, layers := range c.depths {
		cl := c
		cl.Layers = layers
		for _, meth := range c.Methods {
			s := accSet{method: strings.ToUpper(meth), layers: layers}
			rs, cached, _, err := accRun(cl, p, eps, meth, c.Seed, ref, true, fmt.Sprintf("%s, %d layers", s.method, layers))
			if err != nil {
				return err
			}
			s.runs = [][]roundAcc{rs}
			if cached {
				s.cached = 1
			}
			sets = append(sets, s)
		}
	}
	if err := accTables(c, "linreg_depth_eps"+epsName(eps), "SBI paper Fig. 15 C, D", sets); err != nil {
		return err
	}
	depthVerdict(w, eps, sets)
	return nil
}

// depthVerdict judges Fig. 15 C, D (5- and 10-layer flows comparable to
// the 8-layer one on this model): every run's last round matches DA-MCMC
// (C2ST ≤ c2stOK, largest mean difference ≤ meanOK) and, for every method
// run with 8 layers too, the other depths' last-round C2ST lies within
// depthTol of the 8-layer run's.
func depthVerdict(w io.Writer, eps float64, sets []accSet) {
	var ls []string
	seen := map[int]bool{}
	eight := map[string]float64{}
	for _, s := range sets {
		if !seen[s.layers] {
			seen[s.layers] = true
			ls = append(ls, strconv.Itoa(s.layers))
		}
		if s.layers == 8 && len(s.runs) > 0 {
			r := s.runs[0]
			eight[s.method] = r[len(r)-1].c2st
		}
	}
	what := fmt.Sprintf("SBI paper Fig. 15 C, D (linear regression, ε = %s, flows of %s layers)", epsName(eps), strings.Join(ls, ", "))
	good, checks := 0, 0
	var parts []string
	for _, s := range sets {
		if len(s.runs) == 0 {
			continue
		}
		r := s.runs[0][len(s.runs[0])-1]
		checks++
		ok := r.c2st <= c2stOK && r.dmean <= meanOK
		if ok {
			good++
		}
		part := fmt.Sprintf("%s %d layers C2ST %.3f, max |Δ mean| %.3f (%s)", s.method, s.layers, r.c2st, r.dmean, map[bool]string{true: "matches DA-MCMC", false: "does not match DA-MCMC"}[ok])
		if e, has := eight[s.method]; has && s.layers != 8 {
			cmp := cli.Compared{Name: "C2ST", Ours: r.c2st, Paper: e, Tol: depthTol}
			checks++
			if cmp.Agrees() {
				good++
			}
			part += fmt.Sprintf(", |Δ C2ST| against 8 layers %.3f %s %.2f", math.Abs(r.c2st-e), map[bool]string{true: "≤", false: ">"}[cmp.Agrees()], depthTol)
		}
		parts = append(parts, part)
	}
	note := fmt.Sprintf("last round against DA-MCMC; thresholds C2ST ≤ %.2f, max |Δ mean| ≤ %.2f; the paper: 5 and 10 layers comparable to 8", c2stOK, meanOK)
	if len(eight) == 0 {
		note += "; no 8-layer run here, so the depths are compared with DA-MCMC only"
	}
	v := cli.Judge(what, good, checks, fmt.Sprintf("%d of %d checks hold: %s", good, checks, strings.Join(parts, "; ")), note)
	_ = cli.Report(w, v)
}

// parseFigureModes checks -trials, -trial-range and -depths and fills c.
func parseFigureModes(c *config, trialRange, depths string) error {
	if c.trials < 0 {
		return cli.Usagef("-trials must be 0 or more, got %d", c.trials)
	}
	if c.trials == 0 && trialRange != "" {
		return cli.Usagef("-trial-range needs -trials")
	}
	if c.trials == 0 && depths == "" && c.trialsDir != "" {
		return cli.Usagef("-trials-dir needs -trials or -depths")
	}
	modes := 0
	for _, on := range []bool{c.sweep != nil, c.trials > 0, depths != ""} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return cli.Usagef("-sweep, -trials and -depths are separate modes; give at most one")
	}
	if c.trials > 0 {
		var err error
		if c.trialLo, c.trialHi, err = trials.ParseRange(trialRange, c.trials); err != nil {
			return err
		}
	}
	if depths != "" {
		for _, f := range strings.Split(depths, ",") {
			l, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || l < 1 || l > 64 {
				return cli.Usagef("-depths: %q is not a number of layers in 1..64", f)
			}
			if slices.Contains(c.depths, l) {
				return cli.Usagef("-depths: %d layers given twice", l)
			}
			c.depths = append(c.depths, l)
		}
	}
	return nil
}
