package mcmc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/special"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// testRecords draws n linear-regression records (x1, x2, y).
func testRecords(r *rand.Rand, n int) []float64 {
	rec := make([]float64, 3*n)
	for i := range n {
		x1, x2 := 0.9+r.NormFloat64(), -1.17+r.NormFloat64()
		rec[3*i], rec[3*i+1], rec[3*i+2] = x1, x2, -1.8-2.9*x1-0.7*x2+1.4*r.NormFloat64()
	}
	return rec
}

// normalEq returns XᵀX and Xᵀy, yᵀy by plain loops (independent of gram).
func normalEq(rec []float64, n int) (xtx [9]float64, xty [3]float64, yty float64) {
	for i := range n {
		row := [3]float64{1, rec[3*i], rec[3*i+1]}
		y := rec[3*i+2]
		for a := range 3 {
			xty[a] += row[a] * y
			for b := range 3 {
				xtx[3*a+b] += row[a] * row[b]
			}
		}
		yty += y * y
	}
	return
}

// TestLinRegConjugateExact checks the θ-step of the known-σ² model: the
// posterior mean solves the normal equations, and 20,000 draws match
// N(mean, cov) marginally (KS, false-alarm rate 0.1% per coordinate) with
// sample covariances within 5 standard errors.
func TestLinRegConjugateExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 30
	rec := testRecords(r, n)
	sigma2 := 2.0
	pm, pv := []float64{0.5, -1, 0}, []float64{1, 4, 0.25}
	lc, err := NewLinRegConjugate(LinRegConjugateConfig{P: 2, Sigma2: sigma2, PriorMean: pm, PriorVar: pv})
	if err != nil {
		t.Fatal(err)
	}
	mu, cov := make([]float64, 3), make([]float64, 9)
	if err := lc.PosteriorMoments(rec, n, mu, cov); err != nil {
		t.Fatal(err)
	}
	xtx, xty, _ := normalEq(rec, n)
	for a := range 3 { // gradient of the log posterior vanishes at μ
		g := xty[a]/sigma2 - (mu[a]-pm[a])/pv[a]
		for b := range 3 {
			g -= xtx[3*a+b] * mu[b] / sigma2
		}
		if math.Abs(g) > 1e-9 {
			t.Errorf("normal equation %d residual %v", a, g)
		}
	}
	for a := range 3 { // cov · P = I
		for b := range 3 {
			s := 0.0
			for c := range 3 {
				p := xtx[3*c+b] / sigma2
				if c == b {
					p += 1 / pv[b]
				}
				s += cov[3*a+c] * p
			}
			want := 0.0
			if a == b {
				want = 1
			}
			if math.Abs(s-want) > 1e-10 {
				t.Errorf("(cov·P)[%d][%d] = %v", a, b, s)
			}
		}
	}
	const N = 20000
	draws := make([][]float64, 3)
	th := make([]float64, 3)
	for range N {
		if err := lc.SampleTheta(r, rec, n, th); err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			draws[j] = append(draws[j], th[j])
		}
	}
	for j := range 3 {
		sd := math.Sqrt(cov[4*j])
		_, p := stats.KSOneSample(draws[j], func(v float64) float64 { return special.NormCDF((v - mu[j]) / sd) })
		if !(p > 1e-3) {
			t.Errorf("β%d: KS p = %v", j, p)
		}
		for k := range j {
			c := 0.0
			for i := range N {
				c += (draws[j][i] - mu[j]) * (draws[k][i] - mu[k])
			}
			c /= N
			se := math.Sqrt((cov[4*j]*cov[4*k] + cov[3*j+k]*cov[3*j+k]) / N)
			if math.Abs(c-cov[3*j+k]) > 5*se {
				t.Errorf("cov[%d][%d] = %v, want %v ± %v", j, k, c, cov[3*j+k], se)
			}
		}
	}
}

