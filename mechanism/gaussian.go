package mechanism

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// GaussianConfig configures the calibrated Gaussian constructors
// (NewAnalyticGaussian, NewClassicalGaussian, NewProbabilisticGaussian).
type GaussianConfig struct {
	// Epsilon is the privacy budget ε (> 0; < 1 for the classical
	// calibration).
	Epsilon float64
	// Delta is δ ∈ (0, 1).
	Delta float64
	// Sensitivity is the ℓ2 sensitivity Δ2 of the statistic (> 0).
	Sensitivity float64
	// Dim is the dimension of the statistic (in [1, MaxDim]).
	Dim int
}

// Validate reports whether c is a usable configuration, with an error
// naming the offending field.
func (c GaussianConfig) Validate() error {
	if err := checkPositive("GaussianConfig.Epsilon: epsilon", c.Epsilon); err != nil {
		return err
	}
	if !(c.Delta > 0 && c.Delta < 1) {
		return invalidf("GaussianConfig.Delta: delta must be in (0, 1), got %v", c.Delta)
	}
	if err := checkPositive("GaussianConfig.Sensitivity: sensitivity", c.Sensitivity); err != nil {
		return err
	}
	return checkDim("GaussianConfig.Dim: dim", c.Dim)
}

// Gaussian is the Gaussian mechanism, released on a lattice: each
// coordinate of a statistic s receives independent noise of standard
// deviation about σ. Its privacy guarantee depends on the calibration of
// σ to (ε, δ, Δ2):
//
//   - NewAnalyticGaussian: σ from AnalyticGaussianSigma, the tight (ε, δ)
//     calibration of Balle & Wang (2018) (LDP paper eq. 2), valid for
//     every ε > 0.
//   - NewClassicalGaussian: σ = Δ2·√(2 ln(1.25/δ))/ε (Dwork & Roth
//     Thm. A.1; modips Def. 3), valid for ε < 1 only.
//   - NewProbabilisticGaussian: the (ε, δ)-probabilistic-DP calibration of
//     modips Def. 3.
//   - NewGaussian: a bare σ with no privacy claim (Budget reports ε = +Inf).
//
// Release (the curator's path) is floating-point safe: it releases
//
//	s_dp,i = γ·(round(s_i/γ) + Y_i),
//
// on a power-of-two grid γ (between 2^-30·σ and 2^-29·σ), with Y_i
// independent discrete Gaussians N_Z(0, S), P(Y = y) ∝ exp(−y²/(2S)), S
// an integer ≥ (σ'/γ)², sampled exactly from the operating system's
// generator by rejection from uniform strips, every trial an exact
// comparison of random bits with the binary expansion of its probability
// (see gaussstrip.go; about 37 random bits per coordinate).
//
// Exact guarantee. Rounding to the grid moves each coordinate by at most
// γ/2, so neighbouring statistics with ‖s − s'‖2 ≤ Δ2 have grid indices
// that differ by an integer vector of ℓ2 norm at most Δ' /γ with
// Δ' = Δ2 + √d·γ. σ' is the calibration of the constructor applied to
// Δ' (σ' = σ·Δ'/Δ2 up to rounding, a relative increase of √d·γ/Δ2),
// and the constructor verifies that the analytic privacy profile of
// Balle & Wang at noise σ_eff = γ√S and sensitivity Δ' is at most
// δ·(1 − 10^-9). The discrete Gaussian with an integer shift of ℓ2 norm
// Δ'/γ is ½(Δ'/σ_eff)²-zCDP exactly like the continuous one (Canonne,
// Kamath & Steinke 2020, Thm. 14), and its (ε, δ) profile differs from
// the continuous profile only by terms of order d·exp(−π²S) (their
// Thm. 15 and Cor. 9); with S ≥ 2^58 these are below e^-(2^60), far
// inside the 10^-9 margin. So the release is (ε, δ)-DP as claimed for
// all three calibrations (the classical and probabilistic σ are never
// below the analytic one; the check above covers them too).
//
// Gaussian implements Mechanism, Simulator, Transform and Density for the
// law of Release: the density of x is the discrete Gaussian pmf of
// round(x/γ) − round(s/γ) divided by γ (the lattice law dequantized over
// its grid cell), and Apply is round(√S·Φ⁻¹(u)) on the lattice, whose
// pmf matches the discrete Gaussian to a relative 1/(24S) < 2^-62.
type Gaussian struct {
	sigma  float64 // nominal σ
	dim    int
	budget Budget
	grid   int
	dg     dgauss
	sqrtS  float64
	lnorm  float64 // −log√(2πS) − log γ
}

