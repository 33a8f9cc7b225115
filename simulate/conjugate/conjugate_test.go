package conjugate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)) }

// The models implement the seams the package documentation names.
var (
	_ simulate.Prior       = (*PoissonGamma)(nil)
	_ simulate.RecordModel = (*PoissonGamma)(nil)
	_ simulate.Prior       = (*CategoricalDirichlet)(nil)
	_ simulate.RecordModel = (*CategoricalDirichlet)(nil)
	_ simulate.Prior       = (*NormalNIG)(nil)
	_ simulate.RecordModel = (*NormalNIG)(nil)
)

// moments checks the sample mean and variance of draws against exact
// values by z-tests at 5 standard errors (false alarm 6e-7 each): the
// mean's standard error is √(v/N), the variance's √((m4 − v²)/N) with m4
// the sample's fourth central moment.
func moments(t *testing.T, name string, x []float64, mean, v float64) {
	t.Helper()
	n := float64(len(x))
	m := 0.0
	for _, a := range x {
		m += a
	}
	m /= n
	s2, m4 := 0.0, 0.0
	for _, a := range x {
		d := (a - m) * (a - m)
		s2 += d
		m4 += d * d
	}
	s2 /= n - 1
	m4 /= n
	if z := (m - mean) / math.Sqrt(v/n); math.Abs(z) > 5 {
		t.Errorf("%s: mean %v, exact %v (z = %.1f)", name, m, mean, z)
	}
	if z := (s2 - v) / math.Sqrt((m4-s2*s2)/n); math.Abs(z) > 5 {
		t.Errorf("%s: variance %v, exact %v (z = %.1f)", name, s2, v, z)
	}
}

// draws runs f N times and returns coordinate j of each θ.
func draws(n, d int, f func(theta []float64) error) ([][]float64, error) {
	out := make([][]float64, d)
	th := make([]float64, d)
	for range n {
		if err := f(th); err != nil {
			return nil, err
		}
		for j := range d {
			out[j] = append(out[j], th[j])
		}
	}
	return out, nil
}

const nDraws = 40000

// TestSampleThetaConjugate checks each θ-step's draws against the
// conjugate posterior's exact means and variances given fixed records
// (moments: 5-SE z-tests, 18 of them, total false alarm about 1e-5).
func TestSampleThetaConjugate(t *testing.T) {
	r := newRand(1)

	pg, _ := NewPoissonGamma(PoissonGammaConfig{Shape: 2, Rate: 1, MaxCount: 3})
	counts := []float64{0, 3, 1, 4, 2, 2, 7, 1} // Σ = 20 (unclamped: the θ-step uses the raw records), n = 8
	d, err := draws(nDraws, 1, func(th []float64) error { return pg.SampleTheta(r, counts, len(counts), th) })
	if err != nil {
		t.Fatal(err)
	}
	a, b := 2.0+20, 1.0+8
	moments(t, "Poisson-gamma λ", d[0], a/b, a/(b*b))

	cd, _ := NewCategoricalDirichlet(CategoricalDirichletConfig{Alpha: []float64{1, 2, 3}})
	cats := []float64{0, 2, 2, 0, 2, 0, 2, 0, 2, 2} // counts (4, 0, 6)
	d, err = draws(nDraws, 3, func(th []float64) error { return cd.SampleTheta(r, cats, len(cats), th) })
	if err != nil {
		t.Fatal(err)
	}
	post, a0 := []float64{5, 2, 9}, 16.0
	for k, ak := range post {
		moments(t, "Dirichlet p_"+string(rune('0'+k)), d[k], ak/a0, ak*(a0-ak)/(a0*a0*(a0+1)))
	}

	nig, _ := NewNormalNIG(NormalNIGConfig{M0: 1, K0: 2, A0: 3, B0: 4, Lo: -1, Hi: 1})
	x := []float64{0.3, 2.5, -1.7, 1.1, 0.8, 3.2, 0.0, 1.9, -0.4, 1.6} // some beyond [Lo, Hi]: the θ-step uses them raw
	n := float64(len(x))
	mean := 0.0
	for _, v := range x {
		mean += v
	}
	mean /= n
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	k := 2 + n
	m := (2*1 + n*mean) / k
	an := 3 + n/2
	bn := 4 + ss/2 + 2*n*(mean-1)*(mean-1)/(2*k)
	d, err = draws(nDraws, 2, func(th []float64) error { return nig.SampleTheta(r, x, len(x), th) })
	if err != nil {
		t.Fatal(err)
	}
	// μ is Student-t: variance B/(K(A − 1)); σ² ~ InvGamma(A, B).
	moments(t, "NIG μ", d[0], m, bn/(k*(an-1)))
	moments(t, "NIG σ²", d[1], bn/(an-1), bn*bn/((an-1)*(an-1)*(an-2)))
}

