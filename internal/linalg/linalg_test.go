package linalg

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// randSPD returns A = Q·diag(λ)·Qᵀ with a random orthogonal Q and eigenvalues
// log-spaced so that cond(A) = cond exactly; it also returns the sorted λ.
func randSPD(r *rand.Rand, n int, cond float64) (a, lambda []float64) {
	q := randOrthogonal(r, n)
	lambda = make([]float64, n)
	for i := range lambda {
		t := 0.0
		if n > 1 {
			t = float64(i) / float64(n-1)
		}
		lambda[i] = math.Pow(cond, t) / math.Sqrt(cond)
	}
	a = make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += q[i*n+k] * lambda[k] * q[j*n+k]
			}
			a[i*n+j], a[j*n+i] = s, s
		}
	}
	return a, lambda
}

// randOrthogonal returns a random orthogonal matrix by modified Gram–Schmidt
// (applied twice) on a Gaussian matrix.
func randOrthogonal(r *rand.Rand, n int) []float64 {
	q := make([]float64, n*n)
	for i := range q {
		q[i] = r.NormFloat64()
	}
	for pass := 0; pass < 2; pass++ {
		for j := 0; j < n; j++ {
			for k := 0; k < j; k++ {
				d := 0.0
				for i := 0; i < n; i++ {
					d += q[i*n+j] * q[i*n+k]
				}
				for i := 0; i < n; i++ {
					q[i*n+j] -= d * q[i*n+k]
				}
			}
			nr := 0.0
			for i := 0; i < n; i++ {
				nr += q[i*n+j] * q[i*n+j]
			}
			nr = math.Sqrt(nr)
			for i := 0; i < n; i++ {
				q[i*n+j] /= nr
			}
		}
	}
	return q
}

func frob(a []float64) float64 {
	s := 0.0
	for _, v := range a {
		s += v * v
	}
	return math.Sqrt(s)
}

// naiveMul is the reference triple loop.
func naiveMul(a, b []float64, m, k, n int) []float64 {
	c := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for p := 0; p < k; p++ {
				s += a[i*k+p] * b[p*n+j]
			}
			c[i*n+j] = s
		}
	}
	return c
}

func transpose(a []float64, m, n int) []float64 {
	t := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			t[j*m+i] = a[i*n+j]
		}
	}
	return t
}

const eps = 0x1p-52

var sizes = []int{1, 2, 3, 5, 10, 25, 50}

var conds = []float64{1, 1e3, 1e8, 1e12}

// TestCholeskyReconstruction checks ‖A − LLᵀ‖_F/‖A‖_F ≤ 4n·ε. Cholesky is
// backward stable, so the bound holds whatever the condition number.
func TestCholeskyReconstruction(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for _, n := range sizes {
		for _, c := range conds {
			a, _ := randSPD(r, n, c)
			l := make([]float64, n*n)
			if err := Cholesky(a, n, l); err != nil {
				t.Fatalf("n=%d cond=%g: %v", n, c, err)
			}
			for i := 0; i < n; i++ {
				for j := i + 1; j < n; j++ {
					if l[i*n+j] != 0 {
						t.Fatalf("upper triangle of L not zero at (%d,%d)", i, j)
					}
				}
			}
			llt := naiveMul(l, transpose(l, n, n), n, n, n)
			for i := range llt {
				llt[i] -= a[i]
			}
			rel := frob(llt) / frob(a)
			worst = math.Max(worst, rel)
			if !(rel <= 4*float64(n)*eps) {
				t.Errorf("n=%d cond=%g: ‖A−LLᵀ‖/‖A‖ = %.3g", n, c, rel)
			}
		}
	}
	t.Logf("worst ‖A−LLᵀ‖_F/‖A‖_F = %.3g", worst)
}

