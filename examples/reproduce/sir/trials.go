package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
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
	"github.com/privinfer/privinfer/simulate/sir"
)

// trialOptions are the flags of the -trials mode.
type trialOptions struct {
	n      int    // -trials: number of trials (0: not this mode)
	lo, hi int    // -trial-range: the trials this run computes, 1-based inclusive
	dir    string // -trials-dir: per-trial metrics, reused when present
}

// mmdTarget is Table 1's accuracy target: the first round whose MMD
// against the reference falls below it.
const mmdTarget = 0.1

// roundMetrics are one round's accuracy and cumulative costs in one trial.
type roundMetrics struct {
	round, sims                  int
	c2st, mmd, nlog, lmd         float64
	simTime, trainTime, propTime time.Duration // cumulative through the round
}

// trialRecord is one finished trial of one method at one budget.
type trialRecord struct {
	trial  int
	seed   uint64
	rounds []roundMetrics
	cached bool // read from -trials-dir
}

// trialHeader is the per-trial CSV's header.
var trialHeader = []string{"round", "sims", "c2st", "mmd", "nlog", "lmd", "sim_seconds", "train_seconds", "proposal_seconds"}

// trialPath is the file of a trial's per-round metrics: the budget, the
// method, the trial's seed and a hash of every setting that changes them
// (the flow and training settings and the reference sample).
func trialPath(c config, epsName, meth string, seed uint64, ref *privinfer.Draws) string {
	h := sha256.New()
	fmt.Fprintf(h, "rounds=%d sims=%d M=%d atoms=%d layers=%d hidden=%d blocks=%d gating=%v epochs=%d patience=%d batch=%d lr=%v mc=%v n=%d%s ref=",
		c.Rounds, c.Sims, c.M, c.Atoms, c.Layers, c.Hidden, c.Blocks, c.Gating, c.Epochs, c.Patience, c.Batch, c.LR, c.MC, c.NPost, c.KeySuffix())
	binary.Write(h, binary.LittleEndian, ref.Theta)
	return filepath.Join(c.trials.dir, fmt.Sprintf("sir_trial_eps%s_%s_seed%d_%x.csv", epsName, meth, seed, h.Sum(nil)[:6]))
}

// readTrial reads a saved trial; a missing or malformed file is an error.
func readTrial(path string, rounds int) ([]roundMetrics, error) {
	rows, err := trials.ReadCSV(path, trialHeader)
	if err != nil {
		return nil, err
	}
	if len(rows) != rounds {
		return nil, fmt.Errorf("%s: want %d rounds, got %d", path, rounds, len(rows))
	}
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	rs := make([]roundMetrics, len(rows))
	for i, v := range rows {
		rs[i] = roundMetrics{round: int(v[0]), sims: int(v[1]), c2st: v[2], mmd: v[3], nlog: v[4], lmd: v[5],
			simTime: sec(v[6]), trainTime: sec(v[7]), propTime: sec(v[8])}
	}
	return rs, nil
}

// writeTrial saves a trial's per-round metrics through a temporary file
// renamed into place, so an interrupted run leaves no partial trial.
func writeTrial(path string, rs []roundMetrics) error {
	rows := make([][]string, len(rs))
	for i, r := range rs {
		rows[i] = cli.FloatRow(float64(r.round), float64(r.sims), r.c2st, r.mmd, r.nlog, r.lmd,
			r.simTime.Seconds(), r.trainTime.Seconds(), r.propTime.Seconds())
	}
	return trials.WriteCSV(path, trialHeader, rows)
}

