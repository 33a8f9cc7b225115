package flow

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// savedFlow returns the bytes of a small valid saved flow with LU layers,
// context gating and standardisation.
func savedFlow(t testing.TB) []byte {
	cfg := smallConfig(2, 1)
	cfg.Layers = 2
	cfg.LU, cfg.ContextGating = true, true
	fl := randomFlow(t, cfg, 7, 0.1)
	fl.standardized = true
	var buf bytes.Buffer
	if err := fl.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Byte offsets of a saved flow's fields (see the file format in save.go).
const (
	offInts   = 12 // Dim, ContextDim, Layers, Bins, Hidden, Blocks as int32
	offFlags  = 36
	offFloats = 37 // TailBound, MinBinWidth, MinBinHeight, MinDerivative
	offMeanY  = 69
)

// mutateField writes v into field k of a saved flow of dimension 2 and
// context dimension 1 (mean and std of y, then of z, then the parameter
// count and the parameters), for the field index i, and recomputes the
// checksum so that the change reaches the validation behind it.
func mutateField(data []byte, field, i int, v float64, iv int64) []byte {
	b := append([]byte(nil), data...)
	le := binary.LittleEndian
	putF := func(off int) {
		if off+8 <= len(b)-4 {
			le.PutUint64(b[off:], math.Float64bits(v))
		}
	}
	switch {
	case field < 6:
		le.PutUint32(b[offInts+4*field:], uint32(int32(iv)))
	case field == 6:
		b[offFlags] = byte(iv)
	case field < 11:
		putF(offFloats + 8*(field-7))
	case field == 11: // meanY
		putF(offMeanY + 8*(i%2))
	case field == 12: // stdY
		putF(offMeanY + 16 + 8*(i%2))
	case field == 13: // meanZ
		putF(offMeanY + 32)
	case field == 14: // stdZ
		putF(offMeanY + 40)
	case field == 15: // parameter count
		le.PutUint64(b[offMeanY+48:], uint64(iv))
	default: // one parameter
		np := (len(b) - 4 - offMeanY - 56) / 8
		if np > 0 {
			putF(offMeanY + 56 + 8*(i%np))
		}
	}
	le.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

// checkLoaded fails t if Load accepted data but the flow's density or
// samples are not finite.
func checkLoaded(t *testing.T, data []byte) {
	t.Helper()
	g, err := Load(bytes.NewReader(data))
	if err != nil {
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error does not wrap ErrCorrupt: %v", err)
		}
		return
	}
	mY, _, mZ, _ := g.Standardization()
	if v := g.LogDensity(mY, mZ); math.IsNaN(v) || math.IsInf(v, 0) {
		t.Fatalf("loaded flow gives log density %v at its standardisation mean", v)
	}
	if v := g.LogDensity(make([]float64, g.Dim()), make([]float64, g.ContextDim())); math.IsNaN(v) {
		t.Fatalf("loaded flow gives NaN log density at 0")
	}
	const n = 16
	dst, logq := make([]float64, n*g.Dim()), make([]float64, n)
	if err := g.SampleLogDensity(rand.New(rand.NewPCG(1, 2)), mZ, n, dst, logq); err != nil {
		t.Fatalf("Sample: %v", err)
	}
	for _, v := range append(dst, logq...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("loaded flow samples %v (log density %v)", dst, logq)
		}
	}
}

// FuzzLoadFields mutates one field of a valid saved flow (configuration,
// flags, spline settings, standardisation, parameter count or one
// parameter) and recomputes the checksum: Load must refuse the file or
// return a flow whose density and samples are finite.
func FuzzLoadFields(f *testing.F) {
	data := savedFlow(f)
	f.Add(uint8(12), uint16(0), 5e-324, int64(0))
	f.Add(uint8(12), uint16(1), 1e308, int64(0))
	f.Add(uint8(11), uint16(0), 1e308, int64(0))
	f.Add(uint8(14), uint16(0), 5e-324, int64(0))
	f.Add(uint8(7), uint16(0), 1e-300, int64(0))
	f.Add(uint8(16), uint16(3), 1e300, int64(0))
	f.Add(uint8(0), uint16(0), 0.0, int64(1<<20))
	f.Add(uint8(15), uint16(0), 0.0, int64(-1))
	f.Add(uint8(6), uint16(0), 0.0, int64(0xff))
	f.Fuzz(func(t *testing.T, field uint8, i uint16, v float64, iv int64) {
		checkLoaded(t, mutateField(data, int(field%17), int(i), v, iv))
	})
}

