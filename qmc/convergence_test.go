package qmc_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/qmc"
)

// method builds a randomized point set of dimension d.
type method struct {
	name string
	make func(d int, r *rand.Rand) qmc.Randomized
}

func sobolMethod(name string, sc qmc.Scramble) method {
	return method{name, func(d int, r *rand.Rand) qmc.Randomized {
		s, err := qmc.NewSobol(qmc.SobolConfig{Dim: d, Scramble: sc}, r)
		if err != nil {
			panic(err)
		}
		return s
	}}
}

var (
	owenM  = sobolMethod("sobol-owen", qmc.Owen)
	treeM  = sobolMethod("sobol-owen-tree", qmc.OwenTree)
	lmsM   = sobolMethod("sobol-lms+shift", qmc.LinearMatrixShift)
	shiftM = sobolMethod("sobol-digital-shift", qmc.DigitalShift)
	rotM   = method{"sobol-cranley-patterson", func(d int, r *rand.Rand) qmc.Randomized {
		s, _ := qmc.NewSobol(qmc.SobolConfig{Dim: d}, nil)
		c, _ := qmc.NewRotation(s, r)
		return c
	}}
	haltonM = method{"halton-perm", func(d int, r *rand.Rand) qmc.Randomized {
		h, _ := qmc.NewHalton(qmc.HaltonConfig{Dim: d, Scrambled: true}, r)
		return h
	}}
	mcM = method{"monte-carlo", func(d int, r *rand.Rand) qmc.Randomized {
		m, _ := qmc.NewMonteCarlo(d, r)
		return m
	}}
)

// rmseCurve returns the RMSE of the n-point estimator for each n in ms,
// from R independent replicates. If exact is finite the RMSE is measured
// against it; otherwise it is the replicate standard deviation (all the
// estimators are unbiased, so the MSE equals the variance).
func rmseCurve(t *testing.T, m method, d int, f qmc.Integrand, exact float64, ms []int, R int, seed uint64) []float64 {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	seq := m.make(d, r)
	vals := make([]float64, R)
	out := make([]float64, len(ms))
	for i, n := range ms {
		if err := qmc.Replicates(context.Background(), seq, f, n, vals, r); err != nil {
			t.Fatal(err)
		}
		var mean, ss float64
		for _, v := range vals {
			mean += v
		}
		mean /= float64(R)
		if !math.IsNaN(exact) {
			for _, v := range vals {
				ss += (v - exact) * (v - exact)
			}
			out[i] = math.Sqrt(ss / float64(R))
		} else {
			for _, v := range vals {
				ss += (v - mean) * (v - mean)
			}
			out[i] = math.Sqrt(ss / float64(R-1))
		}
	}
	return out
}

// slope is the least-squares slope of log RMSE against log M.
func slope(ms []int, rmse []float64) float64 {
	var sx, sy, sxx, sxy float64
	for i, m := range ms {
		x, y := math.Log(float64(m)), math.Log(rmse[i])
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	n := float64(len(ms))
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

func powers(lo, hi, step int) []int {
	var ms []int
	for k := lo; k <= hi; k += step {
		ms = append(ms, 1<<uint(k))
	}
	return ms
}

// Genz product peak f(u) = Π_j 1/(a_j^-2 + (u_j − w_j)²) with its exact
// integral Π_j a_j [atan(a_j(1 − w_j)) + atan(a_j w_j)].
func productPeak(a, w []float64) (qmc.Integrand, float64) {
	exact := 1.0
	for j := range a {
		exact *= a[j] * (math.Atan(a[j]*(1-w[j])) + math.Atan(a[j]*w[j]))
	}
	f := func(u []float64) float64 {
		p := 1.0
		for j := range a {
			z := u[j] - w[j]
			p *= 1 / (1/(a[j]*a[j]) + z*z)
		}
		return p / exact
	}
	return f, 1
}

// logMixture is a smooth non-additive log density on R^d, standing in for
// a flow's log q(s_dp | θ): a two-component isotropic Gaussian mixture.
type logMixture struct {
	mu1, mu2       []float64
	sig1, sig2, w1 float64
}

func (g logMixture) eval(y []float64) float64 {
	var q1, q2 float64
	for i, v := range y {
		a, b := (v-g.mu1[i])/g.sig1, (v-g.mu2[i])/g.sig2
		q1 += a * a
		q2 += b * b
	}
	d := float64(len(y))
	l1 := math.Log(g.w1) - 0.5*q1 - d*math.Log(g.sig1)
	l2 := math.Log(1-g.w1) - 0.5*q2 - d*math.Log(g.sig2)
	hi := math.Max(l1, l2)
	return hi + math.Log(math.Exp(l1-hi)+math.Exp(l2-hi))
}

// sbiIntegrand returns u ↦ g(τ(u; s)) for a mechanism's uniform transform:
// the inner integral ∫ η(s_dp|s) g(s_dp) ds_dp of the SBI paper, eq. (9).
func sbiIntegrand(tr mechanism.Transform, s []float64, g logMixture) qmc.Integrand {
	y := make([]float64, len(s))
	return func(u []float64) float64 {
		tr.Apply(u, s, y)
		return g.eval(y)
	}
}

// laplaceCase is the inner integral for a d-dimensional Laplace release
// (Δ1 = 1, ε = 2, scale 1/2) of a statistic s.
func laplaceCase(t *testing.T, d int) qmc.Integrand {
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 1, Epsilon: 2, Dim: d})
	if err != nil {
		t.Fatal(err)
	}
	s, mu1, mu2 := make([]float64, d), make([]float64, d), make([]float64, d)
	for i := range s {
		s[i] = 0.3 * float64(i%3)
		mu1[i] = s[i] + 0.2
		mu2[i] = s[i] - 0.5
	}
	return sbiIntegrand(lap, s, logMixture{mu1, mu2, 0.8, 1.3, 0.6})
}

