package aggregate

import (
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// nilReceivers holds a nil pointer of every exported type with
// pointer-receiver methods (generic types instantiated).
var nilReceivers = []any{
	(*CountAccumulator)(nil), (*MeanAccumulator)(nil), (*SumAccumulator)(nil),
	(*Model)(nil), (*PartitionSelector)(nil), (*Plan)(nil), (*PublicPartitions[string])(nil),
}

// TestNilReceivers calls every exported pointer-receiver method of the
// package on a nil pointer with zero-valued arguments: none may panic and
// those returning an error must return one wrapping ErrInvalid (the rule
// in the package doc). The list of types is checked against the source.
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