// TestPriors checks each prior's Sample against its exact moments (5-SE
// z-tests as moments, 10 of them) and its LogDensity against the closed
// form at a point, computed here independently with math.Lgamma.
func TestPriors(t *testing.T) {
	r := newRand(2)
	pg, _ := NewPoissonGamma(PoissonGammaConfig{Shape: 3, Rate: 2, MaxCount: 10})
	d, _ := draws(nDraws, 1, func(th []float64) error { pg.Sample(r, th); return nil })
	moments(t, "gamma prior", d[0], 1.5, 0.75)
	lg3, _ := math.Lgamma(3)
	if got, want := pg.LogDensity([]float64{1.3}), 3*math.Log(2)-lg3+2*math.Log(1.3)-2*1.3; math.Abs(got-want) > 1e-12 {
		t.Errorf("gamma prior LogDensity(1.3) = %v, want %v", got, want)
	}
	if got := pg.LogDensity([]float64{-1}); !math.IsInf(got, -1) {
		t.Errorf("gamma prior LogDensity(-1) = %v, want -Inf", got)
	}

	cd, _ := NewCategoricalDirichlet(CategoricalDirichletConfig{Alpha: []float64{2, 1, 1}})
	d, _ = draws(nDraws, 3, func(th []float64) error { cd.Sample(r, th); return nil })
	moments(t, "Dirichlet prior p_0", d[0], 0.5, 0.5*0.5/5)
	moments(t, "Dirichlet prior p_1", d[1], 0.25, 0.25*0.75/5)
	// Dirichlet(2, 1, 1) has density Γ(4)/Γ(2)·p_0 = 6·p_0.
	if got, want := cd.LogDensity([]float64{0.2, 0.5, 0.3}), math.Log(6*0.2); math.Abs(got-want) > 1e-9 {
		t.Errorf("Dirichlet prior LogDensity = %v, want %v", got, want)
	}
	if got := cd.LogDensity([]float64{0.2, 0.5, 0.5}); !math.IsInf(got, -1) {
		t.Errorf("Dirichlet prior LogDensity off the simplex = %v, want -Inf", got)
	}

	nig, _ := NewNormalNIG(NormalNIGConfig{M0: -1, K0: 4, A0: 5, B0: 8, Lo: 0, Hi: 1})
	d, _ = draws(nDraws, 2, func(th []float64) error { nig.Sample(r, th); return nil })
	// σ² ~ InvGamma(5, 8): mean 2, variance 4/3; μ: mean −1, variance
	// E[σ²]/K0 = 1/2.
	moments(t, "NIG prior μ", d[0], -1, 0.5)
	moments(t, "NIG prior σ²", d[1], 2, 64.0/(16*3))
	lg5, _ := math.Lgamma(5)
	mu, s2 := -0.5, 1.7
	want := 5*math.Log(8) - lg5 - 6*math.Log(s2) - 8/s2 - 0.5*math.Log(2*math.Pi*s2/4) - (mu+1)*(mu+1)*4/(2*s2)
	if got := nig.LogDensity([]float64{mu, s2}); math.Abs(got-want) > 1e-12 {
		t.Errorf("NIG prior LogDensity = %v, want %v", got, want)
	}
}