// runTrial trains the method afresh with the trial's seed and returns its
// per-round metrics against ref.
func runTrial(c config, p privinfer.Problem, meth string, k int, seed uint64, ref *privinfer.Draws) ([]roundMetrics, error) {
	cl := c
	cl.Seed = seed
	thetaTrue := sir.SyntheticTheta()
	M := strings.ToUpper(meth)
	var rs []roundMetrics
	onRound := func(round int, _ sbi.Estimate, d *privinfer.Draws, nlog float64) {
		c.hb.Phase("trial %d, %s round %d: C2ST, MMD and LMD", k, M, round)
		r := roundMetrics{round: round, sims: round * c.Sims, nlog: nlog, c2st: math.NaN(), mmd: math.NaN(), lmd: math.NaN()}
		r.c2st, r.mmd, _ = compare(d, ref)
		pred, err := sbi.PosteriorPredictive(context.Background(), p, d.Theta[:2*min(200, d.Len())], seed+uint64(round))
		if err == nil {
			r.lmd, _ = metrics.LMD(pred, 10, p.Observed)
		}
		rs = append(rs, r)
		if round < c.Rounds {
			c.hb.Phase("trial %d, %s: round %d, simulating %d epidemics", k, M, round+1, c.Sims)
		}
	}
	_, _, res, err := run(cl, meth, p, thetaTrue, onRound)
	if err != nil {
		return nil, err
	}
	if len(rs) != len(res.Rounds) {
		return nil, fmt.Errorf("trial %d, %s: %d rounds reported, %d recorded", k, M, len(rs), len(res.Rounds))
	}
	var st, tt, pt time.Duration
	for i, rr := range res.Rounds {
		st, tt, pt = st+rr.SimTime, tt+rr.TrainTime, pt+rr.ProposalTime
		rs[i].sims = rr.Simulations
		rs[i].simTime, rs[i].trainTime, rs[i].propTime = st, tt, pt
	}
	return rs, nil
}

// trialSet is every trial of one method at one budget.
type trialSet struct {
	method string // upper case
	trials []trialRecord
}

// runTrials is the -trials mode at ε: every method's trials (those of
// -trial-range run or read from -trials-dir, the others only read), the
// per-round mean and quartiles of C2ST, MMD, NLOG and LMD against the best
// reference (Fig. 1B at ε = 10, Fig. 8 at ε = 1 and 0.1), their CSV and
// charts, and Table 1's cost to reach MMD < 0.1.
func runTrials(c config, eps float64) error {
	p, err := syntheticProblem(c, eps)
	if err != nil {
		return err
	}
	epsName := strconv.FormatFloat(eps, 'g', -1, 64)
	w := c.w
	t := c.trials
	fmt.Fprintf(w, "\n=== SIR synthetic release, ε = %s: %d independent trials of %s (this run: trials %d–%d), %d rounds × %d simulations\n",
		epsName, t.n, strings.ToUpper(strings.Join(c.Methods, ", ")), t.lo, t.hi, c.Rounds, c.Sims)
	fmt.Fprintf(w, "  flow: %d layers × %d blocks of %d units, M = %d (%v), %d atoms, at most %d epochs (patience %d) — the reduced flow validated against the exact posterior, not the paper's 8-layer flow (which costs ~50× more per epoch)\n",
		c.Layers, c.Blocks, c.Hidden, c.M, c.Integration(), c.Atoms, c.Epochs, c.Patience)
	c.hb.Phase("ε = %s: reading the reference samples", epsName)
	refs := loadRefs(c, epsName)
	if len(refs) == 0 {
		return fmt.Errorf("-trials: no reference sample for ε = %s under -abc %s (the metrics need one)", epsName, c.abcRef)
	}
	ref := refs[0]
	fmt.Fprintf(w, "  metrics against %s; MMD is the unbiased MMD² estimate (Gaussian kernel, median-heuristic bandwidth of the reference), as in the other SIR tables\n", ref.name)
	var sets []trialSet
	for _, meth := range c.Methods {
		ts := trialSet{method: strings.ToUpper(meth)}
		for k := 1; k <= t.n; k++ {
			seed := trials.Seed(c.Seed, k)
			path := ""
			if t.dir != "" {
				path = trialPath(c, epsName, meth, seed, ref.d)
				if rs, err := readTrial(path, c.Rounds); err == nil {
					c.hb.Printf("trial %d/%d, %s (seed %d): reused %s", k, t.n, ts.method, seed, filepath.Base(path))
					ts.trials = append(ts.trials, trialRecord{trial: k, seed: seed, rounds: rs, cached: true})
					continue
				} else if !errors.Is(err, os.ErrNotExist) {
					c.hb.Printf("trial %d/%d, %s: ignoring %v", k, t.n, ts.method, err)
				}
			}
			if k < t.lo || k > t.hi {
				continue
			}
			c.hb.Phase("trial %d/%d, %s (seed %d): round 1, simulating %d epidemics", k, t.n, ts.method, seed, c.Sims)
			start := time.Now()
			rs, err := runTrial(c, p, meth, k, seed, ref.d)
			if err != nil {
				return err
			}
			c.hb.Printf("trial %d/%d, %s: done in %v", k, t.n, ts.method, time.Since(start).Round(time.Second))
			if path != "" {
				if err := writeTrial(path, rs); err != nil {
					return err
				}
			}
			ts.trials = append(ts.trials, trialRecord{trial: k, seed: seed, rounds: rs})
		}
		sets = append(sets, ts)
	}
	if err := trialTables(c, epsName, ref.name, sets); err != nil {
		return err
	}
	trialVerdict(w, eps, t.n, sets)
	// The paper's Table 1 is at ε = 10; at the other budgets it is judged
	// only when an SMC-ABC row was made for them.
	if abc := readABCTable(c, epsName); eps == 10 || abc != nil {
		table1Verdict(w, eps, t.n, sets, abc)
	}
	return nil
}

