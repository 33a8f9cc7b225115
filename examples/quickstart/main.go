// Quickstart releases a clamped sample mean through the Laplace mechanism
// and recovers the noise-aware posterior of the population mean μ next to
// the naive posterior that ignores the privacy noise; it runs in about a
// second. The curator releases the mean of n = 200 values x_i ~ N(μ, 1)
// clamped to [−2, 4] (sensitivity 6/n) with noise from the operating
// system's generator, so the numbers change from run to run. The analyst
// states one privinfer.Problem: exact-kernel importance sampling
// (abc.KernelIS) gives the noise-aware posterior, SMC-ABC on the Problem
// without its mechanism the naive one. -out DIR writes both posteriors'
// draws (CSV) and their corner plot (SVG, PNG).
//
//	go run ./examples/quickstart [-epsilon 0.1] [-seed 1] [-out DIR]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// The data's size and true μ, the clamping bounds, the prior's sd.
const n, trueMu, lo, hi, priorSD = 200, 1.2, -2.0, 4.0, 10.0

func main() {
	eps := flag.Float64("epsilon", 0.1, "privacy budget ε of the release (> 0)")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("out", "", "directory for the posteriors' draws (CSV) and plot (SVG, PNG)")
	flag.Bool("quick", false, "accepted like the reproduction programs' flag; changes nothing")
	flag.Parse()
	if err := run(os.Stdout, os.Stderr, *eps, *seed, *out); err != nil {
		log.Fatal(err)
	}
}

func run(w, progress io.Writer, eps float64, seed uint64, out string) error {
	// Curator: clamp, average, release through the Laplace mechanism.
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: (hi - lo) / n, Epsilon: eps, Dim: 1})
	if err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(seed, 1)) // simulates the confidential data
	conf, sdp := make([]float64, 1), make([]float64, 1)
	if err := (clampedMean{}).Simulate(r, []float64{trueMu}, conf); err != nil {
		return err
	}
	if err := mech.Release(r, conf, sdp); err != nil { // noise from the OS generator
		return err
	}
	// Analyst: one Problem, two posteriors.
	aware, naive, err := posteriors(mech, sdp, seed, privinfer.ProgressPrinter(progress, time.Second))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "true μ %g, confidential clamped mean %.4f (never released), release (ε = %g) %.4f\n\nnoise-aware posterior:\n%v\nnaive posterior (overconfident: it ignores the noise):\n%v",
		trueMu, conf[0], eps, sdp[0], aware.Summary(), naive.Summary())
	if out == "" {
		return nil
	}
	plot := privinfer.CornerConfig{Title: fmt.Sprintf("Posterior of μ from a Laplace release (ε = %g); mark: true μ", eps),
		Label: "noise-aware", Compare: []*privinfer.Draws{naive}, CompareLabels: []string{"naive"}, Truth: []float64{trueMu}, Bins: 60, Panel: 420}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer) error{
		"quickstart_noise_aware.csv": aware.WriteCSV, "quickstart_naive.csv": naive.WriteCSV,
		"quickstart_posterior.svg": func(w io.Writer) error { return aware.Corner(w, plot) },
		"quickstart_posterior.png": func(w io.Writer) error { return aware.CornerPNG(w, plot) },
	} {
		f, err := os.Create(filepath.Join(out, name))
		if err != nil {
			return err
		}
		if err := errors.Join(write(f), f.Close()); err != nil {
			return err
		}
	}
	return nil
}

// clampedMean simulates the confidential statistic: the mean of n values
// x_i ~ N(μ, 1) clamped to [lo, hi], θ = (μ).
type clampedMean struct{}

func (clampedMean) StatDim() int { return 1 }

func (clampedMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	dst[0] = 0
	for range n {
		dst[0] += min(max(theta[0]+r.NormFloat64(), lo), hi) / n
	}
	return nil
}

// posteriors returns the noise-aware posterior of μ given the release
// (exact-kernel importance sampling) and the naive one that treats the
// release as the confidential mean (SMC-ABC without the mechanism).
func posteriors(mech *mechanism.Laplace, sdp []float64, seed uint64, progress privinfer.ProgressFunc) (aware, naive *privinfer.Draws, err error) {
	normal, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: priorSD})
	prior, _ := simulate.NewIndependent(normal)
	p := privinfer.Problem{Prior: prior, Simulator: clampedMean{}, Mechanism: mech, Observed: sdp, Names: []string{"mu"}}
	width := 2 * (mech.Scale(0) + 1/math.Sqrt(n)) // proposal scale: noise plus sampling spread
	is, err := abc.KernelIS(context.Background(), p, abc.KernelISConfig{
		Simulations: 4000, Stages: 4, Mean: sdp, Cov: []float64{width * width}, Seed: seed, Progress: progress})
	if err != nil {
		return nil, nil, fmt.Errorf("noise-aware posterior: %w", err)
	}
	p.Mechanism = nil // the naive analyst: s_dp taken as the confidential mean
	smc, err := abc.SMC(context.Background(), p, abc.SMCConfig{Distance: abc.Euclidean{}, Particles: 1000,
		Schedule: abc.Adaptive{Initial: math.Inf(1), Quantile: 0.5, Rounds: 12}, Seed: seed + 1, Progress: progress})
	if err != nil {
		return nil, nil, fmt.Errorf("naive posterior: %w", err)
	}
	return is.Draws, smc.Draws, nil
}
