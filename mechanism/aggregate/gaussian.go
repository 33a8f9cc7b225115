package aggregate

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// Zero-concentrated DP releases. With Config.Rho > 0 (and Epsilon = 0)
// Count, BoundedSum, BoundedMean and Histogram add discrete Gaussian noise
// instead of discrete Laplace noise and are ρ-zCDP: the statistic, an
// integer in lattice units, is released as s + Z with Z ~ N_{γ'Z}(0, σ'²),
// the secure discrete Gaussian of mechanism.NewGaussian on a grid γ' ≤ 1
// (so s lies on it exactly), with σ' ≥ σ = Δ2/√(2ρ) for the ℓ2
// sensitivity Δ2 of the statistic. By Canonne, Kamath & Steinke (2020,
// Thm. 4) the release is Δ2²/(2σ'²) ≤ ρ zCDP. The accountant is charged
// with Accountant.SpendRho(ρ), which converts to (ε, δ) with the tight
// conversion of mechanism.ZCDPEpsilon; Result.Rho reports ρ. The
// statistic is clamped to ±(2^52·γ' − 1) lattice units first when γ' < 1
// (at least σ·2^22: four million noise standard deviations), so that
// s + Z is exact on the grid γ'.

// gaussNoise adds discrete Gaussian noise through mechanism.Gaussian.
type gaussNoise struct {
	g      *mechanism.Gaussian
	sigma  float64 // σ asked of mechanism.NewGaussian
	seeded bool
}

// model returns the law of the noise.
func (n gaussNoise) model() NoiseModel { return NoiseModel{Kind: DiscreteGaussian, Sigma: n.sigma} }

// newGaussNoise returns the noise for an integer statistic of ℓ2
// sensitivity sens2 (lattice units) at ρ-zCDP.
func newGaussNoise(sens2, rho float64, seeded bool) (gaussNoise, error) {
	if !(sens2 >= 1) || sens2 > maxPlanSens {
		return gaussNoise{}, invalidf("ℓ2 sensitivity in lattice units %v outside [1, 2^33]", sens2)
	}
	sigma := sens2 / math.Sqrt(2*rho)
	if sigma > maxScale {
		return gaussNoise{}, invalidf("noise standard deviation %v lattice units exceeds 2^45 (rho %v too small for the bounds)", sigma, rho)
	}
	g, err := mechanism.NewGaussian(mechanism.ScaleConfig{Sigma: sigma, Dim: 1})
	if err != nil {
		return gaussNoise{}, invalidf("discrete Gaussian with sigma %v: %v", sigma, err)
	}
	return gaussNoise{g: g, sigma: sigma, seeded: seeded}, nil
}

// scale returns the standard deviation σ' of the noise.
func (n gaussNoise) scale() float64 { return n.g.NoiseSigma() }

// gaussLimit returns the largest statistic a discrete Gaussian on the
// grid γ' (lattice units) takes: |s/γ'| < 2^52, i.e. 2^52·γ' − 1 when
// γ' < 1 (at least about σ·2^22, since γ' ≥ σ·2^-30), else 2^52.
func gaussLimit(grid float64) int64 {
	if grid >= 1 {
		return maxStat
	}
	return int64(math.Ldexp(grid, 52)) - 1
}

// limit returns gaussLimit of the noise's grid.
func (n gaussNoise) limit() int64 { return gaussLimit(n.g.Grid()) }

// add returns clamp(s) + Z.
func (n gaussNoise) add(r *rand.Rand, s int64) (float64, error) {
	var in, out [1]float64
	in[0] = float64(clampStat(s, n.limit()))
	var m mechanism.Mechanism = n.g
	if n.seeded {
		m = mechanism.Reproducible(n.g)
	}
	if err := m.Release(r, in[:], out[:]); err != nil {
		return 0, invalidf("discrete Gaussian release: %v", err)
	}
	return out[0], nil
}
