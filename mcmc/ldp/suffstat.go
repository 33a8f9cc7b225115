package ldp

import (
	"fmt"
	"math"
	"sync"

	"github.com/privinfer/privinfer/internal/linalg"
)

// SuffStatDim returns the length binom(d+2, 2) of the per-person
// linear-regression statistic t(x, y) = [t2(x), y·x, y²] of the LDP paper
// §3.1.1, with t2(x) = [x_1², …, x_d², x_1x_2, …, x_{d−1}x_d] (squares first,
// then the products x_j x_k, j < k, in lexicographic order).
func SuffStatDim(d int) int { return (d + 1) * (d + 2) / 2 }

// SuffStats writes t(x, y) for one person into dst (length SuffStatDim(d)).
func SuffStats(x []float64, y float64, dst []float64) error {
	d := len(x)
	if d < 1 || len(dst) != SuffStatDim(d) {
		return fmt.Errorf("ldp: SuffStats needs d ≥ 1 and dst of length %d, got d = %d, len(dst) = %d: %w", SuffStatDim(d), d, len(dst), ErrInvalid)
	}
	if !finite(y) {
		return fmt.Errorf("ldp: SuffStats needs a finite y, got %v: %w", y, ErrInvalid)
	}
	for j, v := range x {
		if !finite(v) {
			return fmt.Errorf("ldp: SuffStats needs finite x, got x[%d] = %v: %w", j, v, ErrInvalid)
		}
	}
	pairs := statPairs(d)
	for i, p := range pairs {
		vi := y
		if p[0] < d {
			vi = x[p[0]]
		}
		vj := y
		if p[1] < d {
			vj = x[p[1]]
		}
		dst[i] = vi * vj
	}
	return nil
}

// statPairs lists, for each statistic, the pair of indices into w = (x, y)
// whose product it is (index d is y).
func statPairs(d int) [][2]int {
	var p [][2]int
	for j := range d {
		p = append(p, [2]int{j, j})
	}
	for j := range d {
		for k := j + 1; k < d; k++ {
			p = append(p, [2]int{j, k})
		}
	}
	for j := range d {
		p = append(p, [2]int{d, j})
	}
	return append(p, [2]int{d, d})
}

// SuffStatLinReg is the sufficient-statistics linear-regression model of
// the LDP paper §3.1.1 and §13.1: each of N people releases t(x_i, y_i)
// plus Gaussian noise with standard deviation s1 on the t2 block, s2 on
// y·x and s3 on y² (Lemma 3.1; mechanism.LDPLinRegSensitivity calibrates
// them), and the aggregator observes the sum Z. With the normal
// approximation S = Σ t(x_i, y_i) ≈ N(μ_s, Σ_s) (eq. 3),
//
//	Pr[Z | θ, σ, Σ] ≈ N(Z; μ_s, Σ_s + N Σ*).
//
// The moments are those of the generative model x ~ N(0, Σ), y | x ~
// N(θᵀx, σ²), as in Bernstein & Sheldon (2019): w = (x, y) is N(0, C) with
// C = [[Σ, Σθ], [θᵀΣ, θᵀΣθ + σ²]], every statistic is a product w_i w_j, and
// by Isserlis' theorem μ_s = N·C_ij and Σ_s = N·(C_ik C_jl + C_il C_jk). The
// clipping of x and y that bounds the sensitivity is not part of the
// approximation (as in the paper).
type SuffStatLinReg struct {
	d, m     int
	n        float64
	z        []float64
	noiseVar []float64 // N·Σ* diagonal
	pairs    [][2]int
	pool     sync.Pool
}

type ssWork struct{ c, cov, l, r []float64 }

