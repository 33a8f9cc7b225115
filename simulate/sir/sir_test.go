package sir

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// sirForward solves the Kolmogorov forward equation dp/dt = pQ of the SIR
// jump process on the finite state space {(S, I): S + I ≤ K} by
// uniformisation, independently of the simulator: with Λ ≥ max total rate
// and P = I + Q/Λ, p(t + Δ) = Σ_n Pois(n; ΛΔ) p(t) Pⁿ. It returns, for
// every time, the law of I(t) (length K + 1). The Poisson series is
// truncated at n > ΛΔ + 12√(ΛΔ) + 40, where the Poisson tail is < 1e-25.
func sirForward(k int, i0 int, beta, gamma float64, times []float64) [][]float64 {
	idx := func(s, i int) int { return s*(k+1) + i }
	ns := (k + 1) * (k + 1)
	lam := 0.0
	for s := 0; s <= k; s++ {
		for i := 0; s+i <= k; i++ {
			a := beta*float64(s*i)/float64(k) + gamma*float64(i)
			lam = math.Max(lam, a)
		}
	}
	lam *= 1.05
	p := make([]float64, ns)
	p[idx(k-i0, i0)] = 1
	step := func(v []float64) []float64 { // v P
		w := make([]float64, ns)
		for s := 0; s <= k; s++ {
			for i := 0; s+i <= k; i++ {
				x := v[idx(s, i)]
				if x == 0 {
					continue
				}
				inf := beta * float64(s*i) / float64(k)
				rec := gamma * float64(i)
				w[idx(s, i)] += x * (1 - (inf+rec)/lam)
				if inf > 0 {
					w[idx(s-1, i+1)] += x * inf / lam
				}
				if rec > 0 {
					w[idx(s, i-1)] += x * rec / lam
				}
			}
		}
		return w
	}
	out := make([][]float64, len(times))
	t := 0.0
	for j, tj := range times {
		if dt := tj - t; dt > 0 {
			mu := lam * dt
			acc := make([]float64, ns)
			v := p
			for n := 0; ; n++ {
				lg, _ := math.Lgamma(float64(n + 1))
				w := math.Exp(-mu + float64(n)*math.Log(mu) - lg)
				for q := range acc {
					acc[q] += w * v[q]
				}
				if float64(n) > mu+12*math.Sqrt(mu)+40 {
					break
				}
				v = step(v)
			}
			p = acc
			t = tj
		}
		law := make([]float64, k+1)
		for s := 0; s <= k; s++ {
			for i := 0; s+i <= k; i++ {
				law[i] += p[idx(s, i)]
			}
		}
		out[j] = law
	}
	return out
}

// TestGillespieExact checks that the law of I(t) from the Gillespie
// simulator matches the Kolmogorov forward equation (solved above by
// uniformisation) at K = 30 for two parameter points and six times each,
// with Pearson chi-square tests on 20000 runs (cells with expected count
// < 5 are pooled). Each test fails at level 1e-3, so the family of 12 tests
// has a false-alarm rate ≤ 1.2%; the seed is fixed. A power check follows:
// simulating with β 5% too large must be rejected decisively.
func TestGillespieExact(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	checkGillespieExact(t, 30, 20000, []float64{1, 3, 6, 10, 17, 34})
}

// TestGillespieExactLong repeats the exactness test with 25 times as many
// runs (power to detect much smaller errors) and a larger state space.
func TestGillespieExactLong(t *testing.T) {
	testutil.Long(t)
	checkGillespieExact(t, 30, 500000, []float64{1, 3, 6, 10, 17, 34})
	checkGillespieExact(t, 80, 100000, []float64{2, 8, 20, 40, 80})
}

