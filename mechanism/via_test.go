package mechanism_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
)

// TestViaBadInput checks that a nil Via, a nil inner mechanism and a
// simulation Via without a generator are refused with ErrInvalid.
func TestViaBadInput(t *testing.T) {
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, dst := []float64{0}, []float64{0}
	var nilVia *mechanism.Via
	for name, err := range map[string]error{
		"nil Via":                    nilVia.Release(lap, s, dst),
		"nil inner":                  mechanism.SecureVia(nil).Release(nil, s, dst),
		"mechanism.SimulateVia(nil)": mechanism.SimulateVia(nil).Release(lap, s, dst),
		"secure wrong lengths":       mechanism.SecureVia(nil).Release(lap, s, []float64{0, 0}),
	} {
		if !errors.Is(err, mechanism.ErrInvalid) {
			t.Errorf("%s: got %v, want an error wrapping ErrInvalid", name, err)
		}
	}
	if err := mechanism.SimulateVia(rand.New(rand.NewPCG(1, 2))).Release(lap, s, dst); err != nil {
		t.Errorf("SimulateVia with a generator: %v", err)
	}
}
