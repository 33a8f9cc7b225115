package synth

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate/conjugate"
)

// Distributional tests use fixed seeds and reject at p < 1e-4, so each
// has a false-alarm rate of 1e-4 if the seed were random.
const alarm = 1e-4

func binaryData(r *rand.Rand, n int, p float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		if r.Float64() < p {
			x[i] = 1
		}
	}
	return x
}

// newAcct returns a seeded (Reproducible) releaser charging a new
// accountant with total eps.
func newAcct(t *testing.T, eps float64) Releaser {
	t.Helper()
	a, err := mechanism.NewAccountant(mechanism.Budget{Epsilon: eps})
	if err != nil {
		t.Fatal(err)
	}
	return Releaser{Accountant: a, Reproducible: true}
}

func TestModipsBudgetAddsUp(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := NewSSS(bb, nil, BIT)
	x := binaryData(r, 200, 0.3)
	for _, m := range []int{1, 3, 10, 7} {
		rel, err := Modips(context.Background(), r, Single(sss), x, Config{Reproducible: true, M: m, Epsilon: 0.7})
		if err != nil {
			t.Fatal(err)
		}
		if len(rel.Sets) != m || len(rel.Sets[0]) != 200 {
			t.Fatalf("m=%d: %d sets", m, len(rel.Sets))
		}
		if math.Abs(rel.Spent.Epsilon-0.7) > 1e-12 || math.Abs(rel.PerSet.Epsilon*float64(m)-0.7) > 1e-12 {
			t.Errorf("m=%d: spent %v per set %v", m, rel.Spent, rel.PerSet)
		}
	}
}

// underspender charges only half of its budget: Modips must refuse it.
type underspender struct{ BetaBernoulli }

func (u *underspender) Sanitize(r *rand.Rand, x []float64, eps float64, acct Releaser) (Posterior, error) {
	s := &SSS{Model: &u.BetaBernoulli}
	return s.Sanitize(r, x, eps/2, acct)
}

func TestModipsRejectsBudgetMismatch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 3))
	x := binaryData(r, 50, 0.5)
	_, err := Modips(context.Background(), r, Single(&underspender{BetaBernoulli{cfg: BetaBernoulliConfig{Alpha: 1, Beta: 1}}}), x, Config{Reproducible: true, M: 2, Epsilon: 1})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "budget") {
		t.Fatalf("underspending model: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 4))
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := NewSSS(bb, nil, BIT)
	x := binaryData(r, 20, 0.5)
	ctx := context.Background()
	for _, cfg := range []Config{
		{M: 2, Epsilon: 0}, {M: 2, Epsilon: -1}, {M: 2, Epsilon: math.NaN()}, {M: 2, Epsilon: math.Inf(1)},
		{M: 0, Epsilon: 1}, {M: -3, Epsilon: 1}, {M: 2, Epsilon: 1, Epsilon0: 0.5}, {M: 2, Epsilon: 1, N: -1},
		{M: 2, Epsilon: 1, Nested: -1},
	} {
		if _, err := Modips(ctx, r, Single(sss), x, cfg); !errors.Is(err, ErrInvalid) {
			t.Errorf("config %+v: %v", cfg, err)
		}
	}
	if _, err := Modips(ctx, r, Single(sss), nil, Config{Reproducible: true, M: 1, Epsilon: 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty data: %v", err)
	}
	if _, err := Modips(ctx, r, Single(sss), []float64{0, 2}, Config{Reproducible: true, M: 1, Epsilon: 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("non-binary data: %v", err)
	}
	if _, err := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: 4, Hi: 4, RecordBounding: BIT}); !errors.Is(err, ErrInvalid) {
		t.Errorf("c0 = c1: %v", err)
	}
	if _, err := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: 5, Hi: 4, RecordBounding: BIT}); !errors.Is(err, ErrInvalid) {
		t.Errorf("c0 > c1: %v", err)
	}
	if _, err := NewGaussianNIG(GaussianNIGConfig{Lo: 5, Hi: -4, RecordBounding: BIT}); !errors.Is(err, ErrInvalid) {
		t.Errorf("NIG c0 > c1: %v", err)
	}
	if _, err := bb.Statistics(0); !errors.Is(err, ErrInvalid) {
		t.Errorf("n = 0: %v", err)
	}
	if _, _, err := sss.Mechanism(0, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("SSS n = 0: %v", err)
	}
	nig, _ := NewGaussianNIG(GaussianNIGConfig{Lo: -4, Hi: 4, RecordBounding: BIT})
	for _, w := range [][]float64{{0.5, 0.4}, {1, 0}, {-0.5, 1.5}, {0.5, math.NaN()}} {
		if _, err := NewSSS(nig, w, BIT); !errors.Is(err, ErrInvalid) {
			t.Errorf("weights %v: %v", w, err)
		}
	}
	if _, err := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 0, Beta: 1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("beta prior 0: %v", err)
	}
	if _, err := NewPoissonGamma(conjugate.PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 0}); !errors.Is(err, ErrInvalid) {
		t.Errorf("count bound 0: %v", err)
	}
	if _, err := NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{1}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("one category: %v", err)
	}
	if _, err := NewGrid([]float64{0}, []float64{0}, []int{3}); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty grid: %v", err)
	}
	// Two candidates need ε0 in (0, ε), a utility and a sensitivity.
	sel := Selection{Candidates: []Model{sss, sss}, Utility: func(int, []float64) float64 { return 0 }, Sensitivity: 1}
	for _, e0 := range []float64{0, 1, 2, -0.1} {
		if _, err := Modips(ctx, r, sel, x, Config{Reproducible: true, M: 2, Epsilon: 1, Epsilon0: e0}); !errors.Is(err, ErrInvalid) {
			t.Errorf("epsilon0 %v: %v", e0, err)
		}
	}
	sel.Sensitivity = 0
	if _, err := Modips(ctx, r, sel, x, Config{Reproducible: true, M: 2, Epsilon: 1, Epsilon0: 0.5}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero sensitivity: %v", err)
	}
}

