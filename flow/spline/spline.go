// Package spline implements the monotonic rational-quadratic spline
// transform of neural spline flows (Durkan, Bekasov, Murray and
// Papamakarios, 2019) with linear tails: forward and inverse maps, their
// log-Jacobians, and the exact gradients of the forward map with respect to
// the input and to the unconstrained spline parameters.
//
// On [−B, B] the transform is a piecewise rational-quadratic monotonic
// function through K+1 knots (x_k, y_k) with derivatives δ_k at the knots;
// outside it is the identity, and the boundary derivatives δ_0 = δ_K = 1
// make the whole map continuously differentiable. The 3K−1 unconstrained
// parameters are laid out as
//
//	raw[0:K]     bin widths  (softmax, then a minimum width)
//	raw[K:2K]    bin heights (softmax, then a minimum height)
//	raw[2K:3K−1] interior derivatives (softplus plus a minimum derivative)
//
// Inside bin k, with ξ = (x − x_k)/w_k, s_k = h_k/w_k,
//
//	y = y_k + h_k(s_k ξ² + δ_k ξ(1−ξ)) / (s_k + (δ_{k+1} + δ_k − 2s_k) ξ(1−ξ))
//	dy/dx = s_k² (δ_{k+1}ξ² + 2s_kξ(1−ξ) + δ_k(1−ξ)²) / (s_k + (δ_{k+1}+δ_k−2s_k)ξ(1−ξ))²
//
// and the inverse solves the quadratic a ξ² + b ξ + c = 0 for the root
// ξ = 2c / (−b − √(b² − 4ac)) = (−b + √(b² − 4ac)) / (2a), evaluated in
// whichever form avoids cancellation for the sign of b. Inputs outside
// [−B, B] never reach the rational-quadratic formulas, the discriminant is
// clamped at 0 and ξ to [0, 1], so no input or parameter produces NaN
// unless it is itself NaN.
package spline

import (
	"errors"
	"fmt"
	"math"

	"github.com/privinfer/privinfer/flow/internal/vec"
)

// Spline is a rational-quadratic spline transform with linear tails. Its
// fields, those of the Config given to New, are read-only after New.
type Spline struct {
	Bins          int     // K, the number of bins
	TailBound     float64 // B: the spline acts on [−B, B], identity outside
	MinWidth      float64 // minimum bin width as a fraction of 2B
	MinHeight     float64 // minimum bin height as a fraction of 2B
	MinDerivative float64 // minimum derivative at the interior knots
}

// Default minimum bin width, height and derivative.
const (
	DefaultMinWidth      = 1e-3
	DefaultMinHeight     = 1e-3
	DefaultMinDerivative = 1e-3
)

// ErrInvalid is wrapped by every error of New and Config.Validate; their
// messages read "spline: invalid argument: <field>: <constraint>".
var ErrInvalid = errors.New("spline: invalid argument")

// Config describes a spline. Its zero value is not usable: every field
// must be set (DefaultMinWidth, DefaultMinHeight and DefaultMinDerivative
// are the usual minima).
type Config struct {
	Bins          int     // K, the number of bins, in [2, 2^16]
	TailBound     float64 // B, > 0 and finite: the spline acts on [−B, B]
	MinWidth      float64 // minimum bin width as a fraction of 2B, in (0, 1/Bins)
	MinHeight     float64 // minimum bin height as a fraction of 2B, in (0, 1/Bins)
	MinDerivative float64 // minimum derivative at the interior knots, > 0 and finite
}

// invalid formats an error wrapping ErrInvalid that names the argument
// and the constraint it breaks.
func invalid(arg, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, arg, fmt.Sprintf(format, a...))
}

