package simulate_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// TestRecordsState checks the data-augmentation state: after simulate.NewRecords
// the statistic equals MeanStat.Simulate on the same stream bit for bit;
// StatWith predicts Replace; and after 1000 replacements the running
// statistic agrees with a recomputation to 1e-13.
func TestRecordsState(t *testing.T) {
	m := linreg.Paper()
	theta := linreg.PaperTheta()
	st, err := simulate.NewRecords(m, linreg.PaperN, rand.New(rand.NewPCG(3, 4)), theta)
	if err != nil {
		t.Fatal(err)
	}
	sim, _ := simulate.NewMeanStat(m, linreg.PaperN)
	want := make([]float64, 9)
	_ = sim.Simulate(rand.New(rand.NewPCG(3, 4)), theta, want)
	got := make([]float64, 9)
	st.Stat(got)
	for k := range got {
		if got[k] != want[k] {
			t.Fatalf("coordinate %d: %v vs %v", k, got[k], want[k])
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	rec := make([]float64, 3)
	pred := make([]float64, 9)
	for it := range 1000 {
		m.SampleRecord(r, theta, rec)
		i := it % linreg.PaperN
		st.StatWith(i, rec, pred)
		st.Replace(i, rec)
		st.Stat(got)
		for k := range got {
			if math.Abs(got[k]-pred[k]) > 1e-15 {
				t.Fatalf("StatWith %v vs Replace %v", pred[k], got[k])
			}
		}
	}
	st.Stat(got)
	if err := simulate.MeanContribution(m, st.Data(), want); err != nil {
		t.Fatal(err)
	}
	for k := range got {
		if math.Abs(got[k]-want[k]) > 1e-13 {
			t.Errorf("running statistic drifted: %v vs %v", got[k], want[k])
		}
	}
	if _, err := simulate.NewRecords(m, 10, r, []float64{1}); !errors.Is(err, simulate.ErrInvalidTheta) {
		t.Errorf("bad θ: %v", err)
	}
}