func checkGillespieExact(t *testing.T, k, runs int, times []float64) {
	t.Helper()
	sim, err := New(Config{K: int64(k), Times: times, Param: Rates})
	if err != nil {
		t.Fatal(err)
	}
	pvalues := func(simTheta []float64, laws [][]float64, seed uint64) []float64 {
		counts := make([][]float64, len(times))
		for j := range counts {
			counts[j] = make([]float64, k+1)
		}
		r := rand.New(rand.NewPCG(seed, 12))
		dst := make([]float64, len(times))
		for range runs {
			if err := sim.Simulate(r, simTheta, dst); err != nil {
				t.Fatal(err)
			}
			for j, v := range dst {
				counts[j][int(v)]++
			}
		}
		ps := make([]float64, len(times))
		for j := range times {
			obs, exp := poolCells(counts[j], laws[j], runs, 5)
			var df int
			_, ps[j], df = stats.ChiSquareGOF(obs, exp, 0)
			if df < 3 {
				t.Fatalf("t=%v: only %d degrees of freedom", times[j], df)
			}
		}
		return ps
	}
	for _, th := range [][2]float64{{math.Exp(-0.5), math.Exp(-3)}, {0.3, 0.1}} {
		laws := sirForward(k, 1, th[0], th[1], times)
		for j, law := range laws {
			s := 0.0
			for _, v := range law {
				s += v
			}
			if math.Abs(s-1) > 1e-10 {
				t.Fatalf("forward solution at t=%v sums to %v", times[j], s)
			}
		}
		ps := pvalues(th[:], laws, 11)
		for j, p := range ps {
			t.Logf("θ=(%.4f,%.4f) t=%v: p=%.3f", th[0], th[1], times[j], p)
			if !(p > 1e-3) {
				t.Errorf("θ=(%v,%v) t=%v: law of I(t) differs from the forward equation: p=%v", th[0], th[1], times[j], p)
			}
		}
		wrong := pvalues([]float64{1.05 * th[0], th[1]}, laws, 13)
		if mn := slices.Min(wrong); !(mn < 1e-6) {
			t.Errorf("θ=(%v,%v): power check failed, β×1.05 gives min p = %v", th[0], th[1], mn)
		}
	}
}

// poolCells merges adjacent cells until every expected count is ≥ min.
func poolCells(counts, law []float64, n int, min float64) (obs, exp []float64) {
	var o, e float64
	for i := range counts {
		o += counts[i]
		e += law[i] * float64(n)
		if e >= min {
			obs = append(obs, o)
			exp = append(exp, e)
			o, e = 0, 0
		}
	}
	if len(exp) > 0 {
		obs[len(obs)-1] += o
		exp[len(exp)-1] += e
	} else {
		obs, exp = []float64{o}, []float64{e}
	}
	return obs, exp
}

func TestSIRInvalid(t *testing.T) {
	if _, err := New(Config{K: 0}); err == nil {
		t.Error("K = 0 accepted")
	}
	if _, err := New(Config{K: -5}); err == nil {
		t.Error("K < 0 accepted")
	}
	if _, err := New(Config{K: 10, Times: []float64{0, 5, 3}}); err == nil {
		t.Error("unsorted times accepted")
	}
	if _, err := New(Config{K: 10, Times: []float64{-1, 3}}); err == nil {
		t.Error("negative time accepted")
	}
	if _, err := New(Config{K: 10, Times: []float64{0, math.NaN()}}); err == nil {
		t.Error("NaN time accepted")
	}
	if _, err := New(Config{K: 10, Times: []float64{}}); err == nil {
		t.Error("empty times accepted")
	}
	if _, err := New(Config{K: 10, I0: 11}); err == nil {
		t.Error("I0 > K accepted")
	}
	if _, err := NewTauLeap(Config{K: 10}, 0); err == nil {
		t.Error("tau-leap step 0 accepted")
	}
	if _, err := NewODE(Config{K: 10}, -1); err == nil {
		t.Error("ODE rtol < 0 accepted")
	}
	r := rand.New(rand.NewPCG(1, 1))
	for _, param := range []Param{LogRates, Rates} {
		cfg := Config{K: 100, Param: param}
		g, _ := New(cfg)
		tl, _ := NewTauLeap(cfg, 0.5)
		od, _ := NewODE(cfg, 0)
		for _, sim := range []simulate.Simulator{g, tl, od} {
			dst := make([]float64, sim.StatDim())
			bad := [][]float64{{math.NaN(), 0.1}, {0.1, math.Inf(1)}, {0.1}, {0.1, 0.2, 0.3}}
			if param == LogRates {
				bad = append(bad, []float64{710, 0}, []float64{0, 1000})
			}
			if param == Rates {
				bad = append(bad, []float64{-0.1, 0.1}, []float64{0.1, -1})
			}
			for _, th := range bad {
				if err := sim.Simulate(r, th, dst); !errors.Is(err, simulate.ErrInvalidTheta) {
					t.Errorf("%T param %d θ=%v: got %v, want simulate.ErrInvalidTheta", sim, param, th, err)
				}
			}
			if err := sim.Simulate(r, []float64{0.1, 0.1}, make([]float64, 3)); err == nil {
				t.Errorf("%T: wrong dst length accepted", sim)
			}
		}
	}
}

