package nn

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/flow/internal/gemm"
	"github.com/privinfer/privinfer/flow/internal/vec"
)

// ResNet is a residual multilayer perceptron: an input layer maps the
// concatenation [x, c] of an input x (In features) and a context c (Ctx
// features) to Hidden units, Blocks residual blocks follow, and an output
// layer maps the Hidden units to Out values:
//
//	h₀ = [x, c]·W₀ + b₀
//	h_{j+1} = h_j + g_j ⊙ (ReLU(ReLU(h_j)·W_{j,1} + b_{j,1})·W_{j,2} + b_{j,2})
//	out = h_B·W_f + b_f
//
// With context gating (Gate true and Ctx > 0) the gate is
// g_j = σ(c·W_{j,c} + b_{j,c}), a gated linear unit that feeds the context
// into every block; otherwise g_j = 1. This is the residual conditioner of
// neural spline flows as commonly configured for simulation-based
// inference. No activation follows the last block.
type ResNet struct {
	In, Ctx, Hidden, Out, Blocks int
	Gate                         bool

	first  Linear
	blocks []resBlock
	last   Linear
	n      int
}

// resNetParams counts the parameters NewResNet lays out.
func resNetParams(in, hidden, out, blocks int64, gate bool, ctx int64) int64 {
	lin := func(i, j int64) int64 { return i*j + j }
	n := lin(in, hidden) + lin(hidden, out)
	per := 2 * lin(hidden, hidden)
	if gate {
		per += lin(ctx, hidden)
	}
	return n + blocks*per
}

type resBlock struct {
	l1, l2, lc Linear
}

// ErrInvalid is wrapped by every error of NewResNet and
// ResNetConfig.Validate; their messages read
// "nn: invalid argument: <field>: <constraint>".
var ErrInvalid = errors.New("nn: invalid argument")

// Size limits of NewResNet: widths up to 2^16, up to 2^10 blocks, and at
// most 2^31 parameters in all (beyond them the layer sizes overflow or
// could not be allocated).
const (
	maxWidth  = 1 << 16
	maxBlocks = 1 << 10
	maxParams = 1 << 31
)

// ResNetConfig describes a ResNet and where its parameters start in the
// caller's parameter vector. The zero value is not usable: Hidden and Out
// must be set; In, Ctx, Blocks and Off may stay 0 and Gate false.
type ResNetConfig struct {
	// In is the number of input features x, in [0, 2^16]. With In and
	// Ctx both 0 the input layer is a learned constant.
	In int
	// Ctx is the number of context features c, in [0, 2^16].
	Ctx int
	// Hidden is the width of the input layer and of every block, in
	// [1, 2^16].
	Hidden int
	// Out is the number of outputs, in [1, 2^16].
	Out int
	// Blocks is the number of residual blocks, in [0, 2^10].
	Blocks int
	// Gate enables context gating of every block; it is ignored when Ctx
	// is 0.
	Gate bool
	// Off is the index of the network's first parameter in the caller's
	// parameter vector, ≥ 0; Off plus the network's parameter count is at
	// most 2^31.
	Off int
}

// invalid formats an error wrapping ErrInvalid that names the argument
// and the constraint it breaks.
func invalid(arg, format string, a ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrInvalid, arg, fmt.Sprintf(format, a...))
}

// Validate checks the limits documented on each field. Errors wrap
// ErrInvalid and name the field.
func (c ResNetConfig) Validate() error {
	switch {
	case c.In < 0 || c.In > maxWidth:
		return invalid("ResNetConfig.In", "must be in [0, 2^16], got %d", c.In)
	case c.Ctx < 0 || c.Ctx > maxWidth:
		return invalid("ResNetConfig.Ctx", "must be in [0, 2^16], got %d", c.Ctx)
	case c.Hidden < 1 || c.Hidden > maxWidth:
		return invalid("ResNetConfig.Hidden", "must be in [1, 2^16], got %d", c.Hidden)
	case c.Out < 1 || c.Out > maxWidth:
		return invalid("ResNetConfig.Out", "must be in [1, 2^16], got %d", c.Out)
	case c.Blocks < 0 || c.Blocks > maxBlocks:
		return invalid("ResNetConfig.Blocks", "must be in [0, 2^10], got %d", c.Blocks)
	case c.Off < 0 || c.Off > maxParams:
		return invalid("ResNetConfig.Off", "must be in [0, 2^31], got %d", c.Off)
	}
	// Every count below fits an int64 within these limits: at most
	// (2^17+1)·2^16 per layer, times 3·2^10 + 2 layers.
	if np := int64(c.Off) + resNetParams(int64(c.In+c.Ctx), int64(c.Hidden), int64(c.Out), int64(c.Blocks), c.Gate && c.Ctx > 0, int64(c.Ctx)); np > maxParams {
		return invalid("ResNetConfig", "the network would end at parameter %d, beyond 2^31", np)
	}
	return nil
}

