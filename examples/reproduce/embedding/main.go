// Command embedding measures what an embedding network buys neural
// posterior estimation on a 100-dimensional release: a time series whose
// exact posterior is known.
//
// The model is a first-order autoregression observed at T = 100 times,
//
//	x_0 = 0,  x_t = φ·x_{t−1} + σ·ε_t,  ε_t ~ N(0, 1),  t = 1, …, 100,
//
// with θ = (φ, σ), prior φ ~ U(−1, 1) and σ² ~ InvGamma(3, 2), and the
// release is the whole series s = (x_1, …, x_100). Given s the posterior is
// exact: with A = Σ x²_{t−1}, B = Σ x_{t−1}x_t and C = Σ x²_t,
// φ | s is a Student t with 2·3 + T − 1 degrees of freedom centred at B/A,
// truncated to (−1, 1), and σ² | φ, s ~ InvGamma(3 + T/2, 2 + S(φ)/2) with
// S(φ) = C − 2φB + φ²A. The reference draws are exact.
//
// Amortized neural posterior estimation (SPPE with one round and no
// mechanism) is trained on the same simulations with the same flow in four
// ways: on the raw series (the flow's conditioners see 100 inputs), through
// an MLP embedding (100 → 64 → 64 → 8), through a 1-D convolutional
// embedding (a 2-step and a 1-step convolution of 16 filters, global
// average pooling, 32 hidden units, 8 outputs), and — as the ideal summary —
// on the sufficient statistics (A, B, C)/T. Every posterior is sampled at
// the releases of several parameters drawn from the prior (Posterior.At)
// and compared with the exact posterior by C2ST (0.5: indistinguishable).
//
// Run it with
//
//	go run ./examples/reproduce/embedding            # 5000 simulations, 5 releases
//	go run ./examples/reproduce/embedding -quick     # 500 simulations, 2 releases
//
// -methods selects a subset (raw, mlp, cnn, stats), -sims the budget and
// -obs the number of releases; -out DIR writes every posterior's draws
// beside the exact ones as CSV, the marginal histograms of φ and σ at the
// first release for every method beside the exact posterior
// (embedding_marginals.svg and .png) and the C2ST of every method at every
// release (embedding_c2st.svg and .png).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/simulate"
)

// The model's constants: series length and the inverse-gamma prior of σ².
const (
	steps  = 100
	priorA = 3.0
	priorB = 2.0
)

type config struct {
	cli.Common
	sims, obs, samples int
	epochs, patience   int
	methods            []string
}

var allMethods = []string{"raw", "mlp", "cnn", "stats"}

func main() { cli.Program("embedding", parse, run) }

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	common := cli.Register(fs, 1)
	fs.IntVar(&c.sims, "sims", 0, "simulations (0: 5000, or 500 with -quick)")
	fs.IntVar(&c.obs, "obs", 0, "releases at which the posteriors are compared (0: 5, or 2 with -quick)")
	fs.IntVar(&c.samples, "samples", 2000, "posterior and reference draws per release for C2ST")
	fs.IntVar(&c.epochs, "epochs", 0, "maximum training epochs (0: 300, or 30 with -quick)")
	fs.IntVar(&c.patience, "patience", 20, "epochs without validation improvement before stopping")
	methods := fs.String("methods", strings.Join(allMethods, ","), "comma-separated methods: raw, mlp, cnn, stats")
	if err := cli.Parse(fs, args); err != nil {
		return c, err
	}
	c.Common = *common
	def := func(v *int, full, quick int) {
		if *v == 0 {
			*v = full
			if c.Quick {
				*v = quick
			}
		}
	}
	def(&c.sims, 5000, 500)
	def(&c.obs, 5, 2)
	def(&c.epochs, 300, 30)
	for _, m := range strings.Split(*methods, ",") {
		if !slices.Contains(allMethods, m) {
			return c, cli.Usagef("-methods: unknown method %q (want raw, mlp, cnn or stats)", m)
		}
		c.methods = append(c.methods, m)
	}
	switch {
	case c.sims < 20:
		return c, cli.Usagef("-sims must be at least 20, got %d", c.sims)
	case c.obs < 1:
		return c, cli.Usagef("-obs must be at least 1, got %d", c.obs)
	case c.samples < 50:
		return c, cli.Usagef("-samples must be at least 50, got %d", c.samples)
	case c.epochs < 1 || c.patience < 1:
		return c, cli.Usagef("-epochs and -patience must be at least 1, got %d and %d", c.epochs, c.patience)
	}
	return c, nil
}

// arPrior is the prior of θ = (φ, σ): φ ~ U(−1, 1), σ² ~ InvGamma(a, b).
type arPrior struct{ gamma *simulate.Gamma }

