package abc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// TestNoiseScaleExtremes sweeps ε, Δρ and c over the representable range:
// NoiseScale either refuses with ErrInvalid or returns a b that is a
// positive normal number with 2b at most mechanism.SVTMaxMagnitude, so the
// sparse vector it calibrates can be built.
func TestNoiseScaleExtremes(t *testing.T) {
	vals := []float64{0x1p-1022, 1e-300, 1e-10, 1, 1e10, 1e300, math.MaxFloat64}
	ok := 0
	for _, eps := range vals {
		for _, sens := range vals {
			for _, c := range []int{1, 2, 1 << 20, math.MaxInt} {
				for _, rs := range []bool{false, true} {
					b, err := NoiseScale(eps, sens, c, rs)
					if err != nil {
						if !errors.Is(err, ErrInvalid) {
							t.Fatalf("NoiseScale(%v, %v, %d, %v): %v does not wrap ErrInvalid", eps, sens, c, rs, err)
						}
						continue
					}
					ok++
					if !(b >= 0x1p-1022) || !(2*b <= mechanism.SVTMaxMagnitude) {
						t.Fatalf("NoiseScale(%v, %v, %d, %v) = %v", eps, sens, c, rs, b)
					}
				}
			}
		}
	}
	if ok == 0 {
		t.Fatal("sweep accepted nothing")
	}
}

func TestNoiseScaleInverse(t *testing.T) {
	for _, rs := range []bool{false, true} {
		for _, c := range []int{1, 5, 100} {
			for _, eps := range []float64{0.5, 1, 13} {
				sens := 2.0 / 5000
				b, err := NoiseScale(eps, sens, c, rs)
				if err != nil {
					t.Fatal(err)
				}
				want := float64(c+1) * sens / eps
				if rs {
					want = 2 * float64(c) * sens / eps
				}
				if math.Abs(b-want) > 1e-15*want {
					t.Fatalf("b = %v, want %v", b, want)
				}
				back, err := TotalEpsilon(b, sens, c, rs)
				if err != nil || math.Abs(back-eps) > 1e-12*eps {
					t.Fatalf("TotalEpsilon(%v) = %v, %v; want %v", b, back, err, eps)
				}
				a, err := NewABCDPSelector(ABCDPConfig{EpsTotal: eps, EpsABC: 0.1, C: c, Resample: rs, Sensitivity: sens})
				if err != nil {
					t.Fatal(err)
				}
				// The mechanism package accounts the sparse vector's budget
				// from its noise scales independently of Thm. 4.1.
				if got := a.Budget().Epsilon; math.Abs(got-eps) > 1e-12*eps || a.Scale() != b {
					t.Fatalf("budget %v scale %v, want %v %v", got, a.Scale(), eps, b)
				}
			}
		}
	}
}

// laplaceCDF is the Laplace(0, s) distribution function.
func laplaceCDF(x, s float64) float64 {
	if x < 0 {
		return 0.5 * math.Exp(x/s)
	}
	return 1 - 0.5*math.Exp(-x/s)
}

func TestFlipProbabilityClosedForm(t *testing.T) {
	// G_b(a) = P(m − ν > a), m ~ Lap(b), ν ~ Lap(2b), computed independently
	// of Lemma 4.2 as ∫ f_m(x) P(ν < x − a) dx by quadrature.
	for _, b := range []float64{0.01, 0.3, 2} {
		for _, a := range []float64{0, 0.1 * b, b, 3 * b, 10 * b} {
			f := func(x float64) float64 { return math.Exp(-math.Abs(x)/b) / (2 * b) * laplaceCDF(x-a, 2*b) }
			q := simpson(f, -60*b, 0, 20000) + simpson(f, 0, a, 200) + simpson(f, a, a+60*b, 20000)
			if g := FlipProbability(a, b); math.Abs(g-q) > 1e-9 {
				t.Fatalf("G_%v(%v) = %v, quadrature %v", b, a, g, q)
			}
			if g := FlipProbability(-a, b); math.Abs(g-q) > 1e-9 {
				t.Fatalf("G is not symmetric in a")
			}
			pdf := simpson(func(z float64) float64 { return FlipPDF(z, b) }, a, a+80*b, 20000)
			if math.Abs(pdf-FlipProbability(a, b)) > 1e-9 {
				t.Fatalf("∫_a^∞ f_Z = %v, G = %v", pdf, FlipProbability(a, b))
			}
		}
	}
	if FlipProbability(0, 1) != 0.5 || !math.IsNaN(FlipProbability(1, 0)) {
		t.Fatal("G_b(0) must be 1/2 and G_0 NaN")
	}
}

