// Package study reruns the simulation studies of the modips paper (Liu
// 2022) with package synth and package combine: the coverage of the
// variance combination rules (Table 1) and their standard-deviation
// estimates (Fig. 8), the effect of the number of synthetic sets m (Figs
// 6–7) and of budget allocation (Fig 9). It is the harness of the paper's
// reproduction (examples/reproduce/modips and its subcommands), not part of the
// library: it uses only the public API of synth, combine and simulate.
//
// Every study takes a seed and a number of repetitions; repetition i of
// scenario k uses its own random stream, so results depend on the seed
// only, never on GOMAXPROCS.
package study

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/privinfer/privinfer/combine"
	"github.com/privinfer/privinfer/synth"
)

// Column indexes the coverage columns of Table 1.
type Column int

// The columns of Table 1, in the paper's order.
const (
	Original       Column = iota // the original data, z (Wald) interval
	Thm7                         // W̄ + B/m, Student t with ν = (m−1)(1 + mW̄/B)²
	Raab                         // (1 + 2/m)W̄, z interval
	FullySynthetic               // (1 + 1/m)B − W̄, z interval, negative T does not cover
	Rubin                        // (1 + 1/m)B + W̄, t with Rubin's df
	Single                       // one synthetic set with the full budget, naive z interval (known σ for Gaussian data)
	NumColumns
)

// ColumnNames are short names of the columns.
var ColumnNames = [NumColumns]string{"original", "thm7", "(1+2/m)W", "(1+1/m)B-W", "(1+1/m)B+W", "single"}

// Scenario is one row of Table 1.
type Scenario struct {
	Binary bool
	Eps    float64
	// N is the sample size printed in the paper; SimN the size simulated.
	// The binary rows printed as n = 10 and 100 are reproduced at n = 100
	// and 1000 (see the reproduction notes in the package tests).
	N, SimN int
	P       float64 // binary success probability
	Paper   [NumColumns]float64
	// RecordBounding bounds the Gaussian synthetic records to [−4, 4]
	// (BIT by default, as in the paper).
	RecordBounding synth.Bounding
}

// Row is a Table 1 row with our coverage.
type Row struct {
	Scenario
	Ours [NumColumns]float64
	Reps int
}

// Table1M is the number of synthetic sets in Table 1.
const Table1M = 10

// Table1Scenarios returns the rows of Table 1 with the paper's coverage.
func Table1Scenarios() []Scenario {
	b := func(eps float64, n int, p float64, v ...float64) Scenario {
		s := Scenario{Binary: true, Eps: eps, N: n, SimN: 10 * n, P: p}
		copy(s.Paper[:], v)
		return s
	}
	g := func(eps float64, n int, v ...float64) Scenario {
		s := Scenario{Eps: eps, N: n, SimN: n}
		copy(s.Paper[:], v)
		return s
	}
	return []Scenario{
		b(100, 10, 0.5, 0.946, 0.948, 0.948, 0.798, 0.999, 0.736),
		b(100, 10, 0.1, 0.935, 0.950, 0.949, 0.793, 0.996, 0.738),
		b(100, 100, 0.5, 0.945, 0.952, 0.952, 0.797, 0.999, 0.747),
		b(100, 100, 0.1, 0.949, 0.949, 0.950, 0.791, 0.998, 0.743),
		b(10, 10, 0.5, 0.942, 0.945, 0.945, 0.814, 0.998, 0.723),
		b(10, 10, 0.1, 0.930, 0.946, 0.946, 0.835, 0.997, 0.732),
		b(10, 100, 0.5, 0.946, 0.947, 0.947, 0.792, 1.000, 0.738),
		b(10, 100, 0.1, 0.952, 0.948, 0.950, 0.795, 0.998, 0.747),
		b(1, 10, 0.5, 0.938, 0.947, 0.865, 0.994, 1.000, 0.730),
		b(1, 10, 0.1, 0.936, 0.961, 0.840, 0.994, 0.999, 0.726),
		b(1, 100, 0.5, 0.948, 0.946, 0.938, 0.898, 0.999, 0.746),
		b(1, 100, 0.1, 0.950, 0.952, 0.931, 0.958, 1.000, 0.749),
		b(0.5, 10, 0.5, 0.942, 0.941, 0.707, 0.999, 1.000, 0.715),
		b(0.5, 10, 0.1, 0.928, 0.946, 0.532, 0.998, 0.999, 0.686),
		b(0.5, 100, 0.5, 0.955, 0.953, 0.924, 0.972, 1.000, 0.730),
		b(0.5, 100, 0.1, 0.949, 0.949, 0.869, 0.992, 1.000, 0.756),
		g(100, 10, 0.951, 0.953, 0.946, 0.825, 0.997, 0.743),
		g(100, 100, 0.949, 0.952, 0.952, 0.795, 0.997, 0.741),
		g(10, 10, 0.951, 0.952, 0.836, 0.999, 1.000, 0.720),
		g(10, 100, 0.948, 0.946, 0.933, 0.924, 0.998, 0.739),
		g(1, 10, 0.948, 0.951, 0.392, 0.998, 0.999, 0.450),
		g(1, 100, 0.953, 0.956, 0.454, 1.000, 1.000, 0.674),
		g(0.5, 10, 0.951, 0.954, 0.334, 0.997, 0.998, 0.275),
		g(0.5, 100, 0.950, 0.951, 0.274, 1.000, 1.000, 0.551),
	}
}

