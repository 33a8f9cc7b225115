package flow

import (
	"math"

	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/flow/internal/rqs32"
	"github.com/privinfer/privinfer/flow/nn"
	"github.com/privinfer/privinfer/flow/spline"
)

// work is a per-goroutine workspace for up to cap rows: the activations of
// one forward pass through every layer and the scratch of the backward
// pass. Once allocated it makes every pass allocation-free.
type work struct {
	cap, n int
	group  int         // rows per context row (see loadShared)
	zin    []float64   // standardised context, ⌈n/group⌉×ContextDim (zs itself without an embedding)
	zs     []float64   // the conditioners' context, ⌈n/group⌉×E (E = Embedding.Out or ContextDim)
	gz     []float64   // gradient with respect to zs, ⌈n/group⌉×E
	ctx    bool        // backward computes the context gradient (always with an embedding)
	tape   *ad.Tape    // embedding: the recording of the last forward pass
	embOut *ad.Tensor  // embedding: its output on the tape
	gzin   []float64   // embedding: gradient with respect to zin
	gemb   []float64   // embedding: parameter gradient of one backward pass
	gscr   []float64   // scratch parameter gradient when the caller wants none
	h      [][]float64 // layer inputs h[0..Layers], n×D (h[Layers] = base point u)
	hc     [][]float64 // coupling outputs, n×D (aliases h[l+1] without LU)
	raw    [][]float64 // conditioner outputs, n×|T|·P
	xin    []float64   // untouched coordinates, n×maxI
	nets   []*nn.ResNetWork
	ld     []float64     // per-row log-det of the layers
	g, g2  []float64     // n×D gradients
	graw   []float64     // n×maxT·P
	gxin   []float64     // n×maxI
	knots  *spline.Knots // a view (spline.Knots.Use) of one spline's state in kc or ks
	kc     [][]float64   // per layer: the knots of every row and coordinate, n×|T|×KnotsLen
	keep   bool          // forward saves the knots into kc for backward
	kept   bool          // the last forward saved them
	ks     []float64     // the states of one chunk of splines when they are not kept
	kt     []float64     // scratch of spline.SetKnotsRows for one chunk
	gX     []float64
	gY     []float64
	gD     []float64
	gk     []float64 // P
	luL    []float64
	luU    []float64
	luW    [][]float64 // per layer W
	luLD   []float64   // per layer log|det W|
	gW     []float64
	luWt   []float64 // Wᵀ of the LU layer being back-propagated
	tmp    []float64 // D

	// The float32 splines (rqs32) of the training step when s32 is set
	// (TrainConfig.Float32): per layer the states of every block of
	// splines, kept by the forward pass for backward; one block's state
	// when they are not kept, its parameters (or their gradients), inputs,
	// outputs, log-derivatives and gradients.
	s32                             bool
	k32                             [][]float32
	s32st, r32                      []float32
	x32, y32, l32, gy32, gl32, gx32 [rqs32.Lanes]float32

	// The ContextAffine layer (nil without it), per context row: μ and
	// the bounded log-scale σ (2D values, from the network's output), e^(−σ)
	// (D) and Σσ; the gradient with respect to the network's output.
	affNet  *nn.ResNetWork
	affOut  []float64
	affExp  []float64
	affSum  []float64
	affGrad []float64
}

func (f *Flow) newWork(rows int) *work {
	D, C, K := f.cfg.Dim, f.cfg.ContextDim, f.cfg.Bins
	nl := len(f.layers)
	w := &work{cap: rows, group: 1}
	E := f.cfg.contextWidth()
	w.zs = make([]float64, rows*E)
	w.zin = w.zs
	w.gz = make([]float64, rows*E)
	if f.emb != nil {
		w.zin = make([]float64, rows*C)
		w.gzin = make([]float64, rows*C)
		w.gemb = make([]float64, f.emb.NumParams())
		w.tape = ad.NewTape()
	}
	w.h = make([][]float64, nl+1)
	w.hc = make([][]float64, nl)
	w.h[0] = make([]float64, rows*D)
	for l := 0; l < nl; l++ {
		w.hc[l] = make([]float64, rows*D)
		if f.cfg.LU {
			w.h[l+1] = make([]float64, rows*D)
		} else {
			w.h[l+1] = w.hc[l]
		}
	}
	w.raw = make([][]float64, nl)
	w.nets = make([]*nn.ResNetWork, nl)
	for l, c := range f.layers {
		w.raw[l] = make([]float64, rows*len(c.tIdx)*f.nsp)
		w.nets[l] = c.net.NewWork(rows)
	}
	w.xin = make([]float64, rows*f.maxI)
	w.ld = make([]float64, rows)
	w.g = make([]float64, rows*D)
	w.g2 = make([]float64, rows*D)
	w.graw = make([]float64, rows*f.maxT*f.nsp)
	w.gxin = make([]float64, rows*f.maxI)
	w.knots = f.spl.NewKnots()
	w.kc = make([][]float64, nl) // allocated by the first forward pass that keeps knots
	w.ks = make([]float64, knotChunk*f.spl.KnotsLen())
	w.kt = make([]float64, f.spl.RowsScratch(knotChunk))
	w.gX, w.gY, w.gD = make([]float64, K+1), make([]float64, K+1), make([]float64, K+1)
	w.gk = make([]float64, f.nsp)
	if f.spl32 != nil {
		w.k32 = make([][]float32, nl) // allocated by the first forward pass that keeps them
		w.s32st = make([]float32, f.spl32.StateLen())
		w.r32 = make([]float32, f.spl32.RawLen())
	}
	w.luL, w.luU, w.gW = make([]float64, D*D), make([]float64, D*D), make([]float64, D*D)
	w.luWt = make([]float64, D*D)
	w.luW = make([][]float64, nl)
	w.luLD = make([]float64, nl)
	if f.cfg.LU {
		for l := range w.luW {
			w.luW[l] = make([]float64, D*D)
		}
	}
	w.tmp = make([]float64, D)
	if f.aff != nil {
		w.affNet = f.aff.NewWork(rows)
		w.affOut = make([]float64, rows*2*D)
		w.affExp = make([]float64, rows*D)
		w.affSum = make([]float64, rows)
		w.affGrad = make([]float64, rows*2*D)
	}
	return w
}