// metricNames name the four per-round metrics.
var metricNames = []string{"C2ST", "MMD", "NLOG", "LMD"}

func (r roundMetrics) metric(j int) float64 {
	return [4]float64{r.c2st, r.mmd, r.nlog, r.lmd}[j]
}

// curve is one method's per-round mean and quartiles of one metric.
type curve struct {
	sims, mean, q1, q3 []float64
}

// curves returns a method's per-round summaries of every metric over its
// trials.
func (ts trialSet) curves() [4]curve {
	var cs [4]curve
	var sims [][]float64
	var vals [4][][]float64
	for _, t := range ts.trials {
		s := make([]float64, len(t.rounds))
		var v [4][]float64
		for i, r := range t.rounds {
			s[i] = float64(r.sims)
			for j := range 4 {
				v[j] = append(v[j], r.metric(j))
			}
		}
		sims = append(sims, s)
		for j := range 4 {
			vals[j] = append(vals[j], v[j])
		}
	}
	meanSims, _, _ := trials.Curve(sims)
	for j := range 4 {
		cs[j].mean, cs[j].q1, cs[j].q3 = trials.Curve(vals[j])
		cs[j].sims = meanSims
	}
	return cs
}

// cost is one trial's cost to first reach MMD < mmdTarget (ok false when it
// never did).
type cost struct {
	ok                        bool
	round, sims               int
	simT, trainT, propT, allT float64 // seconds
}

// reach returns a trial's cost to first reach MMD < mmdTarget.
func reach(rs []roundMetrics) cost {
	for _, r := range rs {
		if r.mmd < mmdTarget {
			s, t, p := r.simTime.Seconds(), r.trainTime.Seconds(), r.propTime.Seconds()
			return cost{ok: true, round: r.round, sims: r.sims, simT: s, trainT: t, propT: p, allT: s + t + p}
		}
	}
	return cost{}
}

// costRow is one method's row of Table 1: mean ± sd over the trials that
// reached the target.
type costRow struct {
	method           string
	reached, trials  int
	sims, simT, allT [2]float64 // mean, sd
	trainT           [2]float64
	neverNote        string // which trials never reached it
}

