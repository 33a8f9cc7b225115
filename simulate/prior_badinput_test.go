package simulate

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestBadInput calls every distribution and prior constructor with
// arguments from each category of bad input and asserts that it neither
// panics nor accepts them: it returns an error wrapping ErrInvalid.
// Zero-value distributions are refused where they are combined, and their
// methods return NaN instead of panicking.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	const sub, huge = 1e-310, 1e308
	nrm, _ := NewNormal(NormalConfig{Mu: 0, Sigma: 1})
	type call func() error
	e := func(_ any, err error) error { return err }
	cases := map[string][]call{
		"nan": {
			func() error { return e(NewNormal(NormalConfig{Mu: nan, Sigma: 1})) },
			func() error { return e(NewNormal(NormalConfig{Mu: 0, Sigma: nan})) },
			func() error { return e(NewLogNormal(NormalConfig{Mu: nan, Sigma: 1})) },
			func() error { return e(NewUniform(UniformConfig{Lo: nan, Hi: 1})) },
			func() error { return e(NewHalfNormal(nan)) },
			func() error { return e(NewExponential(nan)) },
			func() error { return e(NewGamma(GammaConfig{Shape: nan, Scale: 1})) },
			func() error { return e(NewBeta(BetaConfig{Alpha: 1, Beta: nan})) },
			func() error { return e(NewPoisson(nan)) },
			func() error { return e(NewBinomial(BinomialConfig{N: 3, P: nan})) },
			func() error { return e(NewCategorical([]float64{1, nan})) },
			func() error { return e(NewDirichlet([]float64{1, nan})) },
			func() error { return e(NewMVNormal(MVNormalConfig{Mean: []float64{nan}, Cov: []float64{1}})) },
			func() error { return e(NewMVNormal(MVNormalConfig{Mean: []float64{0}, Cov: []float64{nan}})) },
			func() error { return e(Truncate(nrm, nan, 1)) },
		},
		"inf": {
			func() error { return e(NewNormal(NormalConfig{Mu: inf, Sigma: 1})) },
			func() error { return e(NewNormal(NormalConfig{Mu: 0, Sigma: inf})) },
			func() error { return e(NewUniform(UniformConfig{Lo: 0, Hi: inf})) },
			func() error { return e(NewUniform(UniformConfig{Lo: -inf, Hi: 0})) },
			func() error { return e(NewGamma(GammaConfig{Shape: 1, Scale: inf})) },
			func() error { return e(NewBeta(BetaConfig{Alpha: inf, Beta: 1})) },
			func() error { return e(NewPoisson(inf)) },
			func() error { return e(NewCategorical([]float64{inf, 1})) },
			func() error { return e(NewDirichlet([]float64{1, inf})) },
			func() error { return e(NewDiagNormal(DiagNormalConfig{Mean: []float64{0}, Variances: []float64{inf}})) },
		},
		"nonpositive": {
			func() error { return e(NewNormal(NormalConfig{Mu: 0, Sigma: 0})) },
			func() error { return e(NewNormal(NormalConfig{Mu: 0, Sigma: -1})) },
			func() error { return e(NewLogNormal(NormalConfig{Mu: 0, Sigma: -2})) },
			func() error { return e(NewUniform(UniformConfig{Lo: 1, Hi: 1})) },
			func() error { return e(NewUniform(UniformConfig{Lo: 2, Hi: 1})) },
			func() error { return e(NewHalfNormal(0)) },
			func() error { return e(NewExponential(-1)) },
			func() error { return e(NewGamma(GammaConfig{Shape: 0, Scale: 1})) },
			func() error { return e(NewGamma(GammaConfig{Shape: 1, Scale: -1})) },
			func() error { return e(NewBeta(BetaConfig{Alpha: -1, Beta: 1})) },
			func() error { return e(NewPoisson(-1)) },
			func() error { return e(NewBinomial(BinomialConfig{N: -1, P: 0.5})) },
			func() error { return e(NewBinomial(BinomialConfig{N: 3, P: -0.1})) },
			func() error { return e(NewCategorical([]float64{1, -1})) },
			func() error { return e(NewCategorical([]float64{0, 0})) },
			func() error { return e(NewDirichlet([]float64{1, 0})) },
			func() error { return e(NewDiagNormal(DiagNormalConfig{Mean: []float64{0}, Variances: []float64{-1}})) },
			func() error { return e(NewMVNormal(MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 2, 2, 1}})) },
			func() error { return e(Truncate(nrm, 2, 1)) },
			func() error { return e(Truncate(nrm, 40, 50)) }, // zero mass in float64
		},
		"huge": {
			func() error { return e(NewNormal(NormalConfig{Mu: huge, Sigma: huge})) },
			func() error { return e(NewNormal(NormalConfig{Mu: 0, Sigma: math.MaxFloat64})) },
			func() error { return e(NewUniform(UniformConfig{Lo: -huge, Hi: huge})) },
			func() error { return e(NewHalfNormal(huge)) },
			func() error { return e(NewGamma(GammaConfig{Shape: huge, Scale: 1})) },
			func() error { return e(NewGamma(GammaConfig{Shape: 1e10, Scale: 1e300})) },
			func() error { return e(NewBeta(BetaConfig{Alpha: huge, Beta: 1})) },
			func() error { return e(NewPoisson(huge)) },
			func() error { return e(NewBinomial(BinomialConfig{N: 1 << 60, P: 0.5})) },
			func() error { return e(NewBinomial(BinomialConfig{N: 3, P: 1.5})) },
			func() error { return e(NewCategorical([]float64{huge, huge})) },
			func() error { return e(NewDirichlet([]float64{huge, 1})) },
		},
		"subnormal": {
			func() error { return e(NewNormal(NormalConfig{Mu: 0, Sigma: sub})) },
			func() error { return e(NewHalfNormal(sub)) },
			func() error { return e(NewExponential(sub)) },
			func() error { return e(NewGamma(GammaConfig{Shape: sub, Scale: 1})) },
			func() error { return e(NewGamma(GammaConfig{Shape: 1, Scale: sub})) },
			func() error { return e(NewBeta(BetaConfig{Alpha: sub, Beta: 1})) },
			func() error { return e(NewDirichlet([]float64{sub, 1})) },
			func() error { return e(NewMVNormal(MVNormalConfig{Mean: []float64{0}, Cov: []float64{sub}})) },
		},
		"empty": {
			func() error { return e(NewCategorical(nil)) },
			func() error { return e(NewDirichlet(nil)) },
			func() error { return e(NewDirichlet([]float64{1})) },
			func() error { return e(NewMVNormal(MVNormalConfig{Mean: nil, Cov: nil})) },
			func() error { return e(NewDiagNormal(DiagNormalConfig{Mean: nil, Variances: nil})) },
			func() error { return e(NewIndependent()) },
			func() error { return e(NewConcat()) },
		},
		"mismatched": {
			func() error { return e(NewMVNormal(MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0, 0}})) },
			func() error {
				return e(NewMVNormal(MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0.1, 0.2, 1}}))
			},
			func() error {
				return e(NewDiagNormal(DiagNormalConfig{Mean: []float64{0, 0}, Variances: []float64{1}}))
			},
		},
		"nil": {
			func() error { return e(NewIndependent(nil)) },
			func() error { return e(NewIndependent(nrm, nil)) },
			func() error { return e(NewConcat(nil)) },
			func() error { return e(Truncate(nil, 0, 1)) },
			func() error { return e(Truncate(&noCDF{}, 0, 1)) },
		},
		"zerovalue": {
			func() error { return e(NewIndependent(&Normal{})) },
			func() error { return e(NewIndependent(&Gamma{})) },
			func() error { return e(NewIndependent(&Categorical{})) },
			func() error { return e(NewIndependent(&Truncated{})) },
			func() error { return e(NewConcat(&MVNormal{})) },
			func() error { return e(NewConcat(&Dirichlet{})) },
			func() error { return e(NewConcat(&Independent{})) },
			func() error { return e(Truncate(&Normal{}, 0, 1)) },
			func() error { return e(Truncate(&Beta{}, 0, 1)) },
		},
	}
	for cat, calls := range cases {
		for i, c := range calls {
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Errorf("%s %d: panic %v", cat, i, p)
					}
				}()
				if err := c(); !errors.Is(err, ErrInvalid) {
					t.Errorf("%s %d: got %v, want an error wrapping ErrInvalid", cat, i, err)
				}
			}()
		}
	}
	// Zero values used directly do not panic and give no valid number.
	r := rand.New(rand.NewPCG(1, 1))
	for _, d := range []Univariate{&Normal{}, &LogNormal{}, &Uniform{}, &HalfNormal{}, &Gamma{}, &Beta{}, &Categorical{}, &Truncated{}} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("%T zero value: panic %v", d, p)
				}
			}()
			x := d.Sample(r)
			if lp := d.LogDensity(x); !math.IsNaN(lp) {
				t.Errorf("%T zero value: LogDensity(%v) = %v, want NaN", d, x, lp)
			}
		}()
	}
}

// TestBadInputMultinomial covers the multinomial's constructor.
func TestBadInputMultinomial(t *testing.T) {
	for name, w := range map[string][]float64{"nan": {1, math.NaN()}, "inf": {math.Inf(1), 1}, "nonpositive": {-1, 2}, "empty": nil, "zero": {0, 0}} {
		if _, err := NewMultinomial(3, w); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, n := range []int64{-1, 1 << 60} {
		if _, err := NewMultinomial(n, []float64{1, 1}); !errors.Is(err, ErrInvalid) {
			t.Errorf("n = %d: %v", n, err)
		}
	}
	if _, err := NewConcat(&Multinomial{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero-value multinomial block: %v", err)
	}
}
