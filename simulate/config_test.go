package simulate

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestConfigErrorsNameField checks that UniformConfig, DiagNormalConfig and
// MVNormalConfig refuse bad values with errors wrapping ErrInvalid that
// name the field (and entry), that NewUniform, NewDiagNormal and
// NewMVNormal refuse what Validate refuses, and that valid configurations
// build the distribution asked for.
func TestConfigErrorsNameField(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name, want string
		err        error
	}{
		{"uniform zero value", "UniformConfig.Hi", UniformConfig{}.Validate()},
		{"uniform Lo NaN", "UniformConfig.Lo", UniformConfig{Lo: math.NaN(), Hi: 1}.Validate()},
		{"uniform Hi Inf", "UniformConfig.Hi", UniformConfig{Lo: 0, Hi: inf}.Validate()},
		{"uniform swapped", "UniformConfig.Hi", UniformConfig{Lo: 2, Hi: 1}.Validate()},
		{"uniform width", "UniformConfig: uniform width", UniformConfig{Lo: -1e308, Hi: 1e308}.Validate()},
		{"uniform constructor", "UniformConfig.Hi", second(NewUniform(UniformConfig{Lo: 1, Hi: 1}))},
		{"diag zero value", "DiagNormalConfig.Mean", DiagNormalConfig{}.Validate()},
		{"diag lengths", "DiagNormalConfig.Variances", DiagNormalConfig{Mean: []float64{0, 0}, Variances: []float64{1}}.Validate()},
		{"diag mean", "DiagNormalConfig.Mean[1]", DiagNormalConfig{Mean: []float64{0, inf}, Variances: []float64{1, 1}}.Validate()},
		{"diag variance", "DiagNormalConfig.Variances[0]", DiagNormalConfig{Mean: []float64{0}, Variances: []float64{-1}}.Validate()},
		{"diag subnormal", "DiagNormalConfig.Variances[0]", DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1e-310}}.Validate()},
		{"diag constructor", "DiagNormalConfig.Variances[1]", second(NewDiagNormal(DiagNormalConfig{Mean: []float64{0, 0}, Variances: []float64{1, 0}}))},
		{"mvn zero value", "MVNormalConfig.Mean", MVNormalConfig{}.Validate()},
		{"mvn lengths", "MVNormalConfig.Cov", MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0, 1}}.Validate()},
		{"mvn mean", "MVNormalConfig.Mean[1]", MVNormalConfig{Mean: []float64{0, math.NaN()}, Cov: []float64{1, 0, 0, 1}}.Validate()},
		{"mvn entry", "MVNormalConfig.Cov[2]", MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0, inf, 1}}.Validate()},
		{"mvn asymmetric", "MVNormalConfig.Cov[2]", MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0.1, 0.2, 1}}.Validate()},
		{"mvn variance", "MVNormalConfig.Cov[3]", MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0, 0, -1}}.Validate()},
		{"mvn subnormal", "MVNormalConfig.Cov[0]", MVNormalConfig{Mean: []float64{0}, Cov: []float64{1e-310}}.Validate()},
		{"mvn indefinite", "MVNormalConfig.Cov", MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 2, 2, 1}}.Validate()},
		{"mvn constructor", "MVNormalConfig.Cov", second(NewMVNormal(MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 2, 2, 1}}))},
	}
	for _, c := range cases {
		if !errors.Is(c.err, ErrInvalid) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error wrapping ErrInvalid naming %q", c.name, c.err, c.want)
		}
	}
	u, err := NewUniform(UniformConfig{Lo: -1, Hi: 3})
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := u.Support(); lo != -1 || hi != 3 {
		t.Errorf("uniform support [%v, %v], want [-1, 3]", lo, hi)
	}
	mean := []float64{1, -2}
	p, err := NewDiagNormal(DiagNormalConfig{Mean: mean, Variances: []float64{4, 0.25}})
	if err != nil {
		t.Fatal(err)
	}
	mean[0] = 100 // the constructor copies Mean
	// log N((1, −2); (1, −2), diag(4, 1/4)) = −log(2π) − ½ log(4·¼) = −log(2π).
	if got, want := p.LogDensity([]float64{1, -2}), -math.Log(2*math.Pi); math.Abs(got-want) > 1e-14 {
		t.Errorf("diagonal normal log density at the mean %v, want %v", got, want)
	}
	cfg := MVNormalConfig{Mean: []float64{1, -2}, Cov: []float64{4, 0, 0, 0.25}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	mv, err := NewMVNormal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Mean[0], cfg.Cov[0] = 100, 100 // the constructor keeps neither slice
	if got, want := mv.LogDensity([]float64{1, -2}), -math.Log(2*math.Pi); math.Abs(got-want) > 1e-14 {
		t.Errorf("multivariate normal log density at the mean %v, want %v", got, want)
	}
}

func second(_ any, err error) error { return err }