// TestSIRPaperSynthetic simulates the paper's synthetic setting (K = 1e6,
// θ = (e^−0.5, e^−3), record times 0, 17, …, 153) and compares I(t_i)/K
// with the paper's ε = 10 release. The release is c_i/n with
// c_i ~ Binomial(1000, (I + m)/(K + 2m)), m = 1000, so given I its sd is at
// most √(0.25/1000) ≈ 0.016. Runs that die out early (probability ≈ 1/R0
// ≈ 8%) are discarded, as the paper's outbreak did not die out. The
// trajectory of a large outbreak is nearly deterministic up to a random
// time shift from its stochastic start; the tolerance at each time is
// 4·(spread of the simulated proportion over 12 runs) + 4·(binomial sd of
// the release) + 0.002 (the m-inflation bias of (I + m)/(K + 2m)).
func TestSIRPaperSynthetic(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	sim, err := New(Config{K: SyntheticK, Output: Proportions})
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := SyntheticRelease(10)
	r := rand.New(rand.NewPCG(2024, 1))
	const runs = 12
	var traj [][]float64
	for len(traj) < runs {
		dst := make([]float64, sim.StatDim())
		if err := sim.Simulate(r, SyntheticTheta(), dst); err != nil {
			t.Fatal(err)
		}
		if dst[2] < 0.01 { // died out
			continue
		}
		traj = append(traj, dst)
	}
	for i := range rel {
		col := make([]float64, runs)
		for j := range traj {
			col[j] = traj[j][i]
		}
		mean, sd := stats.Mean(col), math.Sqrt(stats.Variance(col))
		binSD := math.Sqrt(rel[i] * (1 - rel[i]) / 1000)
		tol := 4*sd + 4*binSD + 0.002
		t.Logf("t=%3d paper %.3f  simulated mean %.4f sd %.4f  tol %.4f", 17*i, rel[i], mean, sd, tol)
		if math.Abs(mean-rel[i]) > tol {
			t.Errorf("t=%d: simulated mean %.4f vs paper release %.3f beyond tolerance %.4f", 17*i, mean, rel[i], tol)
		}
	}
	// The peak among the record times is at t = 34 with I/K ≈ 0.6.
	m34 := 0.0
	for j := range traj {
		m34 += traj[j][2] / runs
		for i := range rel {
			if traj[j][i] > traj[j][2] {
				t.Errorf("run %d peaks at t=%d, not 34", j, 17*i)
			}
		}
	}
	// Over 300 runs (two generators) the mean is 0.643 with sd 0.045 per
	// run, so the mean of 12 has standard error 0.013 and ±0.1 around 0.6
	// leaves 4.4 of them (false alarm about 1e-5).
	if math.Abs(m34-0.6) > 0.1 {
		t.Errorf("mean I(34)/K = %.4f, want ≈ 0.6", m34)
	}
}

// TestSIRZeroAllocs checks that a Gillespie simulation allocates nothing.
func TestSIRZeroAllocs(t *testing.T) {
	sim, _ := New(Config{K: 10000})
	r := rand.New(rand.NewPCG(3, 4))
	dst := make([]float64, sim.StatDim())
	th := SyntheticTheta()
	if a := testing.AllocsPerRun(20, func() { _ = sim.Simulate(r, th, dst) }); a != 0 {
		t.Errorf("Gillespie allocates %v per simulation", a)
	}
}

// TestSIRExtinctionAndRecords checks boundary behaviour: with γ only, I
// decays and stops at 0; at time 0 the record is I0; records at equal
// times are equal.
func TestSIRExtinctionAndRecords(t *testing.T) {
	sim, _ := New(Config{K: 50, I0: 7, Times: []float64{0, 0, 1e6}, Param: Rates})
	r := rand.New(rand.NewPCG(5, 6))
	dst := make([]float64, 3)
	if err := sim.Simulate(r, []float64{0, 1}, dst); err != nil {
		t.Fatal(err)
	}
	if dst[0] != 7 || dst[1] != 7 || dst[2] != 0 {
		t.Errorf("got %v, want [7 7 0]", dst)
	}
	// Frozen process: β = γ = 0 keeps I = I0 for ever.
	if err := sim.Simulate(r, []float64{0, 0}, dst); err != nil {
		t.Fatal(err)
	}
	if dst[2] != 7 {
		t.Errorf("frozen process: got %v", dst)
	}
}

