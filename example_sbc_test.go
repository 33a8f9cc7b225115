package privinfer_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/simulate"
)

// noisyMean simulates x ~ N(θ, 1).
type noisyMean struct{}

func (noisyMean) StatDim() int { return 1 }
func (noisyMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	dst[0] = theta[0] + r.NormFloat64()
	return nil
}

// Simulation-based calibration of a posterior: with θ ~ N(0, 1) and
// x ~ N(θ, 1) the exact posterior is N(x/2, 1/2). Its ranks are uniform;
// a posterior with half the spread is caught.
func ExampleSBC() {
	n, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 1})
	prior, _ := simulate.NewIndependent(n)
	p := privinfer.Problem{Prior: prior, Simulator: noisyMean{}}
	fit := func(sd float64) privinfer.SBCFit {
		return func(_ context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
			r := rand.New(rand.NewPCG(seed, 0))
			d := &privinfer.Draws{Dim: 1, Theta: make([]float64, 99)}
			for i := range d.Theta {
				d.Theta[i] = p.Observed[0]/2 + sd*r.NormFloat64()
			}
			return d, nil
		}
	}
	for _, sd := range []float64{math.Sqrt(0.5), 0.5 * math.Sqrt(0.5)} {
		res, err := privinfer.SBC(context.Background(), p, fit(sd), privinfer.SBCConfig{Datasets: 200, Seed: 1})
		if err != nil {
			panic(err)
		}
		fmt.Printf("posterior sd %.3f: calibrated at 0.001: %v\n", sd, res.Calibrated(1e-3))
	}
	// Output:
	// posterior sd 0.707: calibrated at 0.001: true
	// posterior sd 0.354: calibrated at 0.001: false
}
