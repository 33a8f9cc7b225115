package sir

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/simulate"
)

// FuzzConstructors feeds arbitrary configurations — population, initial
// infected, record times (NaN, ±Inf, unsorted, negative), parameterisation
// and output values outside their enums — and arbitrary tau-leap steps and
// ODE tolerances to New, NewTauLeap and NewODE. Each constructor either
// returns an error wrapping simulate.ErrInvalid and no simulator, or a
// simulator that reports the configuration it was given (K, the record
// times, one statistic per time, the step) and whose simulation at a
// moderate θ returns an error or counts in [0, K] (proportions in
// [0, 1]); nothing panics.
func FuzzConstructors(f *testing.F) {
	f.Add(int64(100), int64(1), 1.0, 2.0, 3.0, 0, 0, 0.5, 1e-6)
	f.Add(int64(1), int64(0), 0.0, 0.0, 0.0, 1, 1, 1e-300, 0.0)
	f.Add(int64(0), int64(1), 1.0, 2.0, 3.0, 0, 0, 0.5, 1e-6)
	f.Add(int64(50), int64(51), 1.0, 2.0, 3.0, 0, 0, 0.5, 1e-6)
	f.Add(int64(50), int64(-1), 1.0, 2.0, 3.0, 2, 0, 0.5, 1e-6)
	f.Add(int64(50), int64(2), 3.0, 2.0, 1.0, 0, 7, 0.5, 1e-6)
	f.Add(int64(50), int64(2), math.NaN(), 2.0, 3.0, -1, 0, math.NaN(), math.NaN())
	f.Add(int64(50), int64(2), 1.0, math.Inf(1), 3.0, 0, 0, math.Inf(1), 0.2)
	f.Add(int64(math.MaxInt64), int64(1), -1.0, 2.0, 3.0, 0, 1, -0.5, -1e-6)
	f.Add(int64(20), int64(5), 5e-324, 1e-300, 1e300, 1, 1, 5e-324, 0.1)
	f.Add(int64(100), int64(1), 1.0, 2.0, 17.0, 0, 0, 0.5, 5e-324)
	f.Add(int64(100), int64(1), 1.0, 2.0, 17.0, 0, 0, 0.5, 1e-300)
	f.Fuzz(func(t *testing.T, k, i0 int64, t0, t1, t2 float64, param, output int, step, rtol float64) {
		cfg := Config{K: k, I0: i0, Times: []float64{t0, t1, t2}, Param: Param(param), Output: Output(output)}
		ex, errE := New(cfg)
		tl, errT := NewTauLeap(cfg, step)
		od, errO := NewODE(cfg, rtol)
		// The moderate θ of the chosen parameterisation: R0 = 2, γ = 0.5.
		theta := []float64{math.Log(1), math.Log(0.5)}
		if cfg.Param == Rates {
			theta = []float64{1, 0.5}
		}
		// Simulations are run only on populations and horizons that stay
		// fast; construction is checked for every input.
		run := k <= 2000 && t2 <= 100 && t1 <= 100 && t0 <= 100
		r := rand.New(rand.NewPCG(1, 2))
		for _, c := range []struct {
			name string
			sim  interface {
				simulate.Simulator
				K() int64
				Times() []float64
			}
			err  error
			nil_ bool
		}{{"New", ex, errE, ex == nil}, {"NewTauLeap", tl, errT, tl == nil}, {"NewODE", od, errO, od == nil}} {
			if c.err != nil {
				if !errors.Is(c.err, simulate.ErrInvalid) {
					t.Fatalf("%s(%+v): error %v does not wrap simulate.ErrInvalid", c.name, cfg, c.err)
				}
				if !c.nil_ {
					t.Fatalf("%s: a simulator returned with the error %v", c.name, c.err)
				}
				continue
			}
			if c.nil_ {
				t.Fatalf("%s(%+v): neither a simulator nor an error", c.name, cfg)
			}
			if c.sim.K() != k || c.sim.StatDim() != 3 || !slices.Equal(c.sim.Times(), cfg.Times) {
				t.Fatalf("%s(%+v): K %d, StatDim %d, Times %v", c.name, cfg, c.sim.K(), c.sim.StatDim(), c.sim.Times())
			}
			if !(k >= 1 && i0 >= 0 && i0 <= k) {
				t.Fatalf("%s accepted K = %d, I0 = %d", c.name, k, i0)
			}
			for _, v := range cfg.Times {
				if !(v >= 0) || math.IsInf(v, 0) {
					t.Fatalf("%s accepted the record time %v", c.name, v)
				}
			}
			if !run || c.name == "NewTauLeap" && !(t0/step <= 1e5 && t1/step <= 1e5 && t2/step <= 1e5) {
				continue // too many leaps for a fuzz run
			}
			dst := make([]float64, 3)
			if err := c.sim.Simulate(r, theta, dst); err != nil {
				continue
			}
			hi := float64(k)
			if cfg.Output == Proportions {
				hi = 1
			}
			for _, v := range dst {
				if math.IsNaN(v) || v < -1e-9 || v > hi*(1+1e-9) {
					t.Fatalf("%s(%+v): output %v outside [0, %v]", c.name, cfg, dst, hi)
				}
			}
		}
		if tl != nil && tl.Step() != step {
			t.Fatalf("NewTauLeap: Step %v, asked for %v", tl.Step(), step)
		}
		if tl != nil && !(step > 0) {
			t.Fatalf("NewTauLeap accepted the step %v", step)
		}
		if od != nil && !(rtol == 0 || rtol >= 0x1p-52 && rtol <= 0.1) {
			t.Fatalf("NewODE accepted rtol %v", rtol)
		}
	})
}
