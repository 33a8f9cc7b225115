package aggregate_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	"github.com/privinfer/privinfer/simulate"
)

// The model of TestPosteriorFromCarriedModel: n records x_i ~ N(θ, σx²),
// released as a sum on the coarse lattice γ = 1 of [−2, 2].
const (
	postN   = 10
	postSD  = 0.2
	postLo  = -2.0
	postHi  = 2.0
	postTh0 = 0.3
)

// latticeSim simulates the statistic of the carried model: the sum of
// the records clamped and rounded as the accumulator rounds them
// (Params.RoundValue).
type latticeSim struct {
	p          aggregate.Params
	continuous bool // the naive model's statistic: the sum of the clamped records
}

func (s latticeSim) StatDim() int { return 1 }

func (s latticeSim) Simulate(r *rand.Rand, theta, dst []float64) error {
	sum := 0.0
	for range postN {
		x := theta[0] + postSD*r.NormFloat64()
		if s.continuous {
			v, _ := s.p.ClampValue(x)
			sum += v
			continue
		}
		v, _ := s.p.RoundValue(x)
		sum += v
	}
	dst[0] = sum
	return nil
}

// gridPosterior returns the exact posterior CDF of θ on a grid, under a
// uniform prior on [a, b], given the release y = S + Z of the lattice sum
// S = Σ round(clamp(x_i)), Z discrete Laplace of scale t: the law of one
// record's index is Φ-differences, S's law their n-fold convolution, and
// the likelihood Σ_S P(S | θ)·P(Z = y − S).
func gridPosterior(y, t, a, b float64, m int) (theta, cdf []float64) {
	theta, dens := make([]float64, m), make([]float64, m)
	la := -1 / t
	for i := range m {
		th := a + (b-a)*float64(i)/float64(m-1)
		theta[i] = th
		// P(index = j), j = −2 … 2.
		var pj [5]float64
		for j := -2; j <= 2; j++ {
			up, dn := 1.0, 0.0
			if j < 2 {
				up = special.NormCDF((float64(j) + 0.5 - th) / postSD)
			}
			if j > -2 {
				dn = special.NormCDF((float64(j) - 0.5 - th) / postSD)
			}
			pj[j+2] = up - dn
		}
		ps := []float64{1} // law of S + 2k after k records
		for range postN {
			next := make([]float64, len(ps)+4)
			for s, v := range ps {
				for j, w := range pj {
					next[s+j] += v * w
				}
			}
			ps = next
		}
		for s, v := range ps {
			S := float64(s - 2*postN)
			dens[i] += v * math.Exp(la*math.Abs(y-S))
		}
	}
	cdf = make([]float64, m)
	for i := 1; i < m; i++ {
		cdf[i] = cdf[i-1] + (dens[i]+dens[i-1])/2
	}
	for i := range cdf {
		cdf[i] /= cdf[m-1]
	}
	return theta, cdf
}

// weightedKS returns sup |F_w − F| between the weighted draws and the
// grid CDF (linearly interpolated), and the draws' Kish effective size.
func weightedKS(d *privinfer.Draws, theta, cdf []float64) (float64, float64) {
	idx := make([]int, d.Len())
	for i := range idx {
		idx[i] = i
	}
	x := d.Column(0)
	w := d.Weights
	if w == nil {
		w = make([]float64, len(x))
		for i := range w {
			w[i] = 1
		}
	}
	sort.Slice(idx, func(i, j int) bool { return x[idx[i]] < x[idx[j]] })
	tot, sq := 0.0, 0.0
	for _, v := range w {
		tot += v
		sq += v * v
	}
	F := func(v float64) float64 {
		j := sort.SearchFloat64s(theta, v)
		switch {
		case j == 0:
			return 0
		case j == len(theta):
			return 1
		}
		f := (v - theta[j-1]) / (theta[j] - theta[j-1])
		return cdf[j-1] + f*(cdf[j]-cdf[j-1])
	}
	acc, D := 0.0, 0.0
	for _, i := range idx {
		f := F(x[i])
		D = math.Max(D, math.Abs(acc/tot-f))
		acc += w[i]
		D = math.Max(D, math.Abs(acc/tot-f))
	}
	return D, tot * tot / sq
}

