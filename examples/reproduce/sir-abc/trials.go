package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	trialstat "github.com/privinfer/privinfer/examples/reproduce/support/trials"
	"github.com/privinfer/privinfer/flow/metrics"
)

// mmdTarget is Table 1's accuracy target: the first round whose MMD
// against the exact posterior falls below it.
const mmdTarget = 0.1

// exactFile is the exact posterior at ε by kernel importance sampling
// (made by -exact), the reference of Fig. 5 and Table 1.
func exactFile(eps float64) string { return "sir_eps" + epsName(eps) + "_exact.csv" }

// exactReference reads the exact posterior (-exact-ref, else
// abc/testdata/sir_epsE_exact.csv at the repository root) as 1000 equally
// weighted draws; nil when absent.
func exactReference(o options) (*privinfer.Draws, string, error) {
	path := o.exactRef
	if path == "" {
		root, err := cli.RepoRoot()
		if err != nil {
			return nil, "", nil
		}
		path = filepath.Join(root, "abc", "testdata", exactFile(o.eps))
		if !fileExists(path) {
			return nil, path, nil
		}
	}
	d, err := cli.ReadDraws(path, names...)
	if err != nil {
		return nil, path, fmt.Errorf("-exact-ref: %w", err)
	}
	if d.Weighted() || d.Len() > 1000 {
		if d, err = d.Resample(rand.New(rand.NewPCG(3, 3)), 1000); err != nil {
			return nil, path, err
		}
	}
	return d, path, nil
}

// abcRound is one SMC-ABC round's accuracy against the exact posterior and
// its cumulative cost.
type abcRound struct {
	round     int
	tolerance float64
	sims      int64   // cumulative simulations through the round
	seconds   float64 // cumulative wall time through the round
	mmd, c2st float64
}

// abcTrial is one SMC-ABC run's rounds.
type abcTrial struct {
	trial  int
	seed   uint64
	rounds []abcRound
	cached bool
}

// measure returns every round's cumulative cost and its MMD and C2ST
// against ref: the weighted population is resampled (systematically) to as
// many equally weighted draws as it has particles; MMD is the unbiased MMD²
// estimate with the reference's median-heuristic bandwidth, C2ST compares
// with as many reference draws, as examples/reproduce/sir does.
func measure(rs []*abc.Round, ref *privinfer.Draws, seed uint64) ([]abcRound, error) {
	var out []abcRound
	var sims int64
	var wall time.Duration
	for _, r := range rs {
		sims += r.Simulations
		wall += r.Elapsed
		n := r.Draws.Len()
		d, err := r.Draws.Resample(rand.New(rand.NewPCG(seed, uint64(r.Round))), n)
		if err != nil {
			return nil, err
		}
		mmd, err := metrics.MMD(d.Theta, ref.Theta, 2, metrics.MMDOptions{})
		if err != nil {
			return nil, err
		}
		sub := ref
		if ref.Len() != n {
			if sub, err = ref.Resample(rand.New(rand.NewPCG(4, 4)), n); err != nil {
				return nil, err
			}
		}
		c2, err := metrics.C2ST(d.Theta, sub.Theta, 2, metrics.C2STOptions{Seed: 1, MaxEpochs: 300})
		if err != nil {
			return nil, err
		}
		out = append(out, abcRound{round: r.Round, tolerance: r.Tolerance, sims: sims, seconds: wall.Seconds(), mmd: mmd, c2st: c2})
	}
	return out, nil
}

// trialHeader is the per-trial CSV's header.
var trialHeader = []string{"round", "tolerance", "sims", "seconds", "mmd", "c2st"}

// trialPath is the file of a saved trial: the budget, the seed and a hash
// of the settings that change it and of the reference.
func trialPath(o options, seed uint64, ref *privinfer.Draws) string {
	h := sha256.New()
	fmt.Fprintf(h, "particles=%d rounds=%d mintol=%v wall=%v maxsims=%d minacc=%v ref=", o.particles, o.rounds, o.minTol, o.wall, o.maxSims, o.minAcc)
	binary.Write(h, binary.LittleEndian, ref.Theta)
	return filepath.Join(o.trialsDir, fmt.Sprintf("sir_smcabc_trial_eps%s_seed%d_%x.csv", epsName(o.eps), seed, h.Sum(nil)[:6]))
}

// readTrial reads a saved trial; a missing or malformed file is an error.
func readTrial(path string) ([]abcRound, error) {
	rows, err := trialstat.ReadCSV(path, trialHeader)
	if err != nil {
		return nil, err
	}
	rs := make([]abcRound, len(rows))
	for i, v := range rows {
		rs[i] = abcRound{round: int(v[0]), tolerance: v[1], sims: int64(v[2]), seconds: v[3], mmd: v[4], c2st: v[5]}
	}
	return rs, nil
}

