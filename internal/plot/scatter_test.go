package plot

import (
	"math"
	"slices"
	"testing"
)

// TestScatterRows checks the scatter selection: strided for unweighted
// samples, systematic by weight otherwise (weights 3, 1, 0, NaN and
// points ⅛, ⅜, ⅝, ⅞ of the cumulative weights 0.75, 1: rows 0, 0, 0, 1).
func TestScatterRows(t *testing.T) {
	rows := [][]float64{{0}, {1}, {2}, {3}, {4}}
	if got := scatterRows(Sample{Rows: rows}, 2); !slices.Equal(got, []int{0, 2, 4}) {
		t.Errorf("unweighted = %v", got)
	}
	w := []float64{3, 1, 0, math.NaN(), 0}
	if got := scatterRows(Sample{Rows: rows, Weights: w}, 4); !slices.Equal(got, []int{0, 0, 0, 1}) {
		t.Errorf("weighted = %v", got)
	}
	if got := scatterRows(Sample{Rows: rows, Weights: make([]float64, 5)}, 4); got != nil {
		t.Errorf("zero weights = %v", got)
	}
}
