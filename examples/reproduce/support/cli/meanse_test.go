package cli

import (
	"math"
	"testing"
)

func TestMeanSE(t *testing.T) {
	// 1, 2, 3, 4: mean 2.5, sample variance 5/3, s.e. √(5/12).
	m, se := MeanSE([]float64{1, 2, 3, 4})
	if m != 2.5 || math.Abs(se-math.Sqrt(5.0/12)) > 1e-15 {
		t.Errorf("MeanSE(1..4) = %v, %v; want 2.5, %v", m, se, math.Sqrt(5.0/12))
	}
	if m, se := MeanSE([]float64{7}); m != 7 || se != 0 {
		t.Errorf("MeanSE(7) = %v, %v; want 7, 0", m, se)
	}
	if m, se := MeanSE(nil); !math.IsNaN(m) || !math.IsNaN(se) {
		t.Errorf("MeanSE(nil) = %v, %v; want NaN, NaN", m, se)
	}
}