func newPrior() arPrior {
	g, err := simulate.NewGamma(simulate.GammaConfig{Shape: priorA, Scale: 1 / priorB})
	if err != nil {
		panic(err) // constant, valid configuration
	}
	return arPrior{g}
}

func (arPrior) Dim() int { return 2 }

func (p arPrior) Sample(r *rand.Rand, theta []float64) {
	theta[0] = 2*r.Float64() - 1
	theta[1] = 1 / math.Sqrt(p.gamma.Sample(r))
}

// LogDensity is log π(φ, σ) = log ½ + log InvGamma(σ²; a, b) + log 2σ.
func (arPrior) LogDensity(theta []float64) float64 {
	if len(theta) != 2 || math.IsNaN(theta[0]) || math.IsNaN(theta[1]) {
		return math.NaN()
	}
	phi, s := theta[0], theta[1]
	if !(phi > -1 && phi < 1 && s > 0) || math.IsInf(s, 0) {
		return math.Inf(-1)
	}
	lg, _ := math.Lgamma(priorA)
	v := s * s
	return math.Log(0.5) + priorA*math.Log(priorB) - lg - (priorA+1)*math.Log(v) - priorB/v + math.Log(2*s)
}

// series simulates the autoregression: the release is (x_1, …, x_100).
type series struct{}

func (series) StatDim() int { return steps }

func (series) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 2 || len(dst) < steps {
		return fmt.Errorf("series: need θ of 2 values and %d outputs", steps)
	}
	x := 0.0
	for t := range dst[:steps] {
		x = theta[0]*x + theta[1]*r.NormFloat64()
		dst[t] = x
	}
	return nil
}

// sufficient returns (A, B, C) = (Σ x²_{t−1}, Σ x_{t−1}x_t, Σ x²_t) of a
// series with x_0 = 0.
func sufficient(x []float64) (a, b, c float64) {
	prev := 0.0
	for _, v := range x {
		a += prev * prev
		b += prev * v
		c += v * v
		prev = v
	}
	return a, b, c
}

// stats simulates the same series and releases its sufficient statistics
// divided by T: the ideal summary.
type stats struct{}

func (stats) StatDim() int { return 3 }

func (stats) Simulate(r *rand.Rand, theta, dst []float64) error {
	var x [steps]float64
	if err := (series{}).Simulate(r, theta, x[:]); err != nil {
		return err
	}
	a, b, c := sufficient(x[:])
	dst[0], dst[1], dst[2] = a/steps, b/steps, c/steps
	return nil
}

// exactPosterior draws n exact posterior draws of (φ, σ) given the series
// x into dst (n×2): φ from its truncated Student t marginal by rejection,
// then σ² from its inverse-gamma conditional.
func exactPosterior(r *rand.Rand, x []float64, n int, dst []float64) error {
	a, b, c := sufficient(x)
	if !(a > 0) {
		return fmt.Errorf("exact posterior: degenerate series (Σ x²_{t−1} = %v)", a)
	}
	p := priorA + float64(len(x))/2
	nu := 2*p - 1
	m := b / a
	k := priorB + (c-b*b/a)/2
	scale := math.Sqrt(2 * k / (a * nu))
	chi, err := simulate.NewGamma(simulate.GammaConfig{Shape: nu / 2, Scale: 2})
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		phi := math.NaN()
		for try := 0; try < 1_000_000; try++ {
			v := m + scale*r.NormFloat64()/math.Sqrt(chi.Sample(r)/nu)
			if v > -1 && v < 1 {
				phi = v
				break
			}
		}
		if math.IsNaN(phi) {
			return fmt.Errorf("exact posterior: φ's marginal has almost no mass in (−1, 1)")
		}
		rate := priorB + (c-2*phi*b+phi*phi*a)/2
		g, err := simulate.NewGamma(simulate.GammaConfig{Shape: p, Scale: 1 / rate})
		if err != nil {
			return err
		}
		dst[2*i], dst[2*i+1] = phi, 1/math.Sqrt(g.Sample(r))
	}
	return nil
}

// flowConfig is the flow every method trains: five coupling layers of two
// 50-unit residual blocks with context gating and LU layers (the size of
// the sbi package's default neural spline flow).
func flowConfig() *flow.Config {
	c := flow.DefaultConfig(2, steps)
	c.Layers, c.Hidden, c.Blocks, c.Bins = 5, 50, 2, 8
	return &c
}

