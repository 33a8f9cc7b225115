package simulate

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
)

// TestDistributionsMpmath evaluates the exported distributions at the
// 60-digit mpmath references of internal/variate (gen_logpdf.py), with the
// same bound: absolute error on the log scale relative to max(1, |value|)
// ≤ 2e-13. Reference lines whose parameters the constructors refuse
// (subnormal scales, binomial n > 2^52) are skipped; the test fails if
// fewer than 30 lines are compared.
func TestDistributionsMpmath(t *testing.T) {
	f, err := os.Open("../internal/variate/testdata/logpdf.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	compared, refused := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 {
			continue
		}
		v := make([]float64, len(fields)-1)
		for i, s := range fields[1:] {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		want, a := v[len(v)-1], v[:len(v)-1]
		var d Univariate
		var x float64
		switch fields[0] {
		case "normal":
			d, err = NewNormal(NormalConfig{Mu: a[1], Sigma: a[2]})
			x = a[0]
		case "gamma":
			d, err = NewGamma(GammaConfig{Shape: a[1], Scale: a[2]})
			x = a[0]
		case "beta":
			d, err = NewBeta(BetaConfig{Alpha: a[1], Beta: a[2]})
			x = a[0]
		case "poisson":
			d, err = NewPoisson(a[1])
			x = a[0]
		case "binomial":
			d, err = NewBinomial(BinomialConfig{N: int64(a[1]), P: a[2]})
			x = a[0]
		case "dirichlet":
			k := len(a) / 2
			dir, err := NewDirichlet(a[k:])
			if err != nil {
				refused++
				continue
			}
			got := dir.LogDensity(a[:k])
			if e := math.Abs(got-want) / math.Max(1, math.Abs(want)); !(e <= 2e-13) {
				t.Errorf("Dirichlet%v = %.17g, want %.17g", a, got, want)
			}
			compared++
			continue
		default:
			continue // laplace, studentt, truncnormal: not exported here
		}
		if err != nil {
			refused++
			continue
		}
		got := d.LogDensity(x)
		if e := math.Abs(got-want) / math.Max(1, math.Abs(want)); !(e <= 2e-13) {
			t.Errorf("%s%v = %.17g, want %.17g (err %.3g)", fields[0], a, got, want, e)
		}
		compared++
	}
	t.Logf("%d reference values compared, %d parameter sets refused", compared, refused)
	if compared < 30 {
		t.Fatalf("only %d reference values compared", compared)
	}
}

// TestDistributionsClosedForms checks the densities not covered by the
// mpmath file against closed forms, and the Quantile methods against CDF.
func TestDistributionsClosedForms(t *testing.T) {
	e, _ := NewExponential(2.5)
	for _, x := range []float64{0, 0.3, 4} {
		if got, want := e.LogDensity(x), math.Log(2.5)-2.5*x; math.Abs(got-want) > 1e-15 {
			t.Errorf("exponential LogDensity(%v) = %v, want %v", x, got, want)
		}
	}
	if !math.IsInf(e.LogDensity(-1), -1) || !math.IsNaN(e.LogDensity(math.NaN())) {
		t.Error("exponential outside support")
	}
	c, _ := NewCategorical([]float64{1, 0, 3})
	for k, want := range []float64{math.Log(0.25), math.Inf(-1), math.Log(0.75), math.Inf(-1)} {
		if got := c.LogDensity(float64(k)); got != want && math.Abs(got-want) > 1e-15 {
			t.Errorf("categorical LogDensity(%d) = %v, want %v", k, got, want)
		}
	}
	if !math.IsInf(c.LogDensity(0.5), -1) || !math.IsInf(c.LogDensity(-1), -1) || c.Len() != 3 {
		t.Error("categorical off its support")
	}
	p, _ := NewPoisson(3)
	// log(e^-3 3^2 / 2!)
	if got, want := p.LogDensity(2), -3+2*math.Log(3)-math.Log(2); math.Abs(got-want) > 1e-14 {
		t.Errorf("Poisson LogDensity(2) = %v, want %v", got, want)
	}
	if !math.IsInf(p.LogDensity(2.5), -1) || !math.IsInf(p.LogDensity(-1), -1) {
		t.Error("Poisson off its support")
	}
	b, _ := NewBinomial(BinomialConfig{N: 10, P: 0.3})
	if !math.IsInf(b.LogDensity(11), -1) {
		t.Error("binomial above n")
	}
	// Quantile inverts CDF.
	nrm, _ := NewNormal(NormalConfig{Mu: 1, Sigma: 2})
	ln, _ := NewLogNormal(NormalConfig{Mu: 0.2, Sigma: 0.5})
	uni, _ := NewUniform(UniformConfig{Lo: -1, Hi: 3})
	hn, _ := NewHalfNormal(1.5)
	gm, _ := NewGamma(GammaConfig{Shape: 2.5, Scale: 0.7})
	bt, _ := NewBeta(BetaConfig{Alpha: 0.5, Beta: 3})
	tr, _ := Truncate(gm, 1, 2)
	for _, d := range []interface {
		Univariate
		Invertible
	}{nrm, ln, uni, hn, e, gm, bt, tr} {
		for _, q := range []float64{1e-6, 0.1, 0.5, 0.9, 0.999} {
			if got := d.CDF(d.Quantile(q)); math.Abs(got-q) > 1e-10*math.Max(q, 1e-3) {
				t.Errorf("%T: CDF(Quantile(%v)) = %v", d, q, got)
			}
		}
		if !math.IsNaN(d.Quantile(1.5)) {
			t.Errorf("%T: Quantile(1.5) not NaN", d)
		}
	}
}

