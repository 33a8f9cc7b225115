package synth

import (
	"errors"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/simulate/conjugate"
)

// TestModelConfigs checks that each conjugate model's constructor refuses
// an invalid configuration with an error wrapping ErrInvalid that names
// the field, keeps the configuration it was given (Config returns it, and
// a Dirichlet model keeps its own copy of Alpha), and that an engine
// refuses a model not built by its constructor.
func TestModelConfigs(t *testing.T) {
	for _, c := range []struct {
		field string
		err   error
	}{
		{"BetaBernoulliConfig.Alpha", second(NewBetaBernoulli(BetaBernoulliConfig{Beta: 1}))},
		{"BetaBernoulliConfig.Beta", second(NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: -1}))},
		{"GaussianMeanConfig.Sigma", second(NewGaussianMean(GaussianMeanConfig{Lo: 0, Hi: 1}))},
		{"GaussianMeanConfig.Lo", second(NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: 2, Hi: 1}))},
		{"GaussianMeanConfig.RecordBounding", second(NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: 0, Hi: 1, RecordBounding: 7}))},
		{"GaussianNIGConfig.Hi", second(NewGaussianNIG(GaussianNIGConfig{}))},
		{"GaussianNIGConfig.Lo", second(NewGaussianNIG(GaussianNIGConfig{Lo: -1e200, Hi: 1e200}))},
		{"PoissonGammaConfig.Shape", second(NewPoissonGamma(conjugate.PoissonGammaConfig{Rate: 1, MaxCount: 1}))},
		{"PoissonGammaConfig.Rate", second(NewPoissonGamma(conjugate.PoissonGammaConfig{Shape: 1, MaxCount: 1}))},
		{"PoissonGammaConfig.MaxCount", second(NewPoissonGamma(conjugate.PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 1 << 41}))},
		{"CategoricalDirichletConfig.Alpha", second(NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{1}}))},
		{"CategoricalDirichletConfig.Alpha[1]", second(NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{1, 0}}))},
	} {
		if !errors.Is(c.err, ErrInvalid) || !strings.Contains(c.err.Error(), c.field) {
			t.Errorf("%s: got %v, want an error wrapping ErrInvalid naming %s", c.field, c.err, c.field)
		}
	}

	pg := conjugate.PoissonGammaConfig{Shape: 2, Rate: 3, MaxCount: 10}
	if m, err := NewPoissonGamma(pg); err != nil || m.Config() != pg {
		t.Errorf("NewPoissonGamma(%+v).Config() = %+v, %v", pg, m.Config(), err)
	}
	nig := GaussianNIGConfig{Lo: -1, Hi: 3, RecordBounding: Truncation}
	if m, err := NewGaussianNIG(nig); err != nil || m.Config() != nig || m.CommunalWeight() != 0.2 {
		t.Errorf("NewGaussianNIG(%+v): Config %+v, CommunalWeight %v, %v", nig, m.Config(), m.CommunalWeight(), err)
	}
	alpha := []float64{1, 2, 3}
	md, err := NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: alpha})
	if err != nil {
		t.Fatal(err)
	}
	alpha[0] = -5
	got := md.Config()
	got.Alpha[1] = -5
	if a := md.Config().Alpha; a[0] != 1 || a[1] != 2 || md.ParamDim() != 3 {
		t.Errorf("the model's Alpha changed with the caller's slice: %v", a)
	}

	for name, m := range map[string]Conjugate{
		"BetaBernoulli": &BetaBernoulli{}, "GaussianMean": &GaussianMean{}, "GaussianNIG": &GaussianNIG{},
		"PoissonGamma": &PoissonGamma{}, "CategoricalDirichlet": &CategoricalDirichlet{},
	} {
		if _, err := NewSSS(m, nil, BIT); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewSSS(zero %s): got %v, want ErrInvalid", name, err)
		}
	}
	for name, m := range map[string]Conjugate{
		"BetaBernoulli": (*BetaBernoulli)(nil), "GaussianMean": (*GaussianMean)(nil), "GaussianNIG": (*GaussianNIG)(nil),
		"PoissonGamma": (*PoissonGamma)(nil), "CategoricalDirichlet": (*CategoricalDirichlet)(nil),
	} {
		if _, err := NewSSS(m, nil, BIT); !errors.Is(err, ErrInvalid) {
			t.Errorf("NewSSS(nil %s): got %v, want ErrInvalid", name, err)
		}
		if _, err := (&SSS{Model: m}).Sanitize(nil, []float64{1}, 1, Releaser{}); !errors.Is(err, ErrInvalid) {
			t.Errorf("SSS{Model: nil %s}.Sanitize: got %v, want ErrInvalid", name, err)
		}
	}
	var nb *BetaBernoulli
	var ngm *GaussianMean
	var nnig *GaussianNIG
	if nb.Config() != (BetaBernoulliConfig{}) || ngm.Config() != (GaussianMeanConfig{}) || nnig.Config() != (GaussianNIGConfig{}) {
		t.Errorf("Config of a nil model is not the zero configuration")
	}
}

func second[T any](_ T, err error) error { return err }

func mustPoissonGamma(cfg conjugate.PoissonGammaConfig) *PoissonGamma {
	m, err := NewPoissonGamma(cfg)
	if err != nil {
		panic(err)
	}
	return m
}

func mustCategoricalDirichlet(cfg conjugate.CategoricalDirichletConfig) *CategoricalDirichlet {
	m, err := NewCategoricalDirichlet(cfg)
	if err != nil {
		panic(err)
	}
	return m
}
