package ad

import (
	"math"

	"github.com/privinfer/privinfer/flow/internal/gemm"
)

// MatMul records the matrix product a·b of an n×k and a k×m tensor.
func (t *Tape) MatMul(a, b *Tensor) *Tensor {
	if !t.ok(opMatMul, a, b) {
		return &t.empty
	}
	if a.cols != b.rows {
		return t.fail(opMatMul, "a is %d×%d, b is %d×%d: inner dimensions differ", a.rows, a.cols, b.rows, b.cols)
	}
	n, k, m := a.rows, a.cols, b.cols
	y := t.node(opMatMul, n, m, a, b, nil)
	gemm.Mul(n, m, k, a.val, k, 1, b.val, m, nil, y.val, m)
	return y
}

// AddBias records x + b with the 1×Cols row b added to every row of x.
func (t *Tape) AddBias(x, b *Tensor) *Tensor {
	if !t.ok(opAddBias, x, b) {
		return &t.empty
	}
	if b.rows != 1 || b.cols != x.cols {
		return t.fail(opAddBias, "x is %d×%d, bias is %d×%d (need 1×%d)", x.rows, x.cols, b.rows, b.cols, x.cols)
	}
	y := t.node(opAddBias, x.rows, x.cols, x, b, nil)
	c := x.cols
	for r := 0; r < x.rows; r++ {
		yr, xr := y.val[r*c:r*c+c], x.val[r*c:r*c+c]
		for j, v := range b.val {
			yr[j] = xr[j] + v
		}
	}
	return y
}

// sameShape checks that a and b have equal shapes.
func (t *Tape) sameShape(op opKind, a, b *Tensor) bool {
	if !t.ok(op, a, b) {
		return false
	}
	if a.rows != b.rows || a.cols != b.cols {
		t.fail(op, "shapes differ: %d×%d and %d×%d", a.rows, a.cols, b.rows, b.cols)
		return false
	}
	return true
}

// Add records the elementwise sum a + b of two tensors of the same shape.
func (t *Tape) Add(a, b *Tensor) *Tensor {
	if !t.sameShape(opAdd, a, b) {
		return &t.empty
	}
	y := t.node(opAdd, a.rows, a.cols, a, b, nil)
	for i := range y.val {
		y.val[i] = a.val[i] + b.val[i]
	}
	return y
}

// Mul records the elementwise product a ⊙ b of two tensors of the same
// shape.
func (t *Tape) Mul(a, b *Tensor) *Tensor {
	if !t.sameShape(opMul, a, b) {
		return &t.empty
	}
	y := t.node(opMul, a.rows, a.cols, a, b, nil)
	for i := range y.val {
		y.val[i] = a.val[i] * b.val[i]
	}
	return y
}

// Scale records s·x.
func (t *Tape) Scale(x *Tensor, s float64) *Tensor {
	if !t.ok(opScale, x) {
		return &t.empty
	}
	y := t.node(opScale, x.rows, x.cols, x, nil, nil)
	y.scale = s
	for i, v := range x.val {
		y.val[i] = s * v
	}
	return y
}

// unary records an elementwise map.
func (t *Tape) unary(op opKind, x *Tensor) *Tensor {
	if !t.ok(op, x) {
		return &t.empty
	}
	y := t.node(op, x.rows, x.cols, x, nil, nil)
	v := y.val
	switch op {
	case opReLU:
		for i, u := range x.val {
			v[i] = max(u, 0)
		}
	case opTanh:
		for i, u := range x.val {
			v[i] = math.Tanh(u)
		}
	case opSigmoid:
		for i, u := range x.val {
			v[i] = sigmoid(u)
		}
	case opExp:
		for i, u := range x.val {
			v[i] = math.Exp(u)
		}
	case opLog:
		for i, u := range x.val {
			v[i] = math.Log(u)
		}
	case opSoftplus:
		for i, u := range x.val {
			v[i] = softplus(u)
		}
	}
	return y
}

// ReLU records max(x, 0) elementwise; its derivative at 0 is taken as 0.
func (t *Tape) ReLU(x *Tensor) *Tensor { return t.unary(opReLU, x) }

// Tanh records tanh(x) elementwise.
func (t *Tape) Tanh(x *Tensor) *Tensor { return t.unary(opTanh, x) }

// Sigmoid records 1/(1+e^(−x)) elementwise, without overflow.
func (t *Tape) Sigmoid(x *Tensor) *Tensor { return t.unary(opSigmoid, x) }

// Exp records e^x elementwise.
func (t *Tape) Exp(x *Tensor) *Tensor { return t.unary(opExp, x) }

// Log records the natural logarithm of x elementwise (NaN for negative
// entries, −Inf at 0, as math.Log).
func (t *Tape) Log(x *Tensor) *Tensor { return t.unary(opLog, x) }

// Softplus records log(1+e^x) elementwise, without overflow or loss of
// precision for large |x|.
func (t *Tape) Softplus(x *Tensor) *Tensor { return t.unary(opSoftplus, x) }

// Sum records the sum of all entries of x as a 1×1 tensor.
func (t *Tape) Sum(x *Tensor) *Tensor {
	if !t.ok(opSum, x) {
		return &t.empty
	}
	y := t.node(opSum, 1, 1, x, nil, nil)
	y.val[0] = sum(x.val)
	return y
}

// Mean records the mean of all entries of x as a 1×1 tensor.
func (t *Tape) Mean(x *Tensor) *Tensor {
	if !t.ok(opMean, x) {
		return &t.empty
	}
	y := t.node(opMean, 1, 1, x, nil, nil)
	y.val[0] = sum(x.val) / float64(len(x.val))
	return y
}