// TestDiscreteChiSquare draws 20000 values from each discrete
// distribution and applies a chi-square goodness-of-fit test at level
// 1e-4 (cells with expected count < 5 pooled into the tail; 4 tests,
// family false-alarm rate ≤ 4e-4; fixed seed). SampleInt and Sample
// agree on the same stream.
func TestDiscreteChiSquare(t *testing.T) {
	type discrete interface {
		Univariate
		SampleInt(r *rand.Rand) int64
	}
	pois, _ := NewPoisson(4.5)
	poisBig, _ := NewPoisson(120) // PTRS regime
	bin, _ := NewBinomial(BinomialConfig{N: 40, P: 0.35})
	cat, _ := NewCategorical([]float64{0.5, 2, 0, 1, 3.5})
	r := rand.New(rand.NewPCG(31, 32))
	for _, d := range []discrete{pois, poisBig, bin, cat} {
		const n = 20000
		counts := map[int64]float64{}
		for range n {
			counts[d.SampleInt(r)]++
		}
		var obs, exp []float64
		tailObs, tailExp := 0.0, 0.0
		lo, _ := d.Support()
		total := 0.0
		for k := int64(lo); total < 1-1e-12 && k < 100000; k++ {
			pk := math.Exp(d.LogDensity(float64(k)))
			total += pk
			if n*pk < 5 {
				tailObs += counts[k]
				tailExp += n * pk
				continue
			}
			obs = append(obs, counts[k])
			exp = append(exp, n*pk)
		}
		obs, exp = append(obs, tailObs), append(exp, tailExp+n*(1-total))
		if exp[len(exp)-1] == 0 {
			obs, exp = obs[:len(obs)-1], exp[:len(exp)-1]
		}
		stat, pv, _ := stats.ChiSquareGOF(obs, exp, 0)
		if !(pv > 1e-4) {
			t.Errorf("%T: chi-square %v, p = %v", d, stat, pv)
		}
		r1 := rand.New(rand.NewPCG(7, 7))
		r2 := rand.New(rand.NewPCG(7, 7))
		if a, b := d.SampleInt(r1), d.Sample(r2); float64(a) != b {
			t.Errorf("%T: SampleInt %d, Sample %v", d, a, b)
		}
	}
}

// TestExponentialKS applies a one-sample KS test at level 1e-4 to 5000
// exponential draws (fixed seed).
func TestExponentialKS(t *testing.T) {
	e, _ := NewExponential(0.4)
	r := rand.New(rand.NewPCG(41, 42))
	x := make([]float64, 5000)
	for i := range x {
		x[i] = e.Sample(r)
	}
	if _, p := stats.KSOneSample(x, e.CDF); !(p > 1e-4) {
		t.Errorf("exponential KS p = %v", p)
	}
}

