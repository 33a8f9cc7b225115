package mcmc

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/linalg"
)

func nanErr(where string) error { return fmt.Errorf("%w: %s", ErrNaN, where) }

// AdaptiveMetropolis is the adaptive random-walk Metropolis method of
// Haario, Saksman and Tamminen (2001) in the mixture form of Roberts and
// Rosenthal (2009): with probability 1 − Beta the proposal is
// N(x, (2.38²/d) Σ̂) with Σ̂ the empirical covariance of the warm-up
// draws of the latest completed adaptation window, otherwise
// N(x, (Scale²/d) I). Warm-up is cut into doubling windows (AdaptEvery,
// 2·AdaptEvery, 4·AdaptEvery, … iterations); at the end of each the
// proposal covariance is set from that window's draws and the estimate
// restarts, so the transient from a poor start is forgotten. The proposal
// is frozen after warm-up, so the post-warm-up chain is an exact
// Metropolis chain.
type AdaptiveMetropolis struct {
	// Scale sets the fixed component N(x, (Scale²/d) I); 0 means 0.1, the
	// choice of Roberts and Rosenthal (2009).
	Scale float64
	// Beta is the weight of the fixed component; 0 means 0.05. It must be
	// in (0, 1].
	Beta float64
	// AdaptEvery is the length of the first adaptation window; 0 means
	// 100.
	AdaptEvery int
}

// NewKernel returns a fresh adaptive Metropolis kernel for t.
func (a AdaptiveMetropolis) NewKernel(t Target) (Kernel, error) {
	if err := checkTarget(t); err != nil {
		return nil, err
	}
	d := t.Dim()
	k := &amKernel{t: t, d: d, scale: a.Scale, beta: a.Beta, every: a.AdaptEvery}
	if k.scale == 0 {
		k.scale = 0.1
	}
	if k.beta == 0 {
		k.beta = 0.05
	}
	if k.every == 0 {
		k.every = 100
	}
	k.window = k.every
	if !(k.scale > 0) || math.IsInf(k.scale, 0) || !(k.beta > 0 && k.beta <= 1) || k.every < 1 {
		return nil, fmt.Errorf("%w: adaptive Metropolis needs Scale > 0, Beta in (0, 1], AdaptEvery >= 1; got %v, %v, %d", ErrInvalid, a.Scale, a.Beta, a.AdaptEvery)
	}
	k.mean = make([]float64, d)
	k.m2 = make([]float64, d*d)
	k.chol = make([]float64, d*d)
	k.tmp = make([]float64, d*d)
	k.y = make([]float64, d)
	k.z = make([]float64, d)
	return k, nil
}

type amKernel struct {
	t       Target
	d       int
	scale   float64
	beta    float64
	every   int
	window  int       // current adaptation window length
	n       int       // draws in the current window
	mean    []float64 // running mean
	m2      []float64 // running sum of outer products of deviations
	chol    []float64
	haveCov bool
	tmp     []float64
	y, z    []float64
}

func (k *amKernel) update(x []float64) {
	k.n++
	d := k.d
	for i := range d {
		k.z[i] = x[i] - k.mean[i]
		k.mean[i] += k.z[i] / float64(k.n)
	}
	for i := range d {
		di := x[i] - k.mean[i]
		for j := range d {
			k.m2[i*d+j] += k.z[j] * di
		}
	}
	if k.n == k.window {
		defer func() {
			k.n = 0
			clear(k.mean)
			clear(k.m2)
			k.window *= 2
		}()
		if k.n < 2*d+2 {
			return
		}
		c := 2.38 * 2.38 / float64(d) / float64(k.n-1)
		for i := range k.m2 {
			k.tmp[i] = c * k.m2[i]
		}
		for i := range d { // symmetrise rounding
			for j := range i {
				v := 0.5 * (k.tmp[i*d+j] + k.tmp[j*d+i])
				k.tmp[i*d+j], k.tmp[j*d+i] = v, v
			}
		}
		if _, err := linalg.CholeskyJitter(k.tmp, d, k.chol); err == nil {
			k.haveCov = true
		}
	}
}