// ScaleConfig sets a Gaussian mechanism by its noise scale instead of a
// privacy budget. It has no usable zero value: Sigma and Dim are required.
type ScaleConfig struct {
	// Sigma is the noise standard deviation, finite and > 0.
	Sigma float64
	// Dim is the dimension of the statistic, in [1, MaxDim].
	Dim int
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// naming the field at fault.
func (c ScaleConfig) Validate() error {
	if err := checkPositive("ScaleConfig.Sigma", c.Sigma); err != nil {
		return err
	}
	return checkDim("ScaleConfig.Dim", c.Dim)
}

// NewGaussian returns a Gaussian mechanism with noise standard deviation
// cfg.Sigma on a cfg.Dim-dimensional statistic. It makes no privacy
// claim: its Budget is (+Inf, 0). Use the calibrated constructors to
// attach one.
func NewGaussian(cfg ScaleConfig) (*Gaussian, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sigma, dim := cfg.Sigma, cfg.Dim
	g := &Gaussian{sigma: sigma, dim: dim, budget: Budget{Epsilon: math.Inf(1)}}
	if err := g.setLattice(floorLog2(sigma)-29, sigma); err != nil {
		return nil, err
	}
	return g, nil
}

// setLattice fixes the grid 2^gridExp and the discrete variance
// S ≥ (sigmaEff/γ)².
func (g *Gaussian) setLattice(gridExp int, sigmaEff float64) error {
	if gridExp < -1070 || gridExp > maxGridExp {
		return invalidf("sigma %v gives a release grid 2^%d outside [2^-1070, 2^%d]", sigmaEff, gridExp, maxGridExp)
	}
	dg, err := newDGauss(math.Ldexp(sigmaEff, -gridExp) * (1 + 1e-12))
	if err != nil {
		return err
	}
	g.grid, g.dg, g.sqrtS = gridExp, dg, dg.sigma()
	g.lnorm = -0.5*math.Log(float64(dg.s)) - lnSqrt2Pi - float64(gridExp)*math.Ln2
	return nil
}

// NewAnalyticGaussian returns the analytic Gaussian mechanism (Balle &
// Wang 2018) for a Dim-dimensional statistic of ℓ2 sensitivity
// Sensitivity: the smallest σ giving (Epsilon, Delta)-DP. Its budget is
// (Epsilon, Delta).
//
// Upper limit. Every calibrated constructor refuses a configuration whose
// release lattice cannot represent statistics up to 2^16·Sensitivity in
// magnitude (the grid is about 2^-29·σ and a release needs |s/γ| < 2^52;
// see the Gaussian type comment): for the analytic calibration that is
// Epsilon above about 4,000, where σ < 2^-7·Sensitivity. Such an ε carries
// no meaningful privacy, and a mechanism built for it would refuse
// ordinary statistics at release time.
func NewAnalyticGaussian(cfg GaussianConfig) (*Gaussian, error) {
	return calibrated(cfg, analyticSigma)
}

// NewClassicalGaussian returns the classical Gaussian mechanism with
// σ = Δ2·√(2 ln(1.25/δ))/ε, which is (ε, δ)-DP for ε < 1 (Dwork & Roth
// 2014, Thm. A.1). It returns an error for Epsilon ≥ 1, where the theorem
// does not apply; use NewAnalyticGaussian there.
func NewClassicalGaussian(cfg GaussianConfig) (*Gaussian, error) {
	return calibrated(cfg, classicalSigma)
}

// NewProbabilisticGaussian returns the Gaussian mechanism calibrated for
// (ε, δ)-probabilistic DP (modips Def. 3): σ from
// ProbabilisticGaussianSigma. Probabilistic DP (the privacy loss exceeds ε
// with probability at most δ) implies (ε, δ)-DP, so Budget reports
// (Epsilon, Delta).
func NewProbabilisticGaussian(cfg GaussianConfig) (*Gaussian, error) {
	return calibrated(cfg, probabilisticSigma)
}

// minGaussianRange is the smallest release range, in units of the
// sensitivity, that a calibrated Gaussian must offer: a release needs
// |s/γ| < 2^52 with γ about 2^-29·σ, so the range is about 2^23·σ, and a
// σ below 2^-7·Sensitivity (ε of a few thousand) would refuse statistics
// only a few thousand sensitivities from zero.
const minGaussianRange = 1 << 16

// latticeMargin is the relative slack by which the lattice release's
// analytic δ must stay below the budget's δ.
const latticeMargin = 1e-9

// calibrated returns the Gaussian mechanism with σ computed by one of the
// calibration functions for cfg, released on a lattice whose rounding is
// absorbed into the sensitivity (see the Gaussian type comment).
func calibrated(cfg GaussianConfig, cal func(eps, delta, sens2 float64) (float64, error)) (*Gaussian, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sigma, err := cal(cfg.Epsilon, cfg.Delta, cfg.Sensitivity)
	if err != nil {
		return nil, err
	}
	g := &Gaussian{sigma: sigma, dim: cfg.Dim, budget: Budget{Epsilon: cfg.Epsilon, Delta: cfg.Delta}}
	rd := math.Sqrt(float64(cfg.Dim))
	ge := floorLog2(sigma) - 29
	sensL := cfg.Sensitivity + rd*math.Ldexp(1, ge)
	sigL, err := cal(cfg.Epsilon, cfg.Delta*(1-latticeMargin), sensL)
	if err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		if err := g.setLattice(ge, sigL); err != nil {
			return nil, err
		}
		if AnalyticGaussianDelta(cfg.Epsilon, g.NoiseSigma(), sensL) <= cfg.Delta*(1-latticeMargin) {
			break
		}
		if i > 100 {
			return nil, fmt.Errorf("mechanism: Gaussian lattice calibration failed for %+v", cfg)
		}
		sigL *= 1 + 1e-9
	}
	if rng := math.Ldexp(1, 52+g.grid); rng < minGaussianRange*cfg.Sensitivity {
		return nil, invalidf("GaussianConfig: epsilon %v and delta %v give sigma %v and a release grid 2^%d on which only statistics below %v = %.3g·Sensitivity in magnitude are representable; the calibrated constructors need at least 2^16·Sensitivity (lower Epsilon)",
			cfg.Epsilon, cfg.Delta, sigma, g.grid, rng, rng/cfg.Sensitivity)
	}
	return g, nil
}

