package ad_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput records invalid operations (mismatched shapes, nil tensors,
// tensors of another tape, short leaves, invalid convolutions and
// networks) and checks that the tape reports an error wrapping ErrInvalid
// through Err and Backward instead of panicking; Net.Init and
// Conv.Validate return such errors directly.
func TestBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	v6 := []float64{1, 2, 3, 4, 5, 6}
	// rec records one operation on a fresh tape and returns Err, which
	// must also be what Backward reports.
	rec := func(f func(tp *ad.Tape) *ad.Tensor) func() error {
		return func() error {
			tp := ad.NewTape()
			out := f(tp)
			if err := tp.Err(); err != nil {
				return err
			}
			return tp.Backward(out, nil)
		}
	}
	c23 := func(tp *ad.Tape) *ad.Tensor { return tp.Const(v6, 2, 3) }
	c32 := func(tp *ad.Tape) *ad.Tensor { return tp.Const(v6, 3, 2) }
	mlp := ad.Net{In: 2, Hidden: []int{3}, Out: 1}
	p := make([]float64, mlp.NumParams())
	conv := ad.Conv{Length: 3, Channels: 1, Filters: 1, Kernel: 2}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "Const 0×3", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Const(v6, 0, 3) })},
		{Category: "nonpositive", Name: "Var -1×3", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Var(v6, nil, -1, 3) })},
		{Category: "huge", Name: "Const overflowing shape", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Const(v6, math.MaxInt/2, 3) })},
		{Category: "mismatched", Name: "Const short values", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Const(v6, 3, 3) })},
		{Category: "mismatched", Name: "Var short gradient", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Var(v6, make([]float64, 2), 2, 3) })},
		{Category: "empty", Name: "Const nil values", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Const(nil, 1, 1) })},
		{Category: "mismatched", Name: "MatMul 2×3 · 2×3", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.MatMul(c23(tp), c23(tp)) })},
		{Category: "mismatched", Name: "Add 2×3 + 3×2", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Add(c23(tp), c32(tp)) })},
		{Category: "mismatched", Name: "Mul 2×3 ⊙ 3×2", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Mul(c23(tp), c32(tp)) })},
		{Category: "mismatched", Name: "AddBias 2×3 + 1×2", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.AddBias(c23(tp), tp.Const(v6, 1, 2)) })},
		{Category: "mismatched", Name: "Concat 2×3 | 3×2", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Concat(c23(tp), c32(tp)) })},
		{Category: "nil", Name: "MatMul nil operand", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.MatMul(c23(tp), nil) })},
		{Category: "nil", Name: "ReLU nil", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.ReLU(nil) })},
		{Category: "nil", Name: "Sum nil", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Sum(nil) })},
		{Category: "nil", Name: "Softmax nil", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Softmax(nil) })},
		{Category: "nil", Name: "Scale nil", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Scale(nil, 2) })},
		{Category: "mismatched", Name: "Add tensor of another tape", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Add(c23(tp), c23(ad.NewTape())) })},
		{Category: "mismatched", Name: "Exp tensor recorded before Reset", Err: rec(func(tp *ad.Tape) *ad.Tensor { x := c23(tp); tp.Reset(); return tp.Exp(x) })},
		{Category: "nil", Name: "Backward nil tensor", Err: func() error { tp := ad.NewTape(); c23(tp); return tp.Backward(nil, nil) }},
		{Category: "mismatched", Name: "Backward 2×3 without seed", Err: func() error { tp := ad.NewTape(); return tp.Backward(c23(tp), nil) }},
		{Category: "mismatched", Name: "Backward short seed", Err: func() error { tp := ad.NewTape(); return tp.Backward(c23(tp), []float64{1}) }},
		{Category: "zerovalue", Name: "Conv{}.Validate", Err: ad.Conv{}.Validate},
		{Category: "nonpositive", Name: "Conv Stride -1", Err: ad.Conv{Length: 3, Channels: 1, Filters: 1, Kernel: 2, Stride: -1}.Validate},
		{Category: "mismatched", Name: "Conv Pad = Kernel", Err: ad.Conv{Length: 3, Channels: 1, Filters: 1, Kernel: 2, Pad: 2}.Validate},
		{Category: "mismatched", Name: "Conv Kernel longer than series", Err: ad.Conv{Length: 3, Channels: 1, Filters: 1, Kernel: 5, Pad: 0}.Validate},
		{Category: "huge", Name: "Conv Length 1<<40", Err: ad.Conv{Length: 1 << 40, Channels: 1, Filters: 1, Kernel: 2}.Validate},
		{Category: "zerovalue", Name: "Conv1D with Conv{}", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Conv1D(tp.Const(v6, 2, 3), tp.Const(v6, 2, 1), nil, ad.Conv{}) })},
		{Category: "mismatched", Name: "Conv1D filter shape", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Conv1D(tp.Const(v6, 2, 3), tp.Const(v6, 3, 1), nil, conv) })},
		{Category: "nil", Name: "Conv1D nil input", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.Conv1D(nil, tp.Const(v6, 2, 1), nil, conv) })},
		{Category: "nonpositive", Name: "AvgPool1D window 0", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.AvgPool1D(c23(tp), 3, 1, 0) })},
		{Category: "mismatched", Name: "AvgPool1D length·channels ≠ cols", Err: rec(func(tp *ad.Tape) *ad.Tensor { return tp.AvgPool1D(c23(tp), 2, 2, 2) })},
		{Category: "zerovalue", Name: "Net{}.Validate", Err: ad.Net{}.Validate},
		{Category: "nonpositive", Name: "MLP hidden width 0", Err: ad.Net{In: 2, Hidden: []int{0}, Out: 1}.Validate},
		{Category: "huge", Name: "MLP width 1<<20", Err: ad.Net{In: 2, Hidden: []int{1 << 20}, Out: 1}.Validate},
		{Category: "mismatched", Name: "CNN In not a multiple of Channels", Err: ad.Net{In: 3, Channels: 2, Conv: []ad.ConvLayer{{Filters: 1, Kernel: 2}}, Out: 1}.Validate},
		{Category: "zerovalue", Name: "Net{}.Init", Err: func() error { return ad.Net{}.Init(nil, r) }},
		{Category: "mismatched", Name: "Init short p", Err: func() error { return mlp.Init(p[:1], r) }},
		{Category: "nil", Name: "Init nil rand", Err: func() error { return mlp.Init(p, nil) }},
		{Category: "zerovalue", Name: "Net{}.Apply", Err: rec(func(tp *ad.Tape) *ad.Tensor { return ad.Net{}.Apply(tp, p, nil, tp.Const(v6, 3, 2)) })},
		{Category: "mismatched", Name: "Apply short p", Err: rec(func(tp *ad.Tape) *ad.Tensor { return mlp.Apply(tp, p[:2], nil, tp.Const(v6, 3, 2)) })},
		{Category: "mismatched", Name: "Apply gradient length", Err: rec(func(tp *ad.Tape) *ad.Tensor { return mlp.Apply(tp, p, make([]float64, 1), tp.Const(v6, 3, 2)) })},
		{Category: "mismatched", Name: "Apply input width", Err: rec(func(tp *ad.Tape) *ad.Tensor { return mlp.Apply(tp, p, nil, c23(tp)) })},
		{Category: "nil", Name: "Apply nil input", Err: rec(func(tp *ad.Tape) *ad.Tensor { return mlp.Apply(tp, p, nil, nil) })},
	}
	testutil.RunBadInput(t, ad.ErrInvalid, cases)
}
