package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

// quadMoments integrates the unnormalised posterior π(φ, σ)·Π_t N(x_t;
// φx_{t−1}, σ²), written from the model's definition, on a grid of the
// posterior's region by the midpoint rule, and returns the means and
// standard deviations of φ and σ.
func quadMoments(x []float64, phiLo, phiHi, sLo, sHi float64) (mean, sd [2]float64) {
	const n = 200
	prior := newPrior()
	hp, hs := (phiHi-phiLo)/n, (sHi-sLo)/n
	logp := make([]float64, n*n)
	mx := math.Inf(-1)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			th := []float64{phiLo + (float64(i)+0.5)*hp, sLo + (float64(j)+0.5)*hs}
			lp := prior.LogDensity(th)
			prev := 0.0
			for _, v := range x {
				z := (v - th[0]*prev) / th[1]
				lp += -0.5*z*z - math.Log(th[1])
				prev = v
			}
			logp[i*n+j] = lp
			mx = math.Max(mx, lp)
		}
	}
	var z float64
	var m1, m2 [2]float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			w := math.Exp(logp[i*n+j] - mx)
			th := [2]float64{phiLo + (float64(i)+0.5)*hp, sLo + (float64(j)+0.5)*hs}
			z += w
			for k := range th {
				m1[k] += w * th[k]
				m2[k] += w * th[k] * th[k]
			}
		}
	}
	for k := range mean {
		mean[k] = m1[k] / z
		sd[k] = math.Sqrt(m2[k]/z - mean[k]*mean[k])
	}
	return mean, sd
}

// TestExactPosterior checks the exact sampler (truncated Student t for φ,
// inverse gamma for σ² given φ) against quadrature of the posterior
// written from the model: the means of 20 000 draws must lie within 4
// Monte Carlo standard errors of the quadrature means (a false alarm
// about once in 16 000 per check) and the standard deviations within 3%.
// Releases include a φ near the stationarity bound, where the truncation
// matters.
func TestExactPosterior(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, th := range [][]float64{{0.5, 1}, {-0.3, 0.4}, {0.97, 1.5}, {0, 2}} {
		x := make([]float64, steps)
		if err := (series{}).Simulate(r, th, x); err != nil {
			t.Fatal(err)
		}
		const n = 20000
		d := make([]float64, 2*n)
		if err := exactPosterior(r, x, n, d); err != nil {
			t.Fatal(err)
		}
		var mean, sd [2]float64
		for k := 0; k < 2; k++ {
			c := column(d, k)
			mean[k] = meanOf(c)
			sd[k] = math.Sqrt(meanOf(square(c)) - mean[k]*mean[k])
		}
		// Quadrature over ±8 sampler standard deviations (inside the prior
		// support).
		qm, qs := quadMoments(x, math.Max(-1, mean[0]-8*sd[0]), math.Min(1, mean[0]+8*sd[0]),
			math.Max(1e-3, mean[1]-8*sd[1]), mean[1]+8*sd[1])
		for k, name := range []string{"φ", "σ"} {
			if se := qs[k] / math.Sqrt(n); math.Abs(mean[k]-qm[k]) > 4*se {
				t.Errorf("θ = %v: mean of %s %.5f, quadrature %.5f (4 s.e. = %.5f)", th, name, mean[k], qm[k], 4*se)
			}
			if math.Abs(sd[k]/qs[k]-1) > 0.03 {
				t.Errorf("θ = %v: sd of %s %.5f, quadrature %.5f", th, name, sd[k], qs[k])
			}
		}
		t.Logf("θ = %v: sampler mean %.4f sd %.4f; quadrature mean %.4f sd %.4f", th, mean, sd, qm, qs)
	}
}

func meanOf(x []float64) float64 { return mean(x) }

func square(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * v
	}
	return y
}

// TestPrior checks that the prior density integrates to one and that the
// prior's draws follow it: P(σ < 1) from the density against the draws'
// fraction (4 binomial standard errors).
func TestPrior(t *testing.T) {
	p := newPrior()
	const n = 4000
	hs := 20.0 / n
	total, below := 0.0, 0.0
	for j := 0; j < n; j++ {
		s := (float64(j) + 0.5) * hs
		// φ is uniform: the density does not depend on it.
		v := 2 * math.Exp(p.LogDensity([]float64{0.3, s})) * hs
		total += v
		if s < 1 {
			below += v
		}
	}
	if math.Abs(total-1) > 1e-3 {
		t.Errorf("prior density integrates to %v", total)
	}
	r := rand.New(rand.NewPCG(3, 4))
	const m = 20000
	cnt := 0
	th := make([]float64, 2)
	for i := 0; i < m; i++ {
		p.Sample(r, th)
		if math.IsInf(p.LogDensity(th), -1) {
			t.Fatalf("prior draw %v outside the support", th)
		}
		if th[1] < 1 {
			cnt++
		}
	}
	if se := math.Sqrt(below * (1 - below) / m); math.Abs(float64(cnt)/m-below) > 4*se {
		t.Errorf("P(σ < 1): draws %.4f, density %.4f", float64(cnt)/m, below)
	}
	for _, bad := range [][]float64{{1, 1}, {-1.5, 1}, {0, 0}, {0, -1}} {
		if lp := p.LogDensity(bad); !math.IsInf(lp, -1) {
			t.Errorf("LogDensity(%v) = %v outside the support", bad, lp)
		}
	}
}

// TestRunTiny runs the whole program on a tiny budget: the table, the
// posterior means and the verdict line are printed, the plots are written
// as PNG and SVG and progress is reported on stderr.
func TestRunTiny(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	fs := flag.NewFlagSet("embedding", flag.ContinueOnError)
	dir := t.TempDir()
	c, err := parse(fs, []string{"-sims", "60", "-obs", "2", "-epochs", "2", "-samples", "60", "-methods", "raw,cnn,stats", "-out", dir})
	if err != nil {
		t.Fatal(err)
	}
	var out, errw bytes.Buffer
	if err := run(context.Background(), c, &out, &errw); err != nil {
		t.Fatal(err)
	}
	plots := clitest.Check(t, dir, errw.String())
	for _, want := range []string{"embedding_marginals.png", "embedding_marginals.svg", "embedding_c2st.png", "embedding_c2st.svg"} {
		if !slices.Contains(plots, want) {
			t.Errorf("plots %v lack %s", plots, want)
		}
	}
	s := out.String()
	for _, want := range []string{"raw series (100 inputs)", "CNN embedding", "sufficient statistics", "posterior mean", "verdict:"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-sims", "5"}, {"-obs", "-1"}, {"-methods", "raw,gru"}, {"-samples", "3"}, {"-epochs", "-1"}, {"extra"}} {
		fs := flag.NewFlagSet("embedding", flag.ContinueOnError)
		if _, err := parse(fs, args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: error %v, want a usage error", args, err)
		}
	}
}
