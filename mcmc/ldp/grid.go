package ldp

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/privinfer/privinfer/internal/special"
)

// GaussianGrid is the posterior of the clipped-Gaussian model computed by
// quadrature on an adaptively placed grid over (μ, log σ): a deterministic,
// sampler-free posterior for two parameters, used for calibration studies
// and to check samplers. Its marginal CDFs treat each grid value as the
// mass of the surrounding cell, spread uniformly.
type GaussianGrid struct {
	mu, ls   []float64 // grid axes
	pMu, pLs []float64 // marginal masses, summing to 1
	hMu, hLs float64
}

// maxGrid bounds the grid size per axis (n² log densities are stored).
const maxGrid = 1 << 12

// Grid computes the grid posterior with n×n points in its final pass
// (n ≥ 8; 48 is ample for calibration). Two coarse passes of
// max(16, n/2)² points first locate the region where the log posterior is within 30 of its
// maximum, starting from the prior's central 1 − 1e-6 box.
func (g *GaussianPosterior) Grid(ctx context.Context, n int) (*GaussianGrid, error) {
	if g == nil || g.m == nil {
		return nil, fmt.Errorf("ldp: GaussianPosterior used without NewGaussianPosterior: %w", ErrInvalid)
	}
	if ctx == nil {
		return nil, fmt.Errorf("ldp: Grid needs a non-nil context: %w", ErrInvalid)
	}
	if n < 8 || n > maxGrid {
		return nil, fmt.Errorf("ldp: grid size must be in [8, %d], got %d: %w", maxGrid, n, ErrInvalid)
	}
	p := g.prior
	muLo, muHi := p.Mu0-5.5*p.Sd0, p.Mu0+5.5*p.Sd0
	lsLo := math.Log(special.GammaPInv(p.Shape, 1e-7) / p.Rate)
	lsHi := math.Log(special.GammaPInv(p.Shape, 1-1e-7) / p.Rate)
	coarse := max(16, n/2)
	lp := make([]float64, n*n)
	x := make([]float64, 2)
	eval := func(k int) ([]float64, []float64, float64, error) {
		mus := linspace(muLo, muHi, k)
		lss := linspace(lsLo, lsHi, k)
		mx := math.Inf(-1)
		for i, m := range mus {
			if err := ctx.Err(); err != nil {
				return nil, nil, 0, err
			}
			for j, s := range lss {
				x[0], x[1] = m, s
				v := g.LogDensity(x)
				if math.IsNaN(v) {
					return nil, nil, 0, fmt.Errorf("ldp: log posterior is NaN at (%v, %v): %w", m, math.Exp(s), ErrInvalid)
				}
				lp[i*k+j] = v
				mx = math.Max(mx, v)
			}
		}
		return mus, lss, mx, nil
	}
	for range 2 {
		mus, lss, mx, err := eval(coarse)
		if err != nil {
			return nil, err
		}
		i0, i1, j0, j1 := coarse, -1, coarse, -1
		for i := range coarse {
			for j := range coarse {
				if lp[i*coarse+j] > mx-30 {
					i0, i1 = min(i0, i), max(i1, i)
					j0, j1 = min(j0, j), max(j1, j)
				}
			}
		}
		hm, hs := mus[1]-mus[0], lss[1]-lss[0]
		muLo, muHi = mus[i0]-2*hm, mus[i1]+2*hm
		lsLo, lsHi = lss[j0]-2*hs, lss[j1]+2*hs
	}
	mus, lss, mx, err := eval(n)
	if err != nil {
		return nil, err
	}
	gr := &GaussianGrid{mu: mus, ls: lss, pMu: make([]float64, n), pLs: make([]float64, n), hMu: mus[1] - mus[0], hLs: lss[1] - lss[0]}
	tot := 0.0
	for i := range n {
		for j := range n {
			w := math.Exp(lp[i*n+j] - mx)
			gr.pMu[i] += w
			gr.pLs[j] += w
			tot += w
		}
	}
	for i := range n {
		gr.pMu[i] /= tot
		gr.pLs[i] /= tot
	}
	return gr, nil
}

func linspace(lo, hi float64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*float64(i)/float64(n-1)
	}
	return v
}

func cellCDF(axis, mass []float64, h, q float64) float64 {
	// Cell i spans [axis_i − h/2, axis_i + h/2].
	k := sort.SearchFloat64s(axis, q-h/2) // first cell whose upper edge ≥ q
	f := 0.0
	for i := range k {
		f += mass[i]
	}
	if k < len(axis) {
		frac := (q - (axis[k] - h/2)) / h
		f += mass[k] * math.Max(0, math.Min(1, frac))
	}
	return math.Min(1, f)
}

// CDFMu returns the posterior marginal CDF of μ at q.
func (g *GaussianGrid) CDFMu(q float64) float64 { return cellCDF(g.mu, g.pMu, g.hMu, q) }

// CDFSigma returns the posterior marginal CDF of σ at q > 0.
func (g *GaussianGrid) CDFSigma(q float64) float64 {
	if !(q > 0) {
		return 0
	}
	return cellCDF(g.ls, g.pLs, g.hLs, math.Log(q))
}

// MeanMu returns the posterior mean of μ.
func (g *GaussianGrid) MeanMu() float64 {
	s := 0.0
	for i, m := range g.mu {
		s += m * g.pMu[i]
	}
	return s
}