// table1Row summarises a method's trials for Table 1.
func table1Row(ts trialSet) costRow {
	row := costRow{method: ts.method, trials: len(ts.trials)}
	var sims, st, tt, at []float64
	var never []string
	for _, t := range ts.trials {
		c := reach(t.rounds)
		if !c.ok {
			never = append(never, strconv.Itoa(t.trial))
			continue
		}
		row.reached++
		sims, st, tt, at = append(sims, float64(c.sims)), append(st, c.simT), append(tt, c.trainT), append(at, c.allT)
	}
	row.sims[0], row.sims[1] = trials.MeanSD(sims)
	row.simT[0], row.simT[1] = trials.MeanSD(st)
	row.trainT[0], row.trainT[1] = trials.MeanSD(tt)
	row.allT[0], row.allT[1] = trials.MeanSD(at)
	if len(never) > 0 {
		row.neverNote = "trial(s) " + strings.Join(never, ", ") + " never reached it"
	}
	return row
}

// pm formats mean ± sd.
func pm(v [2]float64, format string) string {
	if math.IsNaN(v[0]) {
		return "—"
	}
	return fmt.Sprintf(format+" ± "+format, v[0], v[1])
}

// trialTables prints the per-round mean and quartiles of every metric and
// Table 1, writes them as CSV and draws the metrics against the rounds with
// the quartile band.
func trialTables(c config, epsName, refName string, sets []trialSet) error {
	w := c.w
	fig := "Fig. 1B"
	switch epsName {
	case "1":
		fig = "Fig. 8 A"
	case "0.1":
		fig = "Fig. 8 B"
	}
	var rows [][]string
	for _, ts := range sets {
		cached := 0
		for _, t := range ts.trials {
			if t.cached {
				cached++
			}
		}
		fmt.Fprintf(w, "\n  %s: %d of %d trials (%d read from -trials-dir), per round mean [lower quartile, upper quartile] (cf. SBI paper %s):\n",
			ts.method, len(ts.trials), c.trials.n, cached, fig)
		if len(ts.trials) == 0 {
			continue
		}
		fmt.Fprintf(w, "    %5s %7s", "round", "sims")
		for _, m := range metricNames {
			fmt.Fprintf(w, " %-26s", m)
		}
		fmt.Fprintln(w)
		cs := ts.curves()
		for i := range cs[0].sims {
			fmt.Fprintf(w, "    %5d %7.0f", i+1, cs[0].sims[i])
			row := []string{ts.method, strconv.Itoa(i + 1), cli.FloatRow(cs[0].sims[i])[0]}
			for j := range 4 {
				fmt.Fprintf(w, " %-26s", fmt.Sprintf("%.3f [%.3f, %.3f]", cs[j].mean[i], cs[j].q1[i], cs[j].q3[i]))
				row = append(row, cli.FloatRow(cs[j].mean[i], cs[j].q1[i], cs[j].q3[i])...)
			}
			fmt.Fprintln(w)
			rows = append(rows, append(row, strconv.Itoa(len(ts.trials))))
		}
	}
	header := []string{"method", "round", "sims"}
	for _, m := range metricNames {
		l := strings.ToLower(m)
		header = append(header, l+"_mean", l+"_q1", l+"_q3")
	}
	if _, err := c.WriteCSV("sir_trials_eps"+epsName+".csv", append(header, "trials"), rows); err != nil {
		return err
	}
	// Table 1.
	fmt.Fprintf(w, "\n  Table 1 (cf. SBI paper App. E.1.1): cost to first reach MMD < %.1f against %s, mean ± sd over the trials that reached it\n", mmdTarget, refName)
	fmt.Fprintf(w, "  (wall times on this machine, cumulative over the rounds up to that one; total = simulation + training + proposal sampling, metrics excluded):\n")
	fmt.Fprintf(w, "    %-8s %-8s %-18s %-18s %-18s %-18s\n", "method", "reached", "simulations", "simulation s", "training s", "total s")
	var trows [][]string
	for _, ts := range sets {
		r := table1Row(ts)
		fmt.Fprintf(w, "    %-8s %-8s %-18s %-18s %-18s %-18s", r.method, fmt.Sprintf("%d/%d", r.reached, r.trials),
			pm(r.sims, "%.0f"), pm(r.simT, "%.1f"), pm(r.trainT, "%.1f"), pm(r.allT, "%.1f"))
		if r.neverNote != "" {
			fmt.Fprintf(w, "  (%s in %d rounds)", r.neverNote, c.Rounds)
		}
		fmt.Fprintln(w)
		for _, t := range ts.trials {
			co := reach(t.rounds)
			trows = append(trows, append([]string{ts.method, strconv.Itoa(t.trial), strconv.FormatUint(t.seed, 10), strconv.FormatBool(co.ok), strconv.Itoa(co.round), strconv.Itoa(co.sims)},
				cli.FloatRow(co.simT, co.trainT, co.propT, co.allT)...))
		}
	}
	if _, err := c.WriteCSV("sir_trials_eps"+epsName+"_table1.csv",
		[]string{"method", "trial", "seed", "reached", "round", "sims", "sim_seconds", "train_seconds", "proposal_seconds", "total_seconds"}, trows); err != nil {
		return err
	}
	for _, ts := range sets {
		var per []string
		for _, t := range ts.trials {
			if co := reach(t.rounds); co.ok {
				per = append(per, fmt.Sprintf("%d: round %d, %.0f s", t.trial, co.round, co.allT))
			} else {
				per = append(per, fmt.Sprintf("%d: never", t.trial))
			}
		}
		if len(per) > 0 {
			fmt.Fprintf(w, "      %s per trial: %s\n", ts.method, strings.Join(per, "; "))
		}
	}
	if abc := readABCTable(c, epsName); abc != nil {
		fmt.Fprintf(w, "    %-8s %-8s %-18s %-18s %-18s %-18s  (%s)\n", abc.method, fmt.Sprintf("%d/%d", abc.reached, abc.trials),
			pm(abc.sims, "%.0f"), pm(abc.simT, "%.1f"), "—", pm(abc.allT, "%.1f"), abc.neverNote)
	} else {
		fmt.Fprintf(w, "    SMC-ABC row: not found (run examples/reproduce/sir-abc -eps %s -trials N -trials-dir %s first; the paper's Table 1 and the reproduction have it at ε = 10 only)\n", epsName, c.trials.dir)
	}
	if c.Out == "" {
		return nil
	}
	for j, m := range metricNames {
		var series []plot.Series
		for _, ts := range sets {
			if len(ts.trials) == 0 {
				continue
			}
			cv := ts.curves()[j]
			x := make([]float64, len(cv.mean))
			for i := range x {
				x[i] = float64(i + 1)
			}
			series = append(series, plot.Series{Name: fmt.Sprintf("%s (mean, quartile band; %d trials)", ts.method, len(ts.trials)),
				X: x, Y: cv.mean, Lo: cv.q1, Hi: cv.q3, Dashed: ts.method == "SPLE"})
		}
		if len(series) == 0 {
			return nil
		}
		var hl []float64
		switch m {
		case "C2ST":
			hl = []float64{0.5}
		case "MMD":
			hl = []float64{mmdTarget}
		}
		cv, err := plot.LineChart{Title: fmt.Sprintf("SIR ε = %s: %s against %s by round (cf. SBI paper %s)", epsName, m, refName, fig),
			XLabel: "round", YLabel: m, Series: series, HLines: hl}.Draw()
		if err != nil {
			return err
		}
		if _, err := c.WritePlot("sir_trials_eps"+epsName+"_"+strings.ToLower(m), cv); err != nil {
			return err
		}
	}
	return nil
}

