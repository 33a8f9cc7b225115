package ad

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// ErrInvalid is wrapped by every error the package returns about an
// invalid argument: the errors of an operation (mismatched or invalid
// shapes, nil tensors, tensors of another tape, leaves shorter than their
// shape), of Net.Validate, Net.Init and Conv.Validate. The message reads
// "ad: invalid argument: <argument>: <constraint>".
var ErrInvalid = errors.New("ad: invalid argument")

type opKind uint8

const (
	opLeaf opKind = iota
	opMatMul
	opAddBias
	opAdd
	opMul
	opScale
	opReLU
	opTanh
	opSigmoid
	opExp
	opLog
	opSoftplus
	opSum
	opMean
	opRowSums
	opConcat
	opSoftmax
	opConv1D
	opAvgPool
	opNet // Net.Apply, for errors only
)

var opNames = [...]string{
	opLeaf: "leaf", opMatMul: "MatMul", opAddBias: "AddBias", opAdd: "Add", opMul: "Mul",
	opScale: "Scale", opReLU: "ReLU", opTanh: "Tanh", opSigmoid: "Sigmoid", opExp: "Exp",
	opLog: "Log", opSoftplus: "Softplus", opSum: "Sum", opMean: "Mean", opRowSums: "RowSums",
	opConcat: "Concat", opSoftmax: "Softmax", opConv1D: "Conv1D",
	opAvgPool: "AvgPool1D", opNet: "Net.Apply",
}

// Tensor is a Rows×Cols row-major matrix recorded on a Tape: a leaf or the
// result of an operation. It is valid until the tape is reset.
type Tensor struct {
	rows, cols int
	val        []float64
	grad       []float64 // gradient: the caller's buffer for a variable, arena memory otherwise
	op         opKind
	needs      bool // the gradient is propagated through this tensor
	bad        bool // the empty tensor returned after an error
	a, b, c    *Tensor
	scale      float64
	conv       Conv
	aux        []float64 // Conv1D: the unrolled input windows
	tape       *Tape
	id         int
}

// Shape returns the number of rows and columns of x (0, 0 after an error).
func (x *Tensor) Shape() (rows, cols int) { return x.rows, x.cols }

// Value returns the values of x (Rows·Cols, row-major). The slice is the
// tensor's own memory: it must not be modified, and it is reused after the
// tape is reset.
func (x *Tensor) Value() []float64 { return x.val }

// Grad returns the gradient accumulated into x by the last Backward: the
// caller's buffer for a variable, nil for a constant or for a tensor
// Backward did not reach.
func (x *Tensor) Grad() []float64 { return x.grad }

// Tape records operations on tensors for reverse-mode differentiation. The
// zero value is ready to use. See the package documentation for memory
// reuse and errors.
type Tape struct {
	nodes []*Tensor
	n     int
	mem   arena
	err   error
	empty Tensor
}

// NewTape returns an empty tape.
func NewTape() *Tape { return &Tape{} }

// Reset forgets every recorded tensor and the recorded error, keeping the
// memory for the next recording (grown, once, to what this recording
// needed).
func (t *Tape) Reset() {
	for _, x := range t.nodes[:t.n] {
		*x = Tensor{}
	}
	t.n = 0
	t.err = nil
	t.mem.reset()
}

// Len returns the number of tensors recorded since the last Reset.
func (t *Tape) Len() int { return t.n }

// Err returns the first error recorded since the last Reset, or nil.
func (t *Tape) Err() error { return t.err }

// opError is an error of an operation that wraps another error of this
// package; it matches both under errors.Is.
type opError struct {
	msg  string
	errs []error
}

func (e *opError) Error() string   { return e.msg }
func (e *opError) Unwrap() []error { return e.errs }

// fail records the first error and returns the empty tensor.
func (t *Tape) fail(op opKind, format string, a ...any) *Tensor {
	if t.err == nil {
		msg := strings.TrimPrefix(fmt.Sprintf(format, a...), ErrInvalid.Error()+": ")
		t.err = fmt.Errorf("%w: %s: %s", ErrInvalid, opNames[op], msg)
	}
	t.empty = Tensor{bad: true, tape: t, id: -1}
	return &t.empty
}

// failErr records err, an error of this package, as the first error and
// returns the empty tensor. The recorded error matches ErrInvalid and err;
// its message gives err's without repeating the package prefix.
func (t *Tape) failErr(op opKind, err error) *Tensor {
	if t.err == nil {
		p := ErrInvalid.Error() + ": "
		t.err = &opError{msg: p + opNames[op] + ": " + strings.TrimPrefix(err.Error(), p), errs: []error{ErrInvalid, err}}
	}
	t.empty = Tensor{bad: true, tape: t, id: -1}
	return &t.empty
}