func TestModipsDeterministic(t *testing.T) {
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := NewSSS(bb, nil, BIT)
	x := binaryData(rand.New(rand.NewPCG(5, 5)), 100, 0.4)
	run := func() [][]float64 {
		rel, err := Modips(context.Background(), rand.New(rand.NewPCG(9, 9)), Single(sss), x, Config{Reproducible: true, M: 4, Epsilon: 1})
		if err != nil {
			t.Fatal(err)
		}
		return rel.Sets
	}
	a, b := run(), run()
	for j := range a {
		if !slices.Equal(a[j], b[j]) {
			t.Fatal("same seed gave different releases")
		}
	}
}

func TestModelSelection(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	good, _ := NewSSS(bb, nil, BIT)
	gm, _ := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: 0, Hi: 1, RecordBounding: BIT})
	bad, _ := NewSSS(gm, nil, BIT)
	x := binaryData(r, 100, 0.5)
	// Candidate 0 has utility 0 and candidate 1 utility −100 (sensitivity
	// 1): with ε0 = 1, Pr(select 1) = e^{-50}/(1 + e^{-50}).
	sel := Selection{Candidates: []Model{good, bad}, Sensitivity: 1,
		Utility: func(i int, _ []float64) float64 { return -100 * float64(i) }}
	for range 20 {
		rel, err := Modips(context.Background(), r, sel, x, Config{Reproducible: true, M: 3, Epsilon: 2, Epsilon0: 1})
		if err != nil {
			t.Fatal(err)
		}
		if rel.Model != 0 {
			t.Fatalf("selected model %d", rel.Model)
		}
		if math.Abs(rel.Spent.Epsilon-2) > 1e-12 || math.Abs(rel.PerSet.Epsilon-1.0/3) > 1e-12 {
			t.Fatalf("spent %v, per set %v", rel.Spent, rel.PerSet)
		}
	}
	// Equal utilities: both are chosen about equally often.
	sel.Utility = func(int, []float64) float64 { return 0 }
	sel.Candidates = []Model{good, good}
	c := 0
	for range 400 {
		k, err := selectModel(r, sel, x, 1, newAcct(t, 1))
		if err != nil {
			t.Fatal(err)
		}
		c += k
	}
	// Binomial(400, 1/2): |c − 200| > 80 has probability < 1e-4.
	if c < 120 || c > 280 {
		t.Errorf("equal utilities chose candidate 1 %d/400 times", c)
	}
}

// laplaceCDF is the CDF of Laplace(mu, b).
func laplaceCDF(x, mu, b float64) float64 {
	if x < mu {
		return 0.5 * math.Exp((x-mu)/b)
	}
	return 1 - 0.5*math.Exp(-(x-mu)/b)
}

