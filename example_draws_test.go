package privinfer_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/privinfer/privinfer"
)

// ExampleDraws_Summary summarises four MCMC chains of two parameters, as
// ArviZ's az.summary would.
func ExampleDraws_Summary() {
	r := rand.New(rand.NewPCG(1, 2))
	const chains, n = 4, 1000
	d := &privinfer.Draws{Names: []string{"mu", "sigma"}, Dim: 2, Chains: chains}
	for range chains {
		x := 0.0
		for range n {
			// AR(1) with φ = 0.5: stationary sd 1/√(1−φ²) = 1.155 and
			// ESS ≈ n·chains·(1−φ)/(1+φ) = 1333.
			x = 0.5*x + r.NormFloat64()
			d.Theta = append(d.Theta, 1+x, 2+0.1*r.NormFloat64())
		}
	}
	fmt.Print(d.Summary())
	// Output:
	//         mean     sd  hdi_3%  hdi_97%      5%    50%    95%  mcse_mean  mcse_sd  ess_bulk  ess_tail  r_hat
	// mu     1.010  1.151  -1.148    3.187  -0.895  1.009  2.895      0.031    0.016      1360      2238   1.00
	// sigma  2.000  0.100   1.808    2.181   1.835  2.000  2.162      0.002    0.001      4150      3689   1.00
}

// ExampleDraws_Interval shows weighted posterior statistics of an
// importance sample.
func ExampleDraws_Interval() {
	d := &privinfer.Draws{
		Names:   []string{"p"},
		Dim:     1,
		Theta:   []float64{0.1, 0.2, 0.3, 0.4, 0.5},
		Weights: []float64{1, 2, 4, 2, 1},
	}
	lo, hi := d.Interval(0, 0.8)
	fmt.Printf("mean %.2f, 80%% interval [%.3f, %.3f], ESS %.2f\n", d.Mean()[0], lo, hi, d.ESS())
	// Output:
	// mean 0.30, 80% interval [0.133, 0.467], ESS 3.85
}

// ExampleReadCSV reads draws with a weight column; NaN and infinities are
// read back as written.
func ExampleReadCSV() {
	d, err := privinfer.ReadCSV(strings.NewReader("a,b,weight\n1,NaN,0.5\n2,+Inf,1.5\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Names, d.Len(), d.Row(1), d.Weights)
	_ = d.WriteCSV(os.Stdout)
	// Output:
	// [a b] 2 [2 +Inf] [0.5 1.5]
	// a,b,weight
	// 1,NaN,0.5
	// 2,+Inf,1.5
}

// ExampleProblem_Require shows the named error an engine returns when the
// problem lacks a capability it needs.
func ExampleProblem_Require() {
	p := privinfer.Problem{Prior: exPrior{}, Simulator: exSim{}, Observed: []float64{0.4}}
	fmt.Println(p.Require(privinfer.NeedRelease))
	err := p.Require(privinfer.NeedDensity) // e.g. exact-kernel importance sampling
	fmt.Println(errors.Is(err, privinfer.ErrNoMechanism))
	// Output:
	// <nil>
	// true
}

type exPrior struct{}

func (exPrior) Dim() int                             { return 1 }
func (exPrior) Sample(r *rand.Rand, theta []float64) { theta[0] = r.Float64() }
func (exPrior) LogDensity(theta []float64) float64   { return 0 }

type exSim struct{}

func (exSim) StatDim() int { return 1 }
func (exSim) Simulate(r *rand.Rand, theta, dst []float64) error {
	dst[0] = theta[0] + r.NormFloat64()
	return nil
}

// ExampleDraws_Map derives R0 = β/γ from weighted draws of (β, γ).
func ExampleDraws_Map() {
	d := &privinfer.Draws{
		Names:   []string{"beta", "gamma"},
		Dim:     2,
		Theta:   []float64{0.4, 0.1, 0.5, 0.125, 0.3, 0.1},
		Weights: []float64{2, 1, 1},
	}
	r0, err := d.Map([]string{"R0"}, func(theta, dst []float64) { dst[0] = theta[0] / theta[1] })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("posterior mean of R0: %.2f\n", r0.Mean()[0])
	// Output:
	// posterior mean of R0: 3.75
}