// TestExtremeParametersNeverNaN checks, for every distribution and
// parameters across the float64 range (subnormal, tiny, moderate, huge),
// that the constructor either refuses them with an error or that 300
// draws are never NaN and have a log density that is never NaN: the
// densities at a distribution's own samples.
func TestExtremeParametersNeverNaN(t *testing.T) {
	vals := []float64{5e-324, 1e-310, 1e-300, 1e-10, 0.3, 1, 7, 1e10, 1e100, 1e300, 1e308, math.MaxFloat64}
	r := rand.New(rand.NewPCG(9, 9))
	accepted := 0
	check := func(name string, d Univariate, err error) {
		if err != nil {
			return
		}
		accepted++
		for range 300 {
			x := d.Sample(r)
			if math.IsNaN(x) {
				t.Fatalf("%s: NaN draw", name)
			}
			if lp := d.LogDensity(x); math.IsNaN(lp) {
				t.Fatalf("%s: LogDensity(%v) = NaN at its own draw", name, x)
			}
		}
	}
	for _, a := range vals {
		for _, b := range vals {
			for _, sa := range []float64{1, -1} {
				n, err := NewNormal(NormalConfig{Mu: sa * a, Sigma: b})
				check("Normal("+strconv.FormatFloat(sa*a, 'g', -1, 64)+","+strconv.FormatFloat(b, 'g', -1, 64)+")", n, err)
				l, err := NewLogNormal(NormalConfig{Mu: sa * a, Sigma: b})
				check("LogNormal", l, err)
				u, err := NewUniform(UniformConfig{Lo: sa * a, Hi: sa*a + b})
				check("Uniform", u, err)
			}
			g, err := NewGamma(GammaConfig{Shape: a, Scale: b})
			check("Gamma("+strconv.FormatFloat(a, 'g', -1, 64)+","+strconv.FormatFloat(b, 'g', -1, 64)+")", g, err)
			be, err := NewBeta(BetaConfig{Alpha: a, Beta: b})
			check("Beta("+strconv.FormatFloat(a, 'g', -1, 64)+","+strconv.FormatFloat(b, 'g', -1, 64)+")", be, err)
		}
		h, err := NewHalfNormal(a)
		check("HalfNormal", h, err)
		e, err := NewExponential(a)
		check("Exponential", e, err)
		p, err := NewPoisson(a)
		check("Poisson", p, err)
		if a <= 1 {
			bn, err := NewBinomial(BinomialConfig{N: 1 << 40, P: a})
			check("Binomial", bn, err)
		}
		c, err := NewCategorical([]float64{a, 1})
		check("Categorical", c, err)
		for _, b := range vals {
			d, err := NewDirichlet([]float64{a, b, 1})
			if err != nil {
				continue
			}
			accepted++
			th := make([]float64, 3)
			for range 300 {
				d.Sample(r, th)
				if lp := d.LogDensity(th); math.IsNaN(lp) {
					t.Fatalf("Dirichlet(%v, %v, 1): LogDensity(%v) = NaN", a, b, th)
				}
			}
		}
	}
	if accepted < 200 {
		t.Errorf("only %d parameter sets accepted", accepted)
	}
}

// TestMultinomial checks the log mass against the closed form
// n!/Π k_i! Π p_i^k_i, and the marginal law of the first count,
// Binomial(n, p_1), by chi-square at level 1e-4 (fixed seed).
func TestMultinomial(t *testing.T) {
	m, err := NewMultinomial(6, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	// 6!/(1!2!3!) (1/6)(2/6)²(3/6)³ = 60 · (1/6)(1/9)(1/8).
	if got, want := m.LogDensity([]float64{1, 2, 3}), math.Log(60.0/432); math.Abs(got-want) > 1e-14 {
		t.Errorf("LogDensity = %v, want %v", got, want)
	}
	for _, x := range [][]float64{{1, 2, 2}, {1.5, 2, 2.5}, {-1, 4, 3}} {
		if v := m.LogDensity(x); !math.IsInf(v, -1) {
			t.Errorf("LogDensity(%v) = %v, want -Inf", x, v)
		}
	}
	if !math.IsNaN(m.LogDensity([]float64{1, 2})) || m.SampleInt(nil, make([]int64, 2)) == nil {
		t.Error("wrong length accepted")
	}
	big, _ := NewMultinomial(50, []float64{0.2, 0.5, 0.3})
	r := rand.New(rand.NewPCG(51, 52))
	bin, _ := NewBinomial(BinomialConfig{N: 50, P: 0.2})
	const n = 20000
	counts := make([]float64, 51)
	x := make([]float64, 3)
	for range n {
		big.Sample(r, x)
		if x[0]+x[1]+x[2] != 50 {
			t.Fatalf("counts %v do not sum to 50", x)
		}
		counts[int(x[0])]++
	}
	var obs, exp []float64
	tailO, tailE := 0.0, 0.0
	for k := range counts {
		e := n * math.Exp(bin.LogDensity(float64(k)))
		if e < 5 {
			tailO, tailE = tailO+counts[k], tailE+e
			continue
		}
		obs, exp = append(obs, counts[k]), append(exp, e)
	}
	obs, exp = append(obs, tailO), append(exp, tailE)
	if _, pv, _ := stats.ChiSquareGOF(obs, exp, 0); !(pv > 1e-4) {
		t.Errorf("marginal chi-square p = %v", pv)
	}
	if a := testing.AllocsPerRun(50, func() { big.Sample(r, x); big.LogDensity(x) }); a != 0 {
		t.Errorf("%v allocations per draw", a)
	}
}