func TestSSSLaplaceRelease(t *testing.T) {
	// n = 2000 with n1 = 1000: the BIT bounds [0, 2000] are never hit, so
	// the released n1* is Laplace(1000, 1/ε).
	r := rand.New(rand.NewPCG(3, 1))
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := NewSSS(bb, nil, BIT)
	x := make([]float64, 2000)
	for i := range 1000 {
		x[i] = 1
	}
	const eps = 0.5
	out := make([]float64, 4000)
	for i := range out {
		s, _, err := sss.SanitizeStats(r, x, eps, newAcct(t, eps))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = s[0]
	}
	_, p := stats.KSOneSample(out, func(v float64) float64 { return laplaceCDF(v, 1000, 1/eps) })
	if p < alarm {
		t.Errorf("sanitized n1 not Laplace(1000, 2): KS p = %v", p)
	}
	// Truncation: n = 10, n1 = 3, budget ε = 0.4, inner Laplace(3, 1/0.2)
	// truncated to [0, 10].
	x = []float64{1, 1, 1, 0, 0, 0, 0, 0, 0, 0}
	tr, _ := NewSSS(bb, nil, Truncation)
	for i := range out {
		s, _, err := tr.SanitizeStats(r, x, 0.4, newAcct(t, 0.4))
		if err != nil {
			t.Fatal(err)
		}
		out[i] = s[0]
	}
	lo, hi := laplaceCDF(0, 3, 5), laplaceCDF(10, 3, 5)
	_, p = stats.KSOneSample(out, func(v float64) float64 { return (laplaceCDF(v, 3, 5) - lo) / (hi - lo) })
	if p < alarm {
		t.Errorf("truncated release: KS p = %v", p)
	}
	// BIT at small n: atoms at 0 and n with the Laplace tail masses.
	bitCount := 0
	for range 4000 {
		s, _, _ := sss.SanitizeStats(r, x, 0.4, newAcct(t, 0.4))
		if s[0] == 0 {
			bitCount++
		}
	}
	want := laplaceCDF(0, 3, 2.5) * 4000
	if math.Abs(float64(bitCount)-want) > 4*math.Sqrt(want) {
		t.Errorf("BIT atom at 0: %d, expected %.0f", bitCount, want)
	}
}

func TestBITBias(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	// BIT pushes mass from beyond the bounds onto them: for n1 = 10 of
	// n = 100 and Laplace scale b = 10 (ε = 0.1),
	// E[clamp(n1 + L, 0, n)] = n1 + (b/2)e^{−n1/b} − (b/2)e^{−(n−n1)/b}.
	// This is the upward bias of the m-study at p = 0.1, n = 100, m = 10.
	r := rand.New(rand.NewPCG(3, 9))
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := NewSSS(bb, nil, BIT)
	x := make([]float64, 100)
	for i := range 10 {
		x[i] = 1
	}
	const k = 20000
	sum := 0.0
	for range k {
		s, _, err := sss.SanitizeStats(r, x, 0.1, newAcct(t, 0.1))
		if err != nil {
			t.Fatal(err)
		}
		sum += s[0]
	}
	want := 10 + 5*math.Exp(-1) - 5*math.Exp(-9)
	// sd of the mean ≤ 10·√2/√k ≈ 0.1; allow 4 sd.
	if got := sum / k; math.Abs(got-want) > 0.4 {
		t.Errorf("mean BIT release %v, want %v", got, want)
	}
}

func TestBetaPosteriorOrientation(t *testing.T) {
	// With a negligible privacy cost, p* ~ Beta(n1 + a, n0 + b): n1 = 30
	// of n = 40 and prior Beta(2, 5) give Beta(32, 15), mean 0.68. The
	// paper's printed Beta(n0 + a, n1 + b) would have mean 0.32.
	r := rand.New(rand.NewPCG(4, 1))
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 2, Beta: 5})
	sss, _ := NewSSS(bb, nil, BIT)
	x := make([]float64, 40)
	for i := range 30 {
		x[i] = 1
	}
	draws := make([]float64, 3000)
	th := make([]float64, 1)
	for i := range draws {
		post, err := sss.Sanitize(r, x, 1e9, newAcct(t, 1e9))
		if err != nil {
			t.Fatal(err)
		}
		post.Sample(r, th)
		draws[i] = th[0]
	}
	_, p := stats.KSOneSample(draws, func(v float64) float64 { return special.BetaInc(32, 15, v) })
	if p < alarm {
		t.Errorf("posterior not Beta(32, 15): KS p = %v", p)
	}
}