// TestFlipRate checks that ABCDP's decisions differ from rejection ABC's at
// the rate G_b(|ρ_t − ε_abc|) of Prop. 4.2.
//
// With RESAMPLE = false the threshold noise m is drawn once and every
// decision t compares ρ_t + ν_t with ε_abc + m, so each marginal flip
// probability is exactly G_b; the test runs a whole sequence of 12
// distances per session without halting (C ≥ T). With RESAMPLE = true the
// threshold in force at time t was drawn after the last acceptance and has
// survived the rejections since, so it is no longer Lap(b) given the history:
// Prop. 4.2 holds exactly for decisions taken on a fresh threshold (the first
// one and the one right after each acceptance), which is what the test
// checks; the rates of later decisions are logged (they drift upward when
// b is large compared with the spread of the distances).
//
// Each rate is estimated from 20000 sessions and compared with a two-sided
// Clopper–Pearson interval at level 1e-4 (24 comparisons: family-wise false
// alarm < 3e-3 for the fixed seed).
func TestFlipRate(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const runs = 20000
	epsABC := 0.2
	rho := []float64{0, 0.1, 0.15, 0.18, 0.2, 0.21, 0.23, 0.25, 0.3, 0.4, 0.5, 0.8}
	for _, rs := range []bool{false, true} {
		// b = 0.1 in both cases.
		c := 1000
		sens := 0.1 / float64(c+1)
		if rs {
			sens = 0.1 / float64(2*c)
		}
		a, err := NewABCDPSelector(ABCDPConfig{EpsTotal: 1, EpsABC: epsABC, C: c, Resample: rs, Sensitivity: sens, Reproducible: true})
		if err != nil {
			t.Fatal(err)
		}
		b := a.Scale()
		flips := make([]int64, len(rho))
		seqFlips := make([]int64, len(rho))
		for k := 0; k < runs; k++ {
			r := parallel.Stream(99, uint64(k))
			res, err := a.Select(r, rho)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Indicators) != len(rho) {
				t.Fatalf("session halted early")
			}
			for i, ind := range res.Indicators {
				if ind != (rho[i] <= epsABC) {
					seqFlips[i]++
				}
			}
			if !rs {
				continue
			}
			// Fresh threshold: a new session per distance.
			for i, d := range rho {
				res, err := a.Select(r, []float64{d})
				if err != nil {
					t.Fatal(err)
				}
				if res.Indicators[0] != (d <= epsABC) {
					flips[i]++
				}
			}
		}
		if !rs {
			copy(flips, seqFlips)
		}
		for i, r := range rho {
			g := FlipProbability(r-epsABC, b)
			lo, hi := stats.ClopperPearson(flips[i], runs, 1e-4)
			t.Logf("resample=%v b=%.3f rho=%.2f: flip rate %.4f (in sequence %.4f), G_b %.4f, 99.99%% CI [%.4f, %.4f]",
				rs, b, r, float64(flips[i])/runs, float64(seqFlips[i])/runs, g, lo, hi)
			if g < lo || g > hi {
				t.Errorf("flip rate %v outside [%v, %v] around G_b = %v", float64(flips[i])/runs, lo, hi, g)
			}
		}
	}
}

