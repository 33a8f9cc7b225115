package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// relErr is |a−b| / max(|a|, |b|, floor): relative error, with an absolute
// floor for gradients that are (near) zero.
func relErr(a, b, floor float64) float64 {
	d := math.Max(math.Max(math.Abs(a), math.Abs(b)), floor)
	return math.Abs(a-b) / d
}

const (
	gradTol   = 1e-6
	gradFloor = 1e-5
	fdStep    = 1e-3
)

func randVec(r *rand.Rand, n int, s float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = s * r.NormFloat64()
	}
	return v
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestLinearGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][3]int{{5, 7, 3}, {3, 1, 4}, {2, 9, 5}, {7, 4, 1}} {
		n, in, out := sh[0], sh[1], sh[2]
		l := Linear{In: in, Out: out, Off: 3}
		p := randVec(r, 3+l.NumParams()+2, 1)
		x := randVec(r, n*in, 1)
		R := randVec(r, n*out, 1)
		y := make([]float64, n*out)
		loss := func() float64 { l.Forward(p, x, y, n); return dot(y, R) }
		g := make([]float64, len(p))
		dx := make([]float64, n*in)
		l.Backward(p, g, x, R, dx, n)
		worst := 0.0
		for i := range p {
			num := testutil.FD5(loss, p, i, fdStep)
			if i < 3 || i >= 3+l.NumParams() {
				if g[i] != 0 || math.Abs(num) > 1e-9 {
					t.Fatalf("gradient outside the layer's parameters at %d: %v %v", i, g[i], num)
				}
				continue
			}
			worst = math.Max(worst, relErr(g[i], num, gradFloor))
		}
		for i := range x {
			worst = math.Max(worst, relErr(dx[i], testutil.FD5(loss, x, i, fdStep), gradFloor))
		}
		if worst > gradTol {
			t.Errorf("Linear %v: worst relative gradient error %.3g > %g", sh, worst, gradTol)
		}
		t.Logf("Linear n=%d in=%d out=%d: worst rel. error %.2g", n, in, out, worst)
	}
}

func TestReLUGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := randVec(r, 50, 1)
	R := randVec(r, 50, 1)
	y := make([]float64, 50)
	loss := func() float64 { ReLU(y, x); return dot(y, R) }
	dx := make([]float64, 50)
	ReLU(y, x)
	ReLUBackward(dx, R, x)
	worst := 0.0
	for i := range x {
		if math.Abs(x[i]) < 1e-2 {
			continue // kink: not differentiable
		}
		worst = math.Max(worst, relErr(dx[i], testutil.FD5(loss, x, i, fdStep), gradFloor))
	}
	if worst > gradTol {
		t.Errorf("ReLU: worst relative error %.3g", worst)
	}
}

func TestSigmoidSoftplus(t *testing.T) {
	for _, x := range []float64{-800, -40, -3, -1e-3, 0, 0.5, 7, 40, 800} {
		s := Sigmoid(x)
		if math.IsNaN(s) || s < 0 || s > 1 {
			t.Fatalf("Sigmoid(%v) = %v", x, s)
		}
		sp := Softplus(x)
		if math.IsNaN(sp) || math.IsInf(sp, 0) || sp < 0 {
			t.Fatalf("Softplus(%v) = %v", x, sp)
		}
		if math.Abs(x) < 30 {
			if d := math.Abs(sp - math.Log1p(math.Exp(x))); d > 1e-15*math.Max(1, sp) {
				t.Errorf("Softplus(%v) off by %v", x, d)
			}
			// d/dx softplus = sigmoid
			h := 1e-4
			num := (-Softplus(x+2*h) + 8*Softplus(x+h) - 8*Softplus(x-h) + Softplus(x-2*h)) / (12 * h)
			if relErr(num, s, 1e-6) > 1e-8 {
				t.Errorf("softplus' (%v) = %v, sigmoid %v", x, num, s)
			}
		}
	}
}

