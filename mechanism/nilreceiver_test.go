package mechanism

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// nilReceivers holds a nil pointer of every exported type with
// pointer-receiver methods.
var nilReceivers = []any{
	(*Accountant)(nil), (*Bounded)(nil), (*CryptoSource)(nil), (*Exponential)(nil),
	(*Gaussian)(nil), (*InfectionTrajectory)(nil), (*KaryRandomizedResponse)(nil),
	(*Laplace)(nil), (*OUE)(nil), (*RandomizedResponse)(nil), (*ReproducibleMechanism)(nil),
	(*SVTSession)(nil), (*SparseVector)(nil), (*Via)(nil),
}

// TestNilReceivers calls every exported pointer-receiver method of the
// package on a nil pointer with zero-valued arguments: none may panic (the
// rule in the package doc). The list of types is checked against the
// source, so a new type cannot be left out.
func TestNilReceivers(t *testing.T) {
	want, err := testutil.PointerReceiverTypes(".")
	if err != nil {
		t.Fatal(err)
	}
	if got := testutil.TypeNames(nilReceivers); !slices.Equal(got, want) {
		t.Fatalf("nilReceivers covers %v, the package declares pointer-receiver methods on %v", got, want)
	}
	for _, p := range testutil.NilReceiverFailures(nilReceivers, ErrInvalid) {
		t.Error(p)
	}
}

// TestNilReceiverResults checks the documented results on nil receivers:
// accessors return zero, Apply fills dst with NaN, releases return errors.
func TestNilReceiverResults(t *testing.T) {
	if s := (*Gaussian)(nil).Sigma(); s != 0 {
		t.Errorf("nil Gaussian Sigma = %v, want 0", s)
	}
	if d := (*Laplace)(nil).Dim(); d != 0 {
		t.Errorf("nil Laplace Dim = %v, want 0", d)
	}
	for _, tr := range []Transform{(*Laplace)(nil), (*Gaussian)(nil), (*Bounded)(nil), (*Exponential)(nil),
		(*RandomizedResponse)(nil), (*KaryRandomizedResponse)(nil), (*OUE)(nil), (*InfectionTrajectory)(nil)} {
		dst := []float64{1, 2}
		tr.Apply([]float64{0.5, 0.5}, []float64{0, 0}, dst)
		if !math.IsNaN(dst[0]) || !math.IsNaN(dst[1]) {
			t.Errorf("%T Apply wrote %v, want NaN", tr, dst)
		}
	}
	if err := (*Gaussian)(nil).Release(nil, []float64{0}, make([]float64, 1)); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil Gaussian Release: %v", err)
	}
	// A nil CryptoSource still draws: 8 draws all equal have probability 2^-448.
	var c *CryptoSource
	first, same := c.Uint64(), true
	for range 7 {
		same = same && c.Uint64() == first
	}
	if same {
		t.Error("nil CryptoSource returned the same value 8 times")
	}
}
