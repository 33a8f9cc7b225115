package mechanism

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// Bad-input values shared by the table.
var (
	bNaN  = math.NaN()
	bInf  = math.Inf(1)
	bSub  = 5e-324 // the smallest subnormal
	bHuge = 1e308
)

// badMech describes one mechanism for the generic bad-input cases of
// Release, SimulateRelease, LogDensity and Apply.
type badMech struct {
	name string
	m    Mechanism
	// s is a valid statistic, out the output length.
	s   []float64
	out int
	// zero and nilp are the zero value and a nil pointer of the type.
	zero, nilp Mechanism
	// valid reports whether a release of s is a possible output (finite,
	// in the mechanism's support).
	valid func(x []float64) bool
	// huge reports how the mechanism treats a statistic entry of 1e308:
	// true when it is outside the domain (an error), false when it is a
	// legitimate input whose release must be valid.
	hugeIsError bool
	// subIsError: a subnormal entry is outside the domain (e.g. not a bit).
	subIsError bool
}

// finiteAll reports whether every x_i is finite.
func finiteAll(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// intsIn returns a validity predicate: every x_i is an integer in [lo, hi].
func intsIn(lo, hi float64) func(x []float64) bool {
	return func(x []float64) bool {
		for _, v := range x {
			if v != math.Trunc(v) || v < lo || v > hi {
				return false
			}
		}
		return true
	}
}

func badMechs(t *testing.T) []badMech {
	t.Helper()
	must := func(m Mechanism, err error) Mechanism {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	lap := must(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 2}))
	gau := must(NewAnalyticGaussian(GaussianConfig{Epsilon: 1, Delta: 1e-6, Sensitivity: 1, Dim: 2}))
	bnd := func(mode BoundMode) Mechanism {
		return must(NewBounded(lap, []float64{-1, -2}, []float64{1, 2}, mode))
	}
	inBox := func(x []float64) bool {
		return len(x) == 2 && x[0] >= -1 && x[0] <= 1 && x[1] >= -2 && x[1] <= 2
	}
	svt := must(NewSparseVector(SVTConfig{Threshold: 0.5, Sensitivity: 1, ThresholdScale: 1, QueryScale: 2, MaxAbove: 1}))
	svtOut := func(x []float64) bool {
		for i, v := range x {
			if math.IsNaN(v) && i > 0 {
				continue
			}
			if v != 0 && v != 1 {
				return false
			}
		}
		return true
	}
	return []badMech{
		{"Laplace", lap, []float64{0.3, -1.2}, 2, &Laplace{}, (*Laplace)(nil), finiteAll, true, false},
		{"Gaussian", gau, []float64{0.3, -1.2}, 2, &Gaussian{}, (*Gaussian)(nil), finiteAll, true, false},
		{"Exponential", must(NewExponential(ExponentialConfig{Epsilon: 1, Sensitivity: 1, Candidates: 3})), []float64{0, 1, 2}, 1,
			&Exponential{}, (*Exponential)(nil), intsIn(0, 2), false, false},
		{"RandomizedResponse", must(NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: 2})), []float64{0, 1}, 2, &RandomizedResponse{}, (*RandomizedResponse)(nil), intsIn(0, 1), true, true},
		{"KaryRandomizedResponse", must(NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 4, Dim: 2})), []float64{0, 3}, 2,
			&KaryRandomizedResponse{}, (*KaryRandomizedResponse)(nil), intsIn(0, 3), true, true},
		{"OUE", must(NewOUE(LocalConfig{Epsilon: 1, Dim: 3})), []float64{0, 1, 0}, 3, &OUE{}, (*OUE)(nil), intsIn(0, 1), true, true},
		{"InfectionTrajectory", must(NewInfectionTrajectory(TrajectoryConfig{Trials: 20, Inflation: 20, Population: 100, Times: 2})), []float64{3, 50}, 2,
			&InfectionTrajectory{}, (*InfectionTrajectory)(nil), func(x []float64) bool {
				for _, v := range x {
					if !(v >= 0 && v <= 1) || math.Round(v*20)/20 != v {
						return false
					}
				}
				return true
			}, true, false},
		{"Bounded BIT", bnd(BIT), []float64{0.3, -1.2}, 2, &Bounded{}, (*Bounded)(nil), inBox, true, false},
		{"Bounded Truncate", bnd(Truncate), []float64{0.3, -1.2}, 2, &Bounded{}, (*Bounded)(nil), inBox, true, false},
		{"SparseVector", svt, []float64{0.1, 0.9}, 2, &SparseVector{}, (*SparseVector)(nil), svtOut, false, false},
		{"Reproducible(Laplace)", Reproducible(lap), []float64{0.3, -1.2}, 2, &ReproducibleMechanism{}, (*ReproducibleMechanism)(nil), finiteAll, true, false},
	}
}

// with returns a copy of s with entry 0 set to v.
func with(s []float64, v float64) []float64 {
	c := append([]float64(nil), s...)
	c[0] = v
	return c
}

// expectNaN checks a function documented to return NaN.
func expectNaN(f func() float64) func() error {
	return func() error {
		if v := f(); !math.IsNaN(v) {
			return fmt.Errorf("got %v, want the documented NaN", v)
		}
		return nil
	}
}

// sane checks a function whose bad-looking argument may still be
// legitimate (a subnormal kernel bound, a huge dimension): it must return
// an error wrapping ErrInvalid or a positive finite value, never
// 0, NaN or ±Inf without an error.
func sane(f func() (float64, error)) func() error {
	return func() error {
		v, err := f()
		switch {
		case err != nil && !errors.Is(err, ErrInvalid):
			return fmt.Errorf("error %v does not wrap ErrInvalid", err)
		case err == nil && !(v > 0 && !math.IsInf(v, 0)):
			return fmt.Errorf("returned %v without an error", v)
		}
		return nil
	}
}

// okOrInvalid checks a call whose argument is extreme but legitimate (a
// subnormal budget): it must not panic and may only fail with an error
// wrapping ErrInvalid.
func okOrInvalid(f func() error) func() error {
	return func() error {
		if err := f(); err != nil && !errors.Is(err, ErrInvalid) {
			return fmt.Errorf("error %v does not wrap ErrInvalid", err)
		}
		return nil
	}
}