// Table1 reruns every scenario of Table 1 with cfg.Reps repetitions,
// reporting one progress event (stage "scenario") per finished scenario.
func Table1(ctx context.Context, cfg Config) ([]Row, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	sc := Table1Scenarios()
	rows := make([]Row, len(sc))
	start := time.Now()
	for k, s := range sc {
		cov, err := s.Run(ctx, cfg.Seed+uint64(k)*0x9E3779B97F4A7C15, cfg.Reps)
		if err != nil {
			return nil, err
		}
		rows[k] = Row{Scenario: s, Ours: cov, Reps: cfg.Reps}
		cfg.report(start, k+1, len(sc), s.name())
	}
	return rows, nil
}

// z975 is the 0.975 standard normal quantile.
var z975 = 1.959963984540054 // Φ⁻¹(0.975)

// MaxSimN bounds Scenario.SimN.
const MaxSimN = 1 << 24

// Validate checks the scenario: SimN in [1, MaxSimN], Eps finite and > 0,
// P in [0, 1] for a binary scenario and, for a Gaussian one, a
// RecordBounding the Gaussian-mean model accepts. Errors wrap ErrInvalid
// and name the field.
func (s Scenario) Validate() error {
	switch {
	case s.SimN < 1 || s.SimN > MaxSimN:
		return fmt.Errorf("%w: Scenario.SimN must be in [1, %d], got %d", ErrInvalid, MaxSimN, s.SimN)
	case !(s.Eps > 0) || math.IsInf(s.Eps, 1):
		return fmt.Errorf("%w: Scenario.Eps must be finite and > 0, got %v", ErrInvalid, s.Eps)
	case s.Binary && !(s.P >= 0 && s.P <= 1):
		return fmt.Errorf("%w: Scenario.P must be in [0, 1], got %v", ErrInvalid, s.P)
	}
	if !s.Binary {
		if _, err := synth.NewGaussianMean(synth.GaussianMeanConfig{Sigma: 1, Lo: -4, Hi: 4, RecordBounding: s.RecordBounding}); err != nil {
			return fmt.Errorf("%w: Scenario.RecordBounding: %w", ErrInvalid, err)
		}
	}
	return nil
}

// Run simulates the scenario reps times (reps in [1, MaxReps]) and returns
// the coverage of the 95% intervals of every column. An invalid scenario
// (see Validate), reps or a nil ctx give an error wrapping ErrInvalid.
func (s Scenario) Run(ctx context.Context, seed uint64, reps int) ([NumColumns]float64, error) {
	cov, _, err := s.simulate(ctx, seed, reps)
	return cov, err
}

