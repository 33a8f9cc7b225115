package linregda_test

import (
	"context"
	"errors"
	"github.com/privinfer/privinfer/simulate/linreg"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/linregda"
)

// slidesTable holds the slides' n = 10 table (acceptance in percent,
// coupling time mean and convergence rate).
var slidesTable = map[float64]map[mcmc.RecordStep][3]float64{
	3:  {mcmc.RandomScanIMwG: {94.80, 156.04, 0.9937}, mcmc.SystematicScanIMwG: {94.81, 99.60, 0.9904}, mcmc.SOMA: {99.49, 152.98, 0.9937}},
	30: {mcmc.RandomScanIMwG: {50.95, 900.79, 0.9989}, mcmc.SystematicScanIMwG: {50.94, 549.07, 0.9982}, mcmc.SOMA: {91.91, 120.64, 0.9909}},
}

// TestSlidesN10Acceptance reproduces the acceptance rates of the slides'
// n = 10 table within ±0.5 percentage point for all three kernels at ε = 3
// and 30: 8 chains × 5,000 iterations by default (Monte Carlo standard
// error about 0.1 point, so the tolerance is about five standard errors),
// 8 × 10,000 as in the table's protocol under PRIVINFER_LONG=1.
func TestSlidesN10Acceptance(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	iters := 5000
	if os.Getenv(testutil.LongEnv) != "" {
		iters = 10000
	}
	for _, eps := range []float64{3, 30} {
		p, nig, err := linregda.SlidesN10(eps)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []mcmc.RecordStep{mcmc.RandomScanIMwG, mcmc.SystematicScanIMwG, mcmc.SOMA} {
			res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{ThetaStep: nig, RecordStep: k, Chains: 8, Draws: iters, Seed: 2026})
			if err != nil {
				t.Fatal(err)
			}
			got := 100 * res.AcceptRate()
			want := slidesTable[eps][k][0]
			t.Logf("eps=%v %-8v acceptance %.2f%% (slides %.2f%%)", eps, k, got, want)
			if math.Abs(got-want) > 0.5 {
				t.Errorf("eps=%v %v: acceptance %.2f%%, slides %.2f%% (±0.5)", eps, k, got, want)
			}
		}
	}
}

// TestSlidesN10Coupling estimates coupling times for the n = 10 setting
// and checks the table's qualitative ordering at ε = 30, which is far
// outside Monte Carlo error there: mcmc.SOMA couples several times faster than
// both IMwG scans, and systematic scan faster than random scan. The full
// comparison with the table (1000 pairs) runs under PRIVINFER_LONG=1 and
// in examples/reproduce/soma.
func TestSlidesN10Coupling(t *testing.T) {
	pairs := 60
	if testing.Short() {
		t.Skip("coupling: skipped in -short mode")
	}
	long := false
	if os.Getenv(testutil.LongEnv) != "" {
		pairs, long = 1000, true
	}
	for _, eps := range []float64{30, 3} {
		if eps == 3 && !long {
			continue
		}
		p, nig, err := linregda.SlidesN10(eps)
		if err != nil {
			t.Fatal(err)
		}
		means := map[mcmc.RecordStep]float64{}
		for _, k := range []mcmc.RecordStep{mcmc.RandomScanIMwG, mcmc.SystematicScanIMwG, mcmc.SOMA} {
			cr, err := mcmc.CoupleDA(context.Background(), p, mcmc.CouplingConfig{RecordStep: k, Pairs: pairs, MaxIter: 20000, Seed: 99,
				InitPair: linregda.SlidesN10CouplingInit(p, nig, 500)})
			if err != nil {
				t.Fatal(err)
			}
			q1, q3 := cr.Quartiles()
			ref := slidesTable[eps][k]
			t.Logf("eps=%v %-8v coupling %.1f (%.0f, %.0f) rate %.4f censored %d | slides %.2f rate %.4f",
				eps, k, cr.Mean(), q1, q3, cr.Rate(), cr.Censored, ref[1], ref[2])
			if cr.Censored > 0 {
				t.Errorf("%v: %d pairs did not couple", k, cr.Censored)
			}
			means[k] = cr.Mean()
		}
		if eps == 30 {
			if !(means[mcmc.SOMA]*2.5 < means[mcmc.SystematicScanIMwG] && means[mcmc.SystematicScanIMwG] < means[mcmc.RandomScanIMwG]) {
				t.Errorf("eps=30 coupling-time ordering mcmc.SOMA ≪ Sys < Ran violated: %v", means)
			}
		}
	}
}