// releaseCases are the generic cases of Release (and SimulateRelease when
// sim is set) for m.
func releaseCases(bm badMech, sim bool) []testutil.BadInput {
	type B = testutil.BadInput
	op := "Release"
	call := func(m Mechanism, r *rand.Rand, s, dst []float64) error { return m.Release(r, s, dst) }
	if sim {
		op = "SimulateRelease"
		call = func(m Mechanism, r *rand.Rand, s, dst []float64) error {
			return m.(Simulator).SimulateRelease(r, s, dst)
		}
	}
	name := bm.name + "." + op + " "
	rel := func(m Mechanism, s []float64, out int) func() error {
		return func() error { return call(m, newRand(1), s, make([]float64, out)) }
	}
	// validOrErr: an error wrapping the sentinel or a valid release.
	validOrErr := func(s []float64, wantErr bool) func() error {
		return func() error {
			dst := make([]float64, bm.out)
			err := call(bm.m, newRand(1), s, dst)
			switch {
			case wantErr && err == nil:
				return fmt.Errorf("released %v for an out-of-domain statistic", dst)
			case wantErr && !errors.Is(err, ErrInvalid):
				return fmt.Errorf("error %v does not wrap ErrInvalid", err)
			case !wantErr && err != nil:
				return fmt.Errorf("refused a valid statistic: %v", err)
			case !wantErr && !bm.valid(dst):
				return fmt.Errorf("release %v is not a possible output", dst)
			}
			return nil
		}
	}
	long := append(append([]float64(nil), bm.s...), bm.s[0])
	cs := []B{
		{Category: "mismatched", Name: name + "short dst", Err: rel(bm.m, bm.s, bm.out-1)},
		{Category: "mismatched", Name: name + "long dst", Err: rel(bm.m, bm.s, bm.out+1)},
		{Category: "mismatched", Name: name + "long statistic", Err: rel(bm.m, long, bm.out)},
		{Category: "empty", Name: name + "empty statistic and dst", Err: rel(bm.m, nil, 0)},
		{Category: "nil", Name: name + "nil dst", Err: func() error { return call(bm.m, newRand(1), bm.s, nil) }},
		{Category: "nan", Name: name + "NaN entry", Err: rel(bm.m, with(bm.s, bNaN), bm.out)},
		{Category: "zerovalue", Name: name + "zero value", Err: rel(bm.zero, bm.s, bm.out)},
		{Category: "nil", Name: name + "nil receiver", Err: rel(bm.nilp, bm.s, bm.out)},
		{Category: "huge", Name: name + "entry 1e308", Check: validOrErr(with(bm.s, bHuge), bm.hugeIsError)},
		{Category: "huge", Name: name + "entry -1e308", Check: validOrErr(with(bm.s, -bHuge), bm.hugeIsError)},
		{Category: "subnormal", Name: name + "subnormal entry", Check: validOrErr(with(bm.s, bSub), bm.subIsError)},
	}
	if bm.name == "SparseVector" {
		// An unbounded sparse vector refuses infinite queries (see
		// SparseVector.Release); others refuse every non-finite entry.
		cs = append(cs, B{Category: "inf", Name: name + "+Inf query", Err: rel(bm.m, with(bm.s, bInf), bm.out)})
	} else {
		cs = append(cs,
			B{Category: "inf", Name: name + "+Inf entry", Err: rel(bm.m, with(bm.s, bInf), bm.out)},
			B{Category: "inf", Name: name + "-Inf entry", Err: rel(bm.m, with(bm.s, -bInf), bm.out)})
	}
	if sim {
		cs = append(cs, B{Category: "nil", Name: name + "nil *rand.Rand", Err: func() error {
			return call(bm.m, nil, bm.s, make([]float64, bm.out))
		}})
	}
	return cs
}

// densityCases are the generic cases of LogDensity: NaN on a length
// mismatch, a NaN argument, an unconstructed mechanism; no panic and no
// +Inf or NaN for infinite or huge releases (−Inf or a finite value).
func densityCases(bm badMech) []testutil.BadInput {
	type B = testutil.BadInput
	d, ok := bm.m.(Density)
	if !ok {
		return nil
	}
	name := bm.name + ".LogDensity "
	x := make([]float64, bm.out)
	if err := Simulate(bm.m, newRand(2), bm.s, x); err != nil {
		panic(err)
	}
	notNaNOrPlusInf := func(sdp, s []float64) func() error {
		return func() error {
			v := d.LogDensity(sdp, s)
			if math.IsNaN(v) || math.IsInf(v, 1) {
				return fmt.Errorf("log density %v, want −Inf or a finite value", v)
			}
			return nil
		}
	}
	short := x[:len(x)-1]
	cs := []B{
		{Category: "mismatched", Name: name + "short release", Check: expectNaN(func() float64 { return d.LogDensity(short, bm.s) })},
		{Category: "mismatched", Name: name + "short statistic", Check: expectNaN(func() float64 { return d.LogDensity(x, bm.s[:len(bm.s)-1]) })},
		{Category: "empty", Name: name + "empty", Check: expectNaN(func() float64 { return d.LogDensity(nil, nil) })},
		{Category: "nan", Name: name + "NaN release", Check: func() error {
			// NaN is not in the support: NaN or −Inf, as each type documents.
			if v := d.LogDensity(with(x, bNaN), bm.s); !math.IsNaN(v) && !math.IsInf(v, -1) {
				return fmt.Errorf("log density %v of a NaN release", v)
			}
			return nil
		}},
		{Category: "nan", Name: name + "NaN statistic", Check: expectNaN(func() float64 { return d.LogDensity(x, with(bm.s, bNaN)) })},
		{Category: "zerovalue", Name: name + "zero value", Check: expectNaN(func() float64 { return bm.zero.(Density).LogDensity(x, bm.s) })},
		{Category: "nil", Name: name + "nil receiver", Check: expectNaN(func() float64 { return bm.nilp.(Density).LogDensity(x, bm.s) })},
		{Category: "inf", Name: name + "+Inf release", Check: notNaNOrPlusInf(with(x, bInf), bm.s)},
		{Category: "inf", Name: name + "-Inf release", Check: notNaNOrPlusInf(with(x, -bInf), bm.s)},
		{Category: "huge", Name: name + "release 1e308", Check: notNaNOrPlusInf(with(x, bHuge), bm.s)},
		{Category: "subnormal", Name: name + "subnormal release", Check: notNaNOrPlusInf(with(x, bSub), bm.s)},
	}
	return cs
}

