package flow

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/flow/internal/rqs32"
	"github.com/privinfer/privinfer/flow/nn"
	"github.com/privinfer/privinfer/flow/spline"
	"github.com/privinfer/privinfer/internal/argcheck"
)

// luEps is the offset added to the softplus of the LU diagonal parameters,
// keeping the diagonal of U bounded away from 0.
const luEps = 1e-3

// chunkRows is the batch capacity of the pooled workspaces used by the
// methods of Flow and of a training shard's workspace; larger batches are
// processed in chunks. A chunk's activations, kept for the backward pass,
// should stay close to the core's cache: on the paper's flow 128 rows was
// faster than 256 and as fast as 64 (measured in flow/BENCHMARKS.md,
// section "Chunk sizes").
const chunkRows = 128

// chunkRows32 is chunkRows for the shards of a trainer with float32
// products and splines (TrainConfig.Float32), whose passes are cheaper
// than float64's, so that the wait for activations evicted from the
// level-2 cache weighs more: there 64 rows was a little faster than 128
// and no slower than 32 or 96 (the same section). (The float64 steps keep
// 128 rows: a chunk's size sets the order in which the weight gradients
// are summed, so changing it would change their results.)
const chunkRows32 = 64

var log2Pi = math.Log(2 * math.Pi)

// Flow is a conditional density q(y | z): a standard normal base density
// pushed through Config.Layers spline coupling layers (see Config). The
// parameters are one flat vector (Params). Methods that only read the flow
// (LogDensity, LogDensityBatch, Transform, InverseTransform, Sample,
// LogDensityGrad) may run concurrently; Fit, SetParams and SetStandardization
// must not run concurrently with anything else.
type Flow struct {
	cfg    Config
	spl    *spline.Spline
	layers []coupling
	params []float64
	nsp    int           // spline parameters per transformed coordinate (3K−1)
	spl32  *rqs32.Spline // the splines in float32 for TrainConfig.Float32, or nil
	// scale32 multiplies each spline parameter on its way to rqs32 and
	// its gradient on the way back: rawScale for the widths and heights,
	// 1 for the derivatives.
	scale32 []float64

	meanY, stdY, meanZ, stdZ []float64
	standardized             bool
	rawScale                 float64

	maxT, maxI int
	pool       sync.Pool

	emb    *ad.Net // the context's embedding network (the flow's own copy), or nil
	embOff int     // offset of its parameters

	aff    *nn.ResNet // the ContextAffine layer's network (its output: μ then the raw log-scale), or nil
	affOff int        // offset of its parameters
}

type coupling struct {
	tIdx, iIdx []int
	net        *nn.ResNet
	luOff      int // offset of the LU parameters, −1 without LU
}

// New returns a flow with configuration cfg and parameters initialised from
// r: fan-in uniform conditioner weights, residual blocks close to the
// identity, and LU layers equal to the identity.
func New(cfg Config, r *rand.Rand) (*Flow, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, invalid("r", "must not be nil")
	}
	f, err := build(cfg)
	if err != nil {
		return nil, err
	}
	for _, l := range f.layers {
		l.net.Init(f.params, r)
		if l.luOff >= 0 {
			f.initLU(l.luOff)
		}
	}
	if f.aff != nil {
		f.aff.Init(f.params, r)
		// The output layer (the network's last H·2D + 2D parameters) starts
		// at zero: μ = 0 and σ = 0, the identity.
		end := f.affOff + f.aff.NumParams()
		clear(f.params[end-(f.cfg.Hidden+1)*2*f.cfg.Dim : end])
	}
	if f.emb != nil {
		if err := f.emb.Init(f.params[f.embOff:], r); err != nil {
			return nil, fmt.Errorf("%w: Embedding: %w", ErrInvalid, err)
		}
	}
	return f, nil
}

