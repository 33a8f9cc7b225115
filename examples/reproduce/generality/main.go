// Command generality runs amortized neural posterior estimation (one
// round of flow/sbi's SPPE: NPE, or NPE through a Laplace mechanism) with
// the package defaults on a suite of problems that nobody tuned on, each
// with an exact or asymptotically exact reference posterior, and scores
// the posteriors by C2ST (flow/metrics) beside the sbi package's NPE
// trained on the same simulations.
//
// The suite (-problems; `go run ./examples/reproduce/generality -list` describes
// each):
//
//   - gauss2, gauss5, gauss10, gauss20: θ ~ N(0, I_d), x = θ + N(0, 0.5²I),
//     an unbounded prior with a Gaussian posterior in closed form;
//   - uniform2, uniform5, uniform10, uniform20: θ ~ U[−1, 1]^d,
//     x = θ + N(0, 0.1·I) (uniform10 is sbibm's "Gaussian linear uniform"),
//     a bounded prior whose posterior is a product of truncated Gaussians,
//     drawn exactly;
//   - studentt2: three observations of each coordinate with Student t₃
//     noise, a heavy-tailed likelihood;
//   - bimodal2: x_j = θ_j² + noise, a posterior with up to four modes;
//   - ridge2: a Gaussian posterior with correlation −0.97;
//   - laplace1: the mean of 10 Gaussian records released with Laplace
//     noise (our SPPE integrates over the mechanism; sbi's NPE is given
//     one noisy release per simulation, as it would be used).
//
// The last four have independent coordinates given the data, so their
// posteriors are drawn by inverse CDF on a fine grid of each coordinate's
// exact density (asymptotically exact). Every problem has five fixed
// observations (from the prior and the simulator, on streams of the
// problem's name, independent of -seed and of the budget).
//
// For every problem, budget N (-sims) and training seed (-seeds) the
// program draws N prior simulations on a stream of the seed, writes them
// to -out (<problem>_<N>_s<seed>_sims.csv: θ columns, then the release
// the peer is given), trains our posterior on them (process CPU time
// recorded; run with GOMAXPROCS=1 to compare with torch on one thread),
// draws -samples draws at each observation and scores them against as
// many reference draws with metrics.C2ST (the sbibm protocol: an MLP of
// two layers of 10·d units, 5-fold cross-validation). Results are kept
// in -out (<problem>_<N>_s<seed>_ours[_<variant>].txt) and read back by
// later runs, so a long run can be split and resumed. peer_sbi.py (in
// this directory) trains sbi v0.22's NPE ("nsf", defaults) on each sims
// file and writes its draws; a later run scores those with the same C2ST
// (same reference draws, same classifier seed) and puts both in one table:
//
//	go run ./examples/reproduce/generality -simulate-only -out /tmp/gen
//	python3 examples/reproduce/generality/peer_sbi.py /tmp/gen
//	GOMAXPROCS=1 go run ./examples/reproduce/generality -out /tmp/gen
//
// Where the exact posterior density is known (every problem here; on the
// grid problems it is normalised by quadrature) each tool is also scored
// by KL(reference ‖ estimate), estimated at the reference draws: ours from
// Posterior.LogDensity, sbi's from the log_prob values peer_sbi.py writes
// (<cell>_sbi_logq_o<k>.csv). It costs no classifier and resolves
// differences the C2ST cannot; -no-c2st scores ours by the KL alone (a
// screen for diagnoses). Our per-epoch training and validation losses are
// written beside each result (<…>_loss.csv).
//
// -variant changes our training for a diagnosis (names joined by "+"):
// shift (Config.RegressionShift = sbi.ShiftOn: the regression shift on
// every problem, the default before the rule for box priors), noshift
// (sbi.ShiftOff), noaffine (the flow without
// flow.Config.ContextAffine), tail<B> (TailBound B), wd0 (no weight
// decay), noema (no moving average), pat<P> (patience P), lr<X>
// (learning rate X), hidden<H>, layers<L>, batch<B>, logit (a bounded
// prior's box mapped to R by the logit before training, draws mapped
// back). -quick runs gauss2 and uniform2 at 500 simulations, one seed,
// two observations and 500 draws. examples/reproduce/generality/RESULTS.md records
// the measurements.
//
// -sbc runs simulation-based calibration instead (privinfer.SBC) of the
// engines with their defaults: amortized NPE (npe, trained once per
// problem and budget of -sims), sequential SNPE and SNLE (snpe, snle: one
// training per data set, -sims simulations over -rounds rounds) and, as
// a check, the suite's exact posteriors (exact); -datasets data sets
// each, ranks among 99 draws, a chi-square test of their uniformity per
// parameter with a Bonferroni correction at the family-wise level 10⁻³
// (sbc.go has the details). -sbc-power prints the power of that test:
//
//	go run ./examples/reproduce/generality -sbc npe -problems gauss2,laplace1,studentt2,uniform2 -sims 1000,10000 -out /tmp/sbc
//	go run ./examples/reproduce/generality -sbc snpe,snle -problems gauss2 -sims 1000 -rounds 2 -out /tmp/sbc
//	go run ./examples/reproduce/generality -sbc-power 1000
package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/flow/sbi"
)

