package flow

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"

	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/internal/argcheck"
)

// File format (little-endian), version 1 (a flow without an embedding
// network) or 2 (with one):
//
//	magic "PRIVFLOW" | version uint32 |
//	Dim, ContextDim, Layers, Bins, Hidden, Blocks int32 |
//	flags uint8 (1 LU, 2 ContextGating, 4 StandardizeInputs,
//	             8 StandardizeContext, 16 standardisation set,
//	             32 ContextAffine) |
//	TailBound, MinBinWidth, MinBinHeight, MinDerivative float64 |
//	version 2 only: k uint32 | the embedding network, k int32:
//	    In, Channels, len(Conv), (Filters, Kernel, Stride, Pad, Pool) per
//	    convolution, len(Hidden), Hidden..., Out |
//	meanY, stdY [Dim]float64 | meanZ, stdZ [ContextDim]float64 |
//	nParams uint64 | params [nParams]float64 (the couplings', then the
//	    ContextAffine network's, then the embedding's) |
//	CRC-32 (IEEE) of all preceding bytes, uint32.
const (
	fileMagic   = "PRIVFLOW"
	maxFileSize = 1 << 31
	maxNetInts  = 1 << 10
)

// encodeNet lists the sizes of n as the file stores them.
func encodeNet(n *ad.Net) []int32 {
	e := []int32{int32(n.In), int32(n.Channels), int32(len(n.Conv))}
	for _, c := range n.Conv {
		e = append(e, int32(c.Filters), int32(c.Kernel), int32(c.Stride), int32(c.Pad), int32(c.Pool))
	}
	e = append(e, int32(len(n.Hidden)))
	for _, h := range n.Hidden {
		e = append(e, int32(h))
	}
	return append(e, int32(n.Out))
}

// decodeNet is the inverse of encodeNet; it checks the layout only (the
// configuration's Validate checks the network).
func decodeNet(e []int32) (*ad.Net, error) {
	if len(e) < 5 {
		return nil, errors.New("embedding network record too short")
	}
	n := &ad.Net{In: int(e[0]), Channels: int(e[1])}
	nc := int(e[2])
	if nc < 0 || 3+5*nc+2 > len(e) {
		return nil, fmt.Errorf("embedding network record of %d values cannot hold %d convolutions", len(e), nc)
	}
	for i := 0; i < nc; i++ {
		q := e[3+5*i:]
		n.Conv = append(n.Conv, ad.ConvLayer{Filters: int(q[0]), Kernel: int(q[1]), Stride: int(q[2]), Pad: int(q[3]), Pool: int(q[4])})
	}
	p := 3 + 5*nc
	nh := int(e[p])
	if nh < 0 || p+1+nh+1 != len(e) {
		return nil, fmt.Errorf("embedding network record of %d values does not match %d hidden layers", len(e), nh)
	}
	for _, h := range e[p+1 : p+1+nh] {
		n.Hidden = append(n.Hidden, int(h))
	}
	n.Out = int(e[len(e)-1])
	return n, nil
}

// ErrCorrupt is wrapped by every error Load returns for a malformed file.
// It wraps ErrInvalid, and its text is the package's prefix alone: the
// errors read "flow: invalid argument: r: corrupt or unsupported flow
// file: <what>".
var ErrCorrupt = argcheck.Sentinel("flow: invalid argument", ErrInvalid)

// Save writes the flow (configuration, standardisation and parameters) to
// w in a versioned binary format with a checksum; Load reads it back. A
// nil w is an error wrapping ErrInvalid; an error of w is returned
// wrapped, naming w.
func (f *Flow) Save(w io.Writer) error {
	if err := f.ready(); err != nil {
		return err
	}
	if argcheck.Nil(w) {
		return invalid("w", "must not be nil")
	}
	var b bytes.Buffer
	b.WriteString(fileMagic)
	le := binary.LittleEndian
	put := func(v any) { _ = binary.Write(&b, le, v) }
	c := f.cfg
	if c.Embedding == nil {
		put(uint32(1))
	} else {
		put(uint32(2))
	}
	for _, v := range []int{c.Dim, c.ContextDim, c.Layers, c.Bins, c.Hidden, c.Blocks} {
		put(int32(v))
	}
	var flags uint8
	for i, on := range []bool{c.LU, c.ContextGating, c.StandardizeInputs, c.StandardizeContext, f.standardized, c.ContextAffine} {
		if on {
			flags |= 1 << i
		}
	}
	put(flags)
	put([]float64{c.TailBound, c.MinBinWidth, c.MinBinHeight, c.MinDerivative})
	if c.Embedding != nil {
		e := encodeNet(c.Embedding)
		put(uint32(len(e)))
		put(e)
	}
	put(f.meanY)
	put(f.stdY)
	put(f.meanZ)
	put(f.stdZ)
	put(uint64(len(f.params)))
	put(f.params)
	put(crc32.ChecksumIEEE(b.Bytes()))
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("flow: w: writing the flow: %w", err)
	}
	return nil
}