func trialRows(rs []abcRound) [][]string {
	var rows [][]string
	for _, r := range rs {
		rows = append(rows, cli.FloatRow(float64(r.round), r.tolerance, float64(r.sims), r.seconds, r.mmd, r.c2st))
	}
	return rows
}

// runTrials is the -trials mode: independent SMC-ABC runs (those of
// -trial-range run or read from -trials-dir, the others only read), their
// per-round accuracy against the exact posterior (Fig. 5) and Table 1's
// SMC-ABC row.
func runTrials(o options, stdout, stderr io.Writer) error {
	if err := o.Prepare(); err != nil {
		return err
	}
	l := &logger{w: stdout}
	ref, refPath, err := exactReference(o)
	if err != nil {
		return err
	}
	if ref == nil {
		return cli.Usagef("-trials needs the exact posterior %s (make it with -exact, or give -exact-ref)", refPath)
	}
	p, err := problem(o.eps)
	if err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	l.f("SIR eps=%s SMC-ABC: %d independent trials (this run: trials %d-%d), %d particles, schedule 0.5*0.7^t (<= %d rounds), wall-time limit %v per trial, seed %d (trial k: derived)\n",
		epsName(o.eps), o.trials, o.trialLo, o.trialHi, o.particles, o.rounds, o.wall, o.Seed)
	l.f("accuracy against the exact posterior %s (MMD: unbiased MMD² estimate, Gaussian kernel with the reference's median-heuristic bandwidth)\n", filepath.Base(refPath))
	var trials []abcTrial
	for k := 1; k <= o.trials; k++ {
		seed := trialstat.Seed(o.Seed, k)
		path := ""
		if o.trialsDir != "" {
			path = trialPath(o, seed, ref)
			if rs, err := readTrial(path); err == nil {
				prog.Printf("trial %d/%d (seed %d): reused %s", k, o.trials, seed, filepath.Base(path))
				trials = append(trials, abcTrial{trial: k, seed: seed, rounds: rs, cached: true})
				continue
			} else if !errors.Is(err, os.ErrNotExist) {
				prog.Printf("trial %d/%d: ignoring %v", k, o.trials, err)
			}
		}
		if k < o.trialLo || k > o.trialHi {
			continue
		}
		prog.Printf("trial %d/%d (seed %d): SMC-ABC", k, o.trials, seed)
		res, err := smc(o, p, seed, prog, fmt.Sprintf("trial %d/%d: SMC-ABC", k, o.trials))
		if err != nil {
			return fmt.Errorf("trial %d: %w", k, err)
		}
		prog.Printf("trial %d/%d: %d rounds, %d simulations in %v (%s); C2ST and MMD per round", k, o.trials, len(res.Rounds), res.Simulations, res.Elapsed.Round(time.Second), res.Stop)
		rs, err := measure(res.Rounds, ref, seed)
		if err != nil {
			return err
		}
		if path != "" {
			if err := trialstat.WriteCSV(path, trialHeader, trialRows(rs)); err != nil {
				return err
			}
		}
		trials = append(trials, abcTrial{trial: k, seed: seed, rounds: rs})
	}
	return report(o, l, trials, o.trials)
}

// smc runs SMC-ABC with the settings of o and the given seed (the wall-time
// limit ends it early, keeping the rounds completed by then).
func smc(o options, p privinfer.Problem, seed uint64, prog *cli.Progress, label string) (*abc.SMCResult, error) {
	ctx := context.Background()
	if o.wall > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.wall)
		defer cancel()
	}
	var res *abc.SMCResult
	err := prog.While(3*time.Second, label, func() (err error) {
		res, err = abc.SMC(ctx, p, abc.SMCConfig{
			Distance:  abc.Euclidean{},
			Particles: o.particles, Schedule: abc.Geometric{A: 0.5, R: 0.7, Rounds: o.rounds, Min: o.minTol},
			MaxSimulations: o.maxSims, MinAcceptance: o.minAcc, Seed: seed,
			Progress: prog.Func(),
		})
		return err
	})
	if err != nil && !(res != nil && res.Stop == abc.StopWallTime && len(res.Rounds) > 0) {
		return nil, err
	}
	return res, nil
}

// fig5Row is one round's summary over the trials that completed it.
type fig5Row struct {
	round, trials            int
	tolerance, sims, secs    float64 // means
	mmd, c2st                [3]float64
	mmdQ1, mmdQ3, c2Q1, c2Q3 float64
}