// build lays out a flow without initialising its parameters.
func build(cfg Config) (*Flow, error) {
	spl, err := spline.New(spline.Config{Bins: cfg.Bins, TailBound: cfg.TailBound, MinWidth: cfg.MinBinWidth, MinHeight: cfg.MinBinHeight, MinDerivative: cfg.MinDerivative})
	if err != nil {
		return nil, fmt.Errorf("%w: Config: %w", ErrInvalid, err)
	}
	D, C := cfg.Dim, cfg.ContextDim
	cfg.Embedding = cloneNet(cfg.Embedding)
	f := &Flow{cfg: cfg, spl: spl, nsp: spl.NumParams(), rawScale: 1 / math.Sqrt(float64(cfg.Hidden)), emb: cfg.Embedding}
	// The float32 training step's splines; a tail bound beyond float32's
	// comfortable range keeps them in float64.
	f.spl32, _ = rqs32.New(cfg.Bins, cfg.TailBound, cfg.MinBinWidth, cfg.MinBinHeight, cfg.MinDerivative)
	f.scale32 = make([]float64, f.nsp)
	for j := range f.scale32 {
		f.scale32[j] = 1
		if j < 2*cfg.Bins {
			f.scale32[j] = f.rawScale
		}
	}
	E := cfg.contextWidth()
	off := 0
	for l := 0; l < cfg.Layers; l++ {
		var c coupling
		for d := 0; d < D; d++ {
			if D == 1 || d%2 == l%2 {
				c.tIdx = append(c.tIdx, d)
			} else {
				c.iIdx = append(c.iIdx, d)
			}
		}
		net, err := nn.NewResNet(nn.ResNetConfig{In: len(c.iIdx), Ctx: E, Hidden: cfg.Hidden, Out: len(c.tIdx) * f.nsp, Blocks: cfg.Blocks, Gate: cfg.ContextGating, Off: off})
		if err != nil {
			return nil, fmt.Errorf("%w: Config: %w", ErrInvalid, err)
		}
		c.net = net
		off += net.NumParams()
		c.luOff = -1
		if cfg.LU {
			c.luOff = off
			off += D*D + D
		}
		f.layers = append(f.layers, c)
		f.maxT = max(f.maxT, len(c.tIdx))
		f.maxI = max(f.maxI, len(c.iIdx))
	}
	if cfg.ContextAffine {
		net, err := nn.NewResNet(nn.ResNetConfig{Ctx: E, Hidden: cfg.Hidden, Out: 2 * D, Blocks: cfg.Blocks, Gate: cfg.ContextGating, Off: off})
		if err != nil {
			return nil, fmt.Errorf("%w: Config: %w", ErrInvalid, err)
		}
		f.aff, f.affOff = net, off
		off += net.NumParams()
	}
	if f.emb != nil {
		f.embOff = off
		off += f.emb.NumParams()
	}
	f.params = make([]float64, off)
	f.meanY, f.stdY = make([]float64, D), make([]float64, D)
	f.meanZ, f.stdZ = make([]float64, C), make([]float64, C)
	for i := range f.stdY {
		f.stdY[i] = 1
	}
	for i := range f.stdZ {
		f.stdZ[i] = 1
	}
	f.pool.New = func() any { return f.newWork(chunkRows) }
	return f, nil
}

// Config returns the flow's configuration (with a copy of its embedding
// network).
func (f *Flow) Config() Config {
	if f == nil {
		return Config{}
	}
	c := f.cfg
	c.Embedding = cloneNet(c.Embedding)
	return c
}

// Dim returns the dimension of y (0 for a nil or zero-value flow).
func (f *Flow) Dim() int {
	if f == nil {
		return 0
	}
	return f.cfg.Dim
}

// ContextDim returns the dimension of the context z (0 for a nil or
// zero-value flow).
func (f *Flow) ContextDim() int {
	if f == nil {
		return 0
	}
	return f.cfg.ContextDim
}

// NumParams returns the number of trainable parameters (0 for a nil or
// zero-value flow).
func (f *Flow) NumParams() int {
	if f == nil {
		return 0
	}
	return len(f.params)
}

// Params returns the flow's parameter vector itself (not a copy); writing
// to it changes the flow (SetParams checks what it copies; writing here
// does not). Its layout is fixed by the configuration. It is nil for a
// nil or zero-value flow.
func (f *Flow) Params() []float64 {
	if f == nil {
		return nil
	}
	return f.params
}

// SetParams copies p (of length NumParams, every |p_i| ≤ MaxParam) into
// the flow; it returns an error wrapping ErrInvalid otherwise, and on a
// flow not built by New or Load.
func (f *Flow) SetParams(p []float64) error {
	if err := f.ready(); err != nil {
		return err
	}
	if len(p) != len(f.params) {
		return invalid("p", "has %d values, need %d", len(p), len(f.params))
	}
	for i, v := range p {
		if !(math.Abs(v) <= MaxParam) {
			return fmt.Errorf("%w: p[%d]: must be in [-MaxParam, MaxParam], got %v", ErrNonFinite, i, v)
		}
	}
	copy(f.params, p)
	return nil
}

