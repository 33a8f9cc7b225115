package ad_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/internal/testutil"
)

// Gradients are checked against the five-point central difference
// (−f(x+2h) + 8f(x+h) − 8f(x−h) + f(x−2h))/(12h) with h = 10⁻³, whose
// truncation error is O(h⁴): the relative error |analytic − numerical| /
// max(|analytic|, |numerical|, 10⁻⁵) must stay below 10⁻⁶.
const (
	fdStep    = 1e-3
	gradTol   = 1e-6
	gradFloor = 1e-5
)

func relErr(a, b, floor float64) float64 {
	return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), floor)
}

// input is a leaf of a gradient check: a rows×cols matrix.
type input struct {
	rows, cols int
	val        []float64
}

// kind says how the values of an input are drawn.
type kind int

const (
	normal   kind = iota // N(0, 1)
	awayZero             // N(0, 1) with |x| ≥ 0.05 (ReLU kinks)
	positive             // U(0.5, 2) (Log)
)

func newInput(r *rand.Rand, rows, cols int, k kind) input {
	v := make([]float64, rows*cols)
	for i := range v {
		switch k {
		case normal:
			v[i] = r.NormFloat64()
		case awayZero:
			for math.Abs(v[i]) < 0.05 {
				v[i] = r.NormFloat64()
			}
		case positive:
			v[i] = 0.5 + 1.5*r.Float64()
		}
	}
	return input{rows, cols, v}
}

// checkGrad compares the gradient of Σ R ⊙ build(inputs) (R a fixed random
// projection) with respect to every input, from one Backward, against
// central finite differences, re-recording the graph on a reset tape for
// every evaluation. It returns the worst relative error.
func checkGrad(t *testing.T, name string, r *rand.Rand, ins []input, build func(tp *ad.Tape, xs []*ad.Tensor) *ad.Tensor) float64 {
	return checkGradStep(t, name, r, ins, build, fdStep)
}

// checkGradStep is checkGrad with finite-difference step h.
func checkGradStep(t *testing.T, name string, r *rand.Rand, ins []input, build func(tp *ad.Tape, xs []*ad.Tensor) *ad.Tensor, h float64) float64 {
	t.Helper()
	tp := ad.NewTape()
	grads := make([][]float64, len(ins))
	record := func(withGrad bool) *ad.Tensor {
		tp.Reset()
		xs := make([]*ad.Tensor, len(ins))
		for i, in := range ins {
			var g []float64
			if withGrad {
				g = grads[i]
			}
			xs[i] = tp.Var(in.val, g, in.rows, in.cols)
		}
		return build(tp, xs)
	}
	for i, in := range ins {
		grads[i] = make([]float64, len(in.val))
	}
	out := record(true)
	if err := tp.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	rows, cols := out.Shape()
	R := make([]float64, rows*cols)
	for i := range R {
		R[i] = r.NormFloat64()
	}
	if err := tp.Backward(out, R); err != nil {
		t.Fatalf("%s: Backward: %v", name, err)
	}
	loss := func() float64 {
		y := record(false).Value()
		s := 0.0
		for i, v := range y {
			s += R[i] * v
		}
		return s
	}
	worst := 0.0
	for i, in := range ins {
		for j := range in.val {
			num := testutil.FD5(loss, in.val, j, h)
			if e := relErr(grads[i][j], num, gradFloor); e > worst {
				worst = e
				if e > gradTol {
					t.Errorf("%s: input %d entry %d: gradient %.10g, finite difference %.10g", name, i, j, grads[i][j], num)
				}
			}
		}
	}
	return worst
}

// shape draws a size in [1, m], odd sizes included.
func shape(r *rand.Rand, m int) int { return 1 + r.IntN(m) }

func TestOpGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 18))
	type opCase struct {
		name  string
		ins   func(n, p, q int) []input
		build func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor
	}
	unary := func(name string, k kind, f func(tp *ad.Tape, x *ad.Tensor) *ad.Tensor) opCase {
		return opCase{name, func(n, p, _ int) []input { return []input{newInput(r, n, p, k)} },
			func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor { return f(tp, x[0]) }}
	}
	cases := []opCase{
		{"MatMul", func(n, p, q int) []input { return []input{newInput(r, n, p, normal), newInput(r, p, q, normal)} },
			func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor { return tp.MatMul(x[0], x[1]) }},
		{"AddBias", func(n, p, _ int) []input { return []input{newInput(r, n, p, normal), newInput(r, 1, p, normal)} },
			func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor { return tp.AddBias(x[0], x[1]) }},
		{"Add", func(n, p, _ int) []input { return []input{newInput(r, n, p, normal), newInput(r, n, p, normal)} },
			func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor { return tp.Add(x[0], x[1]) }},
		{"Mul", func(n, p, _ int) []input { return []input{newInput(r, n, p, normal), newInput(r, n, p, normal)} },
			func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor { return tp.Mul(x[0], x[1]) }},
		unary("Scale", normal, func(tp *ad.Tape, x *ad.Tensor) *ad.Tensor { return tp.Scale(x, -1.7) }),
		unary("ReLU", awayZero, (*ad.Tape).ReLU),
		unary("Tanh", normal, (*ad.Tape).Tanh),
		unary("Sigmoid", normal, (*ad.Tape).Sigmoid),
		unary("Exp", normal, (*ad.Tape).Exp),
		unary("Log", positive, (*ad.Tape).Log),
		unary("Softplus", normal, (*ad.Tape).Softplus),
		unary("Sum", normal, (*ad.Tape).Sum),
		unary("Mean", normal, (*ad.Tape).Mean),
		unary("RowSums", normal, (*ad.Tape).RowSums),
		unary("Softmax", normal, (*ad.Tape).Softmax),
		{"Concat", func(n, p, q int) []input { return []input{newInput(r, n, p, normal), newInput(r, n, q, normal)} },
			func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor { return tp.Concat(x[0], x[1]) }},
		// Compositions: the same operand used twice, and a chain through
		// every kind of operation.
		{"Mul(x, x)", func(n, p, _ int) []input { return []input{newInput(r, n, p, normal)} },
			func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor { return tp.Mul(x[0], x[0]) }},
		{"log softmax(tanh(xW)+b)", func(n, p, q int) []input {
			return []input{newInput(r, n, p, normal), newInput(r, p, q, normal), newInput(r, 1, q, normal)}
		}, func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor {
			return tp.Log(tp.Softmax(tp.AddBias(tp.Tanh(tp.MatMul(x[0], x[1])), x[2])))
		}},
	}
	for _, c := range cases {
		worst := 0.0
		for trial := 0; trial < 4; trial++ {
			n, p, q := shape(r, 7), shape(r, 9), shape(r, 6)
			name := fmt.Sprintf("%s n=%d p=%d q=%d", c.name, n, p, q)
			worst = math.Max(worst, checkGrad(t, name, r, c.ins(n, p, q), c.build))
		}
		t.Logf("%-26s worst relative error %.2g", c.name, worst)
	}
}

func TestConv1DGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 18))
	worst := 0.0
	for trial := 0; trial < 12; trial++ {
		K := shape(r, 5)
		c := ad.Conv{Length: K + r.IntN(9), Channels: shape(r, 3), Filters: shape(r, 4), Kernel: K,
			Stride: r.IntN(4), Pad: r.IntN(K)}
		n := shape(r, 4)
		ins := []input{newInput(r, n, c.Length*c.Channels, normal), newInput(r, K*c.Channels, c.Filters, normal)}
		name := fmt.Sprintf("Conv1D n=%d %+v", n, c)
		if trial%3 == 2 { // without bias
			worst = math.Max(worst, checkGrad(t, name, r, ins, func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor {
				return tp.Conv1D(x[0], x[1], nil, c)
			}))
			continue
		}
		ins = append(ins, newInput(r, 1, c.Filters, normal))
		worst = math.Max(worst, checkGrad(t, name, r, ins, func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor {
			return tp.Conv1D(x[0], x[1], x[2], c)
		}))
	}
	t.Logf("Conv1D worst relative error %.2g", worst)
}