func TestResNetGradient(t *testing.T) {
	cases := []struct {
		in, ctx, hidden, out, blocks int
		gate                         bool
	}{
		{2, 3, 6, 5, 2, true},
		{2, 3, 6, 5, 2, false},
		{0, 4, 5, 3, 1, true},
		{3, 0, 5, 4, 2, true}, // no context: gate ignored
		{0, 0, 4, 3, 1, false},
		{1, 2, 7, 6, 0, false},
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range cases {
		m, err := NewResNet(ResNetConfig{In: c.in, Ctx: c.ctx, Hidden: c.hidden, Out: c.out, Blocks: c.blocks, Gate: c.gate, Off: 2})
		if err != nil {
			t.Fatal(err)
		}
		p := make([]float64, 2+m.NumParams())
		m.Init(p, r)
		for i := range p { // make blocks non-trivial
			p[i] += 0.3 * r.NormFloat64()
		}
		n := 4
		x := randVec(r, n*c.in, 1)
		z := randVec(r, n*c.ctx, 1)
		R := randVec(r, n*c.out, 1)
		w := m.NewWork(n)
		out := make([]float64, n*c.out)
		loss := func() float64 { m.Forward(p, w, x, z, n, out); return dot(out, R) }
		loss()
		g := make([]float64, len(p))
		dx := make([]float64, n*c.in)
		m.Backward(p, g, w, R, dx)
		// BackwardContext gives the same parameter and input gradients and
		// adds the context gradient to what dc holds.
		g2, dx2 := make([]float64, len(p)), make([]float64, n*c.in)
		dc := make([]float64, n*c.ctx)
		for i := range dc {
			dc[i] = 1
		}
		loss()
		m.BackwardContext(p, g2, w, R, dx2, dc)
		for i := range g {
			if g2[i] != g[i] {
				t.Fatalf("ResNet %+v: BackwardContext parameter gradient %d = %v, Backward %v", c, i, g2[i], g[i])
			}
		}
		for i := range dx {
			if dx2[i] != dx[i] {
				t.Fatalf("ResNet %+v: BackwardContext input gradient %d = %v, Backward %v", c, i, dx2[i], dx[i])
			}
		}
		worst := 0.0
		for i := range z {
			worst = math.Max(worst, relErr(dc[i]-1, testutil.FD5(loss, z, i, fdStep), gradFloor))
		}
		for i := range p {
			num := testutil.FD5(loss, p, i, fdStep)
			if i < 2 {
				if g[i] != 0 || math.Abs(num) > 1e-9 {
					t.Fatalf("gradient outside the network's parameters at %d: %v %v", i, g[i], num)
				}
				continue
			}
			worst = math.Max(worst, relErr(g[i], num, gradFloor))
		}
		for i := range x {
			worst = math.Max(worst, relErr(dx[i], testutil.FD5(loss, x, i, fdStep), gradFloor))
		}
		t.Logf("ResNet %+v: %d params, worst rel. error %.2g", c, m.NumParams(), worst)
		if worst > gradTol {
			t.Errorf("ResNet %+v: worst relative gradient error %.3g > %g", c, worst, gradTol)
		}
	}
}

// TestResNetSharedContextGradient checks the context gradient of
// ForwardShared batches (groups of rows sharing one context row) against
// finite differences in the shared context rows.
func TestResNetSharedContextGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, gate := range []bool{true, false} {
		m, err := NewResNet(ResNetConfig{In: 2, Ctx: 3, Hidden: 6, Out: 4, Blocks: 2, Gate: gate})
		if err != nil {
			t.Fatal(err)
		}
		p := make([]float64, m.NumParams())
		m.Init(p, r)
		for i := range p {
			p[i] += 0.3 * r.NormFloat64()
		}
		n, group := 9, 4 // three context rows, the last group partial
		x := randVec(r, n*2, 1)
		z := randVec(r, 3*3, 1)
		R := randVec(r, n*4, 1)
		w := m.NewWork(n)
		out := make([]float64, n*4)
		loss := func() float64 { m.ForwardShared(p, w, x, z, n, group, out); return dot(out, R) }
		loss()
		g, dc := make([]float64, len(p)), make([]float64, len(z))
		m.BackwardContext(p, g, w, R, nil, dc)
		worst := 0.0
		for i := range z {
			worst = math.Max(worst, relErr(dc[i], testutil.FD5(loss, z, i, fdStep), gradFloor))
		}
		t.Logf("gate %v: worst rel. error of the shared context gradient %.2g", gate, worst)
		if worst > gradTol {
			t.Errorf("gate %v: worst relative context gradient error %.3g > %g", gate, worst, gradTol)
		}
	}
}

func TestNewResNetErrors(t *testing.T) {
	for _, a := range [][6]int{{-1, 0, 1, 1, 1, 0}, {0, -1, 1, 1, 1, 0}, {1, 1, 0, 1, 1, 0}, {1, 1, 1, 0, 1, 0}, {1, 1, 1, 1, -1, 0}, {1, 1, 1, 1, 1, -1}} {
		if _, err := NewResNet(ResNetConfig{In: a[0], Ctx: a[1], Hidden: a[2], Out: a[3], Blocks: a[4], Gate: true, Off: a[5]}); err == nil {
			t.Errorf("NewResNet%v: expected an error", a)
		}
	}
}

