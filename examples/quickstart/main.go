// Quickstart releases a clamped sample mean through the Laplace mechanism
// and recovers the noise-aware posterior of the population mean, printed
// next to the naive posterior that ignores the privacy noise.
//
// The curator holds n confidential values x_i ~ N(μ, σ²) with σ known,
// clamps them to [lo, hi] so that the sample mean has L1 sensitivity
// (hi − lo)/n, and releases s_dp = mean(clamp(x)) + Laplace noise.
//
// The analyst's noise-aware likelihood is
//
//	p(s_dp | μ) = ∫ N(s; m(μ), v(μ)/n) · Laplace(s_dp − s; b) ds,
//
// where m(μ) and v(μ) are the exact mean and variance of one clamped normal
// value and the normal law of the clamped mean is its central-limit
// approximation (accurate here: n = 200). The integral over s and the
// posterior normalisation over μ are computed by quadrature. The naive
// posterior treats s_dp as if it were the confidential mean.
//
// Run it with
//
//	go run ./examples/quickstart
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/privinfer/privinfer/examples/internal/cli"
	"github.com/privinfer/privinfer/examples/internal/plot"
	"github.com/privinfer/privinfer/mechanism"
)

type config struct {
	n         int
	mu, sigma float64
	lo, hi    float64
	epsilon   float64
	priorSD   float64
	seed      uint64
	out       string // directory for the posterior plot and CSV ("" for none)
}

func main() {
	fs := flag.NewFlagSet("quickstart", flag.ContinueOnError)
	cli.Main("quickstart", cli.FlagUsage(fs), func(args []string, stdout, stderr io.Writer) error {
		cfg, err := parse(fs, args)
		if err != nil {
			return err
		}
		return run(stdout, cfg)
	})
}

// parse reads the flags; bad flags and bad values are usage errors.
func parse(fs *flag.FlagSet, args []string) (config, error) {
	cfg := config{}
	fs.IntVar(&cfg.n, "n", 200, "number of confidential records (≥ 2)")
	fs.Float64Var(&cfg.mu, "mu", 1.2, "true population mean used to simulate the confidential data")
	fs.Float64Var(&cfg.sigma, "sigma", 1, "known population standard deviation (> 0)")
	fs.Float64Var(&cfg.lo, "lo", -2, "lower clamping bound")
	fs.Float64Var(&cfg.hi, "hi", 4, "upper clamping bound (> lo)")
	fs.Float64Var(&cfg.epsilon, "epsilon", 0.1, "privacy budget ε of the release (> 0)")
	fs.Float64Var(&cfg.priorSD, "prior-sd", 10, "standard deviation of the N(0, prior-sd²) prior on μ (> 0)")
	common := cli.Register(fs, 1)
	if err := cli.Parse(fs, args); err != nil {
		return cfg, err
	}
	// -quick is accepted for the examples' common contract; the quickstart
	// is fast at its default settings, so it changes nothing.
	cfg.seed, cfg.out = common.Seed, common.Out
	if err := validate(cfg); err != nil {
		return cfg, fmt.Errorf("%w: %v", cli.ErrUsage, err)
	}
	return cfg, nil
}

func validate(c config) error {
	switch {
	case c.n < 2:
		return fmt.Errorf("-n must be ≥ 2, got %d", c.n)
	case !(c.sigma > 0) || math.IsInf(c.sigma, 0):
		return fmt.Errorf("-sigma must be finite and > 0, got %v", c.sigma)
	case math.IsNaN(c.lo) || math.IsNaN(c.hi) || !(c.hi > c.lo) || math.IsInf(c.lo, 0) || math.IsInf(c.hi, 0):
		return fmt.Errorf("-lo and -hi must be finite with lo < hi, got [%v, %v]", c.lo, c.hi)
	case !(c.priorSD > 0) || math.IsInf(c.priorSD, 0):
		return fmt.Errorf("-prior-sd must be finite and > 0, got %v", c.priorSD)
	case math.IsNaN(c.mu) || math.IsInf(c.mu, 0):
		return fmt.Errorf("-mu must be finite, got %v", c.mu)
	case !(c.epsilon > 0) || math.IsInf(c.epsilon, 0):
		return fmt.Errorf("-epsilon must be finite and > 0, got %v", c.epsilon)
	}
	return nil
}

