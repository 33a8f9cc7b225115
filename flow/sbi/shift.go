package sbi

import (
	"fmt"
	"math"
	"slices"

	"github.com/privinfer/privinfer/internal/linalg"
)

// linShift is SPPE's regression shift (Config.RegressionShift): the
// least-squares fit θ ≈ a + B·s_dp of the parameters on the release, fitted
// once on round 1's simulations. SPPE's flow then models the residual
// θ − a − B·s_dp, a translation that depends on the release only, so its
// Jacobian is 1 and log q(θ | s_dp) = log q_r(θ − a − B·s_dp | s_dp).
type linShift struct {
	a []float64 // d
	b []float64 // d×sd, row-major
}

// shiftRidge is the ridge penalty of the regression, relative to the
// number of rows, on the standardised releases; it keeps the normal
// equations solvable when releases are collinear or fewer than their
// dimension.
const shiftRidge = 1e-6

// fitShift fits θ (n×d) on the releases sdp (n×sd) by ridge-regularised
// least squares on z-scored releases and returns the shift.
func fitShift(theta, sdp []float64, n, d, sd int) (*linShift, error) {
	mean, scale := make([]float64, sd), make([]float64, sd)
	meanStdCols(sdp, n, sd, mean, scale)
	tm, ts := make([]float64, d), make([]float64, d)
	meanStdCols(theta, n, d, tm, ts)
	// Normal equations of the centred problem: (XᵀX + λn·I) β_j = Xᵀ(θ_j − θ̄_j),
	// X the z-scored releases.
	xtx := make([]float64, sd*sd)
	xty := make([]float64, sd*d)
	x := make([]float64, sd)
	for i := range n {
		for k := range sd {
			x[k] = (sdp[i*sd+k] - mean[k]) / scale[k]
		}
		for k := range sd {
			for l := range sd {
				xtx[k*sd+l] += x[k] * x[l]
			}
			for j := range d {
				xty[k*d+j] += x[k] * (theta[i*d+j] - tm[j])
			}
		}
	}
	for k := range sd {
		xtx[k*sd+k] += shiftRidge * float64(n)
	}
	l := make([]float64, sd*sd)
	if _, err := linalg.CholeskyJitter(xtx, sd, l); err != nil {
		return nil, fmt.Errorf("regression shift: %w", err)
	}
	s := &linShift{a: make([]float64, d), b: make([]float64, d*sd)}
	col := make([]float64, sd)
	for j := range d {
		for k := range sd {
			col[k] = xty[k*d+j]
		}
		linalg.CholSolve(l, sd, col)
		a := tm[j]
		for k := range sd {
			s.b[j*sd+k] = col[k] / scale[k]
			a -= s.b[j*sd+k] * mean[k]
		}
		s.a[j] = a
	}
	for _, v := range slices.Concat(s.a, s.b) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("regression shift: non-finite coefficient %v", v)
		}
	}
	return s, nil
}

// meanStdCols writes the column means and standard deviations (1 for a
// column without spread) of n×k rows.
func meanStdCols(x []float64, n, k int, mean, sd []float64) {
	for c := range k {
		m := 0.0
		for i := range n {
			m += x[i*k+c]
		}
		m /= float64(n)
		v := 0.0
		for i := range n {
			e := x[i*k+c] - m
			v += e * e
		}
		s := math.Sqrt(v / float64(max(n-1, 1)))
		if !(s > 0) || math.IsInf(s, 0) {
			s = 1
		}
		mean[c], sd[c] = m, s
	}
}

// at writes a + B·sdp into dst (length d).
func (s *linShift) at(sdp, dst []float64) {
	sd := len(sdp)
	for j := range dst {
		v := s.a[j]
		for k, x := range sdp {
			v += s.b[j*sd+k] * x
		}
		dst[j] = v
	}
}
