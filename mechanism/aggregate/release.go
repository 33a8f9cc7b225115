package aggregate

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// Count releases n + Z, Z discrete Laplace of scale 1/ε' on the integers:
// the private count of records satisfying a query (n is that count on the
// confidential data). Under AddRemove one record changes n by at most 1;
// under Substitute too (the record may stop or start satisfying the
// query). So the sensitivity is 1 under both relations and the release is
// ε-DP. n must be non-negative; a count beyond 2^52 is released as 2^52
// (clamping is 1-Lipschitz, so the guarantee holds, and the release
// cannot fail on account of the data). The release is an integer,
// unbiased for n ≤ 2^52, with variance 2a/(1−a)², a = e^{−ε'}.
func Count(r *rand.Rand, n int, cfg Config) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	if n < 0 {
		return Result{}, invalidf("count must be non-negative, got %d", n)
	}
	return cfg.releaseLattice(r, min(int64(n), maxStat), 1)
}

// releaseLattice releases the integer statistic s, of sensitivity sens in
// lattice units (ℓ1 and ℓ2 alike for a scalar), with the whole budget: it
// builds the noise, picks the generator, charges the budget and adds the
// noise. The Result is in lattice units (Grid 1).
func (c Config) releaseLattice(r *rand.Rand, s, sens int64) (Result, error) {
	d, err := c.newNoise(uint64(sens), float64(sens), 1)
	if err != nil {
		return Result{}, err
	}
	src, err := c.source(r)
	if err != nil {
		return Result{}, err
	}
	b, rho, err := c.charge()
	if err != nil {
		return Result{}, err
	}
	v, err := d.add(src, s)
	if err != nil {
		return Result{}, err
	}
	return Result{Value: v, Sensitivity: float64(sens), Grid: 1, Scale: d.scale(), Budget: b, Rho: rho,
		Releases: []float64{v}, Noise: []NoiseModel{noiseModel(d, 0)}}, nil
}

// sumSensitivity returns the sensitivity, in lattice units, of the sum of
// lattice indices in [L, H]: max(|L|, |H|) when a record is added or
// removed, H − L when one is substituted.
func sumSensitivity(l lattice, nb Neighbour) int64 {
	if nb == Substitute {
		return l.H - l.L
	}
	return l.maxAbs()
}

// BoundedSum releases the sum of the records clamped to the public
// bounds [lo, hi] = [cfg.Lo, cfg.Hi].
//
// Each record is clamped to [lo, hi] (two-sided) and rounded to the
// nearest multiple of γ = 2^k ≤ (hi − lo)·2^-20, giving an integer index
// in [L, H], L = round(lo/γ), H = round(hi/γ). The sum S of the indices
// is exact. Its sensitivity is max(|L|, |H|) under AddRemove (one record
// enters or leaves) and H − L under Substitute (one record changes), in
// lattice units; the release γ·(S + Z), Z discrete Laplace of scale
// sensitivity/ε', is ε-DP. The release is an unbiased estimate of γS, the
// sum of the rounded clamped records, which differs from the sum of the
// clamped records by at most nγ/2. The index sum is exact (128 bits) and
// clamped to ±2^52 before the noise (1-Lipschitz, so the guarantee holds;
// reached only beyond 2^52/max(|L|, |H|) records). An empty x is the
// empty sum. Records are taken as Params.ClampValue gives them: ±Inf go to the
// nearer bound; NaN is dropped under AddRemove (as an absent record) and
// counts as lo under Substitute (where n is public). No record, and no
// number of records, makes the release fail.
func BoundedSum(r *rand.Rand, x []float64, cfg Config) (Result, error) {
	l, err := cfg.lattice()
	if err != nil {
		return Result{}, err
	}
	lo, hi := cfg.Lo, cfg.Hi
	res, err := cfg.releaseLattice(r, l.sum(x, lo, hi, cfg.Neighbour), sumSensitivity(l, cfg.Neighbour))
	if err != nil {
		return Result{}, err
	}
	g := l.gamma()
	res.Value = math.Ldexp(res.Value, l.k)
	res.Releases[0] = res.Value
	res.Noise[0].Grid = g
	res.Sensitivity *= g
	res.Grid = g
	res.Scale *= g
	return res, nil
}