// NewSuffStatLinReg validates the released sum z (length SuffStatDim(d)) of
// n ≥ 1 people's noisy statistics and the noise scales s1, s2, s3 > 0.
func NewSuffStatLinReg(z []float64, d, n int, s1, s2, s3 float64) (*SuffStatLinReg, error) {
	if d < 1 {
		return nil, fmt.Errorf("ldp: dimension d must be >= 1, got %d: %w", d, ErrInvalid)
	}
	m := SuffStatDim(d)
	if len(z) != m {
		return nil, fmt.Errorf("ldp: released sum must have length %d for d = %d, got %d: %w", m, d, len(z), ErrInvalid)
	}
	if n < 1 {
		return nil, fmt.Errorf("ldp: number of people must be >= 1, got %d: %w", n, ErrInvalid)
	}
	for i, s := range []float64{s1, s2, s3} {
		if !(s > 0) || math.IsInf(s, 1) {
			return nil, fmt.Errorf("ldp: noise scale s%d must be finite and > 0, got %v: %w", i+1, s, ErrInvalid)
		}
	}
	for i, v := range z {
		if !finite(v) {
			return nil, fmt.Errorf("ldp: z[%d] must be finite, got %v: %w", i, v, ErrInvalid)
		}
	}
	s := &SuffStatLinReg{d: d, m: m, n: float64(n), z: append([]float64(nil), z...), noiseVar: make([]float64, m), pairs: statPairs(d)}
	d2 := d * (d + 1) / 2
	for i := range m {
		switch {
		case i < d2:
			s.noiseVar[i] = float64(n) * s1 * s1
		case i < d2+d:
			s.noiseVar[i] = float64(n) * s2 * s2
		default:
			s.noiseVar[i] = float64(n) * s3 * s3
		}
	}
	s.pool.New = func() any {
		return &ssWork{c: make([]float64, (d+1)*(d+1)), cov: make([]float64, m*m), l: make([]float64, m*m), r: make([]float64, m)}
	}
	return s, nil
}

// Moments writes the per-person mean E[t] (length m) and covariance
// Cov[t] (m×m) of the statistic under x ~ N(0, Σ), y | x ~ N(θᵀx, σ²).
func (s *SuffStatLinReg) Moments(theta []float64, sigma float64, sigmaX, mean, cov []float64) error {
	if s == nil || s.d < 1 || s.n < 1 {
		return fmt.Errorf("ldp: SuffStatLinReg used without NewSuffStatLinReg: %w", ErrInvalid)
	}
	d, m := s.d, s.m
	if len(theta) != d || !checkCov(sigmaX, d) || len(mean) != m || len(cov) != m*m || !(sigma >= 0) {
		return fmt.Errorf("ldp: Moments: wrong lengths or invalid parameters: %w", ErrInvalid)
	}
	c := make([]float64, (d+1)*(d+1))
	s.joint(theta, sigma, sigmaX, c)
	s.moments(c, mean, cov)
	return nil
}

// joint writes C = Cov(x, y) ((d+1)×(d+1)).
func (s *SuffStatLinReg) joint(theta []float64, sigma float64, sigmaX, c []float64) {
	d := s.d
	e := d + 1
	tst := 0.0
	for r := range d {
		st := 0.0
		for k := range d {
			c[r*e+k] = sigmaX[r*d+k]
			st += sigmaX[r*d+k] * theta[k]
		}
		c[r*e+d] = st
		c[d*e+r] = st
		tst += theta[r] * st
	}
	c[d*e+d] = tst + sigma*sigma
}

func (s *SuffStatLinReg) moments(c, mean, cov []float64) {
	e := s.d + 1
	for a, pa := range s.pairs {
		i, j := pa[0], pa[1]
		mean[a] = c[i*e+j]
		for b, pb := range s.pairs {
			k, l := pb[0], pb[1]
			cov[a*s.m+b] = c[i*e+k]*c[j*e+l] + c[i*e+l]*c[j*e+k]
		}
	}
}

// LogDensity returns log N(Z; μ_s, Σ_s + NΣ*) at (θ, σ, Σ), sigmaX row-major
// d×d. NaN for invalid arguments. Safe for concurrent use; allocates
// nothing in steady state.
func (s *SuffStatLinReg) LogDensity(theta []float64, sigma float64, sigmaX []float64) float64 {
	d, m := s.d, s.m
	if len(theta) != d || !checkCov(sigmaX, d) || !(sigma >= 0) || math.IsInf(sigma, 1) {
		return math.NaN()
	}
	for _, v := range theta {
		if !finite(v) {
			return math.NaN()
		}
	}
	w := s.pool.Get().(*ssWork)
	defer s.pool.Put(w)
	s.joint(theta, sigma, sigmaX, w.c)
	s.moments(w.c, w.r, w.cov)
	for i := range m {
		w.r[i] = s.z[i] - s.n*w.r[i]
		for j := range m {
			w.cov[i*m+j] *= s.n
		}
		w.cov[i*m+i] += s.noiseVar[i]
	}
	if err := linalg.Cholesky(w.cov, m, w.l); err != nil {
		return math.NaN()
	}
	linalg.SolveLower(w.l, m, w.r)
	q := 0.0
	for _, v := range w.r {
		q += v * v
	}
	return -0.5*(float64(m)*2*logSqrt2Pi+linalg.LogDetChol(w.l, m)) - 0.5*q
}