func run(w io.Writer, c config) error {
	if err := validate(c); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(c.seed, 0x9e3779b97f4a7c15))

	// Curator: clamp, average, release through the Laplace mechanism.
	sens := (c.hi - c.lo) / float64(c.n)
	mech, err := mechanism.NewLaplace(sens, c.epsilon, 1)
	if err != nil {
		return err
	}
	var sum float64
	for i := 0; i < c.n; i++ {
		x := c.mu + c.sigma*r.NormFloat64()
		sum += min(max(x, c.lo), c.hi)
	}
	conf := []float64{sum / float64(c.n)}
	sdp := make([]float64, 1)
	if err := mech.Release(r, conf, sdp); err != nil {
		return err
	}
	b := sens / c.epsilon

	// Analyst: posterior of μ on a grid, noise-aware and naive.
	post := newPosterior(c, b, sdp[0])
	fmt.Fprintf(w, "confidential clamped mean (never released): %.4f\n", conf[0])
	fmt.Fprintf(w, "released s_dp (ε = %g, Laplace scale %.4f):  %.4f\n\n", c.epsilon, b, sdp[0])
	fmt.Fprintf(w, "%-12s %8s %8s %18s\n", "posterior", "mean", "sd", "95% interval")
	for _, row := range []struct {
		name  string
		aware bool
	}{{"noise-aware", true}, {"naive", false}} {
		m, sd, lo, hi := post.summary(row.aware)
		fmt.Fprintf(w, "%-12s %8.4f %8.4f   [%7.4f, %7.4f]\n", row.name, m, sd, lo, hi)
	}
	fmt.Fprintf(w, "\ntrue μ = %g. The naive posterior ignores the privacy noise and is overconfident.\n", c.mu)
	if c.out != "" {
		return writeOutputs(w, c, post)
	}
	return nil
}

// writeOutputs draws both posterior densities of μ (SVG and PNG) and
// writes them as CSV into c.out.
func writeOutputs(w io.Writer, c config, p *posterior) error {
	common := cli.Common{Out: c.out}
	if err := common.Prepare(); err != nil {
		return err
	}
	h := p.grid[1] - p.grid[0]
	aware := plot.Series{Name: "noise-aware posterior"}
	naive := plot.Series{Name: "naive posterior", Dashed: true}
	var rows [][]string
	peak := 0.0
	for i := range p.grid {
		peak = math.Max(peak, math.Max(p.aware[i], p.naive[i])/h)
	}
	for i, x := range p.grid {
		da, dn := p.aware[i]/h, p.naive[i]/h
		rows = append(rows, cli.FloatRow(x, da, dn))
		// The chart shows every 4th grid point where either density is
		// visible.
		if i%4 == 0 && math.Max(da, dn) > 2e-3*peak {
			aware.X, aware.Y = append(aware.X, x), append(aware.Y, da)
			naive.X, naive.Y = append(naive.X, x), append(naive.Y, dn)
		}
	}
	cv, err := plot.LineChart{
		Title:  fmt.Sprintf("Posterior density of μ from a Laplace release (ε = %g); dashed line: true μ", c.epsilon),
		XLabel: "μ", YLabel: "density", Series: []plot.Series{aware, naive},
		VLines: []float64{c.mu},
	}.Draw()
	if err != nil {
		return err
	}
	files, err := common.WritePlot("quickstart_posterior", cv)
	if err != nil {
		return err
	}
	f, err := common.WriteCSV("quickstart_posterior.csv", []string{"mu", "noise_aware_density", "naive_density"}, rows)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s\n", strings.Join(append(files, f), ", "))
	return nil
}

