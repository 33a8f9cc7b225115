package ad

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// ConvLayer is one convolution of a Net: Filters output channels, windows
// of Kernel steps moved by Stride (0 means 1), Pad zeros at both ends of
// the series. A ReLU follows it, then, when Pool ≥ 2, an average over
// non-overlapping windows of Pool steps (AvgPool1D); Pool equal to the
// convolution's output length averages over the whole series (global
// average pooling).
type ConvLayer struct {
	Filters, Kernel, Stride, Pad int
	Pool                         int // averaging window after the ReLU; 0 or 1 for none
}

// Net is a feed-forward network over a flat parameter vector: the
// convolutions Conv (each followed by a ReLU and optional average pooling)
// applied to an input of In
// values read as a time series of In/Channels steps with Channels values
// each (time-major), then fully connected layers of the Hidden widths (each
// followed by a ReLU) and a linear output layer of Out values. Without
// convolutions it is a multilayer perceptron on In values. The zero value
// is not valid: In and Out must be set (Validate lists every constraint);
// Channels, Conv and Hidden may stay zero. For example, a perceptron with
// two hidden layers is Net{In: 12, Hidden: []int{64, 64}, Out: 8}, and a
// convolutional network on series of 100 steps of 2 channels is
// Net{In: 200, Channels: 2, Conv: []ConvLayer{{Filters: 8, Kernel: 5}},
// Out: 8}.
//
// The parameters, in order: for every convolution its filters
// ((Kernel·channels in)×Filters, row-major) and biases (Filters), then for
// every dense layer its weights (in×out, row-major) and biases (out).
type Net struct {
	In       int         // input width, ≥ 1; a multiple of Channels
	Channels int         // channels of the input series; 0 means 1 (used with Conv only)
	Conv     []ConvLayer // convolutions, possibly none
	Hidden   []int       // widths of the hidden dense layers, possibly none
	Out      int         // output width, ≥ 1
}

// Size limits of a Net, refusing networks that cannot be allocated.
const (
	maxWidth  = 1 << 16
	maxLayers = 64
	maxParams = 1 << 27
)

// Validate checks n: In, Out and every width in [1, 65536], at most 64
// convolutions and 64 hidden layers, In a multiple of Channels, every
// convolution a valid Conv with at least one output step, and at most 2²⁷
// parameters. Errors wrap ErrInvalid and name the field.
func (n Net) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: Net."+format, append([]any{ErrInvalid}, a...)...)
	}
	switch {
	case n.In < 1 || n.In > maxWidth:
		return bad("In: must be in [1, %d], got %d", maxWidth, n.In)
	case n.Out < 1 || n.Out > maxWidth:
		return bad("Out: must be in [1, %d], got %d", maxWidth, n.Out)
	case n.Channels < 0 || n.Channels > maxWidth:
		return bad("Channels: must be in [0, %d], got %d", maxWidth, n.Channels)
	case len(n.Conv) > maxLayers:
		return bad("Conv: has %d layers, at most %d", len(n.Conv), maxLayers)
	case len(n.Hidden) > maxLayers:
		return bad("Hidden: has %d layers, at most %d", len(n.Hidden), maxLayers)
	case n.In%n.channels() != 0:
		return bad("In: %d must be a multiple of Channels = %d", n.In, n.channels())
	}
	for i, h := range n.Hidden {
		if h < 1 || h > maxWidth {
			return bad("Hidden[%d]: must be in [1, %d], got %d", i, maxWidth, h)
		}
	}
	var err error
	n.walk(func(i int, c Conv, _ int) {
		if err != nil {
			return
		}
		l := n.Conv[i]
		if l.Filters > maxWidth || l.Kernel > maxWidth || l.Stride > maxWidth || l.Pad > maxWidth || l.Pool > maxWidth {
			err = bad("Conv[%d]: sizes must be at most %d, got %+v", i, maxWidth, l)
		} else if e := c.Validate(); e != nil {
			err = bad("Conv[%d]: %s", i, strings.TrimPrefix(e.Error(), ErrInvalid.Error()+": "))
		} else if c.OutLength()*c.Filters > maxWidth {
			err = bad("Conv[%d]: has %d outputs, at most %d", i, c.OutLength()*c.Filters, maxWidth)
		} else if l.Pool < 0 || l.Pool > c.OutLength() {
			err = bad("Conv[%d].Pool: must be in [0, %d] (the output length), got %d", i, c.OutLength(), l.Pool)
		}
	})
	if err != nil {
		return err
	}
	if p := n.numParams(); p > maxParams {
		return fmt.Errorf("%w: Net: has %d parameters, at most %d", ErrInvalid, p, maxParams)
	}
	return nil
}

func (n Net) channels() int { return max(n.Channels, 1) }

