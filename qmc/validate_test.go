package qmc

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestConfigValidate checks that Validate accepts the configs NewSobol and
// NewHalton accept and refuses the others with an ErrInvalid naming the
// field.
func TestConfigValidate(t *testing.T) {
	for _, c := range []SobolConfig{{Dim: 1}, {Dim: MaxSobolDim, Bits: 64}, {Dim: 3, Bits: 32, Scramble: OwenTree}} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	for _, c := range []struct {
		cfg   SobolConfig
		field string
	}{{SobolConfig{}, "Dim"}, {SobolConfig{Dim: MaxSobolDim + 1}, "Dim"}, {SobolConfig{Dim: 2, Bits: 16}, "Bits"}, {SobolConfig{Dim: 2, Scramble: -1}, "Scramble"}} {
		err := c.cfg.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(fmt.Sprint(err), "SobolConfig."+c.field) {
			t.Errorf("%+v: %v, want ErrInvalid naming SobolConfig.%s", c.cfg, err, c.field)
		}
	}
	if err := (HaltonConfig{Dim: MaxHaltonDim, Scrambled: true}).Validate(); err != nil {
		t.Error(err)
	}
	for _, d := range []int{0, -1, MaxHaltonDim + 1} {
		err := HaltonConfig{Dim: d}.Validate()
		if !errors.Is(err, ErrInvalid) || !strings.Contains(fmt.Sprint(err), "HaltonConfig.Dim") {
			t.Errorf("Dim %d: %v, want ErrInvalid naming HaltonConfig.Dim", d, err)
		}
	}
}
