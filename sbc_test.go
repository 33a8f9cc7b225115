package privinfer_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// The SBC test problem: θ ~ N(0, 1), one record x ~ N(θ, 1) clamped to
// [−2, 2], released with Laplace noise of scale b = 4/ε = 1 (ε = 4,
// sensitivity 4). Its likelihood is closed-form:
//
//	p(y | θ) = Φ(−2 − θ) λ(y + 2) + Φ(θ − 2) λ(y − 2) + ∫₋₂² φ(s − θ) λ(y − s) ds,
//
// λ the Laplace density, and the integral splits at y into two terms of
// the form ∫ₐᶜ φ(s − θ) e^{ts} ds = e^{tθ + t²/2} [Φ(c − θ − t) − Φ(a − θ − t)].
const (
	sbcLo, sbcHi = -2.0, 2.0
	sbcEps       = 4.0
	sbcB         = (sbcHi - sbcLo) / sbcEps
)

// clampedRecord simulates the clamped record, θ = (μ).
type clampedRecord struct{}

func (clampedRecord) StatDim() int { return 1 }
func (clampedRecord) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 1 || math.IsNaN(theta[0]) || math.IsInf(theta[0], 0) {
		return fmt.Errorf("bad θ %v", theta)
	}
	dst[0] = min(max(theta[0]+r.NormFloat64(), sbcLo), sbcHi)
	return nil
}

// sbcProblem returns the test problem without an observation.
func sbcProblem(t testing.TB) privinfer.Problem {
	t.Helper()
	n, err := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: 1})
	if err != nil {
		t.Fatal(err)
	}
	prior, err := simulate.NewIndependent(n)
	if err != nil {
		t.Fatal(err)
	}
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sbcHi - sbcLo, Epsilon: sbcEps, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	return privinfer.Problem{Prior: prior, Simulator: clampedRecord{}, Mechanism: mech, Names: []string{"mu"}}
}

// expInt returns ∫ₐᶜ φ(s − θ) e^{ts} ds.
func expInt(a, c, theta, t float64) float64 {
	if !(c > a) {
		return 0
	}
	return math.Exp(t*theta+t*t/2) * (special.NormCDF(c-theta-t) - special.NormCDF(a-theta-t))
}

// likelihood is p(y | θ) of the test problem.
func likelihood(y, theta float64) float64 {
	lap := func(v float64) float64 { return math.Exp(-math.Abs(v)/sbcB) / (2 * sbcB) }
	atoms := special.NormCDF(sbcLo-theta)*lap(y-sbcLo) + special.NormCDF(theta-sbcHi)*lap(y-sbcHi)
	// s < y: λ = e^{(s−y)/b}/(2b); s > y: λ = e^{(y−s)/b}/(2b).
	below := math.Exp(-y/sbcB) * expInt(sbcLo, min(y, sbcHi), theta, 1/sbcB)
	above := math.Exp(y/sbcB) * expInt(max(y, sbcLo), sbcHi, theta, -1/sbcB)
	return atoms + (below+above)/(2*sbcB)
}

// gridPosterior is the exact posterior of the test problem on a fine grid:
// nodes, normalised trapezoid cell masses and the CDF at the nodes.
type gridPosterior struct {
	x, dens, cdf []float64
}

func newGridPosterior(y float64) *gridPosterior {
	const n = 1201
	g := &gridPosterior{x: make([]float64, n), dens: make([]float64, n), cdf: make([]float64, n)}
	h := 12.0 / (n - 1)
	for i := range n {
		g.x[i] = -6 + h*float64(i)
		g.dens[i] = math.Exp(-0.5*g.x[i]*g.x[i]) * likelihood(y, g.x[i])
	}
	for i := 1; i < n; i++ {
		g.cdf[i] = g.cdf[i-1] + 0.5*h*(g.dens[i]+g.dens[i-1])
	}
	z := g.cdf[n-1]
	for i := range n {
		g.cdf[i] /= z
		g.dens[i] /= z
	}
	return g
}

