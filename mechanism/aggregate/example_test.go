package aggregate_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
)

// A curator releases a count, a mean and a median of confidential ages
// under one budget. Reproducible makes this example reproducible; a real
// release leaves it false so the noise comes from the operating system.
func Example() {
	ages := []float64{23, 35, 41, 29, 52, 67, 31, 45, 38, 90, 27, 33}
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 6})
	r := rand.New(rand.NewPCG(1, 2))
	cfg := aggregate.Config{
		Epsilon: 2, Neighbour: aggregate.AddRemove, Accountant: acct, Reproducible: true,
		Lo: 18, Hi: 80, // public bounds of the mean and the median (the count ignores them)
		Candidates: 63, // the median is one of 63 public ages 18, 19, …, 80
	}

	n, _ := aggregate.Count(r, len(ages), cfg)
	mean, _ := aggregate.BoundedMean(r, ages, cfg)
	med, _ := aggregate.Quantile(r, ages, 0.5, cfg)
	fmt.Printf("count %.0f, mean %.1f, median %.0f\n", n.Value, mean.Value, med.Value)
	fmt.Printf("spent %v, remaining %v\n", acct.Spent(), acct.Remaining())
	_, err := aggregate.Count(r, len(ages), cfg)
	fmt.Println(err != nil)
	// Output:
	// count 12, mean 47.2, median 45
	// spent ε=6, remaining ε=0
	// true
}

// Under substitution the number of records is public and the mean is the
// noisy sum over n: unbiased, with sensitivity (hi − lo)/n.
func ExampleBoundedMean() {
	x := []float64{0.2, 0.4, 0.9, 0.5, 0.7, 0.1, 0.3, 0.8}
	cfg := aggregate.Config{Epsilon: 2, Neighbour: aggregate.Substitute, Lo: 0, Hi: 1, Reproducible: true}
	res, err := aggregate.BoundedMean(rand.New(rand.NewPCG(3, 4)), x, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("sensitivity %.3f, noise scale %.3f, budget %v\n", res.Sensitivity, res.Scale, res.Budget)
	// Output:
	// sensitivity 0.125, noise scale 0.062, budget ε=2
}

// A histogram over known categories: each count receives discrete Laplace
// noise on the integers.
func ExampleHistogram() {
	x := []int{0, 2, 2, 1, 2, 0, 2}
	res, _ := aggregate.Histogram(rand.New(rand.NewPCG(5, 6)), x, 3, aggregate.Config{Epsilon: 5, Neighbour: aggregate.Substitute, Reproducible: true})
	fmt.Println(res.Counts, res.Sensitivity)
	// Output:
	// [2 0 4] 2
}