// applyCases are the generic cases of Apply, the hot-path transform:
// length mismatches are documented programmer errors (panics); a NaN
// uniform or statistic gives a NaN output, uniforms outside (0, 1) are
// clamped into it, and an unconstructed mechanism panics (it has no
// dimension, so every call is a length mismatch).
func applyCases(bm badMech) []testutil.BadInput {
	type B = testutil.BadInput
	tr, ok := bm.m.(Transform)
	if !ok {
		return nil
	}
	name := bm.name + ".Apply "
	nu := tr.NoiseDim(len(bm.s))
	u := make([]float64, nu)
	for i := range u {
		u[i] = 0.3
	}
	apply := func(u, s []float64, out int) func() {
		return func() { tr.Apply(u, s, make([]float64, out)) }
	}
	validOut := func(u, s []float64) func() error {
		return func() error {
			dst := make([]float64, bm.out)
			tr.Apply(u, s, dst)
			if !bm.valid(dst) {
				return fmt.Errorf("Apply gave %v, not a possible release", dst)
			}
			return nil
		}
	}
	nanOut := func(u, s []float64) func() error {
		return func() error {
			dst := make([]float64, bm.out)
			tr.Apply(u, s, dst)
			for _, v := range dst {
				if math.IsNaN(v) {
					return nil
				}
			}
			if bm.valid(dst) {
				// A NaN that cannot change the output (e.g. a utility
				// that never wins) is not garbage either.
				return nil
			}
			return fmt.Errorf("Apply gave %v for a NaN argument: neither NaN nor a possible release", dst)
		}
	}
	return []B{
		{Category: "mismatched", Name: name + "short uniforms", Panics: (apply(u[:nu-1], bm.s, bm.out))},
		{Category: "mismatched", Name: name + "short dst", Panics: (apply(u, bm.s, bm.out-1))},
		{Category: "empty", Name: name + "empty uniforms", Panics: (apply(nil, bm.s, bm.out))},
		{Category: "zerovalue", Name: name + "zero value", Panics: (func() { bm.zero.(Transform).Apply(u, bm.s, make([]float64, bm.out)) })},
		{Category: "nil", Name: name + "nil receiver", Check: func() error {
			dst := make([]float64, bm.out)
			bm.nilp.(Transform).Apply(u, bm.s, dst)
			for _, v := range dst {
				if !math.IsNaN(v) {
					return fmt.Errorf("Apply on a nil receiver gave %v, want NaN (package doc)", dst)
				}
			}
			return nil
		}},
		{Category: "nan", Name: name + "NaN uniform", Check: nanOut(with(u, bNaN), bm.s)},
		{Category: "nan", Name: name + "NaN statistic", Check: nanOut(u, with(bm.s, bNaN))},
		{Category: "nonpositive", Name: name + "uniform 0", Check: validOut(with(u, 0), bm.s)},
		{Category: "nonpositive", Name: name + "uniform -1", Check: validOut(with(u, -1), bm.s)},
		{Category: "huge", Name: name + "uniform 1", Check: validOut(with(u, 1), bm.s)},
		{Category: "huge", Name: name + "uniform 1e308", Check: validOut(with(u, bHuge), bm.s)},
		{Category: "subnormal", Name: name + "subnormal uniform", Check: validOut(with(u, bSub), bm.s)},
	}
}