// TestLinRegNIGExact checks the normal-inverse-gamma θ-step against its
// closed-form marginals computed independently: σ² ~ InvGamma(a_n, b_n)
// and (β_j − μ_j)/√(b_n/a_n·(Λ⁻¹)_jj) ~ t_{2a_n} (KS, 0.1% per marginal).
func TestLinRegNIGExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 10
	rec := testRecords(r, n)
	nig, err := NewLinRegNIG(LinRegNIGConfig{PredictorMean: []float64{0.9, -1.17}, A0: 10, B0: 10, G: 2, Clamp: 6})
	if err != nil {
		t.Fatal(err)
	}
	xtx, xty, yty := normalEq(rec, n)
	lam := xtx
	for a := range 3 {
		lam[4*a] += 0.5 // V0⁻¹ = I/g, g = 2
	}
	var inv [9]float64
	if err := linalg.InvSPD(lam[:], 3, inv[:]); err != nil {
		t.Fatal(err)
	}
	var mu [3]float64
	quad := 0.0
	for a := range 3 {
		for b := range 3 {
			mu[a] += inv[3*a+b] * xty[b]
		}
		quad += mu[a] * xty[a]
	}
	an, bn := 10+float64(n)/2, 10+0.5*(yty-quad)
	const N = 20000
	th := make([]float64, 4)
	d := make([][]float64, 4)
	for range N {
		if err := nig.SampleTheta(r, rec, n, th); err != nil {
			t.Fatal(err)
		}
		for j := range 4 {
			d[j] = append(d[j], th[j])
		}
	}
	_, p := stats.KSOneSample(d[3], func(s float64) float64 { return special.GammaQ(an, bn/s) })
	if !(p > 1e-3) {
		t.Errorf("σ²: KS p = %v", p)
	}
	for j := range 3 {
		sc := math.Sqrt(bn / an * inv[4*j])
		_, p := stats.KSOneSample(d[j], func(v float64) float64 { return special.StudentTCDF((v-mu[j])/sc, 2*an) })
		if !(p > 1e-3) {
			t.Errorf("β%d: KS p = %v", j, p)
		}
	}
}

// TestDABadInput checks validation of DA problems, settings and chains,
// and that a problem lacking a capability gets the root package's named
// error.
func TestDABadInput(t *testing.T) {
	good, th := linRegProblem(t, 100, 1)
	cfg := DAConfig{ThetaStep: th, RecordStep: SOMA}
	r := rand.New(rand.NewPCG(1, 1))
	mut := []struct {
		f    func(p *privinfer.Problem, c *DAConfig)
		want error
	}{
		{func(p *privinfer.Problem, c *DAConfig) { p.Simulator = nil }, ErrInvalid},
		{func(p *privinfer.Problem, c *DAConfig) { c.ThetaStep = nil }, ErrInvalid},
		{func(p *privinfer.Problem, c *DAConfig) { p.Mechanism = nil }, privinfer.ErrNoMechanism},
		{func(p *privinfer.Problem, c *DAConfig) { p.Simulator = summaryOnly{p.Simulator} }, privinfer.ErrNoRecords},
		{func(p *privinfer.Problem, c *DAConfig) { p.Mechanism = releaseOnly{p.Mechanism} }, privinfer.ErrNoDensity},
		{func(p *privinfer.Problem, c *DAConfig) { p.Observed = p.Observed[:3] }, ErrInvalid},
		{func(p *privinfer.Problem, c *DAConfig) { p.Observed = []float64{1, 2, 3, 4, 5, 6, 7, 8, math.NaN()} }, ErrInvalid},
		{func(p *privinfer.Problem, c *DAConfig) { c.RecordStep = 7 }, ErrInvalid},
	}
	for i, m := range mut {
		p, c := good, cfg
		m.f(&p, &c)
		if _, err := NewDAChain(p, c, r, []float64{0, 0, 0}); !errors.Is(err, m.want) {
			t.Errorf("mutation %d: NewDAChain err = %v, want %v", i, err, m.want)
		}
		c.Init = farInits[:1]
		c.Chains, c.Draws = 1, 1
		if _, err := RunDA(context.Background(), p, c); !errors.Is(err, m.want) {
			t.Errorf("mutation %d: RunDA err = %v, want %v", i, err, m.want)
		}
	}
	if _, err := NewDAChain(good, cfg, r, []float64{0, 0}); err == nil {
		t.Error("wrong θ length accepted")
	}
	if _, err := NewDAChain(good, cfg, r, []float64{0, math.Inf(1), 0}); err == nil {
		t.Error("non-finite θ accepted")
	}
	if _, err := NewDAChain(good, DAConfig{ThetaStep: th, RecordStep: RecordStep(9)}, r, []float64{0, 0, 0}); err == nil {
		t.Error("unknown kernel accepted")
	}
	c, _ := NewDAChain(good, cfg, r, []float64{0, 0, 0})
	if err := c.SetRecords(make([]float64, 5)); err == nil {
		t.Error("wrong records length accepted")
	}
	if _, err := RunDA(context.Background(), good, DAConfig{ThetaStep: th, Chains: -1, Draws: 1, Init: farInits}); err == nil {
		t.Error("negative chains accepted")
	}
	if _, err := RunDA(context.Background(), good, DAConfig{ThetaStep: th, Chains: 1, Draws: 1, Init: farInits}); err == nil {
		t.Error("Init for 4 chains accepted for 1 chain")
	}
	if _, err := NewLinRegConjugate(LinRegConjugateConfig{P: 2, Sigma2: -1, PriorMean: []float64{0, 0, 0}, PriorVar: []float64{1, 1, 1}}); err == nil {
		t.Error("negative sigma2 accepted")
	}
	if _, err := NewLinRegNIG(LinRegNIGConfig{PredictorMean: []float64{0}, A0: 0, B0: 1, G: 1, Clamp: 1}); err == nil {
		t.Error("a0 = 0 accepted")
	}
}

