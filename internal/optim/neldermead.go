// Package optim holds the derivative-free minimiser the engines share: the
// Nelder–Mead simplex method (Nelder and Mead 1965).
package optim

import (
	"errors"
	"fmt"
	"math"
)

// ErrInvalid is wrapped by every error this package returns for an invalid
// argument.
var ErrInvalid = errors.New("optim: invalid argument")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// NelderMeadConfig configures NelderMead. The zero value of every field
// means its default.
type NelderMeadConfig struct {
	// Step is the initial simplex's edge: the simplex is x0 and x0 + Step·e_i
	// for every coordinate i. 0 means 0.1.
	Step float64
	// MaxIter bounds the number of iterations; 0 means 200·d for a start of
	// dimension d.
	MaxIter int
	// Tol stops the search once the worst and best simplex values differ
	// by less than Tol·(1 + |best|); 0 means 1e-10.
	Tol float64
}

// Validate checks the settings: Step and Tol finite and ≥ 0, MaxIter ≥ 0.
// Errors wrap ErrInvalid and name the field.
func (c *NelderMeadConfig) Validate() error {
	switch {
	case !(c.Step >= 0) || math.IsInf(c.Step, 0):
		return invalidf("NelderMeadConfig.Step must be finite and >= 0, got %v", c.Step)
	case c.MaxIter < 0:
		return invalidf("NelderMeadConfig.MaxIter must be >= 0, got %d", c.MaxIter)
	case !(c.Tol >= 0) || math.IsInf(c.Tol, 0):
		return invalidf("NelderMeadConfig.Tol must be finite and >= 0, got %v", c.Tol)
	}
	return nil
}

// Result is the outcome of NelderMead.
type Result struct {
	X          []float64 // the best vertex found
	F          float64   // f(X)
	Iterations int       // iterations run
	Converged  bool      // the simplex values met the tolerance before MaxIter
}

// NelderMead minimises f from x0 with the simplex method: reflection 1,
// expansion 2, inside contraction ½ and shrinkage ½ towards the best
// vertex. An objective may return +Inf (or NaN) to exclude a point; such
// points are never accepted over finite ones. After the initial d+1
// evaluations an iteration allocates nothing. It returns an error wrapping
// ErrInvalid for a nil f, an empty or non-finite x0 or an invalid config.
func NelderMead(f func([]float64) float64, x0 []float64, cfg NelderMeadConfig) (Result, error) {
	if f == nil {
		return Result{}, invalidf("objective is nil")
	}
	d := len(x0)
	if d == 0 {
		return Result{}, invalidf("start point is empty")
	}
	for i, v := range x0 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Result{}, invalidf("start point x0[%d] is %v, want a finite value", i, v)
		}
	}
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	h, maxIter, tol := cfg.Step, cfg.MaxIter, cfg.Tol
	if h == 0 {
		h = 0.1
	}
	if maxIter == 0 {
		maxIter = 200 * d
	}
	if tol == 0 {
		tol = 1e-10
	}
	buf := make([]float64, (d+5)*d)
	pts := make([][]float64, d+1)
	val := make([]float64, d+1)
	for i := range pts {
		pts[i] = buf[i*d : (i+1)*d]
		copy(pts[i], x0)
		if i > 0 {
			pts[i][i-1] += h
		}
		val[i] = f(pts[i])
	}
	cen := buf[(d+1)*d : (d+2)*d]
	xr := buf[(d+2)*d : (d+3)*d]
	xe := buf[(d+3)*d : (d+4)*d]
	xc := buf[(d+4)*d : (d+5)*d]
	// try writes cen + t·(cen − worst) into p and returns f there.
	try := func(t float64, p []float64) float64 {
		w := pts[d]
		for k := range p {
			p[k] = cen[k] + t*(cen[k]-w[k])
		}
		return f(p)
	}
	accept := func(p []float64, fp float64) {
		copy(pts[d], p)
		val[d] = fp
	}
	res := Result{}
	for res.Iterations < maxIter {
		// Order the vertices by value (insertion sort, stable).
		for i := 1; i <= d; i++ {
			for j := i; j > 0 && val[j] < val[j-1]; j-- {
				val[j], val[j-1] = val[j-1], val[j]
				pts[j], pts[j-1] = pts[j-1], pts[j]
			}
		}
		if math.Abs(val[d]-val[0]) < tol*(1+math.Abs(val[0])) {
			res.Converged = true
			break
		}
		res.Iterations++
		for k := range cen {
			cen[k] = 0
			for i := 0; i < d; i++ {
				cen[k] += pts[i][k] / float64(d)
			}
		}
		fr := try(1, xr)
		switch {
		case fr < val[0]:
			if fe := try(2, xe); fe < fr {
				accept(xe, fe)
			} else {
				accept(xr, fr)
			}
		case fr < val[d-1]:
			accept(xr, fr)
		default:
			if fc := try(-0.5, xc); fc < val[d] {
				accept(xc, fc)
			} else {
				for i := 1; i <= d; i++ {
					for k := range pts[i] {
						pts[i][k] = pts[0][k] + 0.5*(pts[i][k]-pts[0][k])
					}
					val[i] = f(pts[i])
				}
			}
		}
	}
	b := 0
	for i := range val {
		if val[i] < val[b] {
			b = i
		}
	}
	res.X = append([]float64(nil), pts[b]...)
	res.F = val[b]
	return res, nil
}