// constructorCases covers every exported constructor and parameter
// function with NaN, ±Inf, ≤ 0, 1e308, subnormal, empty, mismatched, nil
// and zero-value arguments.
func constructorCases() []testutil.BadInput {
	type B = testutil.BadInput
	var cs []B
	add := func(cat, name string, f func() error) { cs = append(cs, B{Category: cat, Name: name, Err: f}) }
	// catOf names the category of a bad positive parameter.
	catOf := func(v float64) string {
		switch {
		case math.IsNaN(v):
			return "nan"
		case math.IsInf(v, 0):
			return "inf"
		case v <= 0:
			return "nonpositive"
		case v < minNormal:
			return "subnormal"
		}
		return "huge"
	}
	badPos := []float64{bNaN, bInf, -bInf, 0, -1}

	// Laplace.
	lapCfg := func(f func(*LaplaceConfig)) func() error {
		return func() error {
			c := LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 2}
			f(&c)
			_, err := NewLaplace(c)
			return err
		}
	}
	for _, v := range append(badPos, bSub) {
		add(catOf(v), fmt.Sprintf("NewLaplace Sensitivity %v", v), lapCfg(func(c *LaplaceConfig) { c.Sensitivity = v }))
		add(catOf(v), fmt.Sprintf("NewLaplace Epsilon %v", v), lapCfg(func(c *LaplaceConfig) { c.Epsilon = v }))
		if v != 0 { // Grid 0 selects the default grid
			add(catOf(v), fmt.Sprintf("NewLaplace Grid %v", v), lapCfg(func(c *LaplaceConfig) { c.Grid = v }))
		}
	}
	add("huge", "NewLaplace Epsilon 1e308", lapCfg(func(c *LaplaceConfig) { c.Epsilon = bHuge }))
	add("huge", "NewLaplace Sensitivity 1e308, Epsilon 1e-308", lapCfg(func(c *LaplaceConfig) { c.Sensitivity, c.Epsilon = bHuge, 1e-308 }))
	add("huge", "NewLaplace Grid 1e308", lapCfg(func(c *LaplaceConfig) { c.Grid = 0x1p1020 }))
	add("huge", "NewLaplace Grid 3 (not a power of two)", lapCfg(func(c *LaplaceConfig) { c.Grid = 3 }))
	add("nonpositive", "NewLaplace Dim 0", lapCfg(func(c *LaplaceConfig) { c.Dim = 0 }))
	add("nonpositive", "NewLaplace Dim -1", lapCfg(func(c *LaplaceConfig) { c.Dim = -1 }))
	add("zerovalue", "NewLaplace zero config", func() error { _, err := NewLaplace(LaplaceConfig{}); return err })
	add("zerovalue", "LaplaceConfig{}.Validate", LaplaceConfig{}.Validate)
	scales := func(sc []float64, b Budget) func() error {
		return func() error { _, err := NewLaplaceScales(sc, b); return err }
	}
	add("empty", "NewLaplaceScales no scales", scales(nil, Budget{Epsilon: 1}))
	add("empty", "NewLaplaceScales empty scales", scales([]float64{}, Budget{Epsilon: 1}))
	add("zerovalue", "NewLaplaceScales zero budget", scales([]float64{1}, Budget{}))
	for _, v := range append(badPos, bSub) {
		add(catOf(v), fmt.Sprintf("NewLaplaceScales scale %v", v), scales([]float64{1, v}, Budget{Epsilon: 1}))
		add(catOf(v), fmt.Sprintf("NewLaplaceScales budget ε %v", v), scales([]float64{1}, Budget{Epsilon: v}))
	}
	add("nan", "NewLaplaceScales budget δ NaN", scales([]float64{1}, Budget{Epsilon: 1, Delta: bNaN}))
	add("huge", "NewLaplaceScales scale 1e308", scales([]float64{1e308}, Budget{Epsilon: 1}))
	comm := func(sens []float64, eps float64) func() error {
		return func() error { _, err := CommunalLaplace(sens, eps); return err }
	}
	indiv := func(sens, w []float64, eps float64) func() error {
		return func() error { _, err := IndividualizedLaplace(sens, w, eps); return err }
	}
	add("empty", "CommunalLaplace no sensitivities", comm(nil, 1))
	add("empty", "IndividualizedLaplace no sensitivities", indiv(nil, nil, 1))
	add("mismatched", "IndividualizedLaplace 2 sensitivities 3 weights", indiv([]float64{1, 1}, []float64{1, 1, 1}, 1))
	cs = append(cs, B{Category: "subnormal", Name: "CommunalLaplace sensitivity 5e-324 (adds nothing to the total)", Check: okOrInvalid(comm([]float64{1, bSub}, 1))})
	for _, v := range append(badPos, bSub) {
		if v != bSub {
			add(catOf(v), fmt.Sprintf("CommunalLaplace sensitivity %v", v), comm([]float64{1, v}, 1))
		}
		add(catOf(v), fmt.Sprintf("CommunalLaplace ε %v", v), comm([]float64{1, 1}, v))
		add(catOf(v), fmt.Sprintf("IndividualizedLaplace sensitivity %v", v), indiv([]float64{v, 1}, []float64{0.5, 0.5}, 1))
		add(catOf(v), fmt.Sprintf("IndividualizedLaplace weight %v", v), indiv([]float64{1, 1}, []float64{0.5, v}, 1))
		add(catOf(v), fmt.Sprintf("IndividualizedLaplace ε %v", v), indiv([]float64{1, 1}, []float64{0.5, 0.5}, v))
	}
	add("huge", "CommunalLaplace sensitivities 1e308", comm([]float64{bHuge, bHuge}, 1))
	add("huge", "IndividualizedLaplace weights 1e308", indiv([]float64{1, 1}, []float64{bHuge, bHuge}, 1))
	cw := func(s []float64) func() error { return func() error { _, err := CommunalWeights(s); return err } }
	add("empty", "CommunalWeights empty", cw(nil))
	add("nan", "CommunalWeights NaN", cw([]float64{1, bNaN}))
	add("inf", "CommunalWeights Inf", cw([]float64{1, bInf}))
	add("nonpositive", "CommunalWeights 0", cw([]float64{0, 1}))
	add("huge", "CommunalWeights sum overflows", cw([]float64{bHuge, bHuge}))

	// Gaussian.
	gcfg := func(ctor func(GaussianConfig) (*Gaussian, error), f func(*GaussianConfig)) func() error {
		return func() error {
			c := GaussianConfig{Epsilon: 0.5, Delta: 1e-6, Sensitivity: 1, Dim: 2}
			f(&c)
			_, err := ctor(c)
			return err
		}
	}
	for _, ct := range []struct {
		name string
		f    func(GaussianConfig) (*Gaussian, error)
	}{{"NewAnalyticGaussian", NewAnalyticGaussian}, {"NewClassicalGaussian", NewClassicalGaussian}, {"NewProbabilisticGaussian", NewProbabilisticGaussian}} {
		for _, v := range append(badPos, bSub) {
			add(catOf(v), fmt.Sprintf("%s Epsilon %v", ct.name, v), gcfg(ct.f, func(c *GaussianConfig) { c.Epsilon = v }))
			add(catOf(v), fmt.Sprintf("%s Sensitivity %v", ct.name, v), gcfg(ct.f, func(c *GaussianConfig) { c.Sensitivity = v }))
			add(catOf(v), fmt.Sprintf("%s Delta %v", ct.name, v), gcfg(ct.f, func(c *GaussianConfig) { c.Delta = v }))
		}
		add("huge", ct.name+" Delta 1", gcfg(ct.f, func(c *GaussianConfig) { c.Delta = 1 }))
		add("huge", ct.name+" Sensitivity 1e308", gcfg(ct.f, func(c *GaussianConfig) { c.Sensitivity = bHuge }))
		add("nonpositive", ct.name+" Dim 0", gcfg(ct.f, func(c *GaussianConfig) { c.Dim = 0 }))
		add("zerovalue", ct.name+" zero config", func() error { _, err := ct.f(GaussianConfig{}); return err })
	}
	add("huge", "NewClassicalGaussian Epsilon 1 (outside the theorem)", gcfg(NewClassicalGaussian, func(c *GaussianConfig) { c.Epsilon = 1 }))
	add("zerovalue", "GaussianConfig{}.Validate", GaussianConfig{}.Validate)
	ng := func(sigma float64, dim int) func() error {
		return func() error { _, err := NewGaussian(ScaleConfig{Sigma: sigma, Dim: dim}); return err }
	}
	for _, v := range append(badPos, bSub) {
		add(catOf(v), fmt.Sprintf("NewGaussian sigma %v", v), ng(v, 1))
	}
	// Huge noise scales: refused, or every release finite (the release
	// grid is capped so that no lattice value overflows).
	hugeScale := func(ctor func() (Mechanism, error)) func() error {
		return func() error {
			m, err := ctor()
			if err != nil {
				return okOrInvalid(func() error { return err })()
			}
			rm, r, dst := Reproducible(m), newRand(3), make([]float64, 1)
			for i := 0; i < 2000; i++ {
				if err := rm.Release(r, []float64{1}, dst); err != nil || math.IsInf(dst[0], 0) || math.IsNaN(dst[0]) {
					return fmt.Errorf("release %v, %v", dst, err)
				}
			}
			return nil
		}
	}
	for _, sigma := range []float64{bHuge, 0x1p1000, 0x1p999} {
		cs = append(cs, B{Category: "huge", Name: fmt.Sprintf("NewGaussian sigma %v: releases finite", sigma),
			Check: hugeScale(func() (Mechanism, error) { return NewGaussian(ScaleConfig{Sigma: sigma, Dim: 1}) })})
		cs = append(cs, B{Category: "huge", Name: fmt.Sprintf("NewLaplace scale %v: releases finite", sigma),
			Check: hugeScale(func() (Mechanism, error) { return NewLaplace(LaplaceConfig{Sensitivity: sigma, Epsilon: 1, Dim: 1}) })})
	}
	cs = append(cs, B{Category: "huge", Name: "NewLaplace Grid 2^970, scale 2^1000: releases finite",
		Check: hugeScale(func() (Mechanism, error) {
			return NewLaplace(LaplaceConfig{Sensitivity: 0x1p1000, Epsilon: 1, Dim: 1, Grid: 0x1p970})
		})})
	add("nonpositive", "NewGaussian dim 0", ng(1, 0))
	sigmaFns := []struct {
		name string
		f    func(eps, delta, sens float64) (float64, error)
	}{{"AnalyticGaussianSigma", positional(AnalyticGaussianSigma)}, {"ClassicalGaussianSigma", positional(ClassicalGaussianSigma)}, {"ProbabilisticGaussianSigma", positional(ProbabilisticGaussianSigma)}}
	for _, sf := range sigmaFns {
		for _, v := range append(badPos, bSub) {
			add(catOf(v), fmt.Sprintf("%s ε %v", sf.name, v), func() error { _, err := sf.f(v, 1e-6, 1); return err })
			add(catOf(v), fmt.Sprintf("%s δ %v", sf.name, v), func() error { _, err := sf.f(0.5, v, 1); return err })
			add(catOf(v), fmt.Sprintf("%s sensitivity %v", sf.name, v), func() error { _, err := sf.f(0.5, 1e-6, v); return err })
		}
		add("huge", sf.name+" sensitivity 1e308", func() error { _, err := sf.f(0.5, 1e-6, bHuge); return err })
		add("huge", sf.name+" δ 1", func() error { _, err := sf.f(0.5, 1, 1); return err })
	}
	for _, v := range append(badPos, bSub) {
		add(catOf(v), fmt.Sprintf("GaussianRho sigma %v", v), func() error { _, err := GaussianRho(1, v); return err })
		add(catOf(v), fmt.Sprintf("GaussianRho sensitivity %v", v), func() error { _, err := GaussianRho(v, 1); return err })
		add(catOf(v), fmt.Sprintf("PureRho ε %v", v), func() error { _, err := PureRho(v); return err })
		if v == bSub {
			// A subnormal ρ or δ is legitimate: ε is 0 (documented) or
			// finite.
			zc := func(f func() (float64, error)) func() error {
				return func() error {
					e, err := f()
					if err != nil || !(e >= 0) || math.IsInf(e, 0) {
						return fmt.Errorf("ε = %v, %v", e, err)
					}
					return nil
				}
			}
			cs = append(cs,
				B{Category: "subnormal", Name: "ZCDPEpsilon ρ 5e-324", Check: zc(func() (float64, error) { return ZCDPEpsilon(v, 1e-6) })},
				B{Category: "subnormal", Name: "ZCDPEpsilon δ 5e-324", Check: zc(func() (float64, error) { return ZCDPEpsilon(0.5, v) })},
				B{Category: "subnormal", Name: "ZCDPEpsilonBS ρ 5e-324", Check: zc(func() (float64, error) { return ZCDPEpsilonBS(v, 1e-6) })},
				B{Category: "subnormal", Name: "ZCDPEpsilonBS δ 5e-324", Check: zc(func() (float64, error) { return ZCDPEpsilonBS(0.5, v) })})
			continue
		}
		add(catOf(v), fmt.Sprintf("ZCDPEpsilon ρ %v", v), func() error { _, err := ZCDPEpsilon(v, 1e-6); return err })
		add(catOf(v), fmt.Sprintf("ZCDPEpsilon δ %v", v), func() error { _, err := ZCDPEpsilon(0.5, v); return err })
		add(catOf(v), fmt.Sprintf("ZCDPEpsilonBS ρ %v", v), func() error { _, err := ZCDPEpsilonBS(v, 1e-6); return err })
		add(catOf(v), fmt.Sprintf("ZCDPEpsilonBS δ %v", v), func() error { _, err := ZCDPEpsilonBS(0.5, v); return err })
	}
	add("huge", "GaussianRho overflows (Δ 1e308, σ 1e-300)", func() error { _, err := GaussianRho(bHuge, 1e-300); return err })
	add("huge", "PureRho overflows (ε 1e308)", func() error { _, err := PureRho(bHuge); return err })
	add("huge", "ZCDPEpsilon δ 1", func() error { _, err := ZCDPEpsilon(0.5, 1); return err })

	// Exponential, randomized response, trajectory.
	ecfg := func(f func(*ExponentialConfig)) func() error {
		return func() error {
			c := ExponentialConfig{Epsilon: 1, Sensitivity: 1, Candidates: 3}
			f(&c)
			_, err := NewExponential(c)
			return err
		}
	}
	for _, v := range append(badPos, bSub) {
		add(catOf(v), fmt.Sprintf("NewExponential Epsilon %v", v), ecfg(func(c *ExponentialConfig) { c.Epsilon = v }))
		add(catOf(v), fmt.Sprintf("NewExponential Sensitivity %v", v), ecfg(func(c *ExponentialConfig) { c.Sensitivity = v }))
		add(catOf(v), fmt.Sprintf("NewRandomizedResponse ε %v", v), func() error { _, err := NewRandomizedResponse(LocalConfig{Epsilon: v, Dim: 1}); return err })
		add(catOf(v), fmt.Sprintf("NewKaryRandomizedResponse ε %v", v), func() error { _, err := NewKaryRandomizedResponse(KaryConfig{Epsilon: v, K: 3, Dim: 1}); return err })
		add(catOf(v), fmt.Sprintf("NewOUE ε %v", v), func() error { _, err := NewOUE(LocalConfig{Epsilon: v, Dim: 3}); return err })
	}
	add("huge", "NewExponential coefficient overflows (ε 1e308, Δ 1e-308)", ecfg(func(c *ExponentialConfig) { c.Epsilon, c.Sensitivity = bHuge, 1e-308 }))
	add("nonpositive", "NewExponential Candidates 0", ecfg(func(c *ExponentialConfig) { c.Candidates = 0 }))
	add("zerovalue", "NewExponential zero config", func() error { _, err := NewExponential(ExponentialConfig{}); return err })
	add("zerovalue", "ExponentialConfig{}.Validate", ExponentialConfig{}.Validate)
	add("huge", "NewRandomizedResponse ε 1e308", func() error { _, err := NewRandomizedResponse(LocalConfig{Epsilon: bHuge, Dim: 1}); return err })
	add("huge", "NewKaryRandomizedResponse ε 1e308", func() error {
		_, err := NewKaryRandomizedResponse(KaryConfig{Epsilon: bHuge, K: 3, Dim: 1})
		return err
	})
	add("huge", "NewOUE ε 1e308", func() error { _, err := NewOUE(LocalConfig{Epsilon: bHuge, Dim: 3}); return err })
	add("nonpositive", "NewRandomizedResponse dim 0", func() error { _, err := NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: 0}); return err })
	add("nonpositive", "NewKaryRandomizedResponse k 1", func() error { _, err := NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 1, Dim: 1}); return err })
	add("nonpositive", "NewKaryRandomizedResponse dim 0", func() error { _, err := NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 3, Dim: 0}); return err })
	add("huge", "NewKaryRandomizedResponse k 1<<62", func() error {
		_, err := NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 1 << 62, Dim: 1})
		return err
	})
	add("nonpositive", "NewOUE d 1", func() error { _, err := NewOUE(LocalConfig{Epsilon: 1, Dim: 1}); return err })
	traj := func(n, m, K int64, L int) func() error {
		return func() error {
			_, err := NewInfectionTrajectory(TrajectoryConfig{Trials: n, Inflation: m, Population: K, Times: L})
			return err
		}
	}
	add("nonpositive", "NewInfectionTrajectory n 0", traj(0, 1, 1, 1))
	add("nonpositive", "NewInfectionTrajectory m 0", traj(1, 0, 1, 1))
	add("nonpositive", "NewInfectionTrajectory K -1", traj(1, 1, -1, 1))
	add("nonpositive", "NewInfectionTrajectory L 0", traj(1, 1, 1, 0))
	add("huge", "NewInfectionTrajectory n 1<<62", traj(1<<62, 1, 1, 1))
	add("huge", "NewInfectionTrajectory K 1<<62", traj(1, 1, 1<<62, 1))
	add("huge", "NewInfectionTrajectory m 1<<62", traj(1, 1<<62, 1, 1))

	// Bounded.
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 2})
	rr, _ := NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: 2})
	bd := func(inner Mechanism, lo, hi []float64, mode BoundMode) func() error {
		return func() error { _, err := NewBounded(inner, lo, hi, mode); return err }
	}
	lo, hi := []float64{-1, -1}, []float64{1, 1}
	add("nil", "NewBounded nil inner", bd(nil, lo, hi, BIT))
	add("nil", "NewBounded typed nil Laplace", bd((*Laplace)(nil), lo, hi, BIT))
	add("zerovalue", "NewBounded zero-value Laplace", bd(&Laplace{}, lo, hi, BIT))
	add("mismatched", "NewBounded randomized response inner", bd(rr, lo, hi, BIT))
	add("mismatched", "NewBounded 1 bound for dimension 2", bd(lap, lo[:1], hi[:1], BIT))
	add("empty", "NewBounded no bounds", bd(lap, nil, nil, BIT))
	add("nan", "NewBounded NaN lower bound", bd(lap, []float64{bNaN, -1}, hi, BIT))
	add("inf", "NewBounded -Inf lower bound", bd(lap, []float64{-bInf, -1}, hi, BIT))
	add("inf", "NewBounded +Inf upper bound", bd(lap, lo, []float64{1, bInf}, BIT))
	add("mismatched", "NewBounded lower = upper", bd(lap, lo, []float64{-1, 1}, BIT))
	add("mismatched", "NewBounded lower > upper", bd(lap, []float64{2, -1}, hi, Truncate))
	add("huge", "NewBounded unknown mode", bd(lap, lo, hi, BoundMode(7)))
	add("nonpositive", "NewBounded negative mode", bd(lap, lo, hi, BoundMode(-1)))
	add("huge", "NewBounded box width overflows", bd(lap, []float64{-bHuge, -1}, []float64{bHuge, 1}, BIT))

	// Budgets and the accountant.
	add("zerovalue", "Budget{}.Validate", Budget{}.Validate)
	for _, v := range append(badPos, bSub) {
		spend := func() error {
			a, _ := NewAccountant(Budget{Epsilon: 1})
			return a.Spend(Budget{Epsilon: v})
		}
		spendRho := func() error {
			a, _ := NewAccountant(Budget{Epsilon: 1, Delta: 1e-6})
			return a.SpendRho(v)
		}
		add(catOf(v), fmt.Sprintf("Split weight %v", v), func() error { _, err := Split(Budget{Epsilon: 1}, []float64{1, v}); return err })
		if v == bSub {
			// A subnormal ε or ρ is a legitimate, if absurdly strong, budget.
			cs = append(cs,
				B{Category: "subnormal", Name: "Budget ε 5e-324 Validate", Check: okOrInvalid(Budget{Epsilon: v}.Validate)},
				B{Category: "subnormal", Name: "NewAccountant ε 5e-324", Check: okOrInvalid(func() error { _, err := NewAccountant(Budget{Epsilon: v}); return err })},
				B{Category: "subnormal", Name: "Accountant.Spend ε 5e-324", Check: okOrInvalid(spend)},
				B{Category: "subnormal", Name: "Accountant.SpendRho 5e-324", Check: okOrInvalid(spendRho)})
			continue
		}
		add(catOf(v), fmt.Sprintf("Budget ε %v Validate", v), Budget{Epsilon: v}.Validate)
		add(catOf(v), fmt.Sprintf("NewAccountant ε %v", v), func() error { _, err := NewAccountant(Budget{Epsilon: v}); return err })
		add(catOf(v), fmt.Sprintf("Accountant.Spend ε %v", v), spend)
		add(catOf(v), fmt.Sprintf("Accountant.SpendRho %v", v), spendRho)
	}
	add("nan", "Budget δ NaN Validate", Budget{Epsilon: 1, Delta: bNaN}.Validate)
	add("huge", "Budget δ 1 Validate", Budget{Epsilon: 1, Delta: 1}.Validate)
	add("nonpositive", "Budget δ -1 Validate", Budget{Epsilon: 1, Delta: -1}.Validate)
	add("zerovalue", "NewAccountant zero budget", func() error { _, err := NewAccountant(Budget{}); return err })
	add("empty", "Split no weights", func() error { _, err := Split(Budget{Epsilon: 1}, nil); return err })
	add("zerovalue", "Split zero budget", func() error { _, err := Split(Budget{}, []float64{1}); return err })
	add("huge", "Split weights overflow", func() error { _, err := Split(Budget{Epsilon: 1}, []float64{bHuge, bHuge}); return err })
	add("nil", "Accountant.Release nil mechanism", func() error {
		a, _ := NewAccountant(Budget{Epsilon: 1})
		return a.Release(nil, nil, []float64{1}, []float64{0})
	})
	add("nil", "Accountant.ReleaseZCDP nil mechanism", func() error {
		a, _ := NewAccountant(Budget{Epsilon: 1, Delta: 1e-6})
		return a.ReleaseZCDP(nil, nil, []float64{1}, []float64{0})
	})
	add("nil", "nil Accountant.Spend", func() error { var a *Accountant; return a.Spend(Budget{Epsilon: 1}) })
	add("zerovalue", "zero Accountant.Spend", func() error { var a Accountant; return a.Spend(Budget{Epsilon: 1}) })
	add("zerovalue", "zero Accountant.Release", func() error {
		var a Accountant
		return a.Release(lap, nil, []float64{1, 2}, []float64{0, 0})
	})
	add("mismatched", "Accountant.Release refunds a failed release", func() error {
		a, _ := NewAccountant(Budget{Epsilon: 1})
		err := a.Release(lap, nil, []float64{1}, []float64{0, 0})
		if a.Spent().Epsilon != 0 {
			return fmt.Errorf("failed release charged %v", a.Spent())
		}
		return err
	})

	// Sensitivity helpers.
	add("nan", "ClampedMean value NaN", func() error { _, _, err := ClampedMean([]float64{1, bNaN}, 0, 2); return err })
	for _, v := range []float64{bInf, -bInf, bHuge} {
		cs = append(cs, B{Category: catOf(v), Name: fmt.Sprintf("ClampedMean value %v is clamped", v), Check: func() error {
			m, s, err := ClampedMean([]float64{1, v}, 0, 2)
			if err != nil || !(m >= 0.5 && m <= 1.5) || s != 1 {
				return fmt.Errorf("mean %v, sensitivity %v, %v", m, s, err)
			}
			return nil
		}})
	}
	for _, v := range []float64{bNaN, bInf, -bInf} {
		add(catOf(v), fmt.Sprintf("ClampedMean lower bound %v", v), func() error { _, _, err := ClampedMean([]float64{1}, v, 2); return err })
		add(catOf(v), fmt.Sprintf("ClampSlice bound %v", v), func() error { return ClampSlice(make([]float64, 1), []float64{1}, v, 2) })
		add(catOf(v), fmt.Sprintf("NormalizeSlice bound %v", v), func() error { return NormalizeSlice(make([]float64, 1), []float64{1}, 0, v) })
		add(catOf(v), fmt.Sprintf("ClampedVarianceSensitivity bound %v", v), func() error { _, err := ClampedVarianceSensitivity(0, v, 10); return err })
	}
	add("empty", "ClampedMean no values", func() error { _, _, err := ClampedMean(nil, 0, 1); return err })
	add("mismatched", "ClampedMean lower > upper", func() error { _, _, err := ClampedMean([]float64{1}, 2, 1); return err })
	add("huge", "ClampedMean range overflows", func() error { _, _, err := ClampedMean([]float64{1}, -bHuge, bHuge); return err })
	add("mismatched", "ClampSlice dst length", func() error { return ClampSlice(make([]float64, 1), []float64{1, 2}, 0, 1) })
	add("mismatched", "ClampSlice lower > upper", func() error { return ClampSlice(make([]float64, 1), []float64{1}, 1, 0) })
	add("mismatched", "NormalizeSlice dst length", func() error { return NormalizeSlice(nil, []float64{1}, 0, 1) })
	add("mismatched", "NormalizeSlice lower = upper", func() error { return NormalizeSlice(make([]float64, 1), []float64{1}, 1, 1) })
	add("huge", "NormalizeSlice range overflows", func() error { return NormalizeSlice(make([]float64, 1), []float64{1}, -bHuge, bHuge) })
	add("mismatched", "BITSlice bound lengths", func() error { return BITSlice(make([]float64, 2), []float64{1, 2}, []float64{0}, []float64{1, 1}) })
	add("nonpositive", "ClampedVarianceSensitivity n 0", func() error { _, err := ClampedVarianceSensitivity(0, 1, 0); return err })
	add("huge", "ClampedVarianceSensitivity overflows", func() error { _, err := ClampedVarianceSensitivity(-bHuge, bHuge, 1); return err })
	sens := []struct {
		name string
		f    func(v float64) (float64, error)
	}{
		{"MMDSensitivity kernel bound", func(v float64) (float64, error) { return MMDSensitivity(v, 10) }},
	}
	for _, sf := range sens {
		for _, v := range badPos {
			add(catOf(v), fmt.Sprintf("%s %v", sf.name, v), func() error { _, err := sf.f(v); return err })
		}
		// Subnormal and huge arguments: an error or a usable value,
		// never an overflow to +Inf or an underflow to 0.
		cs = append(cs,
			B{Category: "subnormal", Name: sf.name + " 5e-324", Check: sane(func() (float64, error) { return sf.f(bSub) })},
			B{Category: "huge", Name: sf.name + " 1e308", Check: sane(func() (float64, error) { return sf.f(bHuge) })})
	}
	add("nonpositive", "MMDSensitivity n 0", func() error { _, err := MMDSensitivity(1, 0); return err })

	// Simulation entry points.
	add("nil", "Simulate nil mechanism", func() error { return Simulate(nil, newRand(1), []float64{1}, []float64{0}) })
	add("nil", "Simulate nil *rand.Rand", func() error { return Simulate(lap, nil, []float64{1, 2}, []float64{0, 0}) })
	add("nil", "Simulate typed nil mechanism", func() error { return Simulate((*Laplace)(nil), newRand(1), []float64{1, 2}, []float64{0, 0}) })
	add("nil", "Reproducible(nil) Release", func() error { return Reproducible(nil).Release(newRand(1), []float64{1}, []float64{0}) })
	add("nil", "Reproducible Release nil *rand.Rand", func() error { return Reproducible(lap).Release(nil, []float64{1, 2}, []float64{0, 0}) })
	add("nil", "Reproducible(nil) SimulateRelease", func() error { return Reproducible(nil).SimulateRelease(newRand(1), []float64{1}, []float64{0}) })
	return cs
}