// allNets returns the workspaces of every conditioner network of w.
func (w *work) allNets() []*nn.ResNetWork {
	if w.affNet == nil {
		return w.nets
	}
	return append(w.nets[:len(w.nets):len(w.nets)], w.affNet)
}

// holdFloat32Part rounds the float32 layers' weights of some conditioner
// networks of w once for the passes that follow (nn.ResNet.HoldFloat32),
// until releaseFloat32; f's parameters must not change meanwhile. Part p
// of parts holds the conditioners of the layers l ≡ p (mod parts), and
// part 0 the ContextAffine network too: the parts write disjoint buffers
// and may run concurrently, and together they hold every network.
func (f *Flow) holdFloat32Part(w *work, p, parts int) {
	for l := p; l < len(w.nets); l += parts {
		f.layers[l].net.HoldFloat32(f.params, w.nets[l])
	}
	if p == 0 && w.affNet != nil {
		f.aff.HoldFloat32(f.params, w.affNet)
	}
}

// shareFloat32 makes every conditioner network of w use the float32
// weights src holds (holdFloat32Part on src; nn.ResNetWork.ShareFloat32)
// until releaseFloat32 on w.
func (f *Flow) shareFloat32(w, src *work) {
	for l, nw := range w.nets {
		nw.ShareFloat32(src.nets[l])
	}
	if w.affNet != nil {
		w.affNet.ShareFloat32(src.affNet)
	}
}

// releaseFloat32 ends holdFloat32Part or shareFloat32.
func (f *Flow) releaseFloat32(w *work) {
	for _, nw := range w.nets {
		nw.ReleaseFloat32()
	}
	if w.affNet != nil {
		w.affNet.ReleaseFloat32()
	}
}

// affineParams runs the ContextAffine network on the ⌈n/group⌉ context
// rows of w and sets, per context row, μ and σ = B·tanh(a/B) (in
// w.affOut, σ in place of the network's a), e^(−σ) and Σσ.
func (f *Flow) affineParams(w *work) {
	D := f.cfg.Dim
	ng := (w.n + w.group - 1) / w.group
	f.aff.ForwardShared(f.params, w.affNet, nil, w.zs, ng, 1, w.affOut)
	for i := range w.affOut[:ng*2*D] {
		w.affOut[i] *= affineGain
	}
	for g := 0; g < ng; g++ {
		a := w.affOut[g*2*D+D : g*2*D+2*D]
		e := w.affExp[g*D : g*D+D]
		sum := 0.0
		for d, v := range a {
			a[d] = AffineBound * math.Tanh(v/AffineBound)
			e[d] = math.Exp(-a[d])
			sum += a[d]
		}
		w.affSum[g] = sum
	}
}

// affineForward applies the ContextAffine layer to the standardised data
// in w.h[0], in place: y′ = (y − μ)·e^(−σ), adding −Σσ to every row's
// log-determinant.
func (f *Flow) affineForward(w *work) {
	D, n := f.cfg.Dim, w.n
	f.affineParams(w)
	h0 := w.h[0]
	for i := 0; i < n; i++ {
		g := i / w.group
		mu, e := w.affOut[g*2*D:g*2*D+D], w.affExp[g*D:g*D+D]
		for d := 0; d < D; d++ {
			h0[i*D+d] = (h0[i*D+d] - mu[d]) * e[d]
		}
		w.ld[i] -= w.affSum[g]
	}
}

