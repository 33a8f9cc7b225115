package abc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/mixture"
)

const (
	sub  = 5e-324 // the smallest subnormal
	huge = 1e308
)

// badInputCases returns the calls of the package's error-returning
// functions with a bad argument: each must return an error wrapping
// ErrInvalid.
func badInputCases(t *testing.T) []testutil.BadInput {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	nan, inf := math.NaN(), math.Inf(1)
	var cases []testutil.BadInput
	add := func(cat, name string, f func() error) {
		cases = append(cases, testutil.BadInput{Category: cat, Name: name, Err: f})
	}
	good, err := NewABCDPSelector(ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 2, Sensitivity: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	goodRep, err := NewABCDPSelector(ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 2, Sensitivity: 0.1, Reproducible: true})
	if err != nil {
		t.Fatal(err)
	}

	// Problems, through every entry point that takes one.
	prior2, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0, 0}, Variances: []float64{1, 1}})
	um, _ := mixture.NewUniform(3)
	mixture3, _ := simulate.NewDataset(um, 2)
	mmd2, _ := NewMMD(MMDConfig{Dim: 2, Bandwidth: 1, Unbiased: false})
	w2, _ := NewWeightedL2([]float64{1, 1})
	type badProblem struct {
		p privinfer.Problem
		d Distance
	}
	with := func(f func(*privinfer.Problem, *Distance)) badProblem {
		q := badProblem{p, Euclidean{}}
		f(&q.p, &q.d)
		return q
	}
	for _, bp := range []struct {
		cat, name string
		p         badProblem
	}{
		{"empty", "empty observed", with(func(q *privinfer.Problem, d *Distance) { q.Observed = nil })},
		{"nan", "NaN observed", with(func(q *privinfer.Problem, d *Distance) { q.Observed = []float64{nan} })},
		{"inf", "+Inf observed", with(func(q *privinfer.Problem, d *Distance) { q.Observed = []float64{inf} })},
		{"inf", "-Inf observed", with(func(q *privinfer.Problem, d *Distance) { q.Observed = []float64{-inf} })},
		{"mismatched", "observed vs statistic length", with(func(q *privinfer.Problem, d *Distance) { q.Observed = []float64{1, 2} })},
		{"mismatched", "prior vs parameter dimension", with(func(q *privinfer.Problem, d *Distance) { q.Prior, q.Simulator = prior2, normalMean{se: 1} })},
		{"mismatched", "prior vs private simulator", with(func(q *privinfer.Problem, d *Distance) { q.Prior = prior2 })},
		{"mismatched", "prior vs record model", badProblem{privinfer.Problem{Prior: prior2, Simulator: mixture3, Observed: []float64{1, 2}}, Euclidean{}}},
		{"mismatched", "MMD point dimension vs observation", with(func(q *privinfer.Problem, d *Distance) { *d = mmd2 })},
		{"mismatched", "weighted L2 weights vs statistic", with(func(q *privinfer.Problem, d *Distance) { *d = w2 })},
		{"nil", "nil prior", with(func(q *privinfer.Problem, d *Distance) { q.Prior = nil })},
		{"nil", "nil simulator", with(func(q *privinfer.Problem, d *Distance) { q.Simulator = nil })},
		{"nil", "nil distance", with(func(q *privinfer.Problem, d *Distance) { *d = nil })},
		{"typednil", "typed nil prior", with(func(q *privinfer.Problem, d *Distance) { q.Prior = (*simulate.MVNormal)(nil) })},
		{"typednil", "typed nil distance", with(func(q *privinfer.Problem, d *Distance) { *d = (*MMD)(nil) })},
		{"nil", "clipped nil distance", with(func(q *privinfer.Problem, d *Distance) { *d = Clipped{C: 1} })},
		{"zerovalue", "zero Problem", badProblem{d: Euclidean{}}},
		{"zerovalue", "zero Clipped", with(func(q *privinfer.Problem, d *Distance) { *d = Clipped{} })},
		{"zerovalue", "zero MMD", with(func(q *privinfer.Problem, d *Distance) { *d = &MMD{} })},
		{"zerovalue", "zero FeatureMMD", with(func(q *privinfer.Problem, d *Distance) { *d = &FeatureMMD{} })},
		{"zerovalue", "zero WeightedL2", with(func(q *privinfer.Problem, d *Distance) { *d = &WeightedL2{} })},
		{"mismatched", "private simulator and a mechanism", with(func(q *privinfer.Problem, _ *Distance) { q.Simulator, _ = simulate.Private(q.Simulator, q.Mechanism) })},
		{"typednil", "typed nil mechanism", with(func(q *privinfer.Problem, _ *Distance) { q.Mechanism = (*mechanism.Laplace)(nil) })},
	} {
		bp := bp
		add(bp.cat, "SMC: "+bp.name, func() error {
			_, err := SMC(ctx, bp.p.p, SMCConfig{Distance: bp.p.d, Particles: 10, Schedule: ToleranceList{1}})
			return err
		})
		add(bp.cat, "Rejection: "+bp.name, func() error {
			_, err := Rejection(ctx, bp.p.p, RejectionConfig{Distance: bp.p.d, Tolerance: 1, Simulations: 10})
			return err
		})
		add(bp.cat, "SimulatePrior: "+bp.name, func() error { _, err := SimulatePrior(ctx, bp.p.p, bp.p.d, 10, 1, PublicObservation); return err })
		if bp.name == "private simulator and a mechanism" || bp.name == "typed nil mechanism" {
			continue // ABCDP refuses every mechanism (below)
		}
		add(bp.cat, "ABCDP: "+bp.name, func() error {
			q := bp.p.p
			q.Mechanism = nil
			_, err := ABCDP(ctx, q, ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 2, Sensitivity: 0.1, Distance: bp.p.d, Simulations: 10})
			return err
		})
	}
	add("mismatched", "ABCDP with a mechanism", func() error {
		_, err := ABCDP(ctx, p, ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 2, Sensitivity: 0.1, Distance: Euclidean{}, Simulations: 10})
		return err
	})
	pub := p
	pub.Mechanism = nil

	// SMC configurations.
	smc := func(cat, name string, cfg SMCConfig) {
		add(cat, "SMCConfig: "+name, func() error { _, err := SMC(ctx, p, cfg); return err })
	}
	tl := ToleranceList{1}
	smc("zerovalue", "zero config", SMCConfig{})
	smc("nil", "nil distance", SMCConfig{Particles: 10, Schedule: tl})
	smc("nonpositive", "0 particles", SMCConfig{Distance: Euclidean{}, Particles: 0, Schedule: tl})
	smc("nonpositive", "1 particle", SMCConfig{Distance: Euclidean{}, Particles: 1, Schedule: tl})
	smc("nonpositive", "-5 particles", SMCConfig{Distance: Euclidean{}, Particles: -5, Schedule: tl})
	smc("huge", "2^29 particles", SMCConfig{Distance: Euclidean{}, Particles: 1 << 29, Schedule: tl})
	smc("huge", "2^40 particles", SMCConfig{Distance: Euclidean{}, Particles: 1 << 40, Schedule: tl})
	smc("nil", "nil schedule", SMCConfig{Distance: Euclidean{}, Particles: 10})
	smc("nil", "nil tolerance list", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: ToleranceList(nil)})
	smc("empty", "empty tolerance list", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: ToleranceList{}})
	smc("empty", "geometric schedule with no tolerance above Min", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: 0.5, R: 0.7, Rounds: 3, Min: 1}})
	smc("nan", "NaN tolerance", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: ToleranceList{1, nan}})
	smc("nonpositive", "zero tolerance", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: ToleranceList{1, 0}})
	smc("nonpositive", "negative tolerance", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: ToleranceList{-1}})
	smc("subnormal", "geometric A subnormal", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: sub, R: 0.5, Rounds: 3}})
	smc("zerovalue", "zero geometric", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{}})
	smc("zerovalue", "zero adaptive", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Adaptive{}})
	smc("nan", "geometric A NaN", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: nan, R: 0.5, Rounds: 3}})
	smc("inf", "geometric A +Inf", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: inf, R: 0.5, Rounds: 3}})
	smc("nan", "geometric R NaN", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: 1, R: nan, Rounds: 3}})
	smc("huge", "geometric R 1.5", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: 1, R: 1.5, Rounds: 3}})
	smc("nonpositive", "geometric R 0", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: 1, R: 0, Rounds: 3}})
	smc("nonpositive", "geometric rounds 0", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: 1, R: 0.5}})
	smc("nan", "geometric Min NaN", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: 1, R: 0.5, Rounds: 3, Min: nan}})
	smc("inf", "geometric Min +Inf", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: 1, R: 0.5, Rounds: 3, Min: inf}})
	smc("nonpositive", "geometric Min -1", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Geometric{A: 1, R: 0.5, Rounds: 3, Min: -1}})
	smc("nan", "adaptive initial NaN", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Adaptive{Initial: nan, Quantile: 0.5, Rounds: 3}})
	smc("nan", "adaptive quantile NaN", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Adaptive{Initial: 1, Quantile: nan, Rounds: 3}})
	smc("inf", "adaptive quantile +Inf", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Adaptive{Initial: 1, Quantile: inf, Rounds: 3}})
	smc("nonpositive", "adaptive quantile 0", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Adaptive{Initial: 1, Quantile: 0, Rounds: 3}})
	smc("nan", "adaptive Min NaN", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Adaptive{Initial: 1, Quantile: 0.5, Rounds: 3, Min: nan}})
	smc("nonpositive", "adaptive rounds 0", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: Adaptive{Initial: 1, Quantile: 0.5}})
	smc("nan", "MinAcceptance NaN", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, MinAcceptance: nan})
	smc("inf", "MinAcceptance +Inf", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, MinAcceptance: inf})
	smc("huge", "MinAcceptance 2", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, MinAcceptance: 2})
	smc("nonpositive", "MinAcceptance -1", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, MinAcceptance: -1})
	smc("nan", "StallRatio NaN", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, StallRatio: nan})
	smc("inf", "StallRatio +Inf", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, StallRatio: inf})
	smc("nonpositive", "StallRatio -1", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, StallRatio: -1})
	smc("nan", "ResampleESS NaN", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, ResampleESS: nan})
	smc("inf", "ResampleESS -Inf", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, ResampleESS: math.Inf(-1)})
	smc("huge", "ResampleESS 2", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, ResampleESS: 2})
	smc("nonpositive", "MaxSimulations -1", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, MaxSimulations: -1})
	smc("nonpositive", "perturbation -1", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, Perturbation: -1})
	smc("huge", "perturbation 99", SMCConfig{Distance: Euclidean{}, Particles: 10, Schedule: tl, Perturbation: 99})

	// Rejection configurations.
	rej := func(cat, name string, cfg RejectionConfig) {
		add(cat, "RejectionConfig: "+name, func() error { _, err := Rejection(ctx, p, cfg); return err })
	}
	rej("zerovalue", "zero config", RejectionConfig{})
	rej("nil", "nil distance", RejectionConfig{Tolerance: 1, Simulations: 10})
	rej("nan", "tolerance NaN", RejectionConfig{Distance: Euclidean{}, Tolerance: nan, Simulations: 10})
	rej("inf", "tolerance +Inf", RejectionConfig{Distance: Euclidean{}, Tolerance: inf, Simulations: 10})
	rej("nonpositive", "tolerance -1", RejectionConfig{Distance: Euclidean{}, Tolerance: -1, Simulations: 10})
	rej("nonpositive", "no simulations", RejectionConfig{Distance: Euclidean{}, Tolerance: 1})
	rej("nonpositive", "simulations -1", RejectionConfig{Distance: Euclidean{}, Tolerance: 1, Simulations: -1})
	rej("nonpositive", "accept -1", RejectionConfig{Distance: Euclidean{}, Tolerance: 1, Accept: -1, Simulations: 10})
	rej("mismatched", "accept > simulations", RejectionConfig{Distance: Euclidean{}, Accept: 20, Simulations: 10})
	rej("huge", "2^40 simulations held", RejectionConfig{Distance: Euclidean{}, Tolerance: 1, Simulations: 1 << 40})
	rej("huge", "2^29 nearest-k simulations", RejectionConfig{Distance: Euclidean{}, Accept: 5, Simulations: 1 << 29})
	rej("huge", "2^40 acceptances", RejectionConfig{Distance: Euclidean{}, Tolerance: 1, Accept: 1 << 40, Simulations: 1 << 41})
	for _, n := range []int{0, -1} {
		add("nonpositive", fmt.Sprintf("SimulatePrior n = %d", n), func() error { _, err := SimulatePrior(ctx, p, Euclidean{}, n, 1, PublicObservation); return err })
	}
	add("huge", "SimulatePrior n = 2^40", func() error { _, err := SimulatePrior(ctx, p, Euclidean{}, 1<<40, 1, PublicObservation); return err })

	// ABCDP configuration, selection and run.
	abcdp := func(cat, name string, cfg ABCDPConfig) {
		add(cat, "ABCDPConfig: "+name, func() error { _, err := NewABCDPSelector(cfg); return err })
	}
	base := ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 2, Sensitivity: 0.01}
	mod := func(f func(*ABCDPConfig)) ABCDPConfig { c := base; f(&c); return c }
	abcdp("zerovalue", "zero config", ABCDPConfig{})
	for _, v := range []struct {
		cat string
		x   float64
	}{{"nan", nan}, {"inf", inf}, {"inf", -inf}, {"nonpositive", 0}, {"nonpositive", -1}, {"subnormal", sub}, {"huge", huge}} {
		x := v.x
		abcdp(v.cat, fmt.Sprintf("EpsTotal %v", x), mod(func(c *ABCDPConfig) { c.EpsTotal = x }))
		if v.cat != "nonpositive" {
			abcdp(v.cat, fmt.Sprintf("Sensitivity %v", x), mod(func(c *ABCDPConfig) { c.Sensitivity = x }))
			abcdp(v.cat, fmt.Sprintf("Clip %v (Sensitivity 0)", x), mod(func(c *ABCDPConfig) { c.Clip, c.Sensitivity = x, 0 }))
			add(v.cat, fmt.Sprintf("TotalEpsilon b %v", x), func() error { _, err := TotalEpsilon(x, 0.01, 2, true); return err })
			add(v.cat, fmt.Sprintf("TotalEpsilon sensitivity %v", x), func() error { _, err := TotalEpsilon(1, x, 2, true); return err })
		}
		add(v.cat, fmt.Sprintf("NoiseScale ε %v", x), func() error { _, err := NoiseScale(x, 0.01, 2, true); return err })
	}
	abcdp("nonpositive", "Sensitivity -1", mod(func(c *ABCDPConfig) { c.Sensitivity = -1 }))
	abcdp("nonpositive", "Clip -1", mod(func(c *ABCDPConfig) { c.Clip = -1 }))
	abcdp("nonpositive", "no sensitivity and no clip", mod(func(c *ABCDPConfig) { c.Sensitivity = 0 }))
	abcdp("nonpositive", "C 0", mod(func(c *ABCDPConfig) { c.C = 0 }))
	abcdp("nonpositive", "C -1", mod(func(c *ABCDPConfig) { c.C = -1 }))
	abcdp("huge", "C MaxInt with a large sensitivity", mod(func(c *ABCDPConfig) { c.C, c.Sensitivity = math.MaxInt, 1e290 }))
	abcdp("nan", "EpsABC NaN", mod(func(c *ABCDPConfig) { c.EpsABC = nan }))
	abcdp("inf", "EpsABC +Inf", mod(func(c *ABCDPConfig) { c.EpsABC = inf }))
	abcdp("inf", "EpsABC -Inf", mod(func(c *ABCDPConfig) { c.EpsABC = -inf }))
	abcdp("huge", "EpsABC 1e308", mod(func(c *ABCDPConfig) { c.EpsABC = huge }))
	add("nonpositive", "TotalEpsilon c 0", func() error { _, err := TotalEpsilon(1, 1, 0, false); return err })
	for _, v := range []struct {
		cat string
		x   float64
	}{{"nan", nan}, {"inf", inf}, {"inf", -inf}, {"nonpositive", 0}, {"nonpositive", -1}, {"subnormal", sub}} {
		add(v.cat, fmt.Sprintf("NoiseScale sensitivity %v", v.x), func() error { _, err := NoiseScale(1, v.x, 2, false); return err })
	}
	add("nonpositive", "NoiseScale c 0", func() error { _, err := NoiseScale(1, 1, 0, true); return err })
	add("nonpositive", "NoiseScale c -1", func() error { _, err := NoiseScale(1, 1, -1, true); return err })
	add("huge", "NoiseScale b overflows", func() error { _, err := NoiseScale(1e-10, 1e300, 5, true); return err })
	add("huge", "NoiseScale ε 1e-308 overflows", func() error { _, err := NoiseScale(1e-308, 1e10, 2, true); return err })
	add("subnormal", "NoiseScale b underflows", func() error { _, err := NoiseScale(1e300, 1e-300, 1, true); return err })
	add("huge", "NoiseScale c MaxInt", func() error { _, err := NoiseScale(1e-300, 1e300, math.MaxInt, true); return err })
	sel := func(cat, name string, a *ABCDPSelector, r *rand.Rand, d []float64) {
		add(cat, "Select: "+name, func() error { _, err := a.Select(r, d); return err })
	}
	sel("nil", "nil rand with Reproducible", goodRep, nil, []float64{0.1})
	sel("nil", "nil ABCDPSelector", nil, rng(), []float64{0.1})
	sel("zerovalue", "zero ABCDPSelector", &ABCDPSelector{}, rng(), []float64{0.1})
	sel("nan", "NaN distance (Reproducible)", goodRep, rng(), []float64{0.1, nan})
	sel("empty", "nil distances", good, rng(), nil)
	sel("empty", "empty distances", good, rng(), []float64{})
	sel("nan", "NaN distance", good, rng(), []float64{0.1, nan})
	sel("inf", "+Inf distance without clip", good, rng(), []float64{inf})
	sel("inf", "-Inf distance without clip", good, rng(), []float64{-inf})
	run := func(cat, name string, cfg ABCDPConfig, q privinfer.Problem) {
		add(cat, "ABCDP: "+name, func() error { _, err := ABCDP(ctx, q, cfg); return err })
	}
	withT := func(T int, d Distance) ABCDPConfig {
		return ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 2, Sensitivity: 0.1, Distance: d, Simulations: T}
	}
	run("zerovalue", "zero config", ABCDPConfig{}, pub)
	run("nonpositive", "T 0", withT(0, Euclidean{}), pub)
	run("nonpositive", "T -1", withT(-1, Euclidean{}), pub)
	run("nil", "nil distance", withT(10, nil), pub)
	run("huge", "T 2^40", withT(1<<40, Euclidean{}), pub)
	run("nan", "EpsTotal NaN", mod(func(c *ABCDPConfig) { c.EpsTotal, c.Distance, c.Simulations = nan, Euclidean{}, 10 }), pub)
	abcdp("nonpositive", "Simulations -1", mod(func(c *ABCDPConfig) { c.Simulations = -1 }))
	ub, _ := NewMMD(MMDConfig{Dim: 1, Bandwidth: 1, Unbiased: true})
	run("mismatched", "unbiased MMD without a clip", withT(10, ub), pub)

	// Distances.
	for _, v := range []struct {
		cat string
		x   float64
	}{{"nan", nan}, {"inf", inf}, {"nonpositive", 0}, {"nonpositive", -1}, {"subnormal", sub}, {"subnormal", 1e-160}, {"huge", huge}, {"huge", 1e160}} {
		x := v.x
		add(v.cat, fmt.Sprintf("NewMMD bandwidth %v", x), func() error { _, err := NewMMD(MMDConfig{Dim: 1, Bandwidth: x, Unbiased: false}); return err })
		add(v.cat, fmt.Sprintf("MMD.MMD2 bandwidth %v", x), func() error {
			_, err := (&MMD{Dim: 1, Bandwidth: x}).MMD2(ctx, []float64{1, 2}, []float64{3})
			return err
		})
		add(v.cat, fmt.Sprintf("NewFeatureMMD bandwidth %v", x), func() error {
			_, err := NewFeatureMMD(FeatureMMDConfig{Dim: 1, Bandwidth: x, Features: 10}, rng())
			return err
		})
		add(v.cat, fmt.Sprintf("NewClipped C %v", x), func() error {
			if x == huge || x == 1e160 || x == 1e-160 {
				return invalidf("skip") // large and moderately small clips are valid
			}
			_, err := NewClipped(Euclidean{}, x)
			return err
		})
		if x != huge && x != 1e160 && x != 1e-160 && x != sub {
			add(v.cat, fmt.Sprintf("NewWeightedL2 weight %v", x), func() error {
				if x == 0 {
					_, err := NewWeightedL2([]float64{0, 0})
					return err
				}
				_, err := NewWeightedL2([]float64{1, x})
				return err
			})
		}
	}
	cases = dropSkipped(cases)
	add("nonpositive", "NewMMD dim 0", func() error { _, err := NewMMD(MMDConfig{Dim: 0, Bandwidth: 1, Unbiased: false}); return err })
	add("nonpositive", "NewFeatureMMD dim 0", func() error {
		_, err := NewFeatureMMD(FeatureMMDConfig{Dim: 0, Bandwidth: 1, Features: 10}, rng())
		return err
	})
	add("nonpositive", "NewFeatureMMD features 0", func() error {
		_, err := NewFeatureMMD(FeatureMMDConfig{Dim: 1, Bandwidth: 1, Features: 0}, rng())
		return err
	})
	add("huge", "NewFeatureMMD features 2^40", func() error {
		_, err := NewFeatureMMD(FeatureMMDConfig{Dim: 1, Bandwidth: 1, Features: 1 << 40}, rng())
		return err
	})
	add("nil", "NewFeatureMMD nil rand", func() error {
		_, err := NewFeatureMMD(FeatureMMDConfig{Dim: 1, Bandwidth: 1, Features: 10}, nil)
		return err
	})
	add("nil", "NewClipped nil distance", func() error { _, err := NewClipped(nil, 1); return err })
	add("nil", "MMD2 on a nil MMD", func() error { _, err := (*MMD)(nil).MMD2(ctx, []float64{1}, []float64{1}); return err })
	add("zerovalue", "MMD2 on a zero MMD", func() error { _, err := (&MMD{}).MMD2(ctx, []float64{1}, []float64{1}); return err })
	add("zerovalue", "WithObserved on a zero FeatureMMD", func() error { _, err := (&FeatureMMD{}).WithObserved([]float64{1}); return err })
	fm, _ := NewFeatureMMD(FeatureMMDConfig{Dim: 2, Bandwidth: 1, Features: 10}, rng())
	add("empty", "WithObserved empty", func() error { _, err := fm.WithObserved(nil); return err })
	add("mismatched", "WithObserved length not a multiple of the dimension", func() error { _, err := fm.WithObserved([]float64{1, 2, 3}); return err })
	add("empty", "MMD2 empty sets", func() error { _, err := mmd2.MMD2(ctx, nil, []float64{1, 2}); return err })
	add("mismatched", "MMD2 length not a multiple of the dimension", func() error { _, err := mmd2.MMD2(ctx, []float64{1, 2, 3}, []float64{1, 2}); return err })
	add("mismatched", "unbiased MMD2 with one point", func() error { _, err := ub.MMD2(ctx, []float64{1}, []float64{1, 2}); return err })
	add("empty", "NewWeightedL2 no weights", func() error { _, err := NewWeightedL2(nil); return err })
	add("empty", "MedianHeuristic no points", func() error { _, err := MedianHeuristic(nil, 1, 0); return err })
	add("empty", "MedianHeuristic one point", func() error { _, err := MedianHeuristic([]float64{1}, 1, 0); return err })
	add("nonpositive", "MedianHeuristic zero median", func() error { _, err := MedianHeuristic([]float64{1, 1}, 1, 0); return err })
	add("mismatched", "MedianHeuristic length not a multiple of the dimension", func() error { _, err := MedianHeuristic([]float64{1, 2, 3}, 2, 0); return err })

	// Kernel importance sampling.
	kp := kernelTestProblem(t)
	kc := KernelISConfig{Simulations: 10, Stages: 1, Mean: []float64{0}, Cov: []float64{1}}
	kis := func(cat, name string, f func(*privinfer.Problem, *KernelISConfig)) {
		add(cat, "KernelIS: "+name, func() error {
			q, c := kp, kc
			c.Mean, c.Cov = append([]float64(nil), kc.Mean...), append([]float64(nil), kc.Cov...)
			f(&q, &c)
			_, err := KernelIS(ctx, q, c)
			return err
		})
	}
	kis("zerovalue", "zero problem", func(q *privinfer.Problem, _ *KernelISConfig) { *q = privinfer.Problem{} })
	kis("zerovalue", "zero config", func(_ *privinfer.Problem, c *KernelISConfig) { *c = KernelISConfig{} })
	kis("nil", "nil prior", func(q *privinfer.Problem, _ *KernelISConfig) { q.Prior = nil })
	kis("typednil", "typed nil prior", func(q *privinfer.Problem, _ *KernelISConfig) { q.Prior = (*simulate.MVNormal)(nil) })
	kis("nil", "nil simulator", func(q *privinfer.Problem, _ *KernelISConfig) { q.Simulator = nil })
	kis("nil", "nil mechanism", func(q *privinfer.Problem, _ *KernelISConfig) { q.Mechanism = nil })
	kis("empty", "empty observed", func(q *privinfer.Problem, _ *KernelISConfig) { q.Observed = nil })
	kis("mismatched", "observed length", func(q *privinfer.Problem, _ *KernelISConfig) { q.Observed = []float64{1, 2} })
	kis("mismatched", "prior vs simulator parameter dimension", func(q *privinfer.Problem, c *KernelISConfig) {
		q.Prior, c.Mean, c.Cov = prior2, []float64{0, 0}, []float64{1, 0, 0, 1}
	})
	kis("mismatched", "mean length", func(_ *privinfer.Problem, c *KernelISConfig) { c.Mean = []float64{0, 0} })
	kis("mismatched", "cov length", func(_ *privinfer.Problem, c *KernelISConfig) { c.Cov = []float64{1, 0} })
	kis("nan", "observed NaN", func(q *privinfer.Problem, _ *KernelISConfig) { q.Observed = []float64{nan} })
	kis("inf", "observed +Inf", func(q *privinfer.Problem, _ *KernelISConfig) { q.Observed = []float64{inf} })
	kis("nan", "mean NaN", func(_ *privinfer.Problem, c *KernelISConfig) { c.Mean = []float64{nan} })
	kis("inf", "cov +Inf", func(_ *privinfer.Problem, c *KernelISConfig) { c.Cov = []float64{inf} })
	kis("nonpositive", "cov not positive definite", func(_ *privinfer.Problem, c *KernelISConfig) { c.Cov = []float64{-1} })
	kis("nonpositive", "simulations 1", func(_ *privinfer.Problem, c *KernelISConfig) { c.Simulations = 1 })
	kis("huge", "simulations 2^40", func(_ *privinfer.Problem, c *KernelISConfig) { c.Simulations = 1 << 40 })
	kis("nonpositive", "stages 0", func(_ *privinfer.Problem, c *KernelISConfig) { c.Stages = 0 })
	kis("nonpositive", "inflate 0.5", func(_ *privinfer.Problem, c *KernelISConfig) { c.Inflate = 0.5 })
	kis("nan", "inflate NaN", func(_ *privinfer.Problem, c *KernelISConfig) { c.Inflate = nan })
	kis("inf", "inflate +Inf", func(_ *privinfer.Problem, c *KernelISConfig) { c.Inflate = inf })
	kis("nonpositive", "DF -1", func(_ *privinfer.Problem, c *KernelISConfig) { c.DF = -1 })
	kis("nan", "DF NaN", func(_ *privinfer.Problem, c *KernelISConfig) { c.DF = nan })
	kis("inf", "DF +Inf", func(_ *privinfer.Problem, c *KernelISConfig) { c.DF = inf })
	kis("subnormal", "DF subnormal", func(_ *privinfer.Problem, c *KernelISConfig) { c.DF = sub })
	return cases
}

