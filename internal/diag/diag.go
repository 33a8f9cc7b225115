// Package diag computes the convergence and accuracy diagnostics shared by
// the library's samplers and posterior-sample type: the rank-normalised
// split R̂, bulk, tail and mean effective sample sizes and Monte Carlo
// standard errors of Vehtari et al. (2021), sample autocorrelations, and
// weighted quantiles and highest-density intervals of weighted samples.
//
// Chains are given as [][]float64, one series per chain, all of equal
// length. Degenerate input (no chains, too few draws, non-finite or
// constant draws) yields NaN and an error wrapping ErrDegenerate that
// states the reason. testdata/gen_diagnostics.py is an independent
// pure-Python implementation of the published formulas whose values on
// committed reference chains the tests reproduce.
package diag

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"slices"
	"sort"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
)

// ErrDegenerate is wrapped by the errors the diagnostics return together
// with a NaN value when their input cannot support the estimate: no
// chains, chains of unequal length, too few draws, non-finite draws or a
// constant sample. It is also this package's invalid-argument sentinel: a
// quantile level outside (0, 1) or a lag out of range wraps it.
var ErrDegenerate = errors.New("degenerate input for diagnostic")

// minSplitDraws is the fewest draws per split half that the diagnostics
// accept (the autocorrelation estimate needs three).
const minSplitDraws = 3

// checkChains validates chains of equal length ≥ need with finite draws.
func checkChains(chains [][]float64, need int) error {
	if len(chains) == 0 {
		return fmt.Errorf("%w: no chains", ErrDegenerate)
	}
	n := len(chains[0])
	for c, ch := range chains {
		if len(ch) != n {
			return fmt.Errorf("%w: chains have unequal lengths (%d and %d)", ErrDegenerate, n, len(ch))
		}
		for i, v := range ch {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: chain %d draw %d is %v", ErrDegenerate, c, i, v)
			}
		}
	}
	if n < need {
		return fmt.Errorf("%w: %d draws per chain, need at least %d", ErrDegenerate, n, need)
	}
	return nil
}

// splitChains splits each chain into its first and second halves,
// dropping the middle draw of an odd-length chain (Vehtari et al. 2021).
func splitChains(chains [][]float64) [][]float64 {
	n := len(chains[0])
	h := n / 2
	out := make([][]float64, 0, 2*len(chains))
	for _, ch := range chains {
		out = append(out, ch[:h], ch[n-h:])
	}
	return out
}

func isConstant(chains [][]float64) bool {
	first := chains[0][0]
	for _, ch := range chains {
		for _, v := range ch {
			if v != first {
				return false
			}
		}
	}
	return true
}

// rankNormalize replaces every draw by Φ⁻¹((r − 3/8)/(S + 1/4)), r its
// average rank among all S pooled draws (Vehtari et al. 2021, eq. 14).
func rankNormalize(chains [][]float64) [][]float64 {
	type item struct {
		v    float64
		c, i int
	}
	var all []item
	for c, ch := range chains {
		for i, v := range ch {
			all = append(all, item{v, c, i})
		}
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].v < all[b].v })
	out := make([][]float64, len(chains))
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
	}
	S := float64(len(all))
	for a := 0; a < len(all); {
		b := a
		for b+1 < len(all) && all[b+1].v == all[a].v {
			b++
		}
		r := float64(a+b)/2 + 1 // average 1-based rank of the tie block
		z := special.NormQuantile((r - 0.375) / (S + 0.25))
		for k := a; k <= b; k++ {
			out[all[k].c][all[k].i] = z
		}
		a = b + 1
	}
	return out
}