// TestRecordModels checks that each record log-likelihood is a
// normalised law (sum or integral 1 within 1e-9) whose sampled records
// have the model's mean and variance (5-SE z-tests, 6 of them), and that
// L1Sensitivity equals the largest ℓ1 change of the mean contribution
// when one record is replaced, found by search over a grid of record
// values (values no record of the model takes included).
func TestRecordModels(t *testing.T) {
	r := newRand(3)
	pg, _ := NewPoissonGamma(PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 4})
	th := []float64{3.7}
	sum := 0.0
	for k := range 200 {
		sum += math.Exp(pg.RecordLogLik(th, []float64{float64(k)}))
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("Poisson pmf sums to %v", sum)
	}
	rec := make([]float64, 1)
	d, _ := draws(nDraws, 1, func(x []float64) error { pg.SampleRecord(r, th, rec); x[0] = rec[0]; return nil })
	moments(t, "Poisson records", d[0], 3.7, 3.7)

	cd, _ := NewCategoricalDirichlet(CategoricalDirichletConfig{Alpha: []float64{1, 1, 1, 1}})
	p := []float64{0.1, 0.2, 0.3, 0.4}
	sum = 0
	for k := range 4 {
		sum += math.Exp(cd.RecordLogLik(p, []float64{float64(k)}))
	}
	if math.Abs(sum-1) > 1e-12 || !math.IsInf(cd.RecordLogLik(p, []float64{4}), -1) || !math.IsInf(cd.RecordLogLik(p, []float64{0.5}), -1) {
		t.Errorf("categorical pmf sums to %v, or a non-category has positive probability", sum)
	}
	d, _ = draws(nDraws, 1, func(x []float64) error { cd.SampleRecord(r, p, rec); x[0] = rec[0]; return nil })
	moments(t, "categorical records", d[0], 2, 1) // E = Σk p_k = 2, Var = Σk² p_k − 4 = 1

	nig, _ := NewNormalNIG(NormalNIGConfig{M0: 0, K0: 1, A0: 1, B0: 1, Lo: -1, Hi: 2})
	th = []float64{0.4, 2.25}
	sum = 0
	const h = 1e-3
	for x := -20.0; x <= 20; x += h {
		sum += h * math.Exp(nig.RecordLogLik(th, []float64{x}))
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("normal density integrates to %v", sum)
	}
	d, _ = draws(nDraws, 1, func(x []float64) error { nig.SampleRecord(r, th, rec); x[0] = rec[0]; return nil })
	moments(t, "normal records", d[0], 0.4, 2.25)

	pos, _ := NewNormalNIG(NormalNIGConfig{K0: 1, A0: 1, B0: 1, Lo: 1, Hi: 3})
	neg, _ := NewNormalNIG(NormalNIGConfig{K0: 1, A0: 1, B0: 1, Lo: -3, Hi: -1.5})
	mid, _ := NewNormalNIG(NormalNIGConfig{K0: 1, A0: 1, B0: 1, Lo: -0.2, Hi: 0.2})
	const n = 7
	for _, c := range []struct {
		name string
		m    simulate.RecordModel
		sens func(int) (float64, error)
		grid []float64
	}{
		{"Poisson", pg, pg.L1Sensitivity, []float64{-3, 0, 1, 2, 3, 4, 5, 9, 100}},
		{"categorical", cd, cd.L1Sensitivity, []float64{-1, 0, 0.5, 1, 2, 3, 7}},
		{"normal", nig, nig.L1Sensitivity, []float64{-5, -1, -0.5, 0, 0.3, 1, 1.9, 2, 7}},
		{"normal, positive bounds", pos, pos.L1Sensitivity, []float64{0.5, 1, 2, 3, 4}},
		{"normal, negative bounds", neg, neg.L1Sensitivity, []float64{-4, -3, -2, -1.5, -1, 0}},
		{"normal, inside (-1/2, 1/2)", mid, mid.L1Sensitivity, []float64{-0.3, -0.2, 0, 0.1, 0.2, 0.4}},
	} {
		cdim := c.m.ContribDim()
		ta, tb := make([]float64, cdim), make([]float64, cdim)
		worst := 0.0
		for _, a := range c.grid {
			for _, b := range c.grid {
				c.m.Contribution([]float64{a}, ta)
				c.m.Contribution([]float64{b}, tb)
				l1 := 0.0
				for k := range ta {
					l1 += math.Abs(ta[k] - tb[k])
				}
				worst = max(worst, l1/n)
			}
		}
		got, err := c.sens(n)
		if err != nil || math.Abs(got-worst) > 1e-12 {
			t.Errorf("%s: L1Sensitivity(%d) = %v, %v; largest change over the grid %v", c.name, n, got, err, worst)
		}
	}
}