// dropSkipped removes the placeholder cases that returned the "skip" marker
// at construction (valid values in a loop over bad ones).
func dropSkipped(cs []testutil.BadInput) []testutil.BadInput {
	out := cs[:0]
	for _, c := range cs {
		if err := c.Err(); err != nil && err.Error() == "abc: skip: abc: invalid argument" {
			continue
		}
		out = append(out, c)
	}
	return out
}

// TestBadInput runs the package's bad-input table on the tallying runner:
// the error-returning calls of badInputCases and the calls without an
// error return of badInputChecks, which must give their documented value
// (NaN, zero, false) rather than panic. Every category must be exercised.
func TestBadInput(t *testing.T) {
	cases := append(badInputCases(t), badInputChecks(t)...)
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.Category] = true
	}
	for _, cat := range testutil.BadInputCategories {
		if !seen[cat] {
			t.Errorf("no case in category %s", cat)
		}
	}
	tl := testutil.RunBadInput(t, ErrInvalid, cases)
	if tl.UndocumentedPanics+tl.SilentGarbage+tl.DataDependent != 0 {
		t.Errorf("tally %+v", tl)
	}
}

// TestZeroValuesDoNotPanic calls the result types' methods on zero values:
// they report empty or NaN results instead of panicking.
func TestZeroValuesDoNotPanic(t *testing.T) {
	var pop Round
	if n := pop.N(); n != 0 {
		t.Errorf("zero round has %d particles", n)
	}
	var sr SMCResult
	if f := sr.Final(); f != nil {
		t.Errorf("zero SMC result has a final round %v", f)
	}
	var fm FeatureMMD
	if d := fm.Distance([]float64{1}, []float64{1}); !math.IsNaN(d) {
		t.Errorf("zero feature MMD distance %v", d)
	}
	if d := (Clipped{}).Distance([]float64{1}, []float64{1}); !math.IsNaN(d) {
		t.Errorf("zero Clipped distance %v", d)
	}
	var a *ABCDPSelector
	if a.Scale() != 0 || a.Sensitivity() != 0 || a.Budget().Epsilon != 0 {
		t.Error("nil ABCDPSelector accessors")
	}
	var r *SMCResult = &SMCResult{}
	if r.Final() != nil {
		t.Error("empty SMC result has a final population")
	}
}
