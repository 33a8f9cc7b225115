package variate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/argcheck"
)

// ErrWeights reports an invalid probability or weight vector: empty, with a
// negative, NaN or infinite entry, or with zero total.
var ErrWeights error = argcheck.Sentinel("variate: invalid weights", ErrInvalid)

// ErrInvalid is wrapped by every error reporting an invalid argument; it is
// wrapped by ErrWeights.
var ErrInvalid = errors.New("variate: invalid argument")

// checkWeights validates a weight vector and returns its total.
func checkWeights(w []float64) (float64, error) {
	s, err := argcheck.Weights(w)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrWeights, err)
	}
	return s, nil
}

// lastPositive returns the index of the last positive entry of w.
func lastPositive(w []float64) int {
	for i := len(w) - 1; i >= 0; i-- {
		if w[i] > 0 {
			return i
		}
	}
	return -1
}

// condMass tracks Σ_{j≥i} p_j by subtraction, re-summing whenever
// cancellation could cost more than ~1e-13 relative accuracy.
type condMass struct {
	p       []float64
	left    float64 // current Σ_{j≥i} p_j
	checked float64 // value of left at the last exact summation
}

func (c *condMass) advance(i int) {
	c.left -= c.p[i]
	if c.left < 1e-3*c.checked {
		s := 0.0
		for _, x := range c.p[i+1:] {
			s += x
		}
		c.left, c.checked = s, s
	}
}

// Multinomial fills dst with a Multinomial(n, p) draw: dst[i] counts the
// trials landing in category i, and the counts sum to n. The weights p need
// not sum to one; they are normalised by their total. It draws sequential
// conditional binomials, dst[i] ~ Binomial(n − Σ_{j<i} dst[j], p_i/Σ_{j≥i} p_j),
// which is exact and costs O(len(p)) Binomial draws. It returns an error
// wrapping ErrWeights for invalid p, and an error if n < 0 or
// len(dst) ≠ len(p); dst is unchanged on error.
func Multinomial(r *rand.Rand, n int64, p []float64, dst []int64) error {
	total, err := checkWeights(p)
	if err != nil {
		return fmt.Errorf("variate: multinomial: %w", err)
	}
	if n < 0 {
		return fmt.Errorf("variate: multinomial: n must be >= 0, got %d: %w", n, ErrInvalid)
	}
	if len(dst) != len(p) {
		return fmt.Errorf("variate: multinomial: len(dst) = %d must equal len(p) = %d: %w", len(dst), len(p), ErrInvalid)
	}
	last := lastPositive(p)
	cm := condMass{p: p, left: total, checked: total}
	rem := n
	for i, pi := range p {
		switch {
		case rem == 0 || pi == 0:
			dst[i] = 0
		case i == last:
			dst[i] = rem
			rem = 0
		default:
			pr := pi / cm.left
			var k int64
			if pr >= 1 {
				k = rem
			} else {
				k = Binomial(r, rem, pr)
			}
			dst[i] = k
			rem -= k
		}
		if i < last {
			cm.advance(i)
		}
	}
	return nil
}

// MultinomialLogPmf returns log P(X = k) for X ~ Multinomial(Σk, p), with p
// normalised by its total as in Multinomial. It evaluates the same chain of
// conditional binomial masses as the generator, each by Loader's formula, so
// it stays accurate for huge counts. It returns −Inf if some k_i < 0 or a
// positive count falls on a zero weight, and NaN if p is invalid, the lengths
// differ, or Σk overflows int64.
func MultinomialLogPmf(k []int64, p []float64) float64 {
	total, err := checkWeights(p)
	if err != nil || len(k) != len(p) {
		return math.NaN()
	}
	var n int64
	for _, ki := range k {
		if ki < 0 {
			return math.Inf(-1)
		}
		if n > math.MaxInt64-ki {
			return math.NaN()
		}
		n += ki
	}
	last := lastPositive(p)
	for i := last + 1; i < len(k); i++ {
		if k[i] > 0 {
			return math.Inf(-1)
		}
	}
	cm := condMass{p: p, left: total, checked: total}
	rem := n
	lp := 0.0
	for i := 0; i < last; i++ {
		pi := p[i]
		if pi == 0 {
			if k[i] > 0 {
				return math.Inf(-1)
			}
			continue
		}
		pr := pi / cm.left
		if pr >= 1 {
			pr = 1
		}
		lp += BinomialLogPmf(k[i], rem, pr)
		rem -= k[i]
		cm.advance(i)
	}
	return lp
}
