// Quickstart releases a clamped sample mean through the Laplace mechanism
// and recovers the noise-aware posterior of the population mean, printed
// next to the naive posterior that ignores the privacy noise.
//
// The curator holds n confidential values x_i ~ N(μ, σ²) with σ known,
// clamps them to [lo, hi] so that the sample mean has L1 sensitivity
// (hi − lo)/n, and releases s_dp = mean(clamp(x)) + Laplace noise.
//
// The analyst states the problem once, as a privinfer.Problem: the prior
// N(0, prior-sd²) on μ, a simulator of the clamped mean of n records, the
// Laplace mechanism and the release. The noise-aware posterior
// π(μ | s_dp) ∝ π(μ) ∫ p(s | μ) η(s_dp | s) ds comes from exact-kernel
// importance sampling (abc.KernelIS), which weights simulated confidential
// means by the mechanism's own density. The naive posterior is the same
// problem without its mechanism, as if s_dp were the confidential mean,
// sampled by SMC-ABC.
//
// Run it with
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

type config struct {
	n         int
	mu, sigma float64
	lo, hi    float64
	epsilon   float64
	priorSD   float64
	seed      uint64
	out       string // directory for the posterior plot and CSV ("" for none)
}

// errUsage marks a bad command line.
var errUsage = errors.New("usage")

func main() {
	cfg, err := parse(flag.NewFlagSet("quickstart", flag.ContinueOnError), os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// parse reads the flags; bad flags and bad values are usage errors.
func parse(fs *flag.FlagSet, args []string) (config, error) {
	cfg := config{}
	fs.IntVar(&cfg.n, "n", 200, "number of confidential records (≥ 2)")
	fs.Float64Var(&cfg.mu, "mu", 1.2, "true population mean used to simulate the confidential data")
	fs.Float64Var(&cfg.sigma, "sigma", 1, "known population standard deviation (> 0)")
	fs.Float64Var(&cfg.lo, "lo", -2, "lower clamping bound")
	fs.Float64Var(&cfg.hi, "hi", 4, "upper clamping bound (> lo)")
	fs.Float64Var(&cfg.epsilon, "epsilon", 0.1, "privacy budget ε of the release (> 0)")
	fs.Float64Var(&cfg.priorSD, "prior-sd", 10, "standard deviation of the N(0, prior-sd²) prior on μ (> 0)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "random seed")
	fs.StringVar(&cfg.out, "out", "", "directory for the posterior plot (SVG and PNG) and CSV files; empty writes none")
	// -quick is accepted like the reproduction programs' flag; the
	// quickstart is fast at its default settings, so it changes nothing.
	fs.Bool("quick", false, "accepted for compatibility; changes nothing")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if err := validate(cfg); err != nil {
		return cfg, fmt.Errorf("%w: %v", errUsage, err)
	}
	return cfg, nil
}

func validate(c config) error {
	switch {
	case c.n < 2:
		return fmt.Errorf("-n must be ≥ 2, got %d", c.n)
	case !(c.sigma > 0) || math.IsInf(c.sigma, 0):
		return fmt.Errorf("-sigma must be finite and > 0, got %v", c.sigma)
	case math.IsNaN(c.lo) || math.IsNaN(c.hi) || !(c.hi > c.lo) || math.IsInf(c.lo, 0) || math.IsInf(c.hi, 0):
		return fmt.Errorf("-lo and -hi must be finite with lo < hi, got [%v, %v]", c.lo, c.hi)
	case !(c.priorSD > 0) || math.IsInf(c.priorSD, 0):
		return fmt.Errorf("-prior-sd must be finite and > 0, got %v", c.priorSD)
	case math.IsNaN(c.mu) || math.IsInf(c.mu, 0):
		return fmt.Errorf("-mu must be finite, got %v", c.mu)
	case !(c.epsilon > 0) || math.IsInf(c.epsilon, 0):
		return fmt.Errorf("-epsilon must be finite and > 0, got %v", c.epsilon)
	}
	return nil
}

func run(_ context.Context, c config, w, stderr io.Writer) error {
	if err := validate(c); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(c.seed, 0x9e3779b97f4a7c15))

	// Curator: clamp, average, release through the Laplace mechanism.
	sens := (c.hi - c.lo) / float64(c.n)
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: c.epsilon, Dim: 1})
	if err != nil {
		return err
	}
	data := clampedMean{n: c.n, sigma: c.sigma, lo: c.lo, hi: c.hi}
	conf := make([]float64, 1)
	if err := data.Simulate(r, []float64{c.mu}, conf); err != nil {
		return err
	}
	sdp := make([]float64, 1)
	if err := mech.Release(r, conf, sdp); err != nil {
		return err
	}

	// Analyst: one Problem, two posteriors.
	progress := func(p privinfer.Progress) {
		if p.Step == p.Total {
			fmt.Fprintf(stderr, "%s %d done\n", p.Stage, p.Round)
		}
	}
	aware, naive, err := posteriors(c, mech, sdp, progress)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "confidential clamped mean (never released): %.4f\n", conf[0])
	fmt.Fprintf(w, "released s_dp (ε = %g, Laplace scale %.4f):  %.4f\n\n", c.epsilon, sens/c.epsilon, sdp[0])
	fmt.Fprintf(w, "%-12s %8s %8s %18s\n", "posterior", "mean", "sd", "95% interval")
	for _, row := range []struct {
		name string
		d    *privinfer.Draws
	}{{"noise-aware", aware}, {"naive", naive}} {
		lo, hi := row.d.Interval(0, 0.95)
		fmt.Fprintf(w, "%-12s %8.4f %8.4f   [%7.4f, %7.4f]\n", row.name, row.d.Mean()[0], row.d.SD()[0], lo, hi)
	}
	fmt.Fprintf(w, "\ntrue μ = %g. The naive posterior ignores the privacy noise and is overconfident.\n", c.mu)
	if c.out != "" {
		return writeOutputs(w, c, aware, naive)
	}
	return nil
}