// trialVerdict judges Fig. 1B (ε = 10) or Fig. 8 (ε = 1, 0.1): after the
// last round the mean C2ST and MMD of every method over the trials meet the
// synthetic release's thresholds (the paper: after round 5 SPPE and SPLE
// are about equally accurate, SPLE needing about 5 rounds to converge).
func trialVerdict(w io.Writer, eps float64, n int, sets []trialSet) {
	e := strconv.FormatFloat(eps, 'g', -1, 64)
	what := fmt.Sprintf("SBI paper Fig. 1B (SIR, ε = %s, accuracy per round over repeated trials)", e)
	if e == "1" || e == "0.1" {
		what = fmt.Sprintf("SBI paper Fig. 8 %s (SIR, ε = %s, accuracy per round over repeated trials)", map[string]string{"1": "A", "0.1": "B"}[e], e)
	}
	var parts []string
	good, total, missing := 0, 0, false
	for _, ts := range sets {
		if len(ts.trials) < n {
			missing = true
		}
		if len(ts.trials) == 0 {
			continue
		}
		cs := ts.curves()
		last := len(cs[0].mean) - 1
		c2, mmd := cs[0].mean[last], cs[1].mean[last]
		first := "never"
		for i, v := range cs[1].mean {
			if v < mmdTarget {
				first = "round " + strconv.Itoa(i+1)
				break
			}
		}
		total++
		if c2 <= c2stOK && mmd <= mmdOK {
			good++
		}
		parts = append(parts, fmt.Sprintf("%s mean C2ST %.3f, MMD %.3f after round %d (mean MMD below %.1f from %s; %d trials)", ts.method, c2, mmd, last+1, mmdTarget, first, len(ts.trials)))
	}
	if total == 0 || missing {
		fewest := n
		for _, ts := range sets {
			fewest = min(fewest, len(ts.trials))
		}
		cli.PrintVerdict(w, cli.Partial, what, fmt.Sprintf("%d of %d trials so far (%s); the part that runs them all gives the verdict", fewest, n, strings.Join(parts, "; ")))
		return
	}
	detail := strings.Join(parts, "; ") + fmt.Sprintf(" (thresholds C2ST ≤ %.1f, MMD ≤ %.1f; reduced flow, not the paper's)", c2stOK, mmdOK)
	printShare(w, what, detail, good, total)
}