// TestBadInput feeds invalid configurations and θ-step arguments to every
// model, labelled by category (testutil.RunBadInput: no panic, the same
// outcome twice): each call returns an error wrapping simulate.ErrInvalid
// that names the field or argument (a bad θ: simulate.ErrInvalidTheta),
// and a model used without its constructor reports it (accessors return
// zero, LogDensity NaN).
func TestBadInput(t *testing.T) {
	nan, inf, sub := math.NaN(), math.Inf(1), 0x1p-1070
	pg, _ := NewPoissonGamma(PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 5})
	cd, _ := NewCategoricalDirichlet(CategoricalDirichletConfig{Alpha: []float64{1, 1}})
	nig, _ := NewNormalNIG(NormalNIGConfig{K0: 1, A0: 1, B0: 1, Lo: 0, Hi: 1})
	second := func(_ any, err error) error { return err }
	r := newRand(4)
	th1, th2 := make([]float64, 1), make([]float64, 2)
	named := func(want string, f func() error) func() error {
		return func() error {
			err := f()
			if err != nil && !strings.Contains(err.Error(), want) {
				return fmt.Errorf("error %q does not name %s", err, want)
			}
			return err
		}
	}
	theta := func(want error, f func() error) func() error {
		return func() error {
			err := f()
			if err != nil && !errors.Is(err, want) {
				return fmt.Errorf("error %q does not wrap %v", err, want)
			}
			return err
		}
	}
	check := func(ok bool, what string) func() error {
		return func() error {
			if !ok {
				return errors.New(what)
			}
			return nil
		}
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "zerovalue", Name: "gamma shape", Err: named("PoissonGammaConfig.Shape", func() error { return second(NewPoissonGamma(PoissonGammaConfig{Rate: 1, MaxCount: 1})) })},
		{Category: "nan", Name: "gamma rate", Err: named("PoissonGammaConfig.Rate", func() error { return second(NewPoissonGamma(PoissonGammaConfig{Shape: 1, Rate: nan, MaxCount: 1})) })},
		{Category: "inf", Name: "max count", Err: named("PoissonGammaConfig.MaxCount", func() error { return second(NewPoissonGamma(PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: inf})) })},
		{Category: "huge", Name: "max count 2^41", Err: named("PoissonGammaConfig.MaxCount", func() error {
			return second(NewPoissonGamma(PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 1 << 41}))
		})},
		{Category: "empty", Name: "Dirichlet alpha", Err: named("CategoricalDirichletConfig.Alpha", func() error { return second(NewCategoricalDirichlet(CategoricalDirichletConfig{})) })},
		{Category: "nonpositive", Name: "Dirichlet alpha[1]", Err: named("CategoricalDirichletConfig.Alpha[1]", func() error {
			return second(NewCategoricalDirichlet(CategoricalDirichletConfig{Alpha: []float64{1, -1}}))
		})},
		{Category: "nan", Name: "NIG M0", Err: named("NormalNIGConfig.M0", func() error { return second(NewNormalNIG(NormalNIGConfig{M0: nan, K0: 1, A0: 1, B0: 1, Lo: 0, Hi: 1})) })},
		{Category: "zerovalue", Name: "NIG K0", Err: named("NormalNIGConfig.K0", func() error { return second(NewNormalNIG(NormalNIGConfig{A0: 1, B0: 1, Lo: 0, Hi: 1})) })},
		{Category: "subnormal", Name: "NIG A0", Err: named("NormalNIGConfig.A0", func() error { return second(NewNormalNIG(NormalNIGConfig{K0: 1, A0: sub, B0: 1, Lo: 0, Hi: 1})) })},
		{Category: "nonpositive", Name: "NIG B0", Err: named("NormalNIGConfig.B0", func() error { return second(NewNormalNIG(NormalNIGConfig{K0: 1, A0: 1, B0: -2, Lo: 0, Hi: 1})) })},
		{Category: "zerovalue", Name: "NIG bounds", Err: named("NormalNIGConfig.Lo", func() error { return second(NewNormalNIG(NormalNIGConfig{K0: 1, A0: 1, B0: 1})) })},
		{Category: "huge", Name: "NIG bound 1e200", Err: named("NormalNIGConfig.Hi", func() error { return second(NewNormalNIG(NormalNIGConfig{K0: 1, A0: 1, B0: 1, Lo: 0, Hi: 1e200})) })},
		{Category: "nil", Name: "θ-step generator", Err: named("r is nil", func() error { return pg.SampleTheta(nil, []float64{1}, 1, th1) })},
		{Category: "nonpositive", Name: "θ-step n = 0", Err: named("n must be", func() error { return pg.SampleTheta(r, nil, 0, th1) })},
		{Category: "mismatched", Name: "θ-step records length", Err: named("records must have length", func() error { return cd.SampleTheta(r, []float64{1, 0}, 3, th2) })},
		{Category: "mismatched", Name: "θ-step theta length", Err: named("theta must have length", func() error { return nig.SampleTheta(r, []float64{1}, 1, th1) })},
		{Category: "inf", Name: "θ-step record", Err: named("records[1] must be finite", func() error { return nig.SampleTheta(r, []float64{1, inf}, 2, th2) })},
		{Category: "mismatched", Name: "θ-step fractional count", Err: named("records[0] must be a non-negative integer", func() error { return pg.SampleTheta(r, []float64{1.5}, 1, th1) })},
		{Category: "mismatched", Name: "θ-step category 2 of 2", Err: named("records[1] must be a category", func() error { return cd.SampleTheta(r, []float64{0, 2}, 2, th2) })},
		{Category: "huge", Name: "θ-step records overflow", Err: named("overflow", func() error { return nig.SampleTheta(r, []float64{1e300, -1e300}, 2, th2) })},
		{Category: "nonpositive", Name: "sensitivity n = 0", Err: named("n must be", func() error { return second(nig.L1Sensitivity(0)) })},
		{Category: "zerovalue", Name: "NIG θ-step", Err: named("without its constructor", func() error { return (&NormalNIG{}).SampleTheta(r, []float64{1}, 1, th2) })},
		{Category: "zerovalue", Name: "Dirichlet CheckParam", Err: named("without its constructor", func() error { return (&CategoricalDirichlet{}).CheckParam(th2) })},
		{Category: "nil", Name: "Poisson sensitivity", Err: named("without its constructor", func() error { return second((*PoissonGamma)(nil).L1Sensitivity(3)) })},
		{Category: "nonpositive", Name: "λ = 0", Err: theta(simulate.ErrInvalidTheta, func() error { return pg.CheckParam([]float64{0}) })},
		{Category: "inf", Name: "λ = +Inf", Err: theta(simulate.ErrInvalidTheta, func() error { return pg.CheckParam([]float64{inf}) })},
		{Category: "mismatched", Name: "λ of length 2", Err: theta(simulate.ErrInvalidTheta, func() error { return pg.CheckParam([]float64{1, 1}) })},
		{Category: "mismatched", Name: "p off the simplex", Err: theta(simulate.ErrInvalidTheta, func() error { return cd.CheckParam([]float64{0.5, 0.6}) })},
		{Category: "nonpositive", Name: "negative p", Err: theta(simulate.ErrInvalidTheta, func() error { return cd.CheckParam([]float64{-0.5, 1.5}) })},
		{Category: "nonpositive", Name: "σ² = 0", Err: theta(simulate.ErrInvalidTheta, func() error { return nig.CheckParam([]float64{0, 0}) })},
		{Category: "nan", Name: "μ NaN", Err: theta(simulate.ErrInvalidTheta, func() error { return nig.CheckParam([]float64{nan, 1}) })},
		{Category: "zerovalue", Name: "accessors", Check: check((&PoissonGamma{}).Dim() == 0 && (&CategoricalDirichlet{}).ContribDim() == 0 &&
			(&NormalNIG{}).Config() == NormalNIGConfig{}, "a zero model reports a dimension or a configuration")},
		{Category: "nil", Name: "LogDensity", Check: check(math.IsNaN((*NormalNIG)(nil).LogDensity([]float64{0, 1})) &&
			math.IsNaN((*PoissonGamma)(nil).LogDensity([]float64{1})) && math.IsNaN((&CategoricalDirichlet{}).LogDensity([]float64{0.5, 0.5})), "LogDensity of an unbuilt model is not NaN")},
		{Category: "nan", Name: "LogDensity NaN θ", Check: check(math.IsNaN(pg.LogDensity([]float64{nan})) && math.IsNaN(nig.LogDensity([]float64{nan, 1})), "LogDensity of a NaN θ is not NaN")},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}

