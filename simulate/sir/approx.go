package sir

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/variate"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// TauLeap simulates the SIR model approximately by binomial
// tau-leaping (the chain-binomial scheme): over a step of length τ from
// state (S, I), new infections are Binomial(S, 1 − exp(−βIτ/K)) and
// recoveries Binomial(I, 1 − exp(−γτ)), both from the state at the start of
// the step. Counts can never go negative, and the scheme converges to the
// exact process as τ → 0. Each interval between record times is cut into
// equal steps no longer than τ so that records fall on the grid.
type TauLeap struct {
	core
	step float64
}

// NewTauLeap validates cfg and the step τ > 0.
func NewTauLeap(cfg Config, step float64) (*TauLeap, error) {
	c, err := newCore(cfg)
	if err != nil {
		return nil, err
	}
	if !(step > 0) || math.IsInf(step, 0) {
		return nil, fmt.Errorf("%w: tau-leap step must be finite and > 0, got %v", simulate.ErrInvalid, step)
	}
	if last := c.times[len(c.times)-1]; !(last/step <= maxTauSteps) {
		return nil, fmt.Errorf("%w: tau-leap step %v needs more than %d steps to reach time %v", simulate.ErrInvalid, step, int64(maxTauSteps), last)
	}
	return &TauLeap{c, step}, nil
}

// maxTauSteps bounds the number of tau-leap steps of one simulation.
const maxTauSteps = 1 << 32

// Step returns the maximal step τ.
func (s *TauLeap) Step() float64 { return s.step }

// Simulate draws one tau-leaped epidemic and writes I(t_i) (or I(t_i)/K).
func (s *TauLeap) Simulate(r *rand.Rand, theta, dst []float64) error {
	if s == nil {
		return modelutil.ErrUnbuilt("sir.TauLeap")
	}
	if err := modelutil.CheckRand(r); err != nil {
		return err
	}
	beta, gamma, err := s.rates(theta)
	if err != nil {
		return err
	}
	if err := s.checkDst(dst); err != nil {
		return err
	}
	sc := s.scale()
	S, I := s.k-s.i0, s.i0
	t := 0.0
	pRec := -math.Expm1(-gamma * s.step)
	for j, tj := range s.times {
		if span := tj - t; span > 0 && I > 0 {
			nsteps := math.Ceil(span / s.step)
			h := span / nsteps
			pr := pRec
			if h != s.step {
				pr = -math.Expm1(-gamma * h)
			}
			c := beta * h / float64(s.k)
			for m := 0; m < int(nsteps) && I > 0; m++ {
				newInf := int64(0)
				if S > 0 {
					newInf = variate.Binomial(r, S, -math.Expm1(-c*float64(I)))
				}
				rec := variate.Binomial(r, I, pr)
				S -= newInf
				I += newInf - rec
			}
		}
		t = tj
		dst[j] = float64(I) * sc
	}
	return nil
}

// ODE solves the deterministic SIR equations
//
//	ds/dt = −β s i,  di/dt = β s i − γ i,  s(0) = (K − I0)/K, i(0) = I0/K
//
// with an adaptive Dormand–Prince 5(4) Runge–Kutta method; it is the
// large-population limit of the stochastic model (with I0/K held fixed) and
// the non-DP baseline of SBI paper Fig. 2B. Simulate ignores r and writes
// K·i(t_i) for Counts (not rounded) or i(t_i) for Proportions.
type ODE struct {
	core
	rtol, atol float64
}

// NewODE validates cfg and the relative tolerance rtol in [2^-52, 0.1]
// (below the float64 precision 2^-52 no step size can meet it: the
// integration would fail for every θ); rtol = 0 selects 1e-8. The
// absolute tolerance is rtol·1e-4 on the proportions.
func NewODE(cfg Config, rtol float64) (*ODE, error) {
	c, err := newCore(cfg)
	if err != nil {
		return nil, err
	}
	if rtol == 0 {
		rtol = 1e-8
	}
	if !(rtol >= 0x1p-52 && rtol <= 0.1) {
		return nil, fmt.Errorf("%w: ODE rtol must be in [2^-52, 0.1], got %v", simulate.ErrInvalid, rtol)
	}
	return &ODE{c, rtol, rtol * 1e-4}, nil
}

