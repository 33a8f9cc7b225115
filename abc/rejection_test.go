package abc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/simulate"
)

func TestRejectionVariants(t *testing.T) {
	p, err := privateNormalMean()
	if err != nil {
		t.Fatal(err)
	}
	em, esd := exactPrivatePosterior()
	t.Run("tolerance", func(t *testing.T) {
		res, err := Rejection(context.Background(), p, RejectionConfig{Distance: Euclidean{}, Tolerance: 0.05, Simulations: 100000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		n := res.Draws.Len()
		m, v := 0.0, 0.0
		for i := 0; i < n; i++ {
			m += res.Draws.Row(i)[0]
		}
		m /= float64(n)
		for i := 0; i < n; i++ {
			d := res.Draws.Row(i)[0] - m
			v += d * d
		}
		sd := math.Sqrt(v / float64(n-1))
		t.Logf("accepted %d of %d: mean %.4f (exact %.4f), sd %.4f (exact %.4f)", n, res.Simulations, m, em, sd, esd)
		// About 2000 independent draws: se of the mean ≈ 0.013, of the sd
		// ≈ 0.0095; ABC bias at ε = 0.05 below 0.005. Limits of 4.5 se.
		if res.Simulations != 100000 || math.Abs(m-em) > 0.06 || math.Abs(sd-esd) > 0.045 {
			t.Fatalf("mean %v sd %v", m, sd)
		}
		for _, d := range res.Distance {
			if d > 0.05 {
				t.Fatal("accepted distance above tolerance")
			}
		}
	})
	t.Run("until-accepted", func(t *testing.T) {
		res, err := Rejection(context.Background(), p, RejectionConfig{Distance: Euclidean{}, Tolerance: 0.05, Accept: 100, Simulations: 100000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		full, _ := Rejection(context.Background(), p, RejectionConfig{Distance: Euclidean{}, Tolerance: 0.05, Simulations: res.Simulations, Seed: 1})
		// The first 100 acceptances in draw order are the same draws.
		if res.Draws.Len() != 100 || full.Draws.Len() != 100 || res.Draws.Theta[99] != full.Draws.Theta[99] {
			t.Fatalf("accepted %d after %d simulations; full run accepted %d", res.Draws.Len(), res.Simulations, full.Draws.Len())
		}
	})
	t.Run("nearest", func(t *testing.T) {
		res, err := Rejection(context.Background(), p, RejectionConfig{Distance: Euclidean{}, Accept: 50, Simulations: 5000, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		if res.Draws.Len() != 50 || res.Tolerance != res.Distance[49] {
			t.Fatalf("accepted %d, tolerance %v", res.Draws.Len(), res.Tolerance)
		}
		all, _ := SimulatePrior(context.Background(), p, Euclidean{}, 5000, 2, PublicObservation)
		below := 0
		for _, d := range all.Distance {
			if d <= res.Tolerance {
				below++
			}
		}
		if below != 50 {
			t.Fatalf("%d draws within the nearest-50 tolerance", below)
		}
	})
}

func TestSimulatorErrorAborts(t *testing.T) {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	p := privinfer.Problem{Prior: prior, Simulator: failing{at: 2}, Observed: []float64{0}}
	ctx := context.Background()
	_, err := SMC(ctx, p, SMCConfig{Distance: Euclidean{}, Particles: 500, Schedule: ToleranceList{0.5, 0.1, 0.01}, Seed: 1})
	var se *simulate.RowError
	if !errors.Is(err, errBoom) || !errors.As(err, &se) || !(se.Theta[0] > 2) {
		t.Fatalf("SMC err = %v", err)
	}
	if _, err := Rejection(ctx, p, RejectionConfig{Distance: Euclidean{}, Tolerance: 0.1, Simulations: 1000}); !errors.Is(err, errBoom) {
		t.Fatalf("Rejection err = %v", err)
	}
	if _, err := ABCDP(ctx, p, ABCDPConfig{EpsTotal: 1, EpsABC: 0.1, C: 1, Sensitivity: 0.1, Distance: Euclidean{}, Simulations: 1000, Seed: 1}); !errors.Is(err, errBoom) {
		t.Fatalf("ABCDP err = %v", err)
	}
	// A simulator whose output the distance cannot use (NaN) is an error
	// too, not a NaN particle: the *RowError of the first row.
	p.Simulator = nanSim{}
	_, err = SMC(ctx, p, SMCConfig{Distance: Euclidean{}, Particles: 5, Schedule: ToleranceList{1}})
	var re *simulate.RowError
	if !errors.Is(err, simulate.ErrNonFinite) || !errors.As(err, &re) || re.Index != 0 || !errors.As(err, &se) {
		t.Fatalf("NaN statistic: err = %v", err)
	}
}

type nanSim struct{}

func (nanSim) StatDim() int { return 1 }
func (nanSim) Simulate(_ *rand.Rand, _, dst []float64) error {
	dst[0] = math.NaN()
	return nil
}