// Sigma returns the nominal noise standard deviation σ of the calibration
// (for sensitivity Δ2). The released noise has standard deviation about
// NoiseSigma() ≥ Sigma(). A nil Gaussian has σ = 0.
func (g *Gaussian) Sigma() float64 {
	if g == nil {
		return 0
	}
	return g.sigma
}

// NoiseSigma returns γ√S, the scale parameter of the discrete Gaussian
// noise actually released (0 for a nil Gaussian).
func (g *Gaussian) NoiseSigma() float64 {
	if g == nil {
		return 0
	}
	return math.Ldexp(g.sqrtS, g.grid)
}

// Grid returns the lattice spacing γ (0 for a nil Gaussian).
func (g *Gaussian) Grid() float64 {
	if g == nil {
		return 0
	}
	return math.Ldexp(1, g.grid)
}

// Dim returns the dimension of the statistic (0 for a nil Gaussian).
func (g *Gaussian) Dim() int {
	if g == nil {
		return 0
	}
	return g.dim
}

// Budget reports the calibrated (ε, δ), or (+Inf, 0) for NewGaussian.
func (g *Gaussian) Budget() Budget {
	if g == nil {
		return Budget{}
	}
	return g.budget
}

func (g *Gaussian) gridExp(int) int { return g.grid }

