package abc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// kernelTestProblem is privateNormalMean, failing t on error.
func kernelTestProblem(t *testing.T) privinfer.Problem {
	t.Helper()
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestKernelISExact checks the kernel importance sampler against the exact
// posterior of the private normal mean (closed-form marginal likelihood,
// Simpson quadrature for the moments). The Monte Carlo standard errors of
// the weighted mean and sd with ESS ≈ 10⁴ are about 0.006 and 0.005; the
// tolerances 0.03 are 5 or more standard errors (false-alarm rate below
// 1e-6 for each). A wrong kernel (Laplace scale 1 instead of 0.5) must
// fall outside them: the check has power.
func TestKernelISExact(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	post := func(th float64) float64 {
		return math.Exp(-0.5*th*th) * normalLaplaceLik(pnmObs, th)
	}
	z := simpson(post, -8, 8, 4000)
	m := simpson(func(th float64) float64 { return th * post(th) }, -8, 8, 4000) / z
	v := simpson(func(th float64) float64 { return (th - m) * (th - m) * post(th) }, -8, 8, 4000) / z
	p := kernelTestProblem(t)
	var stages int
	pop, all, err := kernelIS(context.Background(), p, KernelISConfig{Simulations: 20000, Stages: 2, Mean: []float64{0}, Cov: []float64{4}, Seed: 3,
		Progress: func(privinfer.Progress) { stages++ }})
	if err != nil {
		t.Fatal(err)
	}
	if stages != 2 || len(all) != 2 || all[1] != pop {
		t.Fatalf("stages: progress %d, returned %d", stages, len(all))
	}
	gm, gv := pop.Draws.Mean()[0], pop.Draws.Cov()[0]
	t.Logf("exact mean %.4f sd %.4f; kernel IS mean %.4f sd %.4f, ESS %.0f of %d (stage 1 ESS %.0f)", m, math.Sqrt(v), gm, math.Sqrt(gv), pop.ESS, pop.N(), all[0].ESS)
	if math.Abs(gm-m) > 0.03 || math.Abs(math.Sqrt(gv)-math.Sqrt(v)) > 0.03 {
		t.Errorf("kernel IS mean %.4f sd %.4f, exact %.4f %.4f", gm, math.Sqrt(gv), m, math.Sqrt(v))
	}
	// The adapted second stage is more efficient than the wide first.
	if all[1].ESS < 2*all[0].ESS {
		t.Errorf("ESS did not improve: %.0f then %.0f", all[0].ESS, all[1].ESS)
	}
	wrong := p
	wrong.Mechanism, _ = mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 1})
	bad, _, err := kernelIS(context.Background(), wrong, KernelISConfig{Simulations: 20000, Stages: 2, Mean: []float64{0}, Cov: []float64{4}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if bm, bs := bad.Draws.Mean()[0], math.Sqrt(bad.Draws.Cov()[0]); math.Abs(bm-m) <= 0.03 && math.Abs(bs-math.Sqrt(v)) <= 0.03 {
		t.Errorf("a wrong kernel passes the check: mean %.4f sd %.4f", bm, bs)
	}
	// Same seed, same result.
	again, _, err := kernelIS(context.Background(), p, KernelISConfig{Simulations: 20000, Stages: 2, Mean: []float64{0}, Cov: []float64{4}, Seed: 3})
	if err != nil || again.Draws.Mean()[0] != gm {
		t.Errorf("not reproducible: %v, %v", again.Draws.Mean(), err)
	}
}

func TestKernelISErrors(t *testing.T) {
	good := kernelTestProblem(t)
	cfg := KernelISConfig{Simulations: 10, Stages: 1, Mean: []float64{0}, Cov: []float64{1}}
	for name, f := range map[string]func(*privinfer.Problem, *KernelISConfig){
		"nil prior":     func(p *privinfer.Problem, _ *KernelISConfig) { p.Prior = nil },
		"nil simulator": func(p *privinfer.Problem, _ *KernelISConfig) { p.Simulator = nil },
		"nil mechanism": func(p *privinfer.Problem, _ *KernelISConfig) { p.Mechanism = nil },
		"observed dim":  func(p *privinfer.Problem, _ *KernelISConfig) { p.Observed = []float64{1, 2} },
		"observed NaN":  func(p *privinfer.Problem, _ *KernelISConfig) { p.Observed = []float64{math.NaN()} },
		"simulations":   func(_ *privinfer.Problem, c *KernelISConfig) { c.Simulations = 1 },
		"stages":        func(_ *privinfer.Problem, c *KernelISConfig) { c.Stages = 0 },
		"mean dim":      func(_ *privinfer.Problem, c *KernelISConfig) { c.Mean = []float64{0, 0} },
		"cov dim":       func(_ *privinfer.Problem, c *KernelISConfig) { c.Cov = []float64{1, 0} },
		"cov Inf":       func(_ *privinfer.Problem, c *KernelISConfig) { c.Cov = []float64{math.Inf(1)} },
		"cov not PD":    func(_ *privinfer.Problem, c *KernelISConfig) { c.Cov = []float64{-1} },
		"inflate":       func(_ *privinfer.Problem, c *KernelISConfig) { c.Inflate = 0.5 },
		"df":            func(_ *privinfer.Problem, c *KernelISConfig) { c.DF = -1 },
	} {
		p, c := good, cfg
		f(&p, &c)
		if _, _, err := kernelIS(context.Background(), p, c); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", name, err)
		}
	}
	noMech := good
	noMech.Mechanism = nil
	if _, err := KernelIS(context.Background(), noMech, cfg); !errors.Is(err, privinfer.ErrNoMechanism) || !errors.Is(err, ErrInvalid) {
		t.Errorf("no mechanism: got %v, want privinfer.ErrNoMechanism and ErrInvalid", err)
	}
	p := good
	p.Simulator = failing{at: 0}
	var se *simulate.RowError
	if _, _, err := kernelIS(context.Background(), p, cfg); !errors.As(err, &se) || !errors.Is(err, errBoom) {
		t.Errorf("simulator failure: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := kernelIS(ctx, good, cfg); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
}

// identity2 releases θ itself as the confidential statistic (2-D).
type identity2 struct{}

func (identity2) StatDim() int { return 2 }
func (identity2) Simulate(_ *rand.Rand, theta, dst []float64) error {
	copy(dst, theta)
	return nil
}

// TestKernelIS2D checks a correlated two-dimensional posterior (prior
// N(0, [[1, 0.8], [0.8, 1]]), s = θ, Laplace release of scale 0.5 per
// coordinate) against a 600 × 600 grid: means, standard deviations and the
// correlation within 0.03 (four or more Monte Carlo standard errors at ESS
// ≈ 10⁴),
// which exercises the proposal's full Cholesky factor.
func TestKernelIS2D(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	prior, err := simulate.NewMVNormal(simulate.MVNormalConfig{Mean: []float64{0, 0}, Cov: []float64{1, 0.8, 0.8, 1}})
	if err != nil {
		t.Fatal(err)
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	obs := []float64{1, -0.5}
	p := privinfer.Problem{Prior: prior, Simulator: identity2{}, Mechanism: lap, Observed: obs}
	// Grid moments.
	const g, lo, hi = 600, -5.0, 5.0
	h := (hi - lo) / g
	var z, m0, m1, s00, s11, s01 float64
	for i := 0; i < g; i++ {
		for j := 0; j < g; j++ {
			th := []float64{lo + (float64(i)+0.5)*h, lo + (float64(j)+0.5)*h}
			w := math.Exp(prior.LogDensity(th) + lap.LogDensity(obs, th))
			z += w
			m0 += w * th[0]
			m1 += w * th[1]
			s00 += w * th[0] * th[0]
			s11 += w * th[1] * th[1]
			s01 += w * th[0] * th[1]
		}
	}
	m0, m1 = m0/z, m1/z
	v0, v1 := s00/z-m0*m0, s11/z-m1*m1
	rho := (s01/z - m0*m1) / math.Sqrt(v0*v1)
	pop, _, err := kernelIS(context.Background(), p, KernelISConfig{Simulations: 20000, Stages: 2, Mean: []float64{0, 0}, Cov: []float64{2, 1.5, 1.5, 2}, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	gm, gc := pop.Draws.Mean(), pop.Draws.Cov()
	grho := gc[1] / math.Sqrt(gc[0]*gc[3])
	t.Logf("grid: mean (%.4f, %.4f) sd (%.4f, %.4f) ρ %.4f; kernel IS: (%.4f, %.4f) (%.4f, %.4f) ρ %.4f, ESS %.0f",
		m0, m1, math.Sqrt(v0), math.Sqrt(v1), rho, gm[0], gm[1], math.Sqrt(gc[0]), math.Sqrt(gc[3]), grho, pop.ESS)
	for _, d := range []float64{gm[0] - m0, gm[1] - m1, math.Sqrt(gc[0]) - math.Sqrt(v0), math.Sqrt(gc[3]) - math.Sqrt(v1), grho - rho} {
		if math.Abs(d) > 0.03 {
			t.Errorf("kernel IS differs from the grid by %.4f", d)
		}
	}
}

// kernelIS runs KernelIS and returns its last stage and all stages,
// checking that the result's Draws are the last stage's.
func kernelIS(ctx context.Context, p privinfer.Problem, cfg KernelISConfig) (*Round, []*Round, error) {
	res, err := KernelIS(ctx, p, cfg)
	if err != nil {
		return nil, nil, err
	}
	last := res.Stages[len(res.Stages)-1]
	if res.Draws != last.Draws || res.Draws.Validate() != nil || !res.Draws.Weighted() {
		return nil, nil, fmt.Errorf("KernelIS: result draws %p are not the last stage's %p", res.Draws, last.Draws)
	}
	return last, res.Stages, nil
}