// summarise returns the per-round summaries over the trials.
func summarise(trials []abcTrial) []fig5Row {
	n := 0
	for _, t := range trials {
		n = max(n, len(t.rounds))
	}
	var rows []fig5Row
	for i := range n {
		var tol, sims, secs, mmd, c2 []float64
		for _, t := range trials {
			if i < len(t.rounds) {
				r := t.rounds[i]
				tol, sims, secs, mmd, c2 = append(tol, r.tolerance), append(sims, float64(r.sims)), append(secs, r.seconds), append(mmd, r.mmd), append(c2, r.c2st)
			}
		}
		row := fig5Row{round: trials[0].rounds[0].round + i, trials: len(sims)}
		row.tolerance, _ = trialstat.MeanSD(tol)
		row.sims, _ = trialstat.MeanSD(sims)
		row.secs, _ = trialstat.MeanSD(secs)
		row.mmd[0], row.mmdQ1, row.mmdQ3 = trialstat.Quartiles(mmd)
		row.c2st[0], row.c2Q1, row.c2Q3 = trialstat.Quartiles(c2)
		rows = append(rows, row)
	}
	return rows
}

// reach returns a trial's first round with MMD < mmdTarget (nil if none).
func reach(rs []abcRound) *abcRound {
	for i := range rs {
		if rs[i].mmd < mmdTarget {
			return &rs[i]
		}
	}
	return nil
}

// report prints Fig. 5 (per round: cumulative simulations, MMD and C2ST,
// mean and quartiles over the trials) and Table 1's SMC-ABC row, writes
// them as CSV (and, with every trial present and -trials-dir set, the
// per-trial costs examples/reproduce/sir reads) and the chart, and prints the Fig. 5
// verdict. want is the number of trials asked for.
func report(o options, l *logger, trials []abcTrial, want int) error {
	if len(trials) == 0 {
		cli.PrintVerdict(l.w, cli.Partial, fig5What(o.eps), fmt.Sprintf("0 of %d trials so far; the part that runs them all gives the verdict", want))
		return nil
	}
	rows := summarise(trials)
	l.f("\nFig. 5: SMC-ABC accuracy against the number of simulations (%d trial(s); mean [lower quartile, upper quartile]):\n", len(trials))
	l.f("%5s %9s %7s %10s %9s %-26s %-26s\n", "round", "eps", "trials", "sims", "wall s", "MMD", "C2ST")
	var csvRows [][]string
	for _, r := range rows {
		l.f("%5d %9.4f %7d %10.0f %9.1f %-26s %-26s\n", r.round, r.tolerance, r.trials, r.sims, r.secs,
			fmt.Sprintf("%.4f [%.4f, %.4f]", r.mmd[0], r.mmdQ1, r.mmdQ3), fmt.Sprintf("%.3f [%.3f, %.3f]", r.c2st[0], r.c2Q1, r.c2Q3))
		csvRows = append(csvRows, append([]string{strconv.Itoa(r.round), strconv.Itoa(r.trials)},
			cli.FloatRow(r.tolerance, r.sims, r.secs, r.mmd[0], r.mmdQ1, r.mmdQ3, r.c2st[0], r.c2Q1, r.c2Q3)...))
	}
	base := "sir_eps" + epsName(o.eps) + "_smcabc_fig5"
	if _, err := o.WriteCSV(base+".csv", []string{"round", "trials", "tolerance", "sims", "seconds", "mmd_mean", "mmd_q1", "mmd_q3", "c2st_mean", "c2st_q1", "c2st_q3"}, csvRows); err != nil {
		return err
	}
	// Table 1's row.
	var sims, secs []float64
	var never, per []string
	var costRows [][]string
	for _, t := range trials {
		r := reach(t.rounds)
		if r != nil {
			per = append(per, fmt.Sprintf("%d: round %d, %d sims, %.0f s", t.trial, r.round, r.sims, r.seconds))
		} else {
			per = append(per, fmt.Sprintf("%d: never", t.trial))
		}
		row := []string{strconv.Itoa(t.trial), strconv.FormatUint(t.seed, 10), strconv.Itoa(o.particles), strconv.FormatBool(r != nil)}
		if r == nil {
			never = append(never, strconv.Itoa(t.trial))
			costRows = append(costRows, append(row, "0", "0", "0"))
			continue
		}
		sims, secs = append(sims, float64(r.sims)), append(secs, r.seconds)
		costRows = append(costRows, append(row, strconv.Itoa(r.round), strconv.FormatInt(r.sims, 10), cli.FloatRow(r.seconds)[0]))
	}
	ms, ss := trialstat.MeanSD(sims)
	mt, st := trialstat.MeanSD(secs)
	l.f("\nTable 1 (cf. SBI paper App. E.1.1), SMC-ABC row: cost to first reach MMD < %.1f, mean ± sd over the %d of %d trials that reached it (wall time on this machine, cumulative over the rounds; all of it simulation and weighting, no training):\n",
		mmdTarget, len(sims), len(trials))
	if len(sims) > 0 {
		l.f("  SMC-ABC  %.0f ± %.0f simulations, %.1f ± %.1f s\n", ms, ss, mt, st)
	}
	if len(never) > 0 {
		l.f("  trial(s) %s never reached it within %d rounds\n", strings.Join(never, ", "), o.rounds)
	}
	l.f("  per trial: %s\n", strings.Join(per, "; "))
	costHeader := []string{"trial", "seed", "particles", "reached", "round", "sims", "seconds"}
	if _, err := o.WriteCSV("sir_eps"+epsName(o.eps)+"_smcabc_table1.csv", costHeader, costRows); err != nil {
		return err
	}
	if o.trialsDir != "" && len(trials) == want {
		if err := trialstat.WriteCSV(filepath.Join(o.trialsDir, "sir_eps"+epsName(o.eps)+"_smcabc_table1.csv"), costHeader, costRows); err != nil {
			return err
		}
	}
	if o.Out != "" {
		x := make([]float64, len(rows))
		var mmd, mlo, mhi, c2, clo, chi []float64
		for i, r := range rows {
			x[i] = r.sims
			mmd, mlo, mhi = append(mmd, r.mmd[0]), append(mlo, r.mmdQ1), append(mhi, r.mmdQ3)
			c2, clo, chi = append(c2, r.c2st[0]), append(clo, r.c2Q1), append(chi, r.c2Q3)
		}
		cv, err := plot.LineChart{Title: fmt.Sprintf("SIR ε = %s: SMC-ABC against the exact posterior (cf. SBI paper Fig. 5), %d trial(s)", epsName(o.eps), len(trials)),
			XLabel: "simulations (mean over trials)", YLabel: "MMD², C2ST", LogX: true, HLines: []float64{mmdTarget, 0.5},
			Series: []plot.Series{{Name: "MMD", X: x, Y: mmd, Lo: mlo, Hi: mhi}, {Name: "C2ST", X: x, Y: c2, Lo: clo, Hi: chi, Dashed: true}}}.Draw()
		if err != nil {
			return err
		}
		if _, err := o.WritePlot(base, cv); err != nil {
			return err
		}
	}
	fig5Verdict(l.w, o.eps, rows, len(trials), want, len(sims), ms)
	return nil
}

