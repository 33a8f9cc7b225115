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
	ss := SuffStatLinRegConfig{Z: make([]float64, SuffStatDim(2)), D: 2, N: 10, Sigma1: 1, Sigma2: 1, Sigma3: 1}
	model, err := NewSuffStatLinReg(ss)
	if err != nil {
		t.Fatalf("valid SuffStatLinRegConfig: %v", err)
	}
	pq := PolyExpQuadConfig{G: []float64{1, 0.5}, H0: 0, H1: 0.1, H2: -0.5, A: -1, B: 2}
	if _, err := NewPolyExpQuad(pq); err != nil {
		t.Fatalf("valid PolyExpQuadConfig: %v", err)
	}
	ce, err := NewClippedExponential(1, 1)
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
		{"linreg zero value", "SuffStatLinRegConfig.D", SuffStatLinRegConfig{}.Validate()},
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
