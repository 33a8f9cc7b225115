// Package lattice computes the record log-weights of a Laplace release on
// power-of-two grids, the inner loop of SOMA's weight pass: for slots i =
// 0..n−1 and coordinates k = 0..d−1,
//
//	logw[i] = Σ_k ((ℓ_k − λ_k·|K_k − round(z_k − t_{k,i})|) − gl_k),
//
// with round halving away from zero (math.Round) and the terms added in
// the order k = 0, 1, …, d−1, starting from zero. The contributions t are
// column-major: coordinate k of slot i at t[k·n + i].
//
// On amd64 the pass runs in assembly (AVX-512 when the processor and the
// operating system offer it, 16 slots per block with masked tails, else
// AVX2, 16 slots per block as four independent sums, then vectors of four
// and a last partial vector loaded under a mask and stored lane by lane),
// a whole column per coordinate; without either, or with the purego build
// tag, it runs the Go loop. All give the same bits: every operation of the
// Go loop is done in the same order with the same rounding, and only the
// rounding half away from zero is computed differently. AVX-512 rounds as
// 2·B − A with A = trunc(x) and B = trunc(2x)/2 (both exact; 2B − A is an
// integer below 2^53, or x itself once |x| ≥ 2^52, so no step rounds),
// forming 2B − A by a fused multiply-add, which is exact here. AVX2 rounds
// as trunc(x + copysign(h, x)) with h = 0.5 − 2^−54, the largest double
// below one half: the sum rounds up to the next integer exactly when the
// fraction of |x| is at least one half (at |x| = 0.5 by a tie to even),
// and never past it. The AVX2 rounding equals math.Round(x) for every
// finite x, the AVX-512 one for |x| < 2^1023 (beyond, 2x overflows and it
// gives ±Inf; the offsets of a release are far below that). The
// multiply λ·|·| and the subtractions that round are separate
// instructions, never fused. The pass also returns the largest weight.
//
// ExpShift computes the relative weights e^{log w_i − max} that SOMA's
// slot choice needs, with AVX-512 eight at a time by math.Exp's own amd64
// algorithm, so its values are math.Exp's bits on every path.
package lattice

import (
	"errors"
	"fmt"
	"math"

	"github.com/privinfer/privinfer/internal/cpu"
)

// stride is the number of float64 values kept per coordinate: z, K, λ, ℓ,
// gl and padding to a 64-byte line.
const stride = 8

// Coef holds the per-coordinate constants of the pass (K_k, λ_k, ℓ_k,
// gl_k) and the current offsets z_k. The zero value has dimension 0; use
// NewCoef.
type Coef struct {
	d int
	p []float64 // stride values per coordinate: z, K, λ, ℓ, gl, 0, 0, 0
}

// ErrInvalid is wrapped by the errors of NewCoef, SetZ and LogWeights.
var ErrInvalid = errors.New("lattice: invalid argument")

// CoefConfig holds the per-coordinate constants of a d-dimensional pass,
// each of length d ≥ 1.
type CoefConfig struct {
	K   []float64 // centres K_k
	Lam []float64 // slopes λ_k
	Ell []float64 // log normalisers ℓ_k
	GL  []float64 // grid terms gl_k
}

// NewCoef returns the constants of the pass described by cfg; the
// offsets z start at zero.
func NewCoef(cfg CoefConfig) (*Coef, error) {
	d := len(cfg.K)
	if d == 0 {
		return nil, fmt.Errorf("lattice: CoefConfig.K is empty: %w", ErrInvalid)
	}
	for _, f := range []struct {
		name string
		s    []float64
	}{{"Lam", cfg.Lam}, {"Ell", cfg.Ell}, {"GL", cfg.GL}} {
		if len(f.s) != d {
			return nil, fmt.Errorf("lattice: CoefConfig.%s must have length len(K) = %d, got %d: %w", f.name, d, len(f.s), ErrInvalid)
		}
	}
	c := &Coef{d: d, p: make([]float64, stride*d)}
	for j := range d {
		c.p[stride*j+1], c.p[stride*j+2], c.p[stride*j+3], c.p[stride*j+4] = cfg.K[j], cfg.Lam[j], cfg.Ell[j], cfg.GL[j]
	}
	return c, nil
}

// Dim returns the number of coordinates d.
func (c *Coef) Dim() int {
	if c == nil {
		return 0
	}
	return c.d
}

// SetZ sets the offsets z_k (length d).
func (c *Coef) SetZ(z []float64) error {
	if len(z) != c.Dim() {
		return fmt.Errorf("lattice: z must have length %d, got %d: %w", c.Dim(), len(z), ErrInvalid)
	}
	for j, v := range z {
		c.p[stride*j] = v
	}
	return nil
}

// LogWeights sets logw[i] for the n = len(logw) slots from the
// column-major contributions t (length at least d·n) and the constants and
// offsets of c, and returns the largest of them as Max does (−Inf for n =
// 0, NaN if any is NaN). It allocates nothing.
func (c *Coef) LogWeights(logw, t []float64) (float64, error) {
	n, d := len(logw), c.Dim()
	if d == 0 {
		return math.NaN(), fmt.Errorf("lattice: Coef has dimension 0 (use NewCoef): %w", ErrInvalid)
	}
	if len(t) < d*n {
		return math.NaN(), fmt.Errorf("lattice: t must have length at least d·n = %d·%d, got %d: %w", d, n, len(t), ErrInvalid)
	}
	if n == 0 {
		return math.Inf(-1), nil
	}
	switch level {
	case cpu.AVX512:
		return weights512(&logw[0], &t[0], &c.p[0], n, d), nil
	case cpu.AVX2:
		return weights256(&logw[0], &t[0], &c.p[0], n, d), nil
	}
	weightsGo(logw, t, c.p, d)
	return Max(logw), nil
}

// weightsGo is the Go pass: a column per coordinate, each slot's sum an
// independent chain of additions in coordinate order.
func weightsGo(logw, t, p []float64, d int) {
	n := len(logw)
	clear(logw)
	for k := range d {
		q := p[stride*k : stride*k+5]
		z, kk, lam, ell, gl := q[0], q[1], q[2], q[3], q[4]
		col := t[k*n : k*n+n]
		col = col[:len(logw)]
		for i, v := range col {
			logw[i] += (ell - lam*math.Abs(kk-Round(z-v))) - gl
		}
	}
}

// Round is math.Round (halves away from zero) computed by the hardware's
// rounding to even: x − RoundToEven(x) is exact, and only at a half whose
// even neighbour lies towards zero does the result move by one.
func Round(x float64) float64 {
	r := math.RoundToEven(x)
	if d := x - r; d == 0.5 && x > 0 || d == -0.5 && x < 0 {
		r += d + d
	}
	return r
}

// Kernel names the implementation LogWeights uses on this machine:
// "avx512", "avx2" or "go".
func Kernel() string { return level.String() }

// detected is the best kernel the processor and the operating system
// offer: AVX-512 needs AVX512F with the opmask and ZMM state, AVX2 needs
// AVX2 and FMA (the AVX2 kernel uses neither FMA nor anything beyond AVX2,
// but AVX2 without it does not occur) with the YMM state. Without assembly
// (other architectures, purego) internal/cpu reports neither.
var detected = cpu.Best()

// level is the kernel in use: the best one detected (tests lower it).
var level = detected