// rhatBasic is the classic potential scale reduction of chains of equal
// length: sqrt(((n−1)/n·W + B/n)/W).
func rhatBasic(chains [][]float64) float64 {
	n := float64(len(chains[0]))
	m := len(chains)
	means := make([]float64, m)
	w := 0.0
	for c, ch := range chains {
		means[c] = stats.Mean(ch)
		w += stats.Variance(ch)
	}
	w /= float64(m)
	b := n * stats.Variance(means)
	if m == 1 {
		b = 0
	}
	return math.Sqrt((b/w + n - 1) / n)
}

// RHat returns the rank-normalised split R̂ of Vehtari et al. (2021): the
// larger of the bulk R̂ (split chains, rank-normalised) and the tail R̂
// (the same for |x − median|). chains holds one series per chain, all of
// the same length. It returns NaN and an error wrapping ErrDegenerate for
// no chains, fewer than 6 draws per chain (3 per split half),
// non-finite draws or a constant sample.
func RHat(chains [][]float64) (float64, error) {
	sp, err := splitChecked(chains)
	if err != nil {
		return math.NaN(), err
	}
	bulk := rhatBasic(rankNormalize(sp))
	med := median(sp)
	fold := make([][]float64, len(sp))
	for c, ch := range sp {
		fold[c] = make([]float64, len(ch))
		for i, v := range ch {
			fold[c][i] = math.Abs(v - med)
		}
	}
	tail := rhatBasic(rankNormalize(fold))
	return finish(math.Max(bulk, tail))
}

// RHatBasic returns the classic split R̂ without rank normalisation
// (Gelman et al. 2013), with the same degenerate-input rules as RHat.
func RHatBasic(chains [][]float64) (float64, error) {
	sp, err := splitChecked(chains)
	if err != nil {
		return math.NaN(), err
	}
	return finish(rhatBasic(sp))
}

// splitChecked checks chains for the split diagnostics (at least
// 2·minSplitDraws finite draws per chain) and returns the split chains,
// refusing a constant sample.
func splitChecked(chains [][]float64) ([][]float64, error) {
	if err := checkChains(chains, 2*minSplitDraws); err != nil {
		return nil, err
	}
	sp := splitChains(chains)
	if isConstant(sp) {
		return nil, fmt.Errorf("%w: all draws are equal", ErrDegenerate)
	}
	return sp, nil
}

// pooled returns the draws of all chains, chain after chain, in a new
// slice.
func pooled(chains [][]float64) []float64 {
	var all []float64
	for _, ch := range chains {
		all = append(all, ch...)
	}
	return all
}

// finish reports a NaN produced by overflow (draws so large that their
// variance is not representable) as degenerate input.
func finish(v float64) (float64, error) {
	if math.IsNaN(v) {
		return v, fmt.Errorf("%w: draws too large for a finite variance", ErrDegenerate)
	}
	return v, nil
}

func median(chains [][]float64) float64 {
	all := pooled(chains)
	slices.Sort(all)
	return stats.Quantile(all, 0.5)
}

// essCore is the multi-chain effective sample size of Vehtari et al.
// (2021, eqs. 10–13) with Geyer's initial monotone sequence, as in Stan
// and the posterior R package: autocovariances by FFT, the combined
// autocorrelation ρ̂_t = 1 − (W − mean_c acov_{c,t})/var⁺, truncation at
// the first negative pair sum, and τ̂ ≥ 1/log10(S).
func essCore(chains [][]float64) float64 {
	m := len(chains)
	n := len(chains[0])
	acov := make([][]float64, m)
	means := make([]float64, m)
	for c, ch := range chains {
		acov[c] = autocov(ch)
		means[c] = stats.Mean(ch)
	}
	meanAt := func(t int) float64 {
		s := 0.0
		for c := range m {
			s += acov[c][t]
		}
		return s / float64(m)
	}
	fn := float64(n)
	meanVar := meanAt(0) * fn / (fn - 1)
	varPlus := meanVar * (fn - 1) / fn
	if m > 1 {
		varPlus += stats.Variance(means)
	}
	rho := make([]float64, n)
	rhoEven, rhoOdd := 1.0, 1-(meanVar-meanAt(1))/varPlus
	rho[0], rho[1] = rhoEven, rhoOdd
	t := 1
	for t < n-4 && rhoEven+rhoOdd > 0 {
		rhoEven = 1 - (meanVar-meanAt(t+1))/varPlus
		rhoOdd = 1 - (meanVar-meanAt(t+2))/varPlus
		if rhoEven+rhoOdd >= 0 {
			rho[t+1], rho[t+2] = rhoEven, rhoOdd
		}
		t += 2
	}
	maxT := t
	if rhoEven > 0 {
		rho[maxT+1] = rhoEven
	}
	for t = 1; t <= maxT-3; t += 2 {
		if rho[t+1]+rho[t+2] > rho[t-1]+rho[t] {
			rho[t+1] = (rho[t-1] + rho[t]) / 2
			rho[t+2] = rho[t+1]
		}
	}
	S := float64(m * n)
	tau := -1.0
	for i := range max(1, maxT) {
		tau += 2 * rho[i]
	}
	tau += rho[maxT+1]
	tau = math.Max(tau, 1/math.Log10(S))
	return S / tau
}

