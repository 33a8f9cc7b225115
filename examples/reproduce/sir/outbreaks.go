package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate/sir"
)

// outbreakOptions are the settings of the -outbreaks mode beyond the flow
// settings.
type outbreakOptions struct {
	abcSims      int64  // -abc-sims: SMC-ABC simulation budget per outbreak (0: no SMC-ABC)
	abcParticles int    // -abc-particles
	dir          string // -outbreaks-dir: saved posteriors, reused when present
}

// registerOutbreakFlags registers the -outbreaks mode's own flags.
func registerOutbreakFlags(fs *flag.FlagSet, o *outbreakOptions) {
	fs.Int64Var(&o.abcSims, "abc-sims", 200000, "with -outbreaks: SMC-ABC simulation budget per outbreak (0: no SMC-ABC; -quick: 2000)")
	fs.IntVar(&o.abcParticles, "abc-particles", 500, "with -outbreaks: SMC-ABC particles (-quick: 100)")
	fs.StringVar(&o.dir, "outbreaks-dir", "", "with -outbreaks: folder where every outbreak's posterior draws per method are saved and reused when present (keyed by the settings)")
}

// parseOutbreakFlags applies the -quick values of the -outbreaks flags and
// validates them.
func parseOutbreakFlags(fs *flag.FlagSet, quick, outbreaks bool, o *outbreakOptions) error {
	given := false
	fs.Visit(func(f *flag.Flag) {
		given = given || f.Name == "abc-sims" || f.Name == "abc-particles" || f.Name == "outbreaks-dir"
	})
	if err := cli.QuickDefaults(fs, quick, map[string]string{"abc-sims": "2000", "abc-particles": "100"}); err != nil {
		return err
	}
	switch {
	case given && !outbreaks:
		return cli.Usagef("-abc-sims, -abc-particles and -outbreaks-dir need -outbreaks")
	case o.abcSims < 0:
		return cli.Usagef("-abc-sims must be >= 0, got %d", o.abcSims)
	case o.abcParticles < 2:
		return cli.Usagef("-abc-particles must be >= 2, got %d", o.abcParticles)
	case o.abcSims > 0 && o.abcSims < int64(o.abcParticles):
		return cli.Usagef("-abc-sims (%d) must be at least -abc-particles (%d) for SMC-ABC's first round", o.abcSims, o.abcParticles)
	}
	return nil
}

// The SMC-ABC of the outbreaks: the paper's tolerance schedule
// ε_t = 0.5·0.7^t with the ℓ2 distance (App. E.1.1), as many rounds as the
// budget allows.
const (
	abcTolA, abcTolR = 0.5, 0.7
	abcMaxRounds     = 40
	methodABC        = "smcabc"
)

// methodLabel is the printed name of a method.
func methodLabel(m string) string {
	if m == methodABC {
		return "SMC-ABC"
	}
	return strings.ToUpper(m)
}

// outbreakRun is one method's posterior on one outbreak.
type outbreakRun struct {
	method    string
	d         *privinfer.Draws
	r0        [3]float64 // mean, 2.5% and 97.5% quantiles of R0 = β/γ
	tolerance float64    // SMC-ABC's final tolerance (0 for SPPE and SPLE)
	sims      int64
}

// newOutbreakRun summarises the draws of (log β, log γ).
func newOutbreakRun(method string, d *privinfer.Draws, tol float64, sims int64) outbreakRun {
	r := withR0(d)
	lo, hi := r.Interval(2, 0.95)
	return outbreakRun{method: method, d: d, r0: [3]float64{r.Mean()[2], lo, hi}, tolerance: tol, sims: sims}
}

// cacheKey identifies a method's posterior on an outbreak by every
// setting that changes it; the -outbreaks-dir file name carries it.
func cacheKey(c config, ob, method string) string {
	var s string
	if method == methodABC {
		s = fmt.Sprintf("abc particles=%d sims=%d A=%v R=%v rounds=%d seed=%d", c.ob.abcParticles, c.ob.abcSims, abcTolA, abcTolR, abcMaxRounds, c.Seed)
	} else {
		st := c.Settings
		s = fmt.Sprintf("%s rounds=%d sims=%d M=%d atoms=%d layers=%d hidden=%d blocks=%d gating=%v epochs=%d patience=%d batch=%d lr=%v mc=%v n=%d seed=%d%s",
			method, st.Rounds, st.Sims, st.M, st.Atoms, st.Layers, st.Hidden, st.Blocks, st.Gating, st.Epochs, st.Patience, st.Batch, st.LR, st.MC, st.NPost, c.Seed, st.KeySuffix())
	}
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("sir_outbreak_%s_%s_%016x", ob, method, h.Sum64())
}

