package mechanism

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/variate"
)

// InfectionTrajectory is the DP infection-trajectory mechanism of the SBI
// paper (Prop. 4). Its input is the vector of infected counts
// (I(t_1), …, I(t_L)) of a closed population of K people, each in [0, K];
// at every time point it draws independently
//
//	c_i ~ Binomial(n, (I(t_i) + m)/(K + 2m))
//
// and releases the proportion s_dp,i = c_i/n, as in the paper's
// experiments (its observed releases, e.g. 0.0010 = 1/1000 with n = 1000,
// are proportions). Changing one person's status moves each I(t_i) by at
// most 1, so the mechanism is ε-DP with ε = nL/m (the proof in App. B uses
// (1+1/m)^n ≤ e^{n/m}).
//
// Counts may be non-integer (e.g. from an ODE solution); the guarantee
// holds for any inputs in [0, K] whose neighbours differ by at most 1 per
// coordinate.
//
// Release draws the binomials with an exact sampler (BTPE or inversion);
// InfectionTrajectory implements Mechanism, Lattice, Transform (the exact binomial
// inverse CDF of one uniform per time point, the same law) and Density (the product of
// binomial pmfs, a mass function with respect to counting measure on the
// grid {0, 1/n, …, 1}^L).
type InfectionTrajectory struct {
	n, m, k int64
	l       int
	budget  Budget
}

// TrajectoryConfig configures NewInfectionTrajectory; every field is
// required.
type TrajectoryConfig struct {
	// Trials n of each binomial (>= 1, below 2^52).
	Trials int64
	// Inflation m of the population (>= 1, below 2^52).
	Inflation int64
	// Population size K (>= 1, below 2^50).
	Population int64
	// Times L, the number of time points (in [1, MaxDim]).
	Times int
}

// NewInfectionTrajectory returns the mechanism of SBI Prop. 4 with n =
// cfg.Trials binomial trials, inflation m = cfg.Inflation, population size
// K = cfg.Population and L = cfg.Times time points.
func NewInfectionTrajectory(cfg TrajectoryConfig) (*InfectionTrajectory, error) {
	n, m, K, L := cfg.Trials, cfg.Inflation, cfg.Population, cfg.Times
	if n < 1 {
		return nil, invalidf("n must be >= 1, got %d", n)
	}
	if m < 1 {
		return nil, invalidf("m must be >= 1, got %d", m)
	}
	if K < 1 {
		return nil, invalidf("K must be >= 1, got %d", K)
	}
	if err := checkDim("L", L); err != nil {
		return nil, err
	}
	if n > 1<<52 || m > 1<<52 || K > 1<<50 {
		return nil, invalidf("n, m and K must be below 2^52 (2^50 for K), got n=%d m=%d K=%d", n, m, K)
	}
	eps := float64(n) * float64(L) / float64(m)
	return &InfectionTrajectory{n: n, m: m, k: K, l: L, budget: Budget{Epsilon: eps}}, nil
}

// Budget reports (nL/m, 0).
func (t *InfectionTrajectory) Budget() Budget {
	if t == nil {
		return Budget{}
	}
	return t.budget
}

// Dim returns L (0 for a nil InfectionTrajectory).
func (t *InfectionTrajectory) Dim() int {
	if t == nil {
		return 0
	}
	return t.l
}

// LatticeSpacing returns 1/n: releases are proportions c/n (Lattice). A nil
// InfectionTrajectory returns 0.
func (t *InfectionTrajectory) LatticeSpacing() float64 {
	if t == nil {
		return 0
	}
	return 1 / float64(t.n)
}

// N returns the number of binomial trials n (0 for a nil
// InfectionTrajectory).
func (t *InfectionTrajectory) N() int64 {
	if t == nil {
		return 0
	}
	return t.n
}

