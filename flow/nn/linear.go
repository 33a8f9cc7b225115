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
func (l Linear) Forward(p, x, y []float64, n int) { l.forward(nil, 0, p, x, y, n) }

// forward is Forward computing the product in float64 when s is nil, and
// otherwise in float32, with x rounded into s's copy xi of a layer input
// (which backward then reuses).
func (l Linear) forward(s *single, xi int, p, x, y []float64, n int) {
	if n <= 0 {
		return
	}
	if s != nil {
		l.forward32(s, xi, p, x, y, n, false)
		return
	}
	in, out := l.In, l.Out
	gemm.Mul(n, out, in, x, in, 1, p[l.Off:l.Off+in*out], out, p[l.Off+in*out:l.Off+in*out+out], y, out)
}

// forward32 is forward's float32 branch; with relu set it rounds
// max(x, 0) instead of x into s's copy xi: the layer then computes
// ReLU(x)·W + b from x before the ReLU, in one pass over x.
func (l Linear) forward32(s *single, xi int, p, x, y []float64, n int, relu bool) {
	in, out := l.In, l.Out
	w := p[l.Off : l.Off+in*out]
	b := p[l.Off+in*out : l.Off+in*out+out]
	x32, lx := s.x[xi], stride32x(in)
	if relu {
		gemm.ReLUToFloat32Rows(x32, lx, x, in, n, in)
	} else {
		gemm.ToFloat32Rows(x32, lx, x, in, n, in)
	}
	// The column after the input holds ones: backward32 gets the bias
	// gradient from the weight gradient's product (see there).
	for r := 0; r < n; r++ {
		x32[r*lx+in] = 1
	}
	if s.held {
		// The held transpose's rows are the weights' columns, zero-padded:
		// the products' tail columns read them as they are.
		gemm.Mul32T(n, out, in, x32, lx, 1, s.wc[xi], gemm.Stride32(out), s.wtc[xi], gemm.Stride32(in), b, y, out)
		return
	}
	gemm.ToFloat32(s.w, w)
	gemm.Mul32(n, out, in, x32, lx, 1, s.w, out, b, y, out)
}

// stride32x is the row stride of the float32 copy of a layer input of in
// columns: room for the input and a column of ones, padded as
// gemm.Stride32 advises.
func stride32x(in int) int { return gemm.Stride32(in + 1) }

// single is the float32 state of a network's workspace: the float32
// copies of the inputs of its float32 layers, kept from the forward pass
// for the weight gradients, and scratch for rounded weights and output
// gradients. Its buffers are sized for Mul32's row blocks, their rows
// padded (stride32x, gemm.Stride32).
type single struct {
	x     [][]float32 // layer inputs, by index
	w, dy []float32
	// wc and wtc hold, by layer index, the rounded weights and their
	// rounded transposes while held is set (ResNet.HoldFloat32), rows
	// padded to gemm.Stride32.
	wc, wtc [][]float32
	held    bool
	shared  bool // wc and wtc are another workspace's (ShareFloat32)
}

// newSingle allocates the float32 state for nx layer inputs of up to
// rows×width values, weights of up to nw values and output gradients of up
// to rows×width values.
func newSingle(nx, rows, width, nw int) *single {
	size := (rows + gemm.Rows32) * stride32x(width)
	s := &single{x: make([][]float32, nx), w: make([]float32, nw), dy: make([]float32, size)}
	for i := range s.x {
		s.x[i] = make([]float32, size)
	}
	return s
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
	l.backward(nil, 0, p, g, x, dy, dx, n, l.In, wt, false)
}

// one is the single-element A of the bias gradient (a column of ones).
var one = []float64{1}

// gradMul adds A·B into C (gemm.MulAdd), or stores it (gemm.Mul without a
// bias) when store is set: the same bits as adding into a cleared C,
// without clearing it first.
func gradMul(store bool, m, n, k int, a []float64, sai, sap int, b []float64, ldb int, c []float64, ldc int) {
	if store {
		gemm.Mul(m, n, k, a, sai, sap, b, ldb, nil, c, ldc)
		return
	}
	gemm.MulAdd(m, n, k, a, sai, sap, b, ldb, c, ldc)
}