// TestInvSPD checks ‖A·A⁻¹ − I‖_F ≤ 8n·ε·cond(A), the forward-error bound of
// a backward-stable inverse, and that the inverse is exactly symmetric.
func TestInvSPD(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range sizes {
		for _, c := range conds {
			a, _ := randSPD(r, n, c)
			inv := make([]float64, n*n)
			if err := InvSPD(a, n, inv); err != nil {
				t.Fatalf("n=%d cond=%g: %v", n, c, err)
			}
			for i := 0; i < n; i++ {
				for j := 0; j < i; j++ {
					if inv[i*n+j] != inv[j*n+i] {
						t.Fatalf("inverse not symmetric")
					}
				}
			}
			p := naiveMul(a, inv, n, n, n)
			for i := 0; i < n; i++ {
				p[i*n+i] -= 1
			}
			e := frob(p)
			t.Logf("n=%2d cond=%-6g ‖A·A⁻¹−I‖_F = %.3g", n, c, e)
			if !(e <= 8*float64(n)*eps*c) {
				t.Errorf("n=%d cond=%g: ‖A·A⁻¹−I‖_F = %.3g", n, c, e)
			}
			// In place.
			b := append([]float64(nil), a...)
			if err := InvSPD(b, n, b); err != nil {
				t.Fatal(err)
			}
			for i := range b {
				if b[i] != inv[i] {
					t.Fatalf("in-place InvSPD differs at %d", i)
				}
			}
		}
	}
}

// TestSolvesAndLogDet checks CholSolve's residual, the two triangular solves
// and LogDetChol against Σ log λ_i of the constructed spectrum.
func TestSolvesAndLogDet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range sizes {
		for _, c := range conds {
			a, lambda := randSPD(r, n, c)
			l := make([]float64, n*n)
			if err := Cholesky(a, n, l); err != nil {
				t.Fatal(err)
			}
			want := 0.0
			for _, v := range lambda {
				want += math.Log(v)
			}
			got := LogDetChol(l, n)
			// Eigenvalues of the constructed A are exact to ~n·ε·‖A‖, so
			// log det is accurate to about n²·ε·cond absolutely.
			if !(math.Abs(got-want) <= 4*float64(n*n)*eps*c+1e-13*math.Abs(want)) {
				t.Errorf("n=%d cond=%g: logdet %v want %v", n, c, got, want)
			}
			x := make([]float64, n)
			for i := range x {
				x[i] = r.NormFloat64()
			}
			b := make([]float64, n)
			MatVec(b, a, x, n, n)
			y := append([]float64(nil), b...)
			CholSolve(l, n, y)
			// Backward error: ‖A y − b‖ ≤ c·n·ε·‖A‖‖y‖.
			ay := make([]float64, n)
			MatVec(ay, a, y, n, n)
			res := 0.0
			for i := range ay {
				res += (ay[i] - b[i]) * (ay[i] - b[i])
			}
			if math.Sqrt(res) > 8*float64(n)*eps*frob(a)*frob(y) {
				t.Errorf("n=%d cond=%g: CholSolve residual %.3g", n, c, math.Sqrt(res))
			}
			// Triangular solves separately: L z = b then Lᵀ w = z.
			z := append([]float64(nil), b...)
			SolveLower(l, n, z)
			lz := make([]float64, n)
			MatVec(lz, l, z, n, n)
			for i := range lz {
				if !(math.Abs(lz[i]-b[i]) <= 8*float64(n)*eps*(frob(l)*frob(z))) {
					t.Fatalf("SolveLower residual %g", lz[i]-b[i])
				}
			}
			w := append([]float64(nil), z...)
			SolveUpperT(l, n, w)
			ltw := make([]float64, n)
			MatVec(ltw, transpose(l, n, n), w, n, n)
			for i := range ltw {
				if !(math.Abs(ltw[i]-z[i]) <= 8*float64(n)*eps*(frob(l)*frob(w))) {
					t.Fatalf("SolveUpperT residual %g", ltw[i]-z[i])
				}
			}
		}
	}
}

