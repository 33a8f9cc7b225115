package privinfer_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// clampedMean simulates n values x_i ~ N(μ, 1), clamps them to [-3, 3] and
// returns their mean: the confidential summary s(x).
type clampedMean struct{ n int }

func (c clampedMean) StatDim() int { return 1 }

func (c clampedMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 1 || math.IsNaN(theta[0]) || math.IsInf(theta[0], 0) {
		return fmt.Errorf("clampedMean: want one finite parameter, got %v", theta)
	}
	var sum float64
	for i := 0; i < c.n; i++ {
		sum += min(max(theta[0]+r.NormFloat64(), -3), 3)
	}
	dst[0] = sum / float64(c.n)
	return nil
}

// Example shows the library's data flow end to end: a Problem holding a
// confidential simulator and the Laplace mechanism that produced the
// observed release, and rejection ABC, which simulates releases through
// both, recovering π(μ | s_dp) as Draws.
func Example() {
	const n = 100
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 6.0 / n, Epsilon: 1, Dim: 1}) // sensitivity of the clamped mean, ε = 1
	if err != nil {
		fmt.Println(err)
		return
	}
	normal, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 2})
	prior, _ := simulate.NewIndependent(normal)

	res, err := abc.Rejection(context.Background(), privinfer.Problem{
		Prior:     prior,
		Simulator: clampedMean{n: n},
		Mechanism: mech,
		Observed:  []float64{0.8}, // the released s_dp
		Names:     []string{"mu"},
	}, abc.RejectionConfig{Distance: abc.Euclidean{}, Accept: 1000, Simulations: 50000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	j := res.Draws.Index("mu")
	fmt.Printf("posterior of μ: mean %.1f, sd %.1f\n", res.Draws.Mean()[j], res.Draws.SD()[j])
	// Output: posterior of μ: mean 0.8, sd 0.1
}