// node returns a fresh tensor of the given shape and operation, its values
// from the arena (not cleared).
func (t *Tape) node(op opKind, rows, cols int, a, b, c *Tensor) *Tensor {
	if t.n == len(t.nodes) {
		t.nodes = append(t.nodes, new(Tensor))
	}
	x := t.nodes[t.n]
	*x = Tensor{rows: rows, cols: cols, op: op, a: a, b: b, c: c, tape: t, id: t.n}
	x.needs = a != nil && a.needs || b != nil && b.needs || c != nil && c.needs
	if op != opLeaf {
		x.val = t.mem.get(rows * cols)
	}
	t.n++
	return x
}

// ok checks that the operands of op are tensors of this tape, recording an
// error otherwise. Operands after an earlier error fail silently.
func (t *Tape) ok(op opKind, xs ...*Tensor) bool {
	for _, x := range xs {
		switch {
		case x == nil:
			t.fail(op, "nil tensor")
			return false
		case t.err != nil:
			return false
		case x.tape != t || x.bad || x.id >= t.n || t.nodes[x.id] != x:
			t.fail(op, "tensor not recorded on this tape since the last Reset")
			return false
		}
	}
	return t.err == nil
}

// Const records a constant leaf: the rows×cols matrix stored in v
// (row-major, at least rows·cols values). The tape reads v without copying
// it, so v must not change until the recording is no longer used.
func (t *Tape) Const(v []float64, rows, cols int) *Tensor {
	return t.leaf(v, nil, rows, cols)
}

// Var records a variable leaf: the rows×cols matrix stored in v, whose
// gradient Backward adds into grad (at least rows·cols values). With grad
// nil it is a constant. Like Const, it does not copy v.
func (t *Tape) Var(v, grad []float64, rows, cols int) *Tensor {
	return t.leaf(v, grad, rows, cols)
}

func (t *Tape) leaf(v, grad []float64, rows, cols int) *Tensor {
	if t.err != nil {
		return &t.empty
	}
	switch {
	case rows < 1 || cols < 1:
		return t.fail(opLeaf, "shape must be at least 1×1, got %d×%d", rows, cols)
	case rows > math.MaxInt/cols:
		return t.fail(opLeaf, "shape %d×%d overflows", rows, cols)
	case len(v) < rows*cols:
		return t.fail(opLeaf, "values have %d entries, need %d×%d", len(v), rows, cols)
	case grad != nil && len(grad) < rows*cols:
		return t.fail(opLeaf, "gradient buffer has %d entries, need %d×%d", len(grad), rows, cols)
	}
	x := t.node(opLeaf, rows, cols, nil, nil, nil)
	x.val = v[: rows*cols : rows*cols]
	if grad != nil {
		x.grad = grad[: rows*cols : rows*cols]
		x.needs = true
	}
	return x
}

// Backward propagates gradients from out back to every variable out
// depends on: out's gradient is seed (Rows·Cols values), or 1 when seed is
// nil and out is 1×1, and every variable's gradient buffer receives
// (+=) the gradient of Σ seed ⊙ out with respect to it. Intermediate
// gradients are available through Tensor.Grad until the next Reset. It
// returns the tape's first recorded error, if any, and records nothing.
func (t *Tape) Backward(out *Tensor, seed []float64) error {
	if t.err != nil {
		return t.err
	}
	switch {
	case out == nil:
		return fmt.Errorf("%w: out: must not be nil", ErrInvalid)
	case out.tape != t || out.bad || out.id >= t.n || t.nodes[out.id] != out:
		return fmt.Errorf("%w: out: not recorded on this tape since the last Reset", ErrInvalid)
	case seed == nil && out.rows*out.cols != 1:
		return fmt.Errorf("%w: seed: must not be nil for a %d×%d out", ErrInvalid, out.rows, out.cols)
	case seed != nil && len(seed) < out.rows*out.cols:
		return fmt.Errorf("%w: seed: has %d values, need %d×%d", ErrInvalid, len(seed), out.rows, out.cols)
	}
	if !out.needs {
		return nil
	}
	nodes := t.nodes[:out.id+1]
	for _, x := range nodes {
		if x.needs && x.op != opLeaf {
			x.grad = t.mem.get(x.rows * x.cols)
			clear(x.grad)
		}
	}
	if seed == nil {
		out.grad[0]++
	} else {
		for i, v := range seed[:len(out.grad)] {
			out.grad[i] += v
		}
	}
	for i := len(nodes) - 1; i >= 0; i-- {
		if x := nodes[i]; x.needs && x.op != opLeaf {
			t.backward(x)
		}
	}
	return nil
}

// arena hands out float64 slices from one buffer; what does not fit is
// allocated separately, and reset grows the buffer to the total requested
// since the previous reset.
type arena struct {
	buf  []float64
	off  int
	want int
}

func (a *arena) get(n int) []float64 {
	a.want += n
	if a.off+n <= len(a.buf) {
		s := a.buf[a.off : a.off+n : a.off+n]
		a.off += n
		return s
	}
	return make([]float64, n)
}

func (a *arena) reset() {
	if a.want > len(a.buf) {
		a.buf = make([]float64, a.want+a.want/4)
	}
	a.off, a.want = 0, 0
}