// observations is the number of fixed observations per problem.
const observations = 5

type config struct {
	cli.Common
	problems []string
	sims     []int
	seeds    []uint64
	obs      int
	samples  int
	simOnly  bool
	list     bool
	force    bool
	variant  string
	noC2ST   bool
	sbc      []string // -sbc methods (empty: the C2ST comparison)
	datasets int      // -datasets (0: the method's default)
	rounds   int      // -rounds of the sequential methods under -sbc
	power    int      // -sbc-power: simulated runs per cell of the power table (0: none)
	powerN   []int    // -power-datasets: the data-set counts of the power table
}

func main() { cli.Program("generality", parse, run) }

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	probs := fs.String("problems", strings.Join(problemNames(), ","), "comma-separated problems")
	sims := fs.String("sims", "1000,10000", "comma-separated simulation budgets")
	seeds := fs.String("seeds", "", "comma-separated training seeds, each training on its own simulations (default: -seed, -seed+1, -seed+2)")
	fs.IntVar(&c.obs, "obs", observations, "observations 1..obs to score")
	fs.IntVar(&c.samples, "samples", 2000, "posterior draws per observation (the C2ST uses as many reference draws)")
	fs.BoolVar(&c.simOnly, "simulate-only", false, "only write the simulations, observations and references to -out, without training")
	fs.BoolVar(&c.list, "list", false, "describe the problems and exit")
	fs.BoolVar(&c.force, "force", false, "retrain cells whose results -out already holds")
	fs.BoolVar(&c.noC2ST, "no-c2st", false, "skip our C2ST and score by the KL divergence from the reference only (problems with a closed-form posterior density): a cheap screen for diagnoses")
	fs.StringVar(&c.variant, "variant", "", "training variant for a diagnosis (see the package documentation)")
	sbcList := fs.String("sbc", "", "run simulation-based calibration instead of the C2ST comparison, of these comma-separated methods: "+strings.Join(sbcMethods, ", ")+" (see sbc.go)")
	fs.IntVar(&c.datasets, "datasets", 0, "SBC data sets per cell (0: 500 for npe and exact, 100 for snpe and snle)")
	fs.IntVar(&c.power, "sbc-power", 0, "print the power of the SBC test at -power-datasets data sets, from this many simulated runs per miscalibration, and exit")
	powerN := fs.String("power-datasets", "100,200,500", "comma-separated data-set counts of the -sbc-power table")
	fs.IntVar(&c.rounds, "rounds", 4, "rounds of snpe and snle under -sbc; -sims is then the total over the rounds")
	common := cli.Register(fs, 1)
	if err := cli.Parse(fs, args); err != nil {
		return c, err
	}
	if err := cli.QuickDefaults(fs, common.Quick, map[string]string{
		"problems": "gauss2,uniform2", "sims": "500", "obs": "2", "samples": "500"}); err != nil {
		return c, err
	}
	c.Common = *common
	for _, p := range strings.Split(*probs, ",") {
		p = strings.TrimSpace(p)
		if _, err := newProblem(p); err != nil {
			return c, cli.Usagef("-problems: %v", err)
		}
		c.problems = append(c.problems, p)
	}
	for _, s := range strings.Split(*sims, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 100 || n > 1<<22 {
			return c, cli.Usagef("-sims: %q is not a budget in [100, 2^22]", s)
		}
		c.sims = append(c.sims, n)
	}
	if *seeds == "" {
		*seeds = fmt.Sprintf("%d,%d,%d", common.Seed, common.Seed+1, common.Seed+2)
		if common.Quick {
			*seeds = strconv.FormatUint(common.Seed, 10)
		}
	}
	for _, s := range strings.Split(*seeds, ",") {
		v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return c, cli.Usagef("-seeds: %q is not a seed", s)
		}
		c.seeds = append(c.seeds, v)
	}
	switch {
	case c.obs < 1 || c.obs > observations:
		return c, cli.Usagef("-obs must be in [1, %d], got %d", observations, c.obs)
	case c.samples < 100 || c.samples > 100000:
		return c, cli.Usagef("-samples must be in [100, 100000], got %d", c.samples)
	case !c.list && c.Out == "" && c.power == 0:
		return c, cli.Usagef("-out is required: the simulations, references and results are kept there")
	}
	if _, err := parseVariant(c.variant); err != nil {
		return c, cli.Usagef("-variant: %v", err)
	}
	if *sbcList != "" {
		for _, m := range strings.Split(*sbcList, ",") {
			m = strings.TrimSpace(m)
			if !slices.Contains(sbcMethods, m) {
				return c, cli.Usagef("-sbc: unknown method %q (known: %s)", m, strings.Join(sbcMethods, ", "))
			}
			c.sbc = append(c.sbc, m)
		}
	}
	for _, v := range strings.Split(*powerN, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 10 || n > 100000 {
			return c, cli.Usagef("-power-datasets: %q is not a count in [10, 100000]", v)
		}
		c.powerN = append(c.powerN, n)
	}
	switch {
	case c.datasets < 0 || c.datasets > 1<<20:
		return c, cli.Usagef("-datasets must be in [0, 2^20], got %d", c.datasets)
	case c.power < 0 || c.power > 100000:
		return c, cli.Usagef("-sbc-power must be in [0, 100000], got %d", c.power)
	case c.rounds < 1 || c.rounds > 100:
		return c, cli.Usagef("-rounds must be in [1, 100], got %d", c.rounds)
	}
	return c, nil
}