func TestResNetForwardNoAlloc(t *testing.T) {
	m, _ := NewResNet(ResNetConfig{In: 2, Ctx: 3, Hidden: 8, Out: 4, Blocks: 2, Gate: true})
	p := make([]float64, m.NumParams())
	m.Init(p, rand.New(rand.NewPCG(1, 1)))
	w := m.NewWork(10)
	x, z, out := make([]float64, 20), make([]float64, 30), make([]float64, 40)
	g := make([]float64, len(p))
	if a := testing.AllocsPerRun(10, func() {
		m.Forward(p, w, x, z, 10, out)
		m.Backward(p, g, w, out, x)
	}); a != 0 {
		t.Errorf("forward+backward allocates %v times", a)
	}
}

func BenchmarkLinearForward50x50(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	l := Linear{In: 50, Out: 50}
	p := randVec(r, l.NumParams(), 0.1)
	x := randVec(r, 100*50, 1)
	y := make([]float64, 100*50)
	b.ReportAllocs()
	for b.Loop() {
		l.Forward(p, x, y, 100)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(100*50*50), "ns/MAC")
}

func BenchmarkLinearBackward50x50(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	l := Linear{In: 50, Out: 50}
	p := randVec(r, l.NumParams(), 0.1)
	g := make([]float64, len(p))
	x := randVec(r, 100*50, 1)
	dy := randVec(r, 100*50, 1)
	dx := make([]float64, 100*50)
	b.ReportAllocs()
	for b.Loop() {
		l.Backward(p, g, x, dy, dx, 100)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(2*100*50*50), "ns/MAC")
}

// TestResNetBackwardStore checks that BackwardStore leaves in g, bit for
// bit, what clearing the network's gradient and calling BackwardContext
// leaves, whatever g held before, and touches nothing outside the
// network's parameters: with and without gating, context groups, an empty
// input or context, and an empty batch; in float64 and with float32
// products (at the paper's widths, whose 50-unit products have tail
// columns).
func TestResNetBackwardStore(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, tc := range []struct {
		in, ctx, blocks, n, group int
		f32                       bool
	}{
		{1, 10, 2, 37, 1, false}, {1, 10, 2, 36, 4, false}, {0, 3, 1, 9, 3, false}, {2, 0, 2, 11, 1, false}, {3, 4, 0, 5, 1, false}, {1, 2, 1, 0, 1, false},
		{1, 10, 2, 37, 1, true}, {1, 10, 2, 36, 4, true}, {2, 0, 2, 11, 1, true}, {1, 2, 1, 0, 1, true},
	} {
		H, O := 13, 19
		if tc.f32 {
			H, O = 50, 29
		}
		for _, gate := range []bool{false, true} {
			const off, pad = 7, 5
			m, err := NewResNet(ResNetConfig{In: tc.in, Ctx: tc.ctx, Hidden: H, Out: O, Blocks: tc.blocks, Gate: gate, Off: off})
			if err != nil {
				t.Fatal(err)
			}
			np := off + m.NumParams() + pad
			p := randVec(r, np, 0.5)
			ng := (tc.n + tc.group - 1) / tc.group
			x, c := randVec(r, tc.n*tc.in, 1), randVec(r, ng*tc.ctx, 1)
			out := make([]float64, tc.n*m.Out)
			w := m.NewWork(max(tc.n, 1))
			w.SetFloat32(tc.f32)
			m.ForwardShared(p, w, x, c, tc.n, tc.group, out)
			dout := randVec(r, len(out), 1)
			garbage := randVec(r, np, 3)
			want := append([]float64(nil), garbage...)
			clear(want[off : off+m.NumParams()])
			dxWant, dcWant := make([]float64, len(x)), randVec(r, len(c), 1)
			dcGot := append([]float64(nil), dcWant...)
			m.BackwardContext(p, want, w, dout, dxWant, dcWant)
			got := append([]float64(nil), garbage...)
			dxGot := randVec(r, len(x), 1)
			m.BackwardStore(p, got, w, dout, dxGot, dcGot)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%+v gate %v: gradient %d = %v, cleared and accumulated %v", tc, gate, i, got[i], want[i])
				}
			}
			for i := range dxGot {
				if dxGot[i] != dxWant[i] {
					t.Fatalf("%+v gate %v: input gradient %d = %v, want %v", tc, gate, i, dxGot[i], dxWant[i])
				}
			}
			for i := range dcGot {
				if dcGot[i] != dcWant[i] {
					t.Fatalf("%+v gate %v: context gradient %d = %v, want %v", tc, gate, i, dcGot[i], dcWant[i])
				}
			}
		}
	}
}