// TestSymEigen checks ‖AV − VΛ‖_F/‖A‖_F, ‖VᵀV − I‖_F and the eigenvalues
// against the constructed spectrum, for random and ill-conditioned matrices
// and for indefinite ones.
func TestSymEigen(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	worstRes, worstOrth := 0.0, 0.0
	for _, n := range sizes {
		for _, c := range conds {
			a, lambda := randSPD(r, n, c)
			if c == 1e3 {
				// Make it indefinite: negate half the spectrum via A − shift·I.
				shift := lambda[n/2]
				for i := 0; i < n; i++ {
					a[i*n+i] -= shift
				}
				for i := range lambda {
					lambda[i] -= shift
				}
			}
			vals := make([]float64, n)
			vecs := make([]float64, n*n)
			if err := SymEigen(a, n, vals, vecs); err != nil {
				t.Fatalf("n=%d cond=%g: %v", n, c, err)
			}
			for i := 1; i < n; i++ {
				if vals[i] < vals[i-1] {
					t.Fatalf("eigenvalues not ascending: %v", vals)
				}
			}
			av := naiveMul(a, vecs, n, n, n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					av[i*n+j] -= vecs[i*n+j] * vals[j]
				}
			}
			res := frob(av)
			if fa := frob(a); fa > 0 {
				res /= fa
			}
			vtv := naiveMul(transpose(vecs, n, n), vecs, n, n, n)
			for i := 0; i < n; i++ {
				vtv[i*n+i] -= 1
			}
			orth := frob(vtv)
			worstRes = math.Max(worstRes, res)
			worstOrth = math.Max(worstOrth, orth)
			if !(res <= 20*float64(n)*eps && orth <= 20*float64(n)*eps) {
				t.Errorf("n=%d cond=%g: ‖AV−VΛ‖/‖A‖ = %.3g, ‖VᵀV−I‖ = %.3g", n, c, res, orth)
			}
			amax := 0.0
			for _, v := range lambda {
				amax = math.Max(amax, math.Abs(v))
			}
			for i := range vals {
				if !(math.Abs(vals[i]-lambda[i]) <= 10*float64(n)*eps*amax) {
					t.Errorf("n=%d cond=%g: λ_%d = %v want %v", n, c, i, vals[i], lambda[i])
				}
			}
		}
	}
	t.Logf("worst ‖AV−VΛ‖_F/‖A‖_F = %.3g, worst ‖VᵀV−I‖_F = %.3g", worstRes, worstOrth)
}

func TestSymEigenSmallClosedForm(t *testing.T) {
	// [[2,1],[1,2]] has eigenvalues 1 and 3 with vectors (1,−1)/√2, (1,1)/√2.
	a := []float64{2, 1, 1, 2}
	vals := make([]float64, 2)
	vecs := make([]float64, 4)
	if err := SymEigen(a, 2, vals, vecs); err != nil {
		t.Fatal(err)
	}
	if !(math.Abs(vals[0]-1) <= 1e-15 && math.Abs(vals[1]-3) <= 1e-15) {
		t.Fatalf("vals = %v, want [1 3]", vals)
	}
	if !(math.Abs(math.Abs(vecs[0])-math.Sqrt(0.5)) <= 1e-15) || vecs[0]*vecs[2] > 0 {
		t.Fatalf("vecs = %v", vecs)
	}
	// Diagonal and zero matrices need no rotation.
	z := make([]float64, 9)
	if err := SymEigen(z, 3, make([]float64, 3), make([]float64, 9)); err != nil {
		t.Fatal(err)
	}
}

func TestMatMulMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, dims := range [][3]int{{1, 1, 1}, {3, 5, 7}, {64, 64, 64}, {65, 130, 67}, {200, 3, 150}, {0, 4, 5}, {4, 0, 5}} {
		m, k, n := dims[0], dims[1], dims[2]
		a := make([]float64, m*k)
		b := make([]float64, k*n)
		for i := range a {
			a[i] = r.NormFloat64()
		}
		for i := range b {
			b[i] = r.NormFloat64()
		}
		c := make([]float64, m*n)
		for i := range c {
			c[i] = math.NaN() // must be overwritten
		}
		MatMul(c, a, b, m, k, n)
		want := naiveMul(a, b, m, k, n)
		for i := range c {
			if !(math.Abs(c[i]-want[i]) <= 4*float64(k)*eps*(1+math.Abs(want[i]))*10) {
				t.Fatalf("%v: c[%d] = %v want %v", dims, i, c[i], want[i])
			}
		}
		if m > 0 && k > 0 {
			x := b[:k]
			y := make([]float64, m)
			MatVec(y, a, x, m, k)
			wy := naiveMul(a, x, m, k, 1)
			for i := range y {
				if !(math.Abs(y[i]-wy[i]) <= 1e-12*(1+math.Abs(wy[i]))) {
					t.Fatalf("MatVec mismatch")
				}
			}
		}
	}
}