// TestBadInput checks that the paper settings refuse an ε they do not
// have and that the coupling start refuses a zero-value model, with
// errors wrapping mcmc.ErrInvalid.
func TestBadInput(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	r := rand.New(rand.NewPCG(1, 2))
	slides := func(eps float64) func() error {
		return func() error { _, _, err := linregda.SlidesN10(eps); return err }
	}
	sbi := func(eps float64) func() error {
		return func() error { _, _, err := linregda.SBIPaper(eps); return err }
	}
	p3, nig3, err := linregda.SlidesN10(3)
	if err != nil {
		t.Fatal(err)
	}
	initWith := func(warm int, r *rand.Rand, n1, n2, m1, m2 int) func() error {
		return func() error {
			return linregda.SlidesN10CouplingInit(p3, nig3, warm)(0, r, make([]float64, n1), make([]float64, m1), make([]float64, n2), make([]float64, m2))
		}
	}
	testutil.RunBadInput(t, mcmc.ErrInvalid, []testutil.BadInput{
		{Category: "nonpositive", Name: "SlidesN10 eps 5", Err: slides(5)},
		{Category: "nan", Name: "SlidesN10 eps NaN", Err: slides(nan)},
		{Category: "inf", Name: "SlidesN10 eps Inf", Err: slides(inf)},
		{Category: "nonpositive", Name: "SBIPaper eps 0", Err: sbi(0)},
		{Category: "nan", Name: "SBIPaper eps NaN", Err: sbi(nan)},
		{Category: "inf", Name: "SBIPaper eps Inf", Err: sbi(inf)},
		{Category: "zerovalue", Name: "SlidesN10CouplingInit zero-value linreg.NIG", Err: func() error {
			p, _, err := linregda.SlidesN10(3)
			if err != nil {
				return errors.New("SlidesN10(3) failed")
			}
			x := make([]float64, 30)
			return linregda.SlidesN10CouplingInit(p, &linreg.NIG{}, 1)(0, r, make([]float64, 4), x, make([]float64, 4), x)
		}},
		{Category: "nil", Name: "SlidesN10CouplingInit nil linreg.NIG", Err: func() error {
			x := make([]float64, 30)
			return linregda.SlidesN10CouplingInit(privinfer.Problem{}, nil, 1)(0, r, make([]float64, 4), x, make([]float64, 4), x)
		}},
		{Category: "nil", Name: "SlidesN10CouplingInit nil rand", Err: initWith(1, nil, 4, 4, 30, 30)},
		{Category: "nonpositive", Name: "SlidesN10CouplingInit warm -1", Err: initWith(-1, r, 4, 4, 30, 30)},
		{Category: "mismatched", Name: "SlidesN10CouplingInit θ1 length 3", Err: initWith(1, r, 3, 4, 30, 30)},
		{Category: "empty", Name: "SlidesN10CouplingInit θ2 empty", Err: initWith(1, r, 4, 0, 30, 30)},
		{Category: "mismatched", Name: "SlidesN10CouplingInit records 30 and 27", Err: initWith(1, r, 4, 4, 30, 27)},
		{Category: "mismatched", Name: "SlidesN10CouplingInit records not a multiple of 3", Err: initWith(1, r, 4, 4, 29, 29)},
		{Category: "huge", Name: "SlidesN10 eps 1e308", Err: slides(1e308)},
		{Category: "subnormal", Name: "SBIPaper eps subnormal", Err: sbi(5e-324)},
	})
}
