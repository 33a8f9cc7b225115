package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/examples/reproduce/support/trials"
	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/simulate/naivebayes"
)

// metricsVersion names the way the per-round metrics are computed; it is
// part of the key of saved trials, so changing the computation means
// changing it.
const metricsVersion = "metrics-v1: φ coordinates, 1000 draws, C2ST seed 1 ≤ 300 epochs, MMD vs 2000 exact draws, KDE NLOG, LMD of 200 predictive releases"

// Sizes of the per-round metrics: every metric uses at most metricDraws
// draws of the method (and as many of the exact posterior for C2ST, and
// for the exact posterior's own NLOG), MMD compares with at most mmdRefDraws
// exact draws and LMD simulates lmdReleases posterior-predictive releases.
const (
	metricDraws = 1000
	mmdRefDraws = 2000
	lmdReleases = 200
)

// trialEnv is what every trial shares: the problem on the log-ratio
// coordinates φ, the exact posterior's draws of φ (the reference), the true
// φ and the settings that fix the reference.
type trialEnv struct {
	m        *naivebayes.Model
	p        privinfer.Problem
	exactPhi *privinfer.Draws // the exact posterior, equally weighted
	c2stRef  *privinfer.Draws // at most metricDraws of them
	mmdRef   *privinfer.Draws // at most mmdRefDraws of them
	phiTrue  []float64
	key      string // the release and the exact sampler's settings
	// exactNLOG and exactLMD are the exact posterior's own NLOG (KDE of
	// metricDraws draws) and LMD: the values a perfect method would reach.
	exactNLOG, exactLMD float64
}

// thin returns at most n equally weighted draws of d (systematic
// resampling, deterministic).
func thin(d *privinfer.Draws, n int) *privinfer.Draws {
	if !d.Weighted() && d.Len() <= n {
		return d
	}
	t, _ := d.Resample(rand.New(rand.NewPCG(3, 3)), n)
	return t
}

func newTrialEnv(ctx context.Context, cfg config, m *naivebayes.Model, p privinfer.Problem, exactPhi *privinfer.Draws, truth []float64) (*trialEnv, error) {
	e := &trialEnv{m: m, p: p, exactPhi: exactPhi, phiTrue: make([]float64, m.UnconstrainedDim())}
	m.ToUnconstrained(truth, e.phiTrue)
	e.c2stRef, e.mmdRef = thin(exactPhi, metricDraws), thin(exactPhi, mmdRefDraws)
	e.key = fmt.Sprintf("eps=%v n=%d obs=%v exact: seed=%d chains=%d iters=%d burn=%d; %s", cfg.eps, cfg.n, p.Observed, cfg.Seed, cfg.chains, cfg.iters, cfg.burn, metricsVersion)
	var err error
	d := m.UnconstrainedDim()
	if e.exactNLOG, err = metrics.NLOGSamples(e.c2stRef.Theta, d, e.phiTrue); err != nil {
		return nil, err
	}
	e.exactLMD, err = e.lmd(ctx, e.c2stRef, 0)
	return e, err
}

// lmd returns the LMD of lmdReleases posterior-predictive releases from
// the first draws of phi.
func (e *trialEnv) lmd(ctx context.Context, phi *privinfer.Draws, seed uint64) (float64, error) {
	d := e.m.UnconstrainedDim()
	k := min(lmdReleases, phi.Len())
	pred, err := sbi.PosteriorPredictive(ctx, e.p, phi.Theta[:k*d], seed)
	if err != nil {
		return math.NaN(), err
	}
	return metrics.LMD(pred, e.m.StatDim(), e.p.Observed)
}

// roundMetrics is one round's accuracy of a method: C2ST and MMD against
// the exact posterior, NLOG at the true φ, LMD of posterior-predictive
// releases, and the round's simulation and training wall times.
type roundMetrics struct {
	Round, Sims          int
	C2ST, MMD, NLOG, LMD float64
	SimSec, TrainSec     float64
}

