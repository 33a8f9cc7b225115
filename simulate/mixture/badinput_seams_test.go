package mixture

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic record-model and prior rows
// (simcheck) and the constructors' limits.
func TestBadInputSeams(t *testing.T) {
	th := PaperTheta()
	m, err := NewUniform(len(th))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prior(len(th))
	if err != nil {
		t.Fatal(err)
	}
	cs := simcheck.RecordModel("Uniform", m, th, &Uniform{}, (*Uniform)(nil))
	cs = append(cs, simcheck.Prior("Prior", p)...)
	type B = testutil.BadInput
	for _, k := range []int{0, -1, 1, 1 << 31, math.MaxInt} {
		c := "huge"
		if k <= 1 {
			c = "nonpositive"
		}
		cs = append(cs,
			B{Category: c, Name: "NewUniform k " + itoa(k), Err: func() error { _, err := NewUniform(k); return err }},
			B{Category: c, Name: "Prior k " + itoa(k), Err: func() error { _, err := Prior(k); return err }})
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}

func itoa(k int) string {
	switch k {
	case math.MaxInt:
		return "MaxInt"
	case 1 << 31:
		return "2^31"
	}
	return string(rune('0'+k%10)) + map[bool]string{true: " (negative)", false: ""}[k < 0]
}
