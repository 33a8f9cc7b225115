package flow_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/flow"
)

// Fit a small unconditional flow to a correlated Gaussian and compare its
// held-out negative log-likelihood with the Gaussian's entropy.
func ExampleFlow_Fit() {
	r := rand.New(rand.NewPCG(1, 2))
	n := 2000
	y := make([]float64, 2*n)
	for i := 0; i < n; i++ {
		a, b := r.NormFloat64(), r.NormFloat64()
		y[2*i], y[2*i+1] = a, 0.8*a+0.6*b // correlation 0.8, unit variances
	}
	cfg := flow.DefaultConfig(2, 0)
	cfg.Layers, cfg.Hidden, cfg.Blocks = 2, 16, 1
	f, err := flow.New(cfg, r)
	if err != nil {
		panic(err)
	}
	tc := flow.DefaultTrainConfig()
	tc.LearningRate, tc.MaxEpochs = 3e-3, 15
	if _, err := f.Fit(context.Background(), y, nil, n, tc); err != nil {
		panic(err)
	}
	nll := 0.0
	for i := 0; i < 1000; i++ {
		a, b := r.NormFloat64(), r.NormFloat64()
		nll -= f.LogDensity([]float64{a, 0.8*a + 0.6*b}, nil)
	}
	nll /= 1000
	entropy := 1 + math.Log(2*math.Pi) + 0.5*math.Log(1-0.8*0.8)
	fmt.Println("within 0.1 nats of the entropy:", math.Abs(nll-entropy) < 0.1)
	// Output: within 0.1 nats of the entropy: true
}

// Sample from a conditional flow, and save and reload it.
func ExampleFlow_Sample() {
	r := rand.New(rand.NewPCG(3, 4))
	f, err := flow.New(flow.DefaultConfig(3, 2), r)
	if err != nil {
		panic(err)
	}
	z := []float64{0.5, -1}
	draws := make([]float64, 5*3)
	if err := f.Sample(r, z, 5, draws); err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := f.Save(&buf); err != nil {
		panic(err)
	}
	g, err := flow.Load(&buf)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(draws), g.LogDensity(draws[:3], z) == f.LogDensity(draws[:3], z))
	// Output: 15 true
}