func fig5What(eps float64) string {
	return "SBI paper Fig. 5 (SMC-ABC accuracy against the number of simulations, SIR, ε = " + epsName(eps) + ")"
}

// fig5Verdict judges Fig. 5: SMC-ABC's accuracy improves with the
// simulations (the last round's mean MMD and C2ST below the first round's)
// and every trial reaches MMD < 0.1; the paper needs about 10⁵ SMC-ABC
// simulations for the accuracy SPPE and SPLE reach with 10⁴.
func fig5Verdict(w io.Writer, eps float64, rows []fig5Row, trials, want, reached int, meanSims float64) {
	what := fig5What(eps)
	first, last := rows[0], rows[len(rows)-1]
	detail := fmt.Sprintf("mean MMD %.3f → %.3f and C2ST %.3f → %.3f from %.0f to %.0f simulations; %d of %d trials reached MMD < %.1f",
		first.mmd[0], last.mmd[0], first.c2st[0], last.c2st[0], first.sims, last.sims, reached, trials, mmdTarget)
	if reached > 0 {
		detail += fmt.Sprintf(", after %.0f simulations on average", meanSims)
	}
	detail += " (the paper: about 10⁵ SMC-ABC simulations for the accuracy SPPE and SPLE reach with 10⁴)"
	if trials < want {
		cli.PrintVerdict(w, cli.Partial, what, fmt.Sprintf("%d of %d trials so far (%s); the part that runs them all gives the verdict", trials, want, detail))
		return
	}
	improves := last.mmd[0] < first.mmd[0] && last.c2st[0] < first.c2st[0]
	switch {
	case improves && reached == trials:
		cli.PrintVerdict(w, cli.Reproduced, what, detail)
	case improves && reached > 0:
		cli.PrintVerdict(w, cli.Partial, what, detail+": not every trial reached the target")
	case improves:
		cli.PrintVerdict(w, cli.Partial, what, detail+": the accuracy improves but no trial reached the target in its rounds")
	default:
		cli.PrintVerdict(w, cli.Differs, what, detail+": the accuracy does not improve with the simulations")
	}
}