func (g *Gaussian) check(s, dst []float64) error {
	if g == nil {
		return errNilMechanism("*Gaussian")
	}
	if err := checkRelease(s, dst, g.dim); err != nil {
		return err
	}
	return checkGrid(s, g.gridExp)
}

// Release writes the secure lattice release of s into dst, drawing from
// the operating system's generator whatever r is (r may be nil); errors
// as for Laplace.Release.
func (g *Gaussian) Release(r *rand.Rand, s, dst []float64) error {
	if err := g.check(s, dst); err != nil {
		return err
	}
	return withOSBits(func(b *bitSource) error { g.releaseBits(b, s, dst); return nil })
}

// releaseWith is Release drawing from r.
func (g *Gaussian) releaseWith(r *rand.Rand, s, dst []float64) error {
	if err := g.check(s, dst); err != nil {
		return err
	}
	return withSeededBits(r, func(b *bitSource) error { g.releaseBits(b, s, dst); return nil })
}

// releaseBits draws the lattice release of a checked s from b.
func (g *Gaussian) releaseBits(b *bitSource, s, dst []float64) {
	for i, v := range s {
		k, _ := gridIndex(v, g.grid)
		dst[i] = latticeValue(k, g.dg.sampleBits(b), g.grid)
	}
}

// SimulateRelease draws from the law of Release using r (seeded
// generators welcome): round(√S·z) on the lattice with z standard normal.
// It is for inference, never for releasing confidential data.
func (g *Gaussian) SimulateRelease(r *rand.Rand, s, dst []float64) error {
	if r == nil {
		return invalidf("r: SimulateRelease needs a non-nil *rand.Rand")
	}
	if err := g.check(s, dst); err != nil {
		return err
	}
	for i, v := range s {
		k, _ := gridIndex(v, g.grid)
		dst[i] = latticeValue(k, int64(math.Round(g.sqrtS*r.NormFloat64())), g.grid)
	}
	return nil
}

// NoiseDim returns statDim.
func (g *Gaussian) NoiseDim(statDim int) int { return statDim }

// Apply computes γ·(round(s/γ) + round(√S·Φ⁻¹(u))) into dst (uniforms are
// clamped into [2^-53, 1 − 2^-53]). On a nil Gaussian it fills dst with
// NaN.
func (g *Gaussian) Apply(u, s, dst []float64) {
	if g == nil {
		fillNaN(dst)
		return
	}
	checkApply("Gaussian", u, s, dst, g.dim, g.dim, g.dim)
	for i, v := range s {
		k, _ := gridIndex(v, g.grid)
		dst[i] = latticeValue(k, int64(math.Round(g.sqrtS*normQuantile(clampU(u[i])))), g.grid)
	}
}

// LogDensity returns Σ_i [−(k_i − c_i)²/(2S) − log√(2πS) − log γ] with
// k_i = round(sdp_i/γ), c_i = round(s_i/γ): the log density of the
// lattice release dequantized over its grid cells (the normalising
// constant of N_Z(0, S) equals √(2πS) to a relative e^(−2π²S)). NaN on a
// length mismatch.
func (g *Gaussian) LogDensity(sdp, s []float64) float64 {
	if g == nil || len(sdp) != g.dim || len(s) != g.dim {
		return math.NaN()
	}
	// k and c are round(sdp_i/γ) and round(s_i/γ) as math.Round and
	// math.Ldexp give them (latticeIndex, bit for bit).
	ss := 0.0
	s = s[:len(sdp)]
	if u := latticeUnit(g.grid); u != 0 {
		for i, x := range sdp {
			z := roundHalfAway(x*u) - roundHalfAway(s[i]*u)
			ss += z * z
		}
	} else {
		for i, x := range sdp {
			z := latticeIndex(x, g.grid) - latticeIndex(s[i], g.grid)
			ss += z * z
		}
	}
	return -0.5*ss/float64(g.dg.s) + float64(g.dim)*g.lnorm
}

