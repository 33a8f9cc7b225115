package flow

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
)

func (f *Flow) getWork() *work  { return f.pool.Get().(*work) }
func (f *Flow) putWork(w *work) { f.pool.Put(w) }

// LogDensity returns log q(y | z) for one point y (Dim values) and context z
// (ContextDim values; nil when ContextDim is 0). It returns NaN when the
// shapes are wrong, an input is not finite, or f is nil or was not built
// by New or Load, and −Inf when the density underflows (y far in a
// tail). LogDensityBatch reports the same cases as errors.
func (f *Flow) LogDensity(y, z []float64) float64 {
	var out [1]float64
	if err := f.checkData(y, z, 1); err != nil {
		return math.NaN()
	}
	if len(y) != f.cfg.Dim || len(z) != f.cfg.ContextDim {
		return math.NaN()
	}
	// One row is one chunk: evaluated here rather than through
	// LogDensityBatch, whose parallel path would move out to the heap.
	w := f.getWork()
	f.loadInputs(w, y, z, 1)
	f.forward(w, out[:])
	f.putWork(w)
	return out[0]
}

// LogDensityBatch writes log q(y_i | z_i) for the n rows of y (n×Dim,
// row-major) and z (n×ContextDim) into dst (n values). Batches of more
// than 256 rows are evaluated in parallel on GOMAXPROCS goroutines (the
// values do not depend on the scheduling). After warm-up, batches of up to
// 256 rows do not allocate.
func (f *Flow) LogDensityBatch(y, z []float64, n int, dst []float64) error {
	if err := f.checkData(y, z, n); err != nil {
		return err
	}
	if len(dst) < n {
		return invalid("dst", "has %d values, need %d", len(dst), n)
	}
	D, C := f.cfg.Dim, f.cfg.ContextDim
	if n <= chunkRows { // one chunk: no goroutines, no allocation
		w := f.getWork()
		f.loadInputs(w, y, z, n)
		f.forward(w, dst[:n])
		f.putWork(w)
		return finiteOut("log density", dst[:n], false)
	}
	f.chunks(n, func(w *work, lo, m int) {
		f.loadInputs(w, y[lo*D:], z[lo*C:], m)
		f.forward(w, dst[lo:lo+m])
	})
	return finiteOut("log density", dst[:n], false)
}

