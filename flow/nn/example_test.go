package nn_test

import (
	"fmt"

	"github.com/privinfer/privinfer/flow/nn"
)

// ExampleLinear runs the affine kernel forward on a batch of two rows and
// backpropagates an upstream gradient into the parameters and the input.
func ExampleLinear() {
	l := nn.Linear{In: 2, Out: 1}
	p := []float64{2, -1, 0.5} // W = [2; -1], b = 0.5
	x := []float64{1, 1, 3, 2} // two rows: (1, 1) and (3, 2)
	y := make([]float64, 2)
	l.Forward(p, x, y, 2)
	fmt.Println("y =", y)

	g := make([]float64, l.NumParams())
	dx := make([]float64, 4)
	l.Backward(p, g, x, []float64{1, 1}, dx, 2) // d(y1 + y2)
	fmt.Println("dW, db =", g)
	fmt.Println("dx =", dx)
	// Output:
	// y = [1.5 4.5]
	// dW, db = [4 3 2]
	// dx = [2 -1 2 -1]
}

// ExampleNewResNet lays out a gated residual network and shows how an
// invalid configuration is reported: the error names the field. The
// count is 5·8+8 for the input layer, 2·(2·(8·8+8) + 3·8+8) for the gated
// blocks and 8·4+4 for the output layer.
func ExampleNewResNet() {
	m, err := nn.NewResNet(nn.ResNetConfig{In: 2, Ctx: 3, Hidden: 8, Out: 4, Blocks: 2, Gate: true})
	if err != nil {
		panic(err)
	}
	fmt.Println("parameters:", m.NumParams())

	_, err = nn.NewResNet(nn.ResNetConfig{In: 2, Out: 4})
	fmt.Println(err)
	// Output:
	// parameters: 436
	// nn: invalid argument: ResNetConfig.Hidden: must be in [1, 2^16], got 0
}