// SDRow is one scenario of Fig. 8: the mean standard-deviation estimate of
// every column next to the empirical standard deviation of the estimates
// it is meant to estimate.
type SDRow struct {
	Scenario
	// SD is the mean over repetitions of each column's estimated
	// standard deviation: √u of the original and the single-synthesis
	// estimates, √T of the pooled ones. A negative (1 + 1/m)B − W̄
	// counts as 0.
	SD [NumColumns]float64
	// EmpSD is the empirical standard deviation of the estimates over the
	// repetitions: of the original-data estimate (Original), of the
	// pooled estimate Q̄ (the four pooled columns, which share Q̄) and of
	// the single-synthesis estimate (Single).
	EmpSD [NumColumns]float64
	// Negative is the share of repetitions with a negative
	// (1 + 1/m)B − W̄.
	Negative float64
	Reps     int
}

// Fig8 reruns the standard-deviation estimates of Fig. 8: the scenarios
// of Table 1 (m = 10), cfg.Reps repetitions each (at least 2).
func Fig8(ctx context.Context, cfg Config) ([]SDRow, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Reps < 2 {
		return nil, fmt.Errorf("%w: Config.Reps must be >= 2 for an empirical sd, got %d", ErrInvalid, cfg.Reps)
	}
	sc := Table1Scenarios()
	rows := make([]SDRow, len(sc))
	start := time.Now()
	for k, s := range sc {
		_, sd, err := s.simulate(ctx, cfg.Seed+uint64(k)*0x9E3779B97F4A7C15, cfg.Reps)
		if err != nil {
			return nil, err
		}
		sd.Scenario = s
		rows[k] = sd
		cfg.report(start, k+1, len(sc), s.name())
	}
	return rows, nil
}

