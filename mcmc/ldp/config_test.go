package ldp

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestConfigErrorsNameField checks that SuffStatLinRegConfig,
// PolyExpQuadConfig, ExponentialPosteriorConfig and
// SuffStatPosteriorConfig refuse bad values with errors wrapping ErrInvalid
// that name the field, that the constructors refuse what Validate refuses,
// and that valid configurations are accepted.
func TestConfigErrorsNameField(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ss := SuffStatLinRegConfig{Z: make([]float64, SuffStatDim(2)), Dim: 2, N: 10, Sigma1: 1, Sigma2: 1, Sigma3: 1}
	model, err := NewSuffStatLinReg(ss)
	if err != nil {
		t.Fatalf("valid SuffStatLinRegConfig: %v", err)
	}
	pq := PolyExpQuadConfig{G: []float64{1, 0.5}, H0: 0, H1: 0.1, H2: -0.5, A: -1, B: 2}
	if _, err := NewPolyExpQuad(pq); err != nil {
		t.Fatalf("valid PolyExpQuadConfig: %v", err)
	}
	ce, err := NewClippedExponential(ClippedExponentialConfig{B: 1, Epsilon: 1})
	if err != nil {
		t.Fatal(err)
	}
	ep := ExponentialPosteriorConfig{Shape: 2, Rate: 1}
	if _, err := NewExponentialPosterior(ce, []float64{0.5}, ep); err != nil {
		t.Fatalf("valid ExponentialPosteriorConfig: %v", err)
	}
	sp := SuffStatPosteriorConfig{SigmaX: []float64{1, 0, 0, 1}, SDTheta: 1, Shape: 2, Rate: 1}
	if _, err := NewSuffStatPosterior(model, sp); err != nil {
		t.Fatalf("valid SuffStatPosteriorConfig: %v", err)
	}
	ssWith := func(f func(*SuffStatLinRegConfig)) error {
		c := ss
		f(&c)
		_, err := NewSuffStatLinReg(c)
		return err
	}
	pqWith := func(f func(*PolyExpQuadConfig)) error {
		c := pq
		f(&c)
		_, err := NewPolyExpQuad(c)
		return err
	}
	spWith := func(f func(*SuffStatPosteriorConfig)) error {
		c := sp
		f(&c)
		_, err := NewSuffStatPosterior(model, c)
		return err
	}
	cases := []struct {
		name, want string
		err        error
	}{
		{"linreg zero value", "SuffStatLinRegConfig.Dim", SuffStatLinRegConfig{}.Validate()},
		{"linreg Z length", "SuffStatLinRegConfig.Z", ssWith(func(c *SuffStatLinRegConfig) { c.Z = make([]float64, 5) })},
		{"linreg Z entry", "SuffStatLinRegConfig.Z[3]", ssWith(func(c *SuffStatLinRegConfig) { c.Z = []float64{0, 0, 0, nan, 0, 0} })},
		{"linreg N", "SuffStatLinRegConfig.N", ssWith(func(c *SuffStatLinRegConfig) { c.N = 0 })},
		{"linreg Sigma1", "SuffStatLinRegConfig.Sigma1", ssWith(func(c *SuffStatLinRegConfig) { c.Sigma1 = 0 })},
		{"linreg Sigma2", "SuffStatLinRegConfig.Sigma2", ssWith(func(c *SuffStatLinRegConfig) { c.Sigma2 = inf })},
		{"linreg Sigma3", "SuffStatLinRegConfig.Sigma3", ssWith(func(c *SuffStatLinRegConfig) { c.Sigma3 = nan })},
		{"polyexp zero value", "PolyExpQuadConfig.G", PolyExpQuadConfig{}.Validate()},
		{"polyexp G entry", "PolyExpQuadConfig.G[1]", pqWith(func(c *PolyExpQuadConfig) { c.G = []float64{1, inf} })},
		{"polyexp H0", "PolyExpQuadConfig.H0", pqWith(func(c *PolyExpQuadConfig) { c.H0 = nan })},
		{"polyexp H1", "PolyExpQuadConfig.H1", pqWith(func(c *PolyExpQuadConfig) { c.H1 = -inf })},
		{"polyexp H2", "PolyExpQuadConfig.H2", pqWith(func(c *PolyExpQuadConfig) { c.H2 = 0 })},
		{"polyexp support", "PolyExpQuadConfig.A", pqWith(func(c *PolyExpQuadConfig) { c.A, c.B = 2, -1 })},
		{"polyexp integral", "PolyExpQuadConfig: g·exp(h)", pqWith(func(c *PolyExpQuadConfig) { c.G = []float64{0} })},
		{"exponential zero value", "ExponentialPosteriorConfig.Shape", ExponentialPosteriorConfig{}.Validate()},
		{"exponential Rate", "ExponentialPosteriorConfig.Rate", second(NewExponentialPosterior(ce, []float64{0.5}, ExponentialPosteriorConfig{Shape: 1, Rate: -1}))},
		{"suffstat zero value", "SuffStatPosteriorConfig.SigmaX", SuffStatPosteriorConfig{}.Validate()},
		{"suffstat SigmaX size", "SuffStatPosteriorConfig.SigmaX", spWith(func(c *SuffStatPosteriorConfig) { c.SigmaX = []float64{1} })},
		{"suffstat SigmaX entry", "SuffStatPosteriorConfig.SigmaX[2]", spWith(func(c *SuffStatPosteriorConfig) { c.SigmaX = []float64{1, 0, nan, 1} })},
		{"suffstat SDTheta", "SuffStatPosteriorConfig.SDTheta", spWith(func(c *SuffStatPosteriorConfig) { c.SDTheta = 0 })},
		{"suffstat Shape", "SuffStatPosteriorConfig.Shape", spWith(func(c *SuffStatPosteriorConfig) { c.Shape = inf })},
		{"suffstat Rate", "SuffStatPosteriorConfig.Rate", spWith(func(c *SuffStatPosteriorConfig) { c.Rate = nan })},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(c.err, ErrInvalid) {
			t.Errorf("%s: %v does not wrap ErrInvalid", c.name, c.err)
		}
		if !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %q does not name %q", c.name, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// TestConfigErrorsNameField2 checks the same for ClippedGaussianConfig,
// ClippedExponentialConfig, LinRegPosteriorConfig,
// SuffStatCovPosteriorConfig and LinRegCovPosteriorConfig, and the
// overflow of N·σ² in SuffStatLinRegConfig.
func TestConfigErrorsNameField2(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cg := ClippedGaussianConfig{A: -1, B: 2, Epsilon: 1}
	if _, err := NewClippedGaussian(cg); err != nil {
		t.Fatalf("valid ClippedGaussianConfig: %v", err)
	}
	ce := ClippedExponentialConfig{B: 2, Epsilon: 1}
	if _, err := NewClippedExponential(ce); err != nil {
		t.Fatalf("valid ClippedExponentialConfig: %v", err)
	}
	model, err := NewSuffStatLinReg(SuffStatLinRegConfig{Z: make([]float64, SuffStatDim(2)), Dim: 2, N: 10, Sigma1: 1, Sigma2: 1, Sigma3: 1})
	if err != nil {
		t.Fatal(err)
	}
	ld, err := NewLinRegData(LinRegDataConfig{ZX: []float64{0.1, 0.2, 0.3, 0.4}, ZY: []float64{1, -1}, Dim: 2, SX: []float64{0.5, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	prior := ScaledLKJ{Eta: 2, Scale: 2.5}
	sc := SuffStatCovPosteriorConfig{SDTheta: 1, Shape: 2, Rate: 2, Cov: prior}
	if _, err := NewSuffStatCovPosterior(model, sc); err != nil {
		t.Fatalf("valid SuffStatCovPosteriorConfig: %v", err)
	}
	lc := LinRegCovPosteriorConfig{SY: 0.4, SDTheta: 1, Shape: 2, Rate: 2, Cov: prior}
	if _, err := NewLinRegCovPosterior(ld, lc); err != nil {
		t.Fatalf("valid LinRegCovPosteriorConfig: %v", err)
	}
	if err := (LinRegPosteriorConfig{SDTheta: 1, Shape: 2, Rate: 2}).Validate(); err != nil {
		t.Fatalf("valid LinRegPosteriorConfig: %v", err)
	}
	var nilLKJ *ScaledLKJ
	cases := []struct {
		name, want string
		err        error
	}{
		{"gaussian zero value", "ClippedGaussianConfig.A", ClippedGaussianConfig{}.Validate()},
		{"gaussian B", "ClippedGaussianConfig.A and .B", second(NewClippedGaussian(ClippedGaussianConfig{A: -1, B: nan, Epsilon: 1}))},
		{"gaussian width", "ClippedGaussianConfig.B − .A", second(NewClippedGaussian(ClippedGaussianConfig{A: -1e308, B: 1e308, Epsilon: 1}))},
		{"gaussian Eps", "ClippedGaussianConfig.Epsilon", second(NewClippedGaussian(ClippedGaussianConfig{A: -1, B: 2, Epsilon: 0}))},
		{"exponential zero value", "ClippedExponentialConfig.B", ClippedExponentialConfig{}.Validate()},
		{"exponential B", "ClippedExponentialConfig.B", second(NewClippedExponential(ClippedExponentialConfig{B: inf, Epsilon: 1}))},
		{"exponential Eps", "ClippedExponentialConfig.Epsilon", second(NewClippedExponential(ClippedExponentialConfig{B: 2, Epsilon: nan}))},
		{"linreg posterior zero value", "LinRegPosteriorConfig.SDTheta", LinRegPosteriorConfig{}.Validate()},
		{"linreg posterior Shape", "LinRegPosteriorConfig.Shape", LinRegPosteriorConfig{SDTheta: 1, Shape: inf, Rate: 1}.Validate()},
		{"linreg posterior Rate", "LinRegPosteriorConfig.Rate", LinRegPosteriorConfig{SDTheta: 1, Shape: 1, Rate: -1}.Validate()},
		{"suffstat cov zero value", "SuffStatCovPosteriorConfig.SDTheta", SuffStatCovPosteriorConfig{}.Validate()},
		{"suffstat cov Rate", "SuffStatCovPosteriorConfig.Rate", second(NewSuffStatCovPosterior(model, SuffStatCovPosteriorConfig{SDTheta: 1, Shape: 2, Rate: nan, Cov: prior}))},
		{"suffstat cov Cov nil", "SuffStatCovPosteriorConfig.Cov", second(NewSuffStatCovPosterior(model, SuffStatCovPosteriorConfig{SDTheta: 1, Shape: 2, Rate: 2}))},
		{"suffstat cov Cov typed nil", "SuffStatCovPosteriorConfig.Cov", second(NewSuffStatCovPosterior(model, SuffStatCovPosteriorConfig{SDTheta: 1, Shape: 2, Rate: 2, Cov: nilLKJ}))},
		{"linreg cov zero value", "LinRegCovPosteriorConfig.SDTheta", LinRegCovPosteriorConfig{}.Validate()},
		{"linreg cov SY", "LinRegCovPosteriorConfig.SY", second(NewLinRegCovPosterior(ld, LinRegCovPosteriorConfig{SY: -1, SDTheta: 1, Shape: 2, Rate: 2, Cov: prior}))},
		{"linreg cov Shape", "LinRegCovPosteriorConfig.Shape", second(NewLinRegCovPosterior(ld, LinRegCovPosteriorConfig{SY: 0, SDTheta: 1, Shape: 0, Rate: 2, Cov: prior}))},
		{"linreg cov Cov", "LinRegCovPosteriorConfig.Cov", second(NewLinRegCovPosterior(ld, LinRegCovPosteriorConfig{SY: 0, SDTheta: 1, Shape: 2, Rate: 2}))},
		{"suffstat linreg N·σ² overflow", "SuffStatLinRegConfig.Sigma2", SuffStatLinRegConfig{Z: make([]float64, SuffStatDim(1)), Dim: 1, N: 1000, Sigma1: 1, Sigma2: 1e160, Sigma3: 1}.Validate()},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(c.err, ErrInvalid) {
			t.Errorf("%s: %v does not wrap ErrInvalid", c.name, c.err)
		}
		if !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %q does not name %q", c.name, c.err, c.want)
		}
	}
}
