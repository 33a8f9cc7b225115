package clitest

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

// TestPlotsAndProgress checks both directions: an empty directory, an SVG
// alone, and a broken PNG are refused; a plot written by cli.WritePlot is
// accepted; progress lines written by cli.Progress are counted and other
// lines are not.
func TestPlotsAndProgress(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir := t.TempDir()
	if _, err := Plots(dir); err == nil {
		t.Error("empty directory accepted")
	}
	cv, err := plot.LineChart{Title: "t", Series: []plot.Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, 2}}}}.Draw()
	if err != nil {
		t.Fatal(err)
	}
	c := cli.Common{Out: dir}
	if _, err := c.WriteFile("a.svg", cv.WriteSVG); err != nil {
		t.Fatal(err)
	}
	if _, err := Plots(dir); err == nil {
		t.Error("SVG without PNG accepted")
	}
	if err := os.WriteFile(filepath.Join(dir, "a.png"), []byte("\x89PNG broken"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Plots(dir); err == nil {
		t.Error("broken PNG accepted")
	}
	if _, err := c.WritePlot("a", cv); err != nil {
		t.Fatal(err)
	}
	if names, err := Plots(dir); err != nil || len(names) != 2 {
		t.Errorf("valid plot: %v, %v", names, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.svg"), []byte("not svg"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Plots(dir); err == nil {
		t.Error("invalid SVG accepted")
	}

	var b bytes.Buffer
	b.WriteString("warning: something\n")
	if n := ProgressLines(b.String()); n != 0 {
		t.Errorf("%d progress lines in %q", n, b.String())
	}
	p := cli.NewProgress(&b)
	p.Printf("stage %d", 1)
	p.Printf("stage %d", 2)
	if n := ProgressLines(b.String()); n != 2 {
		t.Errorf("%d progress lines in %q, want 2", n, b.String())
	}
}