// NewResNet lays out the ResNet cfg describes, its parameters starting at
// offset cfg.Off of the caller's parameter vector. Errors (from
// cfg.Validate) wrap ErrInvalid and name the field.
//
// The other methods are the flow's hot path and do not validate: they
// panic (a programmer error) on slices shorter than the lengths they
// document.
func NewResNet(cfg ResNetConfig) (*ResNet, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	in, ctx, hidden, out, blocks, gate, off := cfg.In, cfg.Ctx, cfg.Hidden, cfg.Out, cfg.Blocks, cfg.Gate, cfg.Off
	m := &ResNet{In: in, Ctx: ctx, Hidden: hidden, Out: out, Blocks: blocks, Gate: gate && ctx > 0}
	o := off
	next := func(i, j int) Linear {
		l := Linear{In: i, Out: j, Off: o}
		o += l.NumParams()
		return l
	}
	m.first = next(in+ctx, hidden)
	m.blocks = make([]resBlock, blocks)
	for j := range m.blocks {
		m.blocks[j].l1 = next(hidden, hidden)
		m.blocks[j].l2 = next(hidden, hidden)
		if m.Gate {
			m.blocks[j].lc = next(ctx, hidden)
		}
	}
	m.last = next(hidden, out)
	m.n = o - off
	return m, nil
}

// NumParams returns the number of parameters of m.
func (m *ResNet) NumParams() int { return m.n }

// Init initialises m's parameters in p: fan-in uniform for every layer
// except the second linear map of each block, which starts uniform on
// [−10⁻³, 10⁻³] so that every block starts close to the identity.
func (m *ResNet) Init(p []float64, r *rand.Rand) {
	m.first.Init(p, r, 1)
	for _, b := range m.blocks {
		b.l1.Init(p, r, 1)
		q := p[b.l2.Off : b.l2.Off+b.l2.NumParams()]
		for i := range q {
			q[i] = 1e-3 * (2*r.Float64() - 1)
		}
		if m.Gate {
			b.lc.Init(p, r, 1)
		}
	}
	m.last.Init(p, r, 1)
}

// ResNetWork holds the activations of one forward pass of a ResNet for up
// to Cap rows, and the scratch its backward pass needs.
type ResNetWork struct {
	Cap         int
	n           int
	hidden, out int       // the network's widths
	group       int       // rows per context row
	ng          int       // context rows, ⌈n/group⌉
	x           []float64 // n×In
	c           []float64 // ng×Ctx
	h           [][]float64
	a1          [][]float64 // ReLU(h_j); unused with float32 products
	a2          [][]float64 // ReLU(t1), or t1 itself with float32 products
	t2          [][]float64
	s           [][]float64 // gates, ng×Hidden
	gh          []float64
	gt          []float64
	ga          []float64
	ghg         []float64 // per-context-row sums of a gradient, ng×Hidden
	wt          []float64 // transposed weights of one layer
	f32         *single   // the float32 state of the hidden layers; nil computes them in float64
	// pass is the float32 state the last forward pass used (nil: it ran in
	// float64): the backward pass follows it whatever SetFloat32 says since.
	pass *single
}