// readABCTable reads Table 1's SMC-ABC row from the per-trial costs that
// examples/reproduce/sir-abc -trials writes into -trials-dir
// (sir_epsE_smcabc_table1.csv); nil when absent or malformed.
func readABCTable(c config, epsName string) *costRow {
	if c.trials.dir == "" {
		return nil
	}
	path := filepath.Join(c.trials.dir, "sir_eps"+epsName+"_smcabc_table1.csv")
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil
	}
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	for _, h := range []string{"trial", "particles", "reached", "sims", "seconds"} {
		if _, ok := col[h]; !ok {
			return nil
		}
	}
	row := &costRow{method: "SMC-ABC"}
	var sims, at []float64
	var never []string
	particles := ""
	for _, r := range rows[1:] {
		if len(r) != len(rows[0]) {
			return nil
		}
		row.trials++
		particles = r[col["particles"]]
		if r[col["reached"]] != "true" {
			never = append(never, r[col["trial"]])
			continue
		}
		s, err1 := strconv.ParseFloat(r[col["sims"]], 64)
		t, err2 := strconv.ParseFloat(r[col["seconds"]], 64)
		if err1 != nil || err2 != nil {
			return nil
		}
		row.reached++
		sims, at = append(sims, s), append(at, t)
	}
	row.sims[0], row.sims[1] = trials.MeanSD(sims)
	row.allT[0], row.allT[1] = trials.MeanSD(at)
	row.simT = row.allT
	row.trainT = [2]float64{math.NaN(), math.NaN()}
	row.neverNote = fmt.Sprintf("%s particles, from %s", particles, filepath.Base(path))
	if len(never) > 0 {
		row.neverNote += "; trial(s) " + strings.Join(never, ", ") + " never reached it"
	}
	return row
}

