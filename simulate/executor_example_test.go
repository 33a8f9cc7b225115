package simulate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/privinfer/privinfer/simulate"
)

// coin is a simulator: the number of heads in 10 tosses of a coin with
// bias θ.
type coin struct{}

func (coin) StatDim() int { return 1 }
func (coin) Simulate(r *rand.Rand, theta, dst []float64) error {
	h := 0.0
	for range 10 {
		if r.Float64() < theta[0] {
			h++
		}
	}
	dst[0] = h
	return nil
}

// backwards is an executor standing in for a remote one: it cuts the work
// into blocks of three rows and runs them last block first with RunBlock,
// as a worker would after receiving each block.
type backwards struct{}

func (backwards) Execute(ctx context.Context, sim simulate.Simulator, b simulate.Block) error {
	blocks := b.Split(3)
	for i := len(blocks) - 1; i >= 0; i-- {
		if err := simulate.RunBlock(ctx, sim, blocks[i]); err != nil {
			return err
		}
	}
	return nil
}

// A run gives the same statistics with the in-process executor and with
// an executor that cuts it into blocks and runs them in another order:
// row i is always simulated with the stream Stream(seed, i).
func ExampleExecutor() {
	thetas := []float64{0.1, 0.3, 0.5, 0.7, 0.9, 0.2, 0.4, 0.6}
	local := make([]float64, len(thetas))
	remote := make([]float64, len(thetas))
	ctx := context.Background()
	if err := simulate.Batch(ctx, nil, coin{}, thetas, 1, 2026, local); err != nil {
		fmt.Println(err)
		return
	}
	if err := simulate.Batch(ctx, backwards{}, coin{}, thetas, 1, 2026, remote); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("identical:", slices.Equal(local, remote))

	// A failing row is reported with its index and θ.
	thetas[5] = -1
	err := simulate.Batch(ctx, backwards{}, strict{}, thetas, 1, 2026, remote)
	fmt.Println(err)
	// Output:
	// identical: true
	// simulate: row 5 at θ = [-1]: bias must be in [0, 1]
}

// strict is coin refusing a bias outside [0, 1].
type strict struct{ coin }

func (s strict) Simulate(r *rand.Rand, theta, dst []float64) error {
	if theta[0] < 0 || theta[0] > 1 {
		return fmt.Errorf("bias must be in [0, 1]")
	}
	return s.coin.Simulate(r, theta, dst)
}