// TestSIRODEInvariant checks the ODE solver against two independent facts:
// early on, while s ≈ 1, i(t) ≈ i0·exp((βs0 − γ)t); and the first integral
// i + s − (γ/β) log s = const gives the peak prevalence
// i_max = c0 − γ/β + (γ/β) log(γ/β), which a fine time grid must reach.
func TestSIRODEInvariant(t *testing.T) {
	const k = 1_000_000
	beta, gamma := math.Exp(-0.5), math.Exp(-3)
	s0, i0 := float64(k-1)/k, 1.0/k
	fine := make([]float64, 0, 500)
	for tt := 0.0; tt < 60; tt += 0.1 {
		fine = append(fine, tt)
	}
	ode, _ := NewODE(Config{K: k, Times: fine, Param: Rates, Output: Proportions}, 1e-10)
	fd := make([]float64, len(fine))
	if err := ode.Simulate(nil, []float64{beta, gamma}, fd); err != nil {
		t.Fatal(err)
	}
	// t = 5: i ≈ 1.6e-5, so s has dropped by < 3e-5 and the exponential
	// approximation is good to about 1e-4 relative.
	early := i0 * math.Exp((beta*s0-gamma)*5)
	if got := fd[50]; math.Abs(got-early)/early > 2e-4 {
		t.Errorf("i(5) = %v, exponential phase predicts %v", got, early)
	}
	c0 := i0 + s0 - gamma/beta*math.Log(s0)
	iMax := c0 - gamma/beta + gamma/beta*math.Log(gamma/beta)
	mx := 0.0
	for _, v := range fd {
		mx = math.Max(mx, v)
	}
	// The grid step 0.1 misses the exact peak by O(0.1²·|i''|) ≲ 1e-4.
	if mx > iMax+1e-8 || iMax-mx > 2e-4 {
		t.Errorf("ODE peak on grid %v vs invariant peak %v", mx, iMax)
	}
	t.Logf("ODE: i(5)=%.6e (exp. phase %.6e), grid peak %.6f, invariant peak %.6f", fd[50], early, mx, iMax)
}

// meanTrajectory averages R simulations of sim at θ.
func meanTrajectory(t *testing.T, sim simulate.Simulator, theta []float64, runs int, seed uint64) (mean, se []float64) {
	t.Helper()
	d := sim.StatDim()
	sum, sq := make([]float64, d), make([]float64, d)
	dst := make([]float64, d)
	r := rand.New(rand.NewPCG(seed, 77))
	for range runs {
		if err := sim.Simulate(r, theta, dst); err != nil {
			t.Fatal(err)
		}
		for j, v := range dst {
			sum[j] += v
			sq[j] += v * v
		}
	}
	mean, se = make([]float64, d), make([]float64, d)
	for j := range sum {
		mean[j] = sum[j] / float64(runs)
		v := sq[j]/float64(runs) - mean[j]*mean[j]
		se[j] = math.Sqrt(math.Max(v, 0) / float64(runs))
	}
	return mean, se
}

func maxAbsDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// TestSIRApproximationsConverge compares the means of I(t)/K under the
// exact simulator with the ODE and with tau-leaping as K grows, starting
// from a fixed infected fraction I0 = K/20 (the regime in which the ODE is
// the K → ∞ limit; from a single initial case the early phase stays random
// and the mean does not converge to the ODE, which is logged for the
// record). The ODE discrepancy is the O(1/K) bias plus Monte Carlo error,
// so it must shrink with K; tau-leaping keeps an O(τ) bias, so a small step
// must track the exact means closely and a large one less closely.
func TestSIRApproximationsConverge(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	checkApproximations(t, []int64{100, 1000, 10000}, 1000)
}

// TestSIRApproximationsConvergeLong extends the comparison to K = 1e5.
func TestSIRApproximationsConvergeLong(t *testing.T) {
	testutil.Long(t)
	checkApproximations(t, []int64{100, 10000, 100000}, 1000)
}