// BoundedMean releases the mean of the records clamped to the public
// bounds [lo, hi] = [cfg.Lo, cfg.Hi].
//
// Under Substitute the number of records n is public: the release is
// BoundedSum's γ(S + Z) divided by n, with Z calibrated to the
// substitution sensitivity H − L. It is ε-DP and an unbiased estimate of
// γS/n (the mean of the rounded clamped records), with variance
// γ²·Var(Z)/n²; Result.Sensitivity is γ(H − L)/n. An empty x is an error
// (n is public, so the error reveals nothing).
//
// Under AddRemove n is private: the release is that of a
// MeanAccumulator with one partition and one record per unit (L0 = L∞ =
// 1): half the budget releases the count ñ = n + Z₁ (sensitivity 1) and
// half the sum of the indices centred at C = ⌊(L + H)/2⌋,
// s̃ = Σ(index − C) + Z₂ (sensitivity max(H − C, C − L)); the value is
// γ(C + s̃/max(ñ, 1)) clamped to [lo, hi], ε-DP by sequential
// composition and post-processing. It is consistent but not exactly
// unbiased; Result.Sensitivity and Scale describe the sum's noise.
// An empty x is released like any other (the value is then noise about
// the centre), so success never depends on the data.
//
// Records are taken as in BoundedSum (NaN dropped under AddRemove, lo
// under Substitute). Both outputs are deterministic functions of lattice
// releases, so no output is impossible under a neighbouring data set.
func BoundedMean(r *rand.Rand, x []float64, cfg Config) (Result, error) {
	if _, err := cfg.lattice(); err != nil {
		return Result{}, err
	}
	lo, hi := cfg.Lo, cfg.Hi
	if cfg.Neighbour == Substitute {
		if len(x) == 0 {
			return Result{}, invalidf("the mean of an empty data set is undefined (the number of records is public under Substitute)")
		}
		res, err := BoundedSum(r, x, cfg)
		if err != nil {
			return Result{}, err
		}
		n := float64(len(x))
		res.Value /= n
		res.Sensitivity /= n
		res.Scale /= n
		return res, nil
	}
	acc, err := NewMeanAccumulator(Params{Epsilon: cfg.Epsilon, Rho: cfg.Rho, Lo: lo, Hi: hi,
		MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1, Reproducible: cfg.Reproducible})
	if err != nil {
		return Result{}, err
	}
	for _, v := range x {
		acc.Add(v)
	}
	src, err := cfg.source(r)
	if err != nil {
		return Result{}, err
	}
	b, rho, err := cfg.charge()
	if err != nil {
		return Result{}, err
	}
	res, err := acc.release(src)
	res.Budget, res.Rho = b, rho
	return res, err
}

// HistogramResult is a released histogram.
type HistogramResult struct {
	// Counts are the private counts, one per category (integers, possibly
	// negative: clamping or rounding them is post-processing left to the
	// caller).
	Counts []float64
	// Sensitivity is the sensitivity of the count vector: ℓ1 for a pure-DP
	// release, ℓ2 for a zCDP one.
	Sensitivity float64
	// Scale is the noise scale of each count: the discrete Laplace scale,
	// or the discrete Gaussian standard deviation.
	Scale float64
	// Budget is the (ε, 0) budget charged (zero for a zCDP release).
	Budget mechanism.Budget
	// Rho is the zCDP ρ charged (zero for a pure-DP release).
	Rho float64
}

// maxCategories bounds the number of histogram categories.
const maxCategories = 1 << 24

// Histogram releases the counts of the records x (category indices in
// [0, k)) over k known categories. Each count receives independent
// discrete Laplace noise of scale Δ/ε', where Δ is the ℓ1 sensitivity of
// the count vector: 1 under AddRemove (one count changes by one) and 2
// under Substitute (one record leaves a category and enters another). The
// release is ε-DP; every count is unbiased with variance 2a/(1−a)²,
// a = e^{−ε'/Δ}. The categories are public: a record outside [0, k) is
// dropped (it is neither a new category nor an error, so the release never
// fails on account of the data; dropping one record changes one count by
// one, within both sensitivities).
func Histogram(r *rand.Rand, x []int, k int, cfg Config) (HistogramResult, error) {
	if err := cfg.Validate(); err != nil {
		return HistogramResult{}, err
	}
	if k < 1 || k > maxCategories {
		return HistogramResult{}, invalidf("number of categories must be in [1, 2^24], got %d", k)
	}
	sens, sens2 := uint64(1), 1.0
	if cfg.Neighbour == Substitute {
		sens, sens2 = 2, math.Sqrt2
	}
	d, err := cfg.newNoise(sens, sens2, 1)
	if err != nil {
		return HistogramResult{}, err
	}
	src, err := cfg.source(r)
	if err != nil {
		return HistogramResult{}, err
	}
	counts := make([]int64, k)
	for _, c := range x {
		if c >= 0 && c < k {
			counts[c]++
		}
	}
	b, rho, err := cfg.charge()
	if err != nil {
		return HistogramResult{}, err
	}
	out := make([]float64, k)
	for i, c := range counts {
		if out[i], err = d.add(src, c); err != nil {
			return HistogramResult{}, err
		}
	}
	sv := float64(sens)
	if cfg.Rho > 0 {
		sv = sens2
	}
	return HistogramResult{Counts: out, Sensitivity: sv, Scale: d.scale(), Budget: b, Rho: rho}, nil
}