// affineInverse maps the coupling stack's output in w.h[0] back through
// the ContextAffine layer, y = μ + y′·e^σ, in place, adding Σσ to every
// row's base-to-data log-determinant.
func (f *Flow) affineInverse(w *work) {
	D, n := f.cfg.Dim, w.n
	f.affineParams(w)
	h0 := w.h[0]
	for i := 0; i < n; i++ {
		g := i / w.group
		mu, e := w.affOut[g*2*D:g*2*D+D], w.affExp[g*D:g*D+D]
		for d := 0; d < D; d++ {
			h0[i*D+d] = mu[d] + h0[i*D+d]/e[d]
		}
		w.ld[i] += w.affSum[g]
	}
}

// affineBackward back-propagates through the ContextAffine layer: g holds
// the gradient with respect to its output y′ and is replaced by the
// gradient with respect to the standardised data; the gradient with
// respect to the network's output (summed over each context group) goes
// through the network into grad (written with store) and, with ctx, into
// the context gradient w.gz.
func (f *Flow) affineBackward(w *work, g, dlogq, grad []float64, ctx, store bool) {
	D, n := f.cfg.Dim, w.n
	ng := (n + w.group - 1) / w.group
	ga := w.affGrad[:ng*2*D]
	clear(ga)
	h0 := w.h[0]
	for i := 0; i < n; i++ {
		gr := i / w.group
		e := w.affExp[gr*D : gr*D+D]
		gmu, gs := ga[gr*2*D:gr*2*D+D], ga[gr*2*D+D:gr*2*D+2*D]
		for d := 0; d < D; d++ {
			gy := g[i*D+d]
			gmu[d] -= gy * e[d]
			gs[d] -= gy*h0[i*D+d] + dlogq[i]
			g[i*D+d] = gy * e[d]
		}
	}
	// Through σ = B·tanh(a/B): dσ/da = 1 − tanh² = 1 − (σ/B)².
	for gr := 0; gr < ng; gr++ {
		sg := w.affOut[gr*2*D+D : gr*2*D+2*D]
		gs := ga[gr*2*D+D : gr*2*D+2*D]
		for d, v := range sg {
			gs[d] *= 1 - (v/AffineBound)*(v/AffineBound)
		}
	}
	for i := range ga {
		ga[i] *= affineGain
	}
	f.backwardNet(f.aff, w.affNet, w, ga, grad, nil, ctx, store)
}

// knotChunk is the number of splines whose knots are computed in one
// vectorised pass (spline.SetKnotsRows) before they are evaluated, small
// enough for their states to stay in the level-1 or level-2 cache.
const knotChunk = 64

// setKnotStates computes the knot states (KnotsLen values each) of
// splines s0 … s1−1 of layer l, at most knotChunk of them, from the
// conditioner's outputs (the width and height parameters scaled by
// 1/√Hidden) and returns them: spline s is coordinate s mod |T| of row
// ⌊s/|T|⌋, or context row s when contextOnly. With save they are written
// into w.kc[l], where backward finds them, otherwise into w.ks.
func (f *Flow) setKnotStates(w *work, l, s0, s1 int, save bool) []float64 {
	kl, P := f.spl.KnotsLen(), f.nsp
	dst := w.ks[:(s1-s0)*kl]
	if save {
		dst = w.kc[l][s0*kl : s1*kl]
	}
	f.spl.SetKnotsRows(dst, w.raw[l][s0*P:s1*P], s1-s0, P, f.rawScale, w.kt)
	return dst
}

// knotSource says where eachSpline finds the knots of a layer's splines.
type knotSource int

const (
	knotsCompute knotSource = iota // computed into w.ks
	knotsSave                      // computed and saved into w.kc for backward
	knotsKept                      // read from w.kc, saved by the last forward pass
)

// eachSpline calls fn for the splines of layer l in order, spline s
// (coordinate s mod |T| of row ⌊s/|T|⌋, or the spline of context row s
// when contextOnly) with w.knots pointed at its knots (spline.Knots.Use),
// the coordinate d it transforms and the rows i0 … i1−1 it applies to.
// The knots are computed knotChunk splines at a time (setKnotStates) or
// read from where the forward pass saved them.
func (f *Flow) eachSpline(w *work, l int, src knotSource, fn func(s, d, i0, i1 int)) {
	c := f.layers[l]
	kl, nt := f.spl.KnotsLen(), len(c.tIdx)
	ns, shared := w.n*nt, f.contextOnly(w, l)
	if shared {
		ns = (w.n + w.group - 1) / w.group
	}
	for s0 := 0; s0 < ns; s0 += knotChunk {
		s1 := min(s0+knotChunk, ns)
		var st []float64
		if src == knotsKept {
			st = w.kc[l][s0*kl : s1*kl]
		} else {
			st = f.setKnotStates(w, l, s0, s1, src == knotsSave)
		}
		for s := s0; s < s1; s++ {
			w.knots.Use(st[(s-s0)*kl : (s-s0+1)*kl])
			if shared {
				fn(s, c.tIdx[0], s*w.group, min((s+1)*w.group, w.n))
			} else {
				fn(s, c.tIdx[s%nt], s/nt, s/nt+1)
			}
		}
	}
}