// ClassicalGaussianSigma returns the σ of NewClassicalGaussian(cfg),
// σ = Δ2·√(2 ln(1.25/δ))/ε with ε = cfg.Epsilon ∈ (0, 1), δ = cfg.Delta ∈
// (0, 1) and Δ2 = cfg.Sensitivity > 0 (before the lattice's adjustment;
// cfg.Dim is not used). Errors wrap ErrInvalid and name the field.
func ClassicalGaussianSigma(cfg GaussianConfig) (float64, error) {
	return classicalSigma(cfg.Epsilon, cfg.Delta, cfg.Sensitivity)
}

// classicalSigma is ClassicalGaussianSigma of (ε, δ, Δ2).
func classicalSigma(eps, delta, sens2 float64) (float64, error) {
	if err := checkGaussianCalibration(eps, delta, sens2); err != nil {
		return 0, err
	}
	if eps >= 1 {
		return 0, invalidf("GaussianConfig.Epsilon: epsilon must be < 1 for the classical Gaussian calibration, got %v", eps)
	}
	return sigmaResult(sens2*math.Sqrt(2*math.Log(1.25/delta))/eps, eps, delta, sens2)
}

// ProbabilisticGaussianSigma returns the σ of
// NewProbabilisticGaussian(cfg), the (ε, δ)-probabilistic-DP calibration
// of modips Def. 3,
//
//	σ = Δ2·(√(Φ⁻¹(δ/2)² + 2ε) − Φ⁻¹(δ/2)) / (2ε),
//
// with ε = cfg.Epsilon > 0, δ = cfg.Delta ∈ (0, 1) and Δ2 =
// cfg.Sensitivity > 0 (cfg.Dim is not used). Errors wrap ErrInvalid and
// name the field.
func ProbabilisticGaussianSigma(cfg GaussianConfig) (float64, error) {
	return probabilisticSigma(cfg.Epsilon, cfg.Delta, cfg.Sensitivity)
}

// probabilisticSigma is ProbabilisticGaussianSigma of (ε, δ, Δ2).
func probabilisticSigma(eps, delta, sens2 float64) (float64, error) {
	if err := checkGaussianCalibration(eps, delta, sens2); err != nil {
		return 0, err
	}
	z := normQuantile(delta / 2)
	return sigmaResult(sens2*(math.Sqrt(z*z+2*eps)-z)/(2*eps), eps, delta, sens2)
}

// checkGaussianCalibration validates the fields of a GaussianConfig that
// the Gaussian calibrations read, naming them: ε = Epsilon > 0,
// δ = Delta ∈ (0, 1) and the ℓ2 sensitivity sens2 = Sensitivity > 0 (not
// Dim: σ does not depend on it).
func checkGaussianCalibration(eps, delta, sens2 float64) error {
	if err := checkPositive("GaussianConfig.Epsilon: epsilon", eps); err != nil {
		return err
	}
	if !(delta > 0 && delta < 1) {
		return invalidf("GaussianConfig.Delta: delta must be in (0, 1) for a Gaussian calibration, got %v", delta)
	}
	return checkPositive("GaussianConfig.Sensitivity: sensitivity", sens2)
}

// checkDeltaPositive validates δ ∈ (0, 1) for approximate-DP calibrations.
func checkDeltaPositive(delta float64) error {
	if !(delta > 0 && delta < 1) {
		return invalidf("delta must be in (0, 1) for a Gaussian calibration, got %v", delta)
	}
	return nil
}

