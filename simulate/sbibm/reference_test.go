package sbibm

import (
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
)

// refDir returns the benchmark's directory (Dir, else ../shared/sbibm next
// to the repository) and skips the test when it is absent.
func refDir(t *testing.T) string {
	t.Helper()
	dir := Dir()
	if dir == "" {
		dir = filepath.Join(testutil.SharedDir(t, "simulate/sbibm"), "sbibm")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("sbibm reference directory %s not present", dir)
	}
	return dir
}

// refCache holds the reference samples read so far, so that each
// compressed file is decoded once per test binary.
var refCache sync.Map // "task/k" → *privinfer.Draws

// reference returns the task's reference samples of observation k.
func reference(t *testing.T, dir string, task *Task, k int) *privinfer.Draws {
	t.Helper()
	key := task.Name() + "/" + string(rune('0'+k))
	if d, ok := refCache.Load(key); ok {
		return d.(*privinfer.Draws)
	}
	d, err := task.Reference(dir, k)
	if err != nil {
		t.Fatal(err)
	}
	refCache.Store(key, d)
	return d
}

// TestLoadAll reads every task's ten observations, true parameters and
// reference samples and checks their shapes, and that the observation's
// likelihood at the true parameters is finite (the task's simulator can
// produce it).
func TestLoadAll(t *testing.T) {
	dir := refDir(t)
	for _, name := range Names() {
		task, _ := New(name)
		for k := 1; k <= Observations; k++ {
			x, err := task.Observation(dir, k)
			if err != nil {
				t.Fatal(err)
			}
			th, err := task.TrueParameters(dir, k)
			if err != nil {
				t.Fatal(err)
			}
			ref := reference(t, dir, task, k)
			if ref.Len() != 10000 || ref.Dim != task.Dim() || ref.Weights != nil {
				t.Fatalf("%s/%d: reference has %d draws of dim %d", name, k, ref.Len(), ref.Dim)
			}
			if ll := task.LogLikelihood(th, x); math.IsInf(ll, 0) || math.IsNaN(ll) {
				t.Errorf("%s/%d: log p(x°|θ°) = %v", name, k, ll)
			}
			if lp := task.Prior().LogDensity(th); math.IsInf(lp, 0) || math.IsNaN(lp) {
				t.Errorf("%s/%d: log π(θ°) = %v", name, k, lp)
			}
			for i := range ref.Len() {
				if lp := task.Prior().LogDensity(ref.Row(i)); math.IsInf(lp, -1) {
					t.Fatalf("%s/%d: reference draw %d = %v is outside the prior's support", name, k, i, ref.Row(i))
				}
			}
		}
	}
}

// TestGaussianLinearReference checks the benchmark's reference samples
// against the closed-form posterior N(x/2, 0.05·I): every mean, variance
// and covariance by a z-test at |z| ≤ 5 (650 checks at 5.7·10⁻⁷: false
// alarm below 4·10⁻⁴). It also checks the variance convention: over the
// ten observations, Σ (x − θ°)²/0.1 ~ χ²₁₀₀ and Σ θ°²/0.1 ~ χ²₁₀₀ (each
// two-sided at 10⁻⁵); with standard deviations of 0.1 instead they would be
// near 1000.
func TestGaussianLinearReference(t *testing.T) {
	dir := refDir(t)
	task := NewGaussianLinear()
	var chiNoise, chiPrior float64
	for k := 1; k <= Observations; k++ {
		x, err := task.Observation(dir, k)
		if err != nil {
			t.Fatal(err)
		}
		th, err := task.TrueParameters(dir, k)
		if err != nil {
			t.Fatal(err)
		}
		for i := range x {
			chiNoise += (x[i] - th[i]) * (x[i] - th[i]) / 0.1
			chiPrior += th[i] * th[i] / 0.1
		}
		ref := reference(t, dir, task, k)
		mean, cov, err := GaussianLinearPosterior(x)
		if err != nil {
			t.Fatal(err)
		}
		checkMoments(t, "gaussian_linear reference", ref.Theta, 10, mean, cov)
	}
	for _, c := range []struct {
		what string
		v    float64
	}{{"Σ (x − θ°)²/0.1", chiNoise}, {"Σ θ°²/0.1", chiPrior}} {
		if p := special.ChiSquareCDF(c.v, 100); p < 0.5e-5 || p > 1-0.5e-5 {
			t.Errorf("%s = %.1f is extreme for χ²₁₀₀ (CDF %.3g)", c.what, c.v, p)
		}
	}
}