func checkApproximations(t *testing.T, ks []int64, runs int) {
	t.Helper()
	times := []float64{0, 5, 10, 15, 20, 25, 30, 40}
	theta := []float64{0.3, 0.1}
	var odeDisc []float64
	for _, k := range ks {
		cfg := Config{K: k, I0: k / 20, Times: times, Param: Rates, Output: Proportions}
		g, _ := New(cfg)
		ode, _ := NewODE(cfg, 0)
		fine, _ := NewTauLeap(cfg, 0.1)
		coarse, _ := NewTauLeap(cfg, 1)
		gm, gse := meanTrajectory(t, g, theta, runs, 1)
		od := make([]float64, len(times))
		_ = ode.Simulate(nil, theta, od)
		fm, _ := meanTrajectory(t, fine, theta, runs, 2)
		cm, _ := meanTrajectory(t, coarse, theta, runs, 3)
		dODE, dFine, dCoarse := maxAbsDiff(gm, od), maxAbsDiff(gm, fm), maxAbsDiff(gm, cm)
		odeDisc = append(odeDisc, dODE)
		t.Logf("K=%6d  max|E_G − ODE|=%.5f  max|E_G − tau(0.1)|=%.5f  max|E_G − tau(1)|=%.5f  (MC se ≤ %.5f)",
			k, dODE, dFine, dCoarse, slices.Max(gse))
		// Tau-leap with τ = 0.1 agrees within Monte Carlo error (two
		// independent means: 5·√2·se, family false alarm ~1e-5) plus its
		// O(τ) bias, measured as ≈ 0.027·τ at τ = 1, i.e. ≈ 0.003 here.
		if dFine > 5*math.Sqrt2*slices.Max(gse)+0.004 {
			t.Errorf("K=%d: tau-leap (τ=0.1) mean differs from Gillespie by %v", k, dFine)
		}
		if k >= 1000 && !(dCoarse > dFine) {
			t.Errorf("K=%d: coarse tau-leap (%v) not worse than fine (%v)", k, dCoarse, dFine)
		}
	}
	if !(odeDisc[2] < odeDisc[0]/5) || odeDisc[2] > 0.003 {
		t.Errorf("ODE discrepancy does not shrink with K: %v", odeDisc)
	}
	// Single initial case: the mean and the ODE differ at O(1) for all K.
	cfg := Config{K: 10000, Times: []float64{0, 20, 40, 60, 80}, Param: Rates, Output: Proportions}
	g, _ := New(cfg)
	ode, _ := NewODE(cfg, 0)
	gm, _ := meanTrajectory(t, g, theta, 300, 4)
	od := make([]float64, 5)
	_ = ode.Simulate(nil, theta, od)
	t.Logf("I0=1, K=1e4: Gillespie mean %.4f vs ODE %.4f (max diff %.4f, not expected to vanish)", gm, od, maxAbsDiff(gm, od))
}

// TestSIRPaperReleasesLong draws 200 private releases (outbreaks that did
// not die out) from SyntheticSimulator at ε = 10, 1, 0.1 and checks
// that every coordinate of the paper's observed release lies within 4.5
// simulated standard deviations of the simulated mean (30 coordinates;
// under normality the family false-alarm rate is ≈ 2e-4).
func TestSIRPaperReleasesLong(t *testing.T) {
	testutil.Long(t)
	const runs = 200
	for _, eps := range []float64{10, 1, 0.1} {
		p, err := SyntheticSimulator(eps)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := SyntheticRelease(eps)
		r := rand.New(rand.NewPCG(uint64(eps*10), 5))
		conf, dst := make([]float64, 10), make([]float64, 10)
		cols := make([][]float64, 10)
		for n := 0; n < runs; {
			if _, err := p.SimulateBoth(r, SyntheticTheta(), conf, dst); err != nil {
				t.Fatal(err)
			}
			if conf[2] < 0.01*SyntheticK {
				continue
			}
			n++
			for i, v := range dst {
				cols[i] = append(cols[i], v)
			}
		}
		for i := range rel {
			m, sd := stats.Mean(cols[i]), math.Sqrt(stats.Variance(cols[i]))
			z := (rel[i] - m) / sd
			t.Logf("eps %v t=%3d paper %.3f simulated %.4f ± %.4f z=%+.2f", eps, 17*i, rel[i], m, sd, z)
			if math.Abs(z) > 4.5 {
				t.Errorf("eps %v t=%d: paper release %v is %.1f sd from the simulated mean %v", eps, 17*i, rel[i], z, m)
			}
		}
	}
}
