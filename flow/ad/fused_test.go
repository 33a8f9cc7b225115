package ad_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/flow/nn"
)

// The fused kernels of flow/nn are checked against the same networks
// built on the tape: outputs and every gradient (parameters, inputs,
// contexts) must agree to a relative
// error of 10⁻¹³ (of the largest magnitude of the compared vector): both
// sides sum in the same order up to the fused multiply-adds of the
// assembly kernels and the gates' fused formulas.
const fusedTol = 1e-13

func compare(t *testing.T, name string, got, want []float64) {
	t.Helper()
	scale := 1e-300
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	worst := 0.0
	for i := range want {
		worst = math.Max(worst, math.Abs(got[i]-want[i])/scale)
	}
	if worst > fusedTol {
		t.Errorf("%s: fused and tape differ by %.3g (relative to %.3g)", name, worst, scale)
	}
}

func randSlice(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

func TestLinearMatchesTape(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 18))
	for _, sh := range [][3]int{{5, 7, 3}, {1, 1, 1}, {9, 4, 11}, {33, 17, 5}} {
		n, in, out := sh[0], sh[1], sh[2]
		l := nn.Linear{In: in, Out: out}
		p, x, dy := randSlice(r, l.NumParams()), randSlice(r, n*in), randSlice(r, n*out)
		y := make([]float64, n*out)
		l.Forward(p, x, y, n)
		g, dx := make([]float64, len(p)), make([]float64, n*in)
		l.Backward(p, g, x, dy, dx, n)

		tp := ad.NewTape()
		tg, tdx := make([]float64, len(p)), make([]float64, n*in)
		X := tp.Var(x, tdx, n, in)
		W := tp.Var(p[:in*out], tg[:in*out], in, out)
		B := tp.Var(p[in*out:], tg[in*out:], 1, out)
		Y := tp.AddBias(tp.MatMul(X, W), B)
		if err := tp.Backward(Y, dy); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("Linear %v", sh)
		compare(t, name+" output", Y.Value(), y)
		compare(t, name+" parameter gradient", tg, g)
		compare(t, name+" input gradient", tdx, dx)
	}
}

// resNetOnTape builds nn.ResNet's network on the tape from its documented
// equations and parameter layout (input layer, then per block the two
// linear maps and the gate, then the output layer; weights before biases).
func resNetOnTape(tp *ad.Tape, m *nn.ResNet, p, g []float64, x, c *ad.Tensor) *ad.Tensor {
	off := 0
	lin := func(in, out int) (*ad.Tensor, *ad.Tensor) {
		W := tp.Var(p[off:off+in*out], g[off:off+in*out], in, out)
		off += in * out
		B := tp.Var(p[off:off+out], g[off:off+out], 1, out)
		off += out
		return W, B
	}
	H := m.Hidden
	in := x
	if m.In == 0 {
		in = c
	} else if m.Ctx > 0 {
		in = tp.Concat(x, c)
	}
	W0, b0 := lin(m.In+m.Ctx, H)
	h := tp.AddBias(tp.MatMul(in, W0), b0)
	for j := 0; j < m.Blocks; j++ {
		W1, b1 := lin(H, H)
		W2, b2 := lin(H, H)
		t1 := tp.ReLU(tp.AddBias(tp.MatMul(tp.ReLU(h), W1), b1))
		t2 := tp.AddBias(tp.MatMul(t1, W2), b2)
		if m.Gate {
			Wc, bc := lin(m.Ctx, H)
			t2 = tp.Mul(tp.Sigmoid(tp.AddBias(tp.MatMul(c, Wc), bc)), t2)
		}
		h = tp.Add(h, t2)
	}
	Wf, bf := lin(H, m.Out)
	return tp.AddBias(tp.MatMul(h, Wf), bf)
}

func TestResNetMatchesTape(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 18))
	for _, sh := range []struct {
		in, ctx, hidden, out, blocks int
		gate                         bool
	}{
		{3, 2, 8, 5, 2, true},
		{3, 2, 8, 5, 2, false},
		{1, 5, 7, 29, 1, true},
		{4, 0, 6, 3, 3, false},
		{0, 3, 5, 2, 2, true},
		{2, 3, 50, 9, 2, true},
	} {
		m, err := nn.NewResNet(nn.ResNetConfig{In: sh.in, Ctx: sh.ctx, Hidden: sh.hidden, Out: sh.out, Blocks: sh.blocks, Gate: sh.gate})
		if err != nil {
			t.Fatal(err)
		}
		for _, group := range []int{1, 3} {
			n := 1 + r.IntN(20)
			ng := (n + group - 1) / group
			p := randSlice(r, m.NumParams())
			x, c, dy := randSlice(r, n*sh.in), randSlice(r, ng*sh.ctx), randSlice(r, n*sh.out)
			w := m.NewWork(n)
			y := make([]float64, n*sh.out)
			m.ForwardShared(p, w, x, c, n, group, y)
			g, dx, dc := make([]float64, len(p)), make([]float64, n*sh.in), make([]float64, ng*sh.ctx)
			m.BackwardContext(p, g, w, dy, dx, dc)

			// On the tape every row gets its own copy of its group's
			// context; the shared context gradient is the sum over the
			// group's rows.
			ce := make([]float64, n*sh.ctx)
			for i := 0; i < n; i++ {
				copy(ce[i*sh.ctx:(i+1)*sh.ctx], c[i/group*sh.ctx:])
			}
			tp := ad.NewTape()
			tg, tdx, tdc := make([]float64, len(p)), make([]float64, n*sh.in), make([]float64, n*sh.ctx)
			var X, Cx *ad.Tensor
			if sh.in > 0 {
				X = tp.Var(x, tdx, n, sh.in)
			}
			if sh.ctx > 0 {
				Cx = tp.Var(ce, tdc, n, sh.ctx)
			}
			Y := resNetOnTape(tp, m, p, tg, X, Cx)
			if err := tp.Backward(Y, dy); err != nil {
				t.Fatal(err)
			}
			sdc := make([]float64, ng*sh.ctx)
			for i := 0; i < n; i++ {
				for k := 0; k < sh.ctx; k++ {
					sdc[i/group*sh.ctx+k] += tdc[i*sh.ctx+k]
				}
			}
			name := fmt.Sprintf("ResNet %+v n=%d group=%d", sh, n, group)
			compare(t, name+" output", Y.Value(), y)
			compare(t, name+" parameter gradient", tg, g)
			compare(t, name+" input gradient", tdx, dx)
			compare(t, name+" context gradient", sdc, dc)
		}
	}
}