// measure computes the metrics of one round's draws of φ.
func (e *trialEnv) measure(ctx context.Context, round, sims int, phi *privinfer.Draws) roundMetrics {
	d := e.m.UnconstrainedDim()
	rm := roundMetrics{Round: round, Sims: sims, C2ST: math.NaN(), MMD: math.NaN(), NLOG: math.NaN(), LMD: math.NaN()}
	x := thin(phi, metricDraws)
	n := min(x.Len(), e.c2stRef.Len())
	if c2, err := metrics.C2ST(thin(x, n).Theta, thin(e.c2stRef, n).Theta, d, metrics.C2STOptions{Seed: 1, MaxEpochs: 300}); err == nil {
		rm.C2ST = c2
	}
	if v, err := metrics.MMD(x.Theta, e.mmdRef.Theta, d, metrics.MMDOptions{}); err == nil {
		rm.MMD = v
	}
	if v, err := metrics.NLOGSamples(x.Theta, d, e.phiTrue); err == nil {
		rm.NLOG = v
	}
	if v, err := e.lmd(ctx, x, uint64(round)); err == nil {
		rm.LMD = v
	}
	return rm
}

// trialRun is one method's run in one trial.
type trialRun struct {
	meth   string
	trial  int
	cfg    neuralConfig
	rounds []roundMetrics
	theta  *privinfer.Draws // final draws of θ (nil for a saved trial other than the first)
	saved  bool             // read from -trials-dir instead of run
	sims   int              // total simulations
	train  time.Duration    // total training wall time
}

// trialConfig returns the method's settings in trial t (1-based): trial 1
// is the configured run, later trials shift the seed.
func trialConfig(nc neuralConfig, t int) neuralConfig {
	nc.Seed = trials.Seed(nc.Seed, t)
	return nc
}

// trialPath returns the file of a saved trial (suffix "" for the metrics,
// "_draws" for the final draws), keyed by every setting that changes it.
func trialPath(dir string, e *trialEnv, meth string, t int, nc neuralConfig, suffix string) string {
	h := sha256.Sum256([]byte(e.key + "; " + meth + ": " + nc.key()))
	return filepath.Join(dir, fmt.Sprintf("naivebayes_%s_trial%d_%x%s.csv", strings.ToLower(meth), t, h[:6], suffix))
}

var metricsHeader = []string{"round", "sims", "c2st", "mmd", "nlog", "lmd", "sim_s", "train_s"}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeMetrics saves a trial's per-round metrics as CSV (through a
// temporary file renamed into place).
func writeMetrics(path string, rounds []roundMetrics) error {
	rows := make([][]string, len(rounds))
	for i, r := range rounds {
		rows[i] = []string{strconv.Itoa(r.Round), strconv.Itoa(r.Sims), fmtF(r.C2ST), fmtF(r.MMD), fmtF(r.NLOG), fmtF(r.LMD), fmtF(r.SimSec), fmtF(r.TrainSec)}
	}
	return trials.WriteCSV(path, metricsHeader, rows)
}

// readMetrics reads a trial saved by writeMetrics.
func readMetrics(path string) ([]roundMetrics, error) {
	rows, err := trials.ReadCSV(path, metricsHeader)
	if err != nil {
		return nil, err
	}
	out := make([]roundMetrics, len(rows))
	for i, v := range rows {
		out[i] = roundMetrics{int(v[0]), int(v[1]), v[2], v[3], v[4], v[5], v[6], v[7]}
	}
	return out, nil
}

// loadTrial returns the saved trial, or nil when it is not saved (or
// unreadable, in which case it is run again).
func loadTrial(dir string, e *trialEnv, meth string, t int, nc neuralConfig) *trialRun {
	rounds, err := readMetrics(trialPath(dir, e, meth, t, nc, ""))
	if err != nil || len(rounds) != nc.Rounds {
		return nil
	}
	tr := &trialRun{meth: meth, trial: t, cfg: nc, rounds: rounds, saved: true}
	if t == 1 {
		if tr.theta, err = cli.ReadDraws(trialPath(dir, e, meth, t, nc, "_draws"), paramNames...); err != nil {
			return nil
		}
	}
	tr.total()
	return tr
}

