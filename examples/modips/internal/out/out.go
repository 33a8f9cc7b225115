// Package out writes the curve studies of the modips examples as CSV, SVG
// and PNG files.
package out

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/privinfer/privinfer/examples/internal/plot"
	"github.com/privinfer/privinfer/synth/study"
)

// CSV writes the points to path.
func CSV(path string, pts []study.Point) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	w.Write([]string{"scenario", "m", "w", "reps", "bias", "sd_est", "emp_sd", "orig_sd", "cp", "half_width", "orig_half_width"})
	for _, p := range pts {
		w.Write([]string{p.Scenario, strconv.Itoa(p.M), g(p.W), strconv.Itoa(p.Reps), g(p.Bias), g(p.SDEst), g(p.EmpSD), g(p.OrigSD), g(p.CP), g(p.Half), g(p.OrigHalf)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Metric selects a y value of a point.
type Metric struct {
	Name  string
	Value func(study.Point) float64
	Ref   []float64 // horizontal reference lines
}

// SVGs draws one line chart per metric and group, one curve per scenario,
// with x given by xval, into dir/prefix_<group>_<metric>.svg and .png. group
// assigns each point to a chart.
func SVGs(dir, prefix, xlabel string, logX bool, pts []study.Point, group func(study.Point) string, xval func(study.Point) float64, metrics []Metric) error {
	var groups []string
	byGroup := map[string][]study.Point{}
	for _, p := range pts {
		g := group(p)
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], p)
	}
	for _, g := range groups {
		var order []string
		by := map[string][]study.Point{}
		for _, p := range byGroup[g] {
			if _, ok := by[p.Scenario]; !ok {
				order = append(order, p.Scenario)
			}
			by[p.Scenario] = append(by[p.Scenario], p)
		}
		for _, m := range metrics {
			var ss []plot.Series
			for _, sc := range order {
				s := plot.Series{Name: sc}
				ps := append([]study.Point(nil), by[sc]...)
				sort.SliceStable(ps, func(i, j int) bool { return xval(ps[i]) < xval(ps[j]) })
				for _, p := range ps {
					s.X = append(s.X, xval(p))
					s.Y = append(s.Y, m.Value(p))
				}
				ss = append(ss, s)
			}
			c, err := plot.LineChart{Title: g + ": " + m.Name, XLabel: xlabel, YLabel: m.Name, LogX: logX, Series: ss, HLines: m.Ref, Width: 900, Height: 560}.Draw()
			if err != nil {
				return fmt.Errorf("%s %s: %w", g, m.Name, err)
			}
			base := filepath.Join(dir, prefix+"_"+g+"_"+m.Name)
			for _, ext := range []string{".svg", ".png"} {
				f, err := os.Create(base + ext)
				if err != nil {
					return err
				}
				if ext == ".svg" {
					err = c.WriteSVG(f)
				} else {
					err = c.WritePNG(f)
				}
				if cerr := f.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					return err
				}
			}
		}
	}
	return nil
}
