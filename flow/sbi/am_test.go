package sbi

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// gauss3 is the log density of a 3-d Gaussian with means mu, standard
// deviations sd spanning two orders of magnitude and correlation 0.8 between
// the first two coordinates.
var (
	gaussMu = []float64{1, -2, 50}
	gaussSD = []float64{0.1, 1, 10}
)

func gauss3(x []float64) float64 {
	const rho = 0.8
	u := (x[0] - gaussMu[0]) / gaussSD[0]
	v := (x[1] - gaussMu[1]) / gaussSD[1]
	w := (x[2] - gaussMu[2]) / gaussSD[2]
	return -0.5*(u*u-2*rho*u*v+v*v)/(1-rho*rho) - 0.5*w*w
}

// TestRunAMGaussian checks the mcmc-backed sampler on a badly scaled,
// correlated Gaussian: the means must lie within 0.15 standard deviations
// (with about 1000 effective draws the standard error is about 0.03, so
// this is a 5-standard-error band, false-alarm rate below 1e-6), the
// standard deviations within 10% and every R̂ below 1.05.
func TestRunAMGaussian(t *testing.T) {
	init := [][]float64{{0, 0, 0}, {2, -4, 80}, {1, 0, 30}, {0.5, -3, 60}}
	scale := []float64{1, 3, 30} // candidate spreads, wider than the target
	const per = 2000
	run, err := runAM(context.Background(), gauss3, 3, init, scale, 2000, per, 2, 11, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(run.draws) / 3
	if n != 4*per {
		t.Fatalf("%d draws, want %d", n, 4*per)
	}
	for k := range 3 {
		m, s2 := 0.0, 0.0
		for i := range n {
			m += run.draws[i*3+k]
		}
		m /= float64(n)
		for i := range n {
			e := run.draws[i*3+k] - m
			s2 += e * e
		}
		sd := math.Sqrt(s2 / float64(n-1))
		t.Logf("coordinate %d: mean %.4f (want %v), sd %.4f (want %v), R̂ %.4f", k, m, gaussMu[k], sd, gaussSD[k], run.rhat[k])
		if math.Abs(m-gaussMu[k]) > 0.15*gaussSD[k] {
			t.Errorf("coordinate %d: mean %v, want %v", k, m, gaussMu[k])
		}
		if math.Abs(sd/gaussSD[k]-1) > 0.1 {
			t.Errorf("coordinate %d: sd %v, want %v", k, sd, gaussSD[k])
		}
		if !(run.rhat[k] < 1.05) {
			t.Errorf("coordinate %d: R̂ %v", k, run.rhat[k])
		}
	}
	if !(run.accept > 0.1 && run.accept < 0.6) {
		t.Errorf("acceptance rate %v", run.accept)
	}
}

// TestRunAMDeterministicAndCancel checks that a seed fixes the draws and
// that a cancelled context stops the run with its error.
func TestRunAMDeterministicAndCancel(t *testing.T) {
	init := [][]float64{{1, -2, 50}, {1.1, -1, 40}}
	scale := []float64{0.1, 1, 10}
	a, err := runAM(context.Background(), gauss3, 3, init, scale, 200, 50, 2, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := runAM(context.Background(), gauss3, 3, init, scale, 200, 50, 2, 3, nil)
	if !slices.Equal(a.draws, b.draws) {
		t.Error("equal seeds gave different draws")
	}
	c, _ := runAM(context.Background(), gauss3, 3, init, scale, 200, 50, 2, 4, nil)
	if slices.Equal(a.draws, c.draws) {
		t.Error("different seeds gave equal draws")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := runAM(ctx, gauss3, 3, init, scale, 200, 50, 2, 3, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: error %v", err)
	}
	bad := func([]float64) float64 { return math.NaN() }
	if _, err := runAM(context.Background(), bad, 3, init, scale, 10, 10, 1, 3, nil); err == nil {
		t.Error("NaN log density accepted")
	}
}

// TestChainESS checks the within-chain effective sample size on draws of
// known autocorrelation: independent normals (ESS about the number of
// draws) and AR(1) chains with ρ = 0.9 (ESS about n(1−ρ)/(1+ρ) = n/19),
// within 25% (the estimate's relative sd at these lengths is a few
// percent, so the false-alarm rate is negligible); chains shifted apart,
// as chains in different modes are, keep their ESS; constant draws give
// NaN.
func TestChainESS(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const C, per, d = 8, 2000, 2
	r := rand.New(rand.NewPCG(21, 22))
	iid := make([]float64, C*per*d)
	ar := make([]float64, C*per*d)
	shifted := make([]float64, C*per*d)
	for c := 0; c < C; c++ {
		x := [d]float64{r.NormFloat64(), r.NormFloat64()}
		for i := 0; i < per; i++ {
			for k := 0; k < d; k++ {
				o := ((c*per)+i)*d + k
				iid[o] = r.NormFloat64()
				x[k] = 0.9*x[k] + math.Sqrt(1-0.81)*r.NormFloat64()
				ar[o] = x[k]
				shifted[o] = iid[o] + 100*float64(c)
			}
		}
	}
	n := float64(C * per)
	for _, tc := range []struct {
		name  string
		draws []float64
		want  float64
	}{{"independent", iid, n}, {"AR(1), ρ = 0.9", ar, n / 19}, {"independent, chains 100 sd apart", shifted, n}} {
		got := chainESS(tc.draws, C, per, d)
		if math.Abs(got/tc.want-1) > 0.25 {
			t.Errorf("%s: ESS %.0f, want about %.0f", tc.name, got, tc.want)
		}
	}
	if got := chainESS(make([]float64, C*per*d), C, per, d); !math.IsNaN(got) {
		t.Errorf("constant draws: ESS %v, want NaN", got)
	}
}

// normalChains returns the log density of the standard normal on R^d, C
// chain starts drawn from it and scales of 1.5.
func normalChains(r *rand.Rand, d, C int) (func([]float64) float64, [][]float64, []float64) {
	logp := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v * v
		}
		return -0.5 * s
	}
	starts := make([][]float64, C)
	for c := range starts {
		starts[c] = make([]float64, d)
		for k := range starts[c] {
			starts[c][k] = r.NormFloat64()
		}
	}
	return logp, starts, slices.Repeat([]float64{1.5}, d)
}

// TestSampleAMThinsAutocorrelatedDraws checks sampleAM on a 10-dimensional
// standard normal, where adaptive Metropolis draws thinned by 2 are
// strongly autocorrelated: the rerun's draws must have a within-chain ESS
// of at least half their number, and their means and standard deviations
// must match the target (5-standard-error bands for about 2000 effective
// draws).
func TestSampleAMThinsAutocorrelatedDraws(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const d, C, n = 10, 8, 4000
	logp, starts, scale := normalChains(rand.New(rand.NewPCG(5, 6)), d, C)
	first, err := runAM(context.Background(), logp, d, starts, scale, 500, n/C, 2, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	run, err := sampleAM(context.Background(), logp, d, starts, scale, 500, n, 2, 3, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ESS %.0f with thinning 2, %.0f after the rerun", first.ess, run.ess)
	if first.ess >= n/2 {
		t.Fatalf("thinning 2 gave ESS %.0f of %d draws: the test needs autocorrelated draws", first.ess, n)
	}
	if run.ess < n/2 {
		t.Errorf("ESS %.0f after the rerun, want ≥ %d", run.ess, n/2)
	}
	if run.groups != 1 {
		t.Errorf("the chains on a normal formed %d groups, want 1", run.groups)
	}
	for k := 0; k < d; k++ {
		m, s2 := 0.0, 0.0
		for i := 0; i < n; i++ {
			m += run.draws[i*d+k] / n
		}
		for i := 0; i < n; i++ {
			s2 += (run.draws[i*d+k] - m) * (run.draws[i*d+k] - m) / (n - 1)
		}
		if math.Abs(m) > 5/math.Sqrt(n/2) || math.Abs(math.Sqrt(s2)-1) > 0.1 {
			t.Errorf("coordinate %d: mean %.3f, sd %.3f, want 0 and 1", k, m, math.Sqrt(s2))
		}
	}
}
