package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput is the package's bad-input table: NewResNet's arguments
// (errors wrapping ErrInvalid, including sizes whose parameter count would
// overflow) and the hot-path methods' documented panics on short slices.
func TestBadInput(t *testing.T) {
	type B = testutil.BadInput
	var cs []B
	nr := func(in, ctx, hidden, out, blocks, off int) func() error {
		return func() error {
			_, err := NewResNet(ResNetConfig{In: in, Ctx: ctx, Hidden: hidden, Out: out, Blocks: blocks, Gate: true, Off: off})
			return err
		}
	}
	for _, v := range []int{-1, 1<<16 + 1, 1 << 31, math.MaxInt} {
		c := map[bool]string{true: "nonpositive", false: "huge"}[v < 0]
		cs = append(cs,
			B{Category: c, Name: fmt.Sprintf("NewResNet in %d", v), Err: nr(v, 1, 4, 2, 1, 0)},
			B{Category: c, Name: fmt.Sprintf("NewResNet ctx %d", v), Err: nr(2, v, 4, 2, 1, 0)},
			B{Category: c, Name: fmt.Sprintf("NewResNet hidden %d", v), Err: nr(2, 1, v, 2, 1, 0)},
			B{Category: c, Name: fmt.Sprintf("NewResNet out %d", v), Err: nr(2, 1, 4, v, 1, 0)},
			B{Category: c, Name: fmt.Sprintf("NewResNet blocks %d", v), Err: nr(2, 1, 4, 2, v, 0)},
		)
		if v != 1<<16+1 { // a valid offset
			cs = append(cs, B{Category: c, Name: fmt.Sprintf("NewResNet off %d", v), Err: nr(2, 1, 4, 2, 1, v)})
		}
	}
	cs = append(cs,
		B{Category: "nonpositive", Name: "NewResNet hidden 0", Err: nr(2, 1, 0, 2, 1, 0)},
		B{Category: "nonpositive", Name: "NewResNet out 0", Err: nr(2, 1, 4, 0, 1, 0)},
		B{Category: "huge", Name: "NewResNet 2^16 wide, 2^10 blocks (beyond 2^31 parameters)", Err: nr(2, 1, 1<<16, 2, 1<<10, 0)},
	)
	m, err := NewResNet(ResNetConfig{In: 2, Ctx: 1, Hidden: 4, Out: 3, Blocks: 1, Gate: true})
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, m.NumParams())
	m.Init(p, rand.New(rand.NewPCG(1, 2)))
	w := m.NewWork(2)
	cs = append(cs,
		B{Category: "mismatched", Name: "ResNet.Forward short parameters", Panics: func() {
			m.Forward(p[:len(p)-1], w, make([]float64, 4), make([]float64, 2), 2, make([]float64, 6))
		}},
		B{Category: "mismatched", Name: "ResNet.Forward rows beyond the workspace", Panics: func() {
			m.Forward(p, w, make([]float64, 6), make([]float64, 3), 3, make([]float64, 9))
		}},
		B{Category: "nil", Name: "ResNet.Forward nil workspace", Panics: func() {
			m.Forward(p, nil, make([]float64, 4), make([]float64, 2), 2, make([]float64, 6))
		}},
		B{Category: "mismatched", Name: "Linear.Forward short y", Panics: func() {
			l := Linear{In: 2, Out: 2}
			l.Forward(make([]float64, l.NumParams()), make([]float64, 4), make([]float64, 3), 2)
		}},
	)
	testutil.RunBadInput(t, ErrInvalid, cs)
}

// TestResNetParamsCount checks the count NewResNet bounds against the
// layout it builds.
func TestResNetParamsCount(t *testing.T) {
	for _, c := range [][5]int{{2, 1, 4, 3, 1}, {0, 3, 8, 2, 0}, {5, 0, 16, 4, 3}, {3, 2, 6, 9, 2}} {
		for _, gate := range []bool{false, true} {
			m, err := NewResNet(ResNetConfig{In: c[0], Ctx: c[1], Hidden: c[2], Out: c[3], Blocks: c[4], Gate: gate, Off: 7})
			if err != nil {
				t.Fatal(err)
			}
			want := int64(m.NumParams())
			if got := resNetParams(int64(c[0]+c[1]), int64(c[2]), int64(c[3]), int64(c[4]), gate && c[1] > 0, int64(c[1])); got != want {
				t.Errorf("%v gate %v: counted %d, laid out %d", c, gate, got, want)
			}
		}
	}
}
