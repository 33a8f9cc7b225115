package ldp

import (
	"context"
	"fmt"
	"github.com/privinfer/privinfer/mechanism"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/internal/variate"
)

// CalibrationConfig describes a simulation-based calibration study of the
// clipped-Gaussian model (LDP paper §4.4, Fig. 1): for each dataset, (μ, σ)
// is drawn from the prior, N values x ~ N(μ, σ²) are clipped to [A, B] and
// released with Laplace noise at budget Epsilon, and the grid posterior is
// computed; a well-calibrated posterior puts the true value in its central
// q-interval with probability q.
type CalibrationConfig struct {
	A, B, Epsilon float64
	N             int // reports per dataset
	Datasets      int
	Prior         GaussianPrior
	GridSize      int    // final grid size per axis; 0 means 48
	Seed          uint64 // dataset i uses the stream parallel.Stream(Seed, i)
}

// CalibrationResult holds, per dataset, the posterior CDF at the true
// parameter values (the probability integral transform, uniform on [0, 1]
// for a calibrated posterior).
type CalibrationResult struct {
	PITMu, PITSigma []float64
}

// Coverage returns the fraction of datasets whose true value lies in the
// central q-interval of the posterior, for μ and σ.
//
// Both are NaN for q outside (0, 1) and for a result without datasets.
func (r *CalibrationResult) Coverage(q float64) (mu, sigma float64) {
	if r == nil || len(r.PITMu) == 0 || len(r.PITSigma) == 0 || !(q > 0 && q < 1) {
		return math.NaN(), math.NaN()
	}
	lo, hi := (1-q)/2, (1+q)/2
	in := func(p []float64) float64 {
		k := 0
		for _, v := range p {
			if v >= lo && v <= hi {
				k++
			}
		}
		return float64(k) / float64(len(p))
	}
	return in(r.PITMu), in(r.PITSigma)
}

// maxCalibN bounds the reports per dataset and the number of datasets of a
// calibration study.
const maxCalibN = 1 << 24

// CalibrateGaussian runs the calibration study, datasets in parallel; the
// result depends on cfg only.
func CalibrateGaussian(ctx context.Context, cfg CalibrationConfig) (*CalibrationResult, error) {
	m, err := NewClippedGaussian(ClippedGaussianConfig{A: cfg.A, B: cfg.B, Epsilon: cfg.Epsilon})
	if err != nil {
		return nil, err
	}
	if err := cfg.Prior.check(); err != nil {
		return nil, err
	}
	if cfg.N < 1 || cfg.Datasets < 1 || cfg.N > maxCalibN || cfg.Datasets > maxCalibN {
		return nil, fmt.Errorf("ldp: calibration needs N and Datasets in [1, %d], got %d, %d: %w", maxCalibN, cfg.N, cfg.Datasets, ErrInvalid)
	}
	if cfg.GridSize != 0 && (cfg.GridSize < 8 || cfg.GridSize > maxGrid) {
		return nil, fmt.Errorf("ldp: calibration GridSize must be 0 or in [8, %d], got %d: %w", maxGrid, cfg.GridSize, ErrInvalid)
	}
	if ctx == nil {
		return nil, fmt.Errorf("ldp: calibration needs a non-nil context: %w", ErrInvalid)
	}
	gs := cfg.GridSize
	if gs == 0 {
		gs = 48
	}
	res := &CalibrationResult{PITMu: make([]float64, cfg.Datasets), PITSigma: make([]float64, cfg.Datasets)}
	err = parallel.Map(ctx, cfg.Datasets, cfg.Seed, func(i int, r *rand.Rand) error {
		p := cfg.Prior
		mu := p.Mu0 + p.Sd0*r.NormFloat64()
		sigma := variate.Gamma(r, p.Shape, 1/p.Rate)
		// A simulation study: the reports are simulated with the secure
		// release law drawn reproducibly from r.
		z := make([]float64, cfg.N)
		rep := mechanism.Reproducible(m.Mechanism())
		var x [1]float64
		for k := range z {
			x[0] = mu + sigma*r.NormFloat64()
			if err := rep.Release(r, x[:], z[k:k+1]); err != nil {
				return err
			}
		}
		post, err := NewGaussianPosterior(m, z, p)
		if err != nil {
			return err
		}
		g, err := post.Grid(ctx, gs)
		if err != nil {
			return fmt.Errorf("ldp: dataset %d: %w", i, err)
		}
		res.PITMu[i] = g.CDFMu(mu)
		res.PITSigma[i] = g.CDFSigma(sigma)
		if math.IsNaN(res.PITMu[i]) || math.IsNaN(res.PITSigma[i]) {
			return fmt.Errorf("ldp: dataset %d: NaN posterior CDF: %w", i, ErrInvalid)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}
