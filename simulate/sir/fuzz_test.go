package sir

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/simulate"
)

// FuzzSIR feeds arbitrary configurations and parameters to the SIR
// simulators: construction either fails with an error or every simulation
// returns an error or a trajectory of integers in [0, K], never a panic or
// NaN.
func FuzzSIR(f *testing.F) {
	f.Add(int64(100), int64(1), 0.0, 5.0, 10.0, -0.5, -3.0, false)
	f.Add(int64(1), int64(1), 0.0, 0.0, 1.0, 10.0, -10.0, true)
	f.Add(int64(50), int64(60), 1.0, 0.5, 2.0, 0.1, 0.1, true)
	f.Add(int64(0), int64(0), 0.0, 1.0, 2.0, math.NaN(), 1.0, false)
	f.Add(int64(30), int64(3), 3.0, 2.0, 1.0, 1.0, 1.0, true)
	f.Fuzz(func(t *testing.T, k, i0 int64, t0, t1, t2, a, b float64, rates bool) {
		if k > 5000 || t2 > 1e4 || t1 > 1e4 || t0 > 1e4 || a > 5 || b > 5 {
			t.Skip("keep fuzz runs short")
		}
		cfg := Config{K: k, I0: i0, Times: []float64{t0, t1, t2}, Output: Counts}
		if rates {
			cfg.Param = Rates
		}
		g, err := New(cfg)
		if err != nil {
			return
		}
		tl, _ := NewTauLeap(cfg, 0.5)
		od, _ := NewODE(cfg, 1e-6)
		r := rand.New(rand.NewPCG(1, 2))
		for _, sim := range []simulate.Simulator{g, tl, od} {
			dst := make([]float64, 3)
			if err := sim.Simulate(r, []float64{a, b}, dst); err != nil {
				continue
			}
			for _, v := range dst {
				if math.IsNaN(v) || v < -1e-9 || v > float64(k)*(1+1e-9) {
					t.Fatalf("%T: output %v outside [0, K=%d]", sim, dst, k)
				}
			}
		}
	})
}
