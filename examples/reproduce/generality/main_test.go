package main

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// TestReferenceMoments checks every problem's reference draws against its
// posterior moments, computed in closed form (the Gaussian and truncated
// Gaussian posteriors) or by Simpson quadrature on a grid other than the
// sampler's (the others): at each of the five observations the mean and
// variance of 20,000 draws of every coordinate must lie within 5 standard
// errors of the moments (the variance's standard error from the draws'
// fourth central moment). Under a correct sampler each check fails with
// probability about 6·10⁻⁷, the 810 checks together with about 5·10⁻⁴.
func TestReferenceMoments(t *testing.T) {
	const n = 20000
	for _, name := range problemNames() {
		in, err := newInstance(name, n)
		if err != nil {
			t.Fatal(err)
		}
		for k, xo := range in.xo {
			mean, variance := in.moments(xo)
			for j := range in.dim {
				var m, m2, m4 float64
				for i := range n {
					m += in.ref[k][i*in.dim+j]
				}
				m /= n
				for i := range n {
					e := in.ref[k][i*in.dim+j] - m
					m2 += e * e
					m4 += e * e * e * e
				}
				m2 /= n - 1
				m4 /= n
				if se := math.Sqrt(variance[j] / n); math.Abs(m-mean[j]) > 5*se {
					t.Errorf("%s obs %d θ[%d]: draws' mean %.5f, posterior mean %.5f (s.e. %.5f)", name, k+1, j, m, mean[j], se)
				}
				if se := math.Sqrt((m4 - m2*m2) / n); math.Abs(m2-variance[j]) > 5*se {
					t.Errorf("%s obs %d θ[%d]: draws' variance %.5f, posterior variance %.5f (s.e. %.5f)", name, k+1, j, m2, variance[j], se)
				}
			}
		}
	}
}

// TestClosedForms checks the linear-Gaussian posteriors against formulas
// worked by hand: gaussD's is N(0.8x, 0.2·I), ridge2's has covariance
// [[102, −99], [−99, 102]]/603 and mean cov·(10x₁ + ... ) as given below;
// and the truncated Gaussian's moments against numerical integration.
func TestClosedForms(t *testing.T) {
	p, err := newProblem("gauss5")
	if err != nil {
		t.Fatal(err)
	}
	xo := []float64{1, -2, 0.5, 3, 0}
	mean, variance := p.moments(xo)
	for j := range xo {
		if math.Abs(mean[j]-0.8*xo[j]) > 1e-12 || math.Abs(variance[j]-0.2) > 1e-12 {
			t.Errorf("gauss5 θ[%d]: mean %v variance %v, want %v and 0.2", j, mean[j], variance[j], 0.8*xo[j])
		}
	}
	p, err = newProblem("ridge2")
	if err != nil {
		t.Fatal(err)
	}
	x := []float64{0.7, -0.4}
	mean, variance = p.moments(x)
	// AᵀD⁻¹x = (100·x₁ + x₂, 100·x₁ − x₂).
	b := []float64{100*x[0] + x[1], 100*x[0] - x[1]}
	want := []float64{(102*b[0] - 99*b[1]) / 603, (-99*b[0] + 102*b[1]) / 603}
	for j := range 2 {
		if math.Abs(mean[j]-want[j]) > 1e-12 || math.Abs(variance[j]-102.0/603) > 1e-12 {
			t.Errorf("ridge2 θ[%d]: mean %v variance %v, want %v and %v", j, mean[j], variance[j], want[j], 102.0/603)
		}
	}
	// The truncated Gaussian's moments by Simpson's rule.
	for _, mu := range []float64{-1.3, -0.2, 0.9} {
		sd := math.Sqrt(0.1)
		m, v := truncNormalMoments(mu, sd, -1, 1)
		qm, qv := quadMoments(func(t float64) float64 {
			if t < -1 || t > 1 {
				return math.Inf(-1)
			}
			return -(t - mu) * (t - mu) / (2 * sd * sd)
		}, -1, 1, 20000)
		if math.Abs(m-qm) > 1e-8 || math.Abs(v-qv) > 1e-8 {
			t.Errorf("truncated N(%v, 0.1) on [−1, 1]: moments %v, %v; quadrature %v, %v", mu, m, v, qm, qv)
		}
	}
}

// TestNormalLaplace checks the closed-form density of N(0, τ²) plus
// Laplace(b) against the convolution integral by Simpson's rule, at
// points in the bulk and far in the tails (relative error 10⁻⁶), and
// that it integrates to 1.
func TestNormalLaplace(t *testing.T) {
	tau, b := 1/math.Sqrt(10), 0.5
	conv := func(z float64) float64 {
		s := simpson(func(u float64) float64 { // u is the Gaussian part
			return math.Exp(-u*u/(2*tau*tau) - math.Abs(z-u)/b)
		}, -12*tau, 12*tau, 200000)
		return s / (math.Sqrt(2*math.Pi) * tau * 2 * b)
	}
	for _, z := range []float64{0, 0.3, -1, 2.5, -6, 15} {
		got, want := math.Exp(logNormalLaplace(z, tau, b)), conv(z)
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("density at %v: closed form %v, convolution %v", z, got, want)
		}
	}
	var total float64
	h := 60.0 / 60000
	for i := range 60000 {
		total += math.Exp(logNormalLaplace(-30+(float64(i)+0.5)*h, tau, b)) * h
	}
	if math.Abs(total-1) > 1e-6 {
		t.Errorf("the density integrates to %v", total)
	}
}