// embedding returns the embedding network of a method (nil for raw and
// stats).
func embedding(method string) *ad.Net {
	var n ad.Net
	switch method {
	case "mlp":
		n = ad.Net{In: steps, Hidden: []int{64, 64}, Out: 8}
	case "cnn":
		n = ad.Net{In: steps, Conv: []ad.ConvLayer{
			{Filters: 16, Kernel: 2},
			{Filters: 16, Kernel: 1, Pool: steps - 1},
		}, Hidden: []int{32}, Out: 8}
	default:
		return nil
	}
	return &n
}

// release is one comparison point: a parameter drawn from the prior, its
// series and the exact posterior draws.
type release struct {
	theta []float64
	x     []float64
	ref   []float64
}

// outcome is one method's result.
type outcome struct {
	method string
	c2st   []float64 // per release
	mean   []float64 // posterior mean of (φ, σ) at the first release
	first  []float64 // posterior draws at the first release (samples×2)
	train  time.Duration
	epochs int
}

func run(ctx context.Context, c config, stdout, stderr io.Writer) error {
	if err := c.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	prior := newPrior()
	r := rand.New(rand.NewPCG(c.Seed, 0x656d62))
	rel := make([]release, c.obs)
	for k := range rel {
		th := make([]float64, 2)
		prior.Sample(r, th)
		x := make([]float64, steps)
		if err := (series{}).Simulate(r, th, x); err != nil {
			return err
		}
		ref := make([]float64, 2*c.samples)
		if err := exactPosterior(r, x, c.samples, ref); err != nil {
			return err
		}
		rel[k] = release{th, x, ref}
	}
	var out []outcome
	for _, m := range c.methods {
		prog.Printf("%s: training on %d simulations", m, c.sims)
		o, err := runMethod(ctx, c, m, prior, rel, prog)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		out = append(out, o)
	}
	report(stdout, c, rel, out)
	return writePlots(c, rel, out)
}

// writePlots draws the marginal posteriors of every method at the first
// release beside the exact posterior and the true θ, and the C2ST of every
// method at every release.
func writePlots(c config, rel []release, out []outcome) error {
	if c.Out == "" || len(out) == 0 {
		return nil
	}
	rows := func(x []float64) [][]float64 {
		r := make([][]float64, len(x)/2)
		for i := range r {
			r[i] = x[2*i : 2*i+2]
		}
		return r
	}
	sets := []plot.Sample{{Name: "exact", Rows: rows(rel[0].ref)}}
	var series []plot.Series
	for _, o := range out {
		sets = append(sets, plot.Sample{Name: methodNames[o.method], Rows: rows(o.first)})
		s := plot.Series{Name: methodNames[o.method]}
		for k, v := range o.c2st {
			s.X, s.Y = append(s.X, float64(k+1)), append(s.Y, v)
		}
		series = append(series, s)
	}
	cv, err := plot.Histograms{Title: fmt.Sprintf("AR(1), release 1: amortized NPE on %d simulations vs the exact posterior; line: true θ", c.sims),
		Params: []string{"φ", "σ"}, Sets: sets, Truth: rel[0].theta, Width: 420}.Draw()
	if err != nil {
		return err
	}
	if _, err := c.WritePlot("embedding_marginals", cv); err != nil {
		return err
	}
	cv, err = plot.LineChart{Title: fmt.Sprintf("C2ST against the exact posterior (%d simulations; 0.5: indistinguishable)", c.sims),
		XLabel: "release", YLabel: "C2ST", Series: series, HLines: []float64{0.5}}.Draw()
	if err != nil {
		return err
	}
	_, err = c.WritePlot("embedding_c2st", cv)
	return err
}

