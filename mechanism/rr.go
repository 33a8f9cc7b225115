package mechanism

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
)

// maxRREpsilon is the largest ε randomized response accepts: beyond it
// the probability of an untruthful report, an integer multiple of 2^-128,
// could no longer realise the ratio e^ε faithfully.
const maxRREpsilon = 60

// minRREpsilon is the smallest ε randomized response accepts.
const minRREpsilon = 0x1p-40

// u128 is an unsigned 128-bit integer hi·2^64 + lo.
type u128 struct{ hi, lo uint64 }

// less reports a < b.
func (a u128) less(b u128) bool { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo) }

// float returns a·2^-128 as a float64.
func (a u128) float() float64 {
	return math.Ldexp(float64(a.hi), -64) + math.Ldexp(float64(a.lo), -128)
}

// log returns log(a·2^-128).
func (a u128) log() float64 {
	if a.hi == 0 {
		return math.Log(float64(a.lo)) - 128*math.Ln2
	}
	return math.Log(a.float())
}

// uniform128 draws a uniform 128-bit integer.
func uniform128(r *rand.Rand) u128 { return u128{r.Uint64(), r.Uint64()} }

func bigToU128(x *big.Int) u128 {
	lo := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	hi := new(big.Int).Rsh(x, 64).Uint64()
	return u128{hi, lo}
}

// rrMasses returns the integer masses (out of 2^128) of a k-ary randomized
// response with budget eps: Q ≥ 2^128/(e^ε + k − 1) for each untruthful
// answer, rounded up, and P = 2^128 − (k−1)Q for the truthful one, so that
// 1 ≤ P/Q ≤ e^ε holds exactly. It also returns the realised budget
// log(P/Q) ≤ ε, rounded up.
func rrMasses(name string, eps float64, k int) (p, q u128, realised float64, err error) {
	if err := checkEpsilon(eps); err != nil {
		return u128{}, u128{}, 0, err
	}
	if eps < minRREpsilon || eps > maxRREpsilon {
		return u128{}, u128{}, 0, invalidf("epsilon must be in [2^-40, %d] for %s (its probabilities are integer multiples of 2^-128), got %v", maxRREpsilon, name, eps)
	}
	// q·(1 + 1e-15) ≥ 1/(e^ε + k − 1) in exact arithmetic despite the
	// rounding of exp and of the division.
	qf := 1 / (math.Exp(eps) + float64(k-1)) * (1 + 1e-15)
	qb := new(big.Float).SetPrec(256).SetFloat64(qf)
	qb.SetMantExp(qb, 128)
	qi, acc := qb.Int(nil)
	if acc == big.Below {
		qi.Add(qi, big.NewInt(1))
	}
	two128 := new(big.Int).Lsh(big.NewInt(1), 128)
	pi := new(big.Int).Sub(two128, new(big.Int).Mul(qi, big.NewInt(int64(k-1))))
	if pi.Cmp(qi) < 0 {
		return u128{}, u128{}, 0, invalidf("epsilon %v is too small for %s with k = %d", eps, name, k)
	}
	ratio, _ := new(big.Rat).SetFrac(pi, qi).Float64()
	realised = math.Nextafter(math.Nextafter(math.Log(ratio), math.Inf(1)), math.Inf(1))
	return bigToU128(pi), bigToU128(qi), math.Min(realised, eps), nil
}

// RandomizedResponse is binary randomized response (Warner 1965; LDP
// paper §2): each coordinate of the statistic is one person's bit
// x ∈ {0, 1}, reported truthfully with probability p ≈ e^ε/(1+e^ε) and
// flipped otherwise. The probabilities are integer multiples of 2^-128,
// P/2^128 and Q/2^128 with P/Q ≤ e^ε exactly, and a release compares a
// 128-bit integer uniform with P (no floating-point comparison), so every
// report is exactly Budget().Epsilon-locally-DP for its owner, where the
// reported ε = log(P/Q) (rounded up) is derived from the realised
// probabilities and never exceeds the requested one. Because the
// coordinates belong to different people (parallel composition), Budget
// reports that ε; if one person contributes several coordinates, their
// loss is ε times that number. ε must lie in [2^-40, 40].
//
// RandomizedResponse implements Mechanism, Simulator, Transform (bit kept
// iff u < p) and Density (a mass function on {0, 1}^d).
type RandomizedResponse struct {
	eps   float64
	pInt  u128    // P: keep iff a uniform 128-bit integer is < P
	keep  float64 // p = P/2^128
	lkeep float64 // log p
	lflip float64 // log(1−p)
	dim   int
}