// total sets the totals from the rounds.
func (tr *trialRun) total() {
	var train float64
	for _, r := range tr.rounds {
		train += r.TrainSec
		tr.sims = r.Sims
	}
	tr.train = time.Duration(train * float64(time.Second))
}

// runTrial runs (or reads from -trials-dir) one method's trial t; with
// measure it computes the metrics after every round.
func runTrial(ctx context.Context, cfg config, e *trialEnv, meth string, t int, measure bool, prog *cli.Progress) (*trialRun, error) {
	nc := cfg.sppe
	if meth == methSPLE {
		nc = cfg.sple
	}
	nc = trialConfig(nc, t)
	if cfg.trialsDir != "" {
		if tr := loadTrial(cfg.trialsDir, e, meth, t, nc); tr != nil {
			prog.Printf("%s trial %d: read from %s", meth, t, cfg.trialsDir)
			return tr, nil
		}
	}
	label := meth
	if cfg.trials > 1 {
		label = fmt.Sprintf("%s trial %d of %d", meth, t, cfg.trials)
	}
	prog.Printf("%s: %d rounds × %d simulations, M = %d", label, nc.Rounds, nc.Sims, nc.Inner)
	tr := &trialRun{meth: meth, trial: t, cfg: nc}
	var onRound func(int, sbi.Estimate, *privinfer.Draws)
	if measure {
		onRound = func(round int, _ sbi.Estimate, phi *privinfer.Draws) {
			prog.Printf("%s round %d: metrics against the exact posterior", label, round)
			rm := e.measure(ctx, round, round*nc.Sims, phi)
			tr.rounds = append(tr.rounds, rm)
			prog.Printf("%s round %d: C2ST %.3f, MMD %.4f, NLOG %.2f, LMD %.2f", label, round, rm.C2ST, rm.MMD, rm.NLOG, rm.LMD)
		}
	}
	var phi *privinfer.Draws
	var res *sbi.Result
	err := prog.While(3*time.Second, label, func() (err error) {
		phi, res, err = runNeural(ctx, meth, e.p, nc, prog.Every(3*time.Second, label), onRound)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	tr.theta = toTheta(e.m, phi)
	tr.sims, tr.train = res.Simulations, res.TrainTime
	for i := range tr.rounds {
		if i < len(res.Rounds) {
			tr.rounds[i].SimSec, tr.rounds[i].TrainSec = res.Rounds[i].SimTime.Seconds(), res.Rounds[i].TrainTime.Seconds()
		}
	}
	if cfg.trialsDir != "" && measure {
		if t == 1 {
			path := trialPath(cfg.trialsDir, e, meth, t, nc, "_draws")
			if err := os.MkdirAll(cfg.trialsDir, 0o755); err != nil {
				return nil, err
			}
			f, err := os.Create(path)
			if err != nil {
				return nil, err
			}
			err = tr.theta.WriteCSV(f)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, err
			}
		}
		// The metrics last: a trial counts as saved once they are written.
		if err := writeMetrics(trialPath(cfg.trialsDir, e, meth, t, nc, ""), tr.rounds); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// methods returns the enabled neural methods.
func (c config) methods() []string {
	var ms []string
	if c.sppe.Rounds > 0 {
		ms = append(ms, methSPPE)
	}
	if c.sple.Rounds > 0 {
		ms = append(ms, methSPLE)
	}
	return ms
}

// runTrials runs every enabled method in max(1, -trials) trials; trial 1
// is the run of the Fig. 14 comparison. It returns the runs by method,
// trial 1 first.
func runTrials(ctx context.Context, cfg config, e *trialEnv, prog *cli.Progress) (map[string][]*trialRun, error) {
	out := map[string][]*trialRun{}
	for t := 1; t <= max(1, cfg.trials); t++ {
		for _, meth := range cfg.methods() {
			tr, err := runTrial(ctx, cfg, e, meth, t, cfg.trials > 0, prog)
			if err != nil {
				return nil, err
			}
			out[meth] = append(out[meth], tr)
		}
	}
	return out, nil
}

// stat is the mean and the lower and upper quartiles of a metric over the
// trials in one round.
type stat struct {
	Mean, Q25, Q75 float64
	N              int // trials with a finite value
}

// summarize returns the stat of the finite values of x (trials.Quartiles,
// which sums them in sorted order).
func summarize(x []float64) stat {
	n := 0
	for _, a := range x {
		if !math.IsNaN(a) && !math.IsInf(a, 0) {
			n++
		}
	}
	mean, q1, q3 := trials.Quartiles(x)
	return stat{mean, q1, q3, n}
}

// metricDefs are the four metrics of Fig. 13.
var metricDefs = []struct {
	key, label string
	get        func(roundMetrics) float64
}{
	{"c2st", "C2ST", func(r roundMetrics) float64 { return r.C2ST }},
	{"mmd", "MMD", func(r roundMetrics) float64 { return r.MMD }},
	{"nlog", "NLOG", func(r roundMetrics) float64 { return r.NLOG }},
	{"lmd", "LMD", func(r roundMetrics) float64 { return r.LMD }},
}

// curve is a method's per-round summary over the trials: stats[k][r] is
// metric k (metricDefs order) after round r+1.
type curve struct {
	meth   string
	sims   []int
	stats  [][]stat
	trials int
}

// curves summarises the runs per round.
func curves(runs map[string][]*trialRun, meths []string) []curve {
	var out []curve
	for _, meth := range meths {
		rs := runs[meth]
		if len(rs) == 0 || len(rs[0].rounds) == 0 {
			continue
		}
		c := curve{meth: meth, trials: len(rs), stats: make([][]stat, len(metricDefs))}
		for r := range rs[0].rounds {
			c.sims = append(c.sims, rs[0].rounds[r].Sims)
			for k, md := range metricDefs {
				var x []float64
				for _, tr := range rs {
					if r < len(tr.rounds) {
						x = append(x, md.get(tr.rounds[r]))
					}
				}
				c.stats[k] = append(c.stats[k], summarize(x))
			}
		}
		out = append(out, c)
	}
	return out
}

// Fig. 13's verdict: the paper finds that both methods "stabilize in
// performance after round 3". A method's curve counts as stable when, from
// round stableFrom on, no later round's mean C2ST is better than round
// stableFrom's by more than stableC2ST, and no later mean MMD is better
// by more than a fraction stableMMD of round 1's mean MMD (the scale of the
// whole improvement).
const (
	stableFrom = 3
	stableC2ST = 0.05
	stableMMD  = 0.25
)

// stable reports whether the curve stabilizes after round stableFrom, with
// the largest later improvements of the mean C2ST and of the mean MMD (in
// units of round 1's).
func (c curve) stable() (ok bool, dC2ST, dMMD float64) {
	c2, mmd := c.stats[0], c.stats[1]
	for r := stableFrom; r < len(c2); r++ {
		dC2ST = math.Max(dC2ST, c2[stableFrom-1].Mean-c2[r].Mean)
		dMMD = math.Max(dMMD, (mmd[stableFrom-1].Mean-mmd[r].Mean)/mmd[0].Mean)
	}
	return dC2ST <= stableC2ST && dMMD <= stableMMD, dC2ST, dMMD
}

// reportTrials prints Fig. 13: every method's per-round mean and quartiles
// of the four metrics, the exact posterior's own NLOG and LMD, the verdict,
// and with -out the CSV files and the charts.
func reportTrials(cfg config, e *trialEnv, runs map[string][]*trialRun, w io.Writer) ([]string, error) {
	cs := curves(runs, cfg.methods())
	if len(cs) == 0 {
		return nil, nil
	}
	ntr := cs[0].trials
	plural := "s"
	if ntr == 1 {
		plural = ""
	}
	fmt.Fprintf(w, "\n### Fig. 13: accuracy per round against the exact posterior, %d trial%s\n\n", ntr, plural)
	fmt.Fprintf(w, "Every metric is computed on the five log-ratio coordinates φ from up to %d draws of the round's posterior estimate at the observation (the next round's proposal; after the last round the final draws): "+
		"C2ST against as many exact-posterior draws (0.5 = indistinguishable), MMD against %d exact draws, NLOG = −log of a Gaussian KDE of the draws at the true φ, LMD = log median distance of %d posterior-predictive releases to the observed one. "+
		"The paper measures C2ST and MMD against an SMC-ABC sample, which its tolerance widens; the exact posterior (Metropolis on the exact privatized likelihood) is the better reference. "+
		"Exact posterior's own NLOG %.3f and LMD %.3f (what a perfect method reaches).\n", metricDraws, mmdRefDraws, lmdReleases, e.exactNLOG, e.exactLMD)
	if ntr > 1 {
		fmt.Fprintf(w, "Cells: mean [lower quartile, upper quartile] over the trials, as the paper's error bars; trial 1 is the run compared above, the others use seeds derived from -seed.\n")
	} else {
		fmt.Fprintf(w, "One trial: the paper's quartile bars need several (-trials N).\n")
	}
	cell := func(s stat, dec int) string {
		if ntr == 1 || s.N < 2 {
			return strconv.FormatFloat(s.Mean, 'f', dec, 64)
		}
		return fmt.Sprintf("%.*f [%.*f, %.*f]", dec, s.Mean, dec, s.Q25, dec, s.Q75)
	}
	var rows [][]string
	for _, c := range cs {
		fmt.Fprintf(w, "\n%s (%d rounds × %d simulations, M = %d):\n", c.meth, len(c.sims), runs[c.meth][0].cfg.Sims, runs[c.meth][0].cfg.Inner)
		t := cli.Table{Header: []string{"round", "sims", "C2ST", "MMD", "NLOG", "LMD"}}
		for r := range c.sims {
			t.Add(strconv.Itoa(r+1), strconv.Itoa(c.sims[r]), cell(c.stats[0][r], 3), cell(c.stats[1][r], 4), cell(c.stats[2][r], 2), cell(c.stats[3][r], 3))
			for k, md := range metricDefs {
				s := c.stats[k][r]
				rows = append(rows, append([]string{c.meth, strconv.Itoa(r + 1), strconv.Itoa(c.sims[r]), md.key}, cli.FloatRow(s.Mean, s.Q25, s.Q75, float64(s.N))...))
			}
		}
		t.Markdown(w)
		var saved int
		var train float64
		var sims int
		for _, tr := range runs[c.meth] {
			if tr.saved {
				saved++
			}
			train += tr.train.Seconds()
			sims = tr.sims
		}
		fmt.Fprintf(w, "Mean training wall time per trial %.0f s for %d simulations (machine load included)", train/float64(len(runs[c.meth])), sims)
		if saved > 0 {
			fmt.Fprintf(w, "; %d of %d trials read from -trials-dir", saved, len(runs[c.meth]))
		}
		fmt.Fprintln(w, ".")
	}
	fig13Verdict(w, cs)
	if cfg.Out == "" {
		return nil, nil
	}
	var files []string
	f, err := cfg.WriteCSV("naivebayes_fig13.csv", []string{"method", "round", "sims", "metric", "mean", "q25", "q75", "trials"}, rows)
	if err != nil {
		return nil, err
	}
	files = append(files, f)
	var trows [][]string
	for _, meth := range cfg.methods() {
		for _, tr := range runs[meth] {
			for _, r := range tr.rounds {
				trows = append(trows, append([]string{meth, strconv.Itoa(tr.trial), strconv.Itoa(r.Round), strconv.Itoa(r.Sims)}, cli.FloatRow(r.C2ST, r.MMD, r.NLOG, r.LMD, r.SimSec, r.TrainSec)...))
			}
		}
	}
	if f, err = cfg.WriteCSV("naivebayes_fig13_trials.csv", []string{"method", "trial", "round", "sims", "c2st", "mmd", "nlog", "lmd", "sim_s", "train_s"}, trows); err != nil {
		return nil, err
	}
	files = append(files, f)
	band := "mean and quartiles over " + strconv.Itoa(ntr) + " trials"
	if ntr == 1 {
		band = "one trial"
	}
	for k, md := range metricDefs {
		var series []plot.Series
		for _, c := range cs {
			s := plot.Series{Name: c.meth, Dashed: c.meth == methSPLE}
			for r, st := range c.stats[k] {
				if math.IsNaN(st.Mean) {
					continue
				}
				s.X, s.Y = append(s.X, float64(r+1)), append(s.Y, st.Mean)
				s.Lo, s.Hi = append(s.Lo, st.Q25), append(s.Hi, st.Q75)
			}
			if ntr == 1 {
				s.Lo, s.Hi = nil, nil
			}
			if len(s.X) > 0 {
				series = append(series, s)
			}
		}
		if len(series) == 0 {
			continue
		}
		var hl []float64
		switch md.key {
		case "c2st":
			hl = []float64{0.5}
		case "nlog":
			hl = []float64{e.exactNLOG}
		case "lmd":
			hl = []float64{e.exactLMD}
		}
		ylab := md.label + " vs exact posterior"
		if md.key == "nlog" || md.key == "lmd" {
			ylab = md.label + " (dashed line: exact posterior's)"
		}
		cv, err := plot.LineChart{Title: fmt.Sprintf("Naive Bayes, ε = %g (cf. SBI paper Fig. 13): %s per round, %s", cfg.eps, md.label, band),
			XLabel: "round", YLabel: ylab, Series: series, HLines: hl, Width: 760}.Draw()
		if err != nil {
			return nil, err
		}
		p, err := cfg.WritePlot("naivebayes_fig13_"+md.key, cv)
		if err != nil {
			return nil, err
		}
		files = append(files, p...)
	}
	return files, nil
}

// fig13Verdict judges the paper's finding on Fig. 13: SPPE and SPLE
// stabilize in performance after round 3.
func fig13Verdict(w io.Writer, cs []curve) {
	what := "SBI paper Fig. 13 (naive Bayes: SPPE and SPLE accuracy against the rounds)"
	var parts []string
	good, n := 0, 0
	for _, c := range cs {
		last := len(c.sims) - 1
		fin := fmt.Sprintf("final C2ST %.3f, MMD %.4f", c.stats[0][last].Mean, c.stats[1][last].Mean)
		if len(c.sims) <= stableFrom {
			parts = append(parts, fmt.Sprintf("%s: only %d rounds (%s)", c.meth, len(c.sims), fin))
			continue
		}
		n++
		ok, d2, dm := c.stable()
		if ok {
			good++
		}
		word := "stable"
		if !ok {
			word = "still improving"
		}
		if c.sims[0] < 1000 {
			fin += fmt.Sprintf("; %d simulations per round, below the paper's 1000, so a later stabilization is expected", c.sims[0])
		}
		parts = append(parts, fmt.Sprintf("%s %s after round %d (later rounds improve the mean C2ST by at most %.3f and the mean MMD by at most %.0f%% of round 1's; %s)", c.meth, word, stableFrom, d2, 100*dm, fin))
	}
	detail := strings.Join(parts, "; ") + fmt.Sprintf(" — thresholds %.2f C2ST and %.0f%% of round 1's MMD; the paper: both methods stabilize after round 3", stableC2ST, 100*stableMMD)
	if cs[0].trials == 1 {
		detail += "; one trial only, no quartiles"
	}
	switch {
	case n == 0:
		cli.PrintVerdict(w, cli.Partial, what, "too few rounds to judge the stabilization after round 3: "+detail)
	case good == n && n == len(cs):
		cli.PrintVerdict(w, cli.Reproduced, what, detail)
	case good > 0:
		cli.PrintVerdict(w, cli.Partial, what, detail)
	default:
		cli.PrintVerdict(w, cli.Differs, what, detail)
	}
}