func (k *amKernel) Step(r *rand.Rand, x []float64, logp float64, adapt bool) (float64, bool, error) {
	d := k.d
	for i := range d {
		k.z[i] = r.NormFloat64()
	}
	if k.haveCov && r.Float64() >= k.beta {
		for i := range d { // y = x + L z
			s := 0.0
			for j := 0; j <= i; j++ {
				s += k.chol[i*d+j] * k.z[j]
			}
			k.y[i] = x[i] + s
		}
	} else {
		sd := k.scale / math.Sqrt(float64(d))
		for i := range d {
			k.y[i] = x[i] + sd*k.z[i]
		}
	}
	lq := k.t.LogDensity(k.y)
	if math.IsNaN(lq) {
		return logp, false, nanErr("adaptive Metropolis proposal")
	}
	acc := false
	if lq >= logp || math.Log(r.Float64()) < lq-logp {
		copy(x, k.y)
		logp, acc = lq, true
	}
	if adapt {
		k.update(x)
	}
	return logp, acc, nil
}

// Slice is slice sampling with the stepping-out and shrinkage procedures
// of Neal (2003), either coordinate by coordinate (one iteration updates
// every coordinate in turn) or, with HitAndRun, along one uniformly random
// direction per iteration. The initial interval width is adapted during
// warm-up to twice the mean absolute move.
type Slice struct {
	// Width is the initial interval width; 0 means 1.
	Width float64
	// MaxSteps bounds the stepping out (in widths, both sides together);
	// 0 means 50.
	MaxSteps int
	// HitAndRun samples along random directions instead of coordinates.
	HitAndRun bool
}

// NewKernel returns a fresh slice-sampling kernel for t.
func (s Slice) NewKernel(t Target) (Kernel, error) {
	if err := checkTarget(t); err != nil {
		return nil, err
	}
	d := t.Dim()
	w, m := s.Width, s.MaxSteps
	if w == 0 {
		w = 1
	}
	if m == 0 {
		m = 50
	}
	if !(w > 0) || math.IsInf(w, 0) || m < 1 {
		return nil, fmt.Errorf("%w: slice sampling needs Width > 0 and MaxSteps >= 1, got %v and %d", ErrInvalid, s.Width, s.MaxSteps)
	}
	nw := d
	if s.HitAndRun {
		nw = 1
	}
	k := &sliceKernel{t: t, d: d, m: m, hr: s.HitAndRun, w: make([]float64, nw), sumAbs: make([]float64, nw),
		dir: make([]float64, d), y: make([]float64, d)}
	for i := range k.w {
		k.w[i] = w
	}
	return k, nil
}

type sliceKernel struct {
	t      Target
	d, m   int
	hr     bool
	w      []float64
	sumAbs []float64
	nAdapt int
	dir, y []float64
}

// along evaluates the log density at x + a·dir (dir a unit vector or a
// coordinate).
func (k *sliceKernel) along(x []float64, a float64) (float64, error) {
	for i := range x {
		k.y[i] = x[i] + a*k.dir[i]
	}
	v := k.t.LogDensity(k.y)
	if math.IsNaN(v) {
		return v, nanErr("slice sampling evaluation")
	}
	return v, nil
}

// slice1 performs one univariate slice update along k.dir from x with
// width w; it returns the move a and the new log density.
func (k *sliceKernel) slice1(r *rand.Rand, x []float64, logp, w float64) (float64, float64, error) {
	logy := logp - r.ExpFloat64()
	lo := -w * r.Float64()
	hi := lo + w
	j := int(math.Floor(float64(k.m) * r.Float64()))
	kk := k.m - 1 - j
	for ; j > 0; j-- {
		v, err := k.along(x, lo)
		if err != nil {
			return 0, logp, err
		}
		if v <= logy {
			break
		}
		lo -= w
	}
	for ; kk > 0; kk-- {
		v, err := k.along(x, hi)
		if err != nil {
			return 0, logp, err
		}
		if v <= logy {
			break
		}
		hi += w
	}
	for range 200 {
		a := lo + r.Float64()*(hi-lo)
		v, err := k.along(x, a)
		if err != nil {
			return 0, logp, err
		}
		if v > logy {
			return a, v, nil
		}
		if a < 0 {
			lo = a
		} else {
			hi = a
		}
	}
	return 0, logp, nil // interval shrank to the current point
}