// contextOnly reports whether layer l's conditioner sees the context only
// (no untouched coordinates, as in dimension 1) while the rows of w share
// their contexts in groups: it then runs once per context row, and row i
// reads the spline parameters of context row i/group.
func (f *Flow) contextOnly(w *work, l int) bool {
	return w.group > 1 && len(f.layers[l].iIdx) == 0
}

// condition runs the conditioner of layer l on the rows of w (on the
// context rows only when contextOnly), writing w.raw[l].
func (f *Flow) condition(w *work, l int) {
	net := f.layers[l].net
	if f.contextOnly(w, l) {
		ng := (w.n + w.group - 1) / w.group
		net.ForwardShared(f.params, w.nets[l], w.xin, w.zs, ng, 1, w.raw[l])
		return
	}
	net.ForwardShared(f.params, w.nets[l], w.xin, w.zs, w.n, w.group, w.raw[l])
}

// loadInputs standardises n rows of y and z into the workspace.
func (f *Flow) loadInputs(w *work, y, z []float64, n int) {
	f.loadShared(w, y, z, n, 1)
}

// loadShared standardises n rows of y and the ⌈n/group⌉ rows of z into
// the workspace; row i uses context row i/group.
func (f *Flow) loadShared(w *work, y, z []float64, n, group int) {
	D, C := f.cfg.Dim, f.cfg.ContextDim
	w.n, w.group = n, group
	h0 := w.h[0]
	for i := 0; i < n; i++ {
		for d := 0; d < D; d++ {
			h0[i*D+d] = (y[i*D+d] - f.meanY[d]) / f.stdY[d]
		}
	}
	for i := 0; i < (n+group-1)/group; i++ {
		for c := 0; c < C; c++ {
			w.zin[i*C+c] = (z[i*C+c] - f.meanZ[c]) / f.stdZ[c]
		}
	}
}

// embed runs the embedding network, if any, on the ⌈n/group⌉ standardised
// context rows in w.zin and writes the conditioners' context into w.zs,
// recording the pass on w's tape. With grads the recording accumulates
// the parameter gradient into w.gemb and the context gradient into w.gzin
// when backward runs.
func (f *Flow) embed(w *work, grads bool) {
	ng := (w.n + w.group - 1) / w.group
	if f.emb == nil || ng == 0 {
		return
	}
	C, E := f.cfg.ContextDim, f.emb.Out
	t := w.tape
	t.Reset()
	var gx, gp []float64
	if grads {
		gx, gp = w.gzin[:ng*C], w.gemb
	}
	x := t.Var(w.zin[:ng*C], gx, ng, C)
	out := f.emb.Apply(t, f.params[f.embOff:f.embOff+len(w.gemb)], gp, x)
	if err := t.Err(); err != nil {
		panic("flow: embedding network of a validated configuration failed: " + err.Error())
	}
	copy(w.zs[:ng*E], out.Value())
	w.embOut = out
}

// embedBackward back-propagates the gradient with respect to the
// conditioners' context (w.gz) through the embedding network recorded by
// the last forward pass, adding its parameter gradient into grad and
// leaving the gradient with respect to the standardised context in
// w.gzin; with store it writes the parameter gradient instead.
func (f *Flow) embedBackward(w *work, grad []float64, store bool) {
	ng := (w.n + w.group - 1) / w.group
	g := grad[f.embOff : f.embOff+len(w.gemb)]
	if ng == 0 {
		if store {
			clear(g)
		}
		return
	}
	clear(w.gemb)
	clear(w.gzin[:ng*f.cfg.ContextDim])
	if err := w.tape.Backward(w.embOut, w.gz[:ng*f.emb.Out]); err != nil {
		panic("flow: embedding network of a validated configuration failed: " + err.Error())
	}
	if store {
		clear(g)
	}
	for i, v := range w.gemb {
		g[i] += v
	}
}

// contextGrad returns the gradient with respect to the standardised
// context rows (⌈n/group⌉×ContextDim) left by the last backward pass with
// w.ctx set.
func (f *Flow) contextGrad(w *work) []float64 {
	if f.emb != nil {
		return w.gzin
	}
	return w.gz
}

// gather copies the untouched coordinates of layer l from src into w.xin.
func (f *Flow) gather(w *work, l int, src []float64) {
	D := f.cfg.Dim
	idx := f.layers[l].iIdx
	ni := len(idx)
	for i := 0; i < w.n; i++ {
		for j, d := range idx {
			w.xin[i*ni+j] = src[i*D+d]
		}
	}
}

