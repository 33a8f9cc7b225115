package sbibm_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate/sbibm"
)

// Each task is a prior and a simulator; Problem turns an observation into
// the privinfer.Problem every engine takes.
func Example() {
	task, err := sbibm.New(sbibm.TwoMoons)
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	theta := make([]float64, task.Dim())
	task.Prior().Sample(r, theta)
	x := make([]float64, task.DataDim())
	if err := task.Simulator().Simulate(r, theta, x); err != nil {
		panic(err)
	}
	p, err := task.Problem(x)
	if err != nil {
		panic(err)
	}
	fmt.Println(task.Name(), "θ dim", p.Dim(), "x dim", len(p.Observed), p.Names)
	// With the benchmark's files, sbibm.Dir() locates them:
	//   ref, err := task.Reference(sbibm.Dir(), 1)
	// Output:
	// two_moons θ dim 2 x dim 2 [parameter_1 parameter_2]
}

// The Gaussian linear task's posterior is known in closed form.
func ExampleGaussianLinearPosterior() {
	x := []float64{0.2, -0.4, 0, 0, 0, 0, 0, 0, 0, 0.6}
	mean, cov, err := sbibm.GaussianLinearPosterior(x)
	if err != nil {
		panic(err)
	}
	fmt.Printf("mean %.2f … %.2f, variance %.2f\n", mean[:2], mean[9], cov[0])
	// Output:
	// mean [0.10 -0.20] … 0.30, variance 0.05
}