// Validate checks the ranges documented on each field. Errors wrap
// ErrInvalid and name the field.
func (c Config) Validate() error {
	switch {
	case c.Bins < 2 || c.Bins > 1<<16:
		return invalid("Config.Bins", "must be in [2, 2^16], got %d", c.Bins)
	case !(c.TailBound > 0) || math.IsInf(c.TailBound, 0):
		return invalid("Config.TailBound", "must be > 0 and finite, got %v", c.TailBound)
	case !(c.MinWidth > 0) || c.MinWidth*float64(c.Bins) >= 1:
		return invalid("Config.MinWidth", "must be in (0, 1/Bins), got %v", c.MinWidth)
	case !(c.MinHeight > 0) || c.MinHeight*float64(c.Bins) >= 1:
		return invalid("Config.MinHeight", "must be in (0, 1/Bins), got %v", c.MinHeight)
	case !(c.MinDerivative > 0) || math.IsInf(c.MinDerivative, 0):
		return invalid("Config.MinDerivative", "must be > 0 and finite, got %v", c.MinDerivative)
	}
	return nil
}

// New returns the spline cfg describes. Errors (from cfg.Validate) wrap
// ErrInvalid and name the field.
//
// The other methods are the flow's hot path and do not validate: they
// panic (a programmer error) on slices shorter than the lengths they
// document (NumParams, KnotsLen, K+1), and a NaN input gives NaN outputs.
func New(cfg Config) (*Spline, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Spline{Bins: cfg.Bins, TailBound: cfg.TailBound, MinWidth: cfg.MinWidth, MinHeight: cfg.MinHeight, MinDerivative: cfg.MinDerivative}, nil
}

// NumParams returns the number of unconstrained parameters, 3K−1.
func (s *Spline) NumParams() int { return 3*s.Bins - 1 }

// Knots holds a spline's knot positions X and Y and knot derivatives D
// (K+1 values each), computed from unconstrained parameters by SetKnots,
// with what KnotsBackward needs. It is scratch space: one per goroutine.
// Its whole state is one array, which Save and Load copy.
type Knots struct {
	X, Y, D []float64
	pw, ph  []float64 // softmax probabilities, kept for the backward pass
	sg      []float64 // σ of the raw interior derivatives (softplus′)
	buf     []float64
	tmp     []float64 // SetKnots's scratch, not part of the state
}

// NewKnots allocates knot storage for s.
func (s *Spline) NewKnots() *Knots {
	k := &Knots{tmp: make([]float64, s.RowsScratch(1))}
	k.point(s.Bins, make([]float64, s.KnotsLen()))
	return k
}

// point slices the state of a spline of K bins (6K+2 values) into k.
func (k *Knots) point(K int, state []float64) {
	state = state[:6*K+2]
	k.buf = state
	k.X, state = state[:K+1:K+1], state[K+1:]
	k.Y, state = state[:K+1:K+1], state[K+1:]
	k.D, state = state[:K+1:K+1], state[K+1:]
	k.pw, state = state[:K:K], state[K:]
	k.ph, state = state[:K:K], state[K:]
	k.sg = state[: K-1 : K-1]
}

// KnotsLen returns the number of values of the state of a Knots of s.
func (s *Spline) KnotsLen() int { return 3*(s.Bins+1) + 3*s.Bins - 1 }

// Save copies the state of k (KnotsLen values) into dst, so that Load can
// restore it later without recomputing it from the raw parameters.
func (k *Knots) Save(dst []float64) { copy(dst[:len(k.buf)], k.buf) }

// Load restores a state written by Save.
func (k *Knots) Load(src []float64) { copy(k.buf, src[:len(k.buf)]) }

// cumKnots writes the knot positions for probabilities p into dst:
// dst[0] = −B, dst[K] = B and dst[j] = −B + 2B Σ_{i<j} (m + (1−Km) p_i).
func (s *Spline) cumKnots(dst, p []float64, m float64) {
	K, B := s.Bins, s.TailBound
	a := 1 - m*float64(K)
	c := 0.0
	dst[0] = -B
	for j := 1; j < K; j++ {
		c += m + a*p[j-1]
		dst[j] = -B + 2*B*c
	}
	dst[K] = B
}

// SetKnots computes the knots of the spline with unconstrained parameters
// raw (length 3K−1) into k: SetKnotsRows for one spline, unscaled. It
// panics if raw is shorter.
func (s *Spline) SetKnots(k *Knots, raw []float64) {
	s.SetKnotsRows(k.buf, raw, 1, s.NumParams(), 1, k.tmp)
}

// RowsScratch returns the length of the scratch space SetKnotsRows needs
// for n splines.
func (s *Spline) RowsScratch(n int) int { return n * (5*s.Bins - 3) }