func (k *sliceKernel) Step(r *rand.Rand, x []float64, logp float64, adapt bool) (float64, bool, error) {
	if k.hr {
		norm := 0.0
		for i := range k.dir {
			k.dir[i] = r.NormFloat64()
			norm += k.dir[i] * k.dir[i]
		}
		norm = math.Sqrt(norm)
		for i := range k.dir {
			k.dir[i] /= norm
		}
		a, lp, err := k.slice1(r, x, logp, k.w[0])
		if err != nil {
			return logp, false, err
		}
		for i := range x {
			x[i] += a * k.dir[i]
		}
		if adapt {
			k.adapt(0, a)
			k.nAdapt++
		}
		return lp, true, nil
	}
	clear(k.dir)
	for c := range k.d {
		k.dir[c] = 1
		a, lp, err := k.slice1(r, x, logp, k.w[c])
		k.dir[c] = 0
		if err != nil {
			return logp, false, err
		}
		x[c] += a
		logp = lp
		if adapt {
			k.adapt(c, a)
		}
	}
	if adapt {
		k.nAdapt++
	}
	return logp, true, nil
}

func (k *sliceKernel) adapt(i int, a float64) {
	k.sumAbs[i] += math.Abs(a)
	n := float64(k.nAdapt + 1)
	if w := 2 * k.sumAbs[i] / n; w > 0 && n >= 10 {
		k.w[i] = w
	}
}

// NUTS is the No-U-Turn sampler of Hoffman and Gelman (2014, Algorithm 6:
// slice-variable NUTS with dual-averaging step-size adaptation during
// warm-up). During warm-ups of at least 150 iterations a diagonal mass
// matrix is estimated in doubling windows as in Stan (75 initial and 50
// final iterations of step-size-only adaptation, first window 25). It
// needs a GradTarget.
type NUTS struct {
	// StepSize is the initial leapfrog step; 0 means the heuristic of
	// Hoffman and Gelman's Algorithm 4.
	StepSize float64
	// TargetAccept is the dual-averaging target δ; 0 means 0.8.
	TargetAccept float64
	// MaxDepth bounds the tree depth; 0 means 10.
	MaxDepth int
}

// NewKernel returns a fresh NUTS kernel; t must implement GradTarget.
func (n NUTS) NewKernel(t Target) (Kernel, error) {
	if err := checkTarget(t); err != nil {
		return nil, err
	}
	g, ok := t.(GradTarget)
	if !ok {
		return nil, fmt.Errorf("%w: NUTS needs a GradTarget (a target with Gradient)", ErrInvalid)
	}
	d := t.Dim()
	if d < 1 {
		return nil, fmt.Errorf("%w: target dimension must be >= 1, got %d", ErrInvalid, d)
	}
	k := &nutsKernel{t: g, d: d, eps: n.StepSize, delta: n.TargetAccept, maxDepth: n.MaxDepth,
		minv: make([]float64, d), wmean: make([]float64, d), wm2: make([]float64, d), winEnd: -1}
	for i := range k.minv {
		k.minv[i] = 1
	}
	if k.delta == 0 {
		k.delta = 0.8
	}
	if k.maxDepth == 0 {
		k.maxDepth = 10
	}
	if k.eps < 0 || math.IsInf(k.eps, 0) || math.IsNaN(k.eps) || !(k.delta > 0 && k.delta < 1) || k.maxDepth < 1 {
		return nil, fmt.Errorf("%w: NUTS needs StepSize >= 0, TargetAccept in (0, 1), MaxDepth >= 1; got %v, %v, %d", ErrInvalid, n.StepSize, n.TargetAccept, n.MaxDepth)
	}
	return k, nil
}

type nutsKernel struct {
	t        GradTarget
	d        int
	eps      float64
	delta    float64
	maxDepth int
	// dual averaging
	m         int
	mu, hbar  float64
	logEpsBar float64
	started   bool
	frozen    bool
	// diagonal mass adaptation (Stan's windowed scheme)
	minv             []float64 // inverse mass diag
	warm, iter       int
	winStart, winEnd int
	wn               int
	wmean, wm2       []float64
}

// SetWarmup tells the kernel the warm-up length, which schedules the
// diagonal mass-matrix windows; Run calls it.
func (k *nutsKernel) SetWarmup(w int) {
	k.warm = w
	k.winStart, k.winEnd = 75, 100
	if w < 150 {
		k.winEnd = -1 // too short: step size only
	} else if k.winEnd > w-50 {
		k.winEnd = w - 50
	}
}

