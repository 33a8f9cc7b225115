package qmc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/qmc"
)

// The first points of the unscrambled Sobol sequence, as produced by
// scipy.stats.qmc.Sobol(3, scramble=False).
func ExampleSobol() {
	s, err := qmc.NewSobol(qmc.SobolConfig{Dim: 3}, nil)
	if err != nil {
		panic(err)
	}
	pts := make([]float64, 4*3) // caller-owned [n×d] row-major buffer
	if err := s.Fill(pts, 4); err != nil {
		panic(err)
	}
	for i := 0; i < 4; i++ {
		fmt.Println(pts[i*3 : i*3+3])
	}
	// Output:
	// [0 0 0]
	// [0.5 0.5 0.5]
	// [0.75 0.25 0.25]
	// [0.25 0.75 0.75]
}

// Skip-ahead positions the generator at any index.
func ExampleSobol_Seek() {
	s, _ := qmc.NewSobol(qmc.SobolConfig{Dim: 2}, nil)
	if err := s.Seek(5); err != nil {
		panic(err)
	}
	p := make([]float64, 2)
	s.Fill(p, 1)
	fmt.Println(p)
	// Output: [0.875 0.875]
}

// Invalid requests return errors instead of panicking.
func ExampleNewSobol_errors() {
	_, err := qmc.NewSobol(qmc.SobolConfig{Dim: 30000}, nil)
	fmt.Println(err)
	s, _ := qmc.NewSobol(qmc.SobolConfig{Dim: 1}, nil)
	s.Seek(1<<32 - 1)
	err = s.Fill(make([]float64, 2), 2)
	fmt.Println(err)
	// Output:
	// qmc: invalid argument: SobolConfig.Dim must be in [1, 21201], got 30000
	// qmc: invalid argument: Sobol request for 2 points at index 4294967295 exceeds MaxPoints 4294967296
}

// An RQMC estimate of E[g(s_dp)] for a Laplace release s_dp = s + Laplace(b)
// noise, through the inverse-CDF transform, compared with plain Monte
// Carlo using the same total number of points.
func ExampleIntegrate() {
	const b = 0.5
	s := []float64{1, -1}
	g := func(u []float64) float64 {
		v := 0.0
		for j, uj := range u {
			// Laplace inverse CDF (SBI paper §3.4), then g(y) = Σ exp(−y²).
			var e float64
			if uj < 0.5 {
				e = b * math.Log(2*math.Max(uj, 0x1p-53))
			} else {
				e = -b * math.Log(2*(1-uj))
			}
			y := s[j] + e
			v += math.Exp(-y * y)
		}
		return v
	}
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	sob, _ := qmc.NewSobol(qmc.SobolConfig{Dim: 2, Scramble: qmc.Owen}, r)
	rq, _ := qmc.Integrate(ctx, sob, g, 1024, 16, r)
	mc, _ := qmc.NewMonteCarlo(2, r)
	pm, _ := qmc.Integrate(ctx, mc, g, 1024, 16, r)
	// The exact value is 0.81858 (mpmath quadrature).
	fmt.Printf("RQMC %.3f, MC %.3f\n", rq.Mean, pm.Mean)
	fmt.Println("RQMC standard error at least 20× smaller:", 20*rq.StdErr < pm.StdErr)
	// Output:
	// RQMC 0.819, MC 0.822
	// RQMC standard error at least 20× smaller: true
}

// A Cranley–Patterson rotation randomizes any point set, here Halton.
func ExampleRotation() {
	r := rand.New(rand.NewPCG(3, 4))
	h, _ := qmc.NewHalton(qmc.HaltonConfig{Dim: 2, Scrambled: false}, nil)
	rot, _ := qmc.NewRotation(h, r)
	est, _ := qmc.Integrate(context.Background(), rot, func(u []float64) float64 { return u[0] * u[1] }, 512, 8, r)
	fmt.Printf("%.3f, standard error below 1e-3: %v\n", est.Mean, est.StdErr < 1e-3)
	// Output: 0.250, standard error below 1e-3: true
}