// SetKnotsRows computes the knots of n splines at once into dst, spline
// r's state (KnotsLen values, laid out as Save writes them) at
// dst[r·KnotsLen:]. Its unconstrained parameters are
// raw[r·stride : r·stride+3K−1], the 2K width and height parameters
// multiplied by scale first. The widths and heights go through a softmax
// (shifted by their largest value) and the minimum width or height, the
// interior derivatives through MinDerivative + softplus. The exponentials
// and softplus terms of all n splines are computed in one vectorised pass
// each, whose kernels treat every element alike, so a spline's state has
// the same bits whatever n and its position (SetKnots is the case n = 1
// with scale 1). tmp is scratch space of at least RowsScratch(n) values.
// It panics if dst, raw or tmp is too short.
func (s *Spline) SetKnotsRows(dst, raw []float64, n, stride int, scale float64, tmp []float64) {
	K, kl := s.Bins, s.KnotsLen()
	e := tmp[:n*2*K]             // shifted, then exponentiated, widths and heights
	xs := tmp[n*2*K : n*(3*K-1)] // raw interior derivatives
	sp := tmp[n*(3*K-1) : n*(4*K-2)]
	sg := tmp[n*(4*K-2) : n*(5*K-3)]
	for r := 0; r < n; r++ {
		src := raw[r*stride : r*stride+3*K-1]
		er := e[r*2*K : (r+1)*2*K]
		for h := 0; h < 2*K; h += K {
			// softmax's shift: the largest scaled parameter. The explicit
			// conversions round each product before the subtraction, as
			// SetKnots's scaled vector is rounded, so that no fused
			// multiply-add changes the bits.
			m := math.Inf(-1)
			for _, v := range src[h : h+K] {
				m = max(m, float64(v*scale))
			}
			for j, v := range src[h : h+K] {
				er[h+j] = float64(v*scale) - m
			}
		}
		copy(xs[r*(K-1):(r+1)*(K-1)], src[2*K:])
	}
	// e^(x−m) computed as e^((x−m)−0): the subtraction of 0 is exact, so
	// these are softmax's exponentials.
	vec.ExpShift(e, e, 0)
	vec.SoftplusSigmoid(sp, sg, xs, s.MinDerivative)
	for r := 0; r < n; r++ {
		st := dst[r*kl : (r+1)*kl]
		X, Y, D := st[:K+1], st[K+1:2*K+2], st[2*K+2:3*K+3]
		pw, ph, sgr := st[3*K+3:4*K+3], st[4*K+3:5*K+3], st[5*K+3:6*K+2]
		normalize(pw, e[r*2*K:r*2*K+K])
		normalize(ph, e[r*2*K+K:(r+1)*2*K])
		s.cumKnots(X, pw, s.MinWidth)
		s.cumKnots(Y, ph, s.MinHeight)
		D[0], D[K] = 1, 1
		copy(D[1:K], sp[r*(K-1):(r+1)*(K-1)])
		copy(sgr, sg[r*(K-1):(r+1)*(K-1)])
	}
}

// normalize writes e divided by its sum into p: the softmax after its
// exponentials.
func normalize(p, e []float64) {
	sum := 0.0
	for _, v := range e {
		sum += v
	}
	for i, v := range e {
		p[i] = v / sum
	}
}

// Use points k at state, KnotsLen values laid out as Save writes them
// (SetKnotsRows writes such states), without copying: until the next Use,
// k reads the knots from state, and SetKnots or Load write into it. k
// must come from NewKnots of a spline with the same number of bins; Use
// panics if state holds fewer than KnotsLen values.
func (k *Knots) Use(state []float64) { k.point(len(k.X)-1, state) }

// KnotsBackward maps gradients with respect to the knots (gX, gY, gD, each
// of length K+1) of the knots last set in k to gradients with respect to
// the unconstrained parameters, written into graw (length 3K−1). The
// boundary entries of gX, gY and gD are ignored: those knots are fixed.
func (s *Spline) KnotsBackward(k *Knots, gX, gY, gD, graw []float64) {
	K := s.Bins
	s.cumBackward(k.pw, gX, s.MinWidth, graw[:K])
	s.cumBackward(k.ph, gY, s.MinHeight, graw[K:2*K])
	for j := 1; j < K; j++ {
		graw[2*K+j-1] = gD[j] * k.sg[j-1]
	}
}

