package sbibm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/internal/testutil"
)

// exactSample draws n samples of the task's exact posterior at x where the
// task's definition gives a direct sampler: Gaussian linear (closed form),
// Gaussian mixture (the mixture centred at x, rejected outside the prior's
// box) and two moons (a simulated moon point p at θ = 0, the θ solving
// x = p + (−|z0|, z1) with a random sign of z0, rejected outside the box
// or when no θ solves it). It returns nil for SLCP.
func exactSample(task *Task, x []float64, n int, r *rand.Rand) []float64 {
	d := task.Dim()
	out := make([]float64, 0, n*d)
	th := make([]float64, d)
	p := make([]float64, 2)
	for len(out) < n*d {
		switch task.Name() {
		case GaussianLinear:
			mean, cov, _ := GaussianLinearPosterior(x)
			for i := range d {
				th[i] = mean[i] + math.Sqrt(cov[i*d+i])*r.NormFloat64()
			}
		case GaussianMixture:
			sd := 1.0
			if r.Float64() < 0.5 {
				sd = 0.1
			}
			th[0], th[1] = x[0]+sd*r.NormFloat64(), x[1]+sd*r.NormFloat64()
		case TwoMoons:
			if err := task.Simulator().Simulate(r, []float64{0, 0}, p); err != nil {
				panic(err)
			}
			a0 := p[0] - x[0] // |z0|
			if a0 < 0 {
				continue
			}
			if r.Float64() < 0.5 {
				a0 = -a0
			}
			z1 := x[1] - p[1]
			th[0], th[1] = (a0-z1)/math.Sqrt2, (a0+z1)/math.Sqrt2
		default:
			return nil
		}
		if math.IsInf(task.Prior().LogDensity(th), -1) {
			continue
		}
		out = append(out, th...)
	}
	return out
}

// TestExactSamplersHitTheMoon: the two-moons sampler's θ reproduce x.
func TestExactSamplersHitTheMoon(t *testing.T) {
	task := NewTwoMoons()
	x := []float64{-0.3, 0.1}
	s := exactSample(task, x, 1000, newRand(90))
	for i := range 1000 {
		u, rad, _ := moonPolar(s[2*i:2*i+2], x)
		if u < 0 || math.Abs(rad-0.1) > 0.07 {
			t.Fatalf("draw %v is not on the moon of x", s[2*i:2*i+2])
		}
	}
}

// TestC2STExactVersusReference measures, with the sbibm protocol's C2ST of
// flow/metrics, exact posterior samples of our tasks against the
// benchmark's reference samples of observation 1: an accuracy near 0.5
// (below 0.55) says the task definitions, the observation files and the
// loaders agree. 2000 samples each, every observation; about 20 s of CPU
// per observation, so it runs under PRIVINFER_LONG=1 only (on observation
// 1 it gave 0.496, 0.497 and 0.510).
func TestC2STExactVersusReference(t *testing.T) {
	testutil.Long(t)
	dir := refDir(t)
	n, obs := 2000, Observations
	for _, name := range []string{TwoMoons, GaussianLinear, GaussianMixture} {
		task, _ := New(name)
		for k := 1; k <= obs; k++ {
			x, err := task.Observation(dir, k)
			if err != nil {
				t.Fatal(err)
			}
			ref := reference(t, dir, task, k)
			exact := exactSample(task, x, n, newRand(uint64(91+k)))
			acc, err := metrics.C2ST(exact, ref.Theta[:n*task.Dim()], task.Dim(), metrics.C2STOptions{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s observation %d: C2ST %.3f", name, k, acc)
			if acc > 0.55 {
				t.Errorf("%s observation %d: C2ST of exact samples against the reference = %.3f, want < 0.55", name, k, acc)
			}
		}
	}
}
