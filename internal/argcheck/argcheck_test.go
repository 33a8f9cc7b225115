package argcheck

import (
	"errors"
	"fmt"
	"io"
	"math"
	"testing"
)

type iface interface{ M() }

type impl struct{}

func (*impl) M() {}

// TestNil checks untyped and typed nils of every nillable kind, and
// non-nil values.
func TestNil(t *testing.T) {
	var (
		p  *impl
		f  func()
		m  map[int]int
		s  []int
		c  chan int
		i  iface
		pi iface = p
	)
	for name, v := range map[string]any{"untyped": nil, "pointer": p, "func": f, "map": m, "slice": s, "chan": c, "interface": i, "typed nil in interface": pi} {
		if !Nil(v) {
			t.Errorf("%s: Nil = false, want true", name)
		}
	}
	for name, v := range map[string]any{"pointer": &impl{}, "func": func() {}, "map": map[int]int{}, "slice": []int{}, "int": 0, "struct": struct{}{}, "string": ""} {
		if Nil(v) {
			t.Errorf("%s: Nil = true, want false", name)
		}
	}
}

// TestSentinel checks the message, matching the kind and itself through
// wrapping, and that two sentinels of one kind differ.
func TestSentinel(t *testing.T) {
	kind := errors.New("pkg: invalid argument")
	a, b := Sentinel("pkg: bad a", kind), Sentinel("pkg: bad a", kind)
	if a.Error() != "pkg: bad a" {
		t.Errorf("message %q", a.Error())
	}
	w := fmt.Errorf("context: %w", a)
	if !errors.Is(w, a) || !errors.Is(w, kind) {
		t.Error("wrapped sentinel does not match itself and its kind")
	}
	if errors.Is(w, b) || errors.Is(w, io.EOF) {
		t.Error("sentinel matches a different error")
	}
}

// TestWeights checks the total of valid weights and the refusal of empty,
// negative, NaN, infinite and zero-total vectors.
func TestWeights(t *testing.T) {
	if s, err := Weights([]float64{0, 1.5, 2.5}); err != nil || s != 4 {
		t.Errorf("Weights = %v, %v; want 4, nil", s, err)
	}
	for name, w := range map[string][]float64{"empty": nil, "negative": {1, -1}, "NaN": {math.NaN()}, "Inf": {1, math.Inf(1)},
		"zero total": {0, 0}, "overflowing total": {math.MaxFloat64, math.MaxFloat64}} {
		if _, err := Weights(w); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestAlso(t *testing.T) {
	inner := errors.New("inner: invalid argument")
	outer := errors.New("outer: invalid argument")
	err := Also(fmt.Errorf("%w: x must be > 0, got -1", inner), outer)
	if !errors.Is(err, inner) || !errors.Is(err, outer) {
		t.Fatalf("errors.Is misses a sentinel of %v", err)
	}
	if got, want := err.Error(), "inner: invalid argument: x must be > 0, got -1"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if Also(nil, outer) != nil {
		t.Fatal("Also(nil, kind) is not nil")
	}
}