// chunks calls fn on consecutive chunks [lo, lo+m) of n rows with a pooled
// workspace, on up to GOMAXPROCS goroutines when there is more than one
// chunk. Rows are independent, so the results do not depend on the
// scheduling.
func (f *Flow) chunks(n int, fn func(w *work, lo, m int)) {
	nc := (n + chunkRows - 1) / chunkRows
	workers := min(runtime.GOMAXPROCS(0), nc)
	if workers <= 1 {
		w := f.getWork()
		for lo := 0; lo < n; lo += chunkRows {
			fn(w, lo, min(chunkRows, n-lo))
		}
		f.putWork(w)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	for k := 0; k < workers; k++ {
		go func() {
			defer wg.Done()
			w := f.getWork()
			defer f.putWork(w)
			for {
				c := int(next.Add(1)) - 1
				if c >= nc {
					return
				}
				lo := c * chunkRows
				fn(w, lo, min(chunkRows, n-lo))
			}
		}()
	}
	wg.Wait()
}

// LogDensityGrad accumulates into grad (NumParams values) the gradient
//
//	Σ_i dlogq[i] · ∇_φ log q(y_i | z_i)
//
// over the n rows of y and z, and writes log q(y_i | z_i) into logq unless
// logq is nil. This is the back-propagation entry point for any loss that
// is a function of a batch of log-densities: compute the log q values (with
// LogDensityBatch), evaluate the loss ℓ(log q_1, …, log q_n) and its partial
// derivatives dlogq[i] = ∂ℓ/∂log q_i, then call LogDensityGrad to obtain ∇_φ ℓ.
// For the negative mean log-likelihood, dlogq[i] = −1/n. The forward pass
// is recomputed internally, so memory stays bounded for any n.
func (f *Flow) LogDensityGrad(y, z []float64, n int, dlogq, grad, logq []float64) error {
	if err := f.ready(); err != nil {
		return err
	}
	if len(grad) != len(f.params) {
		return invalid("grad", "has %d values, need %d", len(grad), len(f.params))
	}
	return f.logDensityGrad(y, z, n, dlogq, grad, nil, logq)
}

// LogDensityGradContext is LogDensityGrad that also writes into dz
// (n×ContextDim) the gradient with respect to the contexts: row i holds
// dlogq[i]·∇_z log q(y_i | z) at z = z_i, through the standardisation and
// the embedding network, if any. It is the entry point for training a
// network that computes the context (an embedding outside the flow) with
// the flow's loss. grad may be nil when only the context gradient is
// wanted; otherwise it receives (+=) the parameter gradient as in
// LogDensityGrad.
func (f *Flow) LogDensityGradContext(y, z []float64, n int, dlogq, grad, dz, logq []float64) error {
	if err := f.checkData(y, z, n); err != nil {
		return err
	}
	if grad != nil && len(grad) != len(f.params) {
		return invalid("grad", "has %d values, need %d", len(grad), len(f.params))
	}
	if len(dz) < n*f.cfg.ContextDim {
		return invalid("dz", "has %d values, need %d rows × %d", len(dz), n, f.cfg.ContextDim)
	}
	return f.logDensityGrad(y, z, n, dlogq, grad, dz[:max(n, 0)*f.cfg.ContextDim], logq)
}

// logDensityGrad is LogDensityGrad and, when dz is not nil, LogDensityGradContext.
func (f *Flow) logDensityGrad(y, z []float64, n int, dlogq, grad, dz, logq []float64) error {
	if err := f.checkData(y, z, n); err != nil {
		return err
	}
	if len(dlogq) < n {
		return invalid("dlogq", "has %d values, need %d", len(dlogq), n)
	}
	if logq != nil && len(logq) < n {
		return invalid("logq", "has %d values, need %d", len(logq), n)
	}
	if err := finite("dlogq", dlogq[:n]); err != nil {
		return err
	}
	D, C := f.cfg.Dim, f.cfg.ContextDim
	w := f.getWork()
	defer f.putWork(w)
	scratch := grad == nil
	if scratch {
		if len(w.gscr) != len(f.params) {
			w.gscr = make([]float64, len(f.params))
		}
		grad = w.gscr
	}
	for lo := 0; lo < n; lo += w.cap {
		m := min(w.cap, n-lo)
		f.loadInputs(w, y[lo*D:], z[lo*C:], m)
		var lq []float64
		if logq != nil {
			lq = logq[lo : lo+m]
		}
		w.keep = true
		f.forward(w, lq)
		w.keep = false
		w.ctx = dz != nil
		f.backward(w, dlogq[lo:lo+m], grad, scratch) // the scratch gradient is never read
		w.ctx = false
		if dz != nil {
			gz := f.contextGrad(w)
			for i := 0; i < m; i++ {
				for c := 0; c < C; c++ {
					dz[(lo+i)*C+c] = gz[i*C+c] / f.stdZ[c]
				}
			}
		}
	}
	if logq != nil {
		if err := finiteOut("log density", logq[:n], false); err != nil {
			return err
		}
	}
	if dz != nil {
		if err := finiteOut("context gradient", dz, true); err != nil {
			return err
		}
	}
	if !scratch {
		return finiteOut("gradient", grad, true)
	}
	return nil
}

// Transform maps the n rows of y (given contexts z) to the base space:
// u = T(y; z) with q(y | z) = N(u; 0, I)·|det ∂T/∂y|. It writes u (n×Dim)
// and, unless logdet is nil, log|det ∂T/∂y| (n values, including the
// standardisation of y).
func (f *Flow) Transform(y, z []float64, n int, u, logdet []float64) error {
	if err := f.checkData(y, z, n); err != nil {
		return err
	}
	D, C := f.cfg.Dim, f.cfg.ContextDim
	if len(u) < n*D || (logdet != nil && len(logdet) < n) {
		return invalid("u, logdet", "need %d values and %d (or nil), got %d and %d", n*D, n, len(u), len(logdet))
	}
	w := f.getWork()
	defer f.putWork(w)
	c0 := f.logStdSum()
	for lo := 0; lo < n; lo += w.cap {
		m := min(w.cap, n-lo)
		f.loadInputs(w, y[lo*D:], z[lo*C:], m)
		f.forward(w, nil)
		copy(u[lo*D:(lo+m)*D], w.h[len(f.layers)][:m*D])
		if logdet != nil {
			for i := 0; i < m; i++ {
				logdet[lo+i] = w.ld[i] - c0
			}
		}
	}
	if err := finiteOut("u", u[:n*D], true); err != nil {
		return err
	}
	if logdet != nil {
		return finiteOut("logdet", logdet[:n], true)
	}
	return nil
}

func (f *Flow) logStdSum() float64 {
	s := 0.0
	for _, v := range f.stdY {
		s += math.Log(v)
	}
	return s
}

// InverseTransform maps the n rows of base points u (contexts z) to data
// space, y = T⁻¹(u; z), writing y (n×Dim) and, unless logdet is nil,
// log|det ∂T⁻¹/∂u| (n values), so that log q(y | z) = log N(u) − logdet.
func (f *Flow) InverseTransform(u, z []float64, n int, y, logdet []float64) error {
	if err := f.checkData(u, z, n); err != nil {
		return err
	}
	D, C := f.cfg.Dim, f.cfg.ContextDim
	if len(y) < n*D || (logdet != nil && len(logdet) < n) {
		return invalid("y, logdet", "need %d values and %d (or nil), got %d and %d", n*D, n, len(y), len(logdet))
	}
	w := f.getWork()
	defer f.putWork(w)
	c0 := f.logStdSum()
	for lo := 0; lo < n; lo += w.cap {
		m := min(w.cap, n-lo)
		f.inverseRows(w, u[lo*D:], z[lo*C:], m, y[lo*D:])
		if logdet != nil {
			for i := 0; i < m; i++ {
				logdet[lo+i] = w.ld[i] + c0
			}
		}
	}
	if err := finiteOut("y", y[:n*D], true); err != nil {
		return err
	}
	if logdet != nil {
		return finiteOut("logdet", logdet[:n], true)
	}
	return nil
}

// inverseRows maps m base points u (m×D) with contexts z (m×C) to y.
func (f *Flow) inverseRows(w *work, u, z []float64, m int, y []float64) {
	D, C := f.cfg.Dim, f.cfg.ContextDim
	w.n, w.group = m, 1
	copy(w.h[len(f.layers)][:m*D], u[:m*D])
	for i := 0; i < m; i++ {
		for c := 0; c < C; c++ {
			w.zin[i*C+c] = (z[i*C+c] - f.meanZ[c]) / f.stdZ[c]
		}
	}
	f.inverse(w)
	h0 := w.h[0]
	for i := 0; i < m; i++ {
		for d := 0; d < D; d++ {
			y[i*D+d] = h0[i*D+d]*f.stdY[d] + f.meanY[d]
		}
	}
}

// Sample draws n points from q(· | z) for one context z (ContextDim
// values; nil when ContextDim is 0) into dst (n×Dim) using r. The n·Dim
// base normals are drawn from r in order and then mapped to data space in
// parallel chunks, so the draws depend on r only.
func (f *Flow) Sample(r *rand.Rand, z []float64, n int, dst []float64) error {
	return f.SampleLogDensity(r, z, n, dst, nil)
}

// SampleLogDensity is Sample that also writes log q(y_i | z) of every draw
// into logq (n values) unless logq is nil.
func (f *Flow) SampleLogDensity(r *rand.Rand, z []float64, n int, dst, logq []float64) error {
	if err := f.ready(); err != nil {
		return err
	}
	D, C := f.cfg.Dim, f.cfg.ContextDim
	if r == nil {
		return invalid("r", "must not be nil")
	}
	if len(z) != C {
		return invalid("z", "has %d values, need %d", len(z), C)
	}
	if err := finite("z", z); err != nil {
		return err
	}
	if n < 0 || n > len(dst)/D || (logq != nil && len(logq) < n) {
		return invalid("dst, logq", "%d draws need %d·%d values and %d (or nil), got %d and %d", n, n, D, n, len(dst), len(logq))
	}
	// Draw all base points first (sequentially from r, so the result
	// depends on r only), then map chunks to data space in parallel.
	for i := 0; i < n*D; i++ {
		dst[i] = r.NormFloat64()
	}
	c0 := f.logStdSum() + 0.5*float64(D)*log2Pi
	f.chunks(n, func(w *work, lo, m int) {
		// Every row shares the one context: its contribution to the
		// conditioners is computed once per chunk.
		w.n, w.group = m, m
		u := w.h[len(f.layers)]
		copy(u[:m*D], dst[lo*D:(lo+m)*D])
		for c := 0; c < C; c++ {
			w.zin[c] = (z[c] - f.meanZ[c]) / f.stdZ[c]
		}
		f.inverse(w)
		h0 := w.h[0]
		out := dst[lo*D:]
		for i := 0; i < m; i++ {
			s := 0.0
			for d := 0; d < D; d++ {
				s += u[i*D+d] * u[i*D+d]
				out[i*D+d] = h0[i*D+d]*f.stdY[d] + f.meanY[d]
			}
			if logq != nil {
				logq[lo+i] = -0.5*s - w.ld[i] - c0
			}
		}
	})
	if err := finiteOut("sample", dst[:n*D], true); err != nil {
		return err
	}
	if logq != nil {
		return finiteOut("log density", logq[:n], false)
	}
	return nil
}
