package trials

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestParseRangeAndSeed(t *testing.T) {
	for _, c := range []struct {
		s      string
		lo, hi int
		ok     bool
	}{{"", 1, 10, true}, {"4-6", 4, 6, true}, {"7", 7, 7, true}, {"0-3", 0, 0, false}, {"5-4", 0, 0, false}, {"3-11", 0, 0, false}, {"x", 0, 0, false}} {
		lo, hi, err := ParseRange(c.s, 10)
		if (err == nil) != c.ok || lo != c.lo || hi != c.hi {
			t.Errorf("ParseRange(%q, 10) = %d, %d, %v", c.s, lo, hi, err)
		}
	}
	if Seed(5, 1) != 5 || Seed(5, 2) == Seed(5, 3) {
		t.Error("trial seeds")
	}
}

func TestQuartiles(t *testing.T) {
	m, q1, q3 := Quartiles([]float64{4, 1, 3, 2, 5, math.NaN(), math.Inf(1)})
	if m != 3 || q1 != 2 || q3 != 4 {
		t.Errorf("got %v %v %v", m, q1, q3)
	}
	m, q1, q3 = Quartiles([]float64{1, 2})
	if m != 1.5 || q1 != 1.25 || q3 != 1.75 {
		t.Errorf("got %v %v %v", m, q1, q3)
	}
	if m, _, _ := Quartiles([]float64{math.NaN()}); !math.IsNaN(m) {
		t.Error("no finite values")
	}
	if m, sd := MeanSD([]float64{1, 3}); m != 2 || math.Abs(sd-math.Sqrt2) > 1e-15 {
		t.Errorf("MeanSD %v %v", m, sd)
	}
}

func TestWriteCSV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "t.csv")
	if err := WriteCSV(path, []string{"a", "b"}, [][]string{{"1", "2"}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "a,b\n1,2\n" {
		t.Fatalf("read back %q, %v", b, err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestReadCSV reads back what WriteCSV wrote and refuses a missing file, a
// wrong header, a file without rows, a ragged row and a non-number.
func TestReadCSV(t *testing.T) {
	dir := t.TempDir()
	header := []string{"round", "mmd"}
	path := filepath.Join(dir, "ok.csv")
	if err := WriteCSV(path, header, [][]string{{"1", "0.25"}, {"2", "1e-3"}}); err != nil {
		t.Fatal(err)
	}
	rows, err := ReadCSV(path, header)
	if err != nil || len(rows) != 2 || rows[0][0] != 1 || rows[0][1] != 0.25 || rows[1][0] != 2 || rows[1][1] != 1e-3 {
		t.Fatalf("read %v, %v", rows, err)
	}
	if _, err := ReadCSV(filepath.Join(dir, "missing.csv"), header); err == nil {
		t.Error("missing file read")
	}
	if _, err := ReadCSV(path, []string{"round", "c2st"}); err == nil {
		t.Error("wrong header accepted")
	}
	for name, body := range map[string]string{
		"empty.csv":  "round,mmd\n",
		"ragged.csv": "round,mmd\n1,0.5\n2\n",
		"text.csv":   "round,mmd\n1,x\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if rows, err := ReadCSV(p, header); err == nil {
			t.Errorf("%s: read %v", name, rows)
		}
	}
}

// TestCurve checks the per-round summaries against hand-computed ones,
// with a shorter trial and a NaN that the summaries skip.
func TestCurve(t *testing.T) {
	mean, q1, q3 := Curve([][]float64{{1, 4, 7}, {2, 5}, {3, math.NaN()}, {4, 6}})
	want := [][]float64{{2.5, 5, 7}, {1.75, 4.5, 7}, {3.25, 5.5, 7}}
	for j, got := range [][]float64{mean, q1, q3} {
		if len(got) != 3 {
			t.Fatalf("%d rounds, want 3", len(got))
		}
		for i := range got {
			if math.Abs(got[i]-want[j][i]) > 1e-12 {
				t.Errorf("summary %d round %d: got %v, want %v", j, i+1, got[i], want[j][i])
			}
		}
	}
}