// summaryOnly hides the record model of a simulator.
type summaryOnly struct{ simulate.Simulator }

// nanMech is a release density that returns NaN away from the release.
type nanMech struct{ mechanism.Mechanism }

func (nanMech) LogDensity(sdp, s []float64) float64 {
	if s[0] > 0 {
		return math.NaN()
	}
	return -s[0] * s[0]
}

// TestDANaNReported checks that a NaN release density stops the chain
// with an error wrapping ErrNaN for every kernel.
func TestDANaNReported(t *testing.T) {
	model := linreg.Paper()
	p, th := linRegProblem(t, 100, 1)
	sim, _ := simulate.NewMeanStat(model, 5)
	p.Simulator, p.Mechanism = sim, nanMech{p.Mechanism}
	for _, k := range []RecordStep{RandomScanIMwG, SystematicScanIMwG, SOMA} {
		_, err := RunDA(context.Background(), p, DAConfig{ThetaStep: th, RecordStep: k, Chains: 1, Draws: 50, Init: [][]float64{{-3, 0, 0}}})
		if !errors.Is(err, ErrNaN) {
			t.Errorf("%v: err = %v, want ErrNaN", k, err)
		}
	}
	// NaN contributions under the Laplace fast path are reported too.
	lap, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.13, Epsilon: 1, Dim: 9})
	sim2, _ := simulate.NewMeanStat(nanContrib{model}, 5)
	p.Simulator, p.Mechanism = sim2, lap
	for _, k := range []RecordStep{RandomScanIMwG, SystematicScanIMwG, SOMA} {
		_, err := RunDA(context.Background(), p, DAConfig{ThetaStep: th, RecordStep: k, Chains: 1, Draws: 500, Init: [][]float64{{0, 0, 0}}})
		if !errors.Is(err, ErrNaN) {
			t.Errorf("%v with NaN contributions: err = %v, want ErrNaN", k, err)
		}
	}
}

// nanContrib returns NaN contributions for records with x1 > 2.5.
type nanContrib struct{ *linreg.Model }

func (n nanContrib) Contribution(rec, dst []float64) {
	n.Model.Contribution(rec, dst)
	if rec[0] > 2.5 {
		dst[0] = math.NaN()
	}
}

// TestRunDAContextAndProgress checks cancellation, progress reporting and
// seed determinism of RunDA.
func TestRunDAContextAndProgress(t *testing.T) {
	p, nig := nigProblem(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunDA(ctx, p, DAConfig{ThetaStep: nig, RecordStep: SOMA, Chains: 2, Draws: 1000}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	var events []privinfer.Progress
	cfg := DAConfig{ThetaStep: nig, RecordStep: SOMA, Chains: 2, Warmup: 5, Draws: 20, Thin: 3, Seed: 4,
		Progress: func(e privinfer.Progress) { events = append(events, e) }}
	a, err := RunDA(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkProgress(t, events, 2*65)
	cfg.Progress = nil
	b, _ := RunDA(context.Background(), p, cfg)
	if a.Draws.Chains != 2 || a.Draws.Len() != 2*20 || a.Draws.Dim != 4 || len(a.LogDensity) != 40 {
		t.Fatalf("draws: %d chains, %d draws of dimension %d, %d log densities; want 2, 40, 4, 40", a.Draws.Chains, a.Draws.Len(), a.Draws.Dim, len(a.LogDensity))
	}
	if !slices.Equal(a.Draws.Names, p.Names) {
		t.Errorf("names %v, want %v", a.Draws.Names, p.Names)
	}
	if !slices.Equal(a.Draws.Theta, b.Draws.Theta) || !slices.Equal(a.LogDensity, b.LogDensity) {
		t.Fatal("same seed, different draws")
	}
	for c := range 2 {
		if a.Proposed[c] != 60*10 {
			t.Errorf("proposed %d, want 600 post-warm-up attempts", a.Proposed[c])
		}
	}
	plain, _ := linRegProblem(t, 100, 1)
	if _, err := CoupleDA(context.Background(), plain, CouplingConfig{RecordStep: SOMA, Pairs: 1, MaxIter: 1,
		InitPair: func(int, *rand.Rand, []float64, []float64, []float64, []float64) error { return nil }}); err == nil {
		t.Error("record model without Coupler accepted")
	}
}