// autocov returns the biased autocovariances γ_t = (1/n) Σ (x_i − x̄)(x_{i+t} − x̄)
// for t = 0..n−1, computed by FFT with zero padding.
func autocov(x []float64) []float64 {
	n := len(x)
	size := 1
	for size < 2*n {
		size <<= 1
	}
	buf := make([]complex128, size)
	mu := stats.Mean(x)
	for i, v := range x {
		buf[i] = complex(v-mu, 0)
	}
	fft(buf, false)
	for i, v := range buf {
		buf[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	fft(buf, true)
	out := make([]float64, n)
	for t := range n {
		out[t] = real(buf[t]) / float64(size) / float64(n)
	}
	return out
}

// fft is an in-place iterative radix-2 transform (inverse without 1/N).
func fft(a []complex128, inverse bool) {
	n := len(a)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	sign := -1.0
	if inverse {
		sign = 1
	}
	for length := 2; length <= n; length <<= 1 {
		w := cmplx.Exp(complex(0, sign*2*math.Pi/float64(length)))
		for i := 0; i < n; i += length {
			wk := complex(1, 0)
			half := length / 2
			for k := range half {
				u, v := a[i+k], a[i+k+half]*wk
				a[i+k], a[i+k+half] = u+v, u-v
				wk *= w
			}
		}
	}
}

func essChecked(chains [][]float64) (float64, error) {
	if isConstant(chains) {
		return math.NaN(), fmt.Errorf("%w: all draws are equal", ErrDegenerate)
	}
	return finish(essCore(chains))
}

// ESSBulk returns the bulk effective sample size of Vehtari et al.
// (2021): the ESS of the rank-normalised split chains. Degenerate input
// (see RHat) gives NaN and an error wrapping ErrDegenerate.
func ESSBulk(chains [][]float64) (float64, error) {
	sp, err := splitChecked(chains)
	if err != nil {
		return math.NaN(), err
	}
	return finish(essCore(rankNormalize(sp)))
}

// ESSQuantile returns the ESS of the indicator I(x ≤ q_p) on split chains,
// q_p the type-7 p-quantile of the pooled split draws.
func ESSQuantile(chains [][]float64, p float64) (float64, error) {
	if err := checkChains(chains, 2*minSplitDraws); err != nil {
		return math.NaN(), err
	}
	if !(p > 0 && p < 1) {
		return math.NaN(), fmt.Errorf("%w: quantile level must be in (0, 1), got %v", ErrDegenerate, p)
	}
	sp := splitChains(chains)
	all := pooled(sp)
	slices.Sort(all)
	q := stats.Quantile(all, p)
	ind := make([][]float64, len(sp))
	for c, ch := range sp {
		ind[c] = make([]float64, len(ch))
		for i, v := range ch {
			if v <= q {
				ind[c][i] = 1
			}
		}
	}
	e, err := essChecked(ind)
	if err != nil {
		return e, fmt.Errorf("%w (indicator of the %v-quantile is constant)", err, p)
	}
	return e, nil
}

// ESSTail returns the tail effective sample size of Vehtari et al.
// (2021): the smaller of the ESS of the 5% and 95% quantile indicators.
func ESSTail(chains [][]float64) (float64, error) {
	lo, err := ESSQuantile(chains, 0.05)
	if err != nil {
		return math.NaN(), err
	}
	hi, err := ESSQuantile(chains, 0.95)
	if err != nil {
		return math.NaN(), err
	}
	return math.Min(lo, hi), nil
}

// ESSMean returns the ESS of the split chains without rank normalisation
// (the basic ESS for estimating the mean).
func ESSMean(chains [][]float64) (float64, error) {
	if err := checkChains(chains, 2*minSplitDraws); err != nil {
		return math.NaN(), err
	}
	return essChecked(splitChains(chains))
}

// MCSEMean returns the Monte Carlo standard error of the posterior mean,
// sd/√ESSMean.
func MCSEMean(chains [][]float64) (float64, error) {
	e, err := ESSMean(chains)
	if err != nil {
		return math.NaN(), err
	}
	all := pooled(chains)
	return finish(math.Sqrt(stats.Variance(all) / e))
}

// Autocorrelation returns the sample autocorrelations ρ_t = γ_t/γ_0 of x
// for lags t = 0..maxLag (biased estimator, as in Stan). It returns an
// error wrapping ErrDegenerate for fewer than 2 draws, non-finite draws
// or a constant series, or maxLag outside [0, len(x)−1].
func Autocorrelation(x []float64, maxLag int) ([]float64, error) {
	if err := checkChains([][]float64{x}, 2); err != nil {
		return nil, err
	}
	if maxLag < 0 || maxLag >= len(x) {
		return nil, fmt.Errorf("%w: maxLag must be in [0, %d], got %d", ErrDegenerate, len(x)-1, maxLag)
	}
	if isConstant([][]float64{x}) {
		return nil, fmt.Errorf("%w: constant series", ErrDegenerate)
	}
	g := autocov(x)
	out := make([]float64, maxLag+1)
	for t := range out {
		out[t] = g[t] / g[0]
	}
	return out, nil
}

// MCSESD returns the Monte Carlo standard error of the pooled posterior
// standard deviation by the delta method, as ArviZ's mcse_sd: with
// c = (x − x̄)² over all draws, var(ĉ) = (mean(c²) − mean(c)²)/ESSMean(c)
// and MCSE(sd) = sqrt(var(ĉ)/(4·mean(c))). Degenerate input gives NaN
// and an error wrapping ErrDegenerate.
func MCSESD(chains [][]float64) (float64, error) {
	if err := checkChains(chains, 2*minSplitDraws); err != nil {
		return math.NaN(), err
	}
	all := pooled(chains)
	mu := stats.Mean(all)
	c2 := make([][]float64, len(chains))
	sum, sum2 := 0.0, 0.0
	for c, ch := range chains {
		c2[c] = make([]float64, len(ch))
		for i, v := range ch {
			d := (v - mu) * (v - mu)
			c2[c][i] = d
			sum += d
			sum2 += d * d
		}
	}
	if isConstant(chains) {
		return math.NaN(), fmt.Errorf("%w: all draws are equal", ErrDegenerate)
	}
	sp := splitChains(c2)
	if isConstant(sp) {
		return 0, nil // every squared deviation is equal: the sd is exact
	}
	e, err := essChecked(sp)
	if err != nil {
		return math.NaN(), err
	}
	s := float64(len(all))
	evar := sum / s
	varvar := (sum2/s - evar*evar) / e
	return finish(math.Sqrt(varvar / evar / 4))
}