// forward runs the data-to-base direction on the rows loaded by loadInputs,
// keeping every activation, and writes log q into logq (n values) unless
// logq is nil; the base points are left in w.h[Layers].
func (f *Flow) forward(w *work, logq []float64) {
	D, n := f.cfg.Dim, w.n
	clear(w.ld[:n])
	w.kept = w.keep
	kl := f.spl.KnotsLen()
	for l, c := range f.layers {
		if w.keep && w.kc[l] == nil && !f.uses32(w, l) {
			w.kc[l] = make([]float64, w.cap*len(c.tIdx)*kl)
		}
	}
	f.embed(w, w.keep)
	if f.aff != nil {
		f.affineForward(w)
	}
	for l, c := range f.layers {
		f.gather(w, l, w.h[l])
		f.condition(w, l)
		hin, hout := w.h[l], w.hc[l]
		copy(hout[:n*D], hin[:n*D])
		if f.uses32(w, l) {
			f.forward32(w, l, hin, hout)
			if c.luOff >= 0 {
				f.luForward(w, l)
			}
			continue
		}
		// A spline shared by the rows of a group (contextOnly) is set, and
		// kept, once per group.
		src := knotsCompute
		if w.kept {
			src = knotsSave
		}
		f.eachSpline(w, l, src, func(_, d, i0, i1 int) {
			for i := i0; i < i1; i++ {
				y, ld := f.spl.Forward(w.knots, hin[i*D+d])
				hout[i*D+d] = y
				w.ld[i] += ld
			}
		})
		if c.luOff >= 0 {
			f.luForward(w, l)
		}
	}
	if logq == nil {
		return
	}
	c0 := -0.5 * float64(D) * log2Pi
	for _, s := range f.stdY {
		c0 -= math.Log(s)
	}
	u := w.h[len(f.layers)]
	for i := 0; i < n; i++ {
		s := 0.0
		for _, v := range u[i*D : i*D+D] {
			s += v * v
		}
		logq[i] = c0 - 0.5*s + w.ld[i]
	}
}

// backward accumulates into grad the gradient of Σ_i dlogq[i]·log q_i for
// the rows of the last forward pass on w; with store it overwrites grad
// instead (the same bits as clearing it first, without the clearing pass).
func (f *Flow) backward(w *work, dlogq, grad []float64, store bool) {
	D, n, P := f.cfg.Dim, w.n, f.nsp
	u := w.h[len(f.layers)]
	g := w.g[:n*D]
	for i := 0; i < n; i++ {
		for d := 0; d < D; d++ {
			g[i*D+d] = -dlogq[i] * u[i*D+d]
		}
	}
	sumW := 0.0
	for i := 0; i < n; i++ {
		sumW += dlogq[i]
	}
	ctx := w.ctx || f.emb != nil
	if ctx {
		clear(w.gz[:(n+w.group-1)/w.group*f.cfg.contextWidth()])
	}
	for l := len(f.layers) - 1; l >= 0; l-- {
		c := f.layers[l]
		if c.luOff >= 0 {
			f.luBackward(w, l, g, sumW, grad, store)
		}
		// Coupling: spline backward per transformed coordinate.
		hin := w.h[l]
		// The rows of a group that share a spline (contextOnly) add up
		// their knot gradients, mapped back to the spline parameters once
		// per group.
		src := knotsCompute
		if w.kept {
			src = knotsKept
		}
		if f.uses32(w, l) {
			f.backward32(w, l, hin, g, dlogq)
		} else {
			f.eachSpline(w, l, src, func(s, d, i0, i1 int) {
				clear(w.gX)
				clear(w.gY)
				clear(w.gD)
				for i := i0; i < i1; i++ {
					g[i*D+d] = f.spl.Backward(w.knots, hin[i*D+d], g[i*D+d], dlogq[i], w.gX, w.gY, w.gD)
				}
				f.spl.KnotsBackward(w.knots, w.gX, w.gY, w.gD, w.gk)
				f.rawGrad(w.graw[s*P:(s+1)*P], w.gk)
			})
		}
		if f.contextOnly(w, l) {
			f.netBackward(l, w, grad, nil, ctx, store)
			continue
		}
		ni := len(c.iIdx)
		gxin := w.gxin
		if ni == 0 {
			gxin = nil
		}
		f.netBackward(l, w, grad, gxin, ctx, store)
		for i := 0; i < n && ni > 0; i++ {
			for j, d := range c.iIdx {
				g[i*D+d] += w.gxin[i*ni+j]
			}
		}
	}
	if f.aff != nil {
		f.affineBackward(w, g, dlogq, grad, ctx, store)
	}
	if f.emb != nil {
		f.embedBackward(w, grad, store)
	}
}

// netBackward back-propagates w.graw through the conditioner of layer l
// (see backwardNet), writing the gradient with respect to the untouched
// coordinates into gxin unless it is nil.
func (f *Flow) netBackward(l int, w *work, grad, gxin []float64, ctx, store bool) {
	f.backwardNet(f.layers[l].net, w.nets[l], w, w.graw, grad, gxin, ctx, store)
}

