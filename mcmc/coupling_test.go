package mcmc

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"

	"github.com/privinfer/privinfer/internal/stats"
)

// TestCoupledSlotsMaximal checks the maximal coupling of two slot
// distributions: both marginals are right (chi-square, 0.1% false-alarm
// rate each) and P(I1 = I2) equals the overlap Σ min(p_i, q_i) within 4
// binomial standard errors.
func TestCoupledSlotsMaximal(t *testing.T) {
	lw1 := []float64{0, -1, -2, 0.5, -0.3}
	lw2 := []float64{-2, 0.2, -1, 0.5, 1}
	pc := newPairCoupler(5)
	for i := range pc.perm {
		pc.perm[i] = i
	}
	r := rand.New(rand.NewPCG(9, 9))
	const N = 200000
	c1, c2 := make([]float64, 5), make([]float64, 5)
	same := 0
	for range N {
		i, j, err := pc.coupledSlots(r, lw1, lw2)
		if err != nil {
			t.Fatal(err)
		}
		c1[i]++
		c2[j]++
		if i == j {
			same++
		}
	}
	p, q := make([]float64, 5), make([]float64, 5)
	_ = normLog(lw1, p)
	_ = normLog(lw2, q)
	over := 0.0
	e1, e2 := make([]float64, 5), make([]float64, 5)
	for i := range p {
		over += math.Min(p[i], q[i])
		e1[i], e2[i] = N*p[i], N*q[i]
	}
	if _, pv, _ := stats.ChiSquareGOF(c1, e1, 0); !(pv > 1e-3) {
		t.Errorf("chain-1 slot marginal: p = %v", pv)
	}
	if _, pv, _ := stats.ChiSquareGOF(c2, e2, 0); !(pv > 1e-3) {
		t.Errorf("chain-2 slot marginal: p = %v", pv)
	}
	se := math.Sqrt(over * (1 - over) / N)
	if got := float64(same) / N; math.Abs(got-over) > 4*se {
		t.Errorf("P(I1 = I2) = %v, want overlap %v", got, over)
	}
}

// TestCoupleDAStaysTogether checks that a pair started in the same state
// meets at the first iteration for every kernel (the couplings coincide
// when the two laws are equal).
func TestCoupleDAStaysTogether(t *testing.T) {
	p, nig := nigProblem(t, 3)
	for _, k := range []RecordStep{RandomScanIMwG, SystematicScanIMwG, SOMA} {
		cr, err := CoupleDA(context.Background(), p, CouplingConfig{RecordStep: k, Pairs: 8, MaxIter: 5, Seed: 1,
			InitPair: func(_ int, r *rand.Rand, th1, x1, th2, x2 []float64) error {
				nig.Sample(r, th1)
				for i := range len(x1) / 3 {
					nig.SampleRecord(r, th1, x1[3*i:3*i+3])
				}
				copy(th2, th1)
				copy(x2, x1)
				return nil
			}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tm := range cr.Times {
			if tm != 1 {
				t.Errorf("%v: identical starts met at %d", k, tm)
			}
		}
	}
	// Progress: one event per finished pair, Stage "pair", ending at Pairs.
	var steps []int
	_, err := CoupleDA(context.Background(), p, CouplingConfig{RecordStep: SOMA, Pairs: 5, MaxIter: 3, Seed: 2,
		InitPair: priorPair(nig),
		Progress: func(e privinfer.Progress) {
			if e.Stage != "pair" || e.Total != 5 {
				t.Errorf("event %+v, want stage pair of 5", e)
			}
			steps = append(steps, e.Step)
		}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(steps, []int{1, 2, 3, 4, 5}) {
		t.Errorf("progress steps %v, want 1..5", steps)
	}
	if _, err := CoupleDA(context.Background(), p, CouplingConfig{RecordStep: SOMA, Pairs: 0, MaxIter: 1}); err == nil {
		t.Error("zero pairs accepted")
	}
}
