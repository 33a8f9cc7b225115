package sbi

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// countSim returns a fixed infected count per time point scaled by θ.
type countSim struct{ k float64 }

func (countSim) StatDim() int { return 2 }
func (c countSim) Simulate(_ *rand.Rand, theta, dst []float64) error {
	dst[0] = c.k * 0.3
	dst[1] = c.k * 0.01
	return nil
}

// TestDequantizedLattice checks that SPLE trains on dequantized releases of
// a lattice mechanism: every training row lies within half a grid step of
// a grid point c/n, the offsets cover the cell (not all zero), while SPPE
// (which conditions on the release) keeps the releases on the grid.
func TestDequantizedLattice(t *testing.T) {
	const n, K = 100, 1000
	mech, err := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: n, Inflation: 10 * n, Population: K, Times: 2})
	if err != nil {
		t.Fatal(err)
	}
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	p := privinfer.Problem{Prior: prior, Simulator: countSim{K}, Mechanism: mech, Observed: []float64{0.3, 0.01}}
	for _, role := range []Role{LikelihoodFlow, PosteriorFlow} {
		o := smallConfig()
		e, err := newEngine(p, &o, role)
		if err != nil {
			t.Fatal(err)
		}
		th, _ := e.priorDraws(50, 1)
		stats := make([]float64, 0, 100)
		lp := make([]float64, 50)
		for range 50 {
			stats = append(stats, 0.3*K, 0.01*K)
		}
		e.ds = &data{d: 1, sd: 2, nd: 2}
		e.ds.add(th, stats, lp, 50, 0, rand.New(rand.NewPCG(1, 1)))
		var b batch
		idx := make([]int, 50)
		for i := range idx {
			idx[i] = i
		}
		kind, col := lossPLE, &b.y
		if role == PosteriorFlow {
			kind, col = lossNPE, &b.z
		}
		e.build(&b, idx, kind, rand.New(rand.NewPCG(2, 2)))
		maxOff, sumAbs := 0.0, 0.0
		for _, v := range *col {
			off := v*n - math.Round(v*n)
			maxOff = math.Max(maxOff, math.Abs(off))
			sumAbs += math.Abs(off)
		}
		meanAbs := sumAbs / float64(len(*col))
		t.Logf("role %d: %d values, max |offset| %.3f, mean |offset| %.3f grid steps", role, len(*col), maxOff, meanAbs)
		if role == LikelihoodFlow {
			// Uniform offsets on (−½, ½): mean |offset| ¼ (sd of the mean
			// of 800 values ≈ 0.005).
			if e.deq != 1.0/n || maxOff > 0.5 || math.Abs(meanAbs-0.25) > 0.05 {
				t.Errorf("SPLE rows: spacing %v, max offset %.3f, mean |offset| %.3f; want 1/n, ≤ 0.5, ≈ 0.25", e.deq, maxOff, meanAbs)
			}
		} else if e.deq != 0 || maxOff > 1e-9 {
			t.Errorf("SPPE contexts: spacing %v, max offset %.3g; want 0 and on the grid", e.deq, maxOff)
		}
	}
}