// backwardNet back-propagates dout through the network net whose last
// forward pass is in nw, adding (or with store writing) its parameter
// gradient into grad, writing the input gradient into gxin unless it is
// nil, and adding the context gradient into w.gz when ctx is set.
func (f *Flow) backwardNet(net *nn.ResNet, nw *nn.ResNetWork, w *work, dout, grad, gxin []float64, ctx, store bool) {
	var dc []float64
	if ctx {
		dc = w.gz
	}
	switch {
	case store:
		net.BackwardStore(f.params, grad, nw, dout, gxin, dc)
	case ctx:
		net.BackwardContext(f.params, grad, nw, dout, gxin, dc)
	default:
		net.Backward(f.params, grad, nw, dout, gxin)
	}
}

// rawGrad writes the gradient with respect to one spline's raw
// conditioner outputs into dst, given the gradient gk with respect to its
// scaled parameters (the widths and heights are scaled by 1/√Hidden).
func (f *Flow) rawGrad(dst, gk []float64) {
	K := f.cfg.Bins
	for j := 0; j < 2*K; j++ {
		dst[j] = gk[j] * f.rawScale
	}
	copy(dst[2*K:], gk[2*K:])
}

// luForward applies the LU layer l to w.hc[l], writing w.h[l+1] and
// adding log|det W| to every row's log-determinant.
func (f *Flow) luForward(w *work, l int) {
	D, n := f.cfg.Dim, w.n
	off := f.layers[l].luOff
	W := w.luW[l]
	w.luLD[l] = f.luMatrices(off, w.luL, w.luU, W)
	b := f.params[off+D*D : off+D*D+D]
	src, next := w.hc[l], w.h[l+1]
	if !luRows(D, n, W, b, src, next, w.ld, w.luLD[l]) {
		luRowsAny(D, n, W, b, src, next, w.ld, w.luLD[l])
	}
}

// luRowsAny is luForward's loop over the rows for any dimension:
// next_i = W src_i + b and ld_i += ldw, each sum started from b_j and
// added in the column order, four rows of W at a time.
func luRowsAny(D, n int, W, b, src, next, ld []float64, ldw float64) {
	for i := 0; i < n; i++ {
		x := src[i*D : i*D+D]
		o := next[i*D : i*D+D]
		j := 0
		for ; j+4 <= D; j += 4 {
			w0, w1, w2, w3 := W[j*D:j*D+D], W[(j+1)*D:(j+1)*D+D], W[(j+2)*D:(j+2)*D+D], W[(j+3)*D:(j+3)*D+D]
			s0, s1, s2, s3 := b[j], b[j+1], b[j+2], b[j+3]
			for k, xk := range x {
				s0 += w0[k] * xk
				s1 += w1[k] * xk
				s2 += w2[k] * xk
				s3 += w3[k] * xk
			}
			o[j], o[j+1], o[j+2], o[j+3] = s0, s1, s2, s3
		}
		for ; j < D; j++ {
			s := b[j]
			wr := W[j*D : j*D+D]
			for k, xk := range x {
				s += wr[k] * xk
			}
			o[j] = s
		}
		ld[i] += ldw
	}
}

// luBackCols is luBackward's loop over the rows for any dimension,
// reordered: it adds g_i into gb and g_i x_iᵀ into gW, each sum over the
// rows in order in a register, then replaces every g_i by Wᵀ g_i (each
// sum started from 0 and added over j in order), reading W's columns from
// wt (D×D scratch, filled with Wᵀ; tmp holds D values of scratch). The
// sums are those of luBackRowsAny, term by term, so the same bits.
func luBackCols(D, n int, W, x, g, gW, gb, wt, tmp []float64) {
	x, g = x[:n*D], g[:n*D]
	for j := 0; j < D; j++ {
		s := gb[j]
		for i := j; i < len(g); i += D {
			s += g[i]
		}
		gb[j] = s
		// Four independent sums at a time, each over the rows in order.
		k := 0
		for ; k+4 <= D; k += 4 {
			a := gW[j*D+k : j*D+k+4]
			a0, a1, a2, a3 := a[0], a[1], a[2], a[3]
			for i := 0; i < len(g); i += D {
				gj, xi := g[i+j], x[i+k:i+k+4]
				a0 += gj * xi[0]
				a1 += gj * xi[1]
				a2 += gj * xi[2]
				a3 += gj * xi[3]
			}
			a[0], a[1], a[2], a[3] = a0, a1, a2, a3
		}
		for ; k < D; k++ {
			a := gW[j*D+k]
			for i := 0; i < len(g); i += D {
				a += g[i+j] * x[i+k]
			}
			gW[j*D+k] = a
		}
	}
	for j := 0; j < D; j++ {
		for k := 0; k < D; k++ {
			wt[k*D+j] = W[j*D+k]
		}
	}
	tmp = tmp[:D]
	for i := 0; i < n; i++ {
		gi := g[i*D : i*D+D]
		k := 0
		for ; k+4 <= D; k += 4 {
			w0, w1, w2, w3 := wt[k*D:k*D+D], wt[(k+1)*D:(k+1)*D+D], wt[(k+2)*D:(k+2)*D+D], wt[(k+3)*D:(k+3)*D+D]
			s0, s1, s2, s3 := 0.0, 0.0, 0.0, 0.0
			for j, v := range gi {
				s0 += w0[j] * v
				s1 += w1[j] * v
				s2 += w2[j] * v
				s3 += w3[j] * v
			}
			tmp[k], tmp[k+1], tmp[k+2], tmp[k+3] = s0, s1, s2, s3
		}
		for ; k < D; k++ {
			wk := wt[k*D : k*D+D]
			s := 0.0
			for j, v := range gi {
				s += wk[j] * v
			}
			tmp[k] = s
		}
		copy(gi, tmp)
	}
}