// perturbedPaperNet returns a conditioner network shaped like the SBI
// paper flow's (context 10, two gated blocks of 50 units, 29 outputs) with
// in inputs, and its initial parameters perturbed so that no part is zero.
func perturbedPaperNet(t *testing.T, r *rand.Rand, in int) (*ResNet, []float64) {
	t.Helper()
	m, err := NewResNet(ResNetConfig{In: in, Ctx: 10, Hidden: 50, Out: 29, Blocks: 2, Gate: true})
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, m.NumParams())
	m.Init(p, r)
	for i := range p {
		p[i] += 0.05 * r.NormFloat64()
	}
	return m, p
}

// TestResNetFloat32 checks a ResNet whose work computes the hidden
// products in float32 against the float64 network: outputs, parameter,
// input and context gradients agree to a relative error (in norm) below
// 10⁻⁵ and are not identical, for plain and shared-context batches.
func TestResNetFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	m, p := perturbedPaperNet(t, r, 1)
	const n = 300
	x, z, R := randVec(r, n, 1), randVec(r, n*10, 1), randVec(r, n*29, 1)
	relNorm := func(a, b []float64) float64 {
		var d, s float64
		for i := range a {
			d += (a[i] - b[i]) * (a[i] - b[i])
			s += b[i] * b[i]
		}
		return math.Sqrt(d / s)
	}
	for _, group := range []int{1, 6} {
		var outs, gs, dxs, dcs [2][]float64
		for k, f32 := range []bool{false, true} {
			w := m.NewWork(n)
			w.SetFloat32(f32)
			outs[k] = make([]float64, n*29)
			m.ForwardShared(p, w, x, z, n, group, outs[k])
			gs[k], dxs[k], dcs[k] = make([]float64, len(p)), make([]float64, n), make([]float64, len(z))
			m.BackwardContext(p, gs[k], w, R, dxs[k], dcs[k])
		}
		for _, c := range []struct {
			name string
			v    [2][]float64
		}{{"output", outs}, {"parameter gradient", gs}, {"input gradient", dxs}, {"context gradient", dcs}} {
			e := relNorm(c.v[1], c.v[0])
			t.Logf("group %d: %s relative error %.2g", group, c.name, e)
			if !(e < 1e-5) || e == 0 {
				t.Errorf("group %d: %s relative error %.3g, want in (0, 1e-5)", group, c.name, e)
			}
		}
	}
}