// RowSums records the sums of the rows of x as a Rows×1 tensor.
func (t *Tape) RowSums(x *Tensor) *Tensor {
	if !t.ok(opRowSums, x) {
		return &t.empty
	}
	y := t.node(opRowSums, x.rows, 1, x, nil, nil)
	c := x.cols
	for r := range y.val {
		y.val[r] = sum(x.val[r*c : r*c+c])
	}
	return y
}

// Concat records the column concatenation [a, b] of an n×p and an n×q
// tensor (n×(p+q)).
func (t *Tape) Concat(a, b *Tensor) *Tensor {
	if !t.ok(opConcat, a, b) {
		return &t.empty
	}
	if a.rows != b.rows {
		return t.fail(opConcat, "a has %d rows, b has %d", a.rows, b.rows)
	}
	p, q := a.cols, b.cols
	y := t.node(opConcat, a.rows, p+q, a, b, nil)
	for r := 0; r < a.rows; r++ {
		copy(y.val[r*(p+q):], a.val[r*p:r*p+p])
		copy(y.val[r*(p+q)+p:], b.val[r*q:r*q+q])
	}
	return y
}

// Softmax records the softmax of every row of x: y_rj = e^(x_rj) / Σ_k
// e^(x_rk), computed with the row maximum subtracted.
func (t *Tape) Softmax(x *Tensor) *Tensor {
	if !t.ok(opSoftmax, x) {
		return &t.empty
	}
	y := t.node(opSoftmax, x.rows, x.cols, x, nil, nil)
	c := x.cols
	for r := 0; r < x.rows; r++ {
		xr, yr := x.val[r*c:r*c+c], y.val[r*c:r*c+c]
		m := math.Inf(-1)
		for _, v := range xr {
			m = max(m, v)
		}
		s := 0.0
		for j, v := range xr {
			yr[j] = math.Exp(v - m)
			s += yr[j]
		}
		for j := range yr {
			yr[j] /= s
		}
	}
	return y
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

func softplus(x float64) float64 {
	switch {
	case x > 30:
		return x + math.Exp(-x)
	case x < -30:
		return math.Exp(x)
	}
	return math.Log1p(math.Exp(x))
}

// backward adds the gradient of y's operation into the gradients of its
// operands that need one.
func (t *Tape) backward(y *Tensor) {
	a, b, dy := y.a, y.b, y.grad
	switch y.op {
	case opMatMul:
		n, k, m := a.rows, a.cols, b.cols
		if a.needs { // da += dy·bᵀ
			bt := t.mem.get(m * k)
			transpose(bt, b.val, k, m)
			gemm.MulAdd(n, k, m, dy, m, 1, bt, k, a.grad, k)
		}
		if b.needs { // db += aᵀ·dy
			gemm.MulAdd(k, m, n, a.val, 1, k, dy, m, b.grad, m)
		}
	case opAddBias:
		if a.needs {
			addTo(a.grad, dy)
		}
		if b.needs {
			c := a.cols
			for r := 0; r < a.rows; r++ {
				addTo(b.grad, dy[r*c:r*c+c])
			}
		}
	case opAdd:
		if a.needs {
			addTo(a.grad, dy)
		}
		if b.needs {
			addTo(b.grad, dy)
		}
	case opMul:
		if a.needs {
			for i, g := range dy {
				a.grad[i] += g * b.val[i]
			}
		}
		if b.needs {
			for i, g := range dy {
				b.grad[i] += g * a.val[i]
			}
		}
	case opScale:
		for i, g := range dy {
			a.grad[i] += y.scale * g
		}
	case opReLU:
		for i, g := range dy {
			if a.val[i] > 0 {
				a.grad[i] += g
			}
		}
	case opTanh:
		for i, g := range dy {
			a.grad[i] += g * (1 - y.val[i]*y.val[i])
		}
	case opSigmoid:
		for i, g := range dy {
			a.grad[i] += g * y.val[i] * (1 - y.val[i])
		}
	case opExp:
		for i, g := range dy {
			a.grad[i] += g * y.val[i]
		}
	case opLog:
		for i, g := range dy {
			a.grad[i] += g / a.val[i]
		}
	case opSoftplus:
		for i, g := range dy {
			a.grad[i] += g * sigmoid(a.val[i])
		}
	case opSum, opMean:
		g := dy[0]
		if y.op == opMean {
			g /= float64(len(a.val))
		}
		for i := range a.grad {
			a.grad[i] += g
		}
	case opRowSums:
		c := a.cols
		for r, g := range dy {
			for j := range c {
				a.grad[r*c+j] += g
			}
		}
	case opConcat:
		p, q := a.cols, b.cols
		for r := 0; r < a.rows; r++ {
			row := dy[r*(p+q) : (r+1)*(p+q)]
			if a.needs {
				addTo(a.grad[r*p:r*p+p], row[:p])
			}
			if b.needs {
				addTo(b.grad[r*q:r*q+q], row[p:])
			}
		}
	case opSoftmax:
		c := a.cols
		for r := 0; r < a.rows; r++ {
			yr, gr := y.val[r*c:r*c+c], dy[r*c:r*c+c]
			s := 0.0
			for j, v := range yr {
				s += v * gr[j]
			}
			ar := a.grad[r*c : r*c+c]
			for j, v := range yr {
				ar[j] += v * (gr[j] - s)
			}
		}
	case opConv1D:
		t.convBackward(y)
	case opAvgPool:
		poolBackward(y)
	}
}

// transpose writes the transpose of the r×c matrix src into dst (c×r).
func transpose(dst, src []float64, r, c int) {
	for i := 0; i < r; i++ {
		for j, v := range src[i*c : i*c+c] {
			dst[j*r+i] = v
		}
	}
}

func addTo(dst, src []float64) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] += v
	}
}
