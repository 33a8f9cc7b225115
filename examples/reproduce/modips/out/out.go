// Package out groups the points of the modips curve studies by scenario
// and writes them as CSV and line charts (SVG and PNG).
package out

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/privinfer/privinfer/examples/reproduce/modips/study"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
)

// Scenarios returns the scenarios of pts in order of first appearance and
// the points of each, in their order.
func Scenarios(pts []study.Point) (order []string, by map[string][]study.Point) {
	by = map[string][]study.Point{}
	for _, p := range pts {
		if _, ok := by[p.Scenario]; !ok {
			order = append(order, p.Scenario)
		}
		by[p.Scenario] = append(by[p.Scenario], p)
	}
	return order, by
}

// Metric selects a y value of a point.
type Metric struct {
	Name  string
	Value func(study.Point) float64
	Ref   []float64 // horizontal reference lines
}

// Write writes the points to prefix.csv in the output directory and draws
// one line chart per group and metric, one curve per scenario over x given
// by xval, as prefix_<group>_<metric>.svg and .png; group assigns each
// point to a chart. It does nothing when -out is empty.
func Write(c *cli.Common, prefix, xlabel string, logX bool, pts []study.Point, group func(study.Point) string, xval func(study.Point) float64, metrics []Metric) error {
	rows := make([][]string, len(pts))
	for i, p := range pts {
		rows[i] = append([]string{p.Scenario, strconv.Itoa(p.M)}, cli.FloatRow(p.W, float64(p.Reps), p.Bias, p.SDEst, p.EmpSD, p.OrigSD, p.CP, p.Half, p.OrigHalf)...)
	}
	if _, err := c.WriteCSV(prefix+".csv", []string{"scenario", "m", "w", "reps", "bias", "sd_est", "emp_sd", "orig_sd", "cp", "half_width", "orig_half_width"}, rows); err != nil || c.Out == "" {
		return err
	}
	groups, byGroup := []string{}, map[string][]study.Point{}
	for _, p := range pts {
		g := group(p)
		if _, ok := byGroup[g]; !ok {
			groups = append(groups, g)
		}
		byGroup[g] = append(byGroup[g], p)
	}
	for _, g := range groups {
		order, by := Scenarios(byGroup[g])
		for _, m := range metrics {
			var ss []plot.Series
			for _, sc := range order {
				s := plot.Series{Name: sc}
				ps := by[sc]
				sort.SliceStable(ps, func(i, j int) bool { return xval(ps[i]) < xval(ps[j]) })
				for _, p := range ps {
					s.X, s.Y = append(s.X, xval(p)), append(s.Y, m.Value(p))
				}
				ss = append(ss, s)
			}
			cv, err := plot.LineChart{Title: g + ": " + m.Name, XLabel: xlabel, YLabel: m.Name, LogX: logX, Series: ss, HLines: m.Ref, Width: 900, Height: 560}.Draw()
			if err != nil {
				return fmt.Errorf("%s %s: %w", g, m.Name, err)
			}
			if _, err := c.WritePlot(prefix+"_"+g+"_"+m.Name, cv); err != nil {
				return err
			}
		}
	}
	return nil
}