// clampedMoments returns the mean and variance of clamp(X, lo, hi) for
// X ~ N(mu, sigma²).
func clampedMoments(mu, sigma, lo, hi float64) (mean, variance float64) {
	a := (lo - mu) / sigma
	bb := (hi - mu) / sigma
	pa := normCDF(a)        // P(X < lo)
	pb := 1 - normCDF(bb)   // P(X > hi)
	pin := normCDF(bb) - pa // P(lo ≤ X ≤ hi)
	phiA, phiB := normPDF(a), normPDF(bb)
	// E[Z; a<Z<b] and E[Z²; a<Z<b] for standard normal Z.
	e1 := phiA - phiB
	e2 := pin + a*phiA - bb*phiB
	m1 := lo*pa + hi*pb + mu*pin + sigma*e1
	m2 := lo*lo*pa + hi*hi*pb + mu*mu*pin + 2*mu*sigma*e1 + sigma*sigma*e2
	return m1, math.Max(m2-m1*m1, 0)
}

func normCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
func normPDF(x float64) float64 { return math.Exp(-0.5*x*x) / math.Sqrt(2*math.Pi) }

type posterior struct {
	grid         []float64
	aware, naive []float64 // normalised weights on grid
}

func newPosterior(c config, b, sdp float64) *posterior {
	const nGrid = 4001
	lo, hi := c.lo-3*c.sigma, c.hi+3*c.sigma
	p := &posterior{grid: make([]float64, nGrid), aware: make([]float64, nGrid), naive: make([]float64, nGrid)}
	la := make([]float64, nGrid)
	ln := make([]float64, nGrid)
	for i := range p.grid {
		mu := lo + (hi-lo)*float64(i)/(nGrid-1)
		p.grid[i] = mu
		m, v := clampedMoments(mu, c.sigma, c.lo, c.hi)
		sd := math.Sqrt(v / float64(c.n))
		prior := -0.5 * mu * mu / (c.priorSD * c.priorSD)
		la[i] = prior + math.Log(convolved(sdp, m, sd, b))
		ln[i] = prior - 0.5*(sdp-m)*(sdp-m)/(sd*sd) - math.Log(sd)
	}
	normalise(la, p.aware)
	normalise(ln, p.naive)
	return p
}

// convolved integrates N(s; m, sd²)·Laplace(sdp − s; b) over s by the
// composite Simpson rule on ±12 standard deviations around m.
func convolved(sdp, m, sd, b float64) float64 {
	const k = 2000 // even number of intervals
	lo, hi := m-12*sd, m+12*sd
	h := (hi - lo) / k
	var acc float64
	for j := 0; j <= k; j++ {
		s := lo + h*float64(j)
		f := math.Exp(-0.5*((s-m)/sd)*((s-m)/sd)) / (sd * math.Sqrt(2*math.Pi)) *
			math.Exp(-math.Abs(sdp-s)/b) / (2 * b)
		wt := 2.0
		if j == 0 || j == k {
			wt = 1
		} else if j%2 == 1 {
			wt = 4
		}
		acc += wt * f
	}
	return acc * h / 3
}

func normalise(logw, dst []float64) {
	mx := math.Inf(-1)
	for _, v := range logw {
		mx = math.Max(mx, v)
	}
	var s float64
	for i, v := range logw {
		dst[i] = math.Exp(v - mx)
		s += dst[i]
	}
	for i := range dst {
		dst[i] /= s
	}
}

func (p *posterior) summary(aware bool) (mean, sd, lo, hi float64) {
	w := p.naive
	if aware {
		w = p.aware
	}
	var m1, m2, cum float64
	lo, hi = math.NaN(), math.NaN()
	for i, x := range p.grid {
		m1 += w[i] * x
		m2 += w[i] * x * x
		cum += w[i]
		if math.IsNaN(lo) && cum >= 0.025 {
			lo = x
		}
		if math.IsNaN(hi) && cum >= 0.975 {
			hi = x
		}
	}
	return m1, math.Sqrt(math.Max(m2-m1*m1, 0)), lo, hi
}