// TestPrivacyAudit estimates the probability of every released indicator
// sequence on neighbouring data sets, whose distances to each public pseudo
// data set differ by at most Δρ (here ρ'_t = ρ_t + Δρ, the worst case for a
// threshold test, and the mixed-sign case), and checks that no outcome's
// probability ratio exceeds e^{ε_total}: the lower 1−1e-6 Clopper–Pearson
// bound of P(o|D) divided by the upper bound of P(o|D') must not exceed
// e^ε. With 14 outcomes × 2 directions × 4 configurations the family-wise
// false-alarm rate is below 1e-4.
func TestPrivacyAudit(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const runs = 200000
	sens := 0.05
	rhoD := []float64{0.18, 0.22, 0.2, 0.25}
	for _, cfg := range []ABCDPConfig{
		{EpsTotal: 1, EpsABC: 0.2, C: 1, Resample: false, Sensitivity: sens, Reproducible: true},
		{EpsTotal: 1, EpsABC: 0.2, C: 2, Resample: false, Sensitivity: sens, Reproducible: true},
		{EpsTotal: 1, EpsABC: 0.2, C: 2, Resample: true, Sensitivity: sens, Reproducible: true},
		{EpsTotal: 0.5, EpsABC: 0.2, C: 3, Resample: false, Sensitivity: sens, Reproducible: true},
	} {
		a, err := NewABCDPSelector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The counts at rhoD (seed 1) serve both shifts.
		cD := outcomeCounts(t, a, rhoD, runs, 1)
		for _, shift := range [][]float64{{1, 1, 1, 1}, {1, -1, 1, -1}} {
			rhoN := make([]float64, len(rhoD))
			for i := range rhoD {
				rhoN[i] = rhoD[i] + shift[i]*sens
			}
			cN := outcomeCounts(t, a, rhoN, runs, 2)
			worst := 0.0
			for o, kD := range cD {
				kN := cN[o]
				for _, pair := range [][2]int64{{kD, kN}, {kN, kD}} {
					lo, _ := stats.ClopperPearson(pair[0], runs, 1e-6)
					_, hi := stats.ClopperPearson(pair[1], runs, 1e-6)
					if lo > 0 && math.Log(lo/hi) > cfg.EpsTotal {
						t.Errorf("%+v: outcome %q has ratio lower bound %v > e^ε", cfg, o, lo/hi)
					}
					if pair[0] > 0 && pair[1] > 0 {
						worst = math.Max(worst, math.Log(float64(pair[0])/float64(pair[1])))
					}
				}
			}
			t.Logf("c=%d resample=%v eps=%v shift %v: %d outcomes, largest empirical log ratio %.3f (ε = %v)",
				cfg.C, cfg.Resample, cfg.EpsTotal, shift, len(cD), worst, cfg.EpsTotal)
		}
	}
}

func outcomeCounts(t *testing.T, a *ABCDPSelector, rho []float64, runs int, seed uint64) map[string]int64 {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 12345))
	out := map[string]int64{}
	buf := make([]byte, 0, len(rho))
	for k := 0; k < runs; k++ {
		res, err := a.Select(r, rho)
		if err != nil {
			t.Fatal(err)
		}
		buf = buf[:0]
		for _, v := range res.Indicators {
			if v {
				buf = append(buf, '1')
			} else {
				buf = append(buf, '0')
			}
		}
		out[string(buf)]++
	}
	return out
}

// TestErrorBounds checks Thm. 4.3 on a fixed public sequence: the average
// over 4000 ABCDP runs (C ≥ T, no early stop) of the posterior-mean error
// against rejection ABC is below ExpectedErrorBound, and the empirical
// probability of an error ≤ a is above TailBound.
func TestErrorBounds(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(5, 6))
	const T = 400
	theta := make([]float64, T)
	rho := make([]float64, T)
	for i := range rho {
		theta[i] = r.NormFloat64()
		rho[i] = math.Abs(theta[i]-0.5)*0.3 + 0.05*r.Float64()
	}
	epsABC := 0.1
	kT := 0.0
	var exact float64
	cp := 0
	for i := range rho {
		kT = math.Max(kT, math.Abs(theta[i]))
		if rho[i] <= epsABC {
			exact += theta[i]
			cp++
		}
	}
	exact /= float64(cp)
	for _, eps := range []float64{50, 200} {
		a, err := NewABCDPSelector(ABCDPConfig{EpsTotal: eps, EpsABC: epsABC, C: T, Sensitivity: 0.0005, Reproducible: true})
		if err != nil {
			t.Fatal(err)
		}
		b := a.Scale()
		bound := ExpectedErrorBound(rho, epsABC, b, kT)
		const runs = 4000
		sumErr := 0.0
		within := 0
		aTail := 2 * bound
		for k := 0; k < runs; k++ {
			res, err := a.Select(r, rho)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Accepted) == 0 {
				continue // the theorem assumes c ≥ 1; such runs have no estimate
			}
			m := 0.0
			for _, i := range res.Accepted {
				m += theta[i]
			}
			e := math.Abs(m/float64(len(res.Accepted)) - exact)
			sumErr += e
			if e <= aTail {
				within++
			}
		}
		mean := sumErr / runs
		tail := TailBound(rho, epsABC, b, kT, aTail)
		t.Logf("eps_total %v: b %.4g, c' %d, mean error %.4f <= bound %.4f; P(err <= %.3f) = %.3f >= %.3f",
			eps, b, cp, mean, bound, aTail, float64(within)/runs, tail)
		if !(mean <= bound) {
			t.Fatalf("mean error %v exceeds the Thm. 4.3 bound %v", mean, bound)
		}
		if float64(within)/runs < tail {
			t.Fatalf("tail probability %v below the bound %v", float64(within)/runs, tail)
		}
	}
}

