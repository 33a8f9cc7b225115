package study

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

// TestTable1Quick reruns every cell of Table 1 with 300 repetitions. A
// cell fails if our coverage differs from the paper's by more than
// 4.4 binomial standard errors of the difference (ours at 300
// repetitions, the paper's at 5000) plus 0.01 for the small systematic
// differences the long run shows. Per cell the false-alarm rate is about
// 1e-5, so about 0.2% over the 144 cells.
func TestTable1Quick(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	const reps = 300
	rows, err := Table1(context.Background(), Config{Seed: 11, Reps: reps})
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for _, r := range rows {
		for c := range r.Ours {
			p := r.Paper[c]
			se := math.Sqrt(math.Max(p*(1-p), 0.01*0.99) * (1.0/reps + 1.0/5000))
			d := math.Abs(r.Ours[c] - p)
			worst = math.Max(worst, d)
			if d > 4.4*se+0.01 {
				t.Errorf("binary=%v eps=%v n=%d p=%v %s: ours %.3f, paper %.3f (tolerance %.3f)",
					r.Binary, r.Eps, r.N, r.P, ColumnNames[c], r.Ours[c], p, 4.4*se+0.01)
			}
		}
	}
	t.Logf("max |ours − paper| over %d cells at %d repetitions: %.3f", len(rows)*int(NumColumns), reps, worst)
}

// TestTable1 is the paper-scale validation: 5000 repetitions per row, as
// in the paper. The paper's cells carry their own Monte Carlo error (sd ≈
// 0.006 for a coverage near 0.74 at 5000 repetitions, so the difference of
// two independent estimates has sd ≈ 0.009), and with every seed we tried
// (1–4) three or four of the 144 cells land between 0.015 and 0.027 away,
// all in the single-synthesis and (1+2/m)W columns whose coverages are far
// from 0.95 (e.g. binary ε = 100, n = 100, p = 0.5, single: the
// theoretical coverage is P(|Z| < 1.96/√3) ≈ 0.742 minus discreteness, our
// runs average 0.726 and 20 000 direct draws give 0.733; the paper prints
// 0.747). The test therefore requires every cell within ±0.015 or within
// three standard errors of the difference, and at most 6 cells beyond
// ±0.015 (the expected number under Monte Carlo error alone is about 4).
func TestTable1(t *testing.T) {
	if os.Getenv("PRIVINFER_LONG") == "" {
		t.Skip("long validation: set PRIVINFER_LONG=1 to run")
	}
	rows, err := Table1(context.Background(), Config{Seed: table1Seed, Reps: 5000})
	if err != nil {
		t.Fatal(err)
	}
	beyond := 0
	for _, r := range rows {
		for c := range r.Ours {
			p := r.Paper[c]
			d := math.Abs(r.Ours[c] - p)
			se := math.Sqrt(2 * math.Max(p*(1-p), 0.01*0.99) / 5000)
			status := ""
			if d > 0.015 {
				beyond++
				status = " (beyond ±0.015)"
			}
			if d > 0.015 && d > 3*se {
				t.Errorf("binary=%v eps=%v n=%d p=%v %s: ours %.3f, paper %.3f", r.Binary, r.Eps, r.N, r.P, ColumnNames[c], r.Ours[c], p)
			} else if status != "" {
				t.Logf("binary=%v eps=%v n=%d p=%v %s: ours %.3f, paper %.3f%s", r.Binary, r.Eps, r.N, r.P, ColumnNames[c], r.Ours[c], p, status)
			}
		}
	}
	if beyond > 6 {
		t.Errorf("%d cells beyond ±0.015", beyond)
	}
}

// table1Seed is the seed of the paper-scale validation.
const table1Seed = 1

// TestTable1MatchesShared checks the paper values compiled into this
// package against the shared reference file.
func TestTable1MatchesShared(t *testing.T) {
	var ref struct {
		Modips struct {
			Table1 struct {
				Binary   [][]float64 `json:"binary"`
				Gaussian [][]float64 `json:"gaussian"`
			} `json:"table1_coverage_m10"`
		} `json:"modips"`
	}
	path, ok := cli.SharedFile("reference/paper-values.json")
	if !ok {
		t.Skip("reference file reference/paper-values.json not found")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	sc := Table1Scenarios()
	bi, gi := 0, 0
	for _, s := range sc {
		var row []float64
		if s.Binary {
			row = ref.Modips.Table1.Binary[bi]
			bi++
			if row[0] != s.Eps || int(row[1]) != s.N || row[2] != s.P {
				t.Errorf("binary scenario %+v vs %v", s, row[:3])
			}
			row = row[3:]
		} else {
			row = ref.Modips.Table1.Gaussian[gi]
			gi++
			if row[0] != s.Eps || int(row[1]) != s.N {
				t.Errorf("gaussian scenario %+v vs %v", s, row[:2])
			}
			row = row[2:]
		}
		for c := range s.Paper {
			if s.Paper[c] != row[c] {
				t.Errorf("scenario %+v column %s: %v vs shared %v", s, ColumnNames[c], s.Paper[c], row[c])
			}
		}
	}
	if bi != len(ref.Modips.Table1.Binary) || gi != len(ref.Modips.Table1.Gaussian) {
		t.Errorf("row counts %d/%d vs shared %d/%d", bi, gi, len(ref.Modips.Table1.Binary), len(ref.Modips.Table1.Gaussian))
	}
}

// TestZ975 checks the normal quantile constant: Φ(z975) = 0.975.
func TestZ975(t *testing.T) {
	if p := 0.5 * math.Erfc(-z975/math.Sqrt2); math.Abs(p-0.975) > 1e-15 {
		t.Errorf("Φ(%v) = %v, want 0.975", z975, p)
	}
}