// TestTwoMoonsReference checks the reference samples against the task's
// map: for every draw θ of observation x°, x° − (−|z0|, z1) must lie on a
// moon, u > 0 and the radius within seven standard deviations of 0.1 (the
// chance that one of 10⁵ exact draws has |r − 0.1| > 0.07 is below 10⁻⁶).
// The reference stores float32 values, hence the tolerance on u.
func TestTwoMoonsReference(t *testing.T) {
	dir := refDir(t)
	task := NewTwoMoons()
	for k := 1; k <= Observations; k++ {
		x, err := task.Observation(dir, k)
		if err != nil {
			t.Fatal(err)
		}
		ref := reference(t, dir, task, k)
		bad := 0
		for i := range ref.Len() {
			u, rad, _ := moonPolar(ref.Row(i), x)
			if u < -1e-5 || math.Abs(rad-0.1) > 0.07 {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("observation %d: %d reference draws are not on the moon of x°", k, bad)
		}
	}
}

// mixtureMarginalCDF returns the CDF of the posterior marginal of θ_j of
// the Gaussian mixture task at x (the mixture centred at x truncated to
// [−10, 10]²): the other coordinate's truncation weighs each component by
// its mass inside the box.
func mixtureMarginalCDF(x []float64, j int) func(float64) float64 {
	o := x[1-j]
	b := 10.0
	sds := []float64{1, 0.1}
	w := make([]float64, 2)
	z := 0.0
	for c, s := range sds {
		w[c] = 0.5 * (special.NormCDF((b-o)/s) - special.NormCDF((-b-o)/s))
		z += w[c] * (special.NormCDF((b-x[j])/s) - special.NormCDF((-b-x[j])/s))
	}
	return func(v float64) float64 {
		v = min(max(v, -b), b)
		f := 0.0
		for c, s := range sds {
			f += w[c] * (special.NormCDF((v-x[j])/s) - special.NormCDF((-b-x[j])/s))
		}
		return min(max(f/z, 0), 1)
	}
}

// TestGaussianMixtureReference checks each coordinate of the reference
// samples against the closed-form posterior marginal by a KS test at
// p < 10⁻⁵ (20 tests: false alarm 2·10⁻⁴).
func TestGaussianMixtureReference(t *testing.T) {
	dir := refDir(t)
	task := NewGaussianMixture()
	for k := 1; k <= Observations; k++ {
		x, err := task.Observation(dir, k)
		if err != nil {
			t.Fatal(err)
		}
		ref := reference(t, dir, task, k)
		for j := range 2 {
			if _, p := stats.KSOneSample(ref.Column(j), mixtureMarginalCDF(x, j)); p < ksPMin {
				t.Errorf("observation %d coordinate %d: KS p = %.3g", k, j, p)
			}
		}
	}
}

// TestSLCPReference checks what the task's likelihood implies about its
// posterior: it depends on θ₃ and θ₄ only through their squares, so each
// sign is positive in half the reference draws (binomial z-tests at
// |z| ≤ 5, 20 of them), and the reference draws explain x° far better
// than draws from the prior (mean log-likelihood higher by at least 10).
func TestSLCPReference(t *testing.T) {
	dir := refDir(t)
	task := NewSLCP()
	r := newRand(80)
	theta := make([]float64, 5)
	for k := 1; k <= Observations; k++ {
		x, err := task.Observation(dir, k)
		if err != nil {
			t.Fatal(err)
		}
		ref := reference(t, dir, task, k)
		n := ref.Len()
		for _, j := range []int{2, 3} {
			pos := 0
			for i := range n {
				if ref.Row(i)[j] > 0 {
					pos++
				}
			}
			checkZ(t, "fraction of θ_"+string(rune('1'+j))+" > 0", float64(pos)/float64(n), 0.5, math.Sqrt(0.25/float64(n)))
		}
		var llRef, llPrior float64
		for i := range n {
			llRef += task.LogLikelihood(ref.Row(i), x)
			task.Prior().Sample(r, theta)
			llPrior += max(task.LogLikelihood(theta, x), -1e6)
		}
		if llRef/float64(n) < llPrior/float64(n)+10 {
			t.Errorf("observation %d: mean log-likelihood %.1f at the reference, %.1f at prior draws", k, llRef/float64(n), llPrior/float64(n))
		}
	}
}