func TestABCDPSelectStopsAtC(t *testing.T) {
	a, err := NewABCDPSelector(ABCDPConfig{EpsTotal: 1e6, EpsABC: 0.5, C: 3, Sensitivity: 1e-3, Reproducible: true})
	if err != nil {
		t.Fatal(err)
	}
	rho := []float64{0.9, 0.1, 0.8, 0.2, 0.3, 0.1, 0.1}
	res, err := a.Select(rand.New(rand.NewPCG(1, 1)), rho)
	if err != nil {
		t.Fatal(err)
	}
	// With negligible noise the decisions are ABC's and the run halts at
	// the third acceptance (index 4).
	if len(res.Indicators) != 5 || len(res.Accepted) != 3 || res.Accepted[2] != 4 {
		t.Fatalf("indicators %v accepted %v", res.Indicators, res.Accepted)
	}
	// Clipping: an infinite distance is allowed when clipped.
	ac, err := NewABCDPSelector(ABCDPConfig{EpsTotal: 1, EpsABC: 150, C: 1, Clip: 200, Reproducible: true})
	if err != nil {
		t.Fatal(err)
	}
	if ac.Sensitivity() != 200 {
		t.Fatalf("clip sensitivity %v", ac.Sensitivity())
	}
	if _, err := ac.Select(rand.New(rand.NewPCG(1, 1)), []float64{math.Inf(1), 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Select(rand.New(rand.NewPCG(1, 1)), []float64{math.Inf(1)}); err == nil {
		t.Fatal("unclipped infinite distance accepted")
	}
	_ = mechanism.Budget{}
}

// TestABCDPReproducible checks the entry point's noise: with Reproducible
// two runs of the same Config agree exactly, and equal the selector's
// Select on SimulatePrior's distances with the noise stream derived from
// Seed (the last stream of Seed, which no public draw uses); by default
// the noise comes from the operating system's generator and the result
// is still a valid selection of the same public draws.
func TestABCDPReproducible(t *testing.T) {
	p, cfg := abcdpFixture(t)
	ctx := context.Background()
	a, err := ABCDP(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ABCDP(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sims, err := SimulatePrior(ctx, p, Euclidean{}, cfg.Simulations, cfg.Seed, ConfidentialObservation)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := NewABCDPSelector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sel.Select(parallel.Stream(cfg.Seed, math.MaxUint64), sims.Distance)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Indicators, b.Indicators) || !slices.Equal(a.Indicators, c.Indicators) || !slices.Equal(a.Accepted, c.Accepted) {
		t.Fatalf("reproducible runs differ: %v, %v, selector %v", a.Indicators, b.Indicators, c.Indicators)
	}
	if !slices.Equal(a.Public.Theta, sims.Draws.Theta) {
		t.Fatal("public draws differ from SimulatePrior's")
	}
	cfg.Reproducible = false
	d, err := ABCDP(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Public.Theta, sims.Draws.Theta) || len(d.Accepted) > cfg.C || d.Draws.Len() != len(d.Accepted) {
		t.Fatalf("default run: %d accepted, %d draws", len(d.Accepted), d.Draws.Len())
	}
}