// LocalConfig sets a local randomizer (RandomizedResponse, OUE). It has
// no usable zero value: Epsilon and Dim are required.
type LocalConfig struct {
	// Epsilon is the pure-DP budget of one report, finite and > 0.
	Epsilon float64
	// Dim is the number of people's bits for RandomizedResponse
	// (1 ≤ Dim ≤ MaxDim) and the number of categories for OUE
	// (2 ≤ Dim ≤ MaxDim).
	Dim int
}

// Validate reports whether c is usable by some local randomizer, with an
// error wrapping ErrInvalid naming the field at fault; each constructor
// also checks its own range of Dim.
func (c LocalConfig) Validate() error {
	if err := checkPositive("LocalConfig.Epsilon", c.Epsilon); err != nil {
		return err
	}
	return checkDim("LocalConfig.Dim", c.Dim)
}

// NewRandomizedResponse returns binary randomized response with budget
// cfg.Epsilon for cfg.Dim people's bits (1 ≤ Dim ≤ MaxDim).
func NewRandomizedResponse(cfg LocalConfig) (*RandomizedResponse, error) {
	epsilon, dim := cfg.Epsilon, cfg.Dim
	p, q, real, err := rrMasses("randomized response", epsilon, 2)
	if err != nil {
		return nil, err
	}
	if err := checkDim("dim", dim); err != nil {
		return nil, err
	}
	return &RandomizedResponse{
		eps:   real,
		pInt:  p,
		keep:  p.float(),
		lkeep: p.log(),
		lflip: q.log(),
		dim:   dim,
	}, nil
}

// Budget reports (ε, 0) per person, ε derived from the realised
// probabilities.
func (m *RandomizedResponse) Budget() Budget {
	if m == nil {
		return Budget{}
	}
	return Budget{Epsilon: m.eps}
}

// KeepProb returns the realised p = P/2^128 ≈ e^ε/(1+e^ε) (0 for a nil
// RandomizedResponse).
func (m *RandomizedResponse) KeepProb() float64 {
	if m == nil {
		return 0
	}
	return m.keep
}

func checkBits(s []float64) error {
	for i, v := range s {
		if v != 0 && v != 1 {
			return fmt.Errorf("%w: entry %d is %v, randomized response needs a bit 0 or 1", ErrInvalid, i, v)
		}
	}
	return nil
}

func (m *RandomizedResponse) check(s, dst []float64) error {
	if m == nil {
		return errNilMechanism("*RandomizedResponse")
	}
	if err := checkRelease(s, dst, m.dim); err != nil {
		return err
	}
	return checkBits(s)
}

// Release writes the randomized bits into dst, drawing from the operating
// system's generator whatever r is. Entries of s must be 0 or 1
// (ErrInvalid otherwise).
func (m *RandomizedResponse) Release(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	return withOSRand(func(os *rand.Rand) error { return m.releaseWith(os, s, dst) })
}

// releaseWith is Release drawing from r: exact integer thresholds.
func (m *RandomizedResponse) releaseWith(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	for i, v := range s {
		if uniform128(r).less(m.pInt) {
			dst[i] = v
		} else {
			dst[i] = 1 - v
		}
	}
	return nil
}

// SimulateRelease draws from the law of Release using r (seeded
// generators welcome); for inference only.
func (m *RandomizedResponse) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	return m.releaseWith(r, s, dst)
}

// NoiseDim returns statDim.
func (m *RandomizedResponse) NoiseDim(statDim int) int { return statDim }