// SetFloat32 chooses whether the products of the residual blocks and the
// output layer (the bulk of the work) are computed in float32 arithmetic
// (see gemm.MulAdd32: operands rounded to float32, sums of at most 128
// products in float32, everything else in float64) or, the default, in
// float64. The ReLUs before the blocks' layers, and the masks of their
// gradients, are then applied while the layers' inputs and output
// gradients are rounded. It is meant for training steps; it pays off on
// amd64 machines with AVX-512 or AVX2, where the float32 kernels do half
// the multiply-adds per row. It takes effect from the next forward pass;
// a backward pass computes in the precision of the forward pass it follows.
func (w *ResNetWork) SetFloat32(on bool) {
	switch {
	case on && w.f32 == nil:
		nb := len(w.a1)
		H, out := w.hidden, w.out
		w.f32 = newSingle(2*nb+1, w.Cap, max(H, out), max(H*H, H*out))
	case !on:
		w.f32 = nil
	}
}

// HoldFloat32 rounds the weights of the float32 layers of w (see
// SetFloat32), and their transposes for the input gradients, once, and
// uses them in every forward and backward pass on w until ReleaseFloat32,
// instead of rounding them again in every pass. The results are the same
// bit for bit; p must not change while they are held. It does nothing
// when w computes in float64. The buffers are allocated on the first call.
func (m *ResNet) HoldFloat32(p []float64, w *ResNetWork) {
	s := w.f32
	if s == nil {
		return
	}
	nl := 2*len(m.blocks) + 1
	if s.shared {
		// The buffers are another workspace's (ShareFloat32): round into
		// buffers of w's own.
		s.wc, s.wtc, s.shared = nil, nil, false
	}
	if s.wc == nil {
		s.wc, s.wtc = make([][]float32, nl), make([][]float32, nl)
		for i := range nl {
			l := m.f32Layer(i)
			s.wc[i] = make([]float32, l.In*gemm.Stride32(l.Out))
			s.wtc[i] = make([]float32, l.Out*gemm.Stride32(l.In))
		}
	}
	for i := range nl {
		l := m.f32Layer(i)
		wl := p[l.Off : l.Off+l.In*l.Out]
		gemm.ToFloat32Rows(s.wc[i], gemm.Stride32(l.Out), wl, l.Out, l.In, l.Out)
		gemm.ToFloat32Rows(s.wtc[i], gemm.Stride32(l.In), transpose(w.wt, wl, l.In, l.Out), l.In, l.Out, l.In)
	}
	s.held = true
}

// ShareFloat32 makes w use the float32 weights that src holds (see
// HoldFloat32; src and w must be workspaces of the same network) until
// ReleaseFloat32 on w, instead of rounding them once more: workspaces
// evaluating different rows with the same parameters round them once
// between them. The results are the same bit for bit as with HoldFloat32
// on w. src must keep holding them, and p must not change, while w uses
// them; w only reads them, so workspaces sharing them can run
// concurrently. It does nothing when w computes in float64 or src holds
// nothing (w then rounds the weights in every pass).
func (w *ResNetWork) ShareFloat32(src *ResNetWork) {
	s, t := w.f32, src.f32
	if s == nil || t == nil || !t.held {
		return
	}
	s.wc, s.wtc, s.shared, s.held = t.wc, t.wtc, true, true
}

// f32Layer returns the float32 layer of index i: block j's first and
// second layers at 2j and 2j+1, the output layer last.
func (m *ResNet) f32Layer(i int) Linear {
	switch {
	case i == 2*len(m.blocks):
		return m.last
	case i%2 == 0:
		return m.blocks[i/2].l1
	}
	return m.blocks[i/2].l2
}

// ReleaseFloat32 ends HoldFloat32 or ShareFloat32: later passes round the
// weights again.
func (w *ResNetWork) ReleaseFloat32() {
	if w.f32 != nil {
		w.f32.held = false
	}
}