func TestNIGPosterior(t *testing.T) {
	// Negligible noise: σ² ~ IG((n−1)/2, (n−1)s²/2) and μ − x̄ ~ s/√n·t_{n−1}.
	r := rand.New(rand.NewPCG(4, 2))
	nig, _ := NewGaussianNIG(GaussianNIGConfig{Lo: -4, Hi: 4, RecordBounding: BIT})
	x := []float64{0.3, -1.2, 0.8, 2.1, -0.4, 0.0, 1.1, -0.7}
	n := float64(len(x))
	s := make([]float64, 2)
	nig.Stats(x, s)
	sss, _ := NewSSS(nig, []float64{0.5, 0.5}, BIT)
	mus := make([]float64, 3000)
	sig := make([]float64, 3000)
	th := make([]float64, 2)
	for i := range mus {
		post, err := sss.Sanitize(r, x, 1e10, newAcct(t, 1e10))
		if err != nil {
			t.Fatal(err)
		}
		post.Sample(r, th)
		mus[i] = (th[0] - s[0]) / math.Sqrt(s[1]/n)
		sig[i] = th[1]
	}
	_, p := stats.KSOneSample(mus, func(v float64) float64 { return special.StudentTCDF(v, n-1) })
	if p < alarm {
		t.Errorf("μ marginal not t_{n−1}: KS p = %v", p)
	}
	a, b := (n-1)/2, (n-1)*s[1]/2
	_, p = stats.KSOneSample(sig, func(v float64) float64 { return special.GammaQ(a, b/v) })
	if p < alarm {
		t.Errorf("σ² not inverse-gamma: KS p = %v", p)
	}
	if w := nig.CommunalWeight(); math.Abs(w-1.0/9) > 1e-15 {
		t.Errorf("communal weight %v", w)
	}
}

func TestAllocationScales(t *testing.T) {
	nig, _ := NewGaussianNIG(GaussianNIGConfig{Lo: -4, Hi: 5, RecordBounding: BIT})
	const n, eps = 100, 1.0
	// Communal: both statistics get Laplace((9 + 81)/n / ε).
	c, _ := NewSSS(nig, nil, BIT)
	mc, _, err := c.Mechanism(n, eps)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(mc.Scale(0)-0.9) > 1e-12 || math.Abs(mc.Scale(1)-0.9) > 1e-12 {
		t.Errorf("communal scales %v %v, want 0.9", mc.Scale(0), mc.Scale(1))
	}
	// Individualized with w = 1/(1 + c1 − c0) reproduces communal (Remark 6a).
	w := nig.CommunalWeight()
	iv, _ := NewSSS(nig, []float64{w, 1 - w}, BIT)
	mi, _, _ := iv.Mechanism(n, eps)
	for i := range 2 {
		if math.Abs(mi.Scale(i)-mc.Scale(i)) > 1e-12 {
			t.Errorf("individualized at communal weight: scale %d = %v", i, mi.Scale(i))
		}
	}
	// Equal allocation: mean gets 0.09/0.5, variance 0.81/0.5.
	eq, _ := NewSSS(nig, []float64{0.5, 0.5}, BIT)
	me, _, _ := eq.Mechanism(n, eps)
	if math.Abs(me.Scale(0)-0.18) > 1e-12 || math.Abs(me.Scale(1)-1.62) > 1e-12 {
		t.Errorf("equal allocation scales %v %v", me.Scale(0), me.Scale(1))
	}
	// Multinomial communal uses the joint ℓ1 sensitivity 2.
	md, _ := NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{1, 1, 1, 1}})
	ms, _ := NewSSS(md, nil, BIT)
	mm, _, _ := ms.Mechanism(50, 0.5)
	if mm.Scale(3) != 4 {
		t.Errorf("multinomial scale %v, want 2/0.5", mm.Scale(3))
	}
}

func TestPoissonRecords(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 1))
	for _, lam := range []float64{0.7, 3.5, 9.99, 10, 25, 300} {
		const n = 20000
		kmax := int(lam + 8*math.Sqrt(lam) + 10)
		obs := make([]float64, kmax+1)
		recs := make([]float64, n)
		if err := (mustPoissonGamma(conjugate.PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 1})).Synthesize(r, []float64{lam}, recs); err != nil {
			t.Fatal(err)
		}
		for _, v := range recs {
			obs[min(int(v), kmax)]++
		}
		exp := make([]float64, kmax+1)
		for k := range exp {
			lg, _ := math.Lgamma(float64(k) + 1)
			exp[k] = n * math.Exp(-lam+float64(k)*math.Log(lam)-lg)
		}
		exp[kmax] += n * special.GammaP(float64(kmax)+1, lam) // P(K > kmax)
		// Pool sparse cells so every expected count is at least 5.
		var o, e []float64
		var co, ce float64
		for k := range exp {
			co += obs[k]
			ce += exp[k]
			if ce >= 5 {
				o, e = append(o, co), append(e, ce)
				co, ce = 0, 0
			}
		}
		o[len(o)-1] += co
		e[len(e)-1] += ce
		_, p, _ := stats.ChiSquareGOF(o, e, 0)
		if p < alarm {
			t.Errorf("Poisson(%v): chi-square p = %v", lam, p)
		}
	}
}