// adaptMass accumulates the warm-up draw x and, at the end of a window,
// sets the inverse mass to the regularised window variance and restarts
// the step-size adaptation at x.
func (k *nutsKernel) adaptMass(rng *rand.Rand, x []float64) error {
	k.iter++
	if k.winEnd < 0 || k.iter <= k.winStart || k.iter > k.winEnd {
		return nil
	}
	k.wn++
	for i, v := range x {
		dlt := v - k.wmean[i]
		k.wmean[i] += dlt / float64(k.wn)
		k.wm2[i] += dlt * (v - k.wmean[i])
	}
	if k.iter < k.winEnd {
		return nil
	}
	n := float64(k.wn)
	for i := range k.minv {
		v := k.wm2[i] / (n - 1)
		k.minv[i] = n/(n+5)*v + 1e-3*5/(n+5)
	}
	k.wn = 0
	clear(k.wmean)
	clear(k.wm2)
	size := 2 * (k.winEnd - k.winStart)
	k.winStart = k.winEnd
	k.winEnd += size
	if k.winEnd+2*size > k.warm-50 {
		k.winEnd = k.warm - 50
	}
	if k.winStart >= k.warm-50 {
		k.winEnd = -1
	}
	p0 := k.newPoint()
	copy(p0.th, x)
	p0.lp = k.t.Gradient(p0.th, p0.g)
	e, err := k.findEps(rng, &p0)
	if err != nil {
		return err
	}
	k.eps, k.mu, k.hbar, k.m, k.logEpsBar = e, math.Log(10*e), 0, 0, 0
	return nil
}

type nutsPoint struct {
	th, r, g []float64
	lp       float64
}

func (k *nutsKernel) newPoint() nutsPoint {
	return nutsPoint{th: make([]float64, k.d), r: make([]float64, k.d), g: make([]float64, k.d)}
}

func copyPoint(dst *nutsPoint, src *nutsPoint) {
	copy(dst.th, src.th)
	copy(dst.r, src.r)
	copy(dst.g, src.g)
	dst.lp = src.lp
}

func (k *nutsKernel) leapfrog(p *nutsPoint, eps float64) error {
	for i := range p.r {
		p.r[i] += 0.5 * eps * p.g[i]
	}
	for i := range p.th {
		p.th[i] += eps * k.minv[i] * p.r[i]
	}
	p.lp = k.t.Gradient(p.th, p.g)
	if math.IsNaN(p.lp) {
		return nanErr("NUTS log density")
	}
	for i, v := range p.g {
		if math.IsNaN(v) {
			return nanErr("NUTS gradient")
		}
		p.r[i] += 0.5 * eps * v
	}
	return nil
}

func (k *nutsKernel) kinetic(r []float64) float64 {
	s := 0.0
	for i, v := range r {
		s += v * v * k.minv[i]
	}
	return 0.5 * s
}

// momentum draws r ~ N(0, M) with M = diag(1/minv).
func (k *nutsKernel) momentum(rng *rand.Rand, r []float64) {
	for i := range r {
		r[i] = rng.NormFloat64() / math.Sqrt(k.minv[i])
	}
}

// findEps is Algorithm 4 of Hoffman and Gelman (2014).
func (k *nutsKernel) findEps(r *rand.Rand, p0 *nutsPoint) (float64, error) {
	eps := 1.0
	p := k.newPoint()
	try := func() (float64, error) {
		copyPoint(&p, p0)
		k.momentum(r, p.r)
		h0 := p0.lp - k.kinetic(p.r)
		if err := k.leapfrog(&p, eps); err != nil {
			return 0, err
		}
		return p.lp - k.kinetic(p.r) - h0, nil
	}
	dh, err := try()
	if err != nil {
		return 0, err
	}
	a := -1.0
	if dh > math.Log(0.5) {
		a = 1
	}
	for range 100 {
		if !(a*dh > -a*math.Ln2) {
			break
		}
		eps *= math.Pow(2, a)
		if dh, err = try(); err != nil {
			return 0, err
		}
	}
	return eps, nil
}

type treeOut struct {
	minus, plus, prop nutsPoint
	n                 int
	s                 bool
	alpha             float64
	nAlpha            int
}

func (k *nutsKernel) noUTurn(minus, plus *nutsPoint) bool {
	a, b := 0.0, 0.0
	for i := range minus.th {
		dth := plus.th[i] - minus.th[i]
		a += dth * minus.r[i] * k.minv[i]
		b += dth * plus.r[i] * k.minv[i]
	}
	return a >= 0 && b >= 0
}