// Apply keeps bit i iff u_i < p. Inputs are treated as bits (v ≥ ½ is 1).
// On a nil RandomizedResponse it fills dst with NaN.
func (m *RandomizedResponse) Apply(u, s, dst []float64) {
	if m == nil {
		fillNaN(dst)
		return
	}
	checkApply("RandomizedResponse", u, s, dst, m.dim, m.dim, m.dim)
	for i, v := range s {
		b := 0.0
		if v >= 0.5 {
			b = 1
		}
		if u[i] < m.keep {
			dst[i] = b
		} else {
			dst[i] = 1 - b
		}
	}
}

// LogDensity returns the log mass of the reports sdp given bits s: -Inf
// if a report is not a bit, NaN on a length mismatch or non-bit s.
func (m *RandomizedResponse) LogDensity(sdp, s []float64) float64 {
	if m == nil || len(sdp) != m.dim || len(s) != m.dim || checkBits(s) != nil {
		return math.NaN()
	}
	lp := 0.0
	for i, z := range sdp {
		switch {
		case z != 0 && z != 1:
			return math.Inf(-1)
		case z == s[i]:
			lp += m.lkeep
		default:
			lp += m.lflip
		}
	}
	return lp
}

// EstimateMean returns the unbiased estimate of the population mean of
// the true bits from the reports z: (z̄ − (1−p))/(2p − 1), since
// E z̄ = (1−p) + (2p−1)·x̄.
//
// Being unbiased, the estimate is not confined to [0, 1]: it lies in
// [−(1−p)/(2p−1), p/(2p−1)], the two ends reached when every report is 0
// or every report is 1 (at ε = 1, p ≈ 0.731, that is [−0.86, 1.86]).
// Clamping it to [0, 1] is post-processing that costs no privacy but adds
// bias; callers who need a proportion apply it themselves.
//
// It returns an error wrapping ErrInvalid for empty z, for a
// report that is not 0 or 1 (ErrInvalid, naming it), and on a
// mechanism not built by its constructor.
func (m *RandomizedResponse) EstimateMean(z []float64) (float64, error) {
	if m == nil || m.dim == 0 {
		return 0, errNilMechanism("*RandomizedResponse")
	}
	if len(z) == 0 {
		return 0, invalidf("EstimateMean needs at least one report")
	}
	s := 0.0
	for i, v := range z {
		if v != 0 && v != 1 {
			return 0, fmt.Errorf("%w: report %d is %v, not a bit", ErrInvalid, i, v)
		}
		s += v
	}
	zbar := s / float64(len(z))
	return (zbar - (1 - m.keep)) / (2*m.keep - 1), nil
}

// KaryRandomizedResponse is k-ary (generalized) randomized response: each
// coordinate is one person's category x ∈ {0, …, k−1}, reported truthfully
// with probability p ≈ e^ε/(e^ε + k − 1) and otherwise replaced by one of
// the other k−1 categories uniformly at random (each with probability
// q ≈ 1/(e^ε + k − 1)). As for RandomizedResponse, p = P/2^128 and
// q = Q/2^128 with integers P + (k−1)Q = 2^128 and P/Q ≤ e^ε exactly, a
// release compares one 128-bit integer uniform with integer thresholds,
// and Budget reports ε = log(P/Q) (rounded up, never above the requested
// ε ∈ [2^-40, 60]).
//
// It implements Mechanism, Simulator, Transform and Density.
type KaryRandomizedResponse struct {
	eps    float64
	k      int
	pInt   u128
	p, q   float64
	lp, lq float64
	dim    int
}

// KaryConfig configures NewKaryRandomizedResponse; every field is
// required.
type KaryConfig struct {
	// Epsilon is the budget ε of each person's report (> 0).
	Epsilon float64
	// K is the number of categories (in [2, MaxDim]).
	K int
	// Dim is the number of people reporting (in [1, MaxDim]).
	Dim int
}