func TestConjugateModels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 1))
	ctx := context.Background()
	// Poisson–Gamma: posterior Gamma(a + Σx, rate b + n) at negligible noise.
	pg, _ := NewPoissonGamma(conjugate.PoissonGammaConfig{Shape: 2, Rate: 1, MaxCount: 20})
	x := []float64{3, 5, 2, 4, 6, 1, 25} // 25 is clamped to 20
	s := make([]float64, 1)
	if err := pg.Stats(x, s); err != nil || s[0] != 41 {
		t.Fatalf("poisson stats %v %v", s, err)
	}
	sss, _ := NewSSS(pg, nil, BIT)
	draws := make([]float64, 3000)
	th := make([]float64, 1)
	for i := range draws {
		post, _ := sss.Sanitize(r, x, 1e9, newAcct(t, 1e9))
		post.Sample(r, th)
		draws[i] = th[0]
	}
	_, p := stats.KSOneSample(draws, func(v float64) float64 { return special.GammaP(43, 8*v) })
	if p < alarm {
		t.Errorf("Poisson–Gamma posterior: KS p = %v", p)
	}
	if _, err := Modips(ctx, r, Single(sss), x, Config{Reproducible: true, M: 2, Epsilon: 1}); err != nil {
		t.Fatal(err)
	}
	// Multinomial–Dirichlet: synthetic category frequencies follow θ.
	md, _ := NewCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{1, 1, 1}})
	cats := make([]float64, 3000)
	for i := range cats {
		cats[i] = float64(i % 3)
	}
	for i := range 600 {
		cats[i] = 0
	}
	ms, _ := NewSSS(md, nil, BIT)
	rel, err := Modips(ctx, r, Single(ms), cats, Config{Reproducible: true, M: 3, Epsilon: 100})
	if err != nil {
		t.Fatal(err)
	}
	var c [3]float64
	for _, v := range rel.Sets[0] {
		c[int(v)]++
	}
	// True proportions 1400/3000, 800/3000, 800/3000; posterior and
	// sampling noise have sd ≈ 0.013.
	for k, want := range []float64{1400.0 / 3000, 800.0 / 3000, 800.0 / 3000} {
		if math.Abs(c[k]/3000-want) > 0.06 {
			t.Errorf("category %d frequency %v, want ≈ %v", k, c[k]/3000, want)
		}
	}
	if err := md.Stats([]float64{0, 3}, make([]float64, 3)); !errors.Is(err, ErrInvalid) {
		t.Errorf("category out of range: %v", err)
	}
}

func TestGaussianRecordsBounded(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	for _, b := range []Bounding{BIT, Truncation} {
		g, _ := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: -1, Hi: 2, RecordBounding: b})
		dst := make([]float64, 5000)
		if err := g.Synthesize(r, []float64{1.5}, dst); err != nil {
			t.Fatal(err)
		}
		atHi := 0
		for _, v := range dst {
			if v < -1 || v > 2 {
				t.Fatalf("%v: record %v out of bounds", b, v)
			}
			if v == 2 {
				atHi++
			}
		}
		if b == BIT && atHi == 0 || b == Truncation && atHi != 0 {
			t.Errorf("%v: %d records at the upper bound", b, atHi)
		}
		if b == Truncation {
			lo, hi := special.NormCDF(-2.5), special.NormCDF(0.5)
			_, p := stats.KSOneSample(dst, func(v float64) float64 { return (special.NormCDF(v-1.5) - lo) / (hi - lo) })
			if p < alarm {
				t.Errorf("truncated normal records: KS p = %v", p)
			}
		}
	}
}