// Standardization returns copies of the means and standard deviations used
// to z-score y and z (zeros and ones when disabled or not yet set).
func (f *Flow) Standardization() (meanY, stdY, meanZ, stdZ []float64) {
	if f == nil {
		return nil, nil, nil, nil
	}
	return append([]float64(nil), f.meanY...), append([]float64(nil), f.stdY...),
		append([]float64(nil), f.meanZ...), append([]float64(nil), f.stdZ...)
}

// Standardized reports whether SetStandardization has been called (Fit
// calls it on its first run).
func (f *Flow) Standardized() bool { return f != nil && f.standardized }

// SetStandardization sets the z-scoring statistics from n rows of y
// (n×Dim) and z (n×ContextDim) for the parts the configuration
// standardises; a coordinate with zero spread gets standard deviation 1.
func (f *Flow) SetStandardization(y, z []float64, n int) error {
	if err := f.checkData(y, z, n); err != nil {
		return err
	}
	if n < 2 {
		return invalid("n", "standardisation needs at least 2 rows, got %d", n)
	}
	if f.cfg.StandardizeInputs {
		meanStd(y, n, f.cfg.Dim, f.meanY, f.stdY)
	}
	if f.cfg.StandardizeContext {
		meanStd(z, n, f.cfg.ContextDim, f.meanZ, f.stdZ)
	}
	f.standardized = true
	return nil
}

func meanStd(x []float64, n, d int, mean, std []float64) {
	for j := 0; j < d; j++ {
		m := 0.0
		for i := 0; i < n; i++ {
			m += x[i*d+j]
		}
		m /= float64(n)
		v := 0.0
		for i := 0; i < n; i++ {
			e := x[i*d+j] - m
			v += e * e
		}
		s := math.Sqrt(v / float64(n-1))
		if !(s > 0) || math.IsInf(s, 0) {
			s = 1
		}
		mean[j], std[j] = m, s
	}
}

// checkData validates the shapes and finiteness of n rows of y and z.
func (f *Flow) checkData(y, z []float64, n int) error {
	return f.checkShared(y, z, n, n)
}

// checkShared validates the shapes and finiteness of n rows of y and nz
// rows of z.
func (f *Flow) checkShared(y, z []float64, n, nz int) error {
	if err := f.ready(); err != nil {
		return err
	}
	D, C := f.cfg.Dim, f.cfg.ContextDim
	if n < 0 || nz < 0 {
		return invalid("n", "must be >= 0, got %d", n)
	}
	if n > len(y)/D || len(y) < n*D {
		return invalid("y", "has %d values, need %d rows × %d", len(y), n, D)
	}
	if C > 0 && (nz > len(z)/C || len(z) < nz*C) {
		return invalid("z", "has %d values, need %d rows × %d", len(z), nz, C)
	}
	if err := finite("y", y[:n*D]); err != nil {
		return err
	}
	return finite("z", z[:nz*C])
}

// finite returns an error wrapping ErrNonFinite naming the first NaN or
// infinite entry of x.
func finite(name string, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d]: must be finite, got %v", ErrNonFinite, name, i, v)
		}
	}
	return nil
}

// ErrInvalid is the package's invalid-argument error: every error about
// an argument (a shape, a nil value, a flow not built by New or Load, a
// configuration, non-finite data, a corrupt file) wraps it. ErrNonFinite
// and ErrCorrupt wrap it; configuration errors (of Config.Validate,
// TrainConfig.Validate, New and Fit) read
// "flow: invalid argument: <field>: <constraint>".
var ErrInvalid = errors.New("flow: invalid argument")

// ErrNonFinite is wrapped by errors about NaN or infinite data, and by
// the errors of the batch methods when a result is not finite (the
// parameters or inputs are outside the range where the flow can be
// evaluated). It wraps ErrInvalid.
var ErrNonFinite = argcheck.Sentinel("flow: invalid argument", ErrInvalid)

// invalid returns an error wrapping ErrInvalid that reads
// "flow: invalid argument: <arg>: <constraint>".
func invalid(arg, format string, a ...any) error {
	return fmt.Errorf("%w: %s: "+format, append([]any{ErrInvalid, arg}, a...)...)
}

// nested is an error of this package wrapped in another of its errors:
// its message names the outer argument once, followed by the inner
// message without its own "flow: invalid argument: " prefix, and it
// matches both errors under errors.Is.
type nested struct {
	msg  string
	errs []error
}

