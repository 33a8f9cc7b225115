package diag

import (
	"fmt"
	"math"
	"sort"
)

// Sorted returns copies of x and w (nil w means equal weights and gives a
// nil weight slice) sorted by x, with NaN values and zero weights removed.
// The weights are normalised to sum to one. It returns ErrDegenerate when
// no value with positive weight remains or a weight is negative or not
// finite.
func Sorted(x, w []float64) (xs, ws []float64, err error) {
	if w != nil && len(w) != len(x) {
		return nil, nil, fmt.Errorf("%w: %d weights for %d values", ErrDegenerate, len(w), len(x))
	}
	idx := make([]int, 0, len(x))
	total := 0.0
	for i, v := range x {
		if math.IsNaN(v) {
			continue
		}
		if w != nil {
			if !(w[i] >= 0) || math.IsInf(w[i], 0) {
				return nil, nil, fmt.Errorf("%w: weight %d is %v", ErrDegenerate, i, w[i])
			}
			if w[i] == 0 {
				continue
			}
			total += w[i]
		}
		idx = append(idx, i)
	}
	if len(idx) == 0 || (w != nil && !(total > 0 && !math.IsInf(total, 0))) {
		return nil, nil, fmt.Errorf("%w: no value with positive weight", ErrDegenerate)
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	xs = make([]float64, len(idx))
	for k, i := range idx {
		xs[k] = x[i]
	}
	if w != nil {
		ws = make([]float64, len(idx))
		for k, i := range idx {
			ws[k] = w[i] / total
		}
		if equalWeights(ws) {
			ws = nil
		}
	}
	return xs, ws, nil
}

// equalWeights reports whether all weights are equal.
func equalWeights(w []float64) bool {
	for _, v := range w {
		if v != w[0] {
			return false
		}
	}
	return true
}

// Quantile returns the p-quantile of the sorted sample xs with normalised
// weights ws as returned by Sorted. With equal weights (ws nil) it is the
// type-7 quantile of R and NumPy: linear interpolation between the order
// statistics placed at probabilities k/(n−1). With unequal weights the
// order statistic k is placed at the midpoint of its weight,
// P_k = Σ_{i<k} w_i + w_k/2, and the quantile interpolates linearly
// between these points, clamped to [xs[0], xs[n−1]] outside [P_0, P_{n−1}].
// It returns NaN for p outside [0, 1] or an empty sample.
func Quantile(xs, ws []float64, p float64) float64 {
	n := len(xs)
	if n == 0 || !(p >= 0 && p <= 1) {
		return math.NaN()
	}
	if ws == nil {
		h := float64(n-1) * p
		lo := int(math.Floor(h))
		if lo >= n-1 {
			return xs[n-1]
		}
		f := h - float64(lo)
		if f == 0 {
			return xs[lo]
		}
		return xs[lo] + f*(xs[lo+1]-xs[lo])
	}
	cum := 0.0
	prev := math.NaN()
	for k := range n {
		pk := cum + ws[k]/2
		if p <= pk {
			if k == 0 {
				return xs[0]
			}
			f := (p - prev) / (pk - prev)
			return xs[k-1] + f*(xs[k]-xs[k-1])
		}
		prev = pk
		cum += ws[k]
	}
	return xs[n-1]
}

// HDI returns the highest-density interval of probability prob (0 < prob
// < 1) of the sorted sample xs with normalised weights ws as returned by
// Sorted: the narrowest interval [xs[a], xs[b]] among those holding the
// required mass, the leftmost on ties. With equal weights (ws nil) it is
// ArviZ's rule, b − a = ⌊prob·n⌋; with unequal weights the interval holds
// weight Σ_{a≤k≤b} w_k ≥ prob. It returns NaNs for prob outside (0, 1), an
// empty sample, or equal weights with ⌊prob·n⌋ ≥ n.
func HDI(xs, ws []float64, prob float64) (lo, hi float64) {
	n := len(xs)
	if n == 0 || !(prob > 0 && prob < 1) {
		return math.NaN(), math.NaN()
	}
	if ws == nil {
		inc := int(math.Floor(prob * float64(n)))
		if inc >= n {
			return math.NaN(), math.NaN()
		}
		best := 0
		for a := 1; a+inc < n; a++ {
			if xs[a+inc]-xs[a] < xs[best+inc]-xs[best] {
				best = a
			}
		}
		return xs[best], xs[best+inc]
	}
	// Two pointers: for every a, the smallest b with mass[a..b] ≥ prob.
	bestA, bestB := -1, -1
	mass := 0.0
	b := -1
	for a := range n {
		for mass < prob*(1-1e-12) && b+1 < n {
			b++
			mass += ws[b]
		}
		if mass < prob*(1-1e-12) {
			break
		}
		if bestA < 0 || xs[b]-xs[a] < xs[bestB]-xs[bestA] {
			bestA, bestB = a, b
		}
		mass -= ws[a]
	}
	if bestA < 0 {
		return xs[0], xs[n-1]
	}
	return xs[bestA], xs[bestB]
}
