package sbi

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// normalSim is the confidential summary of the conjugate test model:
// s = θ + τ·N(0,1) (the mean of n normal observations with τ = σ/√n).
type normalSim struct {
	tau  float64
	fail error // returned for θ > failAbove when set
}

var errBoom = errors.New("boom")

func (normalSim) StatDim() int { return 1 }

func (m normalSim) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 1 || math.IsNaN(theta[0]) {
		return fmt.Errorf("bad θ %v", theta)
	}
	if m.fail != nil {
		return m.fail
	}
	dst[0] = theta[0] + m.tau*r.NormFloat64()
	return nil
}

// Test model: θ ~ N(0, 1), s | θ ~ N(θ, τ²), s_dp = s + Laplace(b).
const (
	testTau = 0.5
	testB   = 0.5
	testObs = 1.2
)

func testProblem() privinfer.Problem {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	mech, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: testB, Epsilon: 1, Dim: 1}) // scale Δ/ε = 0.5
	return privinfer.Problem{Prior: prior, Simulator: normalSim{tau: testTau}, Mechanism: mech, Observed: []float64{testObs}}
}

// exactPosterior returns a grid and the normalised exact posterior density
// π(θ | s_dp) ∝ N(θ; 0, 1) ∫ N(s; θ, τ²) Lap(s_dp − s; b) ds, the inner
// integral by the trapezoid rule on a fine grid split at the Laplace kink.
func exactPosterior() (grid, dens []float64) {
	const lo, hi, n = -5.0, 5.0, 2001
	grid = make([]float64, n)
	dens = make([]float64, n)
	h := (hi - lo) / (n - 1)
	for i := range grid {
		th := lo + float64(i)*h
		grid[i] = th
		// ∫ N(s; θ, τ²) Lap(obs − s; b) ds over s ∈ [θ−10τ, θ+10τ] ∪ kink.
		a, c := th-10*testTau, th+10*testTau
		f := func(s float64) float64 {
			z := (s - th) / testTau
			return math.Exp(-0.5*z*z) / (testTau * math.Sqrt(2*math.Pi)) * math.Exp(-math.Abs(testObs-s)/testB) / (2 * testB)
		}
		integ := func(a, c float64) float64 {
			if c <= a {
				return 0
			}
			const m = 2000
			hh := (c - a) / m
			s := 0.5 * (f(a) + f(c))
			for k := 1; k < m; k++ {
				s += f(a + float64(k)*hh)
			}
			return s * hh
		}
		k := math.Min(math.Max(testObs, a), c)
		like := integ(a, k) + integ(k, c)
		dens[i] = math.Exp(-0.5*th*th) * like
	}
	tot := 0.0
	for _, v := range dens {
		tot += v * h
	}
	for i := range dens {
		dens[i] /= tot
	}
	return grid, dens
}

// gridMoments returns the mean and standard deviation of a grid density.
func gridMoments(grid, dens []float64) (mean, sd float64) {
	h := grid[1] - grid[0]
	for i, x := range grid {
		mean += x * dens[i] * h
	}
	for i, x := range grid {
		sd += (x - mean) * (x - mean) * dens[i] * h
	}
	return mean, math.Sqrt(sd)
}

// gridCDF returns the CDF of a grid density by linear interpolation.
func gridCDF(grid, dens []float64) func(float64) float64 {
	h := grid[1] - grid[0]
	cum := make([]float64, len(grid))
	for i := 1; i < len(grid); i++ {
		cum[i] = cum[i-1] + 0.5*(dens[i]+dens[i-1])*h
	}
	tot := cum[len(cum)-1]
	return func(x float64) float64 {
		if x <= grid[0] {
			return 0
		}
		if x >= grid[len(grid)-1] {
			return 1
		}
		j := int((x - grid[0]) / h)
		t := (x - grid[j]) / h
		return (cum[j] + t*(cum[j+1]-cum[j])) / tot
	}
}

// smallConfig is a configuration small enough for unit tests.
func smallConfig() Config {
	var o Config
	o.Rounds = 2
	o.SimsPerRound = 400
	o.InnerPoints = 8
	o.Atoms = 5
	cfg := flow.DefaultConfig(1, 1)
	cfg.Layers = 2
	cfg.Hidden = 16
	cfg.Blocks = 1
	cfg.Bins = 8
	cfg.ContextGating = false
	o.Flow = &cfg
	tc := flow.DefaultTrainConfig()
	tc.BatchSize = 50
	tc.MaxEpochs = 40
	tc.Patience = 8
	tc.LearningRate = 3e-3
	tc.ValidationFraction = 0.1
	o.Train = &tc
	o.Chains = 4
	o.Warmup = 300
	o.Thin = 2
	o.PosteriorSamples = 1000
	o.Seed = 11
	return o
}

// shiftMode is ShiftOn for true and ShiftOff for false.
func shiftMode(on bool) ShiftMode {
	if on {
		return ShiftOn
	}
	return ShiftOff
}