// TestCalibration checks that each reference posterior belongs to its
// simulator: for 200 parameters drawn from the prior and data simulated
// from each, the rank of θ₀ among 99 reference draws at those data
// (randomised within ties: u = (rank + U)/100) is uniform when the
// reference is the posterior of the simulator's model. The
// Kolmogorov–Smirnov statistic must stay below 0.157, whose false-alarm
// rate is about 10⁻⁴ per problem (about 10⁻³ for the twelve).
func TestCalibration(t *testing.T) {
	const reps, draws = 200, 99
	for _, name := range problemNames() {
		p, err := newProblem(name)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(7, uint64(len(name))))
		theta, s, x := make([]float64, p.dim), make([]float64, p.xdim), make([]float64, p.xdim)
		u := make([]float64, reps)
		for i := range u {
			p.prior.Sample(r, theta)
			p.sim(r, theta, s)
			p.release(r, s, x)
			ref := p.reference(r, x, draws)
			rank := 0
			for k := range draws {
				if ref[k*p.dim] < theta[0] {
					rank++
				}
			}
			u[i] = (float64(rank) + r.Float64()) / (draws + 1)
		}
		slices.Sort(u)
		var ks float64
		for i, v := range u {
			ks = math.Max(ks, math.Max(float64(i+1)/reps-v, v-float64(i)/reps))
		}
		if ks > 0.157 {
			t.Errorf("%s: the ranks of θ₀ among reference draws are not uniform (KS %.3f)", name, ks)
		}
	}
}

func runArgs(args ...string) (string, error) {
	var out, errw bytes.Buffer
	err := cli.Runner("generality", parse, run)(args, &out, &errw)
	return out.String(), err
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-problems", "gauss0", "-out", "x"}, {"-problems", "nope", "-out", "x"}, {"-sims", "10", "-out", "x"},
		{"-seeds", "a", "-out", "x"}, {"-obs", "0", "-out", "x"}, {"-obs", "6", "-out", "x"},
		{"-samples", "50", "-out", "x"}, {"-variant", "fast", "-out", "x"}, {"-variant", "tail-1", "-out", "x"},
		{"-variant", "shift+noshift", "-out", "x"},
		{}, {"extra", "-out", "x"},
	} {
		if _, err := runArgs(args...); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
	out, err := runArgs("-list")
	if err != nil || !strings.Contains(out, "uniform10") {
		t.Errorf("-list: %v\n%s", err, out)
	}
}

// TestQuickSuite runs the suite's quick settings (two problems at 500
// simulations) when PRIVINFER_LONG=1: both posteriors must be close to
// their references (C2ST below 0.65; the quick run scores about 0.53 and
// 0.56).
func TestQuickSuite(t *testing.T) {
	if os.Getenv("PRIVINFER_LONG") != "1" {
		t.Skip("set PRIVINFER_LONG=1 to run the suite's quick settings")
	}
	dir := t.TempDir()
	out, err := runArgs("-quick", "-out", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gauss2", "uniform2"} {
		var cl cell
		if !readResult(dir+"/"+name+"_500_s1_ours.txt", &cl) {
			t.Fatalf("no result for %s\n%s", name, out)
		}
		if m, _ := cli.MeanSE(cl.ours); !(m < 0.65) {
			t.Errorf("%s: C2ST %v", name, cl.ours)
		}
	}
}

// TestLogPost checks the closed-form posterior densities that the KL
// screen uses: each integrates to 1 (Simpson's rule on another grid, to 10⁻⁸), and
// ridge2's equals the bivariate normal density of its moments.
func TestLogPost(t *testing.T) {
	for _, c := range []struct {
		name   string
		xo     []float64
		lo, hi float64
	}{{"uniform1", []float64{0.93}, -1, 1}, {"uniform1", []float64{-1.4}, -1, 1}, {"gauss1", []float64{2.1}, -10, 10}, {"laplace1", []float64{1.3}, -10, 10}} {
		p, err := newProblem(c.name)
		if err != nil {
			t.Fatal(err)
		}
		s := simpson(func(t float64) float64 {
			return math.Exp(p.logPost(c.xo, []float64{t}))
		}, c.lo, c.hi, 40000)
		if math.Abs(s-1) > 1e-8 {
			t.Errorf("%s at %v: the density integrates to %v", c.name, c.xo, s)
		}
	}
	p, _ := newProblem("ridge2")
	xo, th := []float64{0.7, -0.4}, []float64{0.1, 0.3}
	mean, variance := p.moments(xo)
	cov := -99.0 / 603
	det := variance[0]*variance[1] - cov*cov
	a, b := th[0]-mean[0], th[1]-mean[1]
	q := (variance[1]*a*a - 2*cov*a*b + variance[0]*b*b) / det
	want := -q/2 - math.Log(2*math.Pi*math.Sqrt(det))
	if got := p.logPost(xo, th); math.Abs(got-want) > 1e-10 {
		t.Errorf("ridge2: log density %v, want %v", got, want)
	}
}
