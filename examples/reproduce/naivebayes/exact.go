package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/naivebayes"
)

// exactLik is the exact likelihood p(s_dp | θ) of the Laplace-privatized
// proportions of a naive Bayes model with two classes and binary features.
//
// With n_1 ~ Bin(n, p_1), n_2 = n − n_1 and, for every class i and feature
// k, c = n^k_{i1} ~ Bin(n_i, p^k_{i1}) (so n^k_{i2} = n_i − c), the release
// adds independent Laplace(b) noise to every proportion, hence
//
//	p(s_dp | θ) = Σ_{n_1} Bin(n_1; n, p_1) Π_i Π_k Σ_c Bin(c; n_i, p^k_{i1})
//	              · Lap(m^k_{i1} − c/n) · Lap(m^k_{i2} − (n_i − c)/n).
//
// The Laplace factors do not depend on θ and are tabulated once per
// (i, k, n_i, c); an evaluation then costs about 2·K·n²/2 exponentials.
type exactLik struct {
	n, classes, feats int
	cells             int
	// tab[(i*feats+k)][ni] holds exp(T − off) for c = 0..ni, with T the
	// log Laplace factors and off their maximum over c.
	tab [][][]float64
	off [][]float64
	lch [][]float64 // log binomial coefficients, lch[m][c]
}

var errNotBinary = errors.New("the exact likelihood needs 2 classes and binary features")

func newExactLik(m *naivebayes.Model, levels []int, obs []float64, b float64) (*exactLik, error) {
	n := m.N()
	classes := (m.ParamDim() - m.StatDim())
	if classes != 2 {
		return nil, errNotBinary
	}
	for _, j := range levels {
		if j != 2 {
			return nil, errNotBinary
		}
	}
	if len(obs) != m.StatDim() {
		return nil, fmt.Errorf("observed release has length %d, want %d", len(obs), m.StatDim())
	}
	e := &exactLik{n: n, classes: 2, feats: len(levels), cells: 2 * len(levels)}
	e.lch = make([][]float64, n+1)
	for mm := 0; mm <= n; mm++ {
		e.lch[mm] = make([]float64, mm+1)
		lg := func(x int) float64 { v, _ := math.Lgamma(float64(x) + 1); return v }
		for c := 0; c <= mm; c++ {
			e.lch[mm][c] = lg(mm) - lg(c) - lg(mm-c)
		}
	}
	logLap := func(x float64) float64 { return -math.Abs(x)/b - math.Log(2*b) }
	inv := 1 / float64(n)
	for i := 0; i < 2; i++ {
		for k := 0; k < e.feats; k++ {
			o := i*e.cells + 2*k
			tab := make([][]float64, n+1)
			off := make([]float64, n+1)
			for ni := 0; ni <= n; ni++ {
				row := make([]float64, ni+1)
				mx := math.Inf(-1)
				for c := 0; c <= ni; c++ {
					row[c] = logLap(obs[o]-float64(c)*inv) + logLap(obs[o+1]-float64(ni-c)*inv)
					mx = math.Max(mx, row[c])
				}
				for c := range row {
					row[c] = math.Exp(row[c] - mx)
				}
				tab[ni], off[ni] = row, mx
			}
			e.tab = append(e.tab, tab)
			e.off = append(e.off, off)
		}
	}
	return e, nil
}

// xlogy is x·log y with 0·log 0 = 0.
func xlogy(x, y float64) float64 {
	if x == 0 {
		return 0
	}
	return x * math.Log(y)
}

// blockLog returns log Σ_c Bin(c; ni, p) · exp(tab[c]) + off for block q.
func (e *exactLik) blockLog(q, ni int, p float64) float64 {
	row := e.tab[q][ni]
	lch := e.lch[ni]
	lp, lq := math.Log(p), math.Log1p(-p)
	var s float64
	for c, t := range row {
		if t == 0 {
			continue
		}
		var lb float64
		switch {
		case p == 0:
			if c != 0 {
				continue
			}
		case p == 1:
			if c != ni {
				continue
			}
		default:
			lb = lch[c] + float64(c)*lp + float64(ni-c)*lq
		}
		s += math.Exp(lb) * t
	}
	return math.Log(s) + e.off[q][ni]
}