// NewKaryRandomizedResponse returns k-ary randomized response (k = cfg.K
// ≥ 2) with budget cfg.Epsilon for cfg.Dim people's categories.
func NewKaryRandomizedResponse(cfg KaryConfig) (*KaryRandomizedResponse, error) {
	epsilon, k, dim := cfg.Epsilon, cfg.K, cfg.Dim
	if k < 2 || k > MaxDim {
		return nil, invalidf("KaryConfig.K: k must be in [2, 2^24 = MaxDim], got %d", k)
	}
	pi, qi, real, err := rrMasses("k-ary randomized response", epsilon, k)
	if err != nil {
		return nil, err
	}
	if err := checkDim("dim", dim); err != nil {
		return nil, err
	}
	return &KaryRandomizedResponse{
		eps: real, k: k, pInt: pi,
		p: pi.float(), q: qi.float(),
		lp: pi.log(), lq: qi.log(),
		dim: dim,
	}, nil
}

// Budget reports (ε, 0) per person, ε derived from the realised
// probabilities.
func (m *KaryRandomizedResponse) Budget() Budget {
	if m == nil {
		return Budget{}
	}
	return Budget{Epsilon: m.eps}
}

// Probs returns the realised probability p of a truthful report and q of
// each other category (0, 0 for a nil KaryRandomizedResponse).
func (m *KaryRandomizedResponse) Probs() (p, q float64) {
	if m == nil {
		return 0, 0
	}
	return m.p, m.q
}

func (m *KaryRandomizedResponse) checkCats(s []float64) error {
	for i, v := range s {
		if v != math.Trunc(v) || v < 0 || v >= float64(m.k) {
			return fmt.Errorf("%w: entry %d is %v, must be a category in {0, …, %d}", ErrInvalid, i, v, m.k-1)
		}
	}
	return nil
}

func (m *KaryRandomizedResponse) check(s, dst []float64) error {
	if m == nil {
		return errNilMechanism("*KaryRandomizedResponse")
	}
	if err := checkRelease(s, dst, m.dim); err != nil {
		return err
	}
	return m.checkCats(s)
}

// Release writes the randomized categories into dst, drawing from the
// operating system's generator whatever r is.
func (m *KaryRandomizedResponse) Release(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	return withOSRand(func(os *rand.Rand) error { return m.releaseWith(os, s, dst) })
}

// releaseWith is Release drawing from r: a 128-bit integer uniform U
// per report; U < P keeps the category, otherwise a uniform integer picks
// one of the others (each has mass exactly Q).
func (m *KaryRandomizedResponse) releaseWith(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	for i, v := range s {
		if uniform128(r).less(m.pInt) {
			dst[i] = v
			continue
		}
		// Untruthful: each other category has the same mass Q.
		j := int(r.Uint64N(uint64(m.k - 1)))
		if float64(j) >= v {
			j++
		}
		dst[i] = float64(j)
	}
	return nil
}

// SimulateRelease draws from the law of Release using r (seeded
// generators welcome); for inference only.
func (m *KaryRandomizedResponse) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	return m.releaseWith(r, s, dst)
}

// apply1 keeps category v iff u < p and otherwise picks the other
// categories by equal sub-intervals of [p, 1).
func (m *KaryRandomizedResponse) apply1(u, v float64) float64 {
	if u < m.p {
		return v
	}
	j := int((u - m.p) / (1 - m.p) * float64(m.k-1))
	if j > m.k-2 {
		j = m.k - 2
	}
	if float64(j) >= v {
		j++
	}
	return float64(j)
}

// NoiseDim returns statDim.
func (m *KaryRandomizedResponse) NoiseDim(statDim int) int { return statDim }

// Apply is the uniform-to-report map used by Release. On a nil
// KaryRandomizedResponse it fills dst with NaN.
func (m *KaryRandomizedResponse) Apply(u, s, dst []float64) {
	if m == nil {
		fillNaN(dst)
		return
	}
	checkApply("KaryRandomizedResponse", u, s, dst, m.dim, m.dim, m.dim)
	for i, v := range s {
		dst[i] = m.apply1(clampU(u[i]), v)
	}
}

// LogDensity returns the log mass of the reports given the categories.
func (m *KaryRandomizedResponse) LogDensity(sdp, s []float64) float64 {
	if m == nil || len(sdp) != m.dim || len(s) != m.dim || m.checkCats(s) != nil {
		return math.NaN()
	}
	lp := 0.0
	for i, z := range sdp {
		switch {
		case z != math.Trunc(z) || z < 0 || z >= float64(m.k):
			return math.Inf(-1)
		case z == s[i]:
			lp += m.lp
		default:
			lp += m.lq
		}
	}
	return lp
}

