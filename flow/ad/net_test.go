package ad_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/flow/ad"
)

// testNets are an MLP and CNNs with strides, padding, several channels and
// odd sizes.
func testNets() []ad.Net {
	return []ad.Net{
		ad.Net{In: 7, Hidden: []int{5, 3}, Out: 2},
		ad.Net{In: 3, Out: 1},
		ad.Net{In: 13, Conv: []ad.ConvLayer{{Filters: 3, Kernel: 3, Stride: 2, Pad: 1}, {Filters: 2, Kernel: 2}}, Hidden: []int{4}, Out: 3},
		ad.Net{In: 9 * 2, Channels: 2, Conv: []ad.ConvLayer{{Filters: 4, Kernel: 5, Pad: 2}}, Out: 2},
		ad.Net{In: 16, Conv: []ad.ConvLayer{{Filters: 3, Kernel: 2, Pool: 3}, {Filters: 2, Kernel: 2, Pool: 4}}, Hidden: []int{3}, Out: 2},
	}
}

func TestNetNumParams(t *testing.T) {
	// Counted by hand from the layer shapes.
	want := []int{
		(7+1)*5 + (5+1)*3 + (3+1)*2,
		(3 + 1) * 1,
		// conv 13→7 steps ×3, conv 7→6 steps ×2, dense 12→4→3
		(3*1+1)*3 + (2*3+1)*2 + (12+1)*4 + (4+1)*3,
		// conv 9 steps ×2 → 9 steps ×4, dense 36→2
		(5*2+1)*4 + (36+1)*2,
		// conv 16→15 steps ×3, pooled to 5; conv 5→4 steps ×2, pooled
		// to 1; dense 2→3→2
		(2*1+1)*3 + (2*3+1)*2 + (2+1)*3 + (3+1)*2,
	}
	for i, n := range testNets() {
		if err := n.Validate(); err != nil {
			t.Fatalf("%+v: %v", n, err)
		}
		if got := n.NumParams(); got != want[i] {
			t.Errorf("%+v: NumParams %d, want %d", n, got, want[i])
		}
	}
}

// TestNetGradient checks the gradients of every parameter and input of the
// test networks against finite differences with step 10⁻⁵, small enough
// that no ReLU input of these fixed draws lies within the stencil of its
// kink (one that did would show as a large error, not a false pass).
func TestNetGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 18))
	for _, net := range testNets() {
		rows := 3
		p := make([]float64, net.NumParams())
		if err := net.Init(p, r); err != nil {
			t.Fatal(err)
		}
		x := newInput(r, rows, net.In, normal)
		ins := []input{x, {1, len(p), p}}
		build := func(tp *ad.Tape, xs []*ad.Tensor) *ad.Tensor {
			// The parameter leaf's value and gradient buffers are the
			// checker's; Apply records its own leaves over them.
			return net.Apply(tp, xs[1].Value(), xs[1].Grad(), xs[0])
		}
		worst := checkGradStep(t, fmt.Sprintf("%+v", net), r, ins, build, 1e-5)
		t.Logf("%+v: worst relative error %.2g", net, worst)
	}
}

func TestNetInit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 18))
	n := ad.Net{In: 16, Hidden: []int{4}, Out: 1}
	p := make([]float64, n.NumParams())
	if err := n.Init(p, r); err != nil {
		t.Fatal(err)
	}
	// First layer: uniform on ±1/4 (fan-in 16); second: ±1/2 (fan-in 4).
	first, second := p[:17*4], p[17*4:]
	for _, v := range first {
		if math.Abs(v) > 0.25 {
			t.Fatalf("first-layer parameter %v outside ±1/4", v)
		}
	}
	mx := 0.0
	for _, v := range second {
		mx = math.Max(mx, math.Abs(v))
	}
	if mx > 0.5 || mx < 0.25 {
		t.Errorf("second-layer parameters reach %v, want within ±1/2 and beyond ±1/4", mx)
	}
	if err := n.Init(p[:3], r); !errors.Is(err, ad.ErrInvalid) {
		t.Errorf("Init with a short vector: %v", err)
	}
	if err := n.Init(p, nil); !errors.Is(err, ad.ErrInvalid) {
		t.Errorf("Init with a nil source: %v", err)
	}
}

func TestNetValidate(t *testing.T) {
	bad := []ad.Net{
		{},
		ad.Net{In: 0, Out: 1},
		ad.Net{In: 3, Out: 0},
		ad.Net{In: 3, Hidden: []int{4, 0}, Out: 1},
		ad.Net{In: 1 << 17, Out: 1},
		ad.Net{In: 10, Conv: []ad.ConvLayer{{Filters: 2, Kernel: 11}}, Out: 1},
		ad.Net{In: 10, Conv: []ad.ConvLayer{{Filters: 0, Kernel: 3}}, Out: 1},
		ad.Net{In: 10, Conv: []ad.ConvLayer{{Filters: 2, Kernel: 3, Pad: 3}}, Out: 1},
		ad.Net{In: 10, Conv: []ad.ConvLayer{{Filters: 2, Kernel: 3, Stride: -1}}, Out: 1},
		ad.Net{In: 10, Conv: []ad.ConvLayer{{Filters: 2, Kernel: 3, Stride: 4}, {Filters: 2, Kernel: 4}}, Out: 1},
		ad.Net{In: 10, Conv: []ad.ConvLayer{{Filters: 2, Kernel: 3, Pool: 9}}, Out: 1},
		ad.Net{In: 10, Conv: []ad.ConvLayer{{Filters: 2, Kernel: 3, Pool: -1}}, Out: 1},
		ad.Net{In: 10, Conv: []ad.ConvLayer{{Filters: 2, Kernel: 3, Pool: 4}, {Filters: 2, Kernel: 3}}, Out: 1},
		{In: 10, Channels: 3, Out: 1},
		{In: 10, Channels: -1, Out: 1},
		ad.Net{In: 1 << 16, Hidden: []int{1 << 16}, Out: 1},
	}
	for _, n := range bad {
		if err := n.Validate(); !errors.Is(err, ad.ErrInvalid) {
			t.Errorf("%+v: Validate returned %v, want ErrInvalid", n, err)
		}
		// Apply records the error instead of panicking.
		tp := ad.NewTape()
		n.Apply(tp, nil, nil, tp.Const([]float64{1}, 1, 1))
		if err := tp.Err(); !errors.Is(err, ad.ErrInvalid) || !strings.Contains(err.Error(), "Net") {
			t.Errorf("%+v: Apply recorded %v, want an ErrInvalid error naming the Net", n, err)
		}
	}
	// Apply with the wrong number of parameters or gradients.
	n := ad.Net{In: 2, Out: 1}
	tp := ad.NewTape()
	x := tp.Const([]float64{1, 2}, 1, 2)
	n.Apply(tp, make([]float64, 2), nil, x)
	if !errors.Is(tp.Err(), ad.ErrInvalid) {
		t.Errorf("Apply with 2 of 3 parameters: %v", tp.Err())
	}
	tp.Reset()
	x = tp.Const([]float64{1, 2, 3}, 1, 3)
	n.Apply(tp, make([]float64, 3), nil, x)
	if !errors.Is(tp.Err(), ad.ErrInvalid) {
		t.Errorf("Apply on 3 columns for In = 2: %v", tp.Err())
	}
}