// variant is a set of changes to our default training.
type variant struct {
	shift, noShift, noAffine, noEMA, wd0, logit bool
	tail, lr                                    float64
	patience, hidden, layers, batch             int
}

func parseVariant(s string) (variant, error) {
	var v variant
	if s == "" {
		return v, nil
	}
	for _, part := range strings.Split(s, "+") {
		num := func(prefix string) (float64, bool) {
			if !strings.HasPrefix(part, prefix) {
				return 0, false
			}
			x, err := strconv.ParseFloat(strings.TrimPrefix(part, prefix), 64)
			return x, err == nil && x > 0 && !math.IsInf(x, 0)
		}
		switch {
		case part == "shift":
			v.shift = true
		case part == "noshift":
			v.noShift = true
		case part == "noaffine":
			v.noAffine = true
		case part == "noema":
			v.noEMA = true
		case part == "wd0":
			v.wd0 = true
		case part == "logit":
			v.logit = true
		default:
			if x, ok := num("tail"); ok {
				v.tail = x
			} else if x, ok := num("lr"); ok {
				v.lr = x
			} else if x, ok := num("pat"); ok && x == math.Trunc(x) {
				v.patience = int(x)
			} else if x, ok := num("hidden"); ok && x == math.Trunc(x) {
				v.hidden = int(x)
			} else if x, ok := num("layers"); ok && x == math.Trunc(x) {
				v.layers = int(x)
			} else if x, ok := num("batch"); ok && x == math.Trunc(x) {
				v.batch = int(x)
			} else {
				return v, fmt.Errorf("unknown part %q", part)
			}
		}
	}
	if v.shift && v.noShift {
		return v, fmt.Errorf("shift and noshift exclude each other")
	}
	return v, nil
}

// stream returns a generator for a problem and a purpose.
func stream(seed uint64, parts ...any) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// instance is a problem with its observations and reference draws.
type instance struct {
	*problem
	xo  [][]float64 // the observed releases
	ref [][]float64 // reference draws at each observation (samples×dim)
}