func (k *nutsKernel) build(rng *rand.Rand, start *nutsPoint, logu float64, v float64, j int, eps, h0 float64) (*treeOut, error) {
	if j == 0 {
		p := k.newPoint()
		copyPoint(&p, start)
		if err := k.leapfrog(&p, v*eps); err != nil {
			return nil, err
		}
		h := p.lp - k.kinetic(p.r)
		if math.IsInf(p.lp, -1) {
			h = math.Inf(-1)
		}
		out := &treeOut{minus: p, plus: p, prop: p}
		if logu <= h {
			out.n = 1
		}
		out.s = logu < h+1000
		out.alpha = math.Min(1, math.Exp(h-h0))
		if math.IsNaN(out.alpha) {
			out.alpha = 0
		}
		out.nAlpha = 1
		return out, nil
	}
	t1, err := k.build(rng, start, logu, v, j-1, eps, h0)
	if err != nil || !t1.s {
		return t1, err
	}
	var t2 *treeOut
	if v < 0 {
		t2, err = k.build(rng, &t1.minus, logu, v, j-1, eps, h0)
	} else {
		t2, err = k.build(rng, &t1.plus, logu, v, j-1, eps, h0)
	}
	if err != nil {
		return nil, err
	}
	if v < 0 {
		t1.minus = t2.minus
	} else {
		t1.plus = t2.plus
	}
	if t1.n+t2.n > 0 && rng.Float64() < float64(t2.n)/float64(t1.n+t2.n) {
		t1.prop = t2.prop
	}
	t1.alpha += t2.alpha
	t1.nAlpha += t2.nAlpha
	t1.s = t2.s && k.noUTurn(&t1.minus, &t1.plus)
	t1.n += t2.n
	return t1, nil
}

func (k *nutsKernel) Step(rng *rand.Rand, x []float64, logp float64, adapt bool) (float64, bool, error) {
	p0 := k.newPoint()
	copy(p0.th, x)
	p0.lp = k.t.Gradient(p0.th, p0.g)
	if math.IsNaN(p0.lp) {
		return logp, false, nanErr("NUTS log density")
	}
	if !k.started {
		k.started = true
		if k.eps == 0 {
			e, err := k.findEps(rng, &p0)
			if err != nil {
				return logp, false, err
			}
			k.eps = e
		}
		k.mu = math.Log(10 * k.eps)
	}
	if !adapt && !k.frozen && k.m > 0 {
		k.eps = math.Exp(k.logEpsBar)
		k.frozen = true
	}
	k.momentum(rng, p0.r)
	h0 := p0.lp - k.kinetic(p0.r)
	logu := h0 - rng.ExpFloat64()
	minus, plus := p0, p0
	cur := p0
	n := 1
	alpha, nAlpha := 0.0, 0
	moved := false
	for depth := 0; depth < k.maxDepth; depth++ {
		v := 1.0
		if rng.Float64() < 0.5 {
			v = -1
		}
		var t *treeOut
		var err error
		if v < 0 {
			t, err = k.build(rng, &minus, logu, v, depth, k.eps, h0)
		} else {
			t, err = k.build(rng, &plus, logu, v, depth, k.eps, h0)
		}
		if err != nil {
			return logp, false, err
		}
		if v < 0 {
			minus = t.minus
		} else {
			plus = t.plus
		}
		alpha, nAlpha = alpha+t.alpha, nAlpha+t.nAlpha
		if t.s && rng.Float64() < float64(t.n)/float64(n) {
			cur = t.prop
			moved = true
		}
		n += t.n
		if !t.s || !k.noUTurn(&minus, &plus) {
			break
		}
	}
	if adapt {
		k.m++
		const gamma, t0, kappa = 0.05, 10.0, 0.75
		m := float64(k.m)
		acc := 0.0
		if nAlpha > 0 {
			acc = alpha / float64(nAlpha)
		}
		k.hbar = (1-1/(m+t0))*k.hbar + (k.delta-acc)/(m+t0)
		logEps := k.mu - math.Sqrt(m)/gamma*k.hbar
		w := math.Pow(m, -kappa)
		k.logEpsBar = w*logEps + (1-w)*k.logEpsBar
		k.eps = math.Exp(logEps)
	}
	copy(x, cur.th)
	if adapt {
		if err := k.adaptMass(rng, x); err != nil {
			return cur.lp, moved, err
		}
	}
	return cur.lp, moved, nil
}