// table1Verdict judges Table 1's ordering: the paper reaches MMD < 0.1
// about 6× faster with SPPE and 2× faster with SPLE than with SMC-ABC, so
// SPPE < SPLE < SMC-ABC in total time and in simulations.
func table1Verdict(w io.Writer, eps float64, n int, sets []trialSet, abc *costRow) {
	what := fmt.Sprintf("SBI paper Table 1 (SIR, ε = %s, cost to reach MMD < %.1f; SPPE ~6× and SPLE ~2× faster than SMC-ABC)", strconv.FormatFloat(eps, 'g', -1, 64), mmdTarget)
	rows := map[string]costRow{}
	for _, ts := range sets {
		if len(ts.trials) < n {
			cli.PrintVerdict(w, cli.Partial, what, fmt.Sprintf("%s has %d of %d trials so far; the part that runs them all gives the verdict", ts.method, len(ts.trials), n))
			return
		}
		rows[ts.method] = table1Row(ts)
	}
	for _, m := range []string{"SPPE", "SPLE"} {
		if _, ok := rows[m]; !ok {
			cli.PrintVerdict(w, cli.Partial, what, "this run has no "+m+" trials (-methods); the run with both methods gives the verdict")
			return
		}
	}
	if abc != nil {
		rows["SMC-ABC"] = *abc
	}
	order := []string{"SPPE", "SPLE", "SMC-ABC"}
	var have []string
	var parts []string
	for _, m := range order {
		r, ok := rows[m]
		if !ok || r.reached == 0 {
			if ok {
				parts = append(parts, fmt.Sprintf("%s never reached it (%d trials)", m, r.trials))
			}
			continue
		}
		have = append(have, m)
		parts = append(parts, fmt.Sprintf("%s %.0f s, %.0f simulations (%d/%d trials)", m, r.allT[0], r.sims[0], r.reached, r.trials))
	}
	if a, ok := rows["SMC-ABC"]; ok && a.reached > 0 {
		for _, m := range []string{"SPPE", "SPLE"} {
			if r, ok := rows[m]; ok && r.reached > 0 {
				parts = append(parts, fmt.Sprintf("SMC-ABC/%s time ratio %.1f (paper %s)", m, a.allT[0]/r.allT[0], map[string]string{"SPPE": "~6", "SPLE": "~2"}[m]))
			}
		}
	}
	detail := strings.Join(parts, "; ")
	if abc == nil {
		cli.PrintVerdict(w, cli.Partial, what, detail+"; the SMC-ABC row is missing (examples/reproduce/sir-abc -trials writes it into -trials-dir), so only SPPE and SPLE are compared")
		return
	}
	// The ordering holds in a quantity when the methods that reached the
	// target are in the paper's order and any that never did come last.
	ordered := func(get func(costRow) float64) bool {
		prev := -1.0
		sawMissing := false
		for _, m := range order {
			r, ok := rows[m]
			if !ok {
				continue
			}
			if r.reached == 0 {
				sawMissing = true
				continue
			}
			if sawMissing || get(r) < prev {
				return false
			}
			prev = get(r)
		}
		return true
	}
	timeOK := ordered(func(r costRow) float64 { return r.allT[0] })
	simsOK := ordered(func(r costRow) float64 { return r.sims[0] })
	switch {
	case len(have) < 2:
		cli.PrintVerdict(w, cli.Differs, what, detail+": fewer than two methods reached the target")
	case timeOK && simsOK:
		cli.PrintVerdict(w, cli.Reproduced, what, detail+": the order SPPE < SPLE < SMC-ABC holds in wall time and in simulations (wall times of separate runs on this machine, which may have been loaded)")
	case timeOK || simsOK:
		which := "wall time"
		if simsOK {
			which = "simulations"
		}
		cli.PrintVerdict(w, cli.Partial, what, detail+": the order SPPE < SPLE < SMC-ABC holds in "+which+" only")
	default:
		cli.PrintVerdict(w, cli.Differs, what, detail+": the order SPPE < SPLE < SMC-ABC holds in neither wall time nor simulations")
	}
}