// checkCases covers exported functions without an error return: each
// returns its documented value (NaN, false, the clamped value) on bad
// input.
func checkCases() []testutil.BadInput {
	type B = testutil.BadInput
	rr, _ := NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: 2})
	kr, _ := NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 3, Dim: 2})
	oue, _ := NewOUE(LocalConfig{Epsilon: 1, Dim: 3})
	isFalse := func(f func() bool) func() error {
		return func() error {
			if f() {
				return errors.New("true, want false")
			}
			return nil
		}
	}
	cs := []B{
		{Category: "nan", Name: "AnalyticGaussianDelta ε NaN", Check: expectNaN(func() float64 { return AnalyticGaussianDelta(bNaN, 1, 1) })},
		{Category: "nonpositive", Name: "AnalyticGaussianDelta σ 0", Check: expectNaN(func() float64 { return AnalyticGaussianDelta(1, 0, 1) })},
		{Category: "nonpositive", Name: "AnalyticGaussianDelta sensitivity -1", Check: expectNaN(func() float64 { return AnalyticGaussianDelta(1, 1, -1) })},
		{Category: "inf", Name: "AnalyticGaussianDelta σ +Inf", Check: expectNaN(func() float64 { return AnalyticGaussianDelta(1, bInf, 1) })},
		{Category: "empty", Name: "RandomizedResponse.EstimateMean no reports", Err: func() error { _, err := rr.EstimateMean(nil); return err }},
		{Category: "nan", Name: "RandomizedResponse.EstimateMean NaN report", Err: func() error { _, err := rr.EstimateMean([]float64{1, bNaN}); return err }},
		{Category: "huge", Name: "RandomizedResponse.EstimateMean report 1e308", Err: func() error { _, err := rr.EstimateMean([]float64{bHuge}); return err }},
		{Category: "nonpositive", Name: "RandomizedResponse.EstimateMean report -1", Err: func() error { _, err := rr.EstimateMean([]float64{0, -1}); return err }},
		{Category: "zerovalue", Name: "zero RandomizedResponse.EstimateMean", Err: func() error { _, err := (&RandomizedResponse{}).EstimateMean([]float64{1}); return err }},
		{Category: "nil", Name: "nil RandomizedResponse.EstimateMean", Err: func() error { _, err := (*RandomizedResponse)(nil).EstimateMean([]float64{1}); return err }},
		{Category: "mismatched", Name: "InBounds length mismatch", Check: isFalse(func() bool { return InBounds([]float64{0, 0}, []float64{-1}, []float64{1}) })},
		{Category: "nan", Name: "InBounds NaN", Check: isFalse(func() bool { return InBounds([]float64{bNaN}, []float64{-1}, []float64{1}) })},
		{Category: "nan", Name: "Clamp NaN", Check: expectNaN(func() float64 { return Clamp(bNaN, 0, 1) })},
		{Category: "nan", Name: "Normalize NaN", Check: expectNaN(func() float64 { return Normalize(bNaN, 0, 1) })},
		{Category: "mismatched", Name: "Normalize lower = upper", Check: expectNaN(func() float64 { return Normalize(0.5, 1, 1) })},
		{Category: "nan", Name: "InfectionTrajectory.Prob NaN", Check: expectNaN(func() float64 {
			tr, _ := NewInfectionTrajectory(TrajectoryConfig{Trials: 20, Inflation: 20, Population: 100, Times: 1})
			return tr.Prob(bNaN)
		})},
		{Category: "huge", Name: "InfectionTrajectory.Prob outside [0, K]", Check: expectNaN(func() float64 {
			tr, _ := NewInfectionTrajectory(TrajectoryConfig{Trials: 20, Inflation: 20, Population: 100, Times: 1})
			return tr.Prob(bHuge)
		})},
	}
	errCase := func(cat, name string, f func() error) {
		cs = append(cs, B{Category: cat, Name: name, Err: f})
	}
	errCase("mismatched", "KaryRandomizedResponse.EstimateFrequencies dst length", func() error { return kr.EstimateFrequencies([]float64{0, 1}, make([]float64, 2)) })
	errCase("empty", "KaryRandomizedResponse.EstimateFrequencies no reports", func() error { return kr.EstimateFrequencies(nil, make([]float64, 3)) })
	errCase("nan", "KaryRandomizedResponse.EstimateFrequencies NaN report", func() error { return kr.EstimateFrequencies([]float64{bNaN}, make([]float64, 3)) })
	errCase("huge", "KaryRandomizedResponse.EstimateFrequencies report 1e308", func() error { return kr.EstimateFrequencies([]float64{bHuge}, make([]float64, 3)) })
	errCase("zerovalue", "zero KaryRandomizedResponse.EstimateFrequencies", func() error {
		return (&KaryRandomizedResponse{}).EstimateFrequencies([]float64{0}, make([]float64, 3))
	})
	errCase("mismatched", "OUE.EstimateFrequencies dst length", func() error { return oue.EstimateFrequencies([]float64{1, 2, 3}, 10, make([]float64, 2)) })
	errCase("nonpositive", "OUE.EstimateFrequencies n 0", func() error { return oue.EstimateFrequencies([]float64{1, 2, 3}, 0, make([]float64, 3)) })
	errCase("nan", "OUE.EstimateFrequencies NaN count", func() error { return oue.EstimateFrequencies([]float64{1, bNaN, 3}, 10, make([]float64, 3)) })
	errCase("huge", "OUE.EstimateFrequencies count above n", func() error { return oue.EstimateFrequencies([]float64{1, 20, 3}, 10, make([]float64, 3)) })
	errCase("nonpositive", "OUE.EstimateFrequencies negative count", func() error { return oue.EstimateFrequencies([]float64{1, -2, 3}, 10, make([]float64, 3)) })
	errCase("zerovalue", "zero OUE.EstimateFrequencies", func() error { return (&OUE{}).EstimateFrequencies([]float64{1}, 10, make([]float64, 1)) })
	return cs
}

