package sbi

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestAtMatchesRetrained checks amortized use against training for the
// observation: on the test model (θ ~ N(0, 1), s | θ ~ N(θ, 0.5²),
// Laplace noise of scale 0.5), a one-round SPPE posterior trained on 2000
// prior simulations at the observation 1.2 and moved with At to the
// release −0.8 must be indistinguishable from a three-round SPPE
// posterior trained for −0.8: C2ST ≤ 0.55 on 1000 draws of each (chance
// is 0.5; the accuracy's sampling sd at this size is about 0.011). That
// the C2ST can tell a posterior off by half a standard deviation at this
// size is checked on the same draws: the At draws shifted by half their
// sd must score above 0.55.
func TestAtMatchesRetrained(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const (
		obs   = testObs
		other = -0.8
		n     = 1000
	)
	p := testProblem()
	amCfg := smallConfig()
	amCfg.Rounds, amCfg.SimsPerRound, amCfg.PosteriorSamples = 1, 2000, 100
	am, err := SPPE(t.Context(), p, amCfg)
	if err != nil {
		t.Fatal(err)
	}
	moved, err := am.Posterior.At([]float64{other})
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, n)
	if err := moved.Sample(rand.New(rand.NewPCG(21, 22)), n, x); err != nil {
		t.Fatal(err)
	}

	q := p
	q.Observed = []float64{other}
	seqCfg := smallConfig()
	seqCfg.Rounds, seqCfg.SimsPerRound, seqCfg.PosteriorSamples, seqCfg.Seed = 3, 500, n, 12
	seq, err := SPPE(t.Context(), q, seqCfg)
	if err != nil {
		t.Fatal(err)
	}
	y := seq.Draws.Theta

	c2, err := metrics.C2ST(x, y, 1, metrics.C2STOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	sd := math.Sqrt(stats.Variance(x))
	shifted := make([]float64, n)
	for i, v := range x {
		shifted[i] = v + 0.5*sd
	}
	c2shift, err := metrics.C2ST(shifted, y, 1, metrics.C2STOptions{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("At(%v) of the amortized posterior: mean %.3f sd %.3f; trained for %v in 3 rounds: mean %.3f sd %.3f; C2ST %.3f (shifted by sd/2: %.3f)",
		other, stats.Mean(x), sd, other, stats.Mean(y), math.Sqrt(stats.Variance(y)), c2, c2shift)
	if c2 > 0.55 {
		t.Errorf("amortized posterior at %v differs from the one trained for it: C2ST %.3f > 0.55", other, c2)
	}
	if c2shift <= 0.55 {
		t.Errorf("C2ST %.3f ≤ 0.55 for draws shifted by half a standard deviation: the check has no power", c2shift)
	}
}