func newInstance(name string, samples int) (*instance, error) {
	p, err := newProblem(name)
	if err != nil {
		return nil, err
	}
	in := &instance{problem: p}
	r := stream(0, name, "/observations")
	theta, s := make([]float64, p.dim), make([]float64, p.xdim)
	for k := 0; k < observations; k++ {
		p.prior.Sample(r, theta)
		p.sim(r, theta, s)
		x := make([]float64, p.xdim)
		p.release(r, s, x)
		in.xo = append(in.xo, x)
		in.ref = append(in.ref, p.reference(stream(0, name, "/reference/", k), x, samples))
	}
	return in, nil
}

// cell is one problem, budget and seed: our C2ST per observation and
// training costs, and the peer's when its draws are there.
type cell struct {
	problem      string
	n            int
	seed         uint64
	ours, peer   []float64
	kl, peerKL   []float64 // KL(reference ‖ posterior) per observation (nil when not computed)
	cpu, peerCPU float64   // training CPU seconds (NaN unknown)
	scoreCPU     float64   // CPU seconds of our draws and their C2ST
	epochs       int
	inSupport    float64 // smallest in-support fraction over the observations
	lossFile     string  // where our per-epoch losses are written
}

func run(ctx context.Context, c config, stdout, stderr io.Writer) error {
	if c.list {
		for _, name := range problemNames() {
			p, _ := newProblem(name)
			fmt.Fprintf(stdout, "%-10s %s\n", name, p.descriptor)
		}
		return nil
	}
	if err := c.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	if c.power > 0 {
		return sbcPowerTable(ctx, stdout, c.powerN, c.power, c.Seed, prog)
	}
	if len(c.sbc) > 0 {
		return runSBC(ctx, c, stdout, prog)
	}
	var cells []*cell
	for _, name := range c.problems {
		in, err := newInstance(name, c.samples)
		if err != nil {
			return err
		}
		if err := writeInstance(c, in); err != nil {
			return err
		}
		for _, n := range c.sims {
			for _, seed := range c.seeds {
				cl, err := runCell(ctx, c, in, n, seed, prog)
				if err != nil {
					return fmt.Errorf("%s, %d simulations, seed %d: %w", name, n, seed, err)
				}
				if cl != nil {
					cells = append(cells, cl)
				}
			}
		}
	}
	if c.simOnly {
		fmt.Fprintf(stdout, "simulations, observations and references written to %s\n", c.Out)
		return nil
	}
	report(stdout, c, cells)
	return nil
}

// writeInstance writes the prior (JSON), the observations and the
// reference draws of a problem for the peer and for the record.
func writeInstance(c config, in *instance) error {
	if err := os.WriteFile(c.Path(in.name+"_prior.json"), []byte(in.peerPrior+"\n"), 0o644); err != nil {
		return err
	}
	if err := writeRows(c.Path(in.name+"_obs.csv"), xNames(in.xdim), in.xo); err != nil {
		return err
	}
	for k, ref := range in.ref {
		if err := writeMatrix(c.Path(fmt.Sprintf("%s_ref_o%d.csv", in.name, k+1)), thetaNames(in.dim), ref, in.dim); err != nil {
			return err
		}
	}
	return nil
}

func thetaNames(d int) []string {
	s := make([]string, d)
	for i := range s {
		s[i] = fmt.Sprintf("theta[%d]", i)
	}
	return s
}

func xNames(d int) []string {
	s := make([]string, d)
	for i := range s {
		s[i] = fmt.Sprintf("x[%d]", i)
	}
	return s
}