// TestBadInput runs the package's bad-input table: every exported
// constructor and parameter function, and Release, SimulateRelease,
// LogDensity and Apply of every mechanism, with NaN, ±Inf, ≤ 0, 1e308,
// subnormal, empty, mismatched, nil and zero-value arguments. Calls with
// an error return must return an error wrapping ErrInvalid; the others
// must return their documented value. The only panics are Apply's
// documented ones (length mismatches, a programmer error on the hot path),
// which the table checks do happen.
func TestBadInput(t *testing.T) {
	cases := constructorCases()
	cases = append(cases, checkCases()...)
	cases = append(cases, moreCases(t)...)
	for _, c := range svtCases() {
		cases = append(cases, testutil.BadInput{Category: c.cat, Name: c.name, Err: c.call})
	}
	for _, bm := range badMechs(t) {
		cases = append(cases, releaseCases(bm, false)...)
		if _, ok := bm.m.(Simulator); ok {
			cases = append(cases, releaseCases(bm, true)...)
		}
		cases = append(cases, densityCases(bm)...)
		cases = append(cases, applyCases(bm)...)
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
}

// positional adapts a Gaussian calibration to the table's (ε, δ, Δ2)
// cases.
func positional(f func(GaussianConfig) (float64, error)) func(eps, delta, sens float64) (float64, error) {
	return func(eps, delta, sens float64) (float64, error) {
		return f(GaussianConfig{Epsilon: eps, Delta: delta, Sensitivity: sens})
	}
}
