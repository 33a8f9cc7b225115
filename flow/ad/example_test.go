package ad_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/flow/ad"
)

// ExampleTape differentiates ℓ(w) = Σ_r tanh(x_r·w) for two inputs x_r
// with respect to the weights w.
func ExampleTape() {
	tp := ad.NewTape()
	x := tp.Const([]float64{1, 2, 0, -1}, 2, 2) // rows (1, 2) and (0, −1)
	w := []float64{0.5, -0.25}
	gw := make([]float64, 2)
	W := tp.Var(w, gw, 2, 1)
	loss := tp.Sum(tp.Tanh(tp.MatMul(x, W)))
	if err := tp.Backward(loss, nil); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("loss %.4f, gradient [%.4f %.4f]\n", loss.Value()[0], gw[0], gw[1])
	// Output:
	// loss 0.2449, gradient [1.0000 1.0600]
}

// ExampleNet runs a small convolutional embedding network on a batch of
// two time series of 16 steps and back-propagates an upstream gradient of
// its 3 outputs into the parameters.
func ExampleNet() {
	net := ad.Net{In: 16, Conv: []ad.ConvLayer{{Filters: 4, Kernel: 3, Stride: 2, Pad: 1}}, Hidden: []int{8}, Out: 3}
	p := make([]float64, net.NumParams())
	if err := net.Init(p, rand.New(rand.NewPCG(1, 2))); err != nil {
		fmt.Println(err)
		return
	}
	g := make([]float64, len(p))
	series := make([]float64, 2*16)
	for i := range series {
		series[i] = float64(i%16) / 16
	}
	tp := ad.NewTape()
	out := net.Apply(tp, p, g, tp.Const(series, 2, 16))
	if err := tp.Backward(out, []float64{1, 0, 0, 1, 0, 0}); err != nil { // d(out[0,0] + out[1,0])
		fmt.Println(err)
		return
	}
	rows, cols := out.Shape()
	fmt.Println("parameters:", net.NumParams(), "output:", rows, "×", cols)
	// Output:
	// parameters: 307 output: 2 × 3
}
