package nn

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/flow/internal/gemm"
	"github.com/privinfer/privinfer/flow/internal/vec"
)

// Linear is the affine map Y = X·W + b applied to every row of a batch,
// with W an In×Out row-major matrix stored at parameter offset Off,
// followed by the bias b (Out values).
type Linear struct {
	In, Out int
	Off     int
}

// NumParams returns the number of parameters of l: In·Out + Out.
func (l Linear) NumParams() int { return l.In*l.Out + l.Out }

// Init draws the weights and biases of l in p uniformly on [−a, a] with
// a = scale/√In (the usual fan-in initialisation for scale 1); when In is 0
// the bias is drawn on [−scale, scale].
func (l Linear) Init(p []float64, r *rand.Rand, scale float64) {
	a := scale
	if l.In > 0 {
		a = scale / math.Sqrt(float64(l.In))
	}
	q := p[l.Off : l.Off+l.NumParams()]
	for i := range q {
		q[i] = a * (2*r.Float64() - 1)
	}
}

// Forward computes y[r,:] = x[r,:]·W + b for the n rows of x (n×In) into
// y (n×Out).
func (l Linear) Forward(p, x, y []float64, n int) { l.forward(nil, p, x, y, n) }

// forward is Forward with the product computed by e (in float64 when e is
// nil).
func (l Linear) forward(e *gemm.F32, p, x, y []float64, n int) {
	in, out := l.In, l.Out
	if n <= 0 {
		return
	}
	w := p[l.Off : l.Off+in*out]
	b := p[l.Off+in*out : l.Off+in*out+out]
	e.Mul(n, out, in, x, in, 1, w, out, b, y, out)
}

// wtStack is the size of the on-stack transposed weight buffer Backward
// uses when the caller gives none.
const wtStack = 4096

// Backward accumulates the gradients of W and b into g (same layout as p)
// given the forward input x (n×In) and the output gradient dy (n×Out), and
// writes the input gradient dx = dy·Wᵀ (n×In) unless dx is nil.
func (l Linear) Backward(p, g, x, dy, dx []float64, n int) {
	var buf [wtStack]float64
	var wt []float64
	if dx != nil {
		if l.In*l.Out <= wtStack {
			wt = buf[:l.In*l.Out]
		} else {
			wt = make([]float64, l.In*l.Out)
		}
	}
	l.backward(nil, p, g, x, dy, dx, n, l.In, wt, false)
}

// one is the single-element A of the bias gradient (a column of ones).
var one = []float64{1}

// gradMul adds A·B into C (MulAdd), or stores it (Mul without a bias) when
// store is set: the same bits as adding into a cleared C, without clearing
// it first. The product is computed by e (in float64 when e is nil).
func gradMul(e *gemm.F32, store bool, m, n, k int, a []float64, sai, sap int, b []float64, ldb int, c []float64, ldc int) {
	if store {
		e.Mul(m, n, k, a, sai, sap, b, ldb, nil, c, ldc)
		return
	}
	e.MulAdd(m, n, k, a, sai, sap, b, ldb, c, ldc)
}

// backward is Backward writing only the first nx columns of the input
// gradient (dx is n×nx), with wt (at least Out·nx values) as scratch for
// the transposed weights. With store set it overwrites the gradients of W
// and b in g instead of adding to them (for n = 0 it then clears them).
// The products are computed by e (in float64 when e is nil).
func (l Linear) backward(e *gemm.F32, p, g, x, dy, dx []float64, n, nx int, wt []float64, store bool) {
	in, out := l.In, l.Out
	w := p[l.Off : l.Off+in*out]
	gw := g[l.Off : l.Off+in*out]
	gb := g[l.Off+in*out : l.Off+in*out+out]
	if n <= 0 {
		if store {
			clear(gw)
			clear(gb)
		}
		return
	}
	// Bias gradient: column sums of dy, i.e. 1ᵀ·dy.
	gradMul(e, store, 1, out, n, one, 0, 0, dy, out, gb, out)
	// Weight gradient: gw += xᵀ·dy.
	gradMul(e, store, in, out, n, x, 1, in, dy, out, gw, out)
	if dx == nil || nx == 0 {
		return
	}
	// Input gradient dx = dy·W[:nx,:]ᵀ with the weights transposed once.
	wt = wt[:out*nx]
	for i := 0; i < nx; i++ {
		for o, v := range w[i*out : i*out+out] {
			wt[o*nx+i] = v
		}
	}
	e.Mul(n, nx, out, dy, out, 1, wt, nx, nil, dx, nx)
}

// ReLU writes max(x, 0) elementwise into dst (which may alias x).
func ReLU(dst, x []float64) { vec.ReLU(dst, x) }

// ReLUBackward writes dx = dy where the forward input (or output) a is
// positive and 0 elsewhere; dx may alias dy.
func ReLUBackward(dx, dy, a []float64) { vec.ReLUMask(dx, dy, a) }

// Sigmoid returns 1/(1+e^(−x)) without overflow.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Softplus returns log(1+e^x) without overflow or loss of precision for
// large |x|.
func Softplus(x float64) float64 {
	if x > 30 {
		return x + math.Exp(-x)
	}
	if x < -30 {
		return math.Exp(x)
	}
	return math.Log1p(math.Exp(x))
}