// savedRun reads a saved posterior from -outbreaks-dir (ok = false when
// there is none). The file holds the draws; a sidecar line holds the
// tolerance and simulations.
func savedRun(c config, key, method string) (outbreakRun, bool) {
	if c.ob.dir == "" {
		return outbreakRun{}, false
	}
	base := filepath.Join(c.ob.dir, key)
	d, err := cli.ReadDraws(base+".csv", names...)
	if err != nil {
		return outbreakRun{}, false
	}
	var tol float64
	var sims int64
	if b, err := os.ReadFile(base + ".txt"); err != nil {
		return outbreakRun{}, false
	} else if _, err := fmt.Sscanf(string(b), "tolerance %g simulations %d", &tol, &sims); err != nil {
		return outbreakRun{}, false
	}
	return newOutbreakRun(method, d, tol, sims), true
}

// saveRun writes a posterior into -outbreaks-dir (nothing without it).
func saveRun(c config, key string, r outbreakRun) error {
	if c.ob.dir == "" {
		return nil
	}
	if err := os.MkdirAll(c.ob.dir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(c.ob.dir, key)
	f, err := os.Create(base + ".csv")
	if err != nil {
		return err
	}
	err = r.d.WriteCSV(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s.csv: %w", base, err)
	}
	return os.WriteFile(base+".txt", []byte(fmt.Sprintf("tolerance %g simulations %d\n", r.tolerance, r.sims)), 0o644)
}

// runOutbreakABC runs SMC-ABC on an outbreak within the -abc-sims budget
// and returns the last completed round's population (no draws when the
// budget ran out before the first round completed).
func runOutbreakABC(c config, name string, p privinfer.Problem) (outbreakRun, error) {
	c.hb.Phase("%s: SMC-ABC, %d particles, budget %d simulations", name, c.ob.abcParticles, c.ob.abcSims)
	res, err := abc.SMC(context.Background(), p, abc.SMCConfig{
		Distance: abc.Euclidean{}, Particles: c.ob.abcParticles,
		Schedule:       abc.Geometric{A: abcTolA, R: abcTolR, Rounds: abcMaxRounds},
		MaxSimulations: c.ob.abcSims, Seed: c.Seed, Progress: c.hb.Func(),
	})
	if res != nil && res.Stop == abc.StopBudget && len(res.Rounds) == 0 {
		return outbreakRun{method: methodABC, sims: res.Simulations}, nil
	}
	if err != nil && !(res != nil && res.Stop == abc.StopBudget) {
		return outbreakRun{}, err
	}
	fin := res.Final()
	return newOutbreakRun(methodABC, fin.Draws, fin.Tolerance, res.Simulations), nil
}

// outbreakMethod returns one method's posterior on an outbreak, read from
// -outbreaks-dir when saved there, else computed (and saved).
func outbreakMethod(c config, ob sir.Outbreak, method string, p privinfer.Problem) (outbreakRun, error) {
	key := cacheKey(c, ob.Name, method)
	if r, ok := savedRun(c, key, method); ok {
		c.hb.Printf("%s %s: reused the saved posterior %s", ob.Name, methodLabel(method), filepath.Join(c.ob.dir, key+".csv"))
		fmt.Fprintf(c.w, "    [%s %s: saved posterior reused]\n", ob.Name, methodLabel(method))
		return r, nil
	}
	start := time.Now()
	var r outbreakRun
	if method == methodABC {
		var err error
		if r, err = runOutbreakABC(c, ob.Name, p); err != nil {
			return r, fmt.Errorf("%s SMC-ABC: %w", ob.Name, err)
		}
		if r.d == nil {
			fmt.Fprintf(c.w, "    [%s SMC-ABC: no round completed within %d simulations (raise -abc-sims); left out]\n", ob.Name, r.sims)
			return r, nil
		}
		fmt.Fprintf(c.w, "    [%s SMC-ABC: %v; %d simulations, final tolerance %.4f, ESS %.0f; mean θ %.2f]\n", ob.Name, time.Since(start).Round(time.Second),
			r.sims, r.tolerance, r.d.ESS(), r.d.Mean())
	} else {
		d, _, res, err := run(c, method, p, nil, nil)
		if err != nil {
			return r, fmt.Errorf("%s %s: %w", ob.Name, method, err)
		}
		r = newOutbreakRun(method, d, 0, int64(res.Simulations))
		fmt.Fprintf(c.w, "    [%s %s: %v; sim %v, train %v; mean θ %.2f]\n", ob.Name, method, time.Since(start).Round(time.Second),
			res.SimTime.Round(time.Second), res.TrainTime.Round(time.Second), d.Mean())
	}
	return r, saveRun(c, key, r)
}

// outbreakResult is every method's posterior on one outbreak and the
// non-private ODE fit.
type outbreakResult struct {
	ob      sir.Outbreak
	runs    []outbreakRun // SMC-ABC first when run, then -methods
	odeR0   float64
	typical [2]float64
}

// abcRun returns the outbreak's SMC-ABC run (nil when not run).
func (r outbreakResult) abcRun() *outbreakRun {
	for i := range r.runs {
		if r.runs[i].method == methodABC {
			return &r.runs[i]
		}
	}
	return nil
}

// runOutbreaks fits the five real outbreaks with SMC-ABC and the -methods,
// prints Fig. 2B's table, draws Fig. 2A (one corner plot per outbreak) and
// Fig. 2B with -out, and prints the verdicts.
func runOutbreaks(c config) error {
	typical := map[string][2]float64{"flu": {0.9, 2.1}, "ebola": {1.51, 2.53}, "covid": {1.5, 3.5}}
	const K = 100000
	epi, err := sir.New(sir.Config{K: K})
	if err != nil {
		return err
	}
	ode, err := sir.NewODE(sir.Config{K: K, Output: sir.Proportions}, 1e-8)
	if err != nil {
		return err
	}
	mech, err := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 100, Inflation: 100, Population: K, Times: 10})
	if err != nil {
		return err
	}
	methods := slices.Clone(c.Methods)
	if c.ob.abcSims > 0 {
		methods = append([]string{methodABC}, methods...)
	}
	w := c.w
	fmt.Fprintf(w, "\n=== real outbreaks (ε = 10, n = m = 100, K = 1e5, prior N((−2,−3), I))\n")
	if c.ob.abcSims > 0 {
		fmt.Fprintf(w, "  SMC-ABC: %d particles, tolerances 0.5·0.7^t, ℓ2 distance, at most %d simulations per outbreak; at its finite final tolerance it is WIDER than the exact posterior\n",
			c.ob.abcParticles, c.ob.abcSims)
	}
	var results []outbreakResult
	for _, ob := range sir.Outbreaks() {
		fmt.Fprintf(w, "  %s: %s\n", ob.Name, ob.Source)
		p := privinfer.Problem{Prior: sir.OutbreakPrior(), Simulator: counted{epi, c.hb}, Mechanism: mech, Observed: ob.SDP, Names: names}
		res := outbreakResult{ob: ob, typical: typical[strings.SplitN(ob.Name, "_", 2)[0]]}
		for _, m := range methods {
			r, err := outbreakMethod(c, ob, m, p)
			if err != nil {
				return err
			}
			if r.d != nil {
				res.runs = append(res.runs, r)
			}
		}
		c.hb.Phase("%s: least-squares ODE fit", ob.Name)
		th := odeFit(ode, ob.SDP)
		res.odeR0 = math.Exp(th[0] - th[1])
		results = append(results, res)
		if err := outbreakCorner(c, res, th); err != nil {
			return err
		}
	}
	printOutbreakTable(c, results)
	if err := outbreakIntervals(c, results); err != nil {
		return err
	}
	outbreakVerdicts(c, results)
	return nil
}