// TestPosteriorFromCarriedModel: an analyst's posterior from an
// aggregate release through the noise model it carries agrees with the
// exact posterior of the discrete mechanism, and a continuous Laplace
// approximation at the same scale does not.
//
// The curator releases the sum of 10 records x_i ~ N(0.3, 0.2²) through a
// SumAccumulator on the coarse lattice γ = 1 of [−2, 2] at ε = 4
// (discrete Laplace noise of scale 1/2). The exact posterior under a
// uniform prior on [−1.5, 1.5] is computed on a grid of 6001 points by
// summing the discrete law (gridPosterior). Kernel importance sampling
// (abc.KernelIS, 3 stages of 20,000 simulations) with the Problem built
// from Result.Mechanism and Result.Observed must agree with it: the
// weighted Kolmogorov distance D, scaled by the square root of the
// weights' Kish effective size, must stay below 1.95 (the Kolmogorov
// 0.999 quantile: an approximate false-alarm rate of 10^-3). The
// continuous approximation — the sum of the clamped, unrounded records
// plus Laplace noise of the same scale — is run the same way and must be
// visibly worse: its scaled distance above 3 times the critical value.
// At γ = 1 the rounding of each record is as large as the data's spread,
// and only the carried model knows the release saw the rounded records.
func TestPosteriorFromCarriedModel(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ps := newPostSetup(t)
	cfg := abc.KernelISConfig{Simulations: 20000, Stages: 3, Mean: []float64{0}, Cov: []float64{0.75}, Seed: 7}
	run := func(sim simulate.Simulator, mech mechanism.Mechanism) (float64, float64, float64) {
		d := ps.kernelIS(t, sim, mech, cfg)
		D, ess := weightedKS(d, ps.theta, ps.cdf)
		return D, ess, d.Quantile(0, 0.5)
	}
	D, ess, medD := run(latticeSim{p: ps.p}, ps.m)
	Da, essA, medA := run(latticeSim{p: ps.p, continuous: true}, ps.approx)
	crit := 1.95
	med := func(c []float64) float64 { return ps.theta[sort.SearchFloat64s(c, 0.5)] }
	t.Logf("release y = %v (noise scale %v on γ = 1); exact grid posterior median %.3f", ps.res.Observed()[0], ps.res.Scale, med(ps.cdf))
	t.Logf("carried discrete model: KS D = %.4f, ESS %.0f, D·√ESS = %.2f (critical %.2f at ≈10^-3), median %.3f", D, ess, D*math.Sqrt(ess), crit, medD)
	t.Logf("continuous Laplace approximation: KS D = %.4f, ESS %.0f, D·√ESS = %.2f, median %.3f", Da, essA, Da*math.Sqrt(essA), medA)
	if D*math.Sqrt(ess) > crit {
		t.Errorf("posterior through the carried model disagrees with the exact grid posterior: D·√ESS = %.2f", D*math.Sqrt(ess))
	}
	if Da*math.Sqrt(essA) < 3*crit {
		t.Errorf("the continuous approximation is not visibly worse: D·√ESS = %.2f", Da*math.Sqrt(essA))
	}
}

// TestPosteriorC2ST is the classifier two-sample test of the same
// comparison: 4,000 draws resampled from kernel IS
// (4 stages of 50,000 simulations) against 4,000 exact draws from the
// grid posterior (inverse CDF); the carried model must give C2ST ≤ 0.52,
// and the continuous approximation's C2ST is reported beside it (it must
// exceed 0.6).
func TestPosteriorC2ST(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ps := newPostSetup(t)
	cfg := abc.KernelISConfig{Simulations: 50000, Stages: 4, Mean: []float64{0}, Cov: []float64{0.75}, Seed: 8}
	const n = 4000
	r := rand.New(rand.NewPCG(81, 82))
	exact := make([]float64, n)
	for i := range exact {
		u := r.Float64()
		j := sort.SearchFloat64s(ps.cdf, u)
		j = min(max(j, 1), len(ps.cdf)-1)
		f := (u - ps.cdf[j-1]) / (ps.cdf[j] - ps.cdf[j-1])
		exact[i] = ps.theta[j-1] + f*(ps.theta[j]-ps.theta[j-1])
	}
	c2st := func(sim simulate.Simulator, mech mechanism.Mechanism) float64 {
		d := ps.kernelIS(t, sim, mech, cfg)
		rs, err := d.Resample(r, n)
		if err != nil {
			t.Fatal(err)
		}
		acc, err := metrics.C2ST(rs.Theta, exact, 1, metrics.C2STOptions{Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		return acc
	}
	c, ca := c2st(latticeSim{p: ps.p}, ps.m), c2st(latticeSim{p: ps.p, continuous: true}, ps.approx)
	t.Logf("C2ST against the exact posterior: carried discrete model %.3f, continuous Laplace approximation %.3f", c, ca)
	if c > 0.52 || ca < 0.6 {
		t.Errorf("C2ST %.3f (want ≤ 0.52), approximation %.3f (want > 0.6)", c, ca)
	}
}

// postSetup is the release and the exact posterior of the tests above.
type postSetup struct {
	p          aggregate.Params
	res        aggregate.Result
	m, approx  mechanism.Mechanism
	prior      simulate.Prior
	theta, cdf []float64
}

func newPostSetup(t *testing.T) *postSetup {
	t.Helper()
	p := aggregate.Params{Epsilon: 4, Lo: postLo, Hi: postHi, Grid: 1, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1, Reproducible: true}
	acc, err := aggregate.NewSumAccumulator(p)
	if err != nil {
		t.Fatal(err)
	}
	g := rand.New(rand.NewPCG(63, 64))
	// (With the data of some seeds, half the records above ½, the two
	// posteriors happen to coincide: the continuous approximation is wrong
	// in general, not at every data set.)
	for range postN {
		acc.Add(postTh0 + postSD*g.NormFloat64())
	}
	res, err := acc.Release(g)
	if err != nil {
		t.Fatal(err)
	}
	m, err := res.Mechanism()
	if err != nil {
		t.Fatal(err)
	}
	approx, err := mechanism.NewLaplaceScales([]float64{res.Scale}, res.Budget)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := simulate.NewUniform(simulate.UniformConfig{Lo: -1.5, Hi: 1.5})
	pr, _ := simulate.NewIndependent(u)
	theta, cdf := gridPosterior(res.Observed()[0], res.Scale, -1.5, 1.5, 6001)
	return &postSetup{p: p, res: res, m: m, approx: approx, prior: pr, theta: theta, cdf: cdf}
}

// kernelIS runs abc.KernelIS on the Problem of the release with the given
// simulator and mechanism.
func (ps *postSetup) kernelIS(t *testing.T, sim simulate.Simulator, mech mechanism.Mechanism, cfg abc.KernelISConfig) *privinfer.Draws {
	t.Helper()
	out, err := abc.KernelIS(context.Background(), privinfer.Problem{Prior: ps.prior, Simulator: sim, Mechanism: mech, Observed: ps.res.Observed()}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out.Draws
}
