package abc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// badInputChecks returns the bad-input cases of the package's calls: the
// functions and methods without an error return, which must give their
// documented value (NaN, zero, nil, false) instead of panicking, and the
// error-returning calls not reached through badInputCases (Validate on a
// nil configuration, SimulatePriorWith, nil receivers).
func badInputChecks(t *testing.T) []testutil.BadInput {
	t.Helper()
	nan, inf := math.NaN(), math.Inf(1)
	var cs []testutil.BadInput
	check := func(cat, name string, f func() error) {
		cs = append(cs, testutil.BadInput{Category: cat, Name: name, Check: f})
	}
	errc := func(cat, name string, f func() error) {
		cs = append(cs, testutil.BadInput{Category: cat, Name: name, Err: f})
	}
	isNaN := func(f func() float64) func() error {
		return func() error {
			if v := f(); !math.IsNaN(v) {
				return fmt.Errorf("got %v, want NaN", v)
			}
			return nil
		}
	}
	nanOrInf := func(f func() float64) func() error {
		return func() error {
			if v := f(); !math.IsNaN(v) && !math.IsInf(v, 1) {
				return fmt.Errorf("got %v, want NaN or +Inf", v)
			}
			return nil
		}
	}
	equal := func(want float64, f func() float64) func() error {
		return func() error {
			if v := f(); v != want {
				return fmt.Errorf("got %v, want %v", v, want)
			}
			return nil
		}
	}
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(3, 4)) }
	// mmds returns an MMD and a FeatureMMD (8 features) on points of
	// dimension dim, with bandwidth 1.
	mmds := func(dim int) (*MMD, *FeatureMMD) {
		m, err := NewMMD(MMDConfig{Dim: dim, Bandwidth: 1, Unbiased: false})
		if err != nil {
			t.Fatal(err)
		}
		fm, err := NewFeatureMMD(FeatureMMDConfig{Dim: dim, Bandwidth: 1, Features: 8}, rng())
		if err != nil {
			t.Fatal(err)
		}
		return m, fm
	}
	mmd1, fm1 := mmds(1)
	w2, err := NewWeightedL2([]float64{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := NewClipped(Euclidean{}, 1)
	if err != nil {
		t.Fatal(err)
	}

	// Distances: mismatched lengths and unusable values give NaN (the
	// Distance contract), non-finite entries NaN or +Inf.
	for _, d := range []struct {
		name string
		d    Distance
		x, y []float64 // a pair of valid, equal-length arguments
	}{
		{"Euclidean", Euclidean{}, []float64{1, 2}, []float64{0, 0}},
		{"L1", L1{}, []float64{1, 2}, []float64{0, 0}},
		{"WeightedL2", w2, []float64{1, 2}, []float64{0, 0}},
		{"Clipped", cl, []float64{1, 2}, []float64{0, 0}},
		{"MMD", mmd1, []float64{1, 2}, []float64{0, 0}},
		{"FeatureMMD", fm1, []float64{1, 2}, []float64{0, 0}},
	} {
		d := d
		if d.name != "MMD" && d.name != "FeatureMMD" { // sets of different sizes are valid
			check("mismatched", d.name+".Distance lengths 2 and 1", isNaN(func() float64 { return d.d.Distance(d.x, d.y[:1]) }))
		}
		check("nan", d.name+".Distance NaN entry", isNaN(func() float64 { return d.d.Distance([]float64{nan, 2}, d.y) }))
		switch d.name {
		case "Clipped":
			// +Inf is clipped to C, as documented.
			check("inf", d.name+".Distance +Inf entry", equal(1, func() float64 { return d.d.Distance([]float64{inf, 2}, d.y) }))
		case "MMD":
			// A point at +Inf has kernel 0 with every finite point: the
			// limit √(1/2 + 1 − e^{−2}) of the biased MMD with ℓ = 1.
			check("inf", d.name+".Distance +Inf point", func() error {
				v, want := d.d.Distance([]float64{inf, 2}, d.y), math.Sqrt(1.5-math.Exp(-2))
				if math.Abs(v-want) > 1e-12 {
					return fmt.Errorf("got %v, want the limit %v", v, want)
				}
				return nil
			})
		default:
			check("inf", d.name+".Distance +Inf entry", nanOrInf(func() float64 { return d.d.Distance([]float64{inf, 2}, d.y) }))
		}
		if d.name == "Clipped" {
			check("huge", d.name+".Distance 1e308 entries", equal(1, func() float64 { return d.d.Distance([]float64{1e308, -1e308}, d.y) }))
		} else if d.name != "MMD" && d.name != "FeatureMMD" {
			// Squares beyond the float64 range overflow to +Inf.
			check("huge", d.name+".Distance 1e308 entries", func() error {
				v := d.d.Distance([]float64{1e308, -1e308}, d.y)
				if !(v >= 1e308) {
					return fmt.Errorf("got %v, want a distance ≥ 1e308 (or +Inf)", v)
				}
				return nil
			})
		}
		check("subnormal", d.name+".Distance subnormal entries", func() error {
			v := d.d.Distance([]float64{sub, sub}, []float64{0, 0})
			if !(v >= 0 && v < 1e-300) {
				return fmt.Errorf("got %v, want a distance in [0, 1e-300)", v)
			}
			return nil
		})
		if d.name == "MMD" || d.name == "FeatureMMD" {
			check("empty", d.name+".Distance empty sets", isNaN(func() float64 { return d.d.Distance(nil, nil) }))
		} else {
			check("empty", d.name+".Distance empty vectors", func() error {
				v := d.d.Distance(nil, nil)
				if d.name != "WeightedL2" {
					if v != 0 {
						return fmt.Errorf("got %v, want 0 (the empty sum)", v)
					}
					return nil
				}
				if !math.IsNaN(v) {
					return fmt.Errorf("got %v, want NaN (no weights for empty vectors)", v)
				}
				return nil
			})
		}
	}
	mmd2, fm2 := mmds(2)
	check("mismatched", "MMD.Distance set length not a multiple of the dimension", isNaN(func() float64 { return mmd2.Distance([]float64{1, 2, 3}, []float64{0, 0}) }))
	check("mismatched", "FeatureMMD.Distance set length not a multiple of the dimension", isNaN(func() float64 { return fm2.Distance([]float64{1, 2, 3}, []float64{0, 0}) }))
	check("nil", "nil WeightedL2 Distance", isNaN(func() float64 { return (*WeightedL2)(nil).Distance([]float64{1}, []float64{1}) }))
	check("zerovalue", "zero WeightedL2 Distance", isNaN(func() float64 { return (&WeightedL2{}).Distance([]float64{1}, []float64{1}) }))
	check("nil", "nil MMD Distance", isNaN(func() float64 { return (*MMD)(nil).Distance([]float64{1}, []float64{1}) }))
	check("zerovalue", "zero MMD Distance", isNaN(func() float64 { return (&MMD{}).Distance([]float64{1}, []float64{1}) }))
	check("nil", "nil FeatureMMD Distance", isNaN(func() float64 { return (*FeatureMMD)(nil).Distance([]float64{1}, []float64{1}) }))
	check("nil", "Clipped with a nil D", isNaN(func() float64 { return Clipped{C: 1}.Distance([]float64{1}, []float64{1}) }))
	check("nan", "Clipped with C NaN", isNaN(func() float64 { return Clipped{D: Euclidean{}, C: nan}.Distance([]float64{1}, []float64{1}) }))
	check("inf", "Clipped with C +Inf", isNaN(func() float64 { return Clipped{D: Euclidean{}, C: inf}.Distance([]float64{1}, []float64{1}) }))
	check("nonpositive", "Clipped with C -1", isNaN(func() float64 { return Clipped{D: Euclidean{}, C: -1}.Distance([]float64{1}, []float64{1}) }))
	embed := func(m *FeatureMMD, x []float64, n int) func() error {
		return func() error {
			if m.Embed(x, make([]float64, n)) {
				return fmt.Errorf("Embed reported success")
			}
			return nil
		}
	}
	check("nil", "nil FeatureMMD Embed", embed(nil, []float64{1}, 16))
	check("zerovalue", "zero FeatureMMD Embed", embed(&FeatureMMD{}, []float64{1}, 16))
	check("empty", "FeatureMMD Embed no points", embed(fm1, nil, 16))
	check("mismatched", "FeatureMMD Embed short dst", embed(fm1, []float64{1}, 15))
	check("nil", "nil FeatureMMD Frequencies", func() error {
		if f := (*FeatureMMD)(nil).Frequencies(); f != nil {
			return fmt.Errorf("got %v, want nil", f)
		}
		return nil
	})
	errc("nil", "nil FeatureMMD WithObserved", func() error { _, err := (*FeatureMMD)(nil).WithObserved([]float64{1}); return err })
	errc("nan", "MedianHeuristic NaN point", func() error { _, err := MedianHeuristic([]float64{1, nan, 3}, 1, 0); return err })
	errc("nonpositive", "MedianHeuristic dim 0", func() error { _, err := MedianHeuristic([]float64{1, 2}, 0, 0); return err })

	// ABCDP's error bounds and flip probabilities.
	rho := []float64{0.1, 0.5, 2}
	for _, v := range []struct {
		cat string
		b   float64
	}{{"nan", nan}, {"nonpositive", 0}, {"nonpositive", -1}, {"inf", math.Inf(-1)}} {
		b := v.b
		check(v.cat, fmt.Sprintf("FlipProbability b %v", b), isNaN(func() float64 { return FlipProbability(1, b) }))
		check(v.cat, fmt.Sprintf("FlipPDF b %v", b), isNaN(func() float64 { return FlipPDF(1, b) }))
		check(v.cat, fmt.Sprintf("ExpectedErrorBound b %v", b), isNaN(func() float64 { return ExpectedErrorBound(rho, 1, b, 1) }))
		check(v.cat, fmt.Sprintf("TailBound b %v", b), isNaN(func() float64 { return TailBound(rho, 1, b, 1, 0.5) }))
	}
	check("nan", "FlipProbability a NaN", isNaN(func() float64 { return FlipProbability(nan, 1) }))
	check("nan", "FlipPDF z NaN", isNaN(func() float64 { return FlipPDF(nan, 1) }))
	check("inf", "FlipProbability a +Inf", equal(0, func() float64 { return FlipProbability(inf, 1) }))
	check("inf", "FlipPDF z -Inf", equal(0, func() float64 { return FlipPDF(math.Inf(-1), 1) }))
	check("huge", "FlipProbability b 1e308 (the limit 1/2)", equal(0.5, func() float64 { return FlipProbability(1, 1e308) }))
	check("subnormal", "FlipProbability b subnormal", func() error {
		if v := FlipProbability(1, sub); !(v >= 0 && v <= 0.5) {
			return fmt.Errorf("got %v, want a probability in [0, 1/2]", v)
		}
		return nil
	})
	check("subnormal", "FlipPDF b subnormal", func() error {
		if v := FlipPDF(1, sub); !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("got %v, want a finite density ≥ 0", v)
		}
		return nil
	})
	check("empty", "ExpectedErrorBound no distances", isNaN(func() float64 { return ExpectedErrorBound(nil, 1, 1, 1) }))
	check("empty", "TailBound no distances", isNaN(func() float64 { return TailBound(nil, 1, 1, 1, 0.5) }))
	check("nan", "ExpectedErrorBound NaN distance", isNaN(func() float64 { return ExpectedErrorBound([]float64{0.1, nan}, 1, 1, 1) }))
	check("nan", "TailBound NaN distance", isNaN(func() float64 { return TailBound([]float64{0.1, nan}, 1, 1, 1, 0.5) }))
	check("nan", "ExpectedErrorBound ε_abc NaN", isNaN(func() float64 { return ExpectedErrorBound(rho, nan, 1, 1) }))
	check("nan", "ExpectedErrorBound kT NaN", isNaN(func() float64 { return ExpectedErrorBound(rho, 1, 1, nan) }))
	check("nonpositive", "ExpectedErrorBound kT -1", isNaN(func() float64 { return ExpectedErrorBound(rho, 1, 1, -1) }))
	check("nonpositive", "TailBound kT -1", isNaN(func() float64 { return TailBound(rho, 1, 1, -1, 0.5) }))
	check("nan", "TailBound kT NaN", isNaN(func() float64 { return TailBound(rho, 1, 1, nan, 0.5) }))
	check("nonpositive", "TailBound a 0", isNaN(func() float64 { return TailBound(rho, 1, 1, 1, 0) }))
	check("nan", "TailBound a NaN", isNaN(func() float64 { return TailBound(rho, 1, 1, 1, nan) }))
	check("huge", "TailBound kT 1e308 (clamped to 0)", equal(0, func() float64 { return TailBound(rho, 1, 1, 1e308, 0.5) }))

	// Schedules: a round index outside the schedule ends it.
	ends := func(s Schedule, t int, prev *Round) func() error {
		return func() error {
			if e, ok := s.Next(t, prev); ok {
				return fmt.Errorf("Next(%d) = %v, true; want the schedule to end", t, e)
			}
			return nil
		}
	}
	check("nonpositive", "ToleranceList.Next t = -1", ends(ToleranceList{1}, -1, nil))
	check("nonpositive", "Geometric.Next t = -1", ends(Geometric{A: 1, R: 0.5, Rounds: 3}, -1, nil))
	check("nonpositive", "Adaptive.Next t = -1", ends(Adaptive{Initial: 1, Quantile: 0.5, Rounds: 3}, -1, nil))
	check("nil", "nil ToleranceList.Next", ends(ToleranceList(nil), 0, nil))
	check("zerovalue", "zero Geometric.Next", ends(Geometric{}, 0, nil))
	check("zerovalue", "zero Adaptive.Next", ends(Adaptive{}, 0, nil))
	check("huge", "ToleranceList.Next t = MaxInt", ends(ToleranceList{1}, math.MaxInt, nil))
	check("empty", "Adaptive.Next after a round without distances", func() error {
		e, ok := Adaptive{Initial: 1, Quantile: 0.5, Rounds: 3}.Next(1, &Round{Tolerance: 1})
		if ok && !(e < 1) {
			return fmt.Errorf("Next = %v, true: not below the previous tolerance 1", e)
		}
		return nil
	})

	// Results and enums on nil and zero values.
	check("nil", "nil Round.N", equal(0, func() float64 { return float64((*Round)(nil).N()) }))
	check("zerovalue", "zero Round.N", equal(0, func() float64 { return float64((&Round{}).N()) }))
	check("nil", "nil SMCResult.Final", func() error {
		if f := (*SMCResult)(nil).Final(); f != nil {
			return fmt.Errorf("got %v, want nil", f)
		}
		return nil
	})
	check("nil", "nil Simulations.Len", equal(0, func() float64 { return float64((*Simulations)(nil).Len()) }))
	check("huge", "Observation(200).String", func() error {
		if s := Observation(200).String(); s != "Observation(200)" {
			return fmt.Errorf("got %q", s)
		}
		return nil
	})
	check("huge", "StopReason(99).String", func() error {
		if s := StopReason(99).String(); s == "" {
			return fmt.Errorf("empty name")
		}
		return nil
	})
	check("nil", "nil ABCDPSelector accessors", func() error {
		var a *ABCDPSelector
		if a.Scale() != 0 || a.Sensitivity() != 0 || a.Budget().Epsilon != 0 || a.Config().C != 0 {
			return fmt.Errorf("Scale %v, Sensitivity %v, Budget %v, Config %+v", a.Scale(), a.Sensitivity(), a.Budget(), a.Config())
		}
		return nil
	})

	// Validate on nil configurations.
	errc("nil", "nil *ABCDPConfig Validate", func() error { return (*ABCDPConfig)(nil).Validate() })
	errc("nil", "nil *SMCConfig Validate", func() error { return (*SMCConfig)(nil).Validate() })
	errc("nil", "nil *RejectionConfig Validate", func() error { return (*RejectionConfig)(nil).Validate() })
	errc("nil", "nil *KernelISConfig Validate", func() error { return (*KernelISConfig)(nil).Validate() })

	// SimulatePriorWith: the same checks as SimulatePrior whatever the
	// executor (nil is in process).
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	spw := func(cat, name string, n int, d Distance, obs Observation) {
		errc(cat, "SimulatePriorWith: "+name, func() error {
			_, err := SimulatePriorWith(ctx, nil, p, d, n, 1, obs)
			return err
		})
	}
	spw("nonpositive", "n = 0", 0, Euclidean{}, PublicObservation)
	spw("huge", "n = 2^40", 1<<40, Euclidean{}, PublicObservation)
	spw("nil", "nil distance", 10, nil, PublicObservation)
	spw("zerovalue", "unset observation", 10, Euclidean{}, ObservationUnset)
	spw("huge", "observation 200", 10, Euclidean{}, Observation(200))
	errc("zerovalue", "SimulatePrior: unset observation", func() error {
		_, err := SimulatePrior(ctx, p, Euclidean{}, 10, 1, ObservationUnset)
		return err
	})
	return cs
}

// TestNilReceivers calls every exported pointer-receiver method of the
// package on a nil pointer with zero-valued arguments: none may panic and
// those returning an error must return one wrapping ErrInvalid. The list
// of types is checked against the source.
func TestNilReceivers(t *testing.T) {
	ptrs := []any{(*ABCDPConfig)(nil), (*ABCDPSelector)(nil), (*FeatureMMD)(nil), (*KernelISConfig)(nil),
		(*MMD)(nil), (*RejectionConfig)(nil), (*Round)(nil), (*SMCConfig)(nil), (*SMCResult)(nil),
		(*Simulations)(nil), (*WeightedL2)(nil)}
	want, err := testutil.PointerReceiverTypes(".")
	if err != nil {
		t.Fatal(err)
	}
	if got := testutil.TypeNames(ptrs); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the test covers %v, the package declares pointer-receiver methods on %v", got, want)
	}
	for _, f := range testutil.NilReceiverFailures(ptrs, ErrInvalid) {
		t.Error(f)
	}
}