// printOutbreakTable prints Fig. 2B as a table: per outbreak the R0 mean
// and 95% interval of every method, the ODE fit, the code's reference
// point and the typical range.
func printOutbreakTable(c config, results []outbreakResult) {
	w := c.w
	cols := []string{methodABC, "sppe", "sple"}
	fmt.Fprintf(w, "\n  Fig. 2B: R0 = β/γ, posterior mean (95%% interval)\n  %-20s", "outbreak")
	for _, m := range cols {
		fmt.Fprintf(w, " %-24s", methodLabel(m)+" R0")
	}
	fmt.Fprintf(w, " %-8s %-9s %-13s %s\n", "ODE R0", "code R0", "typical range", "SMC-ABC tolerance")
	for _, r := range results {
		fmt.Fprintf(w, "  %-20s", r.ob.Name)
		for _, m := range cols {
			s := "-"
			for _, run := range r.runs {
				if run.method == m {
					s = fmt.Sprintf("%.2f (%.2f, %.2f)", run.r0[0], run.r0[1], run.r0[2])
				}
			}
			fmt.Fprintf(w, " %-24s", s)
		}
		tol := "-"
		if a := r.abcRun(); a != nil {
			tol = fmt.Sprintf("%.4f (%d sims)", a.tolerance, a.sims)
		}
		fmt.Fprintf(w, " %-8.2f %-9.2f (%.2f, %.2f)  %s\n", r.odeR0, math.Exp(r.ob.CodeLogTheta[0]-r.ob.CodeLogTheta[1]), r.typical[0], r.typical[1], tol)
	}
}