// EstimateFrequencies writes into dst (length k) the unbiased estimates
// f̂_j = (c_j/N − q)/(p − q) of the category frequencies from reports z,
// c_j the number of reports equal to j. Reports outside {0, …, k−1} are
// an error.
func (m *KaryRandomizedResponse) EstimateFrequencies(z, dst []float64) error {
	if m == nil || m.k == 0 {
		return errNilMechanism("*KaryRandomizedResponse")
	}
	if len(dst) != m.k {
		return fmt.Errorf("%w: dst has length %d, want k = %d", ErrInvalid, len(dst), m.k)
	}
	if len(z) == 0 {
		return invalidf("reports must be non-empty")
	}
	if err := m.checkCats(z); err != nil {
		return err
	}
	for j := range dst {
		dst[j] = 0
	}
	for _, v := range z {
		dst[int(v)]++
	}
	n := float64(len(z))
	for j := range dst {
		dst[j] = (dst[j]/n - m.q) / (m.p - m.q)
	}
	return nil
}

// OUE is optimal unary encoding (Wang et al. 2017; LDP paper eq. 9): a
// person's category k ∈ {0, …, d−1} is one-hot encoded as e ∈ {0,1}^d and
// each bit is randomized independently, reporting
//
//	z_j = 1 with probability ½ if e_j = 1,
//	z_j = 1 with probability q ≈ 1/(1+e^ε) if e_j = 0.
//
// Two inputs differ in two positions, giving a likelihood ratio of at most
// (½·(1−q))/(½·q) = (1−q)/q. q = Q/2^128 is rounded up to an integer
// multiple of 2^-128, a release compares integer uniforms with the
// thresholds ½ and Q/2^128, and Budget reports ε = log((2^128 − Q)/Q) (rounded
// up, never above the requested ε ∈ [2^-40, 60]): one report is exactly
// ε-locally-DP.
//
// The statistic is the one-hot vector itself (exactly one entry 1, the
// others 0). OUE implements Mechanism, Simulator, Transform and Density.
type OUE struct {
	eps     float64
	d       int
	qInt    u128    // Q
	q0      float64 // P(z_j = 1 | e_j = 0) = Q/2^128
	lq0     float64 // log q0
	l1q0    float64 // log(1−q0)
	logHalf float64
}

// NewOUE returns optimal unary encoding with budget cfg.Epsilon over
// cfg.Dim categories, 2 ≤ Dim ≤ MaxDim.
func NewOUE(cfg LocalConfig) (*OUE, error) {
	epsilon, d := cfg.Epsilon, cfg.Dim
	if d < 2 || d > MaxDim {
		return nil, invalidf("LocalConfig.Dim must be in [2, 2^24 = MaxDim] for OUE, got %d", d)
	}
	p, q, real, err := rrMasses("optimal unary encoding", epsilon, 2)
	if err != nil {
		return nil, err
	}
	return &OUE{
		eps:     real,
		d:       d,
		qInt:    q,
		q0:      q.float(),
		lq0:     q.log(),
		l1q0:    p.log(),
		logHalf: -math.Ln2,
	}, nil
}

// Budget reports (ε, 0) per person, ε derived from the realised
// probabilities.
func (m *OUE) Budget() Budget {
	if m == nil {
		return Budget{}
	}
	return Budget{Epsilon: m.eps}
}

// Dim returns d (0 for a nil OUE).
func (m *OUE) Dim() int {
	if m == nil {
		return 0
	}
	return m.d
}

// FlipProb returns the realised q ≈ 1/(1+e^ε), the probability that a 0
// bit is reported as 1 (0 for a nil OUE).
func (m *OUE) FlipProb() float64 {
	if m == nil {
		return 0
	}
	return m.q0
}

func (m *OUE) checkOneHot(s []float64) error {
	ones := 0
	for i, v := range s {
		switch v {
		case 1:
			ones++
		case 0:
		default:
			return fmt.Errorf("%w: OUE entry %d is %v, input must be one-hot", ErrInvalid, i, v)
		}
	}
	if ones != 1 {
		return fmt.Errorf("%w: OUE input has %d ones, must be one-hot", ErrInvalid, ones)
	}
	return nil
}

