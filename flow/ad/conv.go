package ad

import (
	"fmt"

	"github.com/privinfer/privinfer/flow/internal/gemm"
)

// Conv is the geometry of a one-dimensional convolution over rows that hold
// a time series of Length steps with Channels values each, time-major
// (entry t·Channels + c). Output step t sees the input steps
// t·Stride − Pad, …, t·Stride − Pad + Kernel − 1, steps outside the series
// being zeros.
type Conv struct {
	Length   int // time steps of the input, ≥ 1
	Channels int // input channels, ≥ 1
	Filters  int // output channels, ≥ 1
	Kernel   int // window length, ≥ 1
	Stride   int // step between windows; 0 means 1
	Pad      int // zeros added at both ends, in [0, Kernel)
}

func (c Conv) stride() int { return max(c.Stride, 1) }

// OutLength returns the number of output steps,
// ⌊(Length + 2·Pad − Kernel)/Stride⌋ + 1.
func (c Conv) OutLength() int {
	return (c.Length+2*c.Pad-c.Kernel)/c.stride() + 1
}

// maxConv bounds every size of a Conv, so that no product of sizes
// overflows.
const maxConv = 1 << 24

// Validate reports whether c is a valid geometry with at least one output
// step; every size must be at most 2²⁴. Errors wrap ErrInvalid.
func (c Conv) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"Length", c.Length}, {"Channels", c.Channels}, {"Filters", c.Filters}, {"Kernel", c.Kernel}, {"Stride", c.Stride}, {"Pad", c.Pad}} {
		if f.v > maxConv {
			return fmt.Errorf("%w: Conv.%s: must be at most %d, got %d", ErrInvalid, f.name, maxConv, f.v)
		}
	}
	switch {
	case c.Length < 1:
		return fmt.Errorf("%w: Conv.Length: must be >= 1, got %d", ErrInvalid, c.Length)
	case c.Channels < 1:
		return fmt.Errorf("%w: Conv.Channels: must be >= 1, got %d", ErrInvalid, c.Channels)
	case c.Filters < 1:
		return fmt.Errorf("%w: Conv.Filters: must be >= 1, got %d", ErrInvalid, c.Filters)
	case c.Kernel < 1:
		return fmt.Errorf("%w: Conv.Kernel: must be >= 1, got %d", ErrInvalid, c.Kernel)
	case c.Stride < 0:
		return fmt.Errorf("%w: Conv.Stride: must be >= 0, got %d", ErrInvalid, c.Stride)
	case c.Pad < 0 || c.Pad >= c.Kernel:
		return fmt.Errorf("%w: Conv.Pad: must be in [0, Kernel = %d), got %d", ErrInvalid, c.Kernel, c.Pad)
	case c.Length+2*c.Pad < c.Kernel:
		return fmt.Errorf("%w: Conv.Kernel: %d is longer than the padded series (%d steps)", ErrInvalid, c.Kernel, c.Length+2*c.Pad)
	}
	return nil
}

// Conv1D records the convolution of the rows of x (n×(Length·Channels))
// with the filters w ((Kernel·Channels)×Filters) plus the bias b (1×Filters,
// or nil for none), with the geometry c. The result is
// n×(OutLength·Filters), time-major:
//
//	y[t, f] = b[f] + Σ_{k<Kernel, c<Channels} x[t·Stride − Pad + k, c] · w[k·Channels + c, f].
func (t *Tape) Conv1D(x, w, b *Tensor, c Conv) *Tensor {
	if !t.ok(opConv1D, x, w) || b != nil && !t.ok(opConv1D, b) {
		return &t.empty
	}
	if err := c.Validate(); err != nil {
		return t.fail(opConv1D, "%v", err)
	}
	C, F, K := c.Channels, c.Filters, c.Kernel
	switch {
	case x.cols != c.Length*C:
		return t.fail(opConv1D, "x is %d×%d, need %d columns (Length %d × Channels %d)", x.rows, x.cols, c.Length*C, c.Length, C)
	case w.rows != K*C || w.cols != F:
		return t.fail(opConv1D, "filters are %d×%d, need %d×%d (Kernel·Channels × Filters)", w.rows, w.cols, K*C, F)
	case b != nil && (b.rows != 1 || b.cols != F):
		return t.fail(opConv1D, "bias is %d×%d, need 1×%d", b.rows, b.cols, F)
	}
	n, lo, kc := x.rows, c.OutLength(), K*C
	y := t.node(opConv1D, n, lo*F, x, w, b)
	y.conv = c
	// Unroll the windows: row (s, t) of col holds the Kernel·Channels
	// inputs of output step t of sample s.
	col := t.mem.get(n * lo * kc)
	y.aux = col
	st, L := c.stride(), c.Length
	for s := 0; s < n; s++ {
		xs := x.val[s*L*C : (s+1)*L*C]
		for o := 0; o < lo; o++ {
			row := col[(s*lo+o)*kc : (s*lo+o+1)*kc]
			for k := 0; k < K; k++ {
				i := o*st - c.Pad + k
				dst := row[k*C : k*C+C]
				if i < 0 || i >= L {
					clear(dst)
				} else {
					copy(dst, xs[i*C:i*C+C])
				}
			}
		}
	}
	var bias []float64
	if b != nil {
		bias = b.val
	}
	gemm.Mul(n*lo, F, kc, col, kc, 1, w.val, F, bias, y.val, F)
	return y
}