// TestResNetHoldFloat32 checks that held float32 weights, held by the
// workspace itself or shared from another one (ShareFloat32), give the
// same outputs and gradients, bit for bit, as rounding them in every
// pass, for plain and grouped contexts, and that releasing them after a
// parameter change uses the new parameters.
func TestResNetHoldFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	m, p := perturbedPaperNet(t, r, 3)
	const n = 130
	x, z, R := randVec(r, n*3, 1), randVec(r, n*10, 1), randVec(r, n*29, 1)
	run := func(hold string, group int, p []float64) (out, g, dx, dc []float64) {
		w := m.NewWork(n)
		w.SetFloat32(true)
		switch hold {
		case "hold":
			m.HoldFloat32(p, w)
			defer w.ReleaseFloat32()
		case "share":
			src := m.NewWork(1)
			src.SetFloat32(true)
			m.HoldFloat32(p, src)
			w.ShareFloat32(src)
			defer w.ReleaseFloat32()
		}
		out = make([]float64, n*29)
		m.ForwardShared(p, w, x, z, n, group, out)
		g, dx, dc = make([]float64, len(p)), make([]float64, n*3), make([]float64, len(z))
		m.BackwardContext(p, g, w, R, dx, dc)
		return
	}
	for _, group := range []int{1, 5} {
		o0, g0, x0, c0 := run("", group, p)
		for _, hold := range []string{"hold", "share"} {
			o1, g1, x1, c1 := run(hold, group, p)
			if !slices.Equal(o0, o1) || !slices.Equal(g0, g1) || !slices.Equal(x0, x1) || !slices.Equal(c0, c1) {
				t.Errorf("group %d: %s weights change the results", group, hold)
			}
		}
	}
	// Held weights are the ones rounded at HoldFloat32: after a change of
	// p, a released workspace sees the new weights, a held one the old.
	w := m.NewWork(n)
	w.SetFloat32(true)
	m.HoldFloat32(p, w)
	q := slices.Clone(p)
	for i := range q {
		q[i] *= 1.5
	}
	held, fresh := make([]float64, n*29), make([]float64, n*29)
	m.ForwardShared(q, w, x, z, n, 1, held)
	w.ReleaseFloat32()
	m.ForwardShared(q, w, x, z, n, 1, fresh)
	want, _, _, _ := run("", 1, q)
	if !slices.Equal(fresh, want) || slices.Equal(held, want) {
		t.Error("ReleaseFloat32 does not return to the current weights")
	}
	// The same with shared weights; then HoldFloat32 on the sharing
	// workspace rounds into buffers of its own, leaving the source's alone.
	src := m.NewWork(1)
	src.SetFloat32(true)
	m.HoldFloat32(p, src)
	w.ShareFloat32(src)
	m.ForwardShared(q, w, x, z, n, 1, held)
	w.ReleaseFloat32()
	m.ForwardShared(q, w, x, z, n, 1, fresh)
	if !slices.Equal(fresh, want) || slices.Equal(held, want) {
		t.Error("ReleaseFloat32 after ShareFloat32 does not return to the current weights")
	}
	w.ShareFloat32(src)
	m.HoldFloat32(q, w)
	m.ForwardShared(q, w, x, z, n, 1, fresh)
	if !slices.Equal(fresh, want) {
		t.Error("HoldFloat32 after ShareFloat32 does not hold the new weights")
	}
	w.ShareFloat32(src)
	m.ForwardShared(q, w, x, z, n, 1, held)
	if slices.Equal(held, want) {
		t.Error("HoldFloat32 on a sharing workspace overwrote the source's weights")
	}
}

// TestResNetSetFloat32BetweenPasses checks that a backward pass follows
// the precision of the forward pass before it: switching SetFloat32 in
// between changes nothing, bit for bit, in either direction.
func TestResNetSetFloat32BetweenPasses(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	m, p := perturbedPaperNet(t, r, 1)
	const n, group = 40, 4
	x, z, R := randVec(r, n, 1), randVec(r, n/group*10, 1), randVec(r, n*29, 1)
	run := func(fwd32, bwd32 bool) []float64 {
		w := m.NewWork(n)
		w.SetFloat32(fwd32)
		out := make([]float64, n*29)
		m.ForwardShared(p, w, x, z, n, group, out)
		w.SetFloat32(bwd32)
		g := make([]float64, len(p))
		m.Backward(p, g, w, R, make([]float64, n))
		return append(g, out...)
	}
	for _, f32 := range []bool{false, true} {
		if !slices.Equal(run(f32, f32), run(f32, !f32)) {
			t.Errorf("float32 %v: switching SetFloat32 between the passes changes the gradient", f32)
		}
	}
	if slices.Equal(run(false, false), run(true, true)) {
		t.Error("float32 and float64 passes agree bit for bit: the test cannot tell them apart")
	}
}

// BenchmarkResNetFloat32 times a forward and backward pass of the SBI
// paper's conditioner (one input coordinate, a 10-value context shared by
// groups of 10 rows, two gated residual blocks of 50 units, 29 outputs:
// a 10-bin spline) on a 120-row chunk with float32 products and held
// weights, as one training chunk of the flow computes it.
func BenchmarkResNetFloat32(b *testing.B) {
	const n, group = 120, 10
	m, err := NewResNet(ResNetConfig{In: 1, Ctx: 10, Hidden: 50, Out: 29, Blocks: 2, Gate: true})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	p := make([]float64, m.NumParams())
	m.Init(p, r)
	g := make([]float64, len(p))
	w := m.NewWork(n)
	w.SetFloat32(true)
	m.HoldFloat32(p, w)
	x, c := randVec(r, n, 1), randVec(r, n/group*10, 1)
	out, dout, dx := make([]float64, n*29), randVec(r, n*29, 1), make([]float64, n)
	macs := 0
	for _, l := range []int{1 + 10, 50, 50, 10, 50, 50, 10, 50} {
		macs += l * 50
	}
	macs = 3 * n * (macs + 50*29) // forward, input and weight gradients
	b.ReportAllocs()
	for b.Loop() {
		m.ForwardShared(p, w, x, c, n, group, out)
		m.BackwardStore(p, g, w, dout, dx, nil)
	}
	b.ReportMetric(2*float64(macs)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}
