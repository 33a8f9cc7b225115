package ldp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds every constructor, release path and sensitivity of
// the package invalid arguments, labelled by category, and requires an
// error wrapping ErrInvalid that names the argument, and no panic.
func TestBadInput(t *testing.T) {
	nan, inf, sub, huge := math.NaN(), math.Inf(1), 0x1p-1070, 1e308
	r := rand.New(rand.NewPCG(1, 2))
	cl, _ := NewClippedLaplace(ClippedLaplaceConfig{Lo: -1, Hi: 1, Epsilon: 1})
	nc, _ := NewNormClippedGaussian(NormClippedGaussianConfig{Epsilon: 1, Delta: 1e-5, Clip: 1, Dim: 2})
	newCL := func(lo, hi, eps float64) func() error {
		return func() error {
			_, err := NewClippedLaplace(ClippedLaplaceConfig{Lo: lo, Hi: hi, Epsilon: eps})
			return err
		}
	}
	newNC := func(c NormClippedGaussianConfig) func() error {
		return func() error { _, err := NewNormClippedGaussian(c); return err }
	}
	relCL := func(m *ClippedLaplace, x []float64, nz int) func() error {
		return func() error { return m.Release(r, x, make([]float64, nz)) }
	}
	simCL := func(m *ClippedLaplace, rr *rand.Rand, x []float64) func() error {
		return func() error { return m.SimulateRelease(rr, x, make([]float64, len(x))) }
	}
	relNC := func(m *NormClippedGaussian, x []float64, nz int) func() error {
		return func() error { return m.Release(r, x, make([]float64, nz)) }
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nan", Name: "ClippedLaplaceConfig.Lo NaN", Err: newCL(nan, 1, 1)},
		{Category: "nan", Name: "ClippedLaplaceConfig.Epsilon NaN", Err: newCL(0, 1, nan)},
		{Category: "nan", Name: "ClippedLaplace.Release record NaN", Err: relCL(cl, []float64{0, nan}, 2)},
		{Category: "nan", Name: "ClippedLaplace.SimulateRelease record NaN", Err: simCL(cl, r, []float64{nan})},
		{Category: "nan", Name: "NormClippedGaussianConfig.Delta NaN", Err: newNC(NormClippedGaussianConfig{Epsilon: 1, Delta: nan, Clip: 1, Dim: 1})},
		{Category: "nan", Name: "NormClippedGaussian.Release record NaN", Err: relNC(nc, []float64{nan, 0}, 2)},
		{Category: "inf", Name: "ClippedLaplaceConfig.Hi Inf", Err: newCL(0, inf, 1)},
		{Category: "inf", Name: "ClippedLaplaceConfig.Epsilon Inf", Err: newCL(0, 1, inf)},
		{Category: "inf", Name: "ClippedLaplace.Release record Inf", Err: relCL(cl, []float64{inf}, 1)},
		{Category: "inf", Name: "ClippedLaplace.Release record −Inf", Err: relCL(cl, []float64{-inf}, 1)},
		{Category: "inf", Name: "NormClippedGaussianConfig.Clip Inf", Err: newNC(NormClippedGaussianConfig{Epsilon: 1, Delta: 1e-5, Clip: inf, Dim: 1})},
		{Category: "inf", Name: "NormClippedGaussian.Release record Inf", Err: relNC(nc, []float64{inf, 0}, 2)},
		{Category: "nonpositive", Name: "ClippedLaplaceConfig Lo = Hi", Err: newCL(1, 1, 1)},
		{Category: "nonpositive", Name: "ClippedLaplaceConfig Lo > Hi", Err: newCL(2, 1, 1)},
		{Category: "nonpositive", Name: "ClippedLaplaceConfig.Epsilon 0", Err: newCL(0, 1, 0)},
		{Category: "nonpositive", Name: "NormClippedGaussianConfig.Epsilon 0", Err: newNC(NormClippedGaussianConfig{Delta: 1e-5, Clip: 1, Dim: 1})},
		{Category: "nonpositive", Name: "NormClippedGaussianConfig.Clip −1", Err: newNC(NormClippedGaussianConfig{Epsilon: 1, Delta: 1e-5, Clip: -1, Dim: 1})},
		{Category: "nonpositive", Name: "NormClippedGaussianConfig.Dim 0", Err: newNC(NormClippedGaussianConfig{Epsilon: 1, Delta: 1e-5, Clip: 1})},
		{Category: "nonpositive", Name: "NormClippedGaussianConfig.Delta 1", Err: newNC(NormClippedGaussianConfig{Epsilon: 1, Delta: 1, Clip: 1, Dim: 1})},
		{Category: "huge", Name: "ClippedLaplaceConfig bounds ±1e308", Err: newCL(-huge, huge, 1)},
		{Category: "huge", Name: "ClippedLaplaceConfig.Epsilon 1e308", Err: newCL(0, 1, huge)},
		{Category: "huge", Name: "NormClippedGaussianConfig.Clip 1e308 (sensitivity overflows)", Err: newNC(NormClippedGaussianConfig{Epsilon: 1, Delta: 1e-5, Clip: huge, Dim: 1})},
		{Category: "huge", Name: "NormClippedGaussian.Release record 1e308 is clipped", Check: func() error {
			dst := make([]float64, 2)
			if err := nc.Release(nil, []float64{huge, huge}, dst); err != nil {
				return err
			}
			if math.IsInf(dst[0], 0) || math.IsNaN(dst[0]) {
				return fmt.Errorf("non-finite release %v", dst)
			}
			return nil
		}},
		{Category: "huge", Name: "ClippedLaplace.Release record 1e308 is clipped", Check: func() error {
			z := make([]float64, 1)
			if err := cl.Release(nil, []float64{huge}, z); err != nil {
				return err
			}
			if math.IsInf(z[0], 0) || math.IsNaN(z[0]) {
				return fmt.Errorf("non-finite report %v", z)
			}
			return nil
		}},
		{Category: "subnormal", Name: "ClippedLaplaceConfig.Epsilon", Err: newCL(0, 1, sub)},
		{Category: "subnormal", Name: "ClippedLaplaceConfig width", Err: newCL(0, sub, 1)},
		{Category: "subnormal", Name: "NormClippedGaussianConfig.Epsilon", Err: newNC(NormClippedGaussianConfig{Epsilon: sub, Delta: 1e-5, Clip: 1, Dim: 1})},
		{Category: "empty", Name: "ClippedLaplace.Release no records", Err: relCL(cl, nil, 0)},
		{Category: "mismatched", Name: "ClippedLaplace.Release report length", Err: relCL(cl, []float64{0, 1}, 1)},
		{Category: "mismatched", Name: "NormClippedGaussian.Release record length", Err: relNC(nc, []float64{1}, 2)},
		{Category: "mismatched", Name: "NormClippedGaussian.Release destination length", Err: relNC(nc, []float64{1, 0}, 3)},
		{Category: "nil", Name: "nil ClippedLaplace", Err: relCL(nil, []float64{0}, 1)},
		{Category: "nil", Name: "ClippedLaplace.SimulateRelease nil generator", Err: simCL(cl, nil, []float64{0})},
		{Category: "nil", Name: "ClippedLaplace.ReleaseVia nil Via", Err: func() error { return cl.ReleaseVia(nil, []float64{0}, []float64{0}) }},
		{Category: "nil", Name: "nil NormClippedGaussian", Err: relNC(nil, []float64{0, 0}, 2)},
		{Category: "nil", Name: "NormClippedGaussian.SimulateRelease nil generator", Err: func() error { return nc.SimulateRelease(nil, []float64{0, 0}, make([]float64, 2)) }},
		{Category: "zerovalue", Name: "ClippedLaplaceConfig{}", Err: func() error { _, err := NewClippedLaplace(ClippedLaplaceConfig{}); return err }},
		{Category: "zerovalue", Name: "ClippedLaplace{}", Err: relCL(&ClippedLaplace{}, []float64{0}, 1)},
		{Category: "zerovalue", Name: "NormClippedGaussianConfig{}", Err: newNC(NormClippedGaussianConfig{})},
		{Category: "zerovalue", Name: "NormClippedGaussian{}", Err: relNC(&NormClippedGaussian{}, []float64{0}, 1)},
		{Category: "zerovalue", Name: "LinRegSensitivityConfig{}", Err: func() error { _, err := LinRegSensitivity(LinRegSensitivityConfig{}); return err }},
		{Category: "zerovalue", Name: "LogRegSensitivityConfig{}", Err: func() error { _, err := LogRegSensitivity(LogRegSensitivityConfig{}); return err }},
		{Category: "huge", Name: "LinRegSensitivity overflows (R 1e308)", Err: func() error {
			_, err := LinRegSensitivity(LinRegSensitivityConfig{R: huge, RY: 1, Sigma1: 1, Sigma2: 1, Sigma3: 1})
			return err
		}},
		{Category: "huge", Name: "LogRegSensitivity overflows (σ1 1e308, σ2 1e-300)", Err: func() error {
			_, err := LogRegSensitivity(LogRegSensitivityConfig{R: 1, Sigma1: huge, Sigma2: 1e-300})
			return err
		}},
	}
	sens := []struct {
		name string
		f    func(v float64) (float64, error)
	}{
		{"InputSensitivity R", InputSensitivity},
		{"LinRegSensitivityConfig.R", func(v float64) (float64, error) {
			return LinRegSensitivity(LinRegSensitivityConfig{R: v, RY: 1, Sigma1: 1, Sigma2: 1, Sigma3: 1})
		}},
		{"LinRegSensitivityConfig.Sigma1", func(v float64) (float64, error) {
			return LinRegSensitivity(LinRegSensitivityConfig{R: 1, RY: 1, Sigma1: v, Sigma2: 1, Sigma3: 1})
		}},
		{"LinRegSensitivityConfig.Sigma3", func(v float64) (float64, error) {
			return LinRegSensitivity(LinRegSensitivityConfig{R: 1, RY: 1, Sigma1: 1, Sigma2: 1, Sigma3: v})
		}},
		{"LinRegSensitivityEqual RY", LinRegSensitivityEqual},
		{"LogRegSensitivityConfig.Sigma2", func(v float64) (float64, error) {
			return LogRegSensitivity(LogRegSensitivityConfig{R: 1, Sigma1: 1, Sigma2: v})
		}},
		{"LogRegSensitivityConfig.R", func(v float64) (float64, error) {
			return LogRegSensitivity(LogRegSensitivityConfig{R: v, Sigma1: 1, Sigma2: 1})
		}},
	}
	for _, sf := range sens {
		for _, c := range []struct {
			cat string
			v   float64
		}{{"nan", nan}, {"inf", inf}, {"nonpositive", 0}, {"nonpositive", -1}} {
			cases = append(cases, B{Category: c.cat, Name: fmt.Sprintf("%s %v", sf.name, c.v), Err: func() error { _, err := sf.f(c.v); return err }})
		}
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}