// NewWork allocates a workspace for batches of up to maxRows rows.
func (m *ResNet) NewWork(maxRows int) *ResNetWork {
	if maxRows < 1 {
		maxRows = 1
	}
	H := m.Hidden
	w := &ResNetWork{Cap: maxRows, hidden: H, out: m.Out}
	w.x = make([]float64, maxRows*m.In)
	w.c = make([]float64, maxRows*m.Ctx)
	w.h = make([][]float64, m.Blocks+1)
	for j := range w.h {
		w.h[j] = make([]float64, maxRows*H)
	}
	w.a1 = make([][]float64, m.Blocks)
	w.a2 = make([][]float64, m.Blocks)
	w.t2 = make([][]float64, m.Blocks)
	w.s = make([][]float64, m.Blocks)
	for j := 0; j < m.Blocks; j++ {
		w.a1[j] = make([]float64, maxRows*H)
		w.a2[j] = make([]float64, maxRows*H)
		if m.Gate {
			w.t2[j] = make([]float64, maxRows*H)
			w.s[j] = make([]float64, maxRows*H)
		}
	}
	w.gh = make([]float64, maxRows*H)
	w.gt = make([]float64, maxRows*H)
	w.ga = make([]float64, maxRows*H)
	w.ghg = make([]float64, maxRows*H)
	w.wt = make([]float64, max(m.In*H, H*H, H*m.Out, m.Ctx*H))
	return w
}

// Forward evaluates m on the n rows of x (n×In) and c (n×Ctx; ignored when
// Ctx is 0) and writes out (n×Out), keeping in w what Backward needs.
// n must not exceed w.Cap.
func (m *ResNet) Forward(p []float64, w *ResNetWork, x, c []float64, n int, out []float64) {
	_ = p[m.last.Off+m.last.NumParams()-1] // panics on a short parameter vector
	m.ForwardShared(p, w, x, c, n, 1, out)
}

// ForwardShared is Forward for batches whose rows come in consecutive
// groups of group rows sharing one context: c holds ⌈n/group⌉ rows, and
// row r uses context row r/group. The context's contribution to the first
// layer and to every gate is computed once per context row. With group 1
// it is Forward.
func (m *ResNet) ForwardShared(p []float64, w *ResNetWork, x, c []float64, n, group int, out []float64) {
	_ = p[m.last.Off+m.last.NumParams()-1] // panics on a short parameter vector
	if n > w.Cap {
		panic("nn: batch larger than workspace capacity")
	}
	if group < 1 {
		panic("nn: context group size must be >= 1")
	}
	ng := (n + group - 1) / group
	w.n, w.group, w.ng = n, group, ng
	in, ctx, H := m.In, m.Ctx, m.Hidden
	copy(w.x[:n*in], x[:n*in])
	copy(w.c[:ng*ctx], c[:ng*ctx])
	// First layer: h₀ = x·W_x + (c·W_c + b₀), the bracket once per context row.
	W0 := p[m.first.Off : m.first.Off+(in+ctx)*H]
	b0 := p[m.first.Off+(in+ctx)*H : m.first.Off+(in+ctx)*H+H]
	h0 := w.h[0]
	cp := h0 // the context's part, per context row
	if group > 1 {
		cp = w.ghg
	}
	gemm.Mul(ng, H, ctx, w.c, ctx, 1, W0[in*H:], H, b0, cp, H)
	switch {
	case in == 1:
		// One input coordinate (a coupling layer of a two-dimensional
		// flow): the rank-one x·W_x added to each row's context part in one
		// pass, bit for bit the one-step product below.
		vec.AddOuterRows(h0, cp, w.x[:n], W0[:H], group)
	default:
		if group > 1 {
			for r := 0; r < n; r++ {
				g := r / group
				copy(h0[r*H:r*H+H], cp[g*H:g*H+H])
			}
		}
		gemm.MulAdd(n, H, in, w.x, in, 1, W0, H, h0, H)
	}
	nh := n * H
	w.pass = w.f32
	s32 := w.pass
	for j, b := range m.blocks {
		hj := w.h[j][:nh]
		t1 := w.a2[j][:nh]
		if s32 != nil {
			// ReLU(h_j) and ReLU(t1) go straight into the float32 copies of
			// the block's layer inputs; t1 keeps its values before the ReLU,
			// of which backward needs only the signs.
			b.l1.forward32(s32, 2*j, p, hj, t1, n, true)
		} else {
			a1 := w.a1[j][:nh]
			ReLU(a1, hj)
			b.l1.forward(nil, 0, p, a1, t1, n)
			ReLU(t1, t1)
		}
		l2 := func(y []float64) {
			if s32 != nil {
				b.l2.forward32(s32, 2*j+1, p, t1, y, n, true)
				return
			}
			b.l2.forward(nil, 0, p, t1, y, n)
		}
		next := w.h[j+1][:nh]
		if m.Gate {
			t2 := w.t2[j][:nh]
			l2(t2)
			s := w.s[j][:ng*H]
			b.lc.Forward(p, w.c, s, ng)
			if group == 1 {
				vec.GateForward(s, hj, t2, next)
				continue
			}
			vec.Sigmoids(s)
			for g0 := 0; g0 < ng; g0++ {
				lo, hi := g0*group*H, min((g0+1)*group, n)*H
				vec.MulAddRows(next[lo:hi], hj[lo:hi], t2[lo:hi], s[g0*H:g0*H+H], hi/H-g0*group)
			}
		} else {
			l2(next)
			for i := range next {
				next[i] += hj[i]
			}
		}
	}
	m.last.forward(s32, 2*m.Blocks, p, w.h[m.Blocks], out, n)
}

