package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/parallel"
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

// mhResult holds the pooled draws of θ (row-major, dim ParamDim) and the
// split-R̂ of every unconstrained coordinate.
type mhResult struct {
	Theta      []float64
	Dim        int
	RHat       []float64
	Acceptance float64
}

// sampleExact runs independent random-walk Metropolis chains on the
// additive-log-ratio coordinates φ of θ with target
// π(θ(φ))·|∂θ/∂φ|·p(s_dp | θ(φ)). The proposal covariance is adapted
// during burn-in (2.38²/d times the chain's covariance, Haario et al.) and
// then frozen, so the kept draws come from a valid Metropolis chain.
func sampleExact(ctx context.Context, m *naivebayes.Model, prior simulate.Prior, lik *exactLik, cfg mhConfig, progress func(chain, it int)) (*mhResult, error) {
	d := m.UnconstrainedDim()
	pd := m.ParamDim()
	logTarget := func(phi, theta []float64) float64 {
		lj := m.FromUnconstrained(phi, theta)
		lp := prior.LogDensity(theta)
		if math.IsInf(lp, -1) || math.IsNaN(lp) {
			return math.Inf(-1)
		}
		return lp + lj + lik.LogLik(theta)
	}
	keep := cfg.Keep / cfg.Thin
	draws := make([][]float64, cfg.Chains) // θ draws per chain
	phis := make([][]float64, cfg.Chains)  // φ draws per chain, for R̂
	acc := make([]float64, cfg.Chains)
	err := parallel.Map(ctx, cfg.Chains, cfg.Seed, func(ch int, r *rand.Rand) error {
		theta := make([]float64, pd)
		phi := make([]float64, d)
		prop := make([]float64, d)
		tprop := make([]float64, pd)
		prior.Sample(r, theta)
		m.ToUnconstrained(theta, phi)
		lt := logTarget(phi, theta)
		for tries := 0; math.IsInf(lt, -1) && tries < 1000; tries++ {
			prior.Sample(r, theta)
			m.ToUnconstrained(theta, phi)
			lt = logTarget(phi, theta)
		}
		chol := make([]float64, d*d)
		for j := range d {
			chol[j*d+j] = 0.1
		}
		// Running moments for adaptation.
		mean := make([]float64, d)
		cov := make([]float64, d*d)
		var cnt float64
		z := make([]float64, d)
		out := make([]float64, 0, keep*pd)
		pout := make([]float64, 0, keep*d)
		var accepted int
		total := cfg.Burn + cfg.Keep
		for it := 0; it < total; it++ {
			if it%500 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				if progress != nil {
					progress(ch, it)
				}
			}
			for j := range z {
				z[j] = r.NormFloat64()
			}
			for j := range d {
				s := phi[j]
				for l := 0; l <= j; l++ {
					s += chol[j*d+l] * z[l]
				}
				prop[j] = s
			}
			lp := logTarget(prop, tprop)
			if math.Log(r.Float64()) < lp-lt {
				copy(phi, prop)
				copy(theta, tprop)
				lt = lp
				if it >= cfg.Burn {
					accepted++
				}
			}
			if it < cfg.Burn {
				cnt++
				for j := range d {
					dj := phi[j] - mean[j]
					mean[j] += dj / cnt
					for l := 0; l <= j; l++ {
						cov[j*d+l] += dj * (phi[l] - mean[l]) * (cnt - 1) / cnt
					}
				}
				if it >= 1000 && it%500 == 499 {
					a := make([]float64, d*d)
					sc := 2.38 * 2.38 / float64(d)
					for j := range d {
						for l := 0; l <= j; l++ {
							a[j*d+l] = sc * cov[j*d+l] / (cnt - 1)
						}
						a[j*d+j] += 1e-8
					}
					if err := linalg.Cholesky(a, d, a); err == nil {
						copy(chol, a)
					}
				}
				continue
			}
			if (it-cfg.Burn)%cfg.Thin == 0 {
				out = append(out, theta...)
				pout = append(pout, phi...)
			}
		}
		draws[ch], phis[ch] = out, pout
		acc[ch] = float64(accepted) / float64(cfg.Keep)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := &mhResult{Dim: pd}
	for ch := range draws {
		res.Theta = append(res.Theta, draws[ch]...)
		res.Acceptance += acc[ch] / float64(cfg.Chains)
	}
	for j := range d {
		chains := make([][]float64, cfg.Chains)
		for ch := range chains {
			for i := 0; i < len(phis[ch])/d; i++ {
				chains[ch] = append(chains[ch], phis[ch][i*d+j])
			}
		}
		res.RHat = append(res.RHat, splitRHat(chains))
	}
	return res, nil
}

// splitRHat is the classic split-R̂ (Gelman et al., BDA3 §11.4) of chains
// of equal length.
func splitRHat(chains [][]float64) float64 {
	var halves [][]float64
	for _, c := range chains {
		h := len(c) / 2
		if h < 2 {
			return math.NaN()
		}
		halves = append(halves, c[:h], c[len(c)-h:])
	}
	n := float64(len(halves[0]))
	var means []float64
	var w float64
	for _, h := range halves {
		var mu float64
		for _, v := range h {
			mu += v
		}
		mu /= n
		var s float64
		for _, v := range h {
			s += (v - mu) * (v - mu)
		}
		w += s / (n - 1)
		means = append(means, mu)
	}
	mm := float64(len(halves))
	w /= mm
	var gm float64
	for _, v := range means {
		gm += v
	}
	gm /= mm
	var bb float64
	for _, v := range means {
		bb += (v - gm) * (v - gm)
	}
	bb *= n / (mm - 1)
	varPlus := (n-1)/n*w + bb/n
	return math.Sqrt(varPlus / w)
}
