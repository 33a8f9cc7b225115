package sbi

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/privinfer/privinfer/mcmc"
)

// amRun is the outcome of a multi-chain adaptive Metropolis run.
type amRun struct {
	draws  []float64 // chains·perChain rows of dimension d, chain-major
	rhat   []float64 // rank-normalised split R̂ per coordinate (mcmc.RHat)
	accept float64   // post-warm-up acceptance rate
}

// amFixedScale is the standard deviation, per standardised coordinate and
// times √d, of the fixed component of the adaptive Metropolis proposal: it
// drives the chains until the first adaptation window completes and keeps
// 5% of later proposals. The standardising scales are the spread of prior
// and flow draws, wider than the posterior, hence the value below one.
const amFixedScale = 0.5

// scaledTarget is the mcmc.Target of an unnormalised log density logp on
// R^d seen in standardised coordinates z = x/scale (coordinatewise), so that
// the sampler's isotropic initial proposal matches the problem's scales. The
// Jacobian of the map is constant and so omitted. It is safe for concurrent
// use by the chains.
type scaledTarget struct {
	logp  func([]float64) float64
	scale []float64
	bufs  sync.Pool // *[]float64 of length d
}

func newScaledTarget(logp func([]float64) float64, scale []float64) *scaledTarget {
	t := &scaledTarget{logp: logp, scale: scale}
	d := len(scale)
	t.bufs.New = func() any { b := make([]float64, d); return &b }
	return t
}

// Dim returns d.
func (t *scaledTarget) Dim() int { return len(t.scale) }

// LogDensity returns logp(scale ⊙ z).
func (t *scaledTarget) LogDensity(z []float64) float64 {
	bp := t.bufs.Get().(*[]float64)
	x := *bp
	for k, s := range t.scale {
		x[k] = s * z[k]
	}
	v := t.logp(x)
	t.bufs.Put(bp)
	return v
}

// runAM samples the unnormalised log density logp on R^d with the adaptive
// Metropolis method of package mcmc (Haario et al. 2001 in the
// Roberts–Rosenthal mixture form, adapted during warm-up and then frozen, so
// the retained draws come from a fixed Metropolis kernel) on len(init)
// chains in parallel, chain c on the stream parallel.Stream(seed, c) and
// started at init[c]. The chains run in the coordinates x/scale. Each chain
// keeps perChain draws, every thin-th iteration after warm-up; the result
// holds the rank-normalised split R̂ of every coordinate (NaN where the
// draws cannot support it) and the pooled acceptance rate.
func runAM(ctx context.Context, logp func([]float64) float64, d int, init [][]float64, scale []float64, warmup, perChain, thin int, seed uint64) (*amRun, error) {
	C := len(init)
	z0 := make([][]float64, C)
	for c, x := range init {
		z0[c] = make([]float64, d)
		for k := range d {
			z0[c][k] = x[k] / scale[k]
		}
	}
	t := newScaledTarget(logp, scale)
	res, err := mcmc.Run(ctx, t, mcmc.AdaptiveMetropolis{Scale: amFixedScale}, mcmc.Config{
		Chains: C, Warmup: warmup, Draws: perChain, Thin: thin, Seed: seed, Init: z0,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("sbi: MCMC: %w", err)
	}
	out := &amRun{draws: make([]float64, 0, C*perChain*d), rhat: make([]float64, d), accept: res.AcceptRate()}
	for i, z := range res.Draws.Theta {
		out.draws = append(out.draws, z*scale[i%d])
	}
	for k := range d {
		// Degenerate draws (too few, constant) give NaN, which counts as
		// not converged.
		out.rhat[k], _ = res.Draws.RHat(k)
	}
	return out, nil
}

// mcmcStarts picks C starting points for chains on logp: the C best of
// candidate points (by logp), spread by taking every ⌈k/C⌉-th of the best k
// = min(len, 4C). It also returns per-coordinate scales: the standard
// deviation of the candidates.
func mcmcStarts(logp func([]float64) float64, cand []float64, d, C int) ([][]float64, []float64, error) {
	n := len(cand) / d
	type sc struct {
		i int
		v float64
	}
	all := make([]sc, 0, n)
	for i := 0; i < n; i++ {
		v := logp(cand[i*d : (i+1)*d])
		if v > math.Inf(-1) && !math.IsNaN(v) && !math.IsInf(v, 1) {
			all = append(all, sc{i, v})
		}
	}
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("%w: no candidate start point has a finite log density", ErrLeakage)
	}
	// Partial sort by value, descending.
	for i := 0; i < len(all) && i < 4*C; i++ {
		b := i
		for j := i + 1; j < len(all); j++ {
			if all[j].v > all[b].v {
				b = j
			}
		}
		all[i], all[b] = all[b], all[i]
	}
	k := min(len(all), 4*C)
	starts := make([][]float64, C)
	for c := 0; c < C; c++ {
		j := all[(c*k/C)%k].i
		starts[c] = append([]float64(nil), cand[j*d:(j+1)*d]...)
	}
	scale := make([]float64, d)
	for q := 0; q < d; q++ {
		m, s2 := 0.0, 0.0
		for i := 0; i < n; i++ {
			m += cand[i*d+q]
		}
		m /= float64(n)
		for i := 0; i < n; i++ {
			s2 += (cand[i*d+q] - m) * (cand[i*d+q] - m)
		}
		scale[q] = math.Sqrt(s2 / float64(max(n-1, 1)))
		if !(scale[q] > 0) {
			scale[q] = 1
		}
	}
	return starts, scale, nil
}