// simulate runs the scenario reps times, returning the coverage of every
// column and the standard-deviation summary.
func (s Scenario) simulate(ctx context.Context, seed uint64, reps int) ([NumColumns]float64, SDRow, error) {
	var out [NumColumns]float64
	if ctx == nil {
		return out, SDRow{}, fmt.Errorf("%w: ctx is nil", ErrInvalid)
	}
	if reps < 1 || reps > MaxReps {
		return out, SDRow{}, fmt.Errorf("%w: reps must be in [1, %d], got %d", ErrInvalid, MaxReps, reps)
	}
	if err := s.Validate(); err != nil {
		return out, SDRow{}, err
	}
	var counts [NumColumns]atomic.Int64
	// Per repetition: each column's sd estimate and estimate, and whether
	// (1 + 1/m)B − W̄ was negative.
	type rep struct {
		sd, est [NumColumns]float64
		neg     bool
	}
	per := make([]rep, reps)
	var model synth.Model
	truth := 0.0
	if s.Binary {
		bb, err := synth.NewBetaBernoulli(synth.BetaBernoulliConfig{Alpha: 1, Beta: 1})
		if err != nil {
			return out, SDRow{}, err
		}
		model, _ = synth.NewSSS(bb, nil, synth.BIT)
		truth = s.P
	} else {
		gm, err := synth.NewGaussianMean(synth.GaussianMeanConfig{Sigma: 1, Lo: -4, Hi: 4, RecordBounding: s.RecordBounding})
		if err != nil {
			return out, SDRow{}, err
		}
		model, _ = synth.NewSSS(gm, nil, synth.BIT)
	}
	n := s.SimN
	err := mapReps(ctx, reps, seed, func(i int, r *rand.Rand) error {
		pr := &per[i]
		x := make([]float64, n)
		if s.Binary {
			for i := range x {
				if r.Float64() < s.P {
					x[i] = 1
				}
			}
		} else {
			for i := range x {
				x[i] = math.Max(-4, math.Min(4, r.NormFloat64()))
			}
		}
		var cover [NumColumns]bool
		// Original data: Wald interval (binary) or known-σ z interval.
		q, u := analyse(x, s.Binary)
		if !s.Binary {
			u = 1 / float64(n)
		}
		cover[Original] = math.Abs(q-truth) <= z975*math.Sqrt(u)
		pr.sd[Original], pr.est[Original] = math.Sqrt(u), q

		rel, err := synth.Modips(ctx, r, synth.Single(model), x, synth.Config{Reproducible: true, M: Table1M, Epsilon: s.Eps})
		if err != nil {
			return err
		}
		qs := make([]float64, Table1M)
		us := make([]float64, Table1M)
		for j, d := range rel.Sets {
			qs[j], us[j] = analyse(d, s.Binary)
		}
		pool := func(c Column, rule combine.Rule, opt combine.Options) error {
			res, err := combine.Pool(rule, qs, us, opt)
			if err != nil {
				return err
			}
			pr.sd[c], pr.est[c] = math.Sqrt(math.Max(0, res.Var)), res.Mean
			if c == FullySynthetic && res.Var < 0 {
				pr.neg = true
			}
			lo, hi, err := res.Interval(0.95)
			cover[c] = err == nil && lo <= truth && truth <= hi
			return nil
		}
		for _, p := range []struct {
			c    Column
			rule combine.Rule
			opt  combine.Options
		}{
			{Thm7, combine.DPSynthesis, combine.Options{}},
			{Raab, combine.Raab, combine.Options{}},
			{FullySynthetic, combine.FullySynthetic, combine.Options{Normal: true, NoAdjust: true}},
			{Rubin, combine.Rubin, combine.Options{}},
		} {
			if err := pool(p.c, p.rule, p.opt); err != nil {
				return err
			}
		}

		one, err := synth.Modips(ctx, r, synth.Single(model), x, synth.Config{Reproducible: true, M: 1, Epsilon: s.Eps})
		if err != nil {
			return err
		}
		q1, u1 := analyse(one.Sets[0], s.Binary)
		if !s.Binary {
			u1 = 1 / float64(n) // the naive analyst's known-σ interval, as for the original data
		}
		cover[Single] = math.Abs(q1-truth) <= z975*math.Sqrt(u1)
		pr.sd[Single], pr.est[Single] = math.Sqrt(u1), q1
		for c, ok := range cover {
			if ok {
				counts[c].Add(1)
			}
		}
		return nil
	})
	if err != nil {
		return out, SDRow{}, err
	}
	for c := range out {
		out[c] = float64(counts[c].Load()) / float64(reps)
	}
	sd := SDRow{Reps: reps}
	fr := float64(reps)
	for c := range sd.SD {
		var s1, mean, ss float64
		for _, pr := range per {
			s1 += pr.sd[c]
			mean += pr.est[c]
		}
		mean /= fr
		for _, pr := range per {
			d := pr.est[c] - mean
			ss += d * d
		}
		sd.SD[c] = s1 / fr
		if reps > 1 {
			sd.EmpSD[c] = math.Sqrt(ss / (fr - 1))
		}
	}
	for _, pr := range per {
		if pr.neg {
			sd.Negative++
		}
	}
	sd.Negative /= fr
	return out, sd, nil
}

// analyse returns the estimate of the mean of d and its variance: the
// sample proportion with p̂(1−p̂)/n for binary data, the sample mean with
// s²/n otherwise.
func analyse(d []float64, binary bool) (q, u float64) {
	n := float64(len(d))
	sum := 0.0
	for _, v := range d {
		sum += v
	}
	q = sum / n
	if binary {
		return q, q * (1 - q) / n
	}
	ss := 0.0
	for _, v := range d {
		e := v - q
		ss += e * e
	}
	return q, ss / (n - 1) / n
}

// name describes the scenario in progress messages.
func (s Scenario) name() string {
	if s.Binary {
		return fmt.Sprintf("binary p=%g n=%d ε=%g", s.P, s.N, s.Eps)
	}
	return fmt.Sprintf("gaussian n=%d ε=%g", s.N, s.Eps)
}