// LogLik returns log p(s_dp | θ) for θ in the model's order.
func (e *exactLik) LogLik(theta []float64) float64 {
	p1 := theta[2*e.cells]
	terms := make([]float64, 0, e.n+1)
	mx := math.Inf(-1)
	for n1 := 0; n1 <= e.n; n1++ {
		n2 := e.n - n1
		t := e.lch[e.n][n1] + xlogy(float64(n1), p1) + xlogy(float64(n2), 1-p1)
		if math.IsInf(t, -1) {
			continue
		}
		for k := 0; k < e.feats; k++ {
			t += e.blockLog(k, n1, theta[2*k])
			t += e.blockLog(e.feats+k, n2, theta[e.cells+2*k])
		}
		terms = append(terms, t)
		mx = math.Max(mx, t)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	var s float64
	for _, t := range terms {
		s += math.Exp(t - mx)
	}
	return mx + math.Log(s)
}

// mhConfig configures the exact-likelihood Metropolis sampler.
type mhConfig struct {
	Chains, Burn, Keep, Thin int
	Seed                     uint64
}

// mhResult holds the chains' draws of θ and of the log-ratio coordinates
// φ, and the split-R̂ of every φ coordinate.
type mhResult struct {
	Draws, Phi *privinfer.Draws
	RHat       []float64
	Acceptance float64
}

// sampleExact runs the library's adaptive random-walk Metropolis
// (mcmc.AdaptiveMetropolis: the proposal covariance is adapted during
// warm-up and then frozen, so the kept draws come from a valid Metropolis
// chain) on the additive-log-ratio coordinates φ of θ with target
// π(θ(φ))·|∂θ/∂φ|·p(s_dp | θ(φ)), one chain per random stream, and maps
// the draws back to θ. RHat is the rank-normalised split R̂ of every φ
// coordinate.
func sampleExact(ctx context.Context, m *naivebayes.Model, prior simulate.Prior, lik *exactLik, cfg mhConfig, progress privinfer.ProgressFunc) (*mhResult, error) {
	d := m.UnconstrainedDim()
	pd := m.ParamDim()
	target := mcmc.TargetFunc{N: d, Fn: func(phi []float64) float64 {
		theta := make([]float64, pd)
		lj := m.FromUnconstrained(phi, theta)
		lp := prior.LogDensity(theta)
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			return math.Inf(-1)
		}
		return lp + lj + lik.LogLik(theta)
	}}
	res, err := mcmc.Run(ctx, target, mcmc.AdaptiveMetropolis{}, mcmc.Config{
		Chains: cfg.Chains, Warmup: cfg.Burn, Draws: cfg.Keep / cfg.Thin, Thin: cfg.Thin, Seed: cfg.Seed,
		InitFunc: func(_ int, r *rand.Rand, phi []float64) error {
			theta := make([]float64, pd)
			for range 1000 { // a prior draw of positive target density
				prior.Sample(r, theta)
				m.ToUnconstrained(theta, phi)
				if !math.IsInf(target.Fn(phi), -1) {
					return nil
				}
			}
			return errors.New("no prior draw of positive posterior density in 1000 tries")
		},
		Progress: progress,
	})
	if err != nil {
		return nil, err
	}
	out := &mhResult{Draws: toTheta(m, res.Draws), Phi: res.Draws, Acceptance: res.AcceptRate()}
	for j := range d {
		rh, err := res.Draws.RHat(j)
		if err != nil {
			rh = math.NaN()
		}
		out.RHat = append(out.RHat, rh)
	}
	return out, nil
}
