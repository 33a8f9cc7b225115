package optim

import (
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

func rosenbrock(x []float64) float64 {
	a, b := 1-x[0], x[1]-x[0]*x[0]
	return a*a + 100*b*b
}

// TestNelderMeadRosenbrock minimises the Rosenbrock function from the
// classical start (−1.2, 1): the minimum is f(1, 1) = 0, reached along a
// curved valley that defeats a poorly implemented simplex method.
func TestNelderMeadRosenbrock(t *testing.T) {
	res, err := NelderMead(rosenbrock, []float64{-1.2, 1}, NelderMeadConfig{MaxIter: 5000, Tol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Rosenbrock: x = %v, f = %.3g after %d iterations (converged %v)", res.X, res.F, res.Iterations, res.Converged)
	if !res.Converged || math.Abs(res.X[0]-1) > 1e-4 || math.Abs(res.X[1]-1) > 2e-4 || res.F > 1e-8 {
		t.Errorf("Rosenbrock: x = %v, f = %v, converged %v; want (1, 1), 0", res.X, res.F, res.Converged)
	}
	if res.F != rosenbrock(res.X) {
		t.Errorf("F = %v is not f(X) = %v", res.F, rosenbrock(res.X))
	}
}

// TestNelderMeadQuadratic minimises a badly scaled, correlated quadratic
// f(x) = ½ (x − c)ᵀ A (x − c) + 3 in four dimensions, whose minimiser c
// and minimum 3 are known, with the default settings.
func TestNelderMeadQuadratic(t *testing.T) {
	c := []float64{1, -2, 0.5, 3}
	A := [4][4]float64{{4, 1, 0, 0}, {1, 3, 0.5, 0}, {0, 0.5, 2, 0}, {0, 0, 0, 0.5}}
	f := func(x []float64) float64 {
		s := 0.0
		for i := range 4 {
			for j := range 4 {
				s += (x[i] - c[i]) * A[i][j] * (x[j] - c[j])
			}
		}
		return 0.5*s + 3
	}
	res, err := NelderMead(f, []float64{0, 0, 0, 0}, NelderMeadConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("quadratic: x = %v, f − 3 = %.3g after %d iterations", res.X, res.F-3, res.Iterations)
	// The smallest eigenvalue of A is 0.5, so f − 3 ≤ 1e-8 implies
	// ‖x − c‖ ≤ √(2·1e-8/0.5) = 2e-4.
	if !res.Converged || res.F-3 > 1e-8 {
		t.Errorf("quadratic: f = %v, converged %v; want 3", res.F, res.Converged)
	}
	for i := range c {
		if math.Abs(res.X[i]-c[i]) > 1e-3 {
			t.Errorf("x[%d] = %v, want %v", i, res.X[i], c[i])
		}
	}
}

// TestNelderMeadExcludedPoints checks that +Inf and NaN values exclude
// points: minimising (x − 2)² restricted to x ≤ 1 (+Inf beyond, NaN
// beyond 1.5) ends at the boundary 1, and a NaN is never returned.
func TestNelderMeadExcludedPoints(t *testing.T) {
	f := func(x []float64) float64 {
		switch {
		case x[0] > 1.5:
			return math.NaN()
		case x[0] > 1:
			return math.Inf(1)
		}
		return (x[0] - 2) * (x[0] - 2)
	}
	res, err := NelderMead(f, []float64{0}, NelderMeadConfig{MaxIter: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(res.F) || res.X[0] > 1 || res.X[0] < 1-1e-4 {
		t.Errorf("constrained minimum: x = %v, f = %v; want x ≈ 1 from below", res.X, res.F)
	}
}

// TestNelderMeadMaxIter checks that MaxIter bounds the iterations and that
// a run stopped early is reported as not converged.
func TestNelderMeadMaxIter(t *testing.T) {
	res, err := NelderMead(rosenbrock, []float64{-1.2, 1}, NelderMeadConfig{MaxIter: 7})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 7 || res.Converged {
		t.Errorf("%d iterations (converged %v), want 7 and not converged", res.Iterations, res.Converged)
	}
}

// TestNelderMeadAllocations checks that iterations allocate nothing: a run
// of 2000 iterations allocates as much as a run of 5.
func TestNelderMeadAllocations(t *testing.T) {
	x0 := []float64{-1.2, 1, 0.5}
	f := func(x []float64) float64 { return rosenbrock(x) + x[2]*x[2] }
	iters := 0
	allocs := func(n int) float64 {
		return testing.AllocsPerRun(5, func() {
			res, err := NelderMead(f, x0, NelderMeadConfig{MaxIter: n, Tol: 1e-300})
			if err != nil {
				t.Fatal(err)
			}
			iters = res.Iterations
		})
	}
	a, b := allocs(5), allocs(2000)
	t.Logf("%v allocations for 5 iterations, %v for %d", a, b, iters)
	if a != b || iters < 500 {
		t.Errorf("allocations: %v for 5 iterations, %v for %d", a, b, iters)
	}
}

func TestNelderMeadBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	sq := func(x []float64) float64 { return x[0] * x[0] }
	call := func(f func([]float64) float64, x0 []float64, cfg NelderMeadConfig) func() error {
		return func() error { _, err := NelderMead(f, x0, cfg); return err }
	}
	type B = testutil.BadInput
	testutil.RunBadInput(t, ErrInvalid, []B{
		{Category: "nil", Name: "nil objective", Err: call(nil, []float64{0}, NelderMeadConfig{})},
		{Category: "empty", Name: "empty start", Err: call(sq, nil, NelderMeadConfig{})},
		{Category: "nan", Name: "start NaN", Err: call(sq, []float64{nan}, NelderMeadConfig{})},
		{Category: "inf", Name: "start Inf", Err: call(sq, []float64{inf}, NelderMeadConfig{})},
		{Category: "nan", Name: "Step NaN", Err: call(sq, []float64{0}, NelderMeadConfig{Step: nan})},
		{Category: "inf", Name: "Step Inf", Err: call(sq, []float64{0}, NelderMeadConfig{Step: inf})},
		{Category: "nonpositive", Name: "Step −1", Err: call(sq, []float64{0}, NelderMeadConfig{Step: -1})},
		{Category: "nonpositive", Name: "MaxIter −1", Err: call(sq, []float64{0}, NelderMeadConfig{MaxIter: -1})},
		{Category: "nan", Name: "Tol NaN", Err: call(sq, []float64{0}, NelderMeadConfig{Tol: nan})},
	})
}