// sample draws from the piecewise-linear posterior density by inverting
// its CDF cell by cell (linear interpolation within a cell).
func (g *gridPosterior) sample(r *rand.Rand) float64 {
	u := r.Float64()
	k, _ := slices.BinarySearch(g.cdf, u)
	k = min(max(k, 1), len(g.cdf)-1)
	f := (u - g.cdf[k-1]) / (g.cdf[k] - g.cdf[k-1])
	return g.x[k-1] + f*(g.x[k]-g.x[k-1])
}

// exactFit returns n independent draws of the exact posterior, moved to
// mean + shrink·(θ − mean) and shifted by bias (shrink 1 and bias 0 give
// the exact posterior).
func exactFit(n int, shrink, bias float64) privinfer.SBCFit {
	return func(_ context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		g := newGridPosterior(p.Observed[0])
		r := rand.New(rand.NewPCG(seed, 1))
		d := &privinfer.Draws{Dim: 1, Theta: make([]float64, n)}
		for i := range d.Theta {
			d.Theta[i] = g.sample(r)
		}
		m := d.Mean()[0]
		for i, v := range d.Theta {
			d.Theta[i] = m + shrink*(v-m) + bias
		}
		return d, nil
	}
}

// TestSBCExactPosteriorUniform: with the exact posterior the ranks over
// 400 data sets pass the chi-square test at level 10⁻³ (the false-alarm
// rate of this fixed-seed test), by independent draws, by thinning more
// draws than ranked, and by the weighted grid itself.
func TestSBCExactPosteriorUniform(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := sbcProblem(t)
	weighted := func(_ context.Context, p privinfer.Problem, _ uint64) (*privinfer.Draws, error) {
		g := newGridPosterior(p.Observed[0])
		return &privinfer.Draws{Dim: 1, Theta: g.x, Weights: g.dens}, nil
	}
	for _, c := range []struct {
		name string
		fit  privinfer.SBCFit
	}{{"iid", exactFit(99, 1, 0)}, {"thinned", exactFit(500, 1, 0)}, {"weighted", weighted}} {
		res, err := privinfer.SBC(context.Background(), p, c.fit, privinfer.SBCConfig{Datasets: 400, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Calibrated(1e-3) {
			t.Errorf("%s: exact posterior rejected:\n%v", c.name, res)
		}
		t.Logf("%s: %v", c.name, res)
	}
}

// TestSBCDetectsMiscalibration: over-confident (draws shrunk to half
// their spread), over-dispersed (doubled) and biased (shifted by half a
// prior sd) posteriors fail at level 10⁻³ over 200 data sets.
func TestSBCDetectsMiscalibration(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := sbcProblem(t)
	for _, c := range []struct {
		name         string
		shrink, bias float64
	}{{"over-confident", 0.5, 0}, {"over-dispersed", 2, 0}, {"biased", 1, 0.5}} {
		res, err := privinfer.SBC(context.Background(), p, exactFit(99, c.shrink, c.bias), privinfer.SBCConfig{Seed: 12})
		if err != nil {
			t.Fatal(err)
		}
		if res.Calibrated(1e-3) {
			t.Errorf("%s posterior passed:\n%v", c.name, res)
		}
		t.Logf("%s: %v", c.name, res)
		if res.Datasets != 200 || res.Draws != 99 || res.Bins != 20 {
			t.Errorf("defaults: %d data sets, %d draws, %d bins", res.Datasets, res.Draws, res.Bins)
		}
	}
}

// TestSBCRanksAndHistogram checks the bookkeeping on a fit whose draws
// are fixed: draws 0, 1, …, 9 rank θ by counting the draws below it.
func TestSBCRanksAndHistogram(t *testing.T) {
	p := sbcProblem(t)
	fixed := func(context.Context, privinfer.Problem, uint64) (*privinfer.Draws, error) {
		d := &privinfer.Draws{Dim: 1}
		for k := range 10 {
			d.Theta = append(d.Theta, float64(k)/4-1.2)
		}
		return d, nil
	}
	res, err := privinfer.SBC(context.Background(), p, fixed, privinfer.SBCConfig{Datasets: 50, Draws: 10, Bins: 11, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	h := res.Histogram(0)
	total := 0
	for i := range res.Datasets {
		th := res.Theta[i]
		want := 0
		for k := range 10 {
			if float64(k)/4-1.2 < th {
				want++
			}
		}
		if res.Ranks[i] != want {
			t.Fatalf("data set %d: θ = %v has rank %d, want %d", i, th, res.Ranks[i], want)
		}
	}
	for _, c := range h {
		total += c
	}
	if len(h) != 11 || total != 50 {
		t.Fatalf("histogram %v", h)
	}
	// 11 bins of one rank each: χ² = Σ (O − E)²/E with E = 50/11.
	chi := 0.0
	for _, o := range h {
		chi += (float64(o) - 50.0/11) * (float64(o) - 50.0/11) / (50.0 / 11)
	}
	if math.Abs(chi-res.ChiSquare[0]) > 1e-9 {
		t.Errorf("χ² = %v, want %v", res.ChiSquare[0], chi)
	}
	if want := special.ChiSquareSF(chi, 10); math.Abs(res.PValue[0]-want) > 1e-12 {
		t.Errorf("p = %v, want %v", res.PValue[0], want)
	}
}

// TestSBCDeterministic: the result depends on the seed only, not on
// GOMAXPROCS, and progress events count the data sets.
func TestSBCDeterministic(t *testing.T) {
	p := sbcProblem(t)
	run := func(procs int) (*privinfer.SBCResult, []privinfer.Progress) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var ev []privinfer.Progress
		res, err := privinfer.SBC(context.Background(), p, exactFit(20, 1, 0),
			privinfer.SBCConfig{Datasets: 30, Draws: 20, Seed: 5, Progress: func(e privinfer.Progress) { ev = append(ev, e) }})
		if err != nil {
			t.Fatal(err)
		}
		return res, ev
	}
	a, ev := run(1)
	b, _ := run(4)
	if !slices.Equal(a.Ranks, b.Ranks) || !slices.Equal(a.Theta, b.Theta) {
		t.Error("SBC depends on GOMAXPROCS")
	}
	if len(ev) != 30 {
		t.Fatalf("%d progress events, want 30", len(ev))
	}
	for k, e := range ev {
		if e.Stage != "dataset" || e.Step != k+1 || e.Total != 30 {
			t.Errorf("event %d: %+v", k, e)
		}
	}
}

// TestSBCBadInput: invalid configurations, problems and fits give errors
// wrapping ErrInvalid (or the fit's own error), never panics.
func TestSBCBadInput(t *testing.T) {
	p := sbcProblem(t)
	good := exactFit(10, 1, 0)
	boom := errors.New("boom")
	cfg := privinfer.SBCConfig{Datasets: 5, Draws: 10, Seed: 1}
	cases := []struct {
		name string
		p    privinfer.Problem
		fit  privinfer.SBCFit
		cfg  privinfer.SBCConfig
		want error
	}{
		{"nil fit", p, nil, cfg, privinfer.ErrInvalid},
		{"negative datasets", p, good, privinfer.SBCConfig{Datasets: -1}, privinfer.ErrInvalid},
		{"negative draws", p, good, privinfer.SBCConfig{Draws: -3}, privinfer.ErrInvalid},
		{"one bin", p, good, privinfer.SBCConfig{Bins: 1}, privinfer.ErrInvalid},
		{"bins > L+1", p, good, privinfer.SBCConfig{Draws: 9, Bins: 11}, privinfer.ErrInvalid},
		{"nil prior", privinfer.Problem{Simulator: clampedRecord{}}, good, cfg, privinfer.ErrInvalid},
		{"nil simulator", privinfer.Problem{Prior: p.Prior}, good, cfg, privinfer.ErrInvalid},
		{"fit error", p, func(context.Context, privinfer.Problem, uint64) (*privinfer.Draws, error) { return nil, boom }, cfg, boom},
		{"nil draws", p, func(context.Context, privinfer.Problem, uint64) (*privinfer.Draws, error) { return nil, nil }, cfg, privinfer.ErrInvalid},
		{"too few draws", p, exactFit(9, 1, 0), cfg, privinfer.ErrInvalid},
		{"wrong dimension", p, func(context.Context, privinfer.Problem, uint64) (*privinfer.Draws, error) {
			return &privinfer.Draws{Dim: 2, Theta: make([]float64, 40)}, nil
		}, cfg, privinfer.ErrInvalid},
		{"NaN draw", p, func(context.Context, privinfer.Problem, uint64) (*privinfer.Draws, error) {
			th := make([]float64, 10)
			th[4] = math.NaN()
			return &privinfer.Draws{Dim: 1, Theta: th}, nil
		}, cfg, privinfer.ErrInvalid},
		{"invalid draws", p, func(context.Context, privinfer.Problem, uint64) (*privinfer.Draws, error) {
			return &privinfer.Draws{Dim: 1, Theta: make([]float64, 10), Weights: make([]float64, 3)}, nil
		}, cfg, privinfer.ErrInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := privinfer.SBC(context.Background(), c.p, c.fit, c.cfg)
			if !errors.Is(err, c.want) {
				t.Errorf("got %v, want %v", err, c.want)
			}
		})
	}
	var nilRes *privinfer.SBCResult
	if h := nilRes.Histogram(0); h != nil || !math.IsNaN(nilRes.OverallPValue()) || nilRes.Calibrated(0.5) || nilRes.String() != "<nil>" {
		t.Error("nil SBCResult methods")
	}
}

// TestSBCContext: a cancelled context stops the run.
func TestSBCContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := privinfer.SBC(ctx, sbcProblem(t), exactFit(10, 1, 0), privinfer.SBCConfig{Datasets: 50, Draws: 10})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestSBCLikelihoodQuadrature checks the closed-form likelihood against a
// direct midpoint-rule integral over the clamped record's law.
func TestSBCLikelihoodQuadrature(t *testing.T) {
	for _, c := range [][2]float64{{0.3, -0.5}, {-2.5, 1.7}, {3, 2.2}, {0, -6}} {
		y, th := c[0], c[1]
		lap := func(v float64) float64 { return math.Exp(-math.Abs(v)/sbcB) / (2 * sbcB) }
		n := 200000
		h := (sbcHi - sbcLo) / float64(n)
		s := 0.0
		for i := range n {
			x := sbcLo + (float64(i)+0.5)*h
			s += math.Exp(-0.5*(x-th)*(x-th)) / math.Sqrt(2*math.Pi) * lap(y-x) * h
		}
		s += special.NormCDF(sbcLo-th)*lap(y-sbcLo) + special.NormCDF(th-sbcHi)*lap(y-sbcHi)
		if got := likelihood(y, th); math.Abs(got-s) > 1e-8*s {
			t.Errorf("p(y=%v | θ=%v) = %v, quadrature %v", y, th, got, s)
		}
	}
}

// BenchmarkSBC measures SBC's own cost around a trivial fit (the fit's
// cost is the caller's).
func BenchmarkSBC(b *testing.B) {
	p := sbcProblem(b)
	draws := &privinfer.Draws{Dim: 1, Theta: make([]float64, 99)}
	fit := func(context.Context, privinfer.Problem, uint64) (*privinfer.Draws, error) { return draws, nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := privinfer.SBC(context.Background(), p, fit, privinfer.SBCConfig{Datasets: 200, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSBCFitPanicReachesCaller: a panic in the fit is re-raised in the
// goroutine that called SBC, with and without progress reporting.
func TestSBCFitPanicReachesCaller(t *testing.T) {
	p := sbcProblem(t)
	fit := func(context.Context, privinfer.Problem, uint64) (*privinfer.Draws, error) { panic("fit exploded") }
	for _, progress := range []privinfer.ProgressFunc{nil, func(privinfer.Progress) {}} {
		func() {
			defer func() {
				if v := recover(); !strings.Contains(fmt.Sprint(v), "fit exploded") {
					t.Errorf("recovered %v, want the fit's panic", v)
				}
			}()
			_, _ = privinfer.SBC(context.Background(), p, fit, privinfer.SBCConfig{Datasets: 4, Draws: 5, Progress: progress})
		}()
	}
}