func TestErrors(t *testing.T) {
	l := make([]float64, 4)
	notPD := []float64{1, 2, 2, 1}
	if err := Cholesky(notPD, 2, l); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("indefinite: err = %v", err)
	}
	if err := Cholesky([]float64{0, 0, 0, 0}, 2, l); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("zero: err = %v", err)
	}
	nan := []float64{1, 0, math.NaN(), 1}
	if err := Cholesky(nan, 2, l); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN: err = %v", err)
	}
	inf := []float64{math.Inf(1), 0, 0, 1}
	if err := Cholesky(inf, 2, l); !errors.Is(err, ErrNotFinite) {
		t.Errorf("Inf: err = %v", err)
	}
	if err := Cholesky(notPD, 3, l); !errors.Is(err, ErrDimension) {
		t.Errorf("short a: err = %v", err)
	}
	if err := Cholesky(notPD, 2, l[:3]); !errors.Is(err, ErrDimension) {
		t.Errorf("short l: err = %v", err)
	}
	if err := Cholesky(notPD, -1, l); !errors.Is(err, ErrDimension) {
		t.Errorf("negative n: err = %v", err)
	}
	if _, err := CholeskyJitter(nan, 2, l); !errors.Is(err, ErrNotFinite) {
		t.Errorf("jitter NaN: err = %v", err)
	}
	if _, err := CholeskyJitter(notPD, 2, l); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("jitter on eigenvalue −1: err = %v", err)
	}
	if err := InvSPD(notPD, 2, l); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("InvSPD: err = %v", err)
	}
	if err := InvSPD(nan, 2, l); !errors.Is(err, ErrNotFinite) {
		t.Errorf("InvSPD NaN: err = %v", err)
	}
	vals, vecs := make([]float64, 2), make([]float64, 4)
	if err := SymEigen([]float64{1, 2, 3, 4}, 2, vals, vecs); !errors.Is(err, ErrNotSymmetric) {
		t.Errorf("SymEigen asym: err = %v", err)
	}
	if err := SymEigen(nan, 2, vals, vecs); !errors.Is(err, ErrNotFinite) {
		t.Errorf("SymEigen NaN: err = %v", err)
	}
	if err := SymEigen(notPD, 2, vals[:1], vecs); !errors.Is(err, ErrDimension) {
		t.Errorf("SymEigen short vals: err = %v", err)
	}
	if !math.IsNaN(LogDetChol(l[:3], 2)) {
		t.Error("LogDetChol short slice not NaN")
	}
	// Empty matrices are fine.
	if err := Cholesky(nil, 0, nil); err != nil {
		t.Error(err)
	}
}

func TestKernelsPanicOnShortSlices(t *testing.T) {
	cases := map[string]func(){
		"MatMul":      func() { MatMul(make([]float64, 3), make([]float64, 4), make([]float64, 4), 2, 2, 2) },
		"MatVec":      func() { MatVec(make([]float64, 1), make([]float64, 4), make([]float64, 2), 2, 2) },
		"SolveLower":  func() { SolveLower(make([]float64, 4), 2, make([]float64, 1)) },
		"SolveUpperT": func() { SolveUpperT(make([]float64, 3), 2, make([]float64, 2)) },
	}
	for name, f := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on short slice", name)
				}
			}()
			f()
		}()
	}
}

// TestCholeskyJitter: a rank-deficient PSD matrix fails Cholesky but
// factorises with a small documented jitter, and LLᵀ equals A + δI.
func TestCholeskyJitter(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n, rank := 8, 3
	g := make([]float64, n*rank)
	for i := range g {
		g[i] = r.NormFloat64()
	}
	a := naiveMul(g, transpose(g, n, rank), n, rank, n) // PSD, rank 3
	l := make([]float64, n*n)
	if err := Cholesky(a, n, l); err == nil {
		// Rounding may leave tiny positive pivots; force a zero eigenvalue case.
		t.Log("rank-deficient matrix factorised without jitter")
	}
	d8, err := CholeskyJitter(a, n, l)
	if err != nil {
		t.Fatal(err)
	}
	d := d8
	scale := 0.0
	for i := 0; i < n; i++ {
		scale += a[i*n+i]
	}
	scale /= float64(n)
	if d > 0 && (d < JitterStart*scale*0.999 || d > JitterStart*scale*math.Pow(10, JitterTries)) {
		t.Fatalf("jitter %g outside the documented schedule", d)
	}
	llt := naiveMul(l, transpose(l, n, n), n, n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			want := a[i*n+j]
			if i == j {
				want += d
			}
			if !(math.Abs(llt[i*n+j]-want) <= 1e-13*scale) {
				t.Fatalf("LLᵀ ≠ A + δI at (%d,%d)", i, j)
			}
		}
	}
	// Exactly singular: [[1,1],[1,1]] needs jitter; result must be exactly
	// the first schedule value that works.
	s := []float64{1, 1, 1, 1}
	d, err = CholeskyJitter(s, 2, s) // aliasing allowed
	if err != nil || d <= 0 {
		t.Fatalf("singular: d=%g err=%v", d, err)
	}
	if want := d * (2 + d) / (1 + d); !(math.Abs(s[3]*s[3]-want) <= 1e-6*want) {
		t.Fatalf("L22² = %g, want jitter·(2+jitter)/(1+jitter) for jitter %g", s[3]*s[3], d)
	}
	t.Logf("rank-3 8×8 jitter %g; singular 2×2 jitter %g", d8, d)
}