func writeRows(path string, header []string, rows [][]float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(header)
	rec := make([]string, len(header))
	for _, r := range rows {
		for j, v := range r {
			rec[j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeMatrix(path string, header []string, m []float64, d int) error {
	rows := make([][]float64, len(m)/d)
	for i := range rows {
		rows[i] = m[i*d : (i+1)*d]
	}
	return writeRows(path, header, rows)
}

// simulations draws n prior simulations for a seed: the parameters, the
// confidential summaries (what our SPPE trains on, integrating over the
// mechanism) and one release of each (what the peer trains on).
func simulations(in *instance, n int, seed uint64) (theta, stats, released []float64) {
	r := stream(seed, in.name, "/sims/", n)
	d, sd := in.dim, in.xdim
	theta, stats, released = make([]float64, n*d), make([]float64, n*sd), make([]float64, n*sd)
	for i := range n {
		th, s := theta[i*d:(i+1)*d], stats[i*sd:(i+1)*sd]
		in.prior.Sample(r, th)
		in.sim(r, th, s)
		in.release(r, s, released[i*sd:(i+1)*sd])
	}
	return theta, stats, released
}

func cellName(name string, n int, seed uint64) string { return fmt.Sprintf("%s_%d_s%d", name, n, seed) }

func runCell(ctx context.Context, c config, in *instance, n int, seed uint64, prog *cli.Progress) (*cell, error) {
	base := cellName(in.name, n, seed)
	theta, stats, released := simulations(in, n, seed)
	simPath := c.Path(base + "_sims.csv")
	if _, err := os.Stat(simPath); err != nil {
		both := make([]float64, 0, n*(in.dim+in.xdim))
		for i := range n {
			both = append(both, theta[i*in.dim:(i+1)*in.dim]...)
			both = append(both, released[i*in.xdim:(i+1)*in.xdim]...)
		}
		if err := writeMatrix(simPath, append(thetaNames(in.dim), xNames(in.xdim)...), both, in.dim+in.xdim); err != nil {
			return nil, err
		}
	}
	if c.simOnly {
		return nil, nil
	}
	cl := &cell{problem: in.name, n: n, seed: seed, cpu: math.NaN(), peerCPU: math.NaN()}
	suffix := "_ours"
	if c.variant != "" {
		suffix += "_" + c.variant
	}
	if c.noC2ST {
		suffix += "_kl"
	}
	resPath := c.Path(base + suffix + ".txt")
	cl.lossFile = base + suffix + "_loss.csv"
	if ok := readResult(resPath, cl); !ok || c.force {
		prog.Printf("%s: training (%s)", base, strings.TrimPrefix(suffix, "_"))
		if err := trainOurs(ctx, c, in, n, seed, theta, stats, cl); err != nil {
			return nil, err
		}
		if err := writeResult(resPath, cl); err != nil {
			return nil, err
		}
		prog.Printf("%s: KL %s, C2ST %s, training CPU %.1f s, %d epochs, in support ≥ %.3f (scoring CPU %.1f s)", base, fmtList(cl.kl), fmtList(cl.ours), cl.cpu, cl.epochs, cl.inSupport, cl.scoreCPU)
	}
	// The peer's draws, when peer_sbi.py has written them.
	if _, err := os.Stat(c.Path(base + "_sbi_o1.csv")); err == nil {
		peerPath := c.Path(base + "_sbi_c2st.txt")
		var pc cell
		if readResult(peerPath, &pc) && len(pc.ours) >= c.obs {
			cl.peer = pc.ours[:c.obs]
		} else if !c.noC2ST {
			for k := 0; k < c.obs; k++ {
				draws, err := readDraws(c.Path(fmt.Sprintf("%s_sbi_o%d.csv", base, k+1)), in.dim, c.samples)
				if err != nil {
					return nil, err
				}
				s, err := score(draws, in.ref[k], in.dim, c.samples)
				if err != nil {
					return nil, err
				}
				cl.peer = append(cl.peer, s)
			}
			if err := writeResult(peerPath, &cell{ours: cl.peer, cpu: math.NaN(), inSupport: math.NaN()}); err != nil {
				return nil, err
			}
		}
		cl.peerCPU = peerCPU(c.Path(base + "_sbi_time.txt"))
		if _, err := os.Stat(c.Path(base + "_sbi_logq_o1.csv")); err == nil {
			for k := 0; k < c.obs; k++ {
				lq, err := readDraws(c.Path(fmt.Sprintf("%s_sbi_logq_o%d.csv", base, k+1)), 1, c.samples)
				if err != nil {
					return nil, err
				}
				var kl float64
				for i := range c.samples {
					kl += in.logPost(in.xo[k], in.ref[k][i*in.dim:(i+1)*in.dim]) - lq[i]
				}
				cl.peerKL = append(cl.peerKL, kl/float64(c.samples))
			}
		}
	}
	return cl, nil
}

// score is the C2ST of m draws against m reference draws, with the
// classifier's seed fixed so that both tools meet the same classifier.
func score(draws, ref []float64, d, m int) (float64, error) {
	return metrics.C2ST(draws[:m*d], ref[:m*d], d, metrics.C2STOptions{Seed: 1})
}

// trainOurs trains our amortized posterior on the simulations and scores
// it at every observation.
func trainOurs(ctx context.Context, c config, in *instance, n int, seed uint64, theta, stats []float64, cl *cell) error {
	v, _ := parseVariant(c.variant)
	p := privinfer.Problem{Prior: in.prior, Simulator: simulator{in.problem}}
	if in.mech != nil {
		p.Mechanism = in.mech
	}
	toTheta := func([]float64) {}
	logJac := func([]float64) float64 { return 0 } // log |du/dθ| of the map to the flow's space
	if v.logit && in.bounded() {
		// Train on u = logit((θ − lo)/(hi − lo)) under the pushforward of
		// the uniform prior (a logistic law), and map draws back.
		lo, w := in.lo, in.hi-in.lo
		theta = append([]float64(nil), theta...)
		for i, t := range theta {
			y := (t - lo) / w
			theta[i] = math.Log(y) - math.Log1p(-y)
		}
		p.Prior = logisticPrior{d: in.dim}
		p.Simulator = logitSim{in.problem}
		toTheta = func(u []float64) {
			for i, x := range u {
				u[i] = lo + w/(1+math.Exp(-x))
			}
		}
		logJac = func(th []float64) float64 {
			var s float64
			for _, t := range th {
				y := (t - lo) / w
				s -= math.Log(w * y * (1 - y))
			}
			return s
		}
	}
	cfg := sbi.Config{Rounds: 1, SimsPerRound: n, PosteriorSamples: 1, Seed: seed,
		Simulations: &sbi.Simulations{Theta: theta, Stats: stats}}
	switch {
	case v.shift:
		cfg.RegressionShift = sbi.ShiftOn
	case v.noShift:
		cfg.RegressionShift = sbi.ShiftOff
	}
	tc := sbi.DefaultTrain()
	if v.wd0 {
		tc.WeightDecay = 0
	}
	if v.noEMA {
		tc.EMA = 0
	}
	if v.patience > 0 {
		tc.Patience = v.patience
	}
	if v.lr > 0 {
		tc.LearningRate = v.lr
	}
	if v.batch > 0 {
		tc.BatchSize = v.batch
	}
	cfg.Train = &tc
	fc := cfg.DefaultFlow(sbi.PosteriorFlow, in.dim, in.xdim)
	if v.noAffine {
		fc.ContextAffine = false
	}
	if v.tail > 0 {
		fc.TailBound = v.tail
	}
	if v.hidden > 0 {
		fc.Hidden = v.hidden
	}
	if v.layers > 0 {
		fc.Layers = v.layers
	}
	cfg.Flow = &fc
	cpu0, ok0 := cli.ProcessCPU()
	out, err := sbi.SPPE(ctx, p, cfg)
	if err != nil {
		return err
	}
	if cpu1, ok1 := cli.ProcessCPU(); ok0 && ok1 {
		cl.cpu = (cpu1 - cpu0).Seconds()
	}
	cl.epochs = out.Rounds[0].Epochs
	if c.Out != "" {
		// The per-epoch losses, for diagnoses of the training schedule.
		rr := out.Rounds[0]
		rows := make([][]float64, len(rr.TrainLoss))
		for i := range rows {
			rows[i] = []float64{float64(i + 1), rr.TrainLoss[i], rr.ValidationLoss[i]}
		}
		if err := writeRows(c.Path(cl.lossFile), []string{"epoch", "train", "validation"}, rows); err != nil {
			return err
		}
	}
	cl.inSupport = 1
	cpuScore, _ := cli.ProcessCPU()
	defer func() {
		if c, ok := cli.ProcessCPU(); ok {
			cl.scoreCPU = (c - cpuScore).Seconds()
		}
	}()
	for k := 0; k < c.obs; k++ {
		post, err := out.Posterior.At(in.xo[k])
		if err != nil {
			return err
		}
		cl.inSupport = math.Min(cl.inSupport, post.InSupport())
		draws := make([]float64, c.samples*in.dim)
		if err := post.Sample(stream(seed, in.name, "/draws/", n, "/", k), c.samples, draws); err != nil {
			return err
		}
		toTheta(draws)
		if in.logPost != nil {
			// KL(reference ‖ ours) estimated at the reference draws.
			var kl float64
			th, u := make([]float64, in.dim), make([]float64, in.dim)
			for i := range c.samples {
				copy(th, in.ref[k][i*in.dim:(i+1)*in.dim])
				copy(u, th)
				if v.logit && in.bounded() {
					for j, t := range th {
						y := (t - in.lo) / (in.hi - in.lo)
						u[j] = math.Log(y) - math.Log1p(-y)
					}
				}
				kl += in.logPost(in.xo[k], th) - (post.LogDensity(u) + logJac(th))
			}
			cl.kl = append(cl.kl, kl/float64(c.samples))
		}
		s := math.NaN()
		if !c.noC2ST {
			if s, err = score(draws, in.ref[k], in.dim, c.samples); err != nil {
				return err
			}
		}
		cl.ours = append(cl.ours, s)
	}
	return nil
}

// logisticPrior is the law of logit(U), U uniform on (0, 1), in each of d
// coordinates: the pushforward of a uniform box prior.
type logisticPrior struct{ d int }

func (p logisticPrior) Dim() int { return p.d }

func (p logisticPrior) Sample(r *rand.Rand, u []float64) {
	for i := range u {
		y := r.Float64()
		for y == 0 {
			y = r.Float64()
		}
		u[i] = math.Log(y) - math.Log1p(-y)
	}
}

func (p logisticPrior) LogDensity(u []float64) float64 {
	if len(u) != p.d {
		return math.NaN()
	}
	var s float64
	for _, x := range u {
		if math.IsNaN(x) {
			return math.NaN()
		}
		if math.IsInf(x, 0) {
			return math.Inf(-1)
		}
		a := math.Abs(x)
		s += -a - 2*math.Log1p(math.Exp(-a))
	}
	return s
}

// logitSim simulates from u = logit((θ − lo)/(hi − lo)).
type logitSim struct{ p *problem }

func (s logitSim) StatDim() int { return s.p.xdim }

func (s logitSim) Simulate(r *rand.Rand, u, dst []float64) error {
	theta := make([]float64, len(u))
	for i, x := range u {
		theta[i] = s.p.lo + (s.p.hi-s.p.lo)/(1+math.Exp(-x))
	}
	return simulator{s.p}.Simulate(r, theta, dst)
}

// readResult reads a result file written by writeResult into cl.
func readResult(path string, cl *cell) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, f := range strings.Fields(string(data)) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			continue
		}
		switch k {
		case "c2st":
			cl.ours = nil
			for _, s := range strings.Split(v, ",") {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return false
				}
				cl.ours = append(cl.ours, x)
			}
		case "kl":
			cl.kl = nil
			for _, s := range strings.Split(v, ",") {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return false
				}
				cl.kl = append(cl.kl, x)
			}
		case "cpu_s":
			cl.cpu, _ = strconv.ParseFloat(v, 64)
		case "epochs":
			cl.epochs, _ = strconv.Atoi(v)
		case "in_support":
			cl.inSupport, _ = strconv.ParseFloat(v, 64)
		}
	}
	return len(cl.ours) > 0
}

