package polynomial

import (
	"errors"
	"math"
	"testing"

	"github.com/privinfer/privinfer/simulate"
)

func TestCubic(t *testing.T) {
	times := []float64{0, 1, 2.5}
	m, err := NewCubic(times, 0)
	if err != nil {
		t.Fatal(err)
	}
	dst := make([]float64, 3)
	theta := []float64{0.5, -1, 2, 3} // a0 t³ + a1 t² + a2 t + a3
	if err := m.Simulate(nil, theta, dst); err != nil {
		t.Fatal(err)
	}
	for j, tt := range times {
		want := 3 + 2*tt - tt*tt + 0.5*tt*tt*tt
		if math.Abs(dst[j]-want) > 1e-12 {
			t.Errorf("y(%v) = %v, want %v", tt, dst[j], want)
		}
	}
	if err := m.Simulate(nil, []float64{1, 2, 3}, dst); !errors.Is(err, simulate.ErrInvalidTheta) {
		t.Errorf("short θ: %v", err)
	}
	if _, err := NewCubic(times, -1); err == nil {
		t.Error("negative noise accepted")
	}
}
