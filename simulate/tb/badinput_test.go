package tb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// TestBadInput feeds invalid settings, parameters, rates, sizes, nil values
// and unconstructed values to the package: every call returns an error
// wrapping simulate.ErrInvalid, or the documented NaN, and never panics.
func TestBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	nan, inf := math.NaN(), math.Inf(1)
	o, _ := NewOutbreak(Config{})
	st, _ := NewStudy(o, 2)
	th := PaperTheta()
	with := func(k int, v float64) []float64 { x := PaperTheta(); x[k] = v; return x }
	sim := func(s simulate.Simulator, r *rand.Rand, theta []float64, n int) func() error {
		return func() error { return s.Simulate(r, theta, make([]float64, n)) }
	}
	newO := func(c Config) func() error { return func() error { _, err := NewOutbreak(c); return err } }
	rates := func(rt Rates) func() error {
		return func() error { return o.SimulateRates(r, rt, make([]float64, NumStats)) }
	}
	ok := Rates{Burden: 200, DeathC: 6, DeathNC: 2}
	bdm, _ := NewBDM(BDMConfig{Population: 50, Sample: 10})
	bdmOnce, _ := NewBDM(BDMConfig{Population: 5000, MaxRestarts: 1})
	type B = testutil.BadInput
	cases := []B{
		{Category: "nonpositive", Name: "Config.PCompliance 1", Err: newO(Config{PCompliance: 1})},
		{Category: "nonpositive", Name: "Config.PCompliance -0.1", Err: newO(Config{PCompliance: -0.1})},
		{Category: "nan", Name: "Config.PObserved NaN", Err: newO(Config{PObserved: nan})},
		{Category: "nonpositive", Name: "Config.DeathC -1", Err: newO(Config{DeathC: -1})},
		{Category: "inf", Name: "Config.DeathC Inf", Err: newO(Config{DeathC: inf})},
		{Category: "huge", Name: "Config.ObsYears 1000", Err: newO(Config{ObsYears: 1000})},
		{Category: "nonpositive", Name: "Config.ObsYears -1", Err: newO(Config{ObsYears: -1})},
		{Category: "nan", Name: "Config.MinWarmup NaN", Err: newO(Config{MinWarmup: nan})},
		{Category: "nonpositive", Name: "Config.MaxWarmup 1", Err: newO(Config{MaxWarmup: 1})},
		{Category: "nonpositive", Name: "Config.MaxEvents -1", Err: newO(Config{MaxEvents: -1})},
		{Category: "nil", Name: "Simulate nil rand", Err: sim(o, nil, th, NumStats)},
		{Category: "mismatched", Name: "Simulate short dst", Err: sim(o, r, th, 3)},
		{Category: "mismatched", Name: "Simulate θ length 3", Err: sim(o, r, th[:3], NumStats)},
		{Category: "empty", Name: "Simulate empty θ", Err: sim(o, r, nil, NumStats)},
		{Category: "nan", Name: "Simulate R1 NaN", Err: sim(o, r, with(0, nan), NumStats)},
		{Category: "inf", Name: "Simulate β Inf", Err: sim(o, r, with(3, inf), NumStats)},
		{Category: "nonpositive", Name: "Simulate R1 = 1", Err: sim(o, r, with(0, 1), NumStats)},
		{Category: "nonpositive", Name: "Simulate t1 = 0", Err: sim(o, r, with(1, 0), NumStats)},
		{Category: "nonpositive", Name: "Simulate R2 < 0", Err: sim(o, r, with(2, -0.1), NumStats)},
		{Category: "nonpositive", Name: "Simulate β = 0", Err: sim(o, r, with(3, 0), NumStats)},
		{Category: "huge", Name: "Simulate supercritical R1 = 19, R2 = 0.5", Err: sim(o, r, []float64{19, 5, 0.5, 200}, NumStats)},
		{Category: "huge", Name: "Simulate β 1e7", Err: sim(o, r, with(3, 1e7), NumStats)},
		{Category: "subnormal", Name: "Simulate t1 subnormal", Err: sim(o, r, with(1, 5e-324), NumStats)},
		{Category: "nan", Name: "SimulateRates Burden NaN", Err: rates(Rates{Burden: nan, DeathC: 1, DeathNC: 1})},
		{Category: "nonpositive", Name: "SimulateRates DeathC 0", Err: rates(Rates{Burden: 1, DeathNC: 1})},
		{Category: "nonpositive", Name: "SimulateRates TransNC -1", Err: rates(Rates{Burden: 1, DeathC: 1, DeathNC: 1, TransNC: -1})},
		{Category: "inf", Name: "SimulateRates TransC Inf", Err: rates(Rates{Burden: 1, DeathC: 1, DeathNC: 1, TransC: inf})},
		{Category: "mismatched", Name: "SimulateRates short dst", Err: func() error { return o.SimulateRates(r, ok, nil) }},
		{Category: "zerovalue", Name: "Outbreak{}.Simulate", Err: func() error { var z Outbreak; return z.Simulate(r, th, make([]float64, NumStats)) }},
		{Category: "nil", Name: "nil Outbreak.Rates", Err: func() error { var z *Outbreak; _, err := z.Rates(th); return err }},
		{Category: "nil", Name: "NewStudy nil outbreak", Err: func() error { _, err := NewStudy(nil, 3); return err }},
		{Category: "nonpositive", Name: "NewStudy n = 0", Err: func() error { _, err := NewStudy(o, 0); return err }},
		{Category: "huge", Name: "NewStudy n = 2^40", Err: func() error { _, err := NewStudy(o, 1<<40); return err }},
		{Category: "mismatched", Name: "Study.Simulate short dst", Err: sim(st, r, th, NumStats)},
		{Category: "nan", Name: "Study.Simulate θ NaN", Err: sim(st, r, with(1, nan), 2*NumStats)},
		{Category: "zerovalue", Name: "Study{}.Simulate", Err: func() error { var z Study; return z.Simulate(r, th, nil) }},
		{Category: "nonpositive", Name: "NewBDM Population -1", Err: func() error { _, err := NewBDM(BDMConfig{Population: -1}); return err }},
		{Category: "huge", Name: "NewBDM Sample > Population", Err: func() error { _, err := NewBDM(BDMConfig{Population: 10, Sample: 11}); return err }},
		{Category: "huge", Name: "NewBDM Population 2^30", Err: func() error { _, err := NewBDM(BDMConfig{Population: 1 << 30}); return err }},
		{Category: "nonpositive", Name: "NewBDM MaxRestarts -1", Err: func() error { _, err := NewBDM(BDMConfig{MaxRestarts: -1}); return err }},
		{Category: "zerovalue", Name: "BDM{}.Simulate", Err: func() error { var z BDM; return z.Simulate(r, []float64{1, 0.5, 0.1}, make([]float64, NumBDMStats)) }},
		{Category: "nil", Name: "BDM.Simulate nil rand", Err: sim(bdm, nil, []float64{1, 0.5, 0.1}, NumBDMStats)},
		{Category: "mismatched", Name: "BDM.Simulate short dst", Err: sim(bdm, r, []float64{1, 0.5, 0.1}, 1)},
		{Category: "mismatched", Name: "BDM.Simulate θ length 2", Err: sim(bdm, r, []float64{1, 0.5}, NumBDMStats)},
		{Category: "nan", Name: "BDM.Simulate μ NaN", Err: sim(bdm, r, []float64{1, 0.5, nan}, NumBDMStats)},
		{Category: "inf", Name: "BDM.Simulate α Inf", Err: sim(bdm, r, []float64{inf, 0.5, 0.1}, NumBDMStats)},
		{Category: "nonpositive", Name: "BDM.Simulate α = δ (not supercritical)", Err: sim(bdm, r, []float64{1, 1, 0.1}, NumBDMStats)},
		{Category: "nonpositive", Name: "BDM.Simulate δ < 0", Err: sim(bdm, r, []float64{1, -0.5, 0.1}, NumBDMStats)},
		{Category: "huge", Name: "BDM.Simulate α 1e7", Err: sim(bdm, r, []float64{1e7, 0.5, 0.1}, NumBDMStats)},
		{Category: "huge", Name: "BDM.Simulate extinct every time", Err: sim(bdmOnce, r, []float64{1, 0.999, 0}, NumBDMStats)},
		{Category: "mismatched", Name: "OutbreakDistance short", Check: func() error {
			return nanOrErr(OutbreakDistance(th, SanFrancisco()))
		}},
		{Category: "nan", Name: "Distance Clip NaN", Check: func() error {
			return nanOrErr(Distance{Clip: nan}.Distance(SanFrancisco(), SanFrancisco()))
		}},
		{Category: "nan", Name: "BalanceMeans NaN burden", Check: func() error {
			a, _, _ := BalanceMeans(Rates{Burden: nan, DeathC: 1, DeathNC: 1}, 0.9, 0.8)
			return nanOrErr(a)
		}},
		{Category: "nonpositive", Name: "BalanceMeans pCompliance 0", Check: func() error {
			a, _, _ := BalanceMeans(ok, 0, 0.8)
			return nanOrErr(a)
		}},
		// Prior.Sample has no error return: a nil generator and a short θ
		// are the programmer errors simulate.Prior documents as panics.
		{Category: "nil", Name: "Prior.Sample nil rand", Panics: func() { Prior{}.Sample(nil, make([]float64, 4)) }},
		{Category: "mismatched", Name: "Prior.Sample θ length 3", Panics: func() { Prior{}.Sample(r, make([]float64, 3)) }},
		{Category: "empty", Name: "Prior.Sample nil θ", Panics: func() { Prior{}.Sample(r, nil) }},
		{Category: "mismatched", Name: "Prior.LogDensity θ length 3", Check: func() error { return nanOrErr(Prior{}.LogDensity(th[:3])) }},
		{Category: "nan", Name: "Prior.LogDensity R1 NaN", Check: func() error { return nanOrErr(Prior{}.LogDensity(with(0, nan))) }},
	}
	testutil.RunBadInput(t, simulate.ErrInvalid, cases)
}

func nanOrErr(v float64) error {
	if !math.IsNaN(v) {
		return &nanError{v}
	}
	return nil
}

type nanError struct{ v float64 }

func (e *nanError) Error() string { return "want NaN" }