// outbreakCorner draws Fig. 2A for one outbreak: the posteriors of
// (log β, log γ) of every method in one corner plot, marked at the ODE fit.
func outbreakCorner(c config, r outbreakResult, odeTheta []float64) error {
	if c.Out == "" || len(r.runs) == 0 {
		return nil
	}
	c.hb.Phase("%s: Fig. 2A corner plot", r.ob.Name)
	var labels []string
	for _, run := range r.runs {
		labels = append(labels, methodLabel(run.method))
	}
	cfg := privinfer.CornerConfig{Title: "Fig. 2A, " + r.ob.Name + ": (log β, log γ); mark: non-private ODE fit",
		Label: labels[0], Truth: odeTheta, Panel: 220}
	for _, run := range r.runs[1:] {
		cfg.Compare = append(cfg.Compare, run.d)
	}
	cfg.CompareLabels = labels[1:]
	_, err := c.WriteCorner("sir_outbreak_"+r.ob.Name, r.runs[0].d, cfg)
	return err
}

// outbreakIntervals draws Fig. 2B (SVG and PNG with -out): the R0 mean and
// 95% interval per outbreak and method, the ODE fit as a point.
func outbreakIntervals(c config, results []outbreakResult) error {
	if c.Out == "" {
		return nil
	}
	var rows []plot.Interval
	for _, r := range results {
		for _, run := range r.runs {
			lo, hi := run.r0[1], run.r0[2]
			rows = append(rows, plot.Interval{Label: r.ob.Name, Group: methodLabel(run.method), Lo: lo, Mid: min(max(run.r0[0], lo), hi), Hi: hi})
		}
		rows = append(rows, plot.Interval{Label: r.ob.Name, Group: "ODE fit (non-private)", Lo: r.odeR0, Mid: r.odeR0, Hi: r.odeR0})
	}
	cv, err := plot.Intervals{Title: "Fig. 2B: posterior mean and 95% interval of R0 = β/γ per outbreak; dashed: R0 = 1", XLabel: "R0", Rows: rows, VLines: []float64{1}, Width: 760}.Draw()
	if err != nil {
		return err
	}
	_, err = c.WritePlot("sir_outbreaks_r0", cv)
	return err
}