// clampedMean simulates the confidential statistic: the mean of n values
// x_i ~ N(μ, σ²) clamped to [lo, hi], θ = (μ).
type clampedMean struct {
	n      int
	sigma  float64
	lo, hi float64
}

func (s clampedMean) StatDim() int { return 1 }

func (s clampedMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 1 || math.IsNaN(theta[0]) || math.IsInf(theta[0], 0) {
		return fmt.Errorf("μ must be one finite value, got %v", theta)
	}
	var sum float64
	for range s.n {
		sum += min(max(theta[0]+s.sigma*r.NormFloat64(), s.lo), s.hi)
	}
	dst[0] = sum / float64(s.n)
	return nil
}

// posteriors returns the noise-aware posterior of μ given the release
// (exact-kernel importance sampling) and the naive one that treats the
// release as the confidential mean (SMC-ABC on the problem without its
// mechanism).
func posteriors(c config, mech *mechanism.Laplace, sdp []float64, prog privinfer.ProgressFunc) (aware, naive *privinfer.Draws, err error) {
	prior, err := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: c.priorSD})
	if err != nil {
		return nil, nil, err
	}
	mu, err := simulate.NewIndependent(prior)
	if err != nil {
		return nil, nil, err
	}
	p := privinfer.Problem{Prior: mu, Simulator: clampedMean{n: c.n, sigma: c.sigma, lo: c.lo, hi: c.hi},
		Mechanism: mech, Observed: sdp, Names: []string{"mu"}}
	b := mech.Scale(0)
	width := 2 * (b + c.sigma/math.Sqrt(float64(c.n))) // proposal scale: noise plus sampling spread
	is, err := abc.KernelIS(context.Background(), p, abc.KernelISConfig{
		Simulations: 4000, Stages: 4, Mean: sdp, Cov: []float64{width * width}, Seed: c.seed, Progress: prog})
	if err != nil {
		return nil, nil, fmt.Errorf("noise-aware posterior: %w", err)
	}
	p.Mechanism = nil // the naive analyst: s_dp taken as the confidential mean
	smc, err := abc.SMC(context.Background(), p, abc.SMCConfig{Distance: abc.Euclidean{}, Particles: 1000,
		Schedule: abc.Adaptive{Initial: math.Inf(1), Quantile: 0.5, Rounds: 12}, Seed: c.seed + 1, Progress: prog})
	if err != nil {
		return nil, nil, fmt.Errorf("naive posterior: %w", err)
	}
	return is.Draws, smc.Draws, nil
}

// writeOutputs writes both posteriors' draws as CSV and a plot of their
// marginal histograms as SVG and PNG into c.out.
func writeOutputs(w io.Writer, c config, aware, naive *privinfer.Draws) error {
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	plot := privinfer.CornerConfig{
		Title: fmt.Sprintf("Posterior of μ from a Laplace release (ε = %g); mark: true μ", c.epsilon),
		Label: "noise-aware", Compare: []*privinfer.Draws{naive}, CompareLabels: []string{"naive"},
		Truth: []float64{c.mu}, Bins: 60, Panel: 420}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"quickstart_noise_aware.csv", aware.WriteCSV},
		{"quickstart_naive.csv", naive.WriteCSV},
		{"quickstart_posterior.svg", func(w io.Writer) error { return aware.Corner(w, plot) }},
		{"quickstart_posterior.png", func(w io.Writer) error { return aware.CornerPNG(w, plot) }},
	}
	for _, f := range files {
		path := filepath.Join(c.out, f.name)
		if err := writeFile(path, f.write); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s\n", path)
	}
	return nil
}

// writeFile creates path and writes it with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
