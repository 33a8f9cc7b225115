package nats

import (
	"math"
	"reflect"
	"testing"
)

// TestWireRoundTrip checks that blocks and results decode to what was
// encoded, float64 bits included (NaN payloads, -0, subnormals).
func TestWireRoundTrip(t *testing.T) {
	run := runID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	odd := []float64{math.Copysign(0, -1), math.Float64frombits(0x7ff8000000000123), 5e-324, math.MaxFloat64, -1.5, math.Inf(1)}
	b := &wireBlock{run: run, call: 7, seed: math.MaxUint64, first: 1 << 40, rows: 3, dim: 2, statDim: 5, name: "sir/synthetic", theta: odd}
	got, err := decodeBlock(appendBlock(nil, b))
	if err != nil {
		t.Fatal(err)
	}
	if !sameWire(got.theta, b.theta) {
		t.Fatalf("θ bits changed: %v", got.theta)
	}
	got.theta, b.theta = nil, nil
	if !reflect.DeepEqual(got, b) {
		t.Fatalf("block %+v, want %+v", got, b)
	}
	if n := len(appendBlock(nil, &wireBlock{rows: 3, dim: 2, name: "sir/synthetic", theta: odd})); n != blockSize(3, 2, 13) {
		t.Fatalf("block size %d, blockSize says %d", n, blockSize(3, 2, 13))
	}
	for _, r := range []*wireResult{
		{run: run, call: 1, first: 10, rows: 2, statDim: 3, status: statusOK, worker: "w", stats: odd},
		{run: run, call: 2, first: 10, rows: 2, statDim: 3, status: statusRowError, worker: "w", index: 11, cause: causePanic, message: "boom"},
		{run: run, call: 3, first: 10, rows: 2, statDim: 3, status: statusFailure, worker: "w", kind: failUnknownSimulator, message: "no such"},
	} {
		enc := appendResult(nil, r)
		if r.status == statusOK && len(enc) != resultSize(2, 3, 1) {
			t.Fatalf("result size %d, resultSize says %d", len(enc), resultSize(2, 3, 1))
		}
		got, err := decodeResult(enc)
		if err != nil {
			t.Fatal(err)
		}
		if !sameWire(got.stats, r.stats) {
			t.Fatalf("stats bits changed")
		}
		got.stats, r.stats = nil, nil
		if !reflect.DeepEqual(got, r) {
			t.Fatalf("result %+v, want %+v", got, r)
		}
	}
}

func sameWire(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestWireRejectsMalformed checks truncations, wrong magic and row errors
// outside their block.
func TestWireRejectsMalformed(t *testing.T) {
	b := appendBlock(nil, &wireBlock{rows: 2, dim: 1, statDim: 1, name: "x", theta: []float64{1, 2}})
	for i := range len(b) {
		if _, err := decodeBlock(b[:i]); err == nil {
			t.Fatalf("block truncated to %d bytes decoded", i)
		}
	}
	r := appendResult(nil, &wireResult{rows: 2, statDim: 1, status: statusOK, stats: []float64{1, 2}})
	for i := range len(r) {
		if _, err := decodeResult(r[:i]); err == nil {
			t.Fatalf("result truncated to %d bytes decoded", i)
		}
	}
	if _, err := decodeResult(b); err == nil {
		t.Fatal("a block decoded as a result")
	}
	bad := appendResult(nil, &wireResult{first: 10, rows: 2, statDim: 1, status: statusRowError, index: 12})
	if _, err := decodeResult(bad); err == nil {
		t.Fatal("row error outside its block decoded")
	}
}

// FuzzDecode checks that the decoders never panic and that what decodes
// re-encodes to the same bytes.
func FuzzDecode(f *testing.F) {
	f.Add(appendBlock(nil, &wireBlock{rows: 1, dim: 1, statDim: 1, name: "g", theta: []float64{1}}))
	f.Add(appendResult(nil, &wireResult{rows: 1, statDim: 1, status: statusOK, stats: []float64{1}}))
	f.Add(appendResult(nil, &wireResult{rows: 1, statDim: 1, status: statusRowError, message: "m"}))
	f.Add(appendResult(nil, &wireResult{rows: 1, statDim: 1, status: statusFailure, kind: 1, message: "m"}))
	f.Fuzz(func(t *testing.T, p []byte) {
		if b, err := decodeBlock(p); err == nil {
			if q := appendBlock(nil, b); string(q) != string(p) {
				t.Fatalf("block re-encodes differently")
			}
		}
		if r, err := decodeResult(p); err == nil {
			if q := appendResult(nil, r); string(q) != string(p) {
				t.Fatalf("result re-encodes differently")
			}
		}
	})
}