// luBackward back-propagates through the LU layer l: g holds the gradient
// with respect to the layer's output and is replaced by the gradient with
// respect to its input; sumW is Σ_i dlogq_i, the weight of log|det W|.
// The parameter gradient is added into grad, or with store written.
func (f *Flow) luBackward(w *work, l int, g []float64, sumW float64, grad []float64, store bool) {
	D, n := f.cfg.Dim, w.n
	off := f.layers[l].luOff
	if store {
		clear(grad[off : off+D*D+D])
	}
	W := w.luW[l]
	f.luMatrices(off, w.luL, w.luU, W)
	L, U := w.luL, w.luU
	x := w.hc[l]
	gW := w.gW
	clear(gW)
	nt := D * (D - 1) / 2
	gb := grad[off+D*D : off+D*D+D]
	if !luBackRows(D, n, W, x, g, gW, gb) {
		luBackCols(D, n, W, x, g, gW, gb, w.luWt, w.tmp)
	}
	// W = L U: dL[j,m] = Σ_k dW[j,k] U[m,k] (j > m); dU[m,k] = Σ_j L[j,m] dW[j,k] (m ≤ k).
	p := f.params[off:]
	gp := grad[off:]
	t := 0
	for j := 0; j < D; j++ {
		for m := 0; m < j; m++ {
			s := 0.0
			for k := m; k < D; k++ {
				s += gW[j*D+k] * U[m*D+k]
			}
			gp[t] += s
			t++
		}
	}
	dU := func(m, k int) float64 {
		s := 0.0
		for j := m; j < D; j++ {
			s += L[j*D+m] * gW[j*D+k]
		}
		return s
	}
	for m := 0; m < D; m++ {
		for k := m + 1; k < D; k++ {
			gp[t] += dU(m, k)
			t++
		}
	}
	for j := 0; j < D; j++ {
		r := p[2*nt+j]
		gp[2*nt+j] += (dU(j, j) + sumW/U[j*D+j]) * nn.Sigmoid(r)
	}
}

// luRows is luForward's loop over the rows for the dimensions 2 and 3,
// unrolled: next_i = W src_i + b (each sum started from b_j and added in
// the column order) and ld_i += ldw, the same operations in the same order
// as the general loop, so the same bits. It reports whether it handled D.
func luRows(D, n int, W, b, src, next, ld []float64, ldw float64) bool {
	switch D {
	case 2:
		w00, w01, w10, w11 := W[0], W[1], W[2], W[3]
		b0, b1 := b[0], b[1]
		src, next, ld = src[:2*n], next[:2*n], ld[:n]
		for i := range ld {
			x0, x1 := src[2*i], src[2*i+1]
			s0 := b0
			s0 += w00 * x0
			s0 += w01 * x1
			s1 := b1
			s1 += w10 * x0
			s1 += w11 * x1
			next[2*i], next[2*i+1] = s0, s1
			ld[i] += ldw
		}
		return true
	case 3:
		w00, w01, w02 := W[0], W[1], W[2]
		w10, w11, w12 := W[3], W[4], W[5]
		w20, w21, w22 := W[6], W[7], W[8]
		b0, b1, b2 := b[0], b[1], b[2]
		src, next, ld = src[:3*n], next[:3*n], ld[:n]
		for i := range ld {
			x0, x1, x2 := src[3*i], src[3*i+1], src[3*i+2]
			s0 := b0
			s0 += w00 * x0
			s0 += w01 * x1
			s0 += w02 * x2
			s1 := b1
			s1 += w10 * x0
			s1 += w11 * x1
			s1 += w12 * x2
			s2 := b2
			s2 += w20 * x0
			s2 += w21 * x1
			s2 += w22 * x2
			next[3*i], next[3*i+1], next[3*i+2] = s0, s1, s2
			ld[i] += ldw
		}
		return true
	}
	return false
}