// runMethod trains one method's amortized posterior and compares it with
// the exact posterior at every release.
func runMethod(ctx context.Context, c config, method string, prior arPrior, rel []release, prog *cli.Progress) (outcome, error) {
	o := outcome{method: method}
	p := privinfer.Problem{Prior: prior, Simulator: series{}, Observed: rel[0].x, Names: []string{"phi", "sigma"}}
	obsOf := func(x []float64) []float64 { return x }
	if method == "stats" {
		p.Simulator = stats{}
		obsOf = func(x []float64) []float64 {
			a, b, cc := sufficient(x)
			return []float64{a / steps, b / steps, cc / steps}
		}
		p.Observed = obsOf(rel[0].x)
	}
	tc := flow.DefaultTrainConfig()
	tc.BatchSize, tc.MaxEpochs, tc.Patience = 100, c.epochs, c.patience
	fc := flowConfig()
	fc.ContextDim = p.Simulator.StatDim()
	cfg := sbi.Config{
		Rounds: 1, SimsPerRound: c.sims, Flow: fc, Train: &tc, Embedding: embedding(method),
		PosteriorSamples: 100, Seed: c.Seed,
		Progress: prog.Every(3*time.Second, method),
		// Every method's flow models θ itself, so that the comparison
		// measures what each input tells the flow (a linear shift on the
		// raw series would do part of an embedding's work).
		RegressionShift: sbi.ShiftOff,
	}
	var res *sbi.SPPEResult
	err := prog.While(3*time.Second, method, func() (err error) {
		res, err = sbi.SPPE(ctx, p, cfg)
		return err
	})
	if err != nil {
		return o, err
	}
	o.train = res.TrainTime
	o.epochs = res.Rounds[0].Epochs
	prog.Printf("%s: trained in %d epochs (%s)", method, o.epochs, o.train.Round(time.Millisecond))
	for k, rl := range rel {
		prog.Printf("%s: release %d/%d, sampling and C2ST", method, k+1, len(rel))
		post, err := res.Posterior.At(obsOf(rl.x))
		if err != nil {
			return o, err
		}
		draws := make([]float64, 2*c.samples)
		if err := post.Sample(rand.New(rand.NewPCG(c.Seed, uint64(k))), c.samples, draws); err != nil {
			return o, err
		}
		acc, err := metrics.C2ST(draws, rl.ref, 2, metrics.C2STOptions{Seed: c.Seed + uint64(k)})
		if err != nil {
			return o, err
		}
		o.c2st = append(o.c2st, acc)
		if k == 0 {
			d := privinfer.Draws{Names: p.Names, Dim: 2, Theta: draws}
			o.mean = d.Mean()
			o.first = draws
		}
		if path := c.Path(fmt.Sprintf("%s_release%d.csv", method, k+1)); path != "" {
			if err := writeCSV(path, &privinfer.Draws{Names: p.Names, Dim: 2, Theta: draws}); err != nil {
				return o, err
			}
			if err := writeCSV(c.Path(fmt.Sprintf("exact_release%d.csv", k+1)), &privinfer.Draws{Names: p.Names, Dim: 2, Theta: rl.ref}); err != nil {
				return o, err
			}
		}
	}
	return o, nil
}

func writeCSV(path string, d *privinfer.Draws) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := d.WriteCSV(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var methodNames = map[string]string{
	"raw":   "raw series (100 inputs)",
	"mlp":   "MLP embedding",
	"cnn":   "CNN embedding",
	"stats": "sufficient statistics (ideal)",
}

func report(w io.Writer, c config, rel []release, out []outcome) {
	fmt.Fprintf(w, "AR(1) series of %d steps, amortized NPE on %d simulations, C2ST against the exact posterior (%d draws each)\n\n", steps, c.sims, c.samples)
	fmt.Fprintf(w, "%-30s", "method")
	for k := range rel {
		fmt.Fprintf(w, "  rel.%d", k+1)
	}
	fmt.Fprintf(w, "   mean  epochs  train time\n")
	for _, o := range out {
		fmt.Fprintf(w, "%-30s", methodNames[o.method])
		for _, v := range o.c2st {
			fmt.Fprintf(w, "  %5.3f", v)
		}
		fmt.Fprintf(w, "  %5.3f  %6d  %10s\n", mean(o.c2st), o.epochs, o.train.Round(time.Second))
	}
	fmt.Fprintf(w, "\nrelease 1: θ = (%.3f, %.3f); exact posterior mean (%.3f, %.3f)\n", rel[0].theta[0], rel[0].theta[1],
		mean(column(rel[0].ref, 0)), mean(column(rel[0].ref, 1)))
	for _, o := range out {
		fmt.Fprintf(w, "  %-30s posterior mean (%.3f, %.3f)\n", methodNames[o.method], o.mean[0], o.mean[1])
	}
	var raw, best *outcome
	for i := range out {
		switch o := &out[i]; o.method {
		case "raw":
			raw = o
		case "mlp", "cnn":
			if best == nil || mean(o.c2st) < mean(best.c2st) {
				best = o
			}
		}
	}
	if raw != nil && best != nil {
		what := "embedding network on a 100-dimensional release"
		detail := fmt.Sprintf("mean C2ST %.3f with the %s, %.3f on the raw series", mean(best.c2st), methodNames[best.method], mean(raw.c2st))
		if mean(best.c2st) < mean(raw.c2st) {
			cli.PrintVerdict(w, cli.Reproduced, what, detail)
		} else {
			cli.PrintVerdict(w, cli.Differs, what, detail)
		}
	}
}

func column(x []float64, j int) []float64 {
	c := make([]float64, len(x)/2)
	for i := range c {
		c[i] = x[2*i+j]
	}
	return c
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