func writeResult(path string, cl *cell) error {
	s := fmt.Sprintf("c2st=%s cpu_s=%.2f epochs=%d in_support=%.4f", fmtList(cl.ours), cl.cpu, cl.epochs, cl.inSupport)
	if cl.kl != nil {
		s += " kl=" + fmtList(cl.kl)
	}
	s += "\n"
	return cli.WriteAtomic(path, func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	})
}

func fmtList(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'f', 4, 64)
	}
	return strings.Join(s, ",")
}

// peerCPU reads the training CPU seconds peer_sbi.py recorded (NaN when
// absent).
func peerCPU(path string) float64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return math.NaN()
	}
	for _, f := range strings.Fields(string(data)) {
		if v, ok := strings.CutPrefix(f, "cpu_s="); ok {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				return x
			}
		}
	}
	return math.NaN()
}

// readDraws reads at least n draws of dimension d from a CSV file with a
// header.
func readDraws(path string, d, n int) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < n+1 {
		return nil, fmt.Errorf("%s: %d draws, want %d", path, len(recs)-1, n)
	}
	out := make([]float64, 0, n*d)
	for _, rec := range recs[1 : n+1] {
		if len(rec) != d {
			return nil, fmt.Errorf("%s: a row of %d values, want %d", path, len(rec), d)
		}
		for _, s := range rec {
			x, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%s: bad value %q", path, s)
			}
			out = append(out, x)
		}
	}
	return out, nil
}

