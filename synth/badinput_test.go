package synth

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate/conjugate"
)

// TestBadInputCategories feeds the package's exported functions invalid
// arguments, labelled by category, and requires an error wrapping
// ErrInvalid and no panic, whether the value is caught by validation or
// by a later stage.
func TestBadInputCategories(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	sub := 0x1p-1070
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 99))
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := NewSSS(bb, nil, BIT)
	gm, _ := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: -4, Hi: 4, RecordBounding: BIT})
	gsss, _ := NewSSS(gm, nil, BIT)
	x := []float64{0, 1, 1, 0, 1}
	g, _ := NewGrid([]float64{0}, []float64{1}, []int{4})
	rl := func() Releaser {
		a, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 10})
		return Releaser{Accountant: a, Reproducible: true}
	}
	logf := func([]float64) float64 { return 0 }
	samples := []float64{0.1, 0.2, 0.6}
	modips := func(sel Selection, x []float64, cfg Config) func() error {
		return func() error { _, err := Modips(ctx, r, sel, x, cfg); return err }
	}
	ok := Config{M: 2, Epsilon: 1, Reproducible: true}
	with := func(f func(c *Config)) Config { c := ok; f(&c); return c }
	type tc struct {
		cat, name string
		f         func() error
	}
	cases := []tc{
		{"nan", "epsilon", modips(Single(sss), x, with(func(c *Config) { c.Epsilon = nan }))},
		{"nan", "epsilon0", modips(Single(sss), x, with(func(c *Config) { c.Epsilon0 = nan }))},
		{"nan", "record (Gaussian mean)", modips(Single(gsss), []float64{1, nan}, ok)},
		{"nan", "beta prior", func() error { _, err := NewBetaBernoulli(BetaBernoulliConfig{Alpha: nan, Beta: 1}); return err }},
		{"nan", "Gaussian sigma", func() error {
			_, err := NewGaussianMean(GaussianMeanConfig{Sigma: nan, Lo: 0, Hi: 1, RecordBounding: BIT})
			return err
		}},
		{"nan", "Gaussian bound", func() error {
			_, err := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: nan, Hi: 1, RecordBounding: BIT})
			return err
		}},
		{"nan", "NIG bound", func() error {
			_, err := NewGaussianNIG(GaussianNIGConfig{Lo: 0, Hi: nan, RecordBounding: BIT})
			return err
		}},
		{"nan", "Poisson bound", func() error {
			_, err := NewPoissonGamma(conjugate.PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: nan})
			return err
		}},
		{"nan", "Dirichlet alpha", func() error {
			_, err := NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{1, nan}})
			return err
		}},
		{"nan", "grid bound", func() error { _, err := NewGrid([]float64{nan}, []float64{1}, []int{2}); return err }},
		{"nan", "SiDD A", func() error { _, err := SiDD(r, g, logf, nan, 0, 1, rl()); return err }},
		{"nan", "SiDD epsilon", func() error { _, err := SiDD(r, g, logf, 1, 0, nan, rl()); return err }},
		{"nan", "SiDD.MC sample", func() error { _, err := SiDDMC(r, g, []float64{nan}, 1, 1, rl()); return err }},
		{"nan", "SiPHiC G", func() error { _, err := SiPHiC(r, g, samples, nan, 1, rl()); return err }},
		{"nan", "SiDD.MC epsilon", func() error { _, err := SiDDMC(r, g, samples, 1, nan, rl()); return err }},
		{"nan", "histogram record", func() error { _, err := (&HistogramModel{Grid: g}).Sanitize(r, []float64{nan}, 1, rl()); return err }},
		{"nan", "MVN mean", func() error { _, _, err := MVNLogDensity([]float64{nan}, []float64{1}); return err }},
		{"nan", "SSS weights", func() error {
			_, err := NewSSS(&GaussianNIG{cfg: GaussianNIGConfig{Lo: 0, Hi: 1}}, []float64{nan, 0.5}, BIT)
			return err
		}},
		{"inf", "epsilon", modips(Single(sss), x, with(func(c *Config) { c.Epsilon = inf }))},
		{"inf", "record (Gaussian mean)", modips(Single(gsss), []float64{1, inf}, ok)},
		{"inf", "record (Poisson)", modips(Single(mustSSS(mustPoissonGamma(conjugate.PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 5}))), []float64{1, inf}, ok)},
		{"inf", "Gaussian bound", func() error {
			_, err := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: 0, Hi: inf, RecordBounding: BIT})
			return err
		}},
		{"inf", "grid bound", func() error { _, err := NewGrid([]float64{0}, []float64{inf}, []int{2}); return err }},
		{"inf", "SiDD A", func() error { _, err := SiDD(r, g, logf, inf, 0, 1, rl()); return err }},
		{"inf", "SiPHiC G", func() error { _, err := SiPHiC(r, g, samples, inf, 1, rl()); return err }},
		{"inf", "beta prior", func() error { _, err := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: inf}); return err }},
		{"inf", "SiDD.MC sample", func() error { _, err := SiDDMC(r, g, []float64{inf, -inf}, 1, 1, rl()); return err }},
		{"nonpositive", "epsilon 0", modips(Single(sss), x, with(func(c *Config) { c.Epsilon = 0 }))},
		{"nonpositive", "epsilon -1", modips(Single(sss), x, with(func(c *Config) { c.Epsilon = -1 }))},
		{"nonpositive", "m 0", modips(Single(sss), x, with(func(c *Config) { c.M = 0 }))},
		{"nonpositive", "m -5", modips(Single(sss), x, with(func(c *Config) { c.M = -5 }))},
		{"nonpositive", "n -1", modips(Single(sss), x, with(func(c *Config) { c.N = -1 }))},
		{"nonpositive", "nested -1", modips(Single(sss), x, with(func(c *Config) { c.Nested = -1 }))},
		{"nonpositive", "Gaussian sigma 0", func() error {
			_, err := NewGaussianMean(GaussianMeanConfig{Sigma: 0, Lo: 0, Hi: 1, RecordBounding: BIT})
			return err
		}},
		{"nonpositive", "bounds c0 = c1", func() error {
			_, err := NewGaussianNIG(GaussianNIGConfig{Lo: 1, Hi: 1, RecordBounding: BIT})
			return err
		}},
		{"nonpositive", "grid bins 0", func() error { _, err := NewGrid([]float64{0}, []float64{1}, []int{0}); return err }},
		{"nonpositive", "SiDD A 0", func() error { _, err := SiDD(r, g, logf, 0, 0, 1, rl()); return err }},
		{"nonpositive", "SiDD points -1", func() error { _, err := SiDD(r, g, logf, 1, -1, 1, rl()); return err }},
		{"nonpositive", "SiPHiC G -1", func() error { _, err := SiPHiC(r, g, samples, -1, 1, rl()); return err }},
		{"nonpositive", "SiDD.MC epsilon 0", func() error { _, err := SiDDMC(r, g, samples, 1, 0, rl()); return err }},
		{"nonpositive", "histogram max copies", func() error {
			_, err := (&HistogramModel{Grid: g, MaxCopies: -1}).Sanitize(r, samples, 1, rl())
			return err
		}},
		{"nonpositive", "Poisson count -1", modips(Single(mustSSS(mustPoissonGamma(conjugate.PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 5}))), []float64{1, -1}, ok)},
		{"nonpositive", "statistics n 0", func() error { _, err := bb.Statistics(0); return err }},
		{"nonpositive", "density model N 0", func() error {
			_, err := (&DensityModel{Grid: g, Method: MethodSiPHiC, G: 1, Records: 1, SamplePosterior: func(*rand.Rand, []float64, int) ([]float64, error) { return nil, nil }}).Sanitize(r, x, 1, rl())
			return err
		}},
		{"huge", "m 2^40", modips(Single(sss), x, with(func(c *Config) { c.M = 1 << 40 }))},
		{"huge", "n 2^40", modips(Single(sss), x, with(func(c *Config) { c.N = 1 << 40 }))},
		{"huge", "nested 2^40", modips(Single(sss), x, with(func(c *Config) { c.Nested = 1 << 40 }))},
		{"huge", "m·nested·n over the value limit", modips(Single(sss), x, with(func(c *Config) { c.M = 1 << 10; c.N = 1 << 20 }))},
		{"huge", "epsilon 1e308 split", modips(Single(sss), x, with(func(c *Config) { c.Epsilon = 1e308 }))},
		{"huge", "Gaussian bounds ±1e308", func() error {
			_, err := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: -1e308, Hi: 1e308, RecordBounding: BIT})
			return err
		}},
		{"huge", "NIG bounds ±1e308", func() error {
			_, err := NewGaussianNIG(GaussianNIGConfig{Lo: -1e308, Hi: 1e308, RecordBounding: BIT})
			return err
		}},
		{"huge", "grid 2^40 cells", func() error { _, err := NewGrid([]float64{0, 0}, []float64{1, 1}, []int{1 << 20, 1 << 20}); return err }},
		{"huge", "grid bounds ±1e308", func() error { _, err := NewGrid([]float64{-1e308}, []float64{1e308}, []int{4}); return err }},
		{"huge", "SiDD points 2^40", func() error { _, err := SiDD(r, g, logf, 1, 1<<40, 1, rl()); return err }},
		{"huge", "histogram max copies 2^40", func() error {
			_, err := (&HistogramModel{Grid: g, MaxCopies: 1 << 40}).Sanitize(r, samples, 1, rl())
			return err
		}},
		{"huge", "Poisson bound 1e308", func() error {
			_, err := NewPoissonGamma(conjugate.PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 1e308})
			return err
		}},
		{"huge", "density model N 2^40", func() error {
			_, err := (&DensityModel{Grid: g, Method: MethodSiPHiC, G: 1, N: 1 << 40, Records: 1, SamplePosterior: func(*rand.Rand, []float64, int) ([]float64, error) { return nil, nil }}).Sanitize(r, x, 1, rl())
			return err
		}},
		{"subnormal", "epsilon", modips(Single(sss), x, with(func(c *Config) { c.Epsilon = sub }))},
		{"subnormal", "epsilon0", modips(Selection{Candidates: []Model{sss, sss}, Utility: func(int, []float64) float64 { return 0 }, Sensitivity: 1}, x, with(func(c *Config) { c.Epsilon0 = sub }))},
		{"subnormal", "selection sensitivity", modips(Selection{Candidates: []Model{sss, sss}, Utility: func(int, []float64) float64 { return 0 }, Sensitivity: sub}, x, with(func(c *Config) { c.Epsilon0 = 0.5 }))},
		{"subnormal", "Gaussian sigma", func() error {
			_, err := NewGaussianMean(GaussianMeanConfig{Sigma: sub, Lo: 0, Hi: 1, RecordBounding: BIT})
			return err
		}},
		{"subnormal", "Gaussian bounds width", func() error {
			_, err := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: 0, Hi: sub, RecordBounding: BIT})
			return err
		}},
		{"subnormal", "beta prior", func() error { _, err := NewBetaBernoulli(BetaBernoulliConfig{Alpha: sub, Beta: 1}); return err }},
		{"subnormal", "SiDD A", func() error { _, err := SiDD(r, g, logf, sub, 0, 1, rl()); return err }},
		{"subnormal", "SiPHiC epsilon", func() error { _, err := SiPHiC(r, g, samples, 1, sub, rl()); return err }},
		{"subnormal", "grid width", func() error { _, err := NewGrid([]float64{0}, []float64{sub}, []int{4}); return err }},
		{"empty", "data", modips(Single(sss), nil, ok)},
		{"empty", "data slice", modips(Single(sss), []float64{}, ok)},
		{"empty", "candidates", modips(Selection{}, x, ok)},
		{"empty", "SiDD.MC samples", func() error { _, err := SiDDMC(r, g, nil, 1, 1, rl()); return err }},
		{"empty", "SiPHiC samples", func() error { _, err := SiPHiC(r, g, []float64{}, 1, 1, rl()); return err }},
		{"empty", "grid", func() error { _, err := NewGrid(nil, nil, nil); return err }},
		{"empty", "MVN", func() error { _, _, err := MVNLogDensity(nil, nil); return err }},
		{"empty", "Dirichlet alpha", func() error { _, err := NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{}); return err }},
		{"empty", "histogram data", func() error { _, err := (&HistogramModel{Grid: g}).Sanitize(r, nil, 1, rl()); return err }},
		{"mismatched", "record dimension", modips(Single(&HistogramModel{Grid: mustGrid(2)}), []float64{0.1, 0.2, 0.3}, ok)},
		{"mismatched", "grid lengths", func() error { _, err := NewGrid([]float64{0, 0}, []float64{1}, []int{2, 2}); return err }},
		{"mismatched", "MVN covariance", func() error { _, _, err := MVNLogDensity([]float64{0, 0}, []float64{1}); return err }},
		{"mismatched", "SSS weights", func() error {
			s := &SSS{Model: &GaussianNIG{cfg: GaussianNIGConfig{Lo: 0, Hi: 1}}, Weights: []float64{1}}
			_, err := s.Sanitize(r, []float64{0.1, 0.2, 0.3}, 1, rl())
			return err
		}},
		{"mismatched", "ragged samples", func() error { _, err := SiDDMC(r, mustGrid(2), []float64{0.1, 0.2, 0.3}, 1, 1, rl()); return err }},
		{"mismatched", "histogram θ length", func() error { return (&HistogramModel{Grid: g}).Synthesize(r, []float64{1}, make([]float64, 3)) }},
		{"mismatched", "binary record 2", modips(Single(sss), []float64{0, 2}, ok)},
		{"mismatched", "category 5 of 3", modips(Single(mustSSS(mustCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{1, 1, 1}}))), []float64{0, 5}, ok)},
		{"mismatched", "epsilon0 without selection", modips(Single(sss), x, with(func(c *Config) { c.Epsilon0 = 0.5 }))},
		{"mismatched", "bounding mode", func() error { _, err := NewSSS(bb, nil, Bounding(7)); return err }},
		{"nil", "generator", func() error { _, err := Modips(ctx, nil, Single(sss), x, ok); return err }},
		{"nil", "candidate model", modips(Selection{Candidates: []Model{nil}}, x, ok)},
		{"nil", "selection utility", modips(Selection{Candidates: []Model{sss, sss}, Sensitivity: 1}, x, with(func(c *Config) { c.Epsilon0 = 0.5 }))},
		{"nil", "SSS model", func() error { _, err := NewSSS(nil, nil, BIT); return err }},
		{"nil", "SiDD grid", func() error { _, err := SiDD(r, nil, logf, 1, 0, 1, rl()); return err }},
		{"nil", "SiDD log density", func() error { _, err := SiDD(r, g, nil, 1, 0, 1, rl()); return err }},
		{"nil", "SiDD.MC grid", func() error { _, err := SiDDMC(r, nil, samples, 1, 1, rl()); return err }},
		{"nil", "SiPHiC grid", func() error { _, err := SiPHiC(r, nil, samples, 1, 1, rl()); return err }},
		{"nil", "releaser accountant", func() error { _, err := SiDD(r, g, logf, 1, 0, 1, Releaser{}); return err }},
		{"nil", "reproducible releaser generator", func() error { _, err := SiDD(nil, g, logf, 1, 0, 1, rl()); return err }},
		{"nil", "histogram grid", func() error { _, err := (&HistogramModel{}).Sanitize(r, x, 1, rl()); return err }},
		{"nil", "histogram model in Modips", modips(Single(&HistogramModel{}), x, ok)},
		{"nil", "density model functions", func() error { _, err := (&DensityModel{Grid: g, Records: 1}).Sanitize(r, x, 1, rl()); return err }},
		{"nil", "density model generator", func() error { return (&DensityModel{}).Synthesize(r, []float64{0}, make([]float64, 2)) }},
		{"nil", "SSS with nil conjugate", func() error { _, err := (&SSS{}).Sanitize(r, x, 1, rl()); return err }},
		{"zerovalue", "config", modips(Single(sss), x, Config{})},
		{"zerovalue", "grid", func() error { _, err := (&HistogramModel{Grid: &Grid{}}).Sanitize(r, x, 1, rl()); return err }},
		{"zerovalue", "grid in Modips", modips(Single(&HistogramModel{Grid: &Grid{}}), x, ok)},
		{"zerovalue", "density model", modips(Single(&DensityModel{}), x, ok)},
		{"zerovalue", "Gaussian mean", modips(Single(mustSSS(&GaussianMean{})), []float64{1, 2}, ok)},
		{"zerovalue", "NIG", modips(Single(mustSSS(&GaussianNIG{})), []float64{1, 2, 3}, ok)},
		{"zerovalue", "beta-Bernoulli", modips(Single(mustSSS(&BetaBernoulli{})), x, ok)},
		{"zerovalue", "Poisson-gamma", modips(Single(mustSSS(&PoissonGamma{})), []float64{1, 2}, ok)},
		{"zerovalue", "Dirichlet", modips(Single(mustSSS(&CategoricalDirichlet{})), []float64{0, 0}, ok)},
		{"zerovalue", "SSS", modips(Single(&SSS{}), x, ok)},
		{"zerovalue", "selection", modips(Selection{}, x, ok)},
		{"zerovalue", "releaser", func() error { _, _, err := sss.SanitizeStats(r, x, 1, Releaser{}); return err }},
	}
	perCat := map[string]int{}
	var rows []testutil.BadInput
	for _, c := range cases {
		perCat[c.cat]++
		rows = append(rows, testutil.BadInput{Category: c.cat, Name: c.name, Err: c.f})
	}
	for _, cat := range []string{"nan", "inf", "nonpositive", "huge", "subnormal", "empty", "mismatched", "nil", "zerovalue"} {
		if perCat[cat] == 0 {
			t.Errorf("category %s has no case", cat)
		}
	}
	testutil.RunBadInput(t, ErrInvalid, rows)
}

func mustSSS(m Conjugate) *SSS { return &SSS{Model: m} }

func mustGrid(p int) *Grid {
	lo, hi, bins := make([]float64, p), make([]float64, p), make([]int, p)
	for j := range lo {
		hi[j], bins[j] = 1, 4
	}
	g, _ := NewGrid(lo, hi, bins)
	return g
}
