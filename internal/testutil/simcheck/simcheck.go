// Package simcheck builds the generic rows of the bad-input tables of the
// packages that implement simulate's seams (Simulator, RecordModel,
// Prior): the same bad arguments, the same expected outcomes, for every
// model.
package simcheck

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

type b = testutil.BadInput

func rnd() *rand.Rand { return rand.New(rand.NewPCG(11, 12)) }

// with returns a copy of x with entry i set to v.
func with(x []float64, i int, v float64) []float64 {
	c := append([]float64(nil), x...)
	c[i] = v
	return c
}

// thetaCases are the bad parameter vectors derived from a valid theta:
// nil, empty, short, long, and NaN, ±Inf in each position.
func thetaCases(theta []float64) (cats, names []string, vals [][]float64) {
	add := func(c, n string, v []float64) {
		cats, names, vals = append(cats, c), append(names, n), append(vals, v)
	}
	add("nil", "θ nil", nil)
	add("empty", "θ empty", []float64{})
	if len(theta) > 1 {
		add("mismatched", "θ short", theta[:len(theta)-1])
	}
	add("mismatched", "θ long", append(append([]float64(nil), theta...), theta[0]))
	for i := range theta {
		add("nan", fmt.Sprintf("θ[%d] NaN", i), with(theta, i, math.NaN()))
		add("inf", fmt.Sprintf("θ[%d] +Inf", i), with(theta, i, math.Inf(1)))
		add("inf", fmt.Sprintf("θ[%d] -Inf", i), with(theta, i, math.Inf(-1)))
	}
	return
}

// finiteOrErr checks a call that may accept an extreme but finite
// argument: an error wrapping simulate.ErrInvalid, or finite output.
func finiteOrErr(err error, out []float64) error {
	if err != nil {
		if !errors.Is(err, simulate.ErrInvalid) {
			return fmt.Errorf("error %v does not wrap simulate.ErrInvalid", err)
		}
		return nil
	}
	for _, v := range out {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("output %v with a nil error", out)
		}
	}
	return nil
}

// Simulator returns the rows for s.Simulate with a valid theta: nil
// generator, dst of the wrong length, every bad θ of thetaCases (an
// error), θ entries of ±1e300 (an error or a finite summary), and the
// zero value and nil pointer of the type (an error).
func Simulator(name string, s simulate.Simulator, theta []float64, zero, nilp simulate.Simulator) []testutil.BadInput {
	n := s.StatDim()
	call := func(s simulate.Simulator, r *rand.Rand, th []float64, k int) func() error {
		return func() error { return s.Simulate(r, th, make([]float64, k)) }
	}
	cs := []b{
		{Category: "nil", Name: name + ".Simulate nil *rand.Rand (an error, or a deterministic simulator's finite summary)", Check: func() error {
			dst := make([]float64, n)
			return finiteOrErr(s.Simulate(nil, theta, dst), dst)
		}},
		{Category: "mismatched", Name: name + ".Simulate short dst", Err: call(s, rnd(), theta, n-1)},
		{Category: "mismatched", Name: name + ".Simulate long dst", Err: call(s, rnd(), theta, n+1)},
		{Category: "empty", Name: name + ".Simulate nil dst", Err: func() error { return s.Simulate(rnd(), theta, nil) }},
	}
	if zero != nil {
		cs = append(cs, b{Category: "zerovalue", Name: name + ".Simulate zero value", Err: call(zero, rnd(), theta, n)})
	}
	if nilp != nil {
		cs = append(cs, b{Category: "nil", Name: name + ".Simulate nil receiver", Err: call(nilp, rnd(), theta, n)})
	}
	cats, names, vals := thetaCases(theta)
	for i := range cats {
		cs = append(cs, b{Category: cats[i], Name: name + ".Simulate " + names[i], Err: call(s, rnd(), vals[i], n)})
	}
	for i := range theta {
		for _, v := range []float64{1e300, -1e300} {
			th := with(theta, i, v)
			cs = append(cs, b{Category: "huge", Name: fmt.Sprintf("%s.Simulate θ[%d] %g", name, i, v), Check: func() error {
				dst := make([]float64, n)
				return finiteOrErr(s.Simulate(rnd(), th, dst), dst)
			}})
		}
	}
	return cs
}