func (s *Spline) cumBackward(p, gX []float64, m float64, g []float64) {
	K, B := s.Bins, s.TailBound
	a := 1 - m*float64(K)
	// gradient wrt w_i = 2B Σ_{j=i+1}^{K−1} gX[j]; then through the softmax.
	acc := 0.0
	for i := K - 1; i >= 0; i-- {
		if i+1 <= K-1 {
			acc += gX[i+1]
		}
		g[i] = 2 * B * a * acc
	}
	dotp := 0.0
	for i := 0; i < K; i++ {
		dotp += p[i] * g[i]
	}
	for i := 0; i < K; i++ {
		g[i] = p[i] * (g[i] - dotp)
	}
}

// bin returns the index k with v in [knots[k], knots[k+1]), the last bin
// for v = knots[K].
func bin(knots []float64, v float64) int {
	k := 0
	last := len(knots) - 2
	for k < last && v >= knots[k+1] {
		k++
	}
	return k
}

// segment holds bin j of a spline: its left knot (xk, yk), width wk,
// height hk, the derivatives dk and dk1 at its two ends, and its slope
// sk = hk/wk.
type segment struct{ xk, wk, yk, hk, dk, dk1, sk float64 }

// segment returns bin j of the knots.
func (k *Knots) segment(j int) segment {
	g := segment{
		xk: k.X[j], wk: k.X[j+1] - k.X[j],
		yk: k.Y[j], hk: k.Y[j+1] - k.Y[j],
		dk: k.D[j], dk1: k.D[j+1],
	}
	g.sk = g.hk / g.wk
	return g
}

// logDeriv returns E, the numerator factor of the derivative at θ, and
// log f′ = 2 log s + log E − 2 log den, where T = θ(1 − θ) and den is the
// denominator s + (δ_k + δ_{k+1} − 2s)T.
func (g segment) logDeriv(th, T, den float64) (E, logdet float64) {
	E = g.derivNum(th, T)
	return E, 2*math.Log(g.sk) + math.Log(E) - 2*math.Log(den)
}

// derivNum returns E, the numerator factor of the derivative at θ with
// T = θ(1 − θ) (see logDeriv).
func (g segment) derivNum(th, T float64) float64 {
	return g.dk1*th*th + 2*g.sk*T + g.dk*(1-th)*(1-th)
}

// Forward returns y = f(x) and log|f′(x)| for the spline with knots k.
// Outside [−B, B] it is the identity with log-derivative 0.
func (s *Spline) Forward(k *Knots, x float64) (y, logdet float64) {
	B := s.TailBound
	if x < -B || x > B {
		return x, 0
	}
	g := k.segment(bin(k.X, x))
	th := (x - g.xk) / g.wk
	th = math.Min(math.Max(th, 0), 1)
	T := th * (1 - th)
	den := g.sk + (g.dk+g.dk1-2*g.sk)*T
	y = g.yk + g.hk*(g.sk*th*th+g.dk*T)/den
	_, logdet = g.logDeriv(th, T, den)
	return y, logdet
}

// Inverse returns x = f⁻¹(y) and log|(f⁻¹)′(y)| = −log|f′(x)|.
// Outside [−B, B] it is the identity with log-derivative 0.
func (s *Spline) Inverse(k *Knots, y float64) (x, logdet float64) {
	B := s.TailBound
	if y < -B || y > B {
		return y, 0
	}
	if y != y { // NaN: NaN out, as Forward gives (bin search would clamp it)
		return y, y
	}
	j := bin(k.Y, y)
	g := k.segment(j)
	xk, wk, hk, dk, dk1, sk := g.xk, g.wk, g.hk, g.dk, g.dk1, g.sk
	dy := y - g.yk
	c2 := dk + dk1 - 2*sk
	a := hk*(sk-dk) + dy*c2
	b := hk*dk - dy*c2
	c := -sk * dy
	disc := b*b - 4*a*c
	if disc < 0 {
		disc = 0
	}
	// The root in [0, 1] is (−b + √disc)/(2a) = 2c/(−b − √disc); each form
	// is free of cancellation for one sign of b.
	var th float64
	if b < 0 {
		th = (-b + math.Sqrt(disc)) / (2 * a)
	} else if den := -b - math.Sqrt(disc); den != 0 {
		th = 2 * c / den
	}
	if !(th >= 0) { // also catches NaN from degenerate (not NaN) inputs
		th = 0
	}
	if th > 1 {
		th = 1
	}
	x = math.Min(xk+th*wk, k.X[j+1]) // rounding must not leave the bin
	T := th * (1 - th)
	_, logdet = g.logDeriv(th, T, sk+c2*T)
	return x, -logdet
}