// trajectoryCase is the inner integral for the DP infection trajectory of
// SBI Prop. 4 with the paper's SIR settings n = m = 1000, K = 10^6, L = 10,
// at a trajectory shaped like the paper's observed release.
func trajectoryCase(t *testing.T) qmc.Integrand {
	tr, err := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 1000000, Times: 10})
	if err != nil {
		t.Fatal(err)
	}
	s := []float64{0, 30000, 614000, 263000, 123000, 47000, 18000, 9000, 5000, 3000}
	mu1, mu2 := make([]float64, 10), make([]float64, 10)
	for i, v := range s {
		p := tr.Prob(v)
		mu1[i] = p + 0.01
		mu2[i] = 0.9 * p
	}
	return sbiIntegrand(tr, s, logMixture{mu1, mu2, 0.03, 0.05, 0.5})
}

type slopeCheck struct {
	m      method
	lo, hi float64
}

func runSlopes(t *testing.T, label string, d int, f qmc.Integrand, exact float64, ms []int, R int, checks []slopeCheck) {
	for k, c := range checks {
		rm := rmseCurve(t, c.m, d, f, exact, ms, R, uint64(1000+k))
		sl := slope(ms, rm)
		h := len(ms) / 2
		t.Logf("%s d=%d %-24s M=%d..%d R=%d slope %.3f (M≥%d: %.3f)  RMSE %.3g → %.3g", label, d, c.m.name, ms[0], ms[len(ms)-1], R, sl, ms[h], slope(ms[h:], rm[h:]), rm[0], rm[len(rm)-1])
		if testing.Verbose() && len(ms) > 5 {
			line := ""
			for i := range ms {
				line += fmt.Sprintf(" %.3g", rm[i])
			}
			t.Logf("    RMSE by M:%s", line)
		}
		if !(sl >= c.lo && sl <= c.hi) {
			t.Errorf("%s %s: slope %.3f outside [%.2f, %.2f]", label, c.m.name, sl, c.lo, c.hi)
		}
	}
}

// TestConvergenceQuick is the default-run version of the convergence
// study: a few M values and loose but discriminating bounds (nested/linear
// scrambling is far steeper than −1 on the smooth integrand, Monte Carlo
// is near −1/2 and RQMC clearly steeper on the SBI inner integrals). The
// seeds are fixed, so the outcome is deterministic; the bounds hold with
// wide margins in the long study (see TestConvergenceLong).
func TestConvergenceQuick(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ms := powers(6, 12, 2)
	f, ex := productPeak([]float64{5, 5}, []float64{0.3, 0.6})
	runSlopes(t, "genz-product-peak", 2, f, ex, ms, 48, []slopeCheck{
		{owenM, -1.9, -1.25}, {lmsM, -1.9, -1.25}, {mcM, -0.7, -0.3},
	})
	runSlopes(t, "sbi-laplace", 3, laplaceCase(t, 3), math.NaN(), ms, 48, []slopeCheck{
		{owenM, -1.9, -0.85}, {mcM, -0.7, -0.3},
	})
	runSlopes(t, "sbi-trajectory", 10, trajectoryCase(t), math.NaN(), powers(6, 10, 2), 32, []slopeCheck{
		{owenM, -1.6, -0.7}, {mcM, -0.7, -0.3},
	})
}

// TestConvergenceLong is the full study, M = 2^4 … 2^16, reported through
// t.Logf (run with PRIVINFER_LONG=1 go test -run ConvergenceLong -v).
func TestConvergenceLong(t *testing.T) {
	testutil.Long(t)
	ms := powers(4, 16, 1)
	f, ex := productPeak([]float64{5, 5}, []float64{0.3, 0.6})
	runSlopes(t, "genz-product-peak", 2, f, ex, ms, 200, []slopeCheck{
		{owenM, -1.7, -1.3}, {treeM, -1.7, -1.3}, {lmsM, -1.7, -1.3},
		{shiftM, -1.4, -0.9}, {rotM, -1.4, -0.9}, {haltonM, -1.3, -0.8}, {mcM, -0.6, -0.4},
	})
	// In d = 4 the (log M)^((d−1)/2) factor flattens the fitted slope over
	// this range of M.
	f4, ex4 := productPeak([]float64{4, 6, 5, 3}, []float64{0.3, 0.6, 0.5, 0.2})
	runSlopes(t, "genz-product-peak", 4, f4, ex4, ms, 100, []slopeCheck{
		{owenM, -1.7, -0.95}, {treeM, -1.7, -0.95}, {lmsM, -1.7, -0.95}, {mcM, -0.6, -0.4},
	})
	runSlopes(t, "sbi-laplace", 3, laplaceCase(t, 3), math.NaN(), ms, 100, []slopeCheck{
		{owenM, -1.8, -0.8}, {treeM, -1.8, -0.8}, {lmsM, -1.8, -0.8}, {shiftM, -1.5, -0.7}, {mcM, -0.6, -0.4},
	})
	runSlopes(t, "sbi-laplace", 9, laplaceCase(t, 9), math.NaN(), ms, 100, []slopeCheck{
		{owenM, -1.6, -0.7}, {lmsM, -1.6, -0.7}, {mcM, -0.6, -0.4},
	})
	runSlopes(t, "sbi-trajectory", 10, trajectoryCase(t), math.NaN(), ms, 40, []slopeCheck{
		{owenM, -1.6, -0.6}, {lmsM, -1.6, -0.6}, {mcM, -0.6, -0.4},
	})
}