// convBackward adds the gradients of a Conv1D into its operands.
func (t *Tape) convBackward(y *Tensor) {
	x, w, b, c := y.a, y.b, y.c, y.conv
	C, F, K := c.Channels, c.Filters, c.Kernel
	n, lo, kc := x.rows, c.OutLength(), K*C
	dy, col := y.grad, y.aux
	if b != nil && b.needs {
		for r := 0; r < n*lo; r++ {
			addTo(b.grad, dy[r*F:r*F+F])
		}
	}
	if w.needs { // dw += colᵀ·dy
		gemm.MulAdd(kc, F, n*lo, col, 1, kc, dy, F, w.grad, F)
	}
	if !x.needs {
		return
	}
	// dcol = dy·wᵀ, then every window's gradient is added back to the
	// input steps it covered.
	wt := t.mem.get(F * kc)
	transpose(wt, w.val, kc, F)
	dcol := t.mem.get(n * lo * kc)
	gemm.Mul(n*lo, kc, F, dy, F, 1, wt, kc, nil, dcol, kc)
	st, L := c.stride(), c.Length
	for s := 0; s < n; s++ {
		gx := x.grad[s*L*C : (s+1)*L*C]
		for o := 0; o < lo; o++ {
			row := dcol[(s*lo+o)*kc : (s*lo+o+1)*kc]
			for k := 0; k < K; k++ {
				if i := o*st - c.Pad + k; i >= 0 && i < L {
					addTo(gx[i*C:i*C+C], row[k*C:k*C+C])
				}
			}
		}
	}
}

// AvgPool1D records the averages of non-overlapping windows of window
// steps of the rows of x, time series of length steps with channels values
// each (n×(length·channels), time-major): the result is
// n×(⌊length/window⌋·channels) with
//
//	y[w, c] = (1/window) Σ_{k<window} x[w·window + k, c];
//
// steps after the last whole window are dropped. window = length averages
// over the whole series.
func (t *Tape) AvgPool1D(x *Tensor, length, channels, window int) *Tensor {
	if !t.ok(opAvgPool, x) {
		return &t.empty
	}
	switch {
	case length > maxConv || channels > maxConv:
		return t.fail(opAvgPool, "length and channels must be at most %d, got %d and %d", maxConv, length, channels)
	case length < 1 || channels < 1 || window < 1 || window > length:
		return t.fail(opAvgPool, "need length, channels >= 1 and window in [1, length], got length %d, channels %d, window %d", length, channels, window)
	case x.cols != length*channels:
		return t.fail(opAvgPool, "x is %d×%d, need %d columns (length %d × channels %d)", x.rows, x.cols, length*channels, length, channels)
	}
	nw := length / window
	y := t.node(opAvgPool, x.rows, nw*channels, x, nil, nil)
	y.conv = Conv{Length: length, Channels: channels, Kernel: window}
	clear(y.val)
	s := 1 / float64(window)
	for r := 0; r < x.rows; r++ {
		xr := x.val[r*x.cols : (r+1)*x.cols]
		yr := y.val[r*y.cols : (r+1)*y.cols]
		for w := 0; w < nw; w++ {
			dst := yr[w*channels : (w+1)*channels]
			for k := 0; k < window; k++ {
				addTo(dst, xr[(w*window+k)*channels:(w*window+k+1)*channels])
			}
			for c := range dst {
				dst[c] *= s
			}
		}
	}
	return y
}

// poolBackward adds the gradient of an AvgPool1D into its input.
func poolBackward(y *Tensor) {
	x, C, win := y.a, y.conv.Channels, y.conv.Kernel
	s := 1 / float64(win)
	nw := y.conv.Length / win
	for r := 0; r < x.rows; r++ {
		gx := x.grad[r*x.cols : (r+1)*x.cols]
		gy := y.grad[r*y.cols : (r+1)*y.cols]
		for w := 0; w < nw; w++ {
			src := gy[w*C : (w+1)*C]
			for k := 0; k < win; k++ {
				dst := gx[(w*win+k)*C : (w*win+k+1)*C]
				for c, g := range src {
					dst[c] += s * g
				}
			}
		}
	}
}