// walk calls fn with the geometry and the pooling window (1 for none) of
// every convolution in order; it stops at the first layer that is invalid
// or overflows.
func (n Net) walk(fn func(i int, c Conv, pool int)) {
	L, C := n.In/n.channels(), n.channels()
	for i, l := range n.Conv {
		c := Conv{Length: L, Channels: C, Filters: l.Filters, Kernel: l.Kernel, Stride: l.Stride, Pad: l.Pad}
		pool := max(l.Pool, 1)
		fn(i, c, pool)
		if c.Validate() != nil || l.Filters > maxWidth || l.Kernel > maxWidth || l.Stride > maxWidth || l.Pool > c.OutLength() {
			return
		}
		L, C = c.OutLength()/pool, l.Filters
	}
}

// dense returns the width of dense layer i: Hidden[i], or Out for the last.
func (n Net) dense(i int) int {
	if i < len(n.Hidden) {
		return n.Hidden[i]
	}
	return n.Out
}

// flatWidth returns the width of the convolutions' output (In without
// convolutions).
func (n Net) flatWidth() int {
	w := n.In
	n.walk(func(_ int, c Conv, pool int) { w = c.OutLength() / pool * c.Filters })
	return w
}

// numParams counts the parameters (in int64 against overflow).
func (n Net) numParams() int64 {
	var p int64
	n.walk(func(_ int, c Conv, _ int) { p += int64(c.Kernel*c.Channels+1) * int64(c.Filters) })
	in := int64(n.flatWidth())
	for i := 0; i <= len(n.Hidden); i++ {
		h := int64(n.dense(i))
		p += (in + 1) * h
		in = h
	}
	return p
}

// NumParams returns the number of parameters of a valid n.
func (n Net) NumParams() int { return int(n.numParams()) }

// Init initialises the parameters of a valid n in p (NumParams values)
// from r: every weight and bias uniform on [−1/√fan-in, 1/√fan-in], as
// PyTorch initialises its linear and convolution layers.
func (n Net) Init(p []float64, r *rand.Rand) error {
	if err := n.Validate(); err != nil {
		return err
	}
	if len(p) != n.NumParams() {
		return fmt.Errorf("%w: p: has %d values, need %d", ErrInvalid, len(p), n.NumParams())
	}
	if r == nil {
		return fmt.Errorf("%w: r: must not be nil", ErrInvalid)
	}
	off := 0
	fill := func(fanIn, size int) {
		a := 1 / math.Sqrt(float64(fanIn))
		for i := range p[off : off+size] {
			p[off+i] = a * (2*r.Float64() - 1)
		}
		off += size
	}
	n.walk(func(_ int, c Conv, _ int) { fill(c.Kernel*c.Channels, (c.Kernel*c.Channels+1)*c.Filters) })
	in := n.flatWidth()
	for i := 0; i <= len(n.Hidden); i++ {
		h := n.dense(i)
		fill(in, (in+1)*h)
		in = h
	}
	return nil
}

// Apply records the network on t for the rows of x (rows×In) with the
// parameters p (NumParams values) and returns the output (rows×Out). The
// gradients of the parameters are accumulated into g by t.Backward; with
// g nil the parameters are constants. p and g are used without copying.
// Shape errors are recorded on the tape (see Tape.Err).
func (n Net) Apply(t *Tape, p, g []float64, x *Tensor) *Tensor {
	if err := n.Validate(); err != nil {
		return t.failErr(opNet, err)
	}
	if len(p) != n.NumParams() || g != nil && len(g) != len(p) {
		return t.fail(opNet, "%d parameters and %d gradients, need %d", len(p), len(g), n.NumParams())
	}
	if !t.ok(opNet, x) {
		return &t.empty
	}
	if x.cols != n.In {
		return t.fail(opNet, "input is %d×%d, need %d columns", x.rows, x.cols, n.In)
	}
	off := 0
	param := func(rows, cols int) *Tensor {
		var gs []float64
		if g != nil {
			gs = g[off : off+rows*cols]
		}
		v := t.Var(p[off:off+rows*cols], gs, rows, cols)
		off += rows * cols
		return v
	}
	h := x
	n.walk(func(_ int, c Conv, pool int) {
		w := param(c.Kernel*c.Channels, c.Filters)
		b := param(1, c.Filters)
		h = t.ReLU(t.Conv1D(h, w, b, c))
		if pool > 1 {
			h = t.AvgPool1D(h, c.OutLength(), c.Filters, pool)
		}
	})
	in := n.flatWidth()
	for i := 0; i <= len(n.Hidden); i++ {
		out := n.dense(i)
		w := param(in, out)
		b := param(1, out)
		h = t.AddBias(t.MatMul(h, w), b)
		if i < len(n.Hidden) {
			h = t.ReLU(h)
		}
		in = out
	}
	return h
}