// paramCount returns the number of parameters of a valid configuration
// without allocating them.
func paramCount(c Config) int64 {
	P := int64(3*c.Bins - 1)
	H, C, D := int64(c.Hidden), int64(c.contextWidth()), int64(c.Dim)
	var total int64
	if c.Embedding != nil {
		total = int64(c.Embedding.NumParams())
	}
	for l := 0; l < c.Layers; l++ {
		var nt int64
		for d := 0; d < c.Dim; d++ {
			if c.Dim == 1 || d%2 == l%2 {
				nt++
			}
		}
		ni := D - nt
		n := (ni+C)*H + H + H*nt*P + nt*P
		blk := 2 * (H*H + H)
		if c.ContextGating && C > 0 {
			blk += C*H + H
		}
		n += int64(c.Blocks) * blk
		if c.LU {
			n += D*D + D
		}
		total += n
	}
	if c.ContextAffine {
		n := H + int64(c.Blocks)*2*(H*H+H) + (H+1)*2*D
		if C > 0 {
			n += C * H
			if c.ContextGating {
				n += int64(c.Blocks) * (C*H + H)
			}
		}
		total += n
	}
	return total
}

// Load reads a flow written by Save. It validates the magic number,
// version, checksum, configuration, sizes and finiteness of every value;
// any violation is an error wrapping ErrCorrupt. A nil r is an error
// wrapping ErrInvalid; an error of r is returned wrapped, naming r.
func Load(r io.Reader) (*Flow, error) {
	if argcheck.Nil(r) {
		return nil, invalid("r", "must not be nil")
	}
	data, err := io.ReadAll(io.LimitReader(r, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("flow: r: reading the flow: %w", err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: r: corrupt or unsupported flow file: "+format, append([]any{ErrCorrupt}, a...)...)
	}
	const header = 8 + 4 + 6*4 + 1 + 4*8
	if len(data) > maxFileSize {
		return nil, bad("file larger than %d bytes", maxFileSize)
	}
	if len(data) < 8 || string(data[:8]) != fileMagic {
		return nil, bad("not a flow file (bad magic number)")
	}
	if len(data) < header+8+4 {
		return nil, bad("file too short (%d bytes)", len(data))
	}
	le := binary.LittleEndian
	body, sum := data[:len(data)-4], le.Uint32(data[len(data)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, bad("checksum mismatch")
	}
	version := le.Uint32(data[8:])
	if version != 1 && version != 2 {
		return nil, bad("unsupported version %d", version)
	}
	p := 12
	ints := make([]int, 6)
	for i := range ints {
		ints[i] = int(int32(le.Uint32(data[p:])))
		p += 4
	}
	flags := data[p]
	p++
	floats := make([]float64, 4)
	for i := range floats {
		floats[i] = math.Float64frombits(le.Uint64(data[p:]))
		p += 8
	}
	if flags>>6 != 0 {
		return nil, bad("unknown flags %#x", flags)
	}
	var emb *ad.Net
	if version == 2 {
		if p+4 > len(body) {
			return nil, bad("file too short for the embedding network")
		}
		k := int(le.Uint32(data[p:]))
		p += 4
		if k > maxNetInts || p+4*k > len(body) {
			return nil, bad("embedding network record of %d values", k)
		}
		e := make([]int32, k)
		for i := range e {
			e[i] = int32(le.Uint32(data[p:]))
			p += 4
		}
		if emb, err = decodeNet(e); err != nil {
			return nil, bad("%v", err)
		}
	}
	cfg := Config{
		Dim: ints[0], ContextDim: ints[1], Layers: ints[2], Bins: ints[3], Hidden: ints[4], Blocks: ints[5],
		LU: flags&1 != 0, ContextGating: flags&2 != 0, StandardizeInputs: flags&4 != 0, StandardizeContext: flags&8 != 0,
		ContextAffine: flags&32 != 0,
		TailBound:     floats[0], MinBinWidth: floats[1], MinBinHeight: floats[2], MinDerivative: floats[3],
		Embedding: emb,
	}
	if err := cfg.Validate(); err != nil {
		return nil, rewrap(ErrCorrupt, "r: corrupt or unsupported flow file", err)
	}
	for i, v := range floats[1:] {
		if v != 0 && !(v >= minSpline && v <= 1) {
			return nil, bad("spline minimum %d is %v, neither 0 nor in [%v, 1]", i, v, minSpline)
		}
	}
	np := paramCount(cfg)
	want := int64(p) + 16*int64(cfg.Dim+cfg.ContextDim) + 8 + 8*np
	if int64(len(body)) != want {
		return nil, bad("file has %d bytes, configuration needs %d", len(body), want)
	}
	f, err := build(cfg)
	if err != nil {
		return nil, rewrap(ErrCorrupt, "r: corrupt or unsupported flow file", err)
	}
	read := func(dst []float64) {
		for i := range dst {
			dst[i] = math.Float64frombits(le.Uint64(data[p:]))
			p += 8
		}
	}
	read(f.meanY)
	read(f.stdY)
	read(f.meanZ)
	read(f.stdZ)
	if got := le.Uint64(data[p:]); got != uint64(np) || int64(len(f.params)) != np {
		return nil, bad("parameter count %d, configuration needs %d", got, np)
	}
	p += 8
	read(f.params)
	for _, v := range [][]float64{f.meanY, f.meanZ} {
		for _, m := range v {
			if !(math.Abs(m) <= maxMean) {
				return nil, bad("standardisation mean %v is not finite with magnitude at most %v", m, maxMean)
			}
		}
	}
	for _, v := range [][]float64{f.stdY, f.stdZ} {
		for _, s := range v {
			if !(s >= minStd && s <= maxStd) {
				return nil, bad("standard deviation %v outside [%v, %v]", s, minStd, maxStd)
			}
		}
	}
	for i, v := range f.params {
		if !(math.Abs(v) <= MaxParam) {
			return nil, bad("parameter %d is %v, not finite with magnitude at most MaxParam = %v", i, v, MaxParam)
		}
	}
	f.standardized = flags&16 != 0
	if err := f.probe(); err != nil {
		return nil, rewrap(ErrCorrupt, "r: corrupt or unsupported flow file", err)
	}
	return f, nil
}

// Ranges Load accepts (the tail bound's also bounds Config.Validate). A
// fitted flow's values lie far inside them; values outside cannot come from
// Save of a usable flow and would make the density or the samples overflow
// or lose all precision.
const (
	minTailBound = 0x1p-20
	maxTailBound = 0x1p20
	minSpline    = 1e-12 // smallest nonzero MinBinWidth, MinBinHeight, MinDerivative
	maxMean      = 1e100
	minStd       = 1e-100
	maxStd       = 1e100
)

// probe evaluates the loaded flow where a usable flow must be finite: the
// density at the standardisation mean (the centre of the training data)
// and the inverse map of the base points 0 and ±1 in every coordinate.
func (f *Flow) probe() error {
	D, C := f.cfg.Dim, f.cfg.ContextDim
	z := f.meanZ
	if C == 0 {
		z = nil
	}
	if lp := f.LogDensity(f.meanY, z); math.IsNaN(lp) || math.IsInf(lp, 0) {
		return fmt.Errorf("flow: log density %v at the standardisation mean", lp)
	}
	u := make([]float64, 3*D)
	for d := 0; d < D; d++ {
		u[D+d], u[2*D+d] = 1, -1
	}
	zs := make([]float64, 3*C)
	for i := 0; i < 3; i++ {
		copy(zs[i*C:], z)
	}
	y, ld := make([]float64, 3*D), make([]float64, 3)
	if err := f.InverseTransform(u, zs, 3, y, ld); err != nil {
		return err
	}
	for _, v := range append(y, ld...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("flow: inverse map of a base point gives %v", v)
		}
	}
	return nil
}