// outbreakVerdicts prints Fig. 2B's verdict (posterior-mean R0 within the
// typical ranges) and Fig. 2's agreement verdict (the SPPE and SPLE R0
// means within SMC-ABC's 95% interval, per outbreak).
func outbreakVerdicts(c config, results []outbreakResult) {
	inRange, total, odeIn, abcIn, abcN := 0, 0, 0, 0, 0
	agree, pairs := 0, 0
	var disagree []string
	for _, r := range results {
		if r.odeR0 >= r.typical[0] && r.odeR0 <= r.typical[1] {
			odeIn++
		}
		a := r.abcRun()
		for _, run := range r.runs {
			in := run.r0[0] >= r.typical[0] && run.r0[0] <= r.typical[1]
			if run.method == methodABC {
				abcN++
				if in {
					abcIn++
				}
				continue
			}
			total++
			if in {
				inRange++
			}
			if a != nil {
				pairs++
				if run.r0[0] >= a.r0[1] && run.r0[0] <= a.r0[2] {
					agree++
				} else {
					disagree = append(disagree, fmt.Sprintf("%s %s %.2f outside (%.2f, %.2f)", r.ob.Name, methodLabel(run.method), run.r0[0], a.r0[1], a.r0[2]))
				}
			}
		}
	}
	what := "SBI paper Fig. 2B (R0 of five real outbreaks)"
	detail := fmt.Sprintf("%d of %d SPPE/SPLE posterior-mean R0 values lie in the literature's typical ranges (the non-private least-squares ODE fit: %d of %d", inRange, total, odeIn, len(results))
	if abcN > 0 {
		detail += fmt.Sprintf("; SMC-ABC: %d of %d", abcIn, abcN)
	}
	detail += ")"
	switch {
	case total > 0 && inRange == total:
		cli.PrintVerdict(c.w, cli.Reproduced, what, detail)
	case total > 0 && 2*inRange >= total:
		cli.PrintVerdict(c.w, cli.Partial, what, detail)
	default:
		cli.PrintVerdict(c.w, cli.Differs, what, detail)
	}
	what = "SBI paper Fig. 2 (SPPE and SPLE agree with SMC-ABC on the real outbreaks)"
	if pairs == 0 {
		cli.PrintVerdict(c.w, cli.Partial, what, "SMC-ABC (-abc-sims 0) or SPPE/SPLE did not run, so nothing is compared")
		return
	}
	detail = fmt.Sprintf("%d of %d SPPE/SPLE posterior-mean R0 values lie within SMC-ABC's 95%% interval on the same outbreak", agree, pairs)
	if len(disagree) > 0 {
		sort.Strings(disagree)
		detail += " (" + strings.Join(disagree, "; ") + ")"
	}
	detail += "; SMC-ABC at a finite tolerance is wider than the exact posterior, so this is a lenient check"
	printShare(c.w, what, detail, agree, pairs)
}

// odeFit returns the least-squares fit of the SIR ODE's infected proportion
// at the record times to the release (Nelder–Mead over (log β, log γ) from a
// grid of starts).
func odeFit(ode *sir.ODE, obs []float64) []float64 {
	buf := make([]float64, len(obs))
	obj := func(th []float64) float64 {
		if err := ode.Simulate(nil, th, buf); err != nil {
			return math.Inf(1)
		}
		s := 0.0
		for i := range obs {
			d := buf[i] - obs[i]
			s += d * d
		}
		return s
	}
	best, bv := []float64{-2, -3}, math.Inf(1)
	for _, lb := range []float64{-3, -2, -1, 0, 1} {
		for _, lg := range []float64{-5, -4, -3, -2, -1} {
			if v := obj([]float64{lb, lg}); v < bv {
				best, bv = []float64{lb, lg}, v
			}
		}
	}
	// Nelder–Mead refinement.
	pts := [][]float64{best, {best[0] + 0.3, best[1]}, {best[0], best[1] + 0.3}}
	val := []float64{obj(pts[0]), obj(pts[1]), obj(pts[2])}
	for it := 0; it < 400; it++ {
		idx := []int{0, 1, 2}
		sort.Slice(idx, func(a, b int) bool { return val[idx[a]] < val[idx[b]] })
		pts = [][]float64{pts[idx[0]], pts[idx[1]], pts[idx[2]]}
		val = []float64{val[idx[0]], val[idx[1]], val[idx[2]]}
		c := []float64{(pts[0][0] + pts[1][0]) / 2, (pts[0][1] + pts[1][1]) / 2}
		at := func(t float64) []float64 { return []float64{c[0] + t*(c[0]-pts[2][0]), c[1] + t*(c[1]-pts[2][1])} }
		xr := at(1)
		fr := obj(xr)
		switch {
		case fr < val[0]:
			if xe := at(2); obj(xe) < fr {
				pts[2], val[2] = xe, obj(xe)
			} else {
				pts[2], val[2] = xr, fr
			}
		case fr < val[1]:
			pts[2], val[2] = xr, fr
		default:
			xc := at(-0.5)
			if fc := obj(xc); fc < val[2] {
				pts[2], val[2] = xc, fc
			} else {
				for i := 1; i < 3; i++ {
					pts[i] = []float64{(pts[i][0] + pts[0][0]) / 2, (pts[i][1] + pts[0][1]) / 2}
					val[i] = obj(pts[i])
				}
			}
		}
	}
	return pts[0]
}
