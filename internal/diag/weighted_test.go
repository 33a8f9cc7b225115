package diag

import (
	"encoding/csv"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestMCSESDReference compares MCSESD with ArviZ's delta-method formula as
// implemented independently in testdata/gen_diagnostics.py.
func TestMCSESDReference(t *testing.T) {
	cases, _ := readDiagCases(t)
	f, err := os.Open("testdata/diag_mcse_sd.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(cases)+1 {
		t.Fatalf("%d reference rows for %d cases", len(rows)-1, len(cases))
	}
	for _, r := range rows[1:] {
		want, _ := strconv.ParseFloat(r[1], 64)
		got, err := MCSESD(cases[r[0]])
		if err != nil {
			t.Fatalf("%s: %v", r[0], err)
		}
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: MCSESD = %.15g, reference %.15g", r[0], got, want)
		}
	}
	if v, err := MCSESD([][]float64{{1, 1, 1, 1, 1, 1}}); !math.IsNaN(v) || !errors.Is(err, ErrDegenerate) {
		t.Errorf("constant chain: %v, %v", v, err)
	}
	// ±1 alternating: every squared deviation is 1, the sd is exact.
	if v, err := MCSESD([][]float64{{-1, 1, -1, 1, -1, 1, -1, 1}}); v != 0 || err != nil {
		t.Errorf("alternating chain: %v, %v", v, err)
	}
}

func TestQuantileHandComputed(t *testing.T) {
	xs, ws, err := Sorted([]float64{5, 1, 4, 2, 3}, nil)
	if err != nil || ws != nil {
		t.Fatal(err, ws)
	}
	// Type 7: h = 4·0.3 = 1.2 → 2 + 0.2·(3 − 2).
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.3, 2.2}, {0.5, 3}, {0.9, 4.6}, {1, 5}} {
		if got := Quantile(xs, ws, c.p); math.Abs(got-c.want) > 1e-14 {
			t.Errorf("type-7 Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	// Equal non-nil weights are the type-7 case too.
	if _, ws, _ := Sorted([]float64{3, 1, 2}, []float64{2, 2, 2}); ws != nil {
		t.Errorf("equal weights kept: %v", ws)
	}
	// Weights 0.2, 0.3, 0.5 (given as 2, 3, 5 with a zero-weight and a
	// NaN value dropped) place 1, 2, 3 at 0.1, 0.35, 0.75.
	xs, ws, err = Sorted([]float64{3, 9, 1, math.NaN(), 2}, []float64{5, 0, 2, 1, 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(xs) != 3 || math.Abs(ws[0]-0.2) > 1e-15 || math.Abs(ws[2]-0.5) > 1e-15 {
		t.Fatalf("Sorted = %v, %v", xs, ws)
	}
	for _, c := range []struct{ p, want float64 }{{0, 1}, {0.1, 1}, {0.2, 1.4}, {0.35, 2}, {0.5, 2.375}, {0.75, 3}, {1, 3}} {
		if got := Quantile(xs, ws, c.p); math.Abs(got-c.want) > 1e-14 {
			t.Errorf("weighted Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(Quantile(xs, ws, p)) {
			t.Errorf("Quantile(%v) not NaN", p)
		}
	}
	for _, w := range [][]float64{{1, -1, 1, 1, 1}, {1, math.Inf(1), 1, 1, 1}, {0, 0, 0, 0, 0}, {1, 2}} {
		if _, _, err := Sorted([]float64{1, 2, 3, 4, 5}, w); !errors.Is(err, ErrDegenerate) {
			t.Errorf("weights %v: %v", w, err)
		}
	}
}

// TestWeightedQuantileConsistent importance-weights U(0,1) draws by 2x
// (the Beta(2,1) density, CDF x²): the weighted quantiles converge to
// √p. With n = 200,000 the standard error of each is below 0.002; the
// tolerance 0.01 is five of them (false-alarm rate below 1e-6; fixed seed).
func TestWeightedQuantileConsistent(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	r := rand.New(rand.NewPCG(1, 2))
	n := 200000
	x := make([]float64, n)
	w := make([]float64, n)
	for i := range x {
		x[i] = r.Float64()
		w[i] = 2 * x[i]
	}
	xs, ws, err := Sorted(x, w)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []float64{0.05, 0.25, 0.5, 0.9} {
		if got := Quantile(xs, ws, p); math.Abs(got-math.Sqrt(p)) > 0.01 {
			t.Errorf("weighted quantile %v = %v, want %v", p, got, math.Sqrt(p))
		}
	}
	// The 90% HDI of Beta(2,1) is [√0.1, 1].
	lo, hi := HDI(xs, ws, 0.9)
	if math.Abs(lo-math.Sqrt(0.1)) > 0.01 || hi < 0.99 {
		t.Errorf("weighted HDI = [%v, %v], want [%v, 1]", lo, hi, math.Sqrt(0.1))
	}
}

func TestHDIHandComputed(t *testing.T) {
	// ArviZ's rule: ⌊0.6·5⌋ = 3, widths x[3]−x[0] = 3, x[4]−x[1] = 9.
	lo, hi := HDI([]float64{0, 1, 2, 3, 10}, nil, 0.6)
	if lo != 0 || hi != 3 {
		t.Errorf("HDI = [%v, %v], want [0, 3]", lo, hi)
	}
	// Weighted: [1, 2] holds 0.8 with width 1; [0, 2] holds 0.9, width 2.
	lo, hi = HDI([]float64{0, 1, 2, 10}, []float64{0.1, 0.4, 0.4, 0.1}, 0.8)
	if lo != 1 || hi != 2 {
		t.Errorf("weighted HDI = [%v, %v], want [1, 2]", lo, hi)
	}
	// Ties go to the leftmost interval.
	lo, hi = HDI([]float64{0, 1, 2, 3}, nil, 0.5)
	if lo != 0 || hi != 2 {
		t.Errorf("tied HDI = [%v, %v], want [0, 2]", lo, hi)
	}
	for _, p := range []float64{0, 1, math.NaN()} {
		if lo, hi := HDI([]float64{0, 1, 2}, nil, p); !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("HDI(%v) = [%v, %v], want NaN", p, lo, hi)
		}
	}
}
