// Quickstart releases a clamped sample mean through the Laplace mechanism
// and recovers the noise-aware posterior of the population mean μ, printed
// next to the naive posterior that ignores the privacy noise.
//
// The curator holds n = 200 values x_i ~ N(μ, 1), clamps them to [−2, 4]
// (so the mean has sensitivity 6/n) and releases their mean plus Laplace
// noise. The analyst states the problem once, as a privinfer.Problem; the
// noise-aware posterior comes from exact-kernel importance sampling
// (abc.KernelIS), the naive one from SMC-ABC on the problem without its
// mechanism. -out DIR writes both posteriors' draws (CSV) and a plot.
//
//	go run ./examples/quickstart [-epsilon 0.1] [-seed 1] [-out DIR]
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
	n                 int
	mu, sigma, lo, hi float64 // the confidential data's law and the clamping bounds
	epsilon, priorSD  float64 // the release's budget; the N(0, priorSD²) prior on μ
	seed              uint64
	out               string // directory for the draws and the plot ("" for none)
}

// errUsage marks a bad command line.
var errUsage = errors.New("usage")

func main() {
	c, err := parse(flag.NewFlagSet("quickstart", flag.ContinueOnError), os.Args[1:])
	if err == nil {
		err = run(context.Background(), c, os.Stdout, os.Stderr)
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func parse(fs *flag.FlagSet, args []string) (config, error) {
	c := config{n: 200, mu: 1.2, sigma: 1, lo: -2, hi: 4, priorSD: 10}
	fs.Float64Var(&c.epsilon, "epsilon", 0.1, "privacy budget ε of the release (> 0)")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed")
	fs.StringVar(&c.out, "out", "", "directory for the posteriors' draws (CSV) and plot (SVG, PNG)")
	fs.Bool("quick", false, "accepted like the reproduction programs' flag; changes nothing")
	if err := fs.Parse(args); err != nil {
		return c, fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	if !(c.epsilon > 0) || math.IsInf(c.epsilon, 0) {
		return c, fmt.Errorf("%w: -epsilon must be finite and > 0, got %v", errUsage, c.epsilon)
	}
	return c, nil
}

func run(_ context.Context, c config, w, stderr io.Writer) error {
	if c.n < 2 || !(c.sigma > 0) || !(c.hi > c.lo) || math.IsInf(c.mu+c.lo+c.hi+c.sigma, 0) || math.IsNaN(c.mu) {
		return fmt.Errorf("bad data settings %+v", c)
	}
	r := rand.New(rand.NewPCG(c.seed, 0x9e3779b97f4a7c15)) // simulates the confidential data
	// Curator: clamp, average, release through the Laplace mechanism
	// (noise from the operating system's generator).
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: (c.hi - c.lo) / float64(c.n), Epsilon: c.epsilon, Dim: 1})
	if err != nil {
		return err
	}
	conf, sdp := make([]float64, 1), make([]float64, 1)
	if err := (clampedMean{c}).Simulate(r, []float64{c.mu}, conf); err != nil {
		return err
	}
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
	fmt.Fprintf(w, "confidential clamped mean (never released): %.4f\nreleased s_dp (ε = %g, Laplace scale %.4f):  %.4f\n\n",
		conf[0], c.epsilon, mech.Scale(0), sdp[0])
	fmt.Fprintf(w, "%-12s %8s %8s %18s\n", "posterior", "mean", "sd", "95% interval")
	for i, d := range []*privinfer.Draws{aware, naive} {
		lo, hi := d.Interval(0, 0.95)
		fmt.Fprintf(w, "%-12s %8.4f %8.4f   [%7.4f, %7.4f]\n", []string{"noise-aware", "naive"}[i], d.Mean()[0], d.SD()[0], lo, hi)
	}
	fmt.Fprintf(w, "\ntrue μ = %g. The naive posterior ignores the privacy noise and is overconfident.\n", c.mu)
	return writeOutputs(w, c, aware, naive)
}

// clampedMean simulates the confidential statistic: the mean of n values
// x_i ~ N(μ, σ²) clamped to [lo, hi], θ = (μ).
type clampedMean struct{ c config }

func (s clampedMean) StatDim() int { return 1 }

func (s clampedMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 1 || math.IsNaN(theta[0]) || math.IsInf(theta[0], 0) {
		return fmt.Errorf("μ must be one finite value, got %v", theta)
	}
	dst[0] = 0
	for range s.c.n {
		dst[0] += min(max(theta[0]+s.c.sigma*r.NormFloat64(), s.c.lo), s.c.hi) / float64(s.c.n)
	}
	return nil
}

// posteriors returns the noise-aware posterior of μ given the release
// (exact-kernel importance sampling) and the naive one that treats the
// release as the confidential mean (SMC-ABC without the mechanism).
func posteriors(c config, mech *mechanism.Laplace, sdp []float64, prog privinfer.ProgressFunc) (aware, naive *privinfer.Draws, err error) {
	normal, err := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: c.priorSD})
	if err != nil {
		return nil, nil, err
	}
	prior, _ := simulate.NewIndependent(normal)
	p := privinfer.Problem{Prior: prior, Simulator: clampedMean{c}, Mechanism: mech, Observed: sdp, Names: []string{"mu"}}
	width := 2 * (mech.Scale(0) + c.sigma/math.Sqrt(float64(c.n))) // proposal scale: noise plus sampling spread
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

// writeOutputs writes both posteriors' draws as CSV and their corner plot
// as SVG and PNG into c.out, if set.
func writeOutputs(w io.Writer, c config, aware, naive *privinfer.Draws) error {
	if c.out == "" {
		return nil
	}
	plot := privinfer.CornerConfig{Title: fmt.Sprintf("Posterior of μ from a Laplace release (ε = %g); mark: true μ", c.epsilon),
		Label: "noise-aware", Compare: []*privinfer.Draws{naive}, CompareLabels: []string{"naive"}, Truth: []float64{c.mu}, Bins: 60, Panel: 420}
	files := map[string]func(io.Writer) error{
		"quickstart_noise_aware.csv": aware.WriteCSV,
		"quickstart_naive.csv":       naive.WriteCSV,
		"quickstart_posterior.svg":   func(w io.Writer) error { return aware.Corner(w, plot) },
		"quickstart_posterior.png":   func(w io.Writer) error { return aware.CornerPNG(w, plot) },
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	for name, write := range files {
		f, err := os.Create(filepath.Join(c.out, name))
		if err != nil {
			return err
		}
		if err := errors.Join(write(f), f.Close()); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "wrote the draws and the plot to %s\n", c.out)
	return nil
}
