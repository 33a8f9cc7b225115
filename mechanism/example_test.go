package mechanism_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// A curator privatizes the mean of a bounded attribute inside a pipeline:
// clamp to public bounds, compute the mean and its sensitivity, charge the
// accountant and release through the secure (discrete, crypto-seeded)
// Laplace mechanism. The analyst receives the release together with the
// mechanism, whose LogDensity is the exact pmf of the noise that was
// actually added.
func Example_clampedMeanPipeline() {
	incomes := []float64{32, 45, 51, 38, 250, 41, 29, 60, 47, 36} // in thousands
	const lo, hi = 0, 100                                         // public bounds

	mean, sens, err := mechanism.ClampedMean(incomes, lo, hi)
	if err != nil {
		panic(err)
	}
	fmt.Printf("clamped mean %.1f, sensitivity %.1f\n", mean, sens)

	acc, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1})
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: 0.5, Dim: 1})
	if err != nil {
		panic(err)
	}
	release := make([]float64, 1)
	if err := acc.Release(mech, mechanism.NewCryptoRand(), []float64{mean}, release); err != nil {
		panic(err)
	}
	fmt.Printf("spent %v, remaining %v\n", acc.Spent(), acc.Remaining())

	// The release lies on the mechanism's power-of-two grid, where its
	// pmf is positive.
	onGrid := mech.LogDensity(release, []float64{mean}) > -1e300
	fmt.Println("release has positive mass under the model:", onGrid)

	// A second release at ε = 0.6 would overspend.
	mech2, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: 0.6, Dim: 1})
	err = acc.Release(mech2, mechanism.NewCryptoRand(), []float64{mean}, release)
	fmt.Println(err != nil)
	// Output:
	// clamped mean 47.9, sensitivity 10.0
	// spent ε=0.5, remaining ε=0.5
	// release has positive mass under the model: true
	// true
}

// Splitting a total budget across the sample mean and variance of data
// clamped to [-4, 4] (n = 100), as in the modips paper: communally (one
// Laplace scale for both) or individually with weights.
func Example_splittingBudget() {
	const n = 100
	lo, hi := -4.0, 4.0
	sensMean := (hi - lo) / n
	sensVar, _ := mechanism.ClampedVarianceSensitivity(lo, hi, n)
	sens := []float64{sensMean, sensVar}

	communal, _ := mechanism.CommunalLaplace(sens, 1)
	fmt.Printf("communal scales: %.2f %.2f\n", communal.Scale(0), communal.Scale(1))

	w, _ := mechanism.CommunalWeights(sens)
	fmt.Printf("communal weights: %.4f %.4f\n", w[0], w[1])

	equal, _ := mechanism.IndividualizedLaplace(sens, []float64{0.5, 0.5}, 1)
	fmt.Printf("equal split scales: %.2f %.2f\n", equal.Scale(0), equal.Scale(1))

	parts, _ := mechanism.Split(mechanism.Budget{Epsilon: 1}, []float64{0.5, 0.5})
	fmt.Println("parts:", parts[0], parts[1], "compose to", mechanism.Sequential(parts...))

	r := rand.New(rand.NewPCG(1, 2))
	out := make([]float64, 2)
	if err := equal.Release(r, []float64{0.1, 1.2}, out); err != nil {
		panic(err)
	}
	fmt.Println("released", len(out), "statistics at budget", equal.Budget())
	// Output:
	// communal scales: 0.72 0.72
	// communal weights: 0.1111 0.8889
	// equal split scales: 0.16 1.28
	// parts: ε=0.5 ε=0.5 compose to ε=1
	// released 2 statistics at budget ε=1
}

// The analytic Gaussian mechanism needs much less noise than the classical
// calibration, and also covers ε ≥ 1.
func ExampleAnalyticGaussianSigma() {
	a, _ := mechanism.AnalyticGaussianSigma(mechanism.GaussianConfig{Epsilon: 0.5, Delta: 1e-5, Sensitivity: 1})
	c, _ := mechanism.ClassicalGaussianSigma(mechanism.GaussianConfig{Epsilon: 0.5, Delta: 1e-5, Sensitivity: 1})
	big, _ := mechanism.AnalyticGaussianSigma(mechanism.GaussianConfig{Epsilon: 10, Delta: 1e-5, Sensitivity: 1})
	fmt.Printf("analytic %.4f, classical %.4f, analytic at ε=10: %.4f\n", a, c, big)
	// Output:
	// analytic 7.0318, classical 9.6896, analytic at ε=10: 0.4999
}

// The DP infection trajectory of the SBI paper releases binomial
// proportions; its density is an exact product of binomial masses.
func ExampleNewInfectionTrajectory() {
	m, _ := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 1_000_000, Times: 10})
	fmt.Println("budget:", m.Budget())
	infected := []float64{1, 3100, 614000, 263000, 123000, 47000, 18000, 9000, 5000, 3000}
	out := make([]float64, 10)
	// Pushing uniforms through the exact inverse CDF (as RQMC does).
	u := []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5}
	m.Apply(u, infected, out)
	fmt.Println(out)
	// Output:
	// budget: ε=10
	// [0.001 0.004 0.614 0.263 0.124 0.048 0.019 0.01 0.006 0.004]
}

// ABCDP drives the sparse vector technique: accept a simulated parameter
// when its noisy distance falls below the noisy threshold, at most c times.
// The session draws its noise from the operating system's generator; with
// N = 100,000 records the noise (b = 0.0002) is far smaller than the gaps
// between these distances and the threshold, so the answers are ABC's
// with overwhelming probability.
func ExampleSparseVector() {
	dRho, _ := mechanism.MMDSensitivity(1, 100000) // Gaussian kernel
	b := 2 * 5 * dRho / 1                          // ABCDP's b = 2cΔρ/ε for c = 5, ε = 1 (abc.NoiseScale)
	svt, _ := mechanism.NewSparseVector(mechanism.SVTConfig{
		Threshold: 0.1, Sensitivity: dRho,
		ThresholdScale: b, QueryScale: 2 * b,
		MaxAbove: 5, Resample: true, Below: true,
	})
	fmt.Printf("b = %.4f, session budget %v\n", b, svt.Budget())
	sess := svt.Start()
	accepted := 0
	for _, dist := range []float64{0.9, 0.02, 0.8, 0.01, 0.03, 0.7, 0.0, 0.05, 0.01} {
		ok, err := sess.Test(dist)
		if err != nil {
			break // halted after 5 acceptances
		}
		if ok {
			accepted++
		}
	}
	fmt.Println("accepted:", accepted, "halted:", sess.Halted())
	// Output:
	// b = 0.0002, session budget ε=1
	// accepted: 5 halted: true
}
