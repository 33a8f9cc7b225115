package conjugate

import (
	"math"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestSamplePosterior checks the conjugate updates from sufficient
// statistics, with a non-integer sum and non-integer counts (as sanitized
// statistics are), against the exact means and variances of
// Gamma(Shape + sum, Rate + n) and Dirichlet(Alpha + counts) (moments:
// 5-SE z-tests, 8 of them, total false alarm about 5e-6).
func TestSamplePosterior(t *testing.T) {
	r := newRand(6)
	pg, _ := NewPoissonGamma(PoissonGammaConfig{Shape: 1.5, Rate: 0.5, MaxCount: 10})
	d, err := draws(nDraws, 1, func(th []float64) error { return pg.SamplePosterior(r, 12.25, 6, th) })
	if err != nil {
		t.Fatal(err)
	}
	a, b := 1.5+12.25, 0.5+6
	moments(t, "gamma posterior", d[0], a/b, a/(b*b))
	d, err = draws(nDraws, 1, func(th []float64) error { return pg.SamplePosterior(r, 0, 0, th) })
	if err != nil {
		t.Fatal(err)
	}
	moments(t, "gamma posterior with n = 0 (the prior)", d[0], 3, 6)

	cd, _ := NewCategoricalDirichlet(CategoricalDirichletConfig{Alpha: []float64{0.5, 1, 2}})
	counts := []float64{2.5, 0, 7.25}
	d, err = draws(nDraws, 3, func(th []float64) error { return cd.SamplePosterior(r, counts, th) })
	if err != nil {
		t.Fatal(err)
	}
	post, a0 := []float64{3, 1, 9.25}, 13.25
	for k, ak := range post {
		moments(t, "Dirichlet posterior p_"+string(rune('0'+k)), d[k], ak/a0, ak*(a0-ak)/(a0*a0*(a0+1)))
	}
}

// TestNIGUpdate checks NIG.Update in closed form: updating with two
// batches of records in turn gives the posterior of updating with all of
// them at once (within 1e-12 relative; it fails if any of the four
// updated parameters is wrong), the reference prior K = 0, A = −1/2,
// B = 0 gives (x̄, n, (n − 1)/2, ss/2) exactly, and NormalNIG's Prior is
// its configuration's.
func TestNIGUpdate(t *testing.T) {
	stats := func(x []float64) (int, float64, float64) {
		m := 0.0
		for _, v := range x {
			m += v
		}
		m /= float64(len(x))
		ss := 0.0
		for _, v := range x {
			ss += (v - m) * (v - m)
		}
		return len(x), m, ss
	}
	x1 := []float64{0.3, 2.5, -1.7, 1.1}
	x2 := []float64{0.8, 3.2, 0.0, 1.9, -0.4, 1.6, 4.4}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(a), math.Abs(b)) }
	for _, prior := range []NIG{{M: 1, K: 2, A: 3, B: 4}, {M: -3, K: 0.1, A: 0.5, B: 0.01}, {A: -0.5}} {
		n1, m1, s1 := stats(x1)
		n2, m2, s2 := stats(x2)
		n, m, s := stats(append(append([]float64(nil), x1...), x2...))
		p1, err := prior.Update(n1, m1, s1)
		if err != nil {
			t.Fatal(err)
		}
		seq, err := p1.Update(n2, m2, s2)
		if err != nil {
			t.Fatal(err)
		}
		all, err := prior.Update(n, m, s)
		if err != nil {
			t.Fatal(err)
		}
		if !close(seq.M, all.M) || !close(seq.K, all.K) || !close(seq.A, all.A) || !close(seq.B, all.B) {
			t.Errorf("prior %+v: updating in two batches gives %+v, at once %+v", prior, seq, all)
		}
	}
	n, m, s := stats(x2)
	ref, err := NIG{A: -0.5}.Update(n, m, s)
	if err != nil || ref != (NIG{M: m, K: float64(n), A: float64(n-1) / 2, B: s / 2}) {
		t.Errorf("reference prior update: %+v, %v", ref, err)
	}
	nn, _ := NewNormalNIG(NormalNIGConfig{M0: 0.5, K0: 2, A0: 3, B0: 4, Lo: 0, Hi: 1})
	if p := nn.Prior(); p != (NIG{M: 0.5, K: 2, A: 3, B: 4}) {
		t.Errorf("NormalNIG.Prior() = %+v", p)
	}
}

// TestNIGSample checks NIG.Sample against the exact moments of σ² ~
// InvGamma(5, 8) (mean 2, variance 64/48) and of μ, Student-t with mean
// M = 1 and variance B/(K(A − 1)) = 1 (moments: 5-SE z-tests, 4, total
// false alarm about 3e-6), and that B = 0 gives σ² = 0 and μ = M.
func TestNIGSample(t *testing.T) {
	r := newRand(7)
	p := NIG{M: 1, K: 2, A: 5, B: 8}
	d, err := draws(nDraws, 2, func(th []float64) error { return p.Sample(r, th) })
	if err != nil {
		t.Fatal(err)
	}
	moments(t, "NIG μ", d[0], 1, 1)
	moments(t, "NIG σ²", d[1], 2, 64.0/48)
	th := make([]float64, 2)
	if err := (NIG{M: -2.5, K: 3, A: 1, B: 0}).Sample(r, th); err != nil || th[0] != -2.5 || th[1] != 0 {
		t.Errorf("B = 0: θ = %v, %v; want (-2.5, 0)", th, err)
	}
}