// AnalyticGaussianDelta returns the smallest δ for which the Gaussian
// mechanism with noise σ and ℓ2 sensitivity sens2 is (ε, δ)-DP (Balle &
// Wang 2018, Thm. 8; LDP paper eq. 2):
//
//	δ(σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε·Φ(−Δ/(2σ) − εσ/Δ).
//
// The two terms nearly cancel in the usual regime, so δ is evaluated
// without subtraction: with x = εσ/Δ, h = Δ/(2σ) (ε = 2hx) and the Mills
// ratio R(y) = Φ(−y)/φ(y), e^ε·Φ(−h−x) = φ(x−h)·R(x+h), hence
//
//	δ = φ(x−h)·(R(x−h) − R(x+h)) = φ(x−h)·∫_{x−h}^{x+h} (1 − y·R(y)) dy,
//
// whose integrand is positive and is computed from a continued fraction
// for y > 2 (1 − yR = c/(y + c), no cancellation); the integral is taken
// by 8-point Gauss–Legendre quadrature on pieces of width ≤ 1/4. When
// the second term is below half the first there is no cancellation and
// the direct form Φ(a)(1 − e^{lb−la}) is used. Both agree with 60-digit
// references to max(2e-13, 2e-15·(1 + x²)) relative (x² measures the
// conditioning of δ in x)
// (testdata/analytic_gaussian_delta.txt).
// It returns NaN for invalid arguments.
func AnalyticGaussianDelta(eps, sigma, sens2 float64) float64 {
	if !(eps > 0) || !(sigma > 0) || !(sens2 > 0) || math.IsInf(eps, 1) || math.IsInf(sigma, 1) || math.IsInf(sens2, 1) {
		return math.NaN()
	}
	a := sens2/(2*sigma) - eps*sigma/sens2
	b := -sens2/(2*sigma) - eps*sigma/sens2
	la := normLogCDF(a)
	lb := eps + normLogCDF(b)
	if lb >= la {
		return 0
	}
	x, h := eps*sigma/sens2, sens2/(2*sigma)
	if lb-la < -math.Ln2 || !(h < 32) || x-h < -8 {
		// Φ(a) − e^ε Φ(b) = Φ(a)(1 − e^{lb−la}): no severe cancellation.
		return -math.Exp(la) * math.Expm1(lb-la)
	}
	lo, hi := x-h, x+h
	n := int(math.Ceil((hi - lo) / 0.25))
	w := (hi - lo) / float64(n)
	sum := 0.0
	for i := 0; i < n; i++ {
		c := lo + (float64(i)+0.5)*w
		part := 0.0
		for j, t := range glNodes8 {
			part += glWeights8[j] * (millsComplement(c-0.5*w*t) + millsComplement(c+0.5*w*t))
		}
		sum += part * 0.5 * w
	}
	return math.Exp(-0.5*lo*lo-lnSqrt2Pi) * sum
}

// glNodes8 and glWeights8 are the positive nodes and weights of 8-point
// Gauss–Legendre quadrature on [−1, 1].
var (
	glNodes8   = [4]float64{0.18343464249564980494, 0.52553240991632898582, 0.79666647741362673959, 0.96028985649753623168}
	glWeights8 = [4]float64{0.36268378337836198297, 0.31370664587788728734, 0.22238103445337447054, 0.10122853629037625915}
)

// millsComplement returns 1 − y·R(y), R(y) = Φ(−y)/φ(y) the Mills ratio,
// without cancellation: directly for y ≤ 2 (where y·R(y) ≤ 0.85) and by
// the continued fraction R(y) = 1/(y + c), c = 1/(y + 2/(y + 3/(y + …))),
// as c/(y + c) beyond.
func millsComplement(y float64) float64 {
	if y <= 2 {
		r := math.Exp(normLogCDF(-y) + 0.5*y*y + lnSqrt2Pi)
		return 1 - y*r
	}
	// Backward evaluation of K_n = n/(y + K_{n+1}), c = K_1.
	k := 0.0
	for n := 160; n >= 1; n-- {
		k = float64(n) / (y + k)
	}
	return k / (y + k)
}