// groupSum writes the sums of the rows of a (n×H) over each context group
// into dst (ng×H).
func (w *ResNetWork) groupSum(dst, a []float64, H int) {
	clear(dst[:w.ng*H])
	for r := 0; r < w.n; r++ {
		vec.Add(dst[(r/w.group)*H:(r/w.group)*H+H], a[r*H:r*H+H])
	}
}

// Backward accumulates into g the parameter gradients of Σ dout ⊙ out for
// the batch last passed to Forward (or ForwardShared) on w, and writes the
// gradient with respect to x (n×In) into dx unless dx is nil. Gradients
// with respect to the context are not computed (see BackwardContext).
func (m *ResNet) Backward(p, g []float64, w *ResNetWork, dout, dx []float64) {
	_ = p[m.last.Off+m.last.NumParams()-1] // panics on a short parameter vector
	m.backward(p, g, w, dout, dx, nil, false)
}

// BackwardContext is Backward that also adds (+=) into dc the gradient of
// Σ dout ⊙ out with respect to the context rows of the last forward pass
// (⌈n/group⌉×Ctx: the rows of a group share one context row, whose
// gradient sums over the group). Unlike the input gradient it accumulates,
// because one context usually feeds several networks.
func (m *ResNet) BackwardContext(p, g []float64, w *ResNetWork, dout, dx, dc []float64) {
	_ = p[m.last.Off+m.last.NumParams()-1] // panics on a short parameter vector
	m.backward(p, g, w, dout, dx, dc, false)
}

// BackwardStore is BackwardContext (dc may be nil) that overwrites m's
// parameter gradients in g instead of adding to them: the NumParams
// entries of g from m's offset receive exactly what clearing them and
// calling BackwardContext would leave, bit for bit, and the rest of g is
// untouched. It saves the pass that clears a gradient before its first
// accumulation.
func (m *ResNet) BackwardStore(p, g []float64, w *ResNetWork, dout, dx, dc []float64) {
	_ = p[m.last.Off+m.last.NumParams()-1] // panics on a short parameter vector
	m.backward(p, g, w, dout, dx, dc, true)
}

// addMulT adds dy·Wᵀ (n×r) into dx for the r×h row-major matrix W and
// the n×h matrix dy, with wt (at least h·r values) as scratch for Wᵀ.
func addMulT(W []float64, r, h int, dy, dx []float64, n int, wt []float64) {
	if r == 0 || n == 0 {
		return
	}
	wt = wt[:h*r]
	for i := 0; i < r; i++ {
		for o, v := range W[i*h : i*h+h] {
			wt[o*r+i] = v
		}
	}
	gemm.MulAdd(n, r, h, dy, h, 1, wt, r, dx, r)
}