// TestPosteriorBadInput feeds invalid arguments to the updates from
// sufficient statistics (testutil.RunBadInput): each returns an error
// wrapping simulate.ErrInvalid that names the argument or field.
func TestPosteriorBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	pg, _ := NewPoissonGamma(PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 5})
	cd, _ := NewCategoricalDirichlet(CategoricalDirichletConfig{Alpha: []float64{1, 1}})
	r := newRand(8)
	th1, th2 := make([]float64, 1), make([]float64, 2)
	ok := NIG{M: 0, K: 1, A: 1, B: 1}
	named := func(want string, f func() error) func() error {
		return func() error {
			err := f()
			if err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s", err, want)
			}
			return err
		}
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nil", Name: "gamma generator", Err: named("r is nil", func() error { return pg.SamplePosterior(nil, 1, 1, th1) })},
		{Category: "nonpositive", Name: "gamma sum -1", Err: named("sum must be", func() error { return pg.SamplePosterior(r, -1, 1, th1) })},
		{Category: "nan", Name: "gamma sum", Err: named("sum must be", func() error { return pg.SamplePosterior(r, nan, 1, th1) })},
		{Category: "inf", Name: "gamma sum", Err: named("sum must be", func() error { return pg.SamplePosterior(r, inf, 1, th1) })},
		{Category: "nonpositive", Name: "gamma n -1", Err: named("n must be", func() error { return pg.SamplePosterior(r, 1, -1, th1) })},
		{Category: "huge", Name: "gamma n 2^41", Err: named("n must be", func() error { return pg.SamplePosterior(r, 1, 1<<41, th1) })},
		{Category: "mismatched", Name: "gamma theta", Err: named("theta must have length 1", func() error { return pg.SamplePosterior(r, 1, 1, th2) })},
		{Category: "zerovalue", Name: "gamma model", Err: named("without its constructor", func() error { return (&PoissonGamma{}).SamplePosterior(r, 1, 1, th1) })},
		{Category: "nil", Name: "Dirichlet generator", Err: named("r is nil", func() error { return cd.SamplePosterior(nil, []float64{1, 1}, th2) })},
		{Category: "mismatched", Name: "Dirichlet counts", Err: named("counts must have length 2", func() error { return cd.SamplePosterior(r, []float64{1}, th2) })},
		{Category: "mismatched", Name: "Dirichlet theta", Err: named("theta must have length 2", func() error { return cd.SamplePosterior(r, []float64{1, 1}, th1) })},
		{Category: "nonpositive", Name: "Dirichlet count", Err: named("counts[1]", func() error { return cd.SamplePosterior(r, []float64{1, -0.5}, th2) })},
		{Category: "inf", Name: "Dirichlet count", Err: named("counts[0]", func() error { return cd.SamplePosterior(r, []float64{inf, 1}, th2) })},
		{Category: "nan", Name: "Dirichlet count", Err: named("counts[0]", func() error { return cd.SamplePosterior(r, []float64{nan, 1}, th2) })},
		{Category: "nil", Name: "Dirichlet model", Err: named("without its constructor", func() error { return (*CategoricalDirichlet)(nil).SamplePosterior(r, []float64{1, 1}, th2) })},
		{Category: "nan", Name: "NIG M", Err: named("NIG.M", func() error { return NIG{M: nan, K: 1, A: 1, B: 1}.Validate() })},
		{Category: "zerovalue", Name: "NIG K", Err: named("NIG.K", func() error { return NIG{A: 1, B: 1}.Validate() })},
		{Category: "nonpositive", Name: "NIG A", Err: named("NIG.A", func() error { return NIG{K: 1, A: -0.5}.Validate() })},
		{Category: "inf", Name: "NIG B", Err: named("NIG.B", func() error { return NIG{K: 1, A: 1, B: inf}.Validate() })},
		{Category: "nonpositive", Name: "NIG update n 0", Err: named("n must be", func() error { _, err := ok.Update(0, 0, 0); return err })},
		{Category: "nan", Name: "NIG update mean", Err: named("mean must be", func() error { _, err := ok.Update(2, nan, 0); return err })},
		{Category: "nonpositive", Name: "NIG update ss", Err: named("ss must be", func() error { _, err := ok.Update(2, 0, -1); return err })},
		{Category: "nonpositive", Name: "NIG update prior K", Err: named("the prior", func() error { _, err := NIG{K: -1, A: 1}.Update(2, 0, 1); return err })},
		{Category: "mismatched", Name: "reference prior and one record", Err: named("NIG.A", func() error { _, err := NIG{A: -0.5}.Update(1, 0, 0); return err })},
		{Category: "huge", Name: "NIG update overflow", Err: named("NIG.B", func() error { _, err := ok.Update(2, 1e300, 1e300); return err })},
		{Category: "nil", Name: "NIG sample generator", Err: named("r is nil", func() error { return ok.Sample(nil, th2) })},
		{Category: "mismatched", Name: "NIG sample theta", Err: named("theta must have length 2", func() error { return ok.Sample(r, th1) })},
		{Category: "zerovalue", Name: "NIG sample", Err: named("NIG.K", func() error { return NIG{}.Sample(r, th2) })},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
	// An improper posterior is an argument error of the documented form,
	// "simulate: invalid argument: NIG.Update: …".
	if _, err := (NIG{A: -0.5}).Update(1, 0, 0); err == nil || !strings.HasPrefix(err.Error(), "simulate: invalid argument: NIG.Update: ") {
		t.Errorf("improper posterior: got %v, want an error reading \"simulate: invalid argument: NIG.Update: …\"", err)
	}
}
