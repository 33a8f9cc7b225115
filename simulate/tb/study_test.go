package tb

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestOutbreakDistance checks the weighted distance on hand-computed cases.
func TestOutbreakDistance(t *testing.T) {
	y := SanFrancisco()
	if d := OutbreakDistance(y, y); d != 0 {
		t.Errorf("d(y, y) = %v", d)
	}
	x := append([]float64(nil), y...)
	x[StatObserved] += 3 // also moves both proportions
	x[StatLargest] += 2
	x[StatMonths] -= 1
	x[StatDiversity] = 0 // not used
	p1 := (282/476.0 - 282/473.0) / (282 / 473.0)
	p2 := (20/476.0 - 20/473.0) / (20 / 473.0)
	want := math.Sqrt(9 + 16 + 100 + 1e4*p1*p1 + 1e4*p2*p2)
	if d := OutbreakDistance(x, y); math.Abs(d-want) > 1e-12*want {
		t.Errorf("d = %v, want %v", d, want)
	}
	// No observed pairs: the simulated proportion itself.
	y2 := append([]float64(nil), y...)
	y2[StatPairs] = 0
	want = 100 * 20 / 473.0
	if d := OutbreakDistance(y, y2); math.Abs(d-want) > 1e-12*want {
		t.Errorf("d with no observed pairs = %v, want %v", d, want)
	}
	// Nothing observed in the simulation.
	z := make([]float64, NumStats)
	if d := OutbreakDistance(z, y); math.IsNaN(d) || math.IsInf(d, 0) {
		t.Errorf("empty simulation: d = %v", d)
	}
	if d := OutbreakDistance(y[:3], y); !math.IsNaN(d) {
		t.Errorf("short x: %v", d)
	}
}

// TestDistanceSensitivity checks that replacing one of n observed outbreaks
// changes the clipped mean distance by at most Clip/n, on random simulated
// studies including outbreaks far from each other.
func TestDistanceSensitivity(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	o, _ := NewOutbreak(Config{})
	const n = 6
	st, err := NewStudy(o, n)
	if err != nil {
		t.Fatal(err)
	}
	d := Distance{Clip: 200}
	if s := d.Sensitivity(n); s != 200.0/n {
		t.Fatalf("sensitivity %v", s)
	}
	r := rand.New(rand.NewPCG(51, 52))
	var p Prior
	th := make([]float64, 4)
	x, y := make([]float64, st.StatDim()), make([]float64, st.StatDim())
	worst := 0.0
	for range 20 {
		p.Sample(r, th)
		if err := st.Simulate(r, th, x); err != nil {
			t.Fatal(err)
		}
		p.Sample(r, th)
		if err := st.Simulate(r, th, y); err != nil {
			t.Fatal(err)
		}
		base := d.Distance(x, y)
		y2 := append([]float64(nil), y...)
		copy(y2[2*NumStats:3*NumStats], SanFrancisco())
		ch := math.Abs(d.Distance(x, y2) - base)
		worst = math.Max(worst, ch)
		if ch > 200.0/n*(1+1e-12) {
			t.Fatalf("one replaced outbreak moved the distance by %v > %v", ch, 200.0/n)
		}
		if !(base >= 0 && base <= 200) {
			t.Fatalf("distance %v outside [0, Clip]", base)
		}
	}
	t.Logf("largest change %.2f of the bound %.2f", worst, 200.0/n)
	if v := (Distance{}).Distance(x, y); !(v >= 0) {
		t.Errorf("unclipped distance %v", v)
	}
	for _, c := range []struct {
		d    Distance
		x, y []float64
	}{{d, x, y[:NumStats]}, {d, nil, nil}, {d, x[:5], y[:5]}, {Distance{Clip: -1}, x, y}, {Distance{Clip: math.NaN()}, x, y}} {
		if v := c.d.Distance(c.x, c.y); !math.IsNaN(v) {
			t.Errorf("bad input gave %v, want NaN", v)
		}
	}
	if !math.IsInf((Distance{}).Sensitivity(3), 1) || !math.IsNaN(d.Sensitivity(0)) {
		t.Error("sensitivity edge cases")
	}
}

// TestStudyMatchesOutbreaks checks that a study is its outbreaks drawn in
// order from the same stream.
func TestStudyMatchesOutbreaks(t *testing.T) {
	o, _ := NewOutbreak(Config{})
	st, _ := NewStudy(o, 3)
	a := make([]float64, st.StatDim())
	if err := st.Simulate(rand.New(rand.NewPCG(7, 8)), PaperTheta(), a); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	b := make([]float64, NumStats)
	for j := range 3 {
		if err := o.Simulate(r, PaperTheta(), b); err != nil {
			t.Fatal(err)
		}
		for k := range b {
			if a[j*NumStats+k] != b[k] {
				t.Fatalf("outbreak %d differs: %v vs %v", j, a[j*NumStats:(j+1)*NumStats], b)
			}
		}
	}
	if st.N() != 3 || st.StatDim() != 3*NumStats {
		t.Error("sizes")
	}
}