// backward is Backward that also adds the context gradient into dc
// unless dc is nil, and stores the parameter gradients instead of adding
// them when store is set.
func (m *ResNet) backward(p, g []float64, w *ResNetWork, dout, dx, dc []float64, store bool) {
	n, H, ng, group := w.n, m.Hidden, w.ng, w.group
	in, ctx := m.In, m.Ctx
	nh := n * H
	gh := w.gh[:nh]
	s32 := w.pass
	m.last.backward(s32, 2*m.Blocks, p, g, w.h[m.Blocks], dout, gh, n, H, w.wt, store)
	gt, ga := w.gt[:nh], w.ga[:nh]
	for j := m.Blocks - 1; j >= 0; j-- {
		b := m.blocks[j]
		// gh is the gradient wrt h_{j+1} = h_j + gate ⊙ t2.
		if m.Gate {
			t2, s := w.t2[j][:nh], w.s[j][:ng*H]
			// gradient wrt gate pre-activation into ga, wrt t2 into gt.
			if group == 1 {
				vec.GateBackward(gh, s, t2, gt, ga)
				b.lc.backward(nil, 0, p, g, w.c, ga, nil, n, 0, nil, store)
				if dc != nil {
					addMulT(p[b.lc.Off:b.lc.Off+ctx*H], ctx, H, ga, dc, n, w.wt)
				}
			} else {
				gs := w.ghg[:ng*H]
				clear(gs)
				for g0 := 0; g0 < ng; g0++ {
					lo, hi := g0*group*H, min((g0+1)*group, n)*H
					if s32 != nil {
						// The gradient wrt t2 goes straight into the float32
						// copy of l2's output gradient.
						ld := gemm.Stride32(H)
						vec.GateAccumulateRows32(s32.dy[g0*group*ld:], ld, gs[g0*H:g0*H+H], gh[lo:hi], s[g0*H:g0*H+H], t2[lo:hi], hi/H-g0*group)
						continue
					}
					vec.GateAccumulateRows(gt[lo:hi], gs[g0*H:g0*H+H], gh[lo:hi], s[g0*H:g0*H+H], t2[lo:hi], hi/H-g0*group)
				}
				for i, v := range s {
					gs[i] *= v * (1 - v)
				}
				b.lc.backward(nil, 0, p, g, w.c, gs, nil, ng, 0, nil, store)
				if dc != nil {
					addMulT(p[b.lc.Off:b.lc.Off+ctx*H], ctx, H, gs, dc, ng, w.wt)
				}
			}
			if s32 != nil && group > 1 {
				b.l2.backward32Of(s32, 2*j+1, p, g, nil, nil, ga, n, H, w.wt, store)
			} else {
				b.l2.backward(s32, 2*j+1, p, g, w.a2[j], gt, ga, n, H, w.wt, store)
			}
		} else {
			b.l2.backward(s32, 2*j+1, p, g, w.a2[j], gh, ga, n, H, w.wt, store)
		}
		// ga = gradient wrt ReLU(t1); mask by t1 > 0 (w.a2 holds ReLU(t1),
		// or t1 with float32 products: the same signs), with float32
		// products while ga is rounded.
		if s32 != nil {
			b.l1.backward32Of(s32, 2*j, p, g, ga, w.a2[j][:nh], gt, n, H, w.wt, store)
		} else {
			ReLUBackward(ga, ga, w.a2[j][:nh])
			b.l1.backward(nil, 0, p, g, w.a1[j], ga, gt, n, H, w.wt, store)
		}
		// gt = gradient wrt a1 = ReLU(h_j).
		hj := w.h[j][:nh]
		vec.AddPos(gh, gt, hj)
	}
	// First layer: W_x from x, W_c and b₀ from the context rows with the
	// gradient summed over each group.
	off := m.first.Off
	gradMul(store, in, H, n, w.x, 1, in, gh, H, g[off:off+in*H], H)
	ghc := gh
	if group > 1 {
		ghc = w.ghg[:ng*H]
		w.groupSum(ghc, gh, H)
	}
	gradMul(store, ctx, H, ng, w.c, 1, ctx, ghc, H, g[off+in*H:off+(in+ctx)*H], H)
	gradMul(store, 1, H, ng, one, 0, 0, ghc, H, g[off+(in+ctx)*H:off+(in+ctx)*H+H], H)
	if dc != nil {
		addMulT(p[off+in*H:off+(in+ctx)*H], ctx, H, ghc, dc, ng, w.wt)
	}
	if dx == nil || in == 0 {
		return
	}
	W0 := p[off : off+in*H]
	wt := w.wt[:H*in]
	for i := 0; i < in; i++ {
		for o, v := range W0[i*H : i*H+H] {
			wt[o*in+i] = v
		}
	}
	gemm.Mul(n, in, H, gh, H, 1, wt, in, nil, dx, in)
}
