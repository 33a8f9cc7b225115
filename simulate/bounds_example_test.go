package simulate_test

import (
	"fmt"

	"github.com/privinfer/privinfer/simulate"
)

// Read the box a prior's support lies in: a uniform coordinate is
// bounded on both sides, a gamma coordinate below only.
func ExampleSupportBox() {
	u, err := simulate.NewUniform(simulate.UniformConfig{Lo: -1, Hi: 1})
	if err != nil {
		panic(err)
	}
	g, err := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 1})
	if err != nil {
		panic(err)
	}
	prior, err := simulate.NewIndependent(u, g)
	if err != nil {
		panic(err)
	}
	lo, hi, err := simulate.SupportBox(prior)
	if err != nil {
		panic(err)
	}
	fmt.Println(lo, hi)
	// Output: [-1 0] [1 +Inf]
}
