package tb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestSanFrancisco checks the San Francisco summary against the published
// cluster table (Small et al. 1994): 473 isolates in 326 genotypes, 282 of
// them unique and 20 in pairs, the four largest clusters 30, 23, 15 and 10,
// and gene diversity H = 1 − Σ s_i²/473² with Σ s_i² = 2411 (Tanaka et al.
// 2006 quote H = 0.9892); the largest cluster's 30 observation months span
// months 0 to 23 and fall in 17 distinct months.
func TestSanFrancisco(t *testing.T) {
	sizes := SanFranciscoClusters()
	if len(sizes) != 326 {
		t.Fatalf("%d clusters, want 326", len(sizes))
	}
	n, sq := 0, 0
	for _, s := range sizes {
		n += s
		sq += s * s
	}
	if n != 473 || sq != 2411 {
		t.Fatalf("Σ s = %d, Σ s² = %d; want 473 and 2411", n, sq)
	}
	want := []float64{473, 326, 30, 20.0 / 3, 282, 20, 24, 17, 1 - 2411.0/(473*473)}
	got := SanFrancisco()
	for k := range want {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("%s = %v, want %v", StatNames()[k], got[k], want[k])
		}
	}
	if math.Abs(got[StatDiversity]-0.9892) > 5e-5 {
		t.Errorf("gene diversity %v does not round to 0.9892", got[StatDiversity])
	}
	if len(StatNames()) != NumStats {
		t.Errorf("%d names for %d statistics", len(StatNames()), NumStats)
	}
}