// luBackRows is luBackward's loop over the rows for the dimensions 2 and
// 3, unrolled with the sums in registers: gb_j += g_ij and gW_jk +=
// g_ij·x_ik over the rows in order, and g_i replaced by Wᵀ g_i (each sum
// started from 0 and added in the row order of W), the same operations in
// the same order as the general loop, so the same bits. It reports
// whether it handled D.
func luBackRows(D, n int, W, x, g, gW, gb []float64) bool {
	switch D {
	case 2:
		w00, w01, w10, w11 := W[0], W[1], W[2], W[3]
		b0, b1 := gb[0], gb[1]
		a00, a01, a10, a11 := gW[0], gW[1], gW[2], gW[3]
		x, g = x[:2*n], g[:2*n]
		for i := 0; i < n; i++ {
			g0, g1 := g[2*i], g[2*i+1]
			x0, x1 := x[2*i], x[2*i+1]
			b0 += g0
			a00 += g0 * x0
			a01 += g0 * x1
			b1 += g1
			a10 += g1 * x0
			a11 += g1 * x1
			t0 := 0.0
			t0 += w00 * g0
			t0 += w10 * g1
			t1 := 0.0
			t1 += w01 * g0
			t1 += w11 * g1
			g[2*i], g[2*i+1] = t0, t1
		}
		gb[0], gb[1] = b0, b1
		gW[0], gW[1], gW[2], gW[3] = a00, a01, a10, a11
		return true
	case 3:
		w00, w01, w02 := W[0], W[1], W[2]
		w10, w11, w12 := W[3], W[4], W[5]
		w20, w21, w22 := W[6], W[7], W[8]
		b0, b1, b2 := gb[0], gb[1], gb[2]
		a00, a01, a02 := gW[0], gW[1], gW[2]
		a10, a11, a12 := gW[3], gW[4], gW[5]
		a20, a21, a22 := gW[6], gW[7], gW[8]
		x, g = x[:3*n], g[:3*n]
		for i := 0; i < n; i++ {
			g0, g1, g2 := g[3*i], g[3*i+1], g[3*i+2]
			x0, x1, x2 := x[3*i], x[3*i+1], x[3*i+2]
			b0 += g0
			a00 += g0 * x0
			a01 += g0 * x1
			a02 += g0 * x2
			b1 += g1
			a10 += g1 * x0
			a11 += g1 * x1
			a12 += g1 * x2
			b2 += g2
			a20 += g2 * x0
			a21 += g2 * x1
			a22 += g2 * x2
			t0 := 0.0
			t0 += w00 * g0
			t0 += w10 * g1
			t0 += w20 * g2
			t1 := 0.0
			t1 += w01 * g0
			t1 += w11 * g1
			t1 += w21 * g2
			t2 := 0.0
			t2 += w02 * g0
			t2 += w12 * g1
			t2 += w22 * g2
			g[3*i], g[3*i+1], g[3*i+2] = t0, t1, t2
		}
		gb[0], gb[1], gb[2] = b0, b1, b2
		gW[0], gW[1], gW[2] = a00, a01, a02
		gW[3], gW[4], gW[5] = a10, a11, a12
		gW[6], gW[7], gW[8] = a20, a21, a22
		return true
	}
	return false
}

// inverse maps the base points in w.h[Layers] (rows loaded with the
// standardised context in w.zs) back to standardised data in w.h[0] and
// accumulates in w.ld the log-determinant of the base-to-data map (without
// the standardisation).
func (f *Flow) inverse(w *work) {
	D, n := f.cfg.Dim, w.n
	clear(w.ld[:n])
	f.embed(w, false)
	for l := len(f.layers) - 1; l >= 0; l-- {
		c := f.layers[l]
		hc := w.hc[l]
		if c.luOff >= 0 {
			W := w.luW[l]
			ld := f.luMatrices(c.luOff, w.luL, w.luU, W)
			b := f.params[c.luOff+D*D : c.luOff+D*D+D]
			L, U := w.luL, w.luU
			src := w.h[l+1]
			for i := 0; i < n; i++ {
				o := hc[i*D : i*D+D]
				s := src[i*D : i*D+D]
				// Solve L v = s − b (unit lower), then U x = v.
				for j := 0; j < D; j++ {
					v := s[j] - b[j]
					for k := 0; k < j; k++ {
						v -= L[j*D+k] * o[k]
					}
					o[j] = v
				}
				for j := D - 1; j >= 0; j-- {
					v := o[j]
					for k := j + 1; k < D; k++ {
						v -= U[j*D+k] * o[k]
					}
					o[j] = v / U[j*D+j]
				}
				w.ld[i] -= ld
			}
		}
		f.gather(w, l, hc)
		f.condition(w, l)
		hout := w.h[l]
		copy(hout[:n*D], hc[:n*D])
		f.eachSpline(w, l, knotsCompute, func(_, d, i0, i1 int) {
			for i := i0; i < i1; i++ {
				x, ld := f.spl.Inverse(w.knots, hc[i*D+d])
				hout[i*D+d] = x
				w.ld[i] += ld
			}
		})
	}
	if f.aff != nil {
		f.affineInverse(w)
	}
}
