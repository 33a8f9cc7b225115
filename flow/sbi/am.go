package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/privinfer/privinfer/internal/diag"
	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/simulate"
)

// amRun is the outcome of a multi-chain adaptive Metropolis run.
type amRun struct {
	draws  []float64 // chains·perChain rows of dimension d, chain-major
	rhat   []float64 // rank-normalised split R̂ per coordinate (mcmc.RHat)
	ess    float64   // within-chain effective sample size (chainESS), for the rerun decisions
	bulk   float64   // multi-chain bulk effective sample size (multiChainESS), reported
	thin   int       // thinning of the kept draws
	accept float64   // post-warm-up acceptance rate
	groups int       // groups of chains that did not intermingle (rebalance); 1 when not grouped
}

// diagnostics returns the run's public summary.
func (r *amRun) diagnostics() Diagnostics {
	return Diagnostics{RHat: r.rhat, ESS: r.bulk, Thin: r.thin, AcceptRate: r.accept, ChainGroups: r.groups}
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
func runAM(ctx context.Context, logp func([]float64) float64, d int, init [][]float64, scale []float64, warmup, perChain, thin int, seed uint64, mix *tMix) (*amRun, error) {
	C := len(init)
	z0 := make([][]float64, C)
	for c, x := range init {
		z0[c] = make([]float64, d)
		for k := range d {
			z0[c][k] = x[k] / scale[k]
		}
	}
	t := newScaledTarget(logp, scale)
	var method mcmc.Method = mcmc.AdaptiveMetropolis{Scale: amFixedScale}
	if mix != nil {
		method = modeJump{local: method, mix: mix}
	}
	res, err := mcmc.Run(ctx, t, method, mcmc.Config{
		Chains: C, Warmup: warmup, Draws: perChain, Thin: thin, Seed: seed, Init: z0,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("sbi: MCMC: %w", err)
	}
	out := &amRun{draws: make([]float64, 0, C*perChain*d), rhat: make([]float64, d), thin: thin, accept: res.AcceptRate(), groups: 1}
	for i, z := range res.Draws.Theta {
		out.draws = append(out.draws, z*scale[i%d])
	}
	for k := range d {
		// Degenerate draws (too few, constant) give NaN, which counts as
		// not converged.
		out.rhat[k], _ = res.Draws.RHat(k)
	}
	out.ess = chainESS(out.draws, C, perChain, d)
	out.bulk = multiChainESS(out.draws, C, perChain, d)
	return out, nil
}

// chainESS returns the smallest, over the coordinates, of the sum over the
// C chains of each chain's own bulk effective sample size (the draws are
// chain-major, perChain rows of dimension d each). Unlike the ESS of the
// pooled chains it measures only how far consecutive draws of a chain are
// from independent, which thinning changes, and not how far chains in
// different modes disagree, which it does not. NaN when some chain's
// draws cannot support an ESS (too few, or constant).
func chainESS(draws []float64, C, perChain, d int) float64 {
	ess := math.Inf(1)
	col := make([]float64, perChain)
	for k := 0; k < d; k++ {
		sum := 0.0
		for c := 0; c < C; c++ {
			for i := range col {
				col[i] = draws[((c*perChain)+i)*d+k]
			}
			e, err := diag.ESSBulk([][]float64{col})
			if err != nil {
				return math.NaN()
			}
			sum += e
		}
		ess = min(ess, sum)
	}
	return ess
}

// multiChainESS returns the smallest, over the coordinates, of the
// multi-chain bulk effective sample size of the C chains (the draws are
// chain-major, perChain rows of dimension d each): the rank-normalised
// split-chain ESS of Vehtari et al. (2021), as privinfer.Draws.ESSBulk and
// mcmc.ESSBulk compute it, which also falls when the chains disagree. NaN
// when the draws cannot support an ESS (too few, or constant).
func multiChainESS(draws []float64, C, perChain, d int) float64 {
	if C < 1 || perChain < 1 || d < 1 || len(draws) != C*perChain*d {
		return math.NaN()
	}
	ess := math.Inf(1)
	chains := make([][]float64, C)
	for c := range chains {
		chains[c] = make([]float64, perChain)
	}
	for k := range d {
		for c, col := range chains {
			for i := range col {
				col[i] = draws[((c*perChain)+i)*d+k]
			}
		}
		e, err := diag.ESSBulk(chains)
		if err != nil {
			return math.NaN()
		}
		ess = min(ess, e)
	}
	return ess
}

// maxThinGrowth bounds the factor by which sampleAM's rerun multiplies
// the thinning.
const maxThinGrowth = 16

// sampleAM runs runAM for n draws in all (perChain = ⌈n/len(starts)⌉)
// and reruns it once, from the first run's final states (written over
// starts), when its draws are not yet a posterior sample: with four times
// the warm-up and twice the thinning when a split R̂ is 1.1 or more
// (chains that have not mixed), and with the thinning multiplied by
// ⌈n/ESS⌉ (at most maxThinGrowth) when the within-chain effective sample
// size is below n/2 (draws too autocorrelated to serve as a sample of n:
// a classifier test such as C2ST sees their clumps). Adaptive Metropolis
// chains stay in the modes they start in, so on a multimodal posterior the
// first run's R̂ exceeds 1.1. When it does, rebalance (random numbers from
// the stream seed^tagModes) may move chains between modes, the rerun's
// starts are then the final states of each mode's chains, and the rerun's
// kernel is modeJump with a Student t component per chain of the first
// run (chainMix; per group of chains when the chains are too short), so
// that its chains cross between the modes and the modes' shares of the
// draws follow their masses. The rerun is not repeated. With keepShares
// the chains are neither moved nor given mode jumps: the rerun continues
// each chain in the mode it is in (Config.CarryChains).
func sampleAM(ctx context.Context, logp func([]float64) float64, d int, starts [][]float64, scale []float64, warmup, n, thin int, seed uint64, keepShares bool) (*amRun, error) {
	per := (n + len(starts) - 1) / len(starts)
	run, err := runAM(ctx, logp, d, starts, scale, warmup, per, thin, seed, nil)
	if err != nil {
		return nil, err
	}
	grow, mixed := 1, converged(run.rhat)
	// Chains that mixed (every R̂ below 1.1) are not looked at for modes:
	// chains in separate modes give a large R̂, and short, autocorrelated
	// chains on one mode would otherwise split into groups (10 chains of
	// 100 draws on the 10-dimensional Gaussian linear task of sbibm formed
	// 6 to 10 groups at R̂ 1.01).
	moved, groups := false, 1
	var mix *tMix // the rerun's mode-jump proposal
	if !mixed {
		if !keepShares {
			var byGroup *tMix
			moved, groups, byGroup = rebalance(logp, run.draws, starts, per, d, scale, run.ess, parallel.Stream(seed^tagModes, 0))
			if mix = chainMix(run.draws, len(starts), per, d, scale); mix == nil {
				mix = byGroup
			}
		}
		warmup, grow = 4*warmup, 2
	}
	run.groups = groups
	if run.ess < float64(n)/2 { // false for NaN: degenerate draws are R̂'s case
		f := float64(maxThinGrowth) // also for ESS 0, where n/ESS is +Inf
		if r := math.Ceil(float64(n) / run.ess); r < f {
			f = r
		}
		grow = max(grow, int(f))
	}
	if mixed && grow == 1 { // mixed chains are never moved
		return run, nil
	}
	if !moved {
		for c := range starts {
			copy(starts[c], run.draws[((c+1)*per-1)*d:(c+1)*per*d])
		}
	}
	rerun, err := runAM(ctx, logp, d, starts, scale, warmup, per, grow*thin, seed+1, mix)
	if err != nil {
		return nil, err
	}
	rerun.groups = groups
	return rerun, nil
}

// carriedStarts returns, for each of C chains, the last draw of that chain
// in prev: the draws of an earlier run of as many chains, chain-major,
// ⌈m/C⌉ rows of dimension d per chain for m rows in all (the last chain's
// cut short, as posteriorMCMC keeps them). A chain with no rows in prev
// gets nil, and full reports whether every chain got a draw. The draws
// are copies.
func carriedStarts(prev []float64, d, C int) (starts [][]float64, full bool) {
	starts, m := make([][]float64, C), len(prev)/d
	if m == 0 || C == 0 {
		return starts, C == 0
	}
	per := (m + C - 1) / C
	full = true
	for c := range starts {
		if last := min((c+1)*per, m) - 1; last >= c*per {
			starts[c] = slices.Clone(prev[last*d : (last+1)*d])
		} else {
			full = false
		}
	}
	return starts, full
}

// Settings of rebalance.
const (
	modeSub    = 100    // draws per chain compared when grouping chains into modes
	modePairs  = 200000 // with C chains at most max(8, modePairs/C²) of them
	modeMixed  = 0.1    // smallest nearest-neighbour mixing fraction of chains in one mode
	modeIS     = 4000   // importance draws per mode for the modes' masses
	modeMinESS = 100    // smallest effective size of those draws that is trusted
	modeNu     = 4      // degrees of freedom of the proposal's Student t components
)

// rebalance moves chains between the posterior's modes so that each mode
// holds chains in proportion to its mass. Chains rarely cross between
// modes, so the modes' shares of the draws are set by how many chains
// start in each, and the importance-resampled starts (sirStarts) allocate
// them only as well as their few effective candidates estimate the
// masses, which leaves a mode's share of the draws to chance (measured in
// examples/reproduce/sbibm/RESULTS.md, section "SNLE's chains shared out between
// modes by mass").
//
// The chains of the run (draws chain-major, per rows of dimension d each,
// compared in the coordinates x/scale) are grouped into modes: two chains
// are in one mode when, among L evenly spaced draws of each (about the
// chain's effective sample size, at most modeSub and fewer when there are
// more than 44 chains), at least a fraction modeMixed of the points have
// their nearest neighbour in the other chain (about one half for chains
// that sample the same distribution, none for chains in separate modes);
// the modes are the connected groups. The modes' masses are estimated by
// importance sampling from an equal mixture of multivariate Student t
// distributions (modeNu degrees of freedom), one per mode with the mean
// and covariance of its chains' draws, modeIS draws from each; a draw
// counts towards the mode of its nearest compared point. The C chains are
// then shared out in proportion to the masses by largest remainders, and
// when that differs from the run's allocation starts receives the final
// states of each mode's chains, repeated in turn for a mode that gains
// chains, and rebalance reports true. It does nothing with one mode, or
// when the importance draws' effective size is below modeMinESS. It also
// returns the number of groups (1 when the chains mixed) and the groups'
// fitted mixture (nil with one group or when a fit fails). Random numbers
// come from r only.
func rebalance(logp func([]float64) float64, draws []float64, starts [][]float64, per, d int, scale []float64, ess float64, r *rand.Rand) (bool, int, *tMix) {
	C := len(starts)
	if C < 2 || per < 2 {
		return false, 1, nil
	}
	// About as many draws per chain as it has effective draws (ess is
	// their sum over the chains), so that the compared points are nearly
	// independent: autocorrelated neighbours of a short chain would
	// otherwise be each other's nearest neighbours, and chains on one
	// mode would split into groups (10 chains of 100 draws thinned by 5 on
	// a 10-dimensional normal formed 9 groups when all 100 were compared).
	// At least 8, at most modeSub, and fewer with many chains so that the
	// pairwise comparisons (up to C²/2 pairs of 4L² distances) stay cheap.
	L := per
	if e := ess / float64(C); e < float64(L) { // false for NaN
		L = int(e)
	}
	L = min(max(L, 8), per, modeSub, max(8, modePairs/(C*C)))
	// pts holds the compared draws of every chain, scaled: chain c's are
	// rows c·L … c·L+L−1.
	pts := make([]float64, C*L*d)
	for c := range C {
		for i := range L {
			src := draws[(c*per+i*per/L)*d:]
			dst := pts[(c*L+i)*d:]
			for k := range d {
				dst[k] = src[k] / scale[k]
			}
		}
	}
	mode, K := chainModes(pts, C, L, d)
	if K == 1 {
		return false, 1, nil
	}
	mix, ok := fitModes(draws, mode, K, per, d, scale)
	if !ok {
		return false, K, nil
	}
	mass, ok := modeMasses(logp, mix, mode, scale, pts, L, r)
	if !ok {
		return false, K, mix
	}
	want := largestRemainders(mass, C)
	have := make([]int, K)
	for _, k := range mode {
		have[k]++
	}
	if slices.Equal(have, want) {
		return false, K, mix
	}
	c := 0
	for k := range K {
		var own []int
		for ch, mk := range mode {
			if mk == k {
				own = append(own, ch)
			}
		}
		for i := range want[k] {
			ch := own[i%len(own)]
			copy(starts[c], draws[((ch+1)*per-1)*d:(ch+1)*per*d])
			c++
		}
	}
	return true, K, mix
}

// chainModes groups C chains into modes by their compared points pts (L
// rows of dimension d per chain; see rebalance) and returns every chain's
// mode index, numbered in order of the modes' first chains, and the
// number of modes.
func chainModes(pts []float64, C, L, d int) ([]int, int) {
	parent := make([]int, C)
	for c := range parent {
		parent[c] = c
	}
	find := func(c int) int {
		for parent[c] != c {
			parent[c] = parent[parent[c]]
			c = parent[c]
		}
		return c
	}
	for a := range C {
		for b := a + 1; b < C; b++ {
			if find(a) == find(b) {
				continue
			}
			// The fraction of the 2L points whose nearest neighbour among
			// the other 2L−1 lies in the other chain.
			cross := 0
			for _, pair := range [2][2]int{{a, b}, {b, a}} {
				own, other := pair[0], pair[1]
				for i := range L {
					x := pts[(own*L+i)*d : (own*L+i+1)*d]
					best, near := math.Inf(1), own
					for _, c := range pair {
						for j := range L {
							if c == own && j == i {
								continue
							}
							if q := linalg.SqDist(x, pts[(c*L+j)*d:]); q < best {
								best, near = q, c
							}
						}
					}
					if near == other {
						cross++
					}
				}
			}
			if float64(cross) >= modeMixed*float64(2*L) {
				parent[find(b)] = find(a)
			}
		}
	}
	mode := make([]int, C)
	index := map[int]int{}
	for c := range C {
		root := find(c)
		if _, ok := index[root]; !ok {
			index[root] = len(index)
		}
		mode[c] = index[root]
	}
	return mode, len(index)
}

// tMix is an equal mixture of multivariate Student t distributions with
// modeNu degrees of freedom in the chains' scaled coordinates (x/scale),
// one per group of chains (fitModes) or per chain (chainMix), with the
// mean and covariance of its draws. It is the importance proposal of modeMasses and the independence
// proposal of modeJump; it is read-only once fitted.
type tMix struct {
	K, d       int
	mu         []float64 // K rows of d
	chol       []float64 // K lower Cholesky factors, d×d each
	halfLogDet []float64 // half the log-determinant of each covariance
}

// fitModes fits a tMix to the run's draws (chain-major, per rows of
// dimension d per chain), chain c in group mode[c] of K; ok is false when
// a group's covariance cannot be factorised.
func fitModes(draws []float64, mode []int, K, per, d int, scale []float64) (*tMix, bool) {
	m := &tMix{K: K, d: d, mu: make([]float64, K*d), chol: make([]float64, K*d*d), halfLogDet: make([]float64, K)}
	var rows []float64
	cov := make([]float64, d*d)
	for k := range K {
		rows = rows[:0]
		for c, mk := range mode {
			if mk != k {
				continue
			}
			for _, v := range draws[c*per*d : (c+1)*per*d] {
				rows = append(rows, v/scale[len(rows)%d])
			}
		}
		if err := stats.WeightedCov(rows, d, nil, m.mu[k*d:(k+1)*d], cov); err != nil {
			return nil, false
		}
		l := m.chol[k*d*d : (k+1)*d*d]
		if _, err := linalg.CholeskyJitter(cov, d, l); err != nil {
			return nil, false
		}
		m.halfLogDet[k] = linalg.LogDetChol(l, d) / 2
	}
	return m, true
}

// chainMix fits a tMix with one component per chain of the run (draws
// chain-major, per rows of dimension d per chain), the proposal of the
// rerun's mode jumps: per chain rather than per group, because chains that
// did not mix can still be grouped together (the two crescents of the
// two-moons posterior touch at their tips, so chains in both form one
// group), and because several chains along one long mode describe it
// better than one ellipse. It returns nil when the chains are too short
// (fewer than 2d+2 draws) or a chain's covariance cannot be factorised.
func chainMix(draws []float64, C, per, d int, scale []float64) *tMix {
	if per < 2*d+2 {
		return nil
	}
	mode := make([]int, C)
	for c := range mode {
		mode[c] = c
	}
	m, ok := fitModes(draws, mode, C, per, d, scale)
	if !ok {
		return nil
	}
	return m
}

// logComp returns the log density of component k at z up to the
// constants common to every component (u is scratch of length d).
func (m *tMix) logComp(k int, z, u []float64) float64 {
	d := m.d
	for a := range d {
		u[a] = z[a] - m.mu[k*d+a]
	}
	linalg.SolveLower(m.chol[k*d*d:(k+1)*d*d], d, u)
	q := 0.0
	for _, v := range u {
		q += v * v
	}
	nu := float64(modeNu)
	return -m.halfLogDet[k] - (nu+float64(d))/2*math.Log1p(q/nu)
}

// logDensity returns the mixture's log density at z up to an additive
// constant (u is scratch of length d).
func (m *tMix) logDensity(z, u []float64) float64 {
	lg := math.Inf(-1)
	for k := range m.K {
		lg = special.LogAddExp(lg, m.logComp(k, z, u))
	}
	return lg
}

// sample writes a draw of component k into z (u is scratch of length d).
func (m *tMix) sample(r *rand.Rand, k int, z, u []float64) {
	d := m.d
	chi2 := 0.0
	for range modeNu {
		g := r.NormFloat64()
		chi2 += g * g
	}
	f := math.Sqrt(float64(modeNu) / chi2)
	for q := range d {
		u[q] = r.NormFloat64()
	}
	l := m.chol[k*d*d:]
	for a := range d {
		s := 0.0
		for b := 0; b <= a; b++ {
			s += l[a*d+b] * u[b]
		}
		z[a] = m.mu[k*d+a] + f*s
	}
}

// modeMasses estimates the posterior mass of each of the K modes of mix by
// importance sampling, as described at rebalance (chain c of the run in
// mode[c]); ok is false when the estimate is not trusted.
func modeMasses(logp func([]float64) float64, mix *tMix, mode []int, scale, pts []float64, L int, r *rand.Rand) (mass []float64, ok bool) {
	K, d := mix.K, mix.d
	z, x, u := make([]float64, d), make([]float64, d), make([]float64, d)
	logW := make([]float64, 0, K*modeIS)
	owner := make([]int, 0, K*modeIS)
	for k := range K {
		for range modeIS {
			mix.sample(r, k, z, u)
			for a := range d {
				x[a] = z[a] * scale[a]
			}
			lp := logp(x)
			if !(lp > math.Inf(-1)) || math.IsInf(lp, 1) || math.IsNaN(lp) {
				continue
			}
			nb, near := math.Inf(1), 0
			for j := range len(mode) * L {
				if q := linalg.SqDist(z, pts[j*d:]); q < nb {
					nb, near = q, j/L
				}
			}
			logW = append(logW, lp-mix.logDensity(z, u))
			owner = append(owner, mode[near])
		}
	}
	if !(stats.ESSLog(logW) >= modeMinESS) { // NaN without a finite weight
		return nil, false
	}
	best := slices.Max(logW)
	mass = make([]float64, K)
	total := 0.0
	for i, v := range logW {
		w := math.Exp(v - best)
		mass[owner[i]] += w
		total += w
	}
	for k := range mass {
		mass[k] /= total
	}
	return mass, true
}

// largestRemainders shares C items out in proportion to the weights w
// (summing to 1) by the largest-remainder method, ties to the lower index.
func largestRemainders(w []float64, C int) []int {
	K := len(w)
	n := make([]int, K)
	idx := make([]int, K)
	given := 0
	for k, v := range w {
		n[k] = int(float64(C) * v)
		given += n[k]
		idx[k] = k
	}
	rem := func(k int) float64 { return float64(C)*w[k] - float64(n[k]) }
	slices.SortStableFunc(idx, func(a, b int) int {
		switch ra, rb := rem(a), rem(b); {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return 0
	})
	for i := 0; given < C; i++ {
		n[idx[i%K]]++
		given++
	}
	return n
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

// Sizes of the candidate set from which sirStarts resamples chain starts.
const (
	sirPrior   = 1000 // prior draws
	sirKDE     = 1000 // draws from the kernel density estimate of earlier draws
	sirCenters = 1000 // at most this many earlier draws are kernel centres
)

// sirStarts draws C chain starts for logp, the unnormalised log posterior
// π(θ)·L(θ), by sampling-importance-resampling, so that every mode of the
// posterior receives chains in proportion to its mass rather than to how
// many of the best candidates it holds. The candidates are sirPrior draws
// from the prior and, when prev (earlier posterior draws, rows of length
// d) is not empty, sirKDE draws from a Gaussian kernel density estimate on
// up to sirCenters of them (diagonal Silverman bandwidths); their proposal
// density is the mixture g of the two, so the importance weights
// logp − log g stay bounded wherever the prior puts mass, even if prev
// missed a mode. C starts are drawn by systematic resampling: a mode of
// posterior mass w receives ⌊wC⌋ or ⌈wC⌉ chains. The scales returned are
// the candidates' per-coordinate standard deviations. Draws come from r
// only.
func sirStarts(logp func([]float64) float64, prior simulate.Prior, prev []float64, d, C int, r *rand.Rand) ([][]float64, []float64, error) {
	cand, centers, h := sirCandidates(prior, prev, d, r)
	n := len(cand) / d
	nk := n - sirPrior
	logNorm := -float64(d) / 2 * math.Log(2*math.Pi) // of the kernel density
	for _, v := range h {
		logNorm -= math.Log(v)
	}
	logW := make([]float64, n)
	best := math.Inf(-1)
	for i := range n {
		x := cand[i*d : (i+1)*d]
		lp := logp(x)
		if !(lp > math.Inf(-1)) || math.IsInf(lp, 1) {
			logW[i] = math.Inf(-1)
			continue
		}
		lg := prior.LogDensity(x)
		if nk > 0 {
			lk := logKDE(x, centers, h, d) + logNorm
			lg = special.LogAddExp(lg+math.Log(float64(sirPrior)/float64(n)), lk+math.Log(float64(nk)/float64(n)))
		}
		logW[i] = lp - lg
		if math.IsNaN(logW[i]) || math.IsInf(logW[i], 1) {
			logW[i] = math.Inf(-1)
		}
		best = max(best, logW[i])
	}
	if math.IsInf(best, -1) {
		return nil, nil, fmt.Errorf("%w: no candidate start point has a finite log density", ErrLeakage)
	}
	total := 0.0
	for i, v := range logW {
		logW[i] = math.Exp(v - best)
		total += logW[i]
	}
	starts := make([][]float64, C)
	u := r.Float64()
	acc, i := logW[0]/total, 0
	for c := range C {
		t := (float64(c) + u) / float64(C)
		for acc < t && i < n-1 {
			i++
			acc += logW[i] / total
		}
		if logW[i] == 0 { // rounding at either end: the nearest positive weight
			i = nearestPositive(logW, i)
		}
		starts[c] = slices.Clone(cand[i*d : (i+1)*d])
	}
	return starts, stdCols(cand, d), nil
}

// sirCandidates draws sirStarts' candidates from r: sirPrior prior draws,
// then, when prev (earlier draws, rows of length d) is not empty, sirKDE
// draws from a Gaussian kernel density estimate with the returned centres
// (up to sirCenters of prev's rows, evenly spaced) and per-coordinate
// bandwidths h (Silverman's rule; zero without centres).
func sirCandidates(prior simulate.Prior, prev []float64, d int, r *rand.Rand) (cand, centers, h []float64) {
	m := len(prev) / d
	stride := max(1, (m+sirCenters-1)/sirCenters)
	centers = make([]float64, 0, min(m, sirCenters)*d)
	for i := 0; i < m; i += stride {
		centers = append(centers, prev[i*d:(i+1)*d]...)
	}
	nc := len(centers) / d
	nk := 0
	if nc > 0 {
		nk = sirKDE
	}
	n := sirPrior + nk
	cand = make([]float64, n*d)
	for i := range sirPrior {
		prior.Sample(r, cand[i*d:(i+1)*d])
	}
	// Silverman's rule per coordinate, with a floor for coordinates on
	// which the centres agree.
	h = make([]float64, d)
	if nc > 0 {
		f := math.Pow(4/(float64(d+2)*float64(nc)), 1/float64(d+4))
		pscale := stdCols(cand[:sirPrior*d], d)
		cs := stdCols(centers, d)
		for k := range d {
			h[k] = max(f*cs[k], 1e-3*pscale[k])
			if !(h[k] > 0) {
				h[k] = 1e-3
			}
		}
		for i := sirPrior; i < n; i++ {
			c := centers[r.IntN(nc)*d:]
			x := cand[i*d : (i+1)*d]
			for k := range d {
				x[k] = c[k] + h[k]*r.NormFloat64()
			}
		}
	}
	return cand, centers, h
}

// nearestPositive returns the index of the positive entry of w nearest to
// i, searching upwards first; w has one.
func nearestPositive(w []float64, i int) int {
	for j := i; j < len(w); j++ {
		if w[j] > 0 {
			return j
		}
	}
	for j := i; j >= 0; j-- {
		if w[j] > 0 {
			return j
		}
	}
	return i
}

// logKDE returns log Σ_j exp(−½ Σ_k ((x_k − c_jk)/h_k)²) over the rows c_j
// of centers.
func logKDE(x, centers, h []float64, d int) float64 {
	nc := len(centers) / d
	best := math.Inf(-1)
	// Two passes: the largest exponent first, for a stable sum.
	for j := range nc {
		c := centers[j*d : (j+1)*d]
		q := 0.0
		for k := range d {
			z := (x[k] - c[k]) / h[k]
			q += z * z
		}
		best = max(best, -q/2)
	}
	s := 0.0
	for j := range nc {
		c := centers[j*d : (j+1)*d]
		q := 0.0
		for k := range d {
			z := (x[k] - c[k]) / h[k]
			q += z * z
		}
		s += math.Exp(-q/2 - best)
	}
	return best + math.Log(s) - math.Log(float64(nc))
}

// stdCols returns the standard deviation of every column of the row-major
// n×d matrix x, 1 where it is zero or undefined.
func stdCols(x []float64, d int) []float64 {
	n := len(x) / d
	s := make([]float64, d)
	for q := range d {
		m, s2 := 0.0, 0.0
		for i := range n {
			m += x[i*d+q]
		}
		m /= float64(n)
		for i := range n {
			s2 += (x[i*d+q] - m) * (x[i*d+q] - m)
		}
		s[q] = math.Sqrt(s2 / float64(max(n-1, 1)))
		if !(s[q] > 0) {
			s[q] = 1
		}
	}
	return s
}
