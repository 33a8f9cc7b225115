package combine

import (
	"fmt"
	"math"
)

// VectorResult is a pooled inference for a k-dimensional estimand.
// Matrices are k×k, row-major.
type VectorResult struct {
	Rule    Rule
	M, K    int
	Mean    []float64 // Q̄
	Within  []float64 // W̄, mean of the m covariance matrices
	Between []float64 // B, sample covariance of the m estimates
	Var     []float64 // T, the rule's total covariance
	opt     Options
}

// Component returns the scalar pooled inference for component i, built
// from the diagonal entries of W̄ and B (identical to Pool on the i-th
// estimates and variances).
func (v VectorResult) Component(i int) (Result, error) {
	if i < 0 || i >= v.K {
		return Result{}, fmt.Errorf("%w: component must be in [0, %d), got %d", ErrInvalid, v.K, i)
	}
	if len(v.Mean) != v.K || len(v.Within) != v.K*v.K || len(v.Between) != v.K*v.K {
		return Result{}, fmt.Errorf("%w: VectorResult not returned by PoolVector", ErrInvalid)
	}
	d := i*v.K + i
	return poolMoments(v.Rule, v.M, v.Mean[i], v.Within[d], v.Between[d], v.opt)
}

// PoolVector combines m analyses of a k-dimensional estimand: q[j] is the
// j-th estimate (length k) and u[j] its k×k covariance (row-major, length
// k·k). The total covariance follows the rule's scalar formula applied to
// the matrices W̄ and B (for FullySynthetic, a covariance that is not
// positive semidefinite is returned as is; use Component for per-component
// adjusted inference). Edge cases and errors are as for Pool; covariance
// matrices must be symmetric with non-negative diagonals.
func PoolVector(rule Rule, q [][]float64, u [][]float64, opt Options) (VectorResult, error) {
	if err := opt.Validate(); err != nil {
		return VectorResult{}, err
	}
	m := len(q)
	if len(u) != m {
		return VectorResult{}, fmt.Errorf("%w: %d estimates but %d covariances", ErrInvalid, m, len(u))
	}
	if m < 1 || (m < 2 && rule != Raab) {
		return VectorResult{}, fmt.Errorf("%w: rule %v with m = %d", ErrInvalid, rule, m)
	}
	if rule < DPSynthesis || rule > Raab {
		return VectorResult{}, fmt.Errorf("%w: unknown rule %d", ErrInvalid, int(rule))
	}
	k := len(q[0])
	if k == 0 {
		return VectorResult{}, fmt.Errorf("%w: empty estimate", ErrInvalid)
	}
	if k > maxK {
		return VectorResult{}, fmt.Errorf("%w: estimand dimension %d exceeds %d", ErrInvalid, k, maxK)
	}
	for j := range q {
		if len(q[j]) != k || len(u[j]) != k*k {
			return VectorResult{}, fmt.Errorf("%w: set %d has %d estimates and %d covariance entries, want %d and %d",
				ErrInvalid, j, len(q[j]), len(u[j]), k, k*k)
		}
		for a, x := range q[j] {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return VectorResult{}, fmt.Errorf("%w: estimate %d[%d] is %v", ErrInvalid, j, a, x)
			}
		}
		for a := 0; a < k; a++ {
			if !(u[j][a*k+a] >= 0) {
				return VectorResult{}, fmt.Errorf("%w: covariance %d has diagonal %v", ErrInvalid, j, u[j][a*k+a])
			}
			for c := 0; c < k; c++ {
				x := u[j][a*k+c]
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return VectorResult{}, fmt.Errorf("%w: covariance %d[%d,%d] is %v", ErrInvalid, j, a, c, x)
				}
				if x != u[j][c*k+a] {
					return VectorResult{}, fmt.Errorf("%w: covariance %d is not symmetric at [%d,%d]", ErrInvalid, j, a, c)
				}
			}
		}
	}
	fm := float64(m)
	res := VectorResult{Rule: rule, M: m, K: k, opt: opt,
		Mean: make([]float64, k), Within: make([]float64, k*k),
		Between: make([]float64, k*k), Var: make([]float64, k*k)}
	for j := range q {
		for a := range k {
			res.Mean[a] += q[j][a]
		}
		for i, x := range u[j] {
			res.Within[i] += x
		}
	}
	for a := range k {
		res.Mean[a] /= fm
	}
	for i := range res.Within {
		res.Within[i] /= fm
	}
	if m > 1 {
		for j := range q {
			for a := range k {
				da := q[j][a] - res.Mean[a]
				for c := range k {
					res.Between[a*k+c] += da * (q[j][c] - res.Mean[c])
				}
			}
		}
		for i := range res.Between {
			res.Between[i] /= fm - 1
		}
	}
	for i := range res.Var {
		w, b := res.Within[i], res.Between[i]
		switch rule {
		case DPSynthesis:
			res.Var[i] = w + b/fm
		case Rubin:
			res.Var[i] = w + (1+1/fm)*b
		case FullySynthetic:
			res.Var[i] = (1+1/fm)*b - w
		case Raab:
			res.Var[i] = (1 + 2/fm) * w
		}
	}
	for _, v := range [][]float64{res.Mean, res.Within, res.Between, res.Var} {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return VectorResult{}, fmt.Errorf("%w: pooled moments overflow", ErrInvalid)
			}
		}
	}
	return res, nil
}

// maxK bounds the estimand dimension of PoolVector (k×k matrices).
const maxK = 1 << 12
