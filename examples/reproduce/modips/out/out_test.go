package out

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/modips/study"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

func TestWrite(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	pts := []study.Point{
		{Scenario: "a", M: 2, CP: 0.9}, {Scenario: "b", M: 2, CP: 0.8}, {Scenario: "a", M: 10, CP: 0.95},
	}
	order, by := Scenarios(pts)
	if !slices.Equal(order, []string{"a", "b"}) || len(by["a"]) != 2 || by["a"][1].M != 10 {
		t.Fatalf("Scenarios: %v %v", order, by)
	}
	c := &cli.Common{Out: t.TempDir()}
	err := Write(c, "s", "m", true, pts, func(study.Point) string { return "g" }, func(p study.Point) float64 { return float64(p.M) },
		[]Metric{{Name: "cp", Value: func(p study.Point) float64 { return p.CP }, Ref: []float64{0.95}}})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(filepath.Join(c.Out, "s.csv"))
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 4 || rows[3][0] != "a" || rows[3][1] != "10" || rows[3][8] != "0.95" {
		t.Fatalf("csv rows %v %v", rows, err)
	}
	b, err := os.ReadFile(filepath.Join(c.Out, "s_g_cp.svg"))
	if err != nil || !strings.Contains(string(b), "<svg") {
		t.Fatalf("svg: %v", err)
	}
	if _, err := os.Stat(filepath.Join(c.Out, "s_g_cp.png")); err != nil {
		t.Fatal(err)
	}
}