// TestBadInput loads saved flows with one field set to a bad value (the
// checksum recomputed): every one is refused with ErrCorrupt.
func TestBadInput(t *testing.T) {
	data := savedFlow(t)
	if _, err := Load(bytes.NewReader(data)); err != nil {
		t.Fatalf("valid flow: %v", err)
	}
	nan, inf := math.NaN(), math.Inf(1)
	load := func(field, i int, v float64, iv int64) func() error {
		return func() error { _, err := Load(bytes.NewReader(mutateField(data, field, i, v, iv))); return err }
	}
	type B = testutil.BadInput
	cases := []B{
		{Category: "nil", Name: "nil reader contents", Err: func() error { _, err := Load(bytes.NewReader(nil)); return err }},
		{Category: "empty", Name: "magic only", Err: func() error { _, err := Load(bytes.NewReader([]byte(fileMagic))); return err }},
		{Category: "mismatched", Name: "truncated", Err: func() error { _, err := Load(bytes.NewReader(data[:len(data)-9])); return err }},
		{Category: "mismatched", Name: "checksum", Err: func() error {
			b := append([]byte(nil), data...)
			b[len(b)-1] ^= 1
			_, err := Load(bytes.NewReader(b))
			return err
		}},
		{Category: "nonpositive", Name: "Dim 0", Err: load(0, 0, 0, 0)},
		{Category: "nonpositive", Name: "Dim -1", Err: load(0, 0, 0, -1)},
		{Category: "huge", Name: "Dim 1<<30", Err: load(0, 0, 0, 1<<30)},
		{Category: "mismatched", Name: "Dim 3", Err: load(0, 0, 0, 3)},
		{Category: "nonpositive", Name: "ContextDim -1", Err: load(1, 0, 0, -1)},
		{Category: "huge", Name: "ContextDim MaxInt32", Err: load(1, 0, 0, math.MaxInt32)},
		{Category: "nonpositive", Name: "Layers 0", Err: load(2, 0, 0, 0)},
		{Category: "huge", Name: "Layers 1<<20", Err: load(2, 0, 0, 1<<20)},
		{Category: "nonpositive", Name: "Bins 1", Err: load(3, 0, 0, 1)},
		{Category: "huge", Name: "Bins 1<<24", Err: load(3, 0, 0, 1<<24)},
		{Category: "nonpositive", Name: "Hidden 0", Err: load(4, 0, 0, 0)},
		{Category: "huge", Name: "Hidden 1<<28", Err: load(4, 0, 0, 1<<28)},
		{Category: "nonpositive", Name: "Blocks -1", Err: load(5, 0, 0, -1)},
		{Category: "huge", Name: "unknown flags", Err: load(6, 0, 0, 0xe0)},
		{Category: "nan", Name: "TailBound NaN", Err: load(7, 0, nan, 0)},
		{Category: "inf", Name: "TailBound Inf", Err: load(7, 0, inf, 0)},
		{Category: "nonpositive", Name: "TailBound 0", Err: load(7, 0, 0, 0)},
		{Category: "subnormal", Name: "TailBound 5e-324", Err: load(7, 0, 5e-324, 0)},
		{Category: "huge", Name: "TailBound 1e308", Err: load(7, 0, 1e308, 0)},
		{Category: "nan", Name: "MinBinWidth NaN", Err: load(8, 0, nan, 0)},
		{Category: "subnormal", Name: "MinBinWidth 5e-324", Err: load(8, 0, 5e-324, 0)},
		{Category: "huge", Name: "MinBinHeight 2", Err: load(9, 0, 2, 0)},
		{Category: "nonpositive", Name: "MinDerivative -1", Err: load(10, 0, -1, 0)},
		{Category: "subnormal", Name: "MinDerivative 1e-310", Err: load(10, 0, 1e-310, 0)},
		{Category: "nan", Name: "meanY NaN", Err: load(11, 0, nan, 0)},
		{Category: "inf", Name: "meanY -Inf", Err: load(11, 1, math.Inf(-1), 0)},
		{Category: "huge", Name: "meanY 1e308", Err: load(11, 0, 1e308, 0)},
		{Category: "nan", Name: "stdY NaN", Err: load(12, 0, nan, 0)},
		{Category: "inf", Name: "stdY Inf", Err: load(12, 1, inf, 0)},
		{Category: "nonpositive", Name: "stdY 0", Err: load(12, 0, 0, 0)},
		{Category: "nonpositive", Name: "stdY -1", Err: load(12, 0, -1, 0)},
		{Category: "subnormal", Name: "stdY 5e-324", Err: load(12, 0, 5e-324, 0)},
		{Category: "subnormal", Name: "stdY 1e-310", Err: load(12, 1, 1e-310, 0)},
		{Category: "huge", Name: "stdY 1e308", Err: load(12, 0, 1e308, 0)},
		{Category: "nan", Name: "meanZ NaN", Err: load(13, 0, nan, 0)},
		{Category: "huge", Name: "meanZ 1e300", Err: load(13, 0, 1e300, 0)},
		{Category: "subnormal", Name: "stdZ 5e-324", Err: load(14, 0, 5e-324, 0)},
		{Category: "huge", Name: "stdZ 1e308", Err: load(14, 0, 1e308, 0)},
		{Category: "nonpositive", Name: "stdZ 0", Err: load(14, 0, 0, 0)},
		{Category: "mismatched", Name: "parameter count off by one", Err: load(15, 0, 0, 1)},
		{Category: "huge", Name: "parameter count 1<<62", Err: load(15, 0, 0, 1<<62)},
		{Category: "nan", Name: "parameter NaN", Err: load(16, 5, nan, 0)},
		{Category: "inf", Name: "parameter Inf", Err: load(16, 9, inf, 0)},
		{Category: "huge", Name: "parameter 1e300", Err: load(16, 3, 1e300, 0)},
		{Category: "mismatched", Name: "wrong magic", Err: testutil.Naming(func() error {
			b := append([]byte("PRIVSBIC"), data[8:]...)
			_, err := Load(bytes.NewReader(b))
			return err
		}, "bad magic number")},
	}
	// Every error names the argument the file came from.
	for i := range cases {
		cases[i].Err = testutil.Naming(cases[i].Err, "flow: invalid argument: r: corrupt or unsupported flow file: ")
	}
	testutil.RunBadInput(t, ErrCorrupt, cases)
}