// TestCholeskyJitterIllConditioned: for condition numbers beyond 1/ε the
// factorisation may fail; CholeskyJitter then succeeds with a jitter from
// its schedule and L·Lᵀ reproduces A + δI to working precision.
func TestCholeskyJitterIllConditioned(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, n := range []int{5, 20, 50} {
		for _, c := range []float64{1e16, 1e20} {
			a, _ := randSPD(r, n, c)
			l := make([]float64, n*n)
			plain := Cholesky(a, n, l)
			d, err := CholeskyJitter(a, n, l)
			if err != nil {
				t.Fatalf("n=%d cond=%g: %v", n, c, err)
			}
			if plain == nil && d != 0 {
				t.Fatalf("jitter %g added although Cholesky succeeds", d)
			}
			llt := naiveMul(l, transpose(l, n, n), n, n, n)
			for i := 0; i < n; i++ {
				llt[i*n+i] -= d
			}
			for i := range llt {
				llt[i] -= a[i]
			}
			rel := frob(llt) / frob(a)
			scale := 0.0
			for i := 0; i < n; i++ {
				scale += a[i*n+i] / float64(n)
			}
			t.Logf("n=%d cond=%g: Cholesky failed=%v, jitter/mean diag %.3g, ‖A+δI−LLᵀ‖/‖A‖ = %.2g", n, c, plain != nil, d/scale, rel)
			if k := math.Log10(d / scale / JitterStart); d > 0 && (math.Abs(k-math.Round(k)) > 1e-9 || k < -1e-9 || k > JitterTries-1+1e-9) {
				t.Errorf("jitter %g is not on the schedule", d)
			}
			if !(rel <= 4*float64(n)*eps) {
				t.Errorf("n=%d cond=%g: reconstruction %.3g", n, c, rel)
			}
		}
	}
}

// TestExtremeScales: SymEigen works on matrices whose squared elements
// overflow or underflow, and results scale exactly with the input.
func TestExtremeScales(t *testing.T) {
	base := []float64{2, 1, 1, 2}
	for _, s := range []float64{1e300, 1e-300, 0x1p-1070} {
		a := []float64{base[0] * s, base[1] * s, base[2] * s, base[3] * s}
		vals := make([]float64, 2)
		vecs := make([]float64, 4)
		if err := SymEigen(a, 2, vals, vecs); err != nil {
			t.Fatalf("scale %g: %v", s, err)
		}
		if relErr := math.Abs(vals[0]/s-1) + math.Abs(vals[1]/s-3); !(relErr <= 1e-12) && s > 1e-310 {
			t.Errorf("scale %g: eigenvalues %v", s, vals)
		}
		if !(math.Abs(math.Abs(vecs[1])-math.Sqrt(0.5)) <= 1e-12) {
			t.Errorf("scale %g: vecs %v", s, vecs)
		}
	}
	// A positive-definite matrix whose inverse overflows: 1/1e-320.
	inv := make([]float64, 4)
	if err := InvSPD([]float64{1e-320, 0, 0, 1}, 2, inv); !errors.Is(err, ErrNotPositiveDefinite) {
		t.Errorf("overflowing inverse: err = %v, inv = %v", err, inv)
	}
}

// TestSqDist checks exact small cases (a 3-4-5 triangle, a longer b whose
// tail is ignored, empty a) and that a shorter b panics.
func TestSqDist(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{0, 0}, []float64{3, 4}, 25},
		{[]float64{1, -2, 0.5}, []float64{1, 2, -0.5, 99}, 17},
		{nil, []float64{1}, 0},
	} {
		if got := SqDist(c.a, c.b); got != c.want {
			t.Errorf("SqDist(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SqDist with b shorter than a did not panic")
		}
	}()
	SqDist([]float64{1, 2}, []float64{1})
}