func (m *OUE) check(s, dst []float64) error {
	if m == nil {
		return errNilMechanism("*OUE")
	}
	if err := checkRelease(s, dst, m.d); err != nil {
		return err
	}
	return m.checkOneHot(s)
}

// Release writes the randomized bit vector into dst, drawing from the
// operating system's generator whatever r is. s must be one-hot.
func (m *OUE) Release(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	return withOSRand(func(os *rand.Rand) error { return m.releaseWith(os, s, dst) })
}

// releaseWith is Release drawing from r with integer thresholds.
func (m *OUE) releaseWith(r *rand.Rand, s, dst []float64) error {
	if err := m.check(s, dst); err != nil {
		return err
	}
	for i, v := range s {
		one := uniform128(r).less(m.qInt)
		if v == 1 {
			one = r.Uint64()>>63 == 1
		}
		if one {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
	return nil
}

// SimulateRelease draws from the law of Release using r (seeded
// generators welcome); for inference only.
func (m *OUE) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	return m.releaseWith(r, s, dst)
}

func (m *OUE) bit(u, e float64) float64 {
	p := m.q0
	if e >= 0.5 {
		p = 0.5
	}
	if u < p {
		return 1
	}
	return 0
}

// NoiseDim returns statDim.
func (m *OUE) NoiseDim(statDim int) int { return statDim }

// Apply reports z_j = 1 iff u_j < P(z_j = 1 | e_j). On a nil OUE it
// fills dst with NaN.
func (m *OUE) Apply(u, s, dst []float64) {
	if m == nil {
		fillNaN(dst)
		return
	}
	checkApply("OUE", u, s, dst, m.d, m.d, m.d)
	for i, v := range s {
		dst[i] = m.bit(u[i], v)
	}
}

// LogDensity returns the log mass of the report z = sdp given the one-hot
// input s: -Inf if z is not a bit vector, NaN on a length mismatch or
// non-one-hot s.
func (m *OUE) LogDensity(sdp, s []float64) float64 {
	if m == nil || len(sdp) != m.d || len(s) != m.d || m.checkOneHot(s) != nil {
		return math.NaN()
	}
	lp := 0.0
	for i, z := range sdp {
		if z != 0 && z != 1 {
			return math.Inf(-1)
		}
		switch {
		case s[i] == 1:
			lp += m.logHalf
		case z == 1:
			lp += m.lq0
		default:
			lp += m.l1q0
		}
	}
	return lp
}

// EstimateFrequencies writes into dst the unbiased frequency estimates
//
//	f̂_k = (c_k/N − q)/(½ − q),  q = 1/(1+e^ε),
//
// from the per-category sums c_k = Σ_i z_{i,k} of N reports. (The LDP
// paper prints the estimator as (c_k/N − q)/(n − q) with its symbol q
// reused for ½; the form here is the one that is unbiased: E c_k/N =
// q + (½ − q) f_k.) Counts must be whole numbers in [0, n].
func (m *OUE) EstimateFrequencies(counts []float64, n int, dst []float64) error {
	if m == nil || m.d == 0 {
		return errNilMechanism("*OUE")
	}
	if len(counts) != m.d || len(dst) != m.d {
		return fmt.Errorf("%w: counts and dst must have length d = %d, got %d and %d", ErrInvalid, m.d, len(counts), len(dst))
	}
	if n < 1 {
		return invalidf("number of reports must be >= 1, got %d", n)
	}
	fn := float64(n)
	for k, c := range counts {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return fmt.Errorf("%w: counts[%d] is %v", ErrInvalid, k, c)
		}
		if c != math.Trunc(c) || c < 0 || c > fn {
			return fmt.Errorf("%w: counts[%d] = %v is not a count of reports in [0, %d]", ErrInvalid, k, c, n)
		}
	}
	for k, c := range counts {
		dst[k] = (c/fn - m.q0) / (0.5 - m.q0)
	}
	return nil
}