// TestBalanceMeans checks the closed form against the linear balance
// equations d₀n_c = p(β + Λ), d₁n_nc = (1 − p)(β + Λ) with Λ = a₀n_c + a₁n_nc
// (total transmissions), and against the ABCDP authors' formula
// n_nc = βd₀(1 − p)/(d₀d₁ − a₀d₁p − a₁d₀(1 − p)).
func TestBalanceMeans(t *testing.T) {
	o, err := NewOutbreak(Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range [][]float64{PaperTheta(), {3, 12, 0.4, 180}, {8, 20, 0.1, 205}} {
		rt, err := o.Rates(th)
		if err != nil {
			t.Fatal(err)
		}
		p := 0.95
		nc, nn, obs := BalanceMeans(rt, p, 0.8)
		lam := rt.TransC*nc + rt.TransNC*nn
		if e := math.Abs(rt.DeathC*nc - p*(rt.Burden+lam)); e > 1e-9*nc*rt.DeathC {
			t.Errorf("θ %v: compliant balance off by %v", th, e)
		}
		if e := math.Abs(rt.DeathNC*nn - (1-p)*(rt.Burden+lam)); e > 1e-9*nn*rt.DeathNC {
			t.Errorf("θ %v: non-compliant balance off by %v", th, e)
		}
		authors := rt.Burden * rt.DeathC * (1 - p) / (rt.DeathC*rt.DeathNC - rt.TransC*rt.DeathNC*p - rt.TransNC*rt.DeathC*(1-p))
		if math.Abs(nn-authors) > 1e-12*authors {
			t.Errorf("θ %v: n_nc %v, authors' formula %v", th, nn, authors)
		}
		if math.Abs(obs-0.8*(rt.DeathC*nc+rt.DeathNC*nn)) > 1e-9*obs {
			t.Errorf("θ %v: observed per year %v is not 0.8 × deaths", th, obs)
		}
		// The parameterisation: R₁ = a₁/d₁, t₁ = a₁ − d₁, R₂ = a₀/d₀.
		if math.Abs(rt.TransNC/rt.DeathNC-th[0]) > 1e-12*th[0] || math.Abs(rt.TransNC-rt.DeathNC-th[1]) > 1e-12*th[1] ||
			math.Abs(rt.TransC/rt.DeathC-th[2]) > 1e-12 || rt.DeathC != DefaultDeathC || rt.Burden != th[3] {
			t.Errorf("θ %v: rates %+v do not invert", th, rt)
		}
	}
	if nc, _, _ := BalanceMeans(Rates{Burden: 1, DeathC: 1, DeathNC: 1, TransC: 2}, 0.95, 0.8); !math.IsNaN(nc) {
		t.Errorf("supercritical rates: n_c %v, want NaN", nc)
	}
}

// TestObservedMean checks the simulator's mean number of observed cases
// over the two-year window against the balance mean 2·0.8·β/(1 − ρ) at the
// paper's θ and two others (400 outbreaks each, a z-test with the sample
// standard deviation). The warm-up leaves the window at least 7.5 years
// after the warm-up rule stops, where the slowest relaxation rate of the
// mean (0.93 per year at the paper's θ, faster elsewhere) leaves a bias
// below 0.1% of the mean, under a tenth of the test's standard error. The
// seed is fixed; |z| < 4 has false-alarm rate 6e-5 per θ.
func TestObservedMean(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	o, err := NewOutbreak(Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(11, 12))
	dst := make([]float64, NumStats)
	for _, th := range [][]float64{PaperTheta(), {3, 12, 0.4, 180}, {8, 20, 0.1, 205}} {
		rt, _ := o.Rates(th)
		_, _, perYear := BalanceMeans(rt, 0.95, 0.8)
		want := 2 * perYear
		const reps = 400
		var s, s2 float64
		for range reps {
			if err := o.Simulate(r, th, dst); err != nil {
				t.Fatal(err)
			}
			s += dst[StatObserved]
			s2 += dst[StatObserved] * dst[StatObserved]
			checkSummary(t, dst)
		}
		mean := s / reps
		sd := math.Sqrt((s2 - s*s/reps) / (reps - 1))
		z := (mean - want) / (sd / math.Sqrt(reps))
		t.Logf("θ %v: mean observed %.2f (sd %.1f), balance mean %.2f, z = %.2f", th, mean, sd, want, z)
		if math.Abs(z) > 4 {
			t.Errorf("θ %v: mean observed %v, want %v (z = %.2f)", th, mean, want, z)
		}
	}
}

// checkSummary checks the internal consistency of one outbreak summary.
func checkSummary(t *testing.T, s []float64) {
	t.Helper()
	n, g, l := s[StatObserved], s[StatClusters], s[StatLargest]
	ok := g <= n && s[StatSingletons]+2*s[StatPairs] <= n && s[StatSingletons]+s[StatPairs] <= g &&
		l*(1) <= n && (n == 0) == (g == 0) && (n == 0 || l >= 1) && s[StatLargestDiff] <= l/3 &&
		s[StatMonths] <= s[StatPeriod] && s[StatPeriod] <= 12*DefaultObsYears && s[StatMonths] <= l &&
		(n == 0 || s[StatMonths] >= 1) && s[StatDiversity] >= 0 && s[StatDiversity] < 1
	if !ok {
		t.Fatalf("inconsistent summary %v", s)
	}
}

// TestNoTransmission checks the process without transmission, an M/M/∞
// queue: cases end at the arrival rate β in balance (Burke's theorem), so
// the number observed in the window is Poisson(0.8·β·2) up to the
// e^{−d·7.5} remnant of the warm-up, and every cluster is a singleton. 1000
// outbreaks with a fixed seed; the mean and the index-of-dispersion tests
// each have false-alarm rate 6e-5 (|z| < 4).
func TestNoTransmission(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	o, err := NewOutbreak(Config{})
	if err != nil {
		t.Fatal(err)
	}
	rt := Rates{Burden: 200, DeathC: 5.95, DeathNC: 2}
	lambda := 0.8 * 200 * 2.0
	r := rand.New(rand.NewPCG(21, 22))
	dst := make([]float64, NumStats)
	const reps = 1000
	var s, disp float64
	for range reps {
		if err := o.SimulateRates(r, rt, dst); err != nil {
			t.Fatal(err)
		}
		n := dst[StatObserved]
		if dst[StatClusters] != n || dst[StatSingletons] != n || dst[StatLargest] != 1 || dst[StatPeriod] != 1 || dst[StatMonths] != 1 {
			t.Fatalf("without transmission every cluster is a singleton: %v", dst)
		}
		s += n
		disp += (n - lambda) * (n - lambda) / lambda
	}
	zMean := (s/reps - lambda) / math.Sqrt(lambda/reps)
	// Σ (n − λ)²/λ over reps Poisson counts has mean reps and variance
	// reps·(2 + 1/λ).
	zDisp := (disp - reps) / math.Sqrt(reps*(2+1/lambda))
	t.Logf("mean %.2f (want %.0f, z = %.2f), dispersion z = %.2f", s/reps, lambda, zMean, zDisp)
	if math.Abs(zMean) > 4 || math.Abs(zDisp) > 4 {
		t.Errorf("observed counts are not Poisson(%v): mean z = %.2f, dispersion z = %.2f", lambda, zMean, zDisp)
	}
}

// TestClusterSizes checks the cluster mechanics (a transmission joins the
// source's cluster, the source and the ending case are drawn with
// probability proportional to cluster size) against the exact law of a
// cluster's size. A case's type is compliant with probability p whatever
// its source, and a case of either type transmits at a₀ or a₁ until it ends
// at d₀ or d₁, so its number of offspring is the mixture
// p·Geom(q₀) + (1 − p)·Geom(q₁), q = a/(a + d), and a cluster is a
// Galton–Watson tree whose total size T has P(T = n) = P(S_n = n − 1)/n
// (Dwass), S_n a sum of n offspring counts. Each case is observed with
// probability 0.8, so a cluster's observed size is Binomial(T, 0.8). With
// fast rates (clusters last weeks) and a 100-year window, clusters cut by
// the window's edges are under 0.1% of all. Chi-square test of the sizes
// {1, 2, ≥ 3} of the observed clusters (2 df, critical value 18.4:
// false-alarm rate 1e-4) and a z-test of the mean observed size (|z| < 4).
func TestClusterSizes(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	cfg := Config{PCompliance: 0.5, ObsYears: 100, MinWarmup: 1, MaxWarmup: 2}
	o, err := NewOutbreak(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const p, q = 0.5, DefaultPObserved
	rt := Rates{Burden: 10, TransC: 20, DeathC: 50, TransNC: 40, DeathNC: 50}
	law := observedSizeLaw(p, rt.TransC/(rt.TransC+rt.DeathC), rt.TransNC/(rt.TransNC+rt.DeathNC), q, 400)
	// Law of the observed size given at least one observation.
	pos := 1 - law[0]
	p1, p2 := law[1]/pos, law[2]/pos
	var mean, m2 float64
	for k := 1; k < len(law); k++ {
		mean += float64(k) * law[k] / pos
		m2 += float64(k*k) * law[k] / pos
	}
	vr := m2 - mean*mean
	r := rand.New(rand.NewPCG(31, 32))
	dst := make([]float64, NumStats)
	var g, n1, n2, obs float64
	for range 100 {
		if err := o.SimulateRates(r, rt, dst); err != nil {
			t.Fatal(err)
		}
		g += dst[StatClusters]
		n1 += dst[StatSingletons]
		n2 += dst[StatPairs]
		obs += dst[StatObserved]
	}
	e := []float64{g * p1, g * p2, g * (1 - p1 - p2)}
	o3 := []float64{n1, n2, g - n1 - n2}
	chi := 0.0
	for k := range e {
		chi += (o3[k] - e[k]) * (o3[k] - e[k]) / e[k]
	}
	z := (obs - g*mean) / math.Sqrt(g*vr)
	t.Logf("%.0f clusters: sizes 1, 2, ≥3 observed %v expected %.1f; χ² = %.2f; mean size %.4f (exact %.4f, z = %.2f)",
		g, o3, e, chi, obs/g, mean, z)
	if chi > 18.4 || math.Abs(z) > 4 {
		t.Errorf("cluster sizes do not follow the branching law: χ² = %.2f, z = %.2f", chi, z)
	}
}

// observedSizeLaw returns P(observed size = k), k = 0..nmax, for the
// Galton–Watson cluster described in TestClusterSizes (the mass above nmax
// is dropped; it is below 1e-12 for the rates used).
func observedSizeLaw(p, q0, q1, qObs float64, nmax int) []float64 {
	off := make([]float64, nmax+1)
	for k := range off {
		off[k] = p*(1-q0)*math.Pow(q0, float64(k)) + (1-p)*(1-q1)*math.Pow(q1, float64(k))
	}
	total := make([]float64, nmax+1) // P(T = n)
	conv := []float64{1}             // law of S_n, truncated at nmax
	for n := 1; n <= nmax; n++ {
		next := make([]float64, nmax+1)
		for i, a := range conv {
			for j := 0; i+j <= nmax; j++ {
				next[i+j] += a * off[j]
			}
		}
		conv = next
		total[n] = conv[n-1] / float64(n)
	}
	law := make([]float64, nmax+1)
	for n := 1; n <= nmax; n++ {
		// Binomial(n, qObs) by the recurrence on k.
		b := math.Pow(1-qObs, float64(n))
		for k := 0; k <= n; k++ {
			law[k] += total[n] * b
			b *= float64(n-k) / float64(k+1) * qObs / (1 - qObs)
		}
	}
	return law
}

// TestSeedDeterminism checks that a simulation depends on the random
// stream only.
func TestSeedDeterminism(t *testing.T) {
	o, _ := NewOutbreak(Config{})
	a, b := make([]float64, NumStats), make([]float64, NumStats)
	if err := o.Simulate(rand.New(rand.NewPCG(1, 2)), PaperTheta(), a); err != nil {
		t.Fatal(err)
	}
	o.Simulate(rand.New(rand.NewPCG(3, 4)), PaperTheta(), b) // leaves scratch behind
	if err := o.Simulate(rand.New(rand.NewPCG(1, 2)), PaperTheta(), b); err != nil {
		t.Fatal(err)
	}
	for k := range a {
		if a[k] != b[k] {
			t.Fatalf("same stream, different summaries: %v and %v", a, b)
		}
	}
}

// TestMaxEvents checks the event cap.
func TestMaxEvents(t *testing.T) {
	o, _ := NewOutbreak(Config{MaxEvents: 1000})
	err := o.Simulate(rand.New(rand.NewPCG(1, 2)), PaperTheta(), make([]float64, NumStats))
	if err == nil {
		t.Fatal("no error past MaxEvents")
	}
}

// TestNoAllocs checks that a warm simulator allocates nothing per
// simulation.
func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	o, _ := NewOutbreak(Config{})
	r := rand.New(rand.NewPCG(1, 2))
	dst := make([]float64, NumStats)
	th := PaperTheta()
	for range 3 {
		o.Simulate(r, th, dst)
	}
	// A draw may grow the scratch beyond its previous high-water mark;
	// the steady state allocates nothing.
	if a := testing.AllocsPerRun(50, func() { o.Simulate(r, th, dst) }); a > 0.1 {
		t.Errorf("%v allocations per simulation", a)
	}
}