// gradMul32 is gradMul with float32 operands (gemm.Mul32, gemm.MulAdd32).
func gradMul32(store bool, m, n, k int, a []float32, sai, sap int, b []float32, ldb int, c []float64, ldc int) {
	if store {
		gemm.Mul32(m, n, k, a, sai, sap, b, ldb, nil, c, ldc)
		return
	}
	gemm.MulAdd32(m, n, k, a, sai, sap, b, ldb, c, ldc)
}

// backward is Backward writing only the first nx columns of the input
// gradient (dx is n×nx), with wt (at least Out·nx values) as scratch for
// the transposed weights. With store set it overwrites the gradients of W
// and b in g instead of adding to them (for n = 0 it then clears them).
// With s not nil the products are computed in float32, the layer input
// taken from s's copy xi made by the forward pass.
func (l Linear) backward(s *single, xi int, p, g, x, dy, dx []float64, n, nx int, wt []float64, store bool) {
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
	if s != nil {
		l.backward32(s, xi, w, g[l.Off:l.Off+in*out+out], dy, nil, dx, n, nx, wt, store)
		return
	}
	// Bias gradient: column sums of dy, i.e. 1ᵀ·dy.
	gradMul(store, 1, out, n, one, 0, 0, dy, out, gb, out)
	// Weight gradient: gw += xᵀ·dy.
	gradMul(store, in, out, n, x, 1, in, dy, out, gw, out)
	if dx == nil || nx == 0 {
		return
	}
	gemm.Mul(n, nx, out, dy, out, 1, transpose(wt, w, nx, out), nx, nil, dx, nx)
}

// backward32Of is backward with float32 products (s not nil) for the
// output gradient dy, masked by mask > 0 unless mask is nil (see
// backward32), or already rounded into s.dy when dy is nil.
func (l Linear) backward32Of(s *single, xi int, p, g, dy, mask, dx []float64, n, nx int, wt []float64, store bool) {
	in, out := l.In, l.Out
	if n <= 0 {
		if store {
			clear(g[l.Off : l.Off+in*out+out])
		}
		return
	}
	l.backward32(s, xi, p[l.Off:l.Off+in*out], g[l.Off:l.Off+in*out+out], dy, mask, dx, n, nx, wt, store)
}

// backward32 is backward's float32 branch: dy is rounded once and serves
// the weight, bias and input gradients. gwb holds the gradients of W and
// b, which follow each other as the rows of an (In+1)×Out matrix: the
// product [x, 1]ᵀ·dy of the input's float32 copy, whose column In holds
// ones (forward), yields both at once.
//
// With mask not nil (n×Out) the output gradient is dy where mask > 0 and 0
// elsewhere, applied while dy is rounded: the gradient through a ReLU
// whose input was mask. With dy nil, s.dy holds it rounded already.
func (l Linear) backward32(s *single, xi int, w, gwb, dy, mask, dx []float64, n, nx int, wt []float64, store bool) {
	in, out := l.In, l.Out
	ld := gemm.Stride32(out)
	dy32 := s.dy
	switch {
	case dy == nil: // rounded by the caller
	case mask != nil:
		gemm.MaskToFloat32Rows(dy32, ld, dy, out, mask, out, n, out)
	default:
		gemm.ToFloat32Rows(dy32, ld, dy, out, n, out)
	}
	gradMul32(store, in+1, out, n, s.x[xi], 1, stride32x(in), dy32, ld, gwb, out)
	if dx == nil || nx == 0 {
		return
	}
	if s.held {
		// The first nx columns of the held out×In transpose, whose
		// columns are the rows of the held weights.
		gemm.Mul32T(n, nx, out, dy32, ld, 1, s.wtc[xi], gemm.Stride32(in), s.wc[xi], gemm.Stride32(out), nil, dx, nx)
		return
	}
	gemm.ToFloat32(s.w, transpose(wt, w, nx, out))
	gemm.Mul32(n, nx, out, dy32, ld, 1, s.w, nx, nil, dx, nx)
}

// transpose writes the first nx rows of the nx×out (or larger) row-major
// matrix w, transposed, into wt (out×nx) and returns it.
func transpose(wt, w []float64, nx, out int) []float64 {
	wt = wt[:out*nx]
	for i := 0; i < nx; i++ {
		for o, v := range w[i*out : i*out+out] {
			wt[o*nx+i] = v
		}
	}
	return wt
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
