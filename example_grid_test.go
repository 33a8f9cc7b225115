package privinfer_test

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer"
)

// A grid posterior for checking: the Beta(2, 3) prior updated by 7
// successes in 10 trials, whose exact posterior is Beta(9, 6) (mean 0.6,
// P(p ≤ 0.5) = 0.2120).
func ExampleGrid() {
	logPost := func(theta []float64) float64 {
		p := theta[0]
		return math.Log(p) + 2*math.Log1p(-p) + 7*math.Log(p) + 3*math.Log1p(-p)
	}
	d, err := privinfer.Grid(logPost, privinfer.GridConfig{Lo: []float64{0}, Hi: []float64{1}, Names: []string{"p"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("mean %.4f, median %.4f, P(p ≤ 0.5) = %.4f\n", d.Mean()[0], d.Quantile(0, 0.5), d.CDF(0, 0.5))
	// Output:
	// mean 0.6000, median 0.6046, P(p ≤ 0.5) = 0.2120
}

// The summary table with the columns an analysis reports: the 10% and 90%
// quantiles and the posterior probabilities P(p ≤ 0.5) and P(p ≤ 0.75).
func ExampleDraws_SummaryWith() {
	logPost := func(theta []float64) float64 { return 8*math.Log(theta[0]) + 5*math.Log1p(-theta[0]) } // Beta(9, 6)
	d, _ := privinfer.Grid(logPost, privinfer.GridConfig{Lo: []float64{0}, Hi: []float64{1}, Names: []string{"p"}})
	s, err := d.SummaryWith(privinfer.SummaryConfig{QuantileProbs: []float64{0.1, 0.9}, Thresholds: []float64{0.5, 0.75}})
	if err != nil {
		fmt.Println(err)
		return
	}
	row, _ := s.Row("p")
	fmt.Printf("10%%–90%%: %.3f–%.3f, P(p ≤ 0.5) = %.3f, P(p ≤ 0.75) = %.3f\n", row.Quantiles[0], row.Quantiles[1], row.Below[0], row.Below[1])
	// Output:
	// 10%–90%: 0.437–0.757, P(p ≤ 0.5) = 0.212, P(p ≤ 0.75) = 0.888
}
