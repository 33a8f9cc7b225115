// Synth releases m = 10 DP synthetic copies (total ε = 1, synth.Modips) of
// n = 1000 confidential yes/no answers, 40% yes, analyses each copy as if
// it were real and pools the ten estimates of the proportion with the
// DP-synthesis combination rule (combine.Pool). It runs in a fraction of a
// second.
//
//	go run ./examples/synth [-seed 1]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/privinfer/privinfer/combine"
	"github.com/privinfer/privinfer/synth"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	res, err := pooledProportion(rand.New(rand.NewPCG(*seed, 5)), 1000, 0.4)
	if err != nil {
		log.Fatal(err)
	}
	lo, hi, err := res.Interval(0.95)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("pooled proportion %.3f, 95%% interval [%.3f, %.3f], %.1f degrees of freedom\n", res.Mean, lo, hi, res.DF)
}

// pooledProportion releases the synthetic copies of n answers with a
// fraction p of yes and pools the analyses of the copies.
func pooledProportion(r *rand.Rand, n int, p float64) (combine.Result, error) {
	x := make([]float64, n) // confidential
	for i := range int(p * float64(n)) {
		x[i] = 1
	}
	model, _ := synth.NewBetaBernoulli(synth.BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, err := synth.NewSSS(model, nil, synth.BIT)
	if err != nil {
		return combine.Result{}, err
	}
	// The release noise comes from the OS generator (Config.Reproducible
	// is unset); r draws the synthetic records.
	rel, err := synth.Modips(context.Background(), r, synth.Single(sss), x, synth.Config{M: 10, Epsilon: 1})
	if err != nil {
		return combine.Result{}, err
	}
	q, u := make([]float64, len(rel.Sets)), make([]float64, len(rel.Sets))
	for j, set := range rel.Sets { // analyse each synthetic set as if it were real
		for _, v := range set {
			q[j] += v / float64(len(set))
		}
		u[j] = q[j] * (1 - q[j]) / float64(len(set))
	}
	return combine.Pool(combine.DPSynthesis, q, u, combine.Options{})
}