// deltaEvalMargin is the relative margin by which AnalyticGaussianSigma
// keeps δ(σ) below the target δ.
const deltaEvalMargin = 1e-12

// AnalyticGaussianSigma returns the smallest noise standard deviation σ
// for which the Gaussian mechanism on a statistic of ℓ2 sensitivity
// Δ2 = cfg.Sensitivity > 0 is (ε, δ)-DP, ε = cfg.Epsilon > 0 and
// δ = cfg.Delta ∈ (0, 1), following the analytic calibration of Balle &
// Wang (2018): the σ of NewAnalyticGaussian(cfg) before the lattice's
// adjustment (cfg.Dim is not used: σ does not depend on it).
// δ(σ) (AnalyticGaussianDelta) is strictly decreasing in σ; the root of
// δ(σ) = δ is bracketed and bisected in log σ until the bracket is
// narrower than 1e-14 relative, and the upper end (which satisfies
// δ(σ) ≤ δ) is returned, so the result errs on the private side by at
// most that much. Errors wrap ErrInvalid and name the field.
func AnalyticGaussianSigma(cfg GaussianConfig) (float64, error) {
	return analyticSigma(cfg.Epsilon, cfg.Delta, cfg.Sensitivity)
}

// analyticSigma is AnalyticGaussianSigma of (ε, δ, Δ2).
func analyticSigma(eps, delta, sens2 float64) (float64, error) {
	if err := checkGaussianCalibration(eps, delta, sens2); err != nil {
		return 0, err
	}
	// Work with Δ = 1 and scale at the end: δ depends on σ/Δ only.
	// The target carries a relative margin of 1e-12, which covers the
	// evaluation error of AnalyticGaussianDelta measured against mpmath
	// (about x²·2e-15 with x = εσ/Δ, tested for every δ ≥ 1e-100), so that
	// δ(σ) ≤ δ holds in exact arithmetic.
	target := delta * (1 - deltaEvalMargin)
	f := func(s float64) float64 { return AnalyticGaussianDelta(eps, s, 1) }
	// Start from the classical-style guess and expand a bracket
	// lo < σ* ≤ hi with f(lo) > delta ≥ f(hi).
	guess := math.Sqrt(2*math.Log(1.25/delta)) / eps
	lo, hi := guess, guess
	for i := 0; f(hi) > target; i++ {
		hi *= 2
		if i > 2100 {
			return 0, invalidf("analytic Gaussian calibration did not bracket sigma for epsilon=%v delta=%v", eps, delta)
		}
	}
	for i := 0; f(lo) <= target; i++ {
		lo /= 2
		if i > 2100 || lo == 0 {
			return 0, invalidf("analytic Gaussian calibration did not bracket sigma for epsilon=%v delta=%v", eps, delta)
		}
	}
	for hi-lo > 1e-14*hi {
		mid := math.Sqrt(lo * hi)
		if mid <= lo || mid >= hi {
			break
		}
		if f(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
	}
	// δ(σ) is scale invariant in exact arithmetic only; nudge the scaled
	// σ up by a few ulps if rounding put δ(σ·Δ; Δ) above the target, so
	// the returned σ always satisfies the guarantee it is computed for.
	sigma := hi * sens2
	for i := 0; i < 64 && AnalyticGaussianDelta(eps, sigma, sens2) > target; i++ {
		sigma = math.Nextafter(sigma, math.Inf(1))
	}
	return sigmaResult(sigma, eps, delta, sens2)
}

// sigmaResult returns a calibrated σ, or an error when the arguments put
// it outside the positive normal finite numbers (an overflow to +Inf or
// an underflow, which no release could use).
func sigmaResult(sigma, eps, delta, sens2 float64) (float64, error) {
	if err := checkResult(fmt.Sprintf("Gaussian sigma for epsilon=%v, delta=%v, sensitivity=%v", eps, delta, sens2), sigma); err != nil {
		return 0, err
	}
	return sigma, nil
}