func TestAvgPool1D(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 18))
	worst := 0.0
	for trial := 0; trial < 10; trial++ {
		L, C := shape(r, 11), shape(r, 3)
		win := shape(r, L)
		n := shape(r, 3)
		in := newInput(r, n, L*C, normal)
		name := fmt.Sprintf("AvgPool1D n=%d length=%d channels=%d window=%d", n, L, C, win)
		worst = math.Max(worst, checkGrad(t, name, r, []input{in}, func(tp *ad.Tape, x []*ad.Tensor) *ad.Tensor {
			return tp.AvgPool1D(x[0], L, C, win)
		}))
		// Values against the window sums written out.
		tp := ad.NewTape()
		y := tp.AvgPool1D(tp.Const(in.val, n, L*C), L, C, win)
		nw := L / win
		if rows, cols := y.Shape(); rows != n || cols != nw*C {
			t.Fatalf("%s: shape %d×%d, want %d×%d", name, rows, cols, n, nw*C)
		}
		for s := 0; s < n; s++ {
			for w := 0; w < nw; w++ {
				for c := 0; c < C; c++ {
					want := 0.0
					for k := 0; k < win; k++ {
						want += in.val[s*L*C+(w*win+k)*C+c]
					}
					want /= float64(win)
					if got := y.Value()[s*nw*C+w*C+c]; math.Abs(got-want) > 1e-14*(1+math.Abs(want)) {
						t.Fatalf("%s: y[%d, %d, %d] = %v, want %v", name, s, w, c, got, want)
					}
				}
			}
		}
	}
	t.Logf("AvgPool1D worst relative error %.2g", worst)
}

// TestConv1DDirect compares Conv1D with the convolution sum written out.
func TestConv1DDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 18))
	for trial := 0; trial < 20; trial++ {
		K := shape(r, 6)
		c := ad.Conv{Length: K + r.IntN(12), Channels: shape(r, 3), Filters: shape(r, 5), Kernel: K,
			Stride: r.IntN(4), Pad: r.IntN(K)}
		n := shape(r, 3)
		x := newInput(r, n, c.Length*c.Channels, normal).val
		w := newInput(r, K*c.Channels, c.Filters, normal).val
		b := newInput(r, 1, c.Filters, normal).val
		tp := ad.NewTape()
		y := tp.Conv1D(tp.Const(x, n, c.Length*c.Channels), tp.Const(w, K*c.Channels, c.Filters), tp.Const(b, 1, c.Filters), c)
		if err := tp.Err(); err != nil {
			t.Fatal(err)
		}
		st := max(c.Stride, 1)
		lo := (c.Length+2*c.Pad-K)/st + 1
		if rows, cols := y.Shape(); rows != n || cols != lo*c.Filters || lo != c.OutLength() {
			t.Fatalf("%+v: shape %d×%d, want %d×%d", c, rows, cols, n, lo*c.Filters)
		}
		for s := 0; s < n; s++ {
			for o := 0; o < lo; o++ {
				for f := 0; f < c.Filters; f++ {
					want := b[f]
					for k := 0; k < K; k++ {
						i := o*st - c.Pad + k
						if i < 0 || i >= c.Length {
							continue
						}
						for ch := 0; ch < c.Channels; ch++ {
							want += x[s*c.Length*c.Channels+i*c.Channels+ch] * w[(k*c.Channels+ch)*c.Filters+f]
						}
					}
					got := y.Value()[s*lo*c.Filters+o*c.Filters+f]
					if math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
						t.Fatalf("%+v: y[%d, %d, %d] = %v, want %v", c, s, o, f, got, want)
					}
				}
			}
		}
	}
}

