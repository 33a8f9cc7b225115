package sgd_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism/ldp/sgd"
)

// LDP-SGD on 20000 simulated users with two features at ε = 2: each user
// releases one clipped, noisy gradient. Config.Reproducible makes this
// simulation reproducible; without it the noise comes from the operating
// system.
func ExampleTrain() {
	r := rand.New(rand.NewPCG(1, 2))
	const n, d = 20000, 2
	x := make([]float64, n*d)
	y := make([]float64, n)
	for i := range n {
		x[i*d], x[i*d+1] = 0.5*r.NormFloat64(), 0.5*r.NormFloat64()
		if r.Float64() < 1/(1+math.Exp(-(2*x[i*d]-x[i*d+1]))) {
			y[i] = 1
		}
	}
	res, err := sgd.Train(context.Background(), x, y, d, sgd.Config{Loss: sgd.Logistic, Epsilon: 2, Delta: 1e-5, Seed: 3, Reproducible: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d steps of %d users, each user's budget %v\n", res.Steps, res.GroupSize, res.Budget)
	fmt.Printf("signs of the coefficients: %v %v\n", res.Average[0] > 0, res.Average[1] < 0)
	// Output:
	// 20000 steps of 1 users, each user's budget (ε=2, δ=1e-05)
	// signs of the coefficients: true true
}