func TestNestedModips(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 2))
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := NewSSS(bb, nil, BIT)
	x := binaryData(r, 100, 0.3)
	rel, err := Modips(context.Background(), r, Single(sss), x, Config{Reproducible: true, M: 3, Epsilon: 1, Nested: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(rel.Sets) != 12 || rel.T != 4 || math.Abs(rel.Spent.Epsilon-1) > 1e-12 {
		t.Fatalf("nested release: %d sets, t = %d, spent %v", len(rel.Sets), rel.T, rel.Spent)
	}
}

func TestGrid(t *testing.T) {
	g, err := NewGrid([]float64{0, -1}, []float64{1, 1}, []int{4, 2})
	if err != nil {
		t.Fatal(err)
	}
	if g.Cells() != 8 || math.Abs(g.Volume()-0.25) > 1e-15 {
		t.Fatalf("cells %d volume %v", g.Cells(), g.Volume())
	}
	x := make([]float64, 2)
	r := rand.New(rand.NewPCG(1, 1))
	for c := range g.Cells() {
		g.Center(c, x)
		if g.Locate(x) != c {
			t.Errorf("center of cell %d located in %d", c, g.Locate(x))
		}
		g.Uniform(r, c, x)
		if g.Locate(x) != c {
			t.Errorf("uniform draw of cell %d located in %d", c, g.Locate(x))
		}
	}
	if g.Locate([]float64{1, 1}) != 7 || g.Locate([]float64{1.1, 0}) != -1 {
		t.Error("boundary handling")
	}
}

func TestSiDDSelectionLaw(t *testing.T) {
	// 1-D grid of 8 cells on [-2, 2] for f = N(0.3, 0.5²); with A = 6 and
	// ε = 6 the exponent is ε/(4A) = 1/4: Pr(i) ∝ (f(c_i)·V)^{1/4}.
	g, _ := NewGrid([]float64{-2}, []float64{2}, []int{8})
	logf, _, err := MVNLogDensity([]float64{0.3}, []float64{0.25})
	if err != nil {
		t.Fatal(err)
	}
	const A, eps, n = 6.0, 6.0, 8000
	r := rand.New(rand.NewPCG(9, 1))
	obs := make([]float64, 8)
	th := make([]float64, 1)
	for range n {
		cp, err := SiDD(r, g, logf, A, 0, eps, newAcct(t, eps))
		if err != nil {
			t.Fatal(err)
		}
		cp.Sample(r, th)
		obs[g.Locate(th)]++
	}
	exp := make([]float64, 8)
	tot := 0.0
	for i := range exp {
		g.Center(i, th)
		exp[i] = math.Exp(eps / (4 * A) * (clampLog(logf(th), A) + math.Log(0.5)))
		tot += exp[i]
	}
	for i := range exp {
		exp[i] *= n / tot
	}
	_, p, _ := stats.ChiSquareGOF(obs, exp, 0)
	if p < alarm {
		t.Errorf("SiDD selection law: chi-square p = %v (obs %v exp %v)", p, obs, exp)
	}
}

func TestSiDDBivariate(t *testing.T) {
	// App. G: a correlated bivariate normal posterior on a 4×4 product
	// grid over [-2, 2]²; with A = 8 and ε = 8, Pr(cell) ∝ (f(c)·V)^{1/4}.
	g, _ := NewGrid([]float64{-2, -2}, []float64{2, 2}, []int{4, 4})
	logf, _, err := MVNLogDensity([]float64{0.2, -0.1}, []float64{0.5, 0.3, 0.3, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	const A, eps, n = 8.0, 8.0, 16000
	r := rand.New(rand.NewPCG(9, 2))
	obs := make([]float64, 16)
	th := make([]float64, 2)
	for range n {
		cp, err := SiDD(r, g, logf, A, 0, eps, newAcct(t, eps))
		if err != nil {
			t.Fatal(err)
		}
		cp.Sample(r, th)
		obs[g.Locate(th)]++
	}
	exp := make([]float64, 16)
	tot := 0.0
	for i := range exp {
		g.Center(i, th)
		exp[i] = math.Exp(eps / (4 * A) * clampLog(logf(th), A))
		tot += exp[i]
	}
	for i := range exp {
		exp[i] *= n / tot
	}
	_, p, _ := stats.ChiSquareGOF(obs, exp, 0)
	if p < alarm {
		t.Errorf("bivariate SiDD selection law: chi-square p = %v", p)
	}
	if _, _, err := MVNLogDensity([]float64{0, 0}, []float64{1, 2, 2, 1}); err == nil {
		t.Error("indefinite covariance accepted")
	}
}

func TestCancelAndFallbacks(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := NewSSS(bb, nil, BIT)
	if _, err := Modips(ctx, rand.New(rand.NewPCG(1, 1)), Single(sss), []float64{0, 1}, Config{Reproducible: true, M: 2, Epsilon: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	// A histogram whose sanitized weights are all zero falls back to the
	// uniform distribution on the grid.
	g, _ := NewGrid([]float64{0}, []float64{4}, []int{4})
	cp := newCellPosterior(g, []float64{0, 0, 0, 0})
	r := rand.New(rand.NewPCG(1, 2))
	var c [4]int
	th := make([]float64, 1)
	for range 4000 {
		cp.Sample(r, th)
		c[g.Locate(th)]++
	}
	for i, v := range c {
		if v < 850 || v > 1150 { // Binomial(4000, 1/4): sd 27
			t.Errorf("fallback cell %d drawn %d/4000 times", i, v)
		}
	}
	hm := &HistogramModel{Grid: g}
	if err := hm.Synthesize(r, []float64{1, 0}, make([]float64, 3)); !errors.Is(err, ErrInvalid) {
		t.Errorf("wrong θ length: %v", err)
	}
}

func TestSampleSanitizers(t *testing.T) {
	// Posterior samples from N(1, 0.3²) on a 2-D grid (second coordinate
	// independent N(0, 0.3²)); with a huge ε the sanitized histograms
	// reproduce the sample histogram, so θ* has mean ≈ (1, 0).
	r := rand.New(rand.NewPCG(10, 1))
	g, _ := NewGrid([]float64{-1, -2}, []float64{3, 2}, []int{16, 16})
	samples := make([]float64, 2*5000)
	for i := 0; i < len(samples); i += 2 {
		samples[i] = 1 + 0.3*r.NormFloat64()
		samples[i+1] = 0.3 * r.NormFloat64()
	}
	_, logG, _ := MVNLogDensity([]float64{1, 0}, []float64{0.09, 0, 0, 0.09})
	for _, m := range []string{"SiDD.MC", "SiPHiC"} {
		for _, cal := range []string{"joint"} {
			acct := newAcct(t, 1e7)
			var cp *CellPosterior
			var err error
			if m == "SiDD.MC" {
				cp, err = SiDDMC(r, g, samples, 12, 1e7, acct)
			} else {
				cp, err = SiPHiC(r, g, samples, math.Exp(logG), 1e7, acct)
			}
			if err != nil {
				t.Fatal(err)
			}
			if acct.Accountant.Spent().Epsilon != 1e7 {
				t.Errorf("%s spent %v", m, acct.Accountant.Spent())
			}
			th := make([]float64, 2)
			var s0, s1 float64
			const k = 4000
			for range k {
				cp.Sample(r, th)
				s0 += th[0]
				s1 += th[1]
			}
			if math.Abs(s0/k-1) > 0.03 || math.Abs(s1/k) > 0.03 {
				t.Errorf("%s (%v): θ* mean (%v, %v), want ≈ (1, 0)", m, cal, s0/k, s1/k)
			}
		}
	}
	if _, err := SiDDMC(r, g, samples, 0, 1, newAcct(t, 1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("A = 0: %v", err)
	}
	if _, err := SiPHiC(r, g, samples[:3], 1, 1, newAcct(t, 1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("ragged samples: %v", err)
	}
}

func TestSanitizerCalibration(t *testing.T) {
	// Prop. 4: 2A per log proportion; jointly B·2A.
	if siddmcPerBin(3) != 6 || siddmcSens(3, 10) != 60 {
		t.Error("SiDD.MC sensitivities")
	}
	// Prop. 5: N·G·V per count (N = 24, G = 0.1 and
	// h = 0.3 give 0.72); jointly min(2N, B·N·G·V).
	if d := siphicPerBin(24, 0.1, 0.3); math.Abs(d-0.72) > 1e-12 {
		t.Errorf("SiPHiC per-bin sensitivity %v", d)
	}
	if d := siphicSens(24, 0.1, 0.3, 20); math.Abs(d-14.4) > 1e-12 {
		t.Errorf("SiPHiC joint sensitivity %v, want min(48, 14.4)", d)
	}
	if d := siphicSens(24, 1, 0.3, 20); d != 48 {
		t.Errorf("SiPHiC joint sensitivity %v, want 2N = 48", d)
	}
}

func TestDensityModelModips(t *testing.T) {
	// Gaussian mean with known σ = 1 through SiDD: posterior N(x̄, 1/n).
	r := rand.New(rand.NewPCG(11, 1))
	x := make([]float64, 50)
	for i := range x {
		x[i] = 0.5 + r.NormFloat64()
	}
	g, _ := NewGrid([]float64{-2}, []float64{3}, []int{50})
	for _, meth := range []Method{MethodSiDD, MethodSiDDMC, MethodSiPHiC} {
		dm := &DensityModel{Grid: g, Method: meth, A: 30, G: 3, N: 2000, Records: 1,
			LogPosterior: func(x []float64) (func([]float64) float64, error) {
				mean := 0.0
				for _, v := range x {
					mean += v
				}
				mean /= float64(len(x))
				lf, _, err := MVNLogDensity([]float64{mean}, []float64{1 / float64(len(x))})
				return lf, err
			},
			SamplePosterior: func(r *rand.Rand, x []float64, k int) ([]float64, error) {
				mean := 0.0
				for _, v := range x {
					mean += v
				}
				mean /= float64(len(x))
				out := make([]float64, k)
				for i := range out {
					out[i] = mean + r.NormFloat64()/math.Sqrt(float64(len(x)))
				}
				return out, nil
			},
			Generate: func(r *rand.Rand, th, dst []float64) error {
				for i := range dst {
					dst[i] = th[0] + r.NormFloat64()
				}
				return nil
			},
		}
		rel, err := Modips(context.Background(), r, Single(dm), x, Config{Reproducible: true, M: 5, Epsilon: 5})
		if err != nil {
			t.Fatalf("method %d: %v", meth, err)
		}
		if len(rel.Sets) != 5 || math.Abs(rel.Spent.Epsilon-5) > 1e-12 {
			t.Errorf("method %d: %d sets, spent %v", meth, len(rel.Sets), rel.Spent)
		}
	}
}

func TestHistogramModel(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(12, 1))
	g, _ := NewGrid([]float64{0}, []float64{10}, []int{10})
	const n = 2000
	x := make([]float64, n)
	for i := range x {
		x[i] = 10 * r.Float64() * r.Float64() // density decreasing on [0, 10]
	}
	data := make([]float64, 10)
	for _, v := range x {
		data[g.Locate([]float64{v})]++
	}
	varOfMeans := func(boot bool) float64 {
		hm := &HistogramModel{Grid: g, Bootstrap: boot}
		rel, err := Modips(context.Background(), r, Single(hm), x, Config{Reproducible: true, M: 400, Epsilon: 4000})
		if err != nil {
			t.Fatal(err)
		}
		if !boot {
			// ε/m = 10 per set: noise sd ≈ 0.3 counts; the synthetic cell
			// counts are multinomial with the data's proportions.
			obs := make([]float64, 10)
			for _, v := range rel.Sets[0] {
				obs[g.Locate([]float64{v})]++
			}
			_, p, _ := stats.ChiSquareGOF(obs, data, 0)
			if p < alarm {
				t.Errorf("synthetic cells vs data histogram: chi-square p = %v", p)
			}
		}
		ms := make([]float64, len(rel.Sets))
		for j, d := range rel.Sets {
			ms[j] = mean(d)
		}
		return stats.Variance(ms)
	}
	// The bootstrap adds the sampling variance of the data: the variance of
	// a synthetic mean roughly doubles (the cap at 4 copies removes a
	// little of it). With 400 sets each variance has relative sd 0.07.
	ratio := varOfMeans(true) / varOfMeans(false)
	if ratio < 1.4 || ratio > 2.8 {
		t.Errorf("bootstrap / plain variance of synthetic means = %v, want ≈ 2", ratio)
	}
	if _, err := (&HistogramModel{Grid: g}).Sanitize(r, []float64{math.NaN()}, 1, newAcct(t, 1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("NaN record: %v", err)
	}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func BenchmarkModipsBinary(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	sss, _ := NewSSS(bb, nil, BIT)
	x := binaryData(r, 1000, 0.3)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Modips(context.Background(), r, Single(sss), x, Config{Reproducible: true, M: 10, Epsilon: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSiDD(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	g, _ := NewGrid([]float64{-3, -3}, []float64{3, 3}, []int{20, 20})
	logf, _, _ := MVNLogDensity([]float64{0, 0}, []float64{1, 0.5, 0.5, 1})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1})
		if _, err := SiDD(r, g, logf, 10, 0, 1, Releaser{Accountant: acct, Reproducible: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzSSSRelease checks that arbitrary confidential data either is
// rejected or yields sanitized statistics inside their legal ranges, for
// every model and both bounding schemes.
func FuzzSSSRelease(f *testing.F) {
	f.Add(0.5, -3.0, 7.0, 1.0, uint8(0))
	f.Add(1.0, 0.0, 1.0, 0.01, uint8(1))
	f.Add(math.NaN(), 2.0, 3.0, 100.0, uint8(2))
	f.Add(3.0, 4.0, 2.0, 0.5, uint8(3))
	f.Fuzz(func(t *testing.T, a, b, c, eps float64, which uint8) {
		x := []float64{a, b, c, a, b}
		var m Conjugate
		switch which % 5 {
		case 0:
			m = &BetaBernoulli{cfg: BetaBernoulliConfig{Alpha: 1, Beta: 1}}
		case 1:
			m = &GaussianMean{cfg: GaussianMeanConfig{Sigma: 1, Lo: -4, Hi: 4}}
		case 2:
			m = &GaussianNIG{cfg: GaussianNIGConfig{Lo: -4, Hi: 5}}
		case 3:
			m = mustPoissonGamma(conjugate.PoissonGammaConfig{Shape: 1, Rate: 1, MaxCount: 10})
		default:
			m = mustCategoricalDirichlet(conjugate.CategoricalDirichletConfig{Alpha: []float64{1, 1, 1}})
		}
		for _, bd := range []Bounding{BIT, Truncation} {
			s, err := NewSSS(m, nil, bd)
			if err != nil {
				t.Fatal(err)
			}
			acct, err := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1000})
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 1))
			out, n, err := s.SanitizeStats(r, x, eps, Releaser{Accountant: acct, Reproducible: true})
			if err != nil {
				continue
			}
			st, _ := m.Statistics(n)
			for i, v := range out {
				if !(v >= st[i].Lo && v <= st[i].Hi) {
					t.Fatalf("statistic %d = %v outside [%v, %v]", i, v, st[i].Lo, st[i].Hi)
				}
			}
			th := make([]float64, m.ParamDim())
			if err := m.Posterior(r, out, n, th); err == nil {
				_ = m.Synthesize(r, th, make([]float64, 4))
			}
		}
	})
}