func (e *nested) Error() string   { return e.msg }
func (e *nested) Unwrap() []error { return e.errs }

// rewrap returns err, an error of this package, as one about arg that also
// matches kind (ErrInvalid or a sentinel wrapping it), without repeating
// the package prefix: "flow: invalid argument: <arg>: <err's constraint>".
func rewrap(kind error, arg string, err error) error {
	p := ErrInvalid.Error() + ": "
	m := strings.TrimPrefix(strings.TrimPrefix(err.Error(), p), "flow: ")
	return &nested{msg: p + arg + ": " + m, errs: []error{kind, err}}
}

// MaxParam bounds the magnitude of every parameter SetParams and Load
// accept. Trained flows stay orders of magnitude below it (weight decay
// and the near-identity initialisation keep weights of order 1); beyond
// it the layers' products overflow and the density becomes NaN.
const MaxParam = 1e6

// ready reports whether f was built by New, Load or Clone.
func (f *Flow) ready() error {
	if f == nil {
		return invalid("f", "the flow is nil")
	}
	if f.params == nil || f.spl == nil {
		return invalid("f", "the flow was not built by New or Load (zero value)")
	}
	return nil
}

// finiteOut returns an error wrapping ErrNonFinite if some x_i is NaN or
// +Inf (−Inf is a log density that underflowed, a legitimate value) or,
// when anyInf, ±Inf.
func finiteOut(what string, x []float64, anyInf bool) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 1) || (anyInf && math.IsInf(v, -1)) {
			return fmt.Errorf("%w: %s[%d]: is %v: the flow's parameters or the inputs are outside the range where it can be evaluated", ErrNonFinite, what, i, v)
		}
	}
	return nil
}

// ---------------------------------------------------------------------
// LU-linear layers. Parameters at off: D(D−1)/2 strictly lower entries of
// L (row-major, j > k), D(D−1)/2 strictly upper entries of U (row-major,
// j < k), D raw diagonal entries (U_jj = softplus(raw) + luEps), D biases.
// The layer maps x ↦ W x + b with W = L U; log|det W| = Σ log U_jj.

func (f *Flow) initLU(off int) {
	D := f.cfg.Dim
	q := f.params[off : off+D*D+D]
	clear(q)
	c := math.Log(math.Expm1(1 - luEps)) // softplus(c) + luEps = 1
	nt := D * (D - 1) / 2
	for j := 0; j < D; j++ {
		q[2*nt+j] = c
	}
}

// luMatrices fills L (unit lower), U (upper) and W = L·U (D×D row-major)
// and returns log|det W|.
func (f *Flow) luMatrices(off int, L, U, W []float64) float64 {
	D := f.cfg.Dim
	p := f.params[off:]
	nt := D * (D - 1) / 2
	clear(L)
	clear(U)
	t := 0
	for j := 0; j < D; j++ {
		for k := 0; k < j; k++ {
			L[j*D+k] = p[t]
			t++
		}
		L[j*D+j] = 1
	}
	for j := 0; j < D; j++ {
		for k := j + 1; k < D; k++ {
			U[j*D+k] = p[t]
			t++
		}
	}
	ld := 0.0
	for j := 0; j < D; j++ {
		u := nn.Softplus(p[2*nt+j]) + luEps
		U[j*D+j] = u
		ld += math.Log(u)
	}
	for j := 0; j < D; j++ {
		for k := 0; k < D; k++ {
			s := 0.0
			for m := 0; m <= min(j, k); m++ {
				s += L[j*D+m] * U[m*D+k]
			}
			W[j*D+k] = s
		}
	}
	return ld
}

func nan() float64          { return math.NaN() }
func log(x float64) float64 { return math.Log(x) }

// Clone returns an independent copy of the flow (configuration,
// standardisation and parameters), e.g. to keep a previous round's
// estimate as a proposal while training continues.
func (f *Flow) Clone() *Flow {
	if f.ready() != nil {
		return nil
	}
	g, err := build(f.cfg)
	if err != nil {
		panic("flow: Clone of a flow with an invalid configuration: " + err.Error())
	}
	copy(g.params, f.params)
	copy(g.meanY, f.meanY)
	copy(g.stdY, f.stdY)
	copy(g.meanZ, f.meanZ)
	copy(g.stdZ, f.stdZ)
	g.standardized = f.standardized
	return g
}