// Simulate integrates the ODE for θ; r is unused and may be nil.
func (s *ODE) Simulate(_ *rand.Rand, theta, dst []float64) error {
	if s == nil {
		return modelutil.ErrUnbuilt("sir.ODE")
	}
	beta, gamma, err := s.rates(theta)
	if err != nil {
		return err
	}
	if err := s.checkDst(dst); err != nil {
		return err
	}
	scale := float64(s.k)
	if s.output == Proportions {
		scale = 1
	}
	y := [2]float64{float64(s.k-s.i0) / float64(s.k), float64(s.i0) / float64(s.k)}
	t := 0.0
	h := 0.0
	for j, tj := range s.times {
		if tj > t {
			var ok bool
			y, h, ok = s.integrate(beta, gamma, y, t, tj, h)
			if !ok {
				return fmt.Errorf("%w: SIR ODE did not reach t=%v within %d steps (rates too large for rtol %v)", simulate.ErrInvalidTheta, tj, dpMax, s.rtol)
			}
			t = tj
		}
		dst[j] = y[1] * scale
	}
	return nil
}

func rhs(beta, gamma float64, y [2]float64) [2]float64 {
	f := beta * y[0] * y[1]
	return [2]float64{-f, f - gamma*y[1]}
}

// Dormand–Prince 5(4) coefficients.
const (
	dpC2, dpC3, dpC4, dpC5                    = 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9
	dpA21                                     = 1.0 / 5
	dpA31, dpA32                              = 3.0 / 40, 9.0 / 40
	dpA41, dpA42, dpA43                       = 44.0 / 45, -56.0 / 15, 32.0 / 9
	dpA51, dpA52, dpA53, dpA54                = 19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729
	dpA61, dpA62, dpA63, dpA64, dpA65         = 9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656
	dpB1, dpB3, dpB4, dpB5, dpB6              = 35.0 / 384, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84
	dpE1, dpE3, dpE4, dpE5, dpE6, dpE7        = 71.0 / 57600, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40
	dpSafety, dpMinFactor, dpMaxFactor, dpMax = 0.9, 0.2, 5.0, 500_000
)

// integrate advances y from t0 to t1 with adaptive steps, starting from the
// suggested step h (0: choose one), and returns the state, the last
// accepted step size and whether t1 was reached within dpMax steps.
func (s *ODE) integrate(beta, gamma float64, y [2]float64, t0, t1, h float64) ([2]float64, float64, bool) {
	t := t0
	if h <= 0 {
		h = math.Min(0.01, (t1-t0)/10)
	}
	k1 := rhs(beta, gamma, y)
	for it := 0; it < dpMax && t < t1; it++ {
		last := false
		if t+h >= t1 {
			h = t1 - t
			last = true
		}
		var yt [2]float64
		for d := range 2 {
			yt[d] = y[d] + h*dpA21*k1[d]
		}
		k2 := rhs(beta, gamma, yt)
		for d := range 2 {
			yt[d] = y[d] + h*(dpA31*k1[d]+dpA32*k2[d])
		}
		k3 := rhs(beta, gamma, yt)
		for d := range 2 {
			yt[d] = y[d] + h*(dpA41*k1[d]+dpA42*k2[d]+dpA43*k3[d])
		}
		k4 := rhs(beta, gamma, yt)
		for d := range 2 {
			yt[d] = y[d] + h*(dpA51*k1[d]+dpA52*k2[d]+dpA53*k3[d]+dpA54*k4[d])
		}
		k5 := rhs(beta, gamma, yt)
		for d := range 2 {
			yt[d] = y[d] + h*(dpA61*k1[d]+dpA62*k2[d]+dpA63*k3[d]+dpA64*k4[d]+dpA65*k5[d])
		}
		k6 := rhs(beta, gamma, yt)
		var yn [2]float64
		for d := range 2 {
			yn[d] = y[d] + h*(dpB1*k1[d]+dpB3*k3[d]+dpB4*k4[d]+dpB5*k5[d]+dpB6*k6[d])
		}
		k7 := rhs(beta, gamma, yn)
		errn := 0.0
		for d := range 2 {
			e := h * (dpE1*k1[d] + dpE3*k3[d] + dpE4*k4[d] + dpE5*k5[d] + dpE6*k6[d] + dpE7*k7[d])
			sc := s.atol + s.rtol*math.Max(math.Abs(y[d]), math.Abs(yn[d]))
			errn = math.Max(errn, math.Abs(e)/sc)
		}
		if errn <= 1 {
			t += h
			if last {
				t = t1
			}
			y = yn
			k1 = k7 // first-same-as-last
		}
		f := dpMaxFactor
		if errn > 0 {
			f = math.Min(dpMaxFactor, math.Max(dpMinFactor, dpSafety*math.Pow(errn, -0.2)))
		}
		if errn > 1 {
			f = math.Min(f, 1)
		}
		h *= f
	}
	return y, h, t >= t1
}
