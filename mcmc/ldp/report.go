package ldp

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// The local-DP reports. A person's report is a release of confidential
// data: Release draws its noise through the mechanism's secure release
// path, from the operating system's generator, whatever *rand.Rand it is
// given. ReleaseSeeded is the explicit opt-out for simulation studies and
// tests that must be reproducible: it draws the same law from r. Anyone
// who knows r's seed can subtract the noise, so ReleaseSeeded must never
// produce a real person's report.

// report releases the clipped value v through lap: from the operating
// system's generator, or from r when seeded.
func report(lap *mechanism.Laplace, r *rand.Rand, v float64, seeded bool) (float64, error) {
	if lap == nil {
		return 0, fmt.Errorf("ldp: report model used without its constructor: %w", ErrInvalid)
	}
	var s, dst [1]float64
	s[0] = v
	var mech mechanism.Mechanism = lap
	src := r
	if !seeded {
		src = mechanism.NewCryptoRand()
	} else if r == nil {
		return 0, fmt.Errorf("ldp: a seeded report needs a non-nil *rand.Rand: %w", ErrInvalid)
	} else {
		mech = mechanism.Reproducible(lap)
	}
	if err := mech.Release(src, s[:], dst[:]); err != nil {
		return 0, fmt.Errorf("ldp: %w: %w", ErrInvalid, err)
	}
	return dst[0], nil
}

// ReleaseSeeded is Release with the noise drawn from r (a non-nil
// generator): the reproducible opt-out for simulation studies and tests.
// The report has the same law as Release's.
func (m *ClippedGaussian) ReleaseSeeded(r *rand.Rand, x float64) (float64, error) {
	return m.release(r, x, true)
}

func (m *ClippedGaussian) release(r *rand.Rand, x float64, seeded bool) (float64, error) {
	if m == nil {
		return 0, fmt.Errorf("ldp: nil ClippedGaussian: %w", ErrInvalid)
	}
	if !finite(x) {
		return 0, fmt.Errorf("ldp: input must be finite, got %v: %w", x, ErrInvalid)
	}
	return report(m.lap, r, mechanism.Clamp(x, m.a, m.b), seeded)
}

// ReleaseSeeded is Release with the noise drawn from r (a non-nil
// generator): the reproducible opt-out for simulation studies and tests.
// The report has the same law as Release's.
func (m *ClippedExponential) ReleaseSeeded(r *rand.Rand, x float64) (float64, error) {
	return m.release(r, x, true)
}

func (m *ClippedExponential) release(r *rand.Rand, x float64, seeded bool) (float64, error) {
	if m == nil {
		return 0, fmt.Errorf("ldp: nil ClippedExponential: %w", ErrInvalid)
	}
	if !finite(x) || x < 0 {
		return 0, fmt.Errorf("ldp: input must be finite and >= 0, got %v: %w", x, ErrInvalid)
	}
	return report(m.lap, r, min(x, m.b), seeded)
}