// TestNormalSensitivityDense compares NormalNIG.L1Sensitivity with a
// search over 801² pairs of values in [Lo, Hi] for 30 random bounds: the
// formula must bound every pair (it is a sensitivity) and be attained
// within the grid's resolution (it is the supremum; the change moves by
// at most (1 + 2·max|c|)·2·step between neighbouring grid pairs).
func TestNormalSensitivityDense(t *testing.T) {
	r := newRand(5)
	for range 30 {
		lo, hi := -3+6*r.Float64(), -3+6*r.Float64()
		if lo > hi {
			lo, hi = hi, lo
		}
		if hi-lo < 1e-3 {
			continue
		}
		m, err := NewNormalNIG(NormalNIGConfig{K0: 1, A0: 1, B0: 1, Lo: lo, Hi: hi})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := m.L1Sensitivity(1)
		const k = 800
		step := (hi - lo) / k
		worst := 0.0
		for i := range k + 1 {
			a := lo + float64(i)*step
			for j := range k + 1 {
				b := lo + float64(j)*step
				worst = max(worst, math.Abs(a-b)*(1+math.Abs(a+b)))
			}
		}
		tol := (1 + 2*max(math.Abs(lo), math.Abs(hi))) * 2 * step
		if worst > got*(1+1e-12) || worst < got-tol {
			t.Errorf("[%v, %v]: L1Sensitivity %v, grid maximum %v (resolution %v)", lo, hi, got, worst, tol)
		}
	}
}
