package abc_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// normalMean simulates the sample mean of 25 draws from N(θ, 1).
type normalMean struct{}

func (normalMean) StatDim() int { return 1 }
func (normalMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	dst[0] = theta[0] + 0.2*r.NormFloat64()
	return nil
}

// SMC-ABC for a sample mean released with Laplace noise: SMC simulates
// releases through the Problem's simulator and mechanism, so the posterior
// targets π(θ | s_dp), whose mean is 0.846 by quadrature (the Monte Carlo
// error of 500 particles is about 0.03).
func ExampleSMC() {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	lap, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.4, Epsilon: 1, Dim: 1}) // scale 0.4
	p := privinfer.Problem{Prior: prior, Simulator: normalMean{}, Mechanism: lap, Observed: []float64{1.1}, Names: []string{"mu"}}
	res, err := abc.SMC(context.Background(), p, abc.SMCConfig{
		Distance:  abc.Euclidean{},
		Particles: 500,
		Schedule:  abc.Geometric{A: 1, R: 0.5, Rounds: 5},
		Seed:      1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fin := res.Final()
	fmt.Printf("rounds %d, final tolerance %.4f, stop: %v\n", len(res.Rounds), fin.Tolerance, res.Stop)
	fmt.Printf("posterior mean of %s %.2f\n", res.Draws.Names[0], res.Draws.Mean()[0])
	// Output:
	// rounds 5, final tolerance 0.0625, stop: schedule exhausted
	// posterior mean of mu 0.85
}

// ABCDP's noise calibration and its accuracy guarantees can be evaluated
// before any budget is spent. The selection here is Reproducible (noise
// from the seeded generator) so that the example prints a fixed output; a
// data owner releasing a selection leaves Reproducible unset, and the noise
// comes from the operating system's generator.
func ExampleNewABCDPSelector() {
	sens, _ := mechanism.MMDSensitivity(1, 5000) // Δρ = 2/N
	a, err := abc.NewABCDPSelector(abc.ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 10, Sensitivity: sens, Reproducible: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("b = %.4f, budget %v\n", a.Scale(), a.Budget())
	fmt.Printf("flip probability 0.05 from the threshold: %.4f\n", abc.FlipProbability(0.05, a.Scale()))

	sel, _ := a.Select(rand.New(rand.NewPCG(1, 2)), []float64{0.3, 0.02, 0.5, 0.01, 0.04})
	fmt.Println("indicators", sel.Indicators, "accepted", sel.Accepted)
	// Output:
	// b = 0.0044, budget ε=1
	// flip probability 0.05 from the threshold: 0.0023
	// indicators [false true false true true] accepted [1 3 4]
}

// identity releases θ itself as the statistic.
type identity struct{}

func (identity) StatDim() int { return 1 }
func (identity) Simulate(_ *rand.Rand, theta, dst []float64) error {
	dst[0] = theta[0]
	return nil
}

// The data owner runs ABCDP end to end: T public prior draws, their
// distances to the confidential observation (which never leave ABCDP), and
// the sparse vector's selection. The Problem has no Mechanism: ABCDP is the
// mechanism, and Observed is confidential. The result holds only the
// selection and public draws. Reproducible draws the noise from Seed so
// that the example's output is fixed; a release leaves it unset.
func ExampleABCDP() {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	confidential := []float64{0.7}
	p := privinfer.Problem{Prior: prior, Simulator: identity{}, Observed: confidential}
	// Distances clamped to [0, 1]: Δρ = 1 holds whatever the data.
	cfg := abc.ABCDPConfig{EpsTotal: 100, EpsABC: 0.1, C: 5, Clip: 1,
		Distance: abc.Euclidean{}, Simulations: 5000, Seed: 1, Reproducible: true}
	res, err := abc.ABCDP(context.Background(), p, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	b, _ := abc.NoiseScale(cfg.EpsTotal, cfg.Clip, cfg.C, cfg.Resample)
	fmt.Printf("b = %.2f; %d public draws, %d examined, %d accepted\n", b, res.Public.Len(), len(res.Indicators), res.Draws.Len())
	fmt.Printf("mean of the accepted draws %.1f\n", res.Draws.Mean()[0])
	// Output:
	// b = 0.06; 5000 public draws, 33 examined, 5 accepted
	// mean of the accepted draws 0.7
}

func ExampleNoiseScale() {
	b, _ := abc.NoiseScale(1, 2.0/5000, 10, true)
	eps, _ := abc.TotalEpsilon(b, 2.0/5000, 10, true)
	fmt.Printf("b = %.4f buys ε_total = %g\n", b, eps)
	// Output:
	// b = 0.0080 buys ε_total = 1
}

// With the mechanism's density as the kernel there is no tolerance: the
// weighted sample targets the exact posterior π(θ | s_dp) of the same model
// as ExampleSMC.
func ExampleKernelIS() {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	lap, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.4, Epsilon: 1, Dim: 1}) // scale 0.4
	p := privinfer.Problem{Prior: prior, Simulator: normalMean{}, Mechanism: lap, Observed: []float64{1.1}}
	res, err := abc.KernelIS(context.Background(), p, abc.KernelISConfig{
		Simulations: 5000, Stages: 2, Mean: []float64{0}, Cov: []float64{1}, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("stages %d, ESS above half the draws: %v\n", len(res.Stages), res.Draws.ESS() > 2500)
	fmt.Printf("posterior mean %.1f\n", res.Draws.Mean()[0])
	// Output:
	// stages 2, ESS above half the draws: true
	// posterior mean 0.8
}

// Rejection ABC keeps the prior draws whose simulated release (through the
// Problem's simulator and mechanism) lies nearest the observed one, and
// returns them as Draws named after the Problem's parameters. The exact
// posterior has mean 0.846 and sd 0.504 (quadrature).
func ExampleRejection() {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	lap, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.4, Epsilon: 1, Dim: 1}) // scale 0.4
	p := privinfer.Problem{Prior: prior, Simulator: normalMean{}, Mechanism: lap, Observed: []float64{1.1}, Names: []string{"mu"}}
	res, err := abc.Rejection(context.Background(), p, abc.RejectionConfig{
		Distance: abc.Euclidean{}, Accept: 1000, Simulations: 100000, Seed: 1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d draws of %v, tolerance %.3f\n", res.Draws.Len(), res.Draws.Names, res.Tolerance)
	fmt.Printf("posterior mean %.2f, sd %.2f\n", res.Draws.Mean()[0], res.Draws.SD()[0])
	// Output:
	// 1000 draws of [mu], tolerance 0.022
	// posterior mean 0.86, sd 0.50
}

// An Accountant in the configuration is charged ε_total by every
// selection, before any noise is drawn; once the budget is spent the
// selection is refused and nothing is released.
func ExampleABCDPConfig_accountant() {
	acc, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1.5})
	a, err := abc.NewABCDPSelector(abc.ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 2, Sensitivity: 0.01, Accountant: acc})
	if err != nil {
		fmt.Println(err)
		return
	}
	distances := []float64{0.3, 0.02, 0.5}
	if _, err := a.Select(nil, distances); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("spent", acc.Spent())
	_, err = a.Select(nil, distances)
	fmt.Println("second selection refused:", errors.Is(err, mechanism.ErrBudgetExceeded))
	// Output:
	// spent ε=1
	// second selection refused: true
}