func report(w io.Writer, c config, cells []*cell) {
	label := "defaults"
	if c.variant != "" {
		label = "variant " + c.variant
	}
	fmt.Fprintf(w, "### Amortized NPE (ours: %s) beside sbi's NPE on the same simulations\n\n", label)
	fmt.Fprintf(w, "C2ST against the reference (mean over observations 1–%d, %d draws a side), then mean ± s.e. over training seeds; CPU: training seconds, mean over seeds.\n\n", c.obs, c.samples)
	type key struct {
		p string
		n int
	}
	var order []key
	groups := map[key][]*cell{}
	for _, cl := range cells {
		k := key{cl.problem, cl.n}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], cl)
	}
	t := cli.Table{Header: []string{"problem", "simulations", "seeds", "C2ST ours", "C2ST sbi", "ours − sbi (paired)", "CPU ours", "CPU sbi", "min in-support", "KL ours", "KL sbi"}}
	for _, k := range order {
		var ours, peer, diff, cpu, pcpu, kl, pkl []float64
		minIn := 1.0
		for _, cl := range groups[k] {
			m, _ := cli.MeanSE(cl.ours[:min(c.obs, len(cl.ours))])
			ours = append(ours, m)
			if cl.kl != nil {
				km, _ := cli.MeanSE(cl.kl)
				kl = append(kl, km)
			}
			if !math.IsNaN(cl.cpu) {
				cpu = append(cpu, cl.cpu)
			}
			minIn = math.Min(minIn, cl.inSupport)
			if cl.peerKL != nil {
				km, _ := cli.MeanSE(cl.peerKL)
				pkl = append(pkl, km)
			}
			if cl.peer != nil {
				pm, _ := cli.MeanSE(cl.peer)
				peer = append(peer, pm)
				diff = append(diff, m-pm)
				if !math.IsNaN(cl.peerCPU) {
					pcpu = append(pcpu, cl.peerCPU)
				}
			}
		}
		pm := func(x []float64) string {
			if len(x) == 0 {
				return "—"
			}
			m, se := cli.MeanSE(x)
			if len(x) == 1 {
				return cli.F(m, 3)
			}
			return fmt.Sprintf("%.3f ± %.3f", m, se)
		}
		avg := func(x []float64) string {
			if len(x) == 0 {
				return "—"
			}
			m, _ := cli.MeanSE(x)
			return cli.F(m, 1)
		}
		t.Add(k.p, strconv.Itoa(k.n), strconv.Itoa(len(groups[k])), pm(ours), pm(peer), pm(diff), avg(cpu), avg(pcpu), cli.F(minIn, 3), pm(kl), pm(pkl))
	}
	t.Markdown(w)
	fmt.Fprintln(w, "\nPer seed (C2ST per observation):")
	d := cli.Table{Header: []string{"problem", "simulations", "seed", "tool", "C2ST per observation", "CPU s", "epochs", "KL per observation"}}
	for _, cl := range cells {
		d.Add(cl.problem, strconv.Itoa(cl.n), strconv.FormatUint(cl.seed, 10), "ours", fmtList(cl.ours), cli.F(cl.cpu, 1), strconv.Itoa(cl.epochs), fmtList(cl.kl))
		if cl.peer != nil {
			d.Add(cl.problem, strconv.Itoa(cl.n), strconv.FormatUint(cl.seed, 10), "sbi", fmtList(cl.peer), cli.F(cl.peerCPU, 1), "", fmtList(cl.peerKL))
		}
	}
	d.Markdown(w)
}
