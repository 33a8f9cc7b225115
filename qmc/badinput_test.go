package qmc

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestBadInput feeds invalid arguments and unconstructed values to the
// exported API: every call returns an error wrapping ErrInvalid, never panics.
func TestBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	f := func(u []float64) float64 { return u[0] }
	// sob builds a scrambled Sobol set with a generator of its own: the
	// IntegrateParallel cases call it from several goroutines.
	sob := func() *Sobol {
		s, err := NewSobol(SobolConfig{Dim: 2, Scramble: Owen}, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	buf := make([]float64, 8)
	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "NewSobol dim 0", Err: func() error { _, err := NewSobol(SobolConfig{Dim: 0}, r); return err }},
		{Category: "nonpositive", Name: "NewSobol dim -1", Err: func() error { _, err := NewSobol(SobolConfig{Dim: -1}, r); return err }},
		{Category: "huge", Name: "NewSobol dim MaxInt", Err: func() error { _, err := NewSobol(SobolConfig{Dim: math.MaxInt}, r); return err }},
		{Category: "huge", Name: "NewSobol bits 128", Err: func() error { _, err := NewSobol(SobolConfig{Dim: 2, Bits: 128}, r); return err }},
		{Category: "nonpositive", Name: "NewSobol bits -32", Err: func() error { _, err := NewSobol(SobolConfig{Dim: 2, Bits: -32}, r); return err }},
		{Category: "huge", Name: "NewSobol unknown scramble", Err: func() error { _, err := NewSobol(SobolConfig{Dim: 2, Scramble: 99}, r); return err }},
		{Category: "nonpositive", Name: "NewSobol negative scramble", Err: func() error { _, err := NewSobol(SobolConfig{Dim: 2, Scramble: -1}, r); return err }},
		{Category: "nil", Name: "NewSobol Owen nil rand", Err: func() error { _, err := NewSobol(SobolConfig{Dim: 2, Scramble: Owen}, nil); return err }},
		{Category: "nil", Name: "NewSobol LMS nil rand", Err: func() error { _, err := NewSobol(SobolConfig{Dim: 2, Scramble: LinearMatrixShift}, nil); return err }},
		{Category: "nonpositive", Name: "Sobol.Fill n -1", Err: func() error { return sob().Fill(buf, -1) }},
		{Category: "mismatched", Name: "Sobol.Fill short buffer", Err: func() error { return sob().Fill(buf, 5) }},
		{Category: "empty", Name: "Sobol.Fill nil buffer", Err: func() error { return sob().Fill(nil, 1) }},
		{Category: "huge", Name: "Sobol.Fill n MaxInt", Err: func() error { return sob().Fill(buf, math.MaxInt) }},
		{Category: "zerovalue", Name: "Sobol{}.Fill", Err: func() error { var s Sobol; return s.Fill(buf, 1) }},
		{Category: "zerovalue", Name: "Sobol{}.Fill n 0", Err: func() error { var s Sobol; return s.Fill(buf, 0) }},
		{Category: "zerovalue", Name: "Sobol{}.Seek", Err: func() error { var s Sobol; return s.Seek(0) }},
		{Category: "zerovalue", Name: "Sobol{}.Skip", Err: func() error { var s Sobol; return s.Skip(1) }},
		{Category: "nil", Name: "nil *Sobol Fill", Err: func() error { var s *Sobol; return s.Fill(buf, 1) }},
		{Category: "nil", Name: "nil *Sobol Seek", Err: func() error { var s *Sobol; return s.Seek(1) }},
		{Category: "nonpositive", Name: "NewHalton dim 0", Err: func() error { _, err := NewHalton(HaltonConfig{Dim: 0, Scrambled: false}, r); return err }},
		{Category: "huge", Name: "NewHalton dim MaxInt", Err: func() error { _, err := NewHalton(HaltonConfig{Dim: math.MaxInt, Scrambled: false}, r); return err }},
		{Category: "nil", Name: "NewHalton scrambled nil rand", Err: func() error { _, err := NewHalton(HaltonConfig{Dim: 3, Scrambled: true}, nil); return err }},
		{Category: "zerovalue", Name: "Halton{}.Fill", Err: func() error { var h Halton; return h.Fill(buf, 1) }},
		{Category: "zerovalue", Name: "Halton{}.Seek", Err: func() error { var h Halton; return h.Seek(3) }},
		{Category: "nil", Name: "nil *Halton Fill", Err: func() error { var h *Halton; return h.Fill(buf, 1) }},
		{Category: "mismatched", Name: "Halton.Fill short buffer", Err: func() error {
			h, _ := NewHalton(HaltonConfig{Dim: 3, Scrambled: false}, nil)
			return h.Fill(buf, 3)
		}},
		{Category: "nil", Name: "NewRotation nil base", Err: func() error { _, err := NewRotation(nil, r); return err }},
		{Category: "nil", Name: "NewRotation typed nil base", Err: func() error { _, err := NewRotation((*Sobol)(nil), r); return err }},
		{Category: "nil", Name: "NewRotation nil rand", Err: func() error { _, err := NewRotation(sob(), nil); return err }},
		{Category: "zerovalue", Name: "NewRotation zero-value base", Err: func() error { _, err := NewRotation(&Sobol{}, r); return err }},
		{Category: "zerovalue", Name: "Rotation{}.Fill", Err: func() error { var c Rotation; c.Reset(); c.Randomize(r); return c.Fill(buf, 1) }},
		{Category: "mismatched", Name: "Rotation.Fill short buffer", Err: func() error {
			c, _ := NewRotation(sob(), r)
			return c.Fill(buf, 5)
		}},
		{Category: "nonpositive", Name: "NewMonteCarlo dim 0", Err: func() error { _, err := NewMonteCarlo(0, r); return err }},
		{Category: "nil", Name: "NewMonteCarlo nil rand", Err: func() error { _, err := NewMonteCarlo(2, nil); return err }},
		{Category: "zerovalue", Name: "MonteCarlo{}.Fill", Err: func() error { var m MonteCarlo; m.Reset(); return m.Fill(buf, 1) }},
		{Category: "nil", Name: "Replicates nil seq", Err: func() error { return Replicates(ctx, nil, f, 4, buf, r) }},
		{Category: "nil", Name: "Replicates typed nil seq", Err: func() error { return Replicates(ctx, (*Halton)(nil), f, 4, buf, r) }},
		{Category: "nil", Name: "Replicates nil f", Err: func() error { return Replicates(ctx, sob(), nil, 4, buf, r) }},
		{Category: "nil", Name: "Replicates nil rand", Err: func() error { return Replicates(ctx, sob(), f, 4, buf, nil) }},
		{Category: "nil", Name: "Replicates nil ctx", Err: func() error {
			var c context.Context
			return Replicates(c, sob(), f, 4, buf, r)
		}},
		{Category: "nonpositive", Name: "Replicates n 0", Err: func() error { return Replicates(ctx, sob(), f, 0, buf, r) }},
		{Category: "empty", Name: "Replicates empty dst", Err: func() error { return Replicates(ctx, sob(), f, 4, nil, r) }},
		{Category: "zerovalue", Name: "Replicates zero-value Sobol", Err: func() error { return Replicates(ctx, &Sobol{}, f, 4, buf, r) }},
		{Category: "zerovalue", Name: "Replicates zero-value MonteCarlo", Err: func() error { return Replicates(ctx, &MonteCarlo{}, f, 4, buf, r) }},
		{Category: "huge", Name: "Replicates n beyond MaxPoints", Err: func() error { return Replicates(ctx, sob(), f, 1<<33, buf[:1], r) }},
		{Category: "huge", Name: "Replicates n beyond Halton MaxPoints", Err: func() error {
			h, _ := NewHalton(HaltonConfig{Dim: 2, Scrambled: false}, nil)
			return Replicates(ctx, h, f, 1<<54, buf[:1], r)
		}},
		{Category: "nonpositive", Name: "Integrate replicates 0", Err: func() error { _, err := Integrate(ctx, sob(), f, 4, 0, r); return err }},
		{Category: "huge", Name: "Integrate replicates MaxInt", Err: func() error { _, err := Integrate(ctx, sob(), f, 4, math.MaxInt, r); return err }},
		{Category: "nil", Name: "Integrate nil seq (huge replicates)", Err: func() error { _, err := Integrate(ctx, nil, f, 4, 1<<27, r); return err }},
		{Category: "nil", Name: "IntegrateParallel nil constructor", Err: func() error { _, err := IntegrateParallel(ctx, nil, 4, 4, 1); return err }},
		{Category: "nonpositive", Name: "IntegrateParallel n 0", Err: func() error {
			_, err := IntegrateParallel(ctx, func() (Randomized, Integrand, error) { return sob(), f, nil }, 0, 4, 1)
			return err
		}},
		{Category: "huge", Name: "IntegrateParallel replicates MaxInt", Err: func() error {
			_, err := IntegrateParallel(ctx, func() (Randomized, Integrand, error) { return sob(), f, nil }, 4, math.MaxInt, 1)
			return err
		}},
		{Category: "nil", Name: "IntegrateParallel constructor returns nil seq", Err: func() error {
			_, err := IntegrateParallel(ctx, func() (Randomized, Integrand, error) { return nil, f, nil }, 4, 2, 1)
			return err
		}},
	}
	nanF := func(u []float64) float64 {
		if u[0] > 0.5 {
			return math.NaN()
		}
		return u[0]
	}
	infF := func(u []float64) float64 { return math.Inf(-1) }
	hugeF := func(u []float64) float64 { return 1e308 }
	cases = append(cases,
		B{Category: "nan", Name: "Integrate NaN integrand", Err: func() error { _, err := Integrate(ctx, sob(), nanF, 8, 4, r); return err }},
		B{Category: "inf", Name: "Integrate -Inf integrand", Err: func() error { _, err := Integrate(ctx, sob(), infF, 8, 4, r); return err }},
		B{Category: "huge", Name: "Integrate integrand 1e308 (the sum overflows)", Err: func() error { _, err := Integrate(ctx, sob(), hugeF, 8, 4, r); return err }},
		B{Category: "nan", Name: "Replicates NaN integrand", Err: func() error { return Replicates(ctx, sob(), nanF, 8, buf, r) }},
		B{Category: "nan", Name: "IntegrateParallel NaN integrand", Err: func() error {
			_, err := IntegrateParallel(ctx, func() (Randomized, Integrand, error) { return sob(), nanF, nil }, 8, 4, 1)
			return err
		}},
		B{Category: "nil", Name: "IntegrateParallel nil ctx", Err: func() error {
			var c context.Context
			_, err := IntegrateParallel(c, func() (Randomized, Integrand, error) { return sob(), f, nil }, 8, 4, 1)
			return err
		}},
		B{Category: "nil", Name: "IntegrateParallel constructor returns nil f", Err: func() error {
			_, err := IntegrateParallel(ctx, func() (Randomized, Integrand, error) { return sob(), nil, nil }, 4, 2, 1)
			return err
		}},
		B{Category: "nonpositive", Name: "Sobol.Skip past MaxPoints", Err: func() error { return sob().Skip(1 << 40) }},
		B{Category: "huge", Name: "Sobol.Seek past MaxPoints", Err: func() error { return sob().Seek(math.MaxUint64) }},
		B{Category: "huge", Name: "Halton.Seek past MaxPoints", Err: func() error {
			h, _ := NewHalton(HaltonConfig{Dim: 2, Scrambled: false}, nil)
			return h.Seek(math.MaxUint64)
		}},
		B{Category: "nil", Name: "nil *Halton Seek", Err: func() error { var h *Halton; return h.Seek(1) }},
		B{Category: "nil", Name: "nil *Rotation Fill", Err: func() error { var c *Rotation; return c.Fill(buf, 1) }},
		B{Category: "nil", Name: "nil *MonteCarlo Fill", Err: func() error { var m *MonteCarlo; return m.Fill(buf, 1) }},
		B{Category: "nil", Name: "nil *Sobol Skip", Err: func() error { var s *Sobol; return s.Skip(1) }},
	)
	// Accessors and resets of nil and zero values: nil-safe, with zero
	// results.
	zeroOK := func(name string, f func() any) {
		cases = append(cases, B{Category: "nil", Name: name, Check: func() error {
			f()
			return nil
		}})
	}
	var ns *Sobol
	var nh *Halton
	var nr *Rotation
	var nm *MonteCarlo
	zeroOK("nil *Sobol accessors", func() any {
		ns.Reset()
		ns.Randomize(r)
		return []any{ns.Dim(), ns.Bits(), ns.Index(), ns.MaxPoints(), ns.Scramble(), ns.Clone()}
	})
	zeroOK("nil *Halton accessors", func() any { nh.Reset(); nh.Randomize(r); return []any{nh.Dim(), nh.Index(), nh.MaxPoints()} })
	zeroOK("nil *Rotation accessors", func() any { nr.Reset(); nr.Randomize(r); return []any{nr.Dim(), nr.Shift()} })
	zeroOK("nil *MonteCarlo accessors", func() any { nm.Reset(); nm.Randomize(r); return nm.Dim() })
	cases = append(cases,
		B{Category: "nil", Name: "Sobol.Randomize nil rand (documented panic)", Panics: func() { sob().Randomize(nil) }},
		B{Category: "nil", Name: "Halton.Randomize scrambled, nil rand (documented panic)", Panics: func() {
			h, _ := NewHalton(HaltonConfig{Dim: 2, Scrambled: true}, r)
			h.Randomize(nil)
		}},
		B{Category: "nil", Name: "MonteCarlo.Randomize nil rand (documented panic)", Panics: func() {
			m, _ := NewMonteCarlo(2, r)
			m.Randomize(nil)
		}},
		B{Category: "nil", Name: "Rotation.Randomize nil rand (documented panic)", Panics: func() {
			c, _ := NewRotation(sob(), r)
			c.Randomize(nil)
		}})
	zeroOK("Scramble(99).String", func() any { return Scramble(99).String() })
	testutil.RunBadInput(t, ErrInvalid, cases)
}