// ForwardBackward evaluates the forward map at x like Forward and
// propagates the upstream gradients gy (of y) and gl (of log|f′(x)|):
// it returns y, the log-derivative and the gradient with respect to x, and
// accumulates (+=) the gradients with respect to the knots into gX, gY and
// gD (length K+1 each; pass them to KnotsBackward after zeroing them
// beforehand).
func (s *Spline) ForwardBackward(k *Knots, x, gy, gl float64, gX, gY, gD []float64) (y, logdet, gx float64) {
	return s.forwardBackward(k, x, gy, gl, gX, gY, gD, true)
}

// Backward is ForwardBackward without y and the log-derivative, for a
// backward pass whose forward pass has computed them already: it returns
// the same gradient with respect to x and accumulates the same knot
// gradients, bit for bit, without the three logarithms of the
// log-derivative.
func (s *Spline) Backward(k *Knots, x, gy, gl float64, gX, gY, gD []float64) (gx float64) {
	_, _, gx = s.forwardBackward(k, x, gy, gl, gX, gY, gD, false)
	return gx
}

// forwardBackward is ForwardBackward, which returns a log-derivative of 0
// unless withLog is set.
func (s *Spline) forwardBackward(k *Knots, x, gy, gl float64, gX, gY, gD []float64, withLog bool) (y, logdet, gx float64) {
	B := s.TailBound
	if x < -B || x > B {
		return x, 0, gy
	}
	j := bin(k.X, x)
	g := k.segment(j)
	wk, hk, dk, dk1, sk := g.wk, g.hk, g.dk, g.dk1, g.sk
	th := (x - g.xk) / wk
	clamped := false
	if th < 0 {
		th, clamped = 0, true
	} else if th > 1 {
		th, clamped = 1, true
	}
	T := th * (1 - th)
	Tth := 1 - 2*th
	c2 := dk + dk1 - 2*sk
	den := sk + c2*T
	num := hk * (sk*th*th + dk*T)
	f := num / den
	y = g.yk + f
	var E float64
	if withLog {
		E, logdet = g.logDeriv(th, T, den)
	} else {
		E = g.derivNum(th, T)
	}

	// Partial derivatives of f and L = logdet in (ξ, s, h, δ_k, δ_{k+1}).
	denTh := c2 * Tth
	fTh := (hk*(2*sk*th+dk*Tth) - f*denTh) / den
	denS := 1 - 2*T
	fS := (hk*th*th - f*denS) / den
	fH := (sk*th*th + dk*T) / den
	fDk := (hk*T - f*T) / den
	fDk1 := -f * T / den
	ETh := 2*dk1*th + 2*sk*Tth - 2*dk*(1-th)
	LTh := ETh/E - 2*denTh/den
	LS := 2/sk + 2*T/E - 2*denS/den
	LDk := (1-th)*(1-th)/E - 2*T/den
	LDk1 := th*th/E - 2*T/den

	gth := gy*fTh + gl*LTh
	if clamped {
		gth = 0
	}
	gs := gy*fS + gl*LS
	gh := gy*fH + gs/wk
	gw := -gth*th/wk - gs*sk/wk
	gxk := -gth / wk
	gx = gth / wk
	gX[j] += gxk - gw
	gX[j+1] += gw
	gY[j] += gy - gh
	gY[j+1] += gh
	gD[j] += gy*fDk + gl*LDk
	gD[j+1] += gy*fDk1 + gl*LDk1
	return y, logdet, gx
}