// TestValues checks the forward values of the elementwise maps, the
// reductions and the softmax at points with known results, including
// the extremes where naive formulas overflow.
func TestValues(t *testing.T) {
	tp := ad.NewTape()
	x := []float64{-800, -40, -1, 0, 1, 40, 800}
	X := tp.Const(x, 1, len(x))
	check := func(name string, y *ad.Tensor, f func(float64) float64) {
		t.Helper()
		for i, v := range y.Value() {
			want := f(x[i])
			if math.IsNaN(v) || math.Abs(v-want) > 1e-15*math.Max(1, math.Abs(want)) {
				t.Errorf("%s(%v) = %v, want %v", name, x[i], v, want)
			}
		}
	}
	check("Sigmoid", tp.Sigmoid(X), func(v float64) float64 {
		switch v {
		case -800:
			return 0
		case 800:
			return 1
		}
		return 1 / (1 + math.Exp(-v))
	})
	check("Softplus", tp.Softplus(X), func(v float64) float64 {
		switch {
		case v == 800:
			return 800
		case v == -800:
			return 0
		case v == 40:
			return 40 + math.Exp(-40)
		}
		return math.Log1p(math.Exp(v))
	})
	check("ReLU", tp.ReLU(X), func(v float64) float64 { return max(v, 0) })
	check("Tanh", tp.Tanh(X), math.Tanh)
	sm := tp.Softmax(tp.Const([]float64{1000, 1000, 1, 1, 2, 3}, 2, 3)).Value()
	e1, e2 := math.Exp(-1), math.Exp(-2)
	want := []float64{0.5, 0.5, 0, e2 / (1 + e1 + e2), e1 / (1 + e1 + e2), 1 / (1 + e1 + e2)}
	for i, v := range sm {
		// The first row's third entry is e^(−999)/2, zero in float64.
		if math.Abs(v-want[i]) > 1e-15 {
			t.Errorf("Softmax[%d] = %v, want %v", i, v, want[i])
		}
	}
	m := tp.Const([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	if s := tp.Sum(m).Value()[0]; s != 21 {
		t.Errorf("Sum = %v, want 21", s)
	}
	if s := tp.Mean(m).Value()[0]; s != 3.5 {
		t.Errorf("Mean = %v, want 3.5", s)
	}
	if s := tp.RowSums(m).Value(); s[0] != 6 || s[1] != 15 {
		t.Errorf("RowSums = %v, want [6 15]", s)
	}
	c := tp.Concat(m, tp.Const([]float64{7, 8}, 2, 1)).Value()
	if fmt.Sprint(c) != "[1 2 3 7 4 5 6 8]" {
		t.Errorf("Concat = %v", c)
	}
	if err := tp.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestErrors checks that invalid operations are recorded as errors naming
// the operation, never panic, and that a reset tape works again.
func TestErrors(t *testing.T) {
	tp := ad.NewTape()
	a := tp.Const(make([]float64, 6), 2, 3)
	b := tp.Const(make([]float64, 6), 2, 3)
	other := ad.NewTape().Const([]float64{1}, 1, 1)
	bad := []struct {
		name string
		f    func() *ad.Tensor
	}{
		{"MatMul", func() *ad.Tensor { return tp.MatMul(a, b) }},
		{"AddBias", func() *ad.Tensor { return tp.AddBias(a, b) }},
		{"Add", func() *ad.Tensor { return tp.Add(a, tp.Const(make([]float64, 6), 3, 2)) }},
		{"Mul", func() *ad.Tensor { return tp.Mul(a, nil) }},
		{"Concat", func() *ad.Tensor { return tp.Concat(a, tp.Const(make([]float64, 3), 3, 1)) }},
		{"Sum", func() *ad.Tensor { return tp.Sum(other) }},
		{"leaf", func() *ad.Tensor { return tp.Const(make([]float64, 5), 2, 3) }},
		{"leaf", func() *ad.Tensor { return tp.Var(make([]float64, 6), make([]float64, 2), 2, 3) }},
		{"leaf", func() *ad.Tensor { return tp.Const(nil, 0, 3) }},
		{"leaf", func() *ad.Tensor { return tp.Const(nil, 1<<40, 1<<40) }},
		{"Conv1D", func() *ad.Tensor {
			return tp.Conv1D(a, tp.Const(make([]float64, 4), 2, 2), nil, ad.Conv{Length: 1 << 40, Channels: 1 << 30, Filters: 2, Kernel: 2})
		}},
		{"AvgPool1D", func() *ad.Tensor { return tp.AvgPool1D(a, 1<<40, 1<<30, 1) }},
		{"Conv1D", func() *ad.Tensor {
			return tp.Conv1D(a, tp.Const(make([]float64, 4), 2, 2), nil, ad.Conv{Length: 3, Channels: 1, Filters: 3, Kernel: 2})
		}},
		{"Conv1D", func() *ad.Tensor {
			return tp.Conv1D(a, tp.Const(make([]float64, 4), 2, 2), nil, ad.Conv{Length: 3, Channels: 1, Filters: 2, Kernel: 2, Pad: 2})
		}},
		{"Conv1D", func() *ad.Tensor {
			return tp.Conv1D(a, tp.Const(make([]float64, 4), 4, 1), nil, ad.Conv{Length: 3, Channels: 1, Filters: 2, Kernel: 2})
		}},
		{"AvgPool1D", func() *ad.Tensor { return tp.AvgPool1D(a, 3, 1, 4) }},
		{"AvgPool1D", func() *ad.Tensor { return tp.AvgPool1D(a, 2, 1, 2) }},
	}
	for _, c := range bad {
		tp.Reset()
		a = tp.Const(make([]float64, 6), 2, 3)
		b = tp.Const(make([]float64, 6), 2, 3)
		y := c.f()
		err := tp.Err()
		if !errors.Is(err, ad.ErrInvalid) {
			t.Fatalf("%s: error %v, want ErrInvalid", c.name, err)
		}
		if want := "ad: invalid argument: " + c.name; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("%s: error %q does not name the operation", c.name, err)
		}
		// Later operations are no-ops returning an empty tensor; Backward
		// reports the first error.
		z := tp.Tanh(tp.Add(y, y))
		if r, c := z.Shape(); r != 0 || c != 0 {
			t.Errorf("operation after an error returned a %d×%d tensor", r, c)
		}
		if err2 := tp.Backward(z, nil); err2 != err {
			t.Errorf("Backward after an error returned %v, want %v", err2, err)
		}
	}
	// A reset tape works again.
	tp.Reset()
	x := tp.Var([]float64{1, 2}, make([]float64, 2), 1, 2)
	s := tp.Sum(tp.Mul(x, x))
	if err := tp.Backward(s, nil); err != nil {
		t.Fatal(err)
	}
	if g := x.Grad(); g[0] != 2 || g[1] != 4 {
		t.Errorf("gradient of Σx² at (1, 2) = %v, want [2 4]", g)
	}
	// Backward's own argument checks.
	if err := tp.Backward(tp.Mul(x, x), nil); !errors.Is(err, ad.ErrInvalid) {
		t.Errorf("Backward of a 1×2 output without seed: %v", err)
	}
	if err := tp.Backward(tp.Mul(x, x), []float64{1}); !errors.Is(err, ad.ErrInvalid) {
		t.Errorf("Backward with a short seed: %v", err)
	}
	if err := tp.Backward(nil, nil); !errors.Is(err, ad.ErrInvalid) {
		t.Errorf("Backward(nil): %v", err)
	}
	if err := tp.Backward(other, nil); !errors.Is(err, ad.ErrInvalid) {
		t.Errorf("Backward of another tape's tensor: %v", err)
	}
	// A tensor of a previous recording is refused.
	tp.Reset()
	if tp.Sum(s); !errors.Is(tp.Err(), ad.ErrInvalid) {
		t.Errorf("operation on a tensor from before Reset: %v", tp.Err())
	}
}

// TestBackwardAccumulates checks that variables accumulate (+=) and that
// constants receive nothing.
func TestBackwardAccumulates(t *testing.T) {
	tp := ad.NewTape()
	g := []float64{10, 20}
	x := tp.Var([]float64{1, 2}, g, 1, 2)
	c := tp.Const([]float64{3, 4}, 1, 2)
	if err := tp.Backward(tp.Sum(tp.Mul(x, c)), nil); err != nil {
		t.Fatal(err)
	}
	if g[0] != 13 || g[1] != 24 {
		t.Errorf("accumulated gradient %v, want [13 24]", g)
	}
	if c.Grad() != nil {
		t.Errorf("constant received a gradient %v", c.Grad())
	}
}
