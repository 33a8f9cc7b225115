package regression

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/internal/testutil/simcheck"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInputSeams runs the generic record-model rows (simcheck) for the
// linear and logistic input models and the constructors' limits.
func TestBadInputSeams(t *testing.T) {
	lin, err := NewLinear(LinearConfig{Dim: 2, Cov: nil, Sigma2: 1})
	if err != nil {
		t.Fatal(err)
	}
	lg, err := NewLogistic(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	th := func(m *Inputs) []float64 {
		v := make([]float64, m.ParamDim())
		for i := range v {
			v[i] = 0.3
		}
		return v
	}
	cs := simcheck.RecordModel("Linear", lin, th(lin), &Inputs{}, (*Inputs)(nil))
	cs = append(cs, simcheck.RecordModel("Logistic", lg, th(lg), &Inputs{}, (*Inputs)(nil))...)
	type B = testutil.BadInput
	for _, d := range []int{-1, 1 << 31, math.MaxInt} {
		c := map[bool]string{true: "nonpositive", false: "huge"}[d < 0]
		cs = append(cs,
			B{Category: c, Name: "NewLinear dim bad", Err: func() error { _, err := NewLinear(LinearConfig{Dim: d, Cov: nil, Sigma2: 1}); return err }},
			B{Category: c, Name: "NewLogistic dim bad", Err: func() error { _, err := NewLogistic(d, nil); return err }})
	}
	for _, v := range []float64{math.NaN(), math.Inf(1), -1} {
		cs = append(cs, B{Category: "nonpositive", Name: "NewLinear σ² bad", Err: func() error { _, err := NewLinear(LinearConfig{Dim: 2, Cov: nil, Sigma2: v}); return err }})
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cs)
}
