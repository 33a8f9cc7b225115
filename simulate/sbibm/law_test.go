package sbibm

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
)

// The law tests below use fixed seeds. Each moment check is a z-test at
// |z| ≤ 5 (two-sided false alarm 5.7·10⁻⁷ per check) and each KS test
// fails at p < 10⁻⁵; with fewer than 200 checks in this file the chance
// that a correct simulator fails any of them is below 10⁻³.
const (
	zMax   = 5.0
	ksPMin = 1e-5
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5b1b)) }

// simulateN draws n data sets of the task at θ (row-major n×DataDim).
func simulateN(t *testing.T, task *Task, theta []float64, n int, seed uint64) []float64 {
	t.Helper()
	sd := task.DataDim()
	out := make([]float64, n*sd)
	r := newRand(seed)
	for i := range n {
		if err := task.Simulator().Simulate(r, theta, out[i*sd:(i+1)*sd]); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// checkZ fails when |est − want| > zMax·se.
func checkZ(t *testing.T, what string, est, want, se float64) {
	t.Helper()
	if z := (est - want) / se; !(math.Abs(z) <= zMax) {
		t.Errorf("%s = %.6g, want %.6g (se %.3g, z = %.2f)", what, est, want, se, z)
	}
}

// checkMoments z-tests the sample mean and covariance of x (n×d) against
// mean and cov, for a Gaussian law (Var of a product xᵢxⱼ is
// σᵢ²σⱼ² + σᵢⱼ²).
func checkMoments(t *testing.T, what string, x []float64, d int, mean, cov []float64) {
	t.Helper()
	n := len(x) / d
	m := make([]float64, d)
	for i := range n {
		for j := range d {
			m[j] += x[i*d+j]
		}
	}
	for j := range m {
		m[j] /= float64(n)
		checkZ(t, what+" mean", m[j], mean[j], math.Sqrt(cov[j*d+j]/float64(n)))
	}
	for a := range d {
		for b := a; b < d; b++ {
			c := 0.0
			for i := range n {
				c += (x[i*d+a] - m[a]) * (x[i*d+b] - m[b])
			}
			c /= float64(n - 1)
			want := cov[a*d+b]
			se := math.Sqrt((cov[a*d+a]*cov[b*d+b] + want*want) / float64(n))
			checkZ(t, what+" cov", c, want, se)
		}
	}
}

// rot returns z = R(−π/4)θ as the benchmark writes it: c = cos(−π/4),
// s = sin(−π/4), z0 = cθ0 − sθ1, z1 = sθ0 + cθ1.
func rot(theta []float64) (z0, z1 float64) {
	c, s := math.Cos(-math.Pi/4), math.Sin(-math.Pi/4)
	return c*theta[0] - s*theta[1], s*theta[0] + c*theta[1]
}

// moonPolar inverts the two-moons map at θ: p = x − (−|z0|, z1), and
// returns u = p0 − 0.25, the radius and the angle of (u, p1).
func moonPolar(theta, x []float64) (u, rad, ang float64) {
	z0, z1 := rot(theta)
	p0, p1 := x[0]+math.Abs(z0), x[1]-z1
	u = p0 - 0.25
	return u, math.Hypot(u, p1), math.Atan2(p1, u)
}

// TestTwoMoonsLaw checks the simulator against the benchmark's definition:
// mapping each draw back through the task's own formulas gives a radius
// ~ N(0.1, 0.01²) and an angle ~ U(−π/2, π/2) (KS tests), on both sides of
// the fold |z0|.
func TestTwoMoonsLaw(t *testing.T) {
	task := NewTwoMoons()
	for k, theta := range [][]float64{{0.3, -0.5}, {-0.8, 0.6}, {0.5, 0.7}, {0, 0}} {
		n := 20000
		x := simulateN(t, task, theta, n, uint64(100+k))
		rads, angs := make([]float64, n), make([]float64, n)
		for i := range n {
			var u float64
			u, rads[i], angs[i] = moonPolar(theta, x[2*i:2*i+2])
			if !(u > 0) {
				t.Fatalf("θ=%v draw %d: u = %v, want > 0", theta, i, u)
			}
		}
		if _, p := stats.KSOneSample(rads, func(v float64) float64 { return special.NormCDF((v - 0.1) / 0.01) }); p < ksPMin {
			t.Errorf("θ=%v: radius KS p = %.3g", theta, p)
		}
		if _, p := stats.KSOneSample(angs, func(v float64) float64 { return min(max(v/math.Pi+0.5, 0), 1) }); p < ksPMin {
			t.Errorf("θ=%v: angle KS p = %.3g", theta, p)
		}
	}
}

// TestGaussianLinearLaw checks x ~ N(θ, 0.1·I) by its first two moments.
func TestGaussianLinearLaw(t *testing.T) {
	task := NewGaussianLinear()
	d := task.Dim()
	theta := make([]float64, d)
	for i := range theta {
		theta[i] = 0.3 * float64(i-4)
	}
	x := simulateN(t, task, theta, 20000, 7)
	cov := make([]float64, d*d)
	for i := range d {
		cov[i*d+i] = 0.1
	}
	checkMoments(t, "Gaussian linear x", x, d, theta, cov)
}

// TestSLCPLaw checks each of the four points against N(m, S) with S from
// the task's formula, and the points' independence (zero cross-covariance),
// at θ with strong and with negative correlation.
func TestSLCPLaw(t *testing.T) {
	task := NewSLCP()
	for k, theta := range [][]float64{{0.5, -1, 1.2, -0.8, 0.7}, {-2, 2.5, -0.6, 1.5, -1.8}} {
		n := 20000
		x := simulateN(t, task, theta, n, uint64(20+k))
		s1, s2, rho := theta[2]*theta[2], theta[3]*theta[3], math.Tanh(theta[4])
		s := []float64{s1*s1 + 1e-6, rho * s1 * s2, rho * s1 * s2, s2*s2 + 1e-6}
		// The full 8×8 covariance: S on the diagonal blocks, 0 elsewhere.
		cov := make([]float64, 64)
		mean := make([]float64, 8)
		for p := range 4 {
			mean[2*p], mean[2*p+1] = theta[0], theta[1]
			for a := range 2 {
				for b := range 2 {
					cov[(2*p+a)*8+2*p+b] = s[a*2+b]
				}
			}
		}
		checkMoments(t, "SLCP x", x, 8, mean, cov)
	}
}

// mixtureCDF is the CDF of a coordinate's deviation x − θ under the
// Gaussian mixture task's simulator.
func mixtureCDF(v float64) float64 {
	return 0.5*special.NormCDF(v/1) + 0.5*special.NormCDF(v/0.1)
}

// TestGaussianMixtureLaw checks each coordinate's deviation x − θ against
// the mixture CDF (KS) and the shared component index: the probability
// that both deviations are within 0.15 is ½p₁² + ½p₀.₁², with
// pₛ = P(|N(0, s²)| < 0.15), not (½p₁ + ½p₀.₁)².
func TestGaussianMixtureLaw(t *testing.T) {
	task := NewGaussianMixture()
	theta := []float64{3, -7}
	n := 40000
	x := simulateN(t, task, theta, n, 31)
	dev := [2][]float64{make([]float64, n), make([]float64, n)}
	both := 0
	for i := range n {
		dev[0][i], dev[1][i] = x[2*i]-theta[0], x[2*i+1]-theta[1]
		if math.Abs(dev[0][i]) < 0.15 && math.Abs(dev[1][i]) < 0.15 {
			both++
		}
	}
	for j := range 2 {
		if _, p := stats.KSOneSample(dev[j], mixtureCDF); p < ksPMin {
			t.Errorf("coordinate %d: KS p = %.3g", j, p)
		}
	}
	in := func(s float64) float64 { return 2*special.NormCDF(0.15/s) - 1 }
	want := 0.5*in(1)*in(1) + 0.5*in(0.1)*in(0.1)
	frac := float64(both) / float64(n)
	checkZ(t, "P(both deviations < 0.15)", frac, want, math.Sqrt(want*(1-want)/float64(n)))
}

// TestPriors checks each prior's draws (KS per coordinate against the
// task's stated marginal) and its log density at one point.
func TestPriors(t *testing.T) {
	unif := func(lo, hi float64) func(float64) float64 {
		return func(v float64) float64 { return min(max((v-lo)/(hi-lo), 0), 1) }
	}
	cases := []struct {
		task   *Task
		cdf    func(float64) float64
		logDen func(theta []float64) float64
	}{
		{NewTwoMoons(), unif(-1, 1), func(th []float64) float64 { return 2 * math.Log(0.5) }},
		{NewSLCP(), unif(-3, 3), func(th []float64) float64 { return 5 * math.Log(1.0/6) }},
		{NewGaussianMixture(), unif(-10, 10), func(th []float64) float64 { return 2 * math.Log(1.0/20) }},
		{NewGaussianLinear(), func(v float64) float64 { return special.NormCDF(v / math.Sqrt(0.1)) }, func(th []float64) float64 {
			s := 0.0
			for _, v := range th {
				s += -0.5*v*v/0.1 - 0.5*math.Log(2*math.Pi*0.1)
			}
			return s
		}},
	}
	for k, c := range cases {
		d := c.task.Dim()
		n := 5000
		r := newRand(uint64(40 + k))
		cols := make([][]float64, d)
		theta := make([]float64, d)
		for range n {
			c.task.Prior().Sample(r, theta)
			for j := range d {
				cols[j] = append(cols[j], theta[j])
			}
		}
		for j := range d {
			if _, p := stats.KSOneSample(cols[j], c.cdf); p < ksPMin {
				t.Errorf("%s prior coordinate %d: KS p = %.3g", c.task.Name(), j, p)
			}
		}
		if got, want := c.task.Prior().LogDensity(theta), c.logDen(theta); math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("%s prior log density = %v, want %v", c.task.Name(), got, want)
		}
	}
}

// TestLikelihoodRatioIdentity checks LogLikelihood against the simulator
// through E_{x ~ p(·|θ)}[p(x|θ′)/p(x|θ)] = 1 for θ′ near θ, which fails if
// the density's shape or its θ-dependent normaliser (SLCP's det S) is
// wrong. Each is a z-test at |z| ≤ 5.
func TestLikelihoodRatioIdentity(t *testing.T) {
	cases := []struct {
		task     *Task
		th, th2  []float64
		draws    int
		seedBase uint64
	}{
		{NewGaussianLinear(), []float64{0.1, -0.2, 0.3, 0, 0.5, -0.4, 0.2, 0.1, -0.1, 0}, []float64{0.15, -0.25, 0.3, 0.05, 0.45, -0.4, 0.25, 0.1, -0.05, 0}, 40000, 50},
		{NewSLCP(), []float64{0.5, -1, 1.2, -0.8, 0.7}, []float64{0.55, -1.02, 1.24, -0.78, 0.75}, 40000, 51},
		{NewGaussianMixture(), []float64{1, 2}, []float64{1.03, 1.98}, 40000, 52},
	}
	for _, c := range cases {
		x := simulateN(t, c.task, c.th, c.draws, c.seedBase)
		sd := c.task.DataDim()
		w := make([]float64, c.draws)
		for i := range w {
			xi := x[i*sd : (i+1)*sd]
			w[i] = math.Exp(c.task.LogLikelihood(c.th2, xi) - c.task.LogLikelihood(c.th, xi))
		}
		m, v := stats.Mean(w), stats.Variance(w)
		checkZ(t, c.task.Name()+" E[likelihood ratio]", m, 1, math.Sqrt(v/float64(len(w))))
	}
}

// TestLikelihoodNormalised checks ∫ p(x|θ) dx = 1 for the two 2-D tasks by
// importance sampling from a wide Gaussian around the simulated data (a
// z-test at |z| ≤ 5); for two moons this checks the 1/(πr) factor.
func TestLikelihoodNormalised(t *testing.T) {
	cases := []struct {
		task  *Task
		theta []float64
	}{
		{NewTwoMoons(), []float64{0.3, -0.5}},
		{NewTwoMoons(), []float64{-0.6, -0.2}},
		{NewGaussianMixture(), []float64{1, 2}},
	}
	for k, c := range cases {
		x := simulateN(t, c.task, c.theta, 2000, uint64(60+k))
		m := []float64{stats.Mean(col(x, 2, 0)), stats.Mean(col(x, 2, 1))}
		s := []float64{3 * math.Sqrt(stats.Variance(col(x, 2, 0))), 3 * math.Sqrt(stats.Variance(col(x, 2, 1)))}
		r := newRand(uint64(70 + k))
		n := 200000
		w := make([]float64, n)
		pt := make([]float64, 2)
		for i := range w {
			lq := 0.0
			for j := range 2 {
				z := r.NormFloat64()
				pt[j] = m[j] + s[j]*z
				lq += -0.5*z*z - math.Log(s[j]) - logSqrt2Pi
			}
			w[i] = math.Exp(c.task.LogLikelihood(c.theta, pt) - lq)
		}
		checkZ(t, c.task.Name()+" ∫ p(x|θ) dx", stats.Mean(w), 1, math.Sqrt(stats.Variance(w)/float64(n)))
	}
}

// col returns column j of the n×d matrix x.
func col(x []float64, d, j int) []float64 {
	out := make([]float64, len(x)/d)
	for i := range out {
		out[i] = x[i*d+j]
	}
	return out
}

// TestGaussianLinearPosterior checks the closed form against the conjugate
// update written out: precision 10 + 10 = 20, so variance 0.05 and mean
// x/2.
func TestGaussianLinearPosterior(t *testing.T) {
	x := []float64{1, -2, 0.5, 0, 3, -1, 0.2, 0.4, -0.6, 2}
	mean, cov, err := GaussianLinearPosterior(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if math.Abs(mean[i]-x[i]/2) > 1e-15 {
			t.Errorf("mean[%d] = %v, want %v", i, mean[i], x[i]/2)
		}
		for j := range x {
			want := 0.0
			if i == j {
				want = 0.05
			}
			if math.Abs(cov[i*10+j]-want) > 1e-16 {
				t.Errorf("cov[%d,%d] = %v, want %v", i, j, cov[i*10+j], want)
			}
		}
	}
}

// TestSimulateAllocatesNothing: every simulator and likelihood is
// allocation-free.
func TestSimulateAllocatesNothing(t *testing.T) {
	r := newRand(1)
	for _, name := range Names() {
		task, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		theta := make([]float64, task.Dim())
		task.Prior().Sample(r, theta)
		x := make([]float64, task.DataDim())
		if a := testing.AllocsPerRun(100, func() {
			if err := task.Simulator().Simulate(r, theta, x); err != nil {
				t.Fatal(err)
			}
			_ = task.LogLikelihood(theta, x)
		}); a != 0 {
			t.Errorf("%s: %v allocations per simulation", name, a)
		}
	}
}

// BenchmarkSimulate measures one simulation of each task.
func BenchmarkSimulate(b *testing.B) {
	for _, name := range Names() {
		task, _ := New(name)
		b.Run(name, func(b *testing.B) {
			r := newRand(1)
			theta := make([]float64, task.Dim())
			task.Prior().Sample(r, theta)
			x := make([]float64, task.DataDim())
			b.ReportAllocs()
			for b.Loop() {
				_ = task.Simulator().Simulate(r, theta, x)
			}
		})
	}
}