// Prob returns the success probability (I + m)/(K + 2m) for an infected
// count I ∈ [0, K], and NaN for a count outside [0, K] (or NaN) or a nil
// InfectionTrajectory.
func (t *InfectionTrajectory) Prob(infected float64) float64 {
	if t == nil || !(infected >= 0 && infected <= float64(t.k)) {
		return math.NaN()
	}
	return (infected + float64(t.m)) / (float64(t.k) + 2*float64(t.m))
}

// Release writes the released proportions c_i/n into dst, drawing from the
// operating system's generator whatever r is. It returns an
// error wrapping ErrInvalid (naming a length mismatch, a non-finite
// entry or a count outside [0, K]) and leaves dst untouched on invalid
// input.
func (t *InfectionTrajectory) Release(r *rand.Rand, s, dst []float64) error {
	if err := t.check(s, dst); err != nil {
		return err
	}
	return withOSRand(func(os *rand.Rand) error { return t.releaseWith(os, s, dst) })
}

func (t *InfectionTrajectory) check(s, dst []float64) error {
	if t == nil {
		return errNilMechanism("*InfectionTrajectory")
	}
	if err := checkRelease(s, dst, t.l); err != nil {
		return err
	}
	return t.checkCounts(s)
}

// releaseWith is Release drawing from r.
func (t *InfectionTrajectory) releaseWith(r *rand.Rand, s, dst []float64) error {
	if err := t.check(s, dst); err != nil {
		return err
	}
	fn := float64(t.n)
	for i, v := range s {
		dst[i] = float64(variate.Binomial(r, t.n, t.Prob(v))) / fn
	}
	return nil
}

// SimulateRelease draws from the law of Release using r (seeded
// generators welcome); for inference only.
func (t *InfectionTrajectory) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	return t.releaseWith(r, s, dst)
}

func (t *InfectionTrajectory) checkCounts(s []float64) error {
	K := float64(t.k)
	for i, v := range s {
		if v < 0 || v > K {
			return fmt.Errorf("%w: infected count %d is %v, must be in [0, K=%d]", ErrInvalid, i, v, t.k)
		}
	}
	return nil
}

// NoiseDim returns statDim (one uniform per time point).
func (t *InfectionTrajectory) NoiseDim(statDim int) int { return statDim }

// Apply writes Q(u_i)/n into dst, Q the Binomial(n, (s_i+m)/(K+2m))
// inverse CDF. Counts outside [0, K] are clamped to it. On a nil
// InfectionTrajectory it fills dst with NaN.
func (t *InfectionTrajectory) Apply(u, s, dst []float64) {
	if t == nil {
		fillNaN(dst)
		return
	}
	checkApply("InfectionTrajectory", u, s, dst, t.l, t.l, t.l)
	fn := float64(t.n)
	K := float64(t.k)
	for i, v := range s {
		v = math.Max(0, math.Min(K, v))
		dst[i] = float64(binomQuantile(clampU(u[i]), t.n, t.Prob(v))) / fn
	}
}

// LogDensity returns Σ_i log P(c_i = n·sdp_i), the log mass of the
// released proportions. A coordinate of sdp with n·sdp_i not within
// max(1e-6, n·2^-50) of an integer in [0, n] has mass zero (-Inf). It returns NaN on a
// length mismatch or counts s outside [0, K] or non-finite.
func (t *InfectionTrajectory) LogDensity(sdp, s []float64) float64 {
	if t == nil || len(sdp) != t.l || len(s) != t.l {
		return math.NaN()
	}
	fn := float64(t.n)
	K := float64(t.k)
	lp := 0.0
	for i, v := range s {
		if !(v >= 0 && v <= K) {
			return math.NaN()
		}
		x := sdp[i] * fn
		c := math.Round(x)
		if !(math.Abs(x-c) <= math.Max(1e-6, fn*0x1p-50)) || c < 0 || c > fn {
			return math.Inf(-1)
		}
		lp += variate.BinomialLogPmf(int64(c), t.n, t.Prob(v))
	}
	return lp
}
