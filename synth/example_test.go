package synth_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/combine"
	"github.com/privinfer/privinfer/synth"
)

// Generating m = 5 binary synthetic datasets with modips.SSS at a total
// budget ε = 1: each set sanitizes the count of ones with Laplace noise of
// budget 0.2, draws p* from the Beta posterior and simulates n records.
func ExampleModips() {
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float64, 500) // confidential binary data, 30% ones
	for i := range 150 {
		x[i] = 1
	}
	model, _ := synth.NewBetaBernoulli(synth.BetaBernoulliConfig{Alpha: 1, Beta: 1}) // Beta(1, 1) prior
	sss, _ := synth.NewSSS(model, nil, synth.BIT)
	rel, err := synth.Modips(context.Background(), r, synth.Single(sss), x, synth.Config{Reproducible: true, M: 5, Epsilon: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d sets of %d records, %v per set, %v in total\n", len(rel.Sets), len(rel.Sets[0]), rel.PerSet, rel.Spent)
	// Output:
	// 5 sets of 500 records, ε=0.2 per set, ε=1 in total
}

// Pooling the sample proportions of m synthetic sets with the DP-synthesis
// rule of combine.
func ExampleModips_pooling() {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 1000)
	for i := range 400 {
		x[i] = 1
	}
	model, _ := synth.NewBetaBernoulli(synth.BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := synth.NewSSS(model, nil, synth.BIT)
	rel, err := synth.Modips(context.Background(), r, synth.Single(sss), x, synth.Config{Reproducible: true, M: 10, Epsilon: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	q := make([]float64, len(rel.Sets))
	u := make([]float64, len(rel.Sets))
	for j, d := range rel.Sets {
		for _, v := range d {
			q[j] += v
		}
		n := float64(len(d))
		q[j] /= n
		u[j] = q[j] * (1 - q[j]) / n
	}
	res, _ := combine.Pool(combine.DPSynthesis, q, u, combine.Options{})
	lo, hi, _ := res.Interval(0.95)
	fmt.Printf("p̂ = %.2f, 95%% interval [%.2f, %.2f]\n", res.Mean, lo, hi)
	// Output:
	// p̂ = 0.40, 95% interval [0.36, 0.43]
}