// RecordModel returns the rows for a record model with a valid theta:
// CheckParam refuses every bad θ of thetaCases and the zero value and nil
// pointer of the type; θ entries of ±1e300 are refused or give a finite
// record and log-likelihood; NewMeanStat and MeanContribution refuse a
// zero-value or nil model; the hot-path methods panic on slices shorter
// than RecordDim or ContribDim (simulate.RecordModel documents it).
func RecordModel(name string, m simulate.RecordModel, theta []float64, zero, nilp simulate.RecordModel) []testutil.BadInput {
	cs := []b{}
	cats, names, vals := thetaCases(theta)
	for i := range cats {
		cs = append(cs, b{Category: cats[i], Name: name + ".CheckParam " + names[i], Err: func() error { return m.CheckParam(vals[i]) }})
	}
	for i := range theta {
		for _, v := range []float64{1e300, -1e300} {
			th := with(theta, i, v)
			cs = append(cs, b{Category: "huge", Name: fmt.Sprintf("%s θ[%d] %g", name, i, v), Check: func() error {
				if err := m.CheckParam(th); err != nil {
					return finiteOrErr(err, nil)
				}
				rec := make([]float64, m.RecordDim())
				m.SampleRecord(rnd(), th, rec)
				ll := m.RecordLogLik(th, rec)
				if math.IsNaN(ll) || math.IsInf(ll, 1) {
					return fmt.Errorf("accepted θ gives record %v with log-likelihood %v", rec, ll)
				}
				return finiteOrErr(nil, rec)
			}})
		}
	}
	for _, z := range []struct {
		cat, name string
		m         simulate.RecordModel
	}{{"zerovalue", "zero value", zero}, {"nil", "nil receiver", nilp}} {
		if z.m == nil {
			continue
		}
		cs = append(cs,
			b{Category: z.cat, Name: name + ".CheckParam " + z.name, Err: func() error { return z.m.CheckParam(theta) }},
			b{Category: z.cat, Name: "simulate.NewMeanStat " + name + " " + z.name, Err: func() error { _, err := simulate.NewMeanStat(z.m, 10); return err }},
			b{Category: z.cat, Name: "simulate.MeanContribution " + name + " " + z.name, Err: func() error {
				return simulate.MeanContribution(z.m, make([]float64, 4), make([]float64, 1))
			}},
		)
	}
	rd, cd := m.RecordDim(), m.ContribDim()
	cs = append(cs,
		b{Category: "empty", Name: name + ".SampleRecord empty rec (documented panic)", Panics: func() { m.SampleRecord(rnd(), theta, nil) }},
		b{Category: "empty", Name: name + ".Contribution empty dst (documented panic)", Panics: func() {
			rec := make([]float64, rd)
			m.SampleRecord(rnd(), theta, rec)
			m.Contribution(rec, nil)
		}},
		b{Category: "empty", Name: name + ".Contribution empty rec (documented panic)", Panics: func() { m.Contribution(nil, make([]float64, cd)) }},
		b{Category: "empty", Name: name + ".RecordLogLik empty rec (documented panic)", Panics: func() { m.RecordLogLik(theta, nil) }},
		b{Category: "nonpositive", Name: "simulate.NewMeanStat " + name + " n 0", Err: func() error { _, err := simulate.NewMeanStat(m, 0); return err }},
		b{Category: "mismatched", Name: "simulate.MeanContribution " + name + " dst length", Err: func() error {
			return simulate.MeanContribution(m, make([]float64, rd), make([]float64, cd+1))
		}},
		b{Category: "nan", Name: "simulate.MeanContribution " + name + " NaN record", Err: func() error {
			rec := make([]float64, rd)
			rec[0] = math.NaN()
			return simulate.MeanContribution(m, rec, make([]float64, cd))
		}},
	)
	if rd > 1 {
		cs = append(cs, b{Category: "mismatched", Name: "simulate.MeanContribution " + name + " ragged records", Err: func() error {
			return simulate.MeanContribution(m, make([]float64, rd+1), make([]float64, cd))
		}})
	}
	if ms, err := simulate.NewMeanStat(m, 5); err == nil {
		cs = append(cs, Simulator(name+" MeanStat", ms, theta, nil, nil)...)
	}
	return cs
}

// Prior returns the rows for a prior's LogDensity and Sample:
// LogDensity is NaN for a θ of the wrong length (simulate.Prior documents
// it), NaN or −Inf for a NaN entry, −Inf or NaN for an infinite one, never
// +Inf; Sample with a nil generator or a short θ panics (the interface
// has no error return: a programmer error).
func Prior(name string, p simulate.Prior) []testutil.BadInput {
	d := p.Dim()
	theta := make([]float64, d)
	p.Sample(rnd(), theta)
	isNaN := func(v float64) error {
		if !math.IsNaN(v) {
			return fmt.Errorf("log density %v, want the documented NaN", v)
		}
		return nil
	}
	notFinite := func(v float64) error {
		if !math.IsNaN(v) && !math.IsInf(v, -1) {
			return fmt.Errorf("log density %v of a non-finite θ, want NaN or -Inf", v)
		}
		return nil
	}
	cs := []b{
		{Category: "nil", Name: name + ".LogDensity nil θ", Check: func() error { return isNaN(p.LogDensity(nil)) }},
		{Category: "mismatched", Name: name + ".LogDensity long θ", Check: func() error { return isNaN(p.LogDensity(append(theta, 0))) }},
		{Category: "nil", Name: name + ".Sample nil *rand.Rand (documented panic)", Panics: func() { p.Sample(nil, make([]float64, d)) }},
		{Category: "mismatched", Name: name + ".Sample short θ (documented panic)", Panics: func() { p.Sample(rnd(), make([]float64, d-1)) }},
	}
	if d > 1 {
		cs = append(cs, b{Category: "mismatched", Name: name + ".LogDensity short θ", Check: func() error { return isNaN(p.LogDensity(theta[:d-1])) }})
	}
	for i := range theta {
		cs = append(cs,
			b{Category: "nan", Name: fmt.Sprintf("%s.LogDensity θ[%d] NaN", name, i), Check: func() error { return notFinite(p.LogDensity(with(theta, i, math.NaN()))) }},
			b{Category: "inf", Name: fmt.Sprintf("%s.LogDensity θ[%d] +Inf", name, i), Check: func() error { return notFinite(p.LogDensity(with(theta, i, math.Inf(1)))) }},
			b{Category: "inf", Name: fmt.Sprintf("%s.LogDensity θ[%d] -Inf", name, i), Check: func() error { return notFinite(p.LogDensity(with(theta, i, math.Inf(-1)))) }},
			b{Category: "huge", Name: fmt.Sprintf("%s.LogDensity θ[%d] 1e300", name, i), Check: func() error {
				if v := p.LogDensity(with(theta, i, 1e300)); math.IsNaN(v) || math.IsInf(v, 1) {
					return fmt.Errorf("log density %v at a finite θ", v)
				}
				return nil
			}},
		)
	}
	return cs
}
