package aggregate

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
)

// maxStat bounds a released statistic in lattice units: counts and sums
// are clamped to [−2^52, 2^52] before the noise is added (clamping is
// 1-Lipschitz, so it never raises a sensitivity), and noise beyond 2^52
// is redrawn by the samplers, so every release γ·(s + Z) is an exact
// float64 and no release can fail on account of the data.
const maxStat = 1 << 52

// Accumulator is what every scaled-out aggregation offers a pipeline
// besides its typed Merge: adding one record, releasing, and a binary
// form (encoding.BinaryMarshaler and encoding.BinaryUnmarshaler) to ship
// partial results between workers.
type Accumulator interface {
	Add(v float64)
	Release(r *rand.Rand) (Result, error)
	MarshalBinary() ([]byte, error)
	UnmarshalBinary(data []byte) error
}

// CountAccumulator counts the records of one partition. The zero value is
// not usable; build one with NewCountAccumulator. It is not safe for concurrent use
// (a pipeline gives each worker its own and merges them).
//
// Its release is n + Z, Z discrete Laplace of scale L0·L∞/ε' (or the
// discrete Gaussian of ℓ2 sensitivity √L0·L∞ under Params.Rho), doubled
// under Substitute; n is clamped to [0, 2^52] first. Given the pipeline's
// contribution bounding (BoundPartitions, CapContributions), the releases
// of all partitions are jointly ε-DP (ρ-zCDP) for one privacy unit (see
// Params for the proof sketch). To count privacy units rather
// than records, set MaxContributionsPerPartition to 1.
type CountAccumulator struct {
	p Params
	n int64
}

// NewCountAccumulator returns an empty count with the parameters p
// (Params.Validate; the bounds are not used).
func NewCountAccumulator(p Params) (*CountAccumulator, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &CountAccumulator{p: p}, nil
}

// Add counts one record; v is ignored (so that every accumulator has the
// same Add), NaN included. On a nil accumulator it does nothing (whose
// Release then fails).
func (a *CountAccumulator) Add(float64) {
	if a == nil {
		return
	}
	a.n = satAdd(a.n, 1)
}

// Merge adds other's count into a. It returns an error wrapping
// ErrInvalid, and changes nothing, if the parameters differ.
func (a *CountAccumulator) Merge(other *CountAccumulator) error {
	if a == nil || other == nil {
		return invalidf("cannot merge a nil accumulator")
	}
	if err := sameParams(a.p, other.p); err != nil {
		return err
	}
	a.n = satAdd(a.n, other.n)
	return nil
}

// Release returns the private count. r is used only if Params.Reproducible;
// otherwise (and for r == nil) the noise comes from the operating
// system's generator. It fails only on account of the parameters (a
// seeded release without a generator), never of the data.
func (a *CountAccumulator) Release(r *rand.Rand) (Result, error) {
	if a == nil {
		return Result{}, invalidf("nil accumulator")
	}
	src, err := a.p.source(r)
	if err != nil {
		return Result{}, err
	}
	d, err := a.p.newNoise(1, 1)
	if err != nil {
		return Result{}, err
	}
	return a.p.releaseOne(src, d, min(a.n, maxStat), 0, 1)
}

// releaseOne releases the statistic s (lattice units, |s| ≤ 2^52) with
// noise d on the lattice 2^k; per is one record's bound in lattice units.
func (p Params) releaseOne(src *rand.Rand, d noise, s int64, k int, per int64) (Result, error) {
	v, err := d.add(src, s)
	if err != nil {
		return Result{}, err
	}
	res := p.result(d, k, per)
	res.Value = math.Ldexp(v, k)
	res.Releases = []float64{res.Value}
	res.Noise = []NoiseModel{noiseModel(d, k)}
	return res, nil
}

// SumAccumulator sums the records of one partition, each clamped to
// [Lo, Hi] and rounded to the lattice γ (Params.Grid). The zero value is
// not usable; build one with NewSumAccumulator. It is not safe for concurrent use
// (a pipeline gives each worker its own and merges them).
//
// The sum is kept exactly, as a 128-bit integer number of lattice steps
// (at most 2^31 per record, so no realistic number of records overflows
// it), so Merge is integer addition and every merge order gives the same
// sum and the same released bits. The release is γ·(S + Z), S clamped
// to [−2^52, 2^52] lattice steps (reached only beyond 2^52/max(|L|, |H|)
// records, for example 2^31 records with the default lattice of [0, 1]),
// Z discrete Laplace of scale L0·L∞·max(|L|, |H|)/ε' (discrete Gaussian of
// ℓ2 sensitivity √L0·L∞·max(|L|, |H|) under Params.Rho), doubled under
// Substitute, with L = round(Lo/γ), H = round(Hi/γ).
type SumAccumulator struct {
	p   Params
	l   lattice
	inv float64 // 2^-k
	s   wide
}

// NewSumAccumulator returns an empty sum with the parameters p, whose
// bounds must be set.
func NewSumAccumulator(p Params) (*SumAccumulator, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	l, err := p.lattice()
	if err != nil {
		return nil, err
	}
	return &SumAccumulator{p: p, l: l, inv: math.Ldexp(1, -l.k)}, nil
}

// index returns the lattice index of the record v: clamped to [lo, hi]
// (±Inf to the nearer bound) and rounded; false for NaN, which is
// dropped.
func (l lattice) indexOf(v, lo, hi, inv float64) (int64, bool) {
	if v != v {
		return 0, false
	}
	i := int64(math.Round(max(lo, min(hi, v)) * inv))
	return max(l.L, min(l.H, i)), true
}

// Add adds the record v: clamped to [Lo, Hi] (±Inf to the nearer bound)
// and rounded to the lattice. NaN is dropped: it never reaches the noise.
// Add allocates nothing. On a nil accumulator it does nothing (whose
// Release then fails).
func (a *SumAccumulator) Add(v float64) {
	if a == nil {
		return
	}
	if i, ok := a.l.indexOf(v, a.p.Lo, a.p.Hi, a.inv); ok {
		a.s.add(i)
	}
}

// Merge adds other's sum into a. It returns an error wrapping
// ErrInvalid, and changes nothing, if the parameters differ.
func (a *SumAccumulator) Merge(other *SumAccumulator) error {
	if a == nil || other == nil {
		return invalidf("cannot merge a nil accumulator")
	}
	if err := sameParams(a.p, other.p); err != nil {
		return err
	}
	a.s.plus(other.s)
	return nil
}

// Release returns the private sum (see SumAccumulator). r is used only
// if Params.Reproducible. It fails only on account of the parameters.
func (a *SumAccumulator) Release(r *rand.Rand) (Result, error) {
	if a == nil {
		return Result{}, invalidf("nil accumulator")
	}
	src, err := a.p.source(r)
	if err != nil {
		return Result{}, err
	}
	per := a.l.maxAbs()
	d, err := a.p.newNoise(per, 1)
	if err != nil {
		return Result{}, err
	}
	return a.p.releaseOne(src, d, a.s.clamp(maxStat), a.l.k, per)
}

// MeanAccumulator averages the records of one partition, each clamped to
// [Lo, Hi] and rounded to the lattice γ, from a noisy count and a noisy
// sum. The zero value is not usable; build one with NewMeanAccumulator. It is not safe for concurrent use
// (a pipeline gives each worker its own and merges them).
//
// It keeps the exact count n and the exact 128-bit lattice sum S. Half
// the budget releases ñ = n + Z₁ (as CountAccumulator), half the centred
// sum s̃ = (S − n·C) + Z₂, C = ⌊(L + H)/2⌋, whose per-record bound is
// max(H − C, C − L) lattice steps (both clamped to ±2^52 first); the
// value is γ·(C + s̃/max(ñ, 1)) clamped to [Lo, Hi], post-processing of
// the two releases, which Result.Releases holds. An empty partition
// releases a value like any other.
type MeanAccumulator struct {
	p   Params
	l   lattice
	inv float64
	n   int64
	s   wide
}

// NewMeanAccumulator returns an empty mean with the parameters p, whose
// bounds must be set.
func NewMeanAccumulator(p Params) (*MeanAccumulator, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	l, err := p.lattice()
	if err != nil {
		return nil, err
	}
	return &MeanAccumulator{p: p, l: l, inv: math.Ldexp(1, -l.k)}, nil
}

// Add adds the record v as SumAccumulator.Add does and counts it; NaN is
// dropped (neither counted nor summed). Add allocates nothing. On a nil
// accumulator it does nothing (whose Release then fails).
func (a *MeanAccumulator) Add(v float64) {
	if a == nil {
		return
	}
	if i, ok := a.l.indexOf(v, a.p.Lo, a.p.Hi, a.inv); ok {
		a.s.add(i)
		a.n = satAdd(a.n, 1)
	}
}

// Merge adds other's count and sum into a. It returns an error wrapping
// ErrInvalid, and changes nothing, if the parameters differ.
func (a *MeanAccumulator) Merge(other *MeanAccumulator) error {
	if a == nil || other == nil {
		return invalidf("cannot merge a nil accumulator")
	}
	if err := sameParams(a.p, other.p); err != nil {
		return err
	}
	a.s.plus(other.s)
	a.n = satAdd(a.n, other.n)
	return nil
}

// Release returns the private mean (see MeanAccumulator). r is used only
// if Params.Reproducible. It fails only on account of the parameters.
func (a *MeanAccumulator) Release(r *rand.Rand) (Result, error) {
	if a == nil {
		return Result{}, invalidf("nil accumulator")
	}
	src, err := a.p.source(r)
	if err != nil {
		return Result{}, err
	}
	return a.release(src)
}

// release draws the mean's two releases from src.
func (a *MeanAccumulator) release(src *rand.Rand) (Result, error) {
	ds, err := a.p.meanNoise(a.l)
	if err != nil {
		return Result{}, err
	}
	c := a.l.center()
	cen := a.s
	cen.mulSub(uint64(a.n), c)
	cnt, err := ds[0].add(src, min(a.n, maxStat))
	if err != nil {
		return Result{}, err
	}
	sum, err := ds[1].add(src, cen.clamp(maxStat))
	if err != nil {
		return Result{}, err
	}
	per := max(a.l.H-c, c-a.l.L, 1)
	res := a.p.result(ds[1], a.l.k, per)
	m := math.Ldexp(float64(c)+sum/math.Max(cnt, 1), a.l.k)
	res.Value = math.Max(a.p.Lo, math.Min(a.p.Hi, m))
	res.Releases = []float64{cnt, math.Ldexp(sum, a.l.k)}
	res.Noise = []NoiseModel{noiseModel(ds[0], 0), noiseModel(ds[1], a.l.k)}
	res.Center = c
	return res, nil
}

// result returns the Result fields other than the releases of a release
// with noise d on the lattice 2^k and per-record bound per (lattice
// units): the ℓ1 sensitivity (ℓ2 under zCDP) and the noise scale in
// value units, and the budget.
func (p Params) result(d noise, k int, per int64) Result {
	b, rho := p.budget()
	f1, f2 := p.factor()
	sens := float64(per * f1)
	if rho > 0 {
		sens = float64(per) * f2
	}
	g := math.Ldexp(1, k)
	return Result{Sensitivity: sens * g, Grid: g, Scale: d.scale() * g, Budget: b, Rho: rho}
}

// sameParams checks that two accumulators can be merged.
func sameParams(a, b Params) error {
	if a == (Params{}) || b == (Params{}) {
		return invalidf("cannot merge a nil or zero accumulator")
	}
	if a != b {
		return invalidf("cannot merge accumulators with different parameters (%+v and %+v)", a, b)
	}
	return nil
}

// Binary form: a 4-byte tag, a kind byte, the parameters, the state.
const (
	binTag      = "PIA1"
	kindCount   = 1
	kindSum     = 2
	kindMean    = 3
	paramsBytes = 5*8 + 2*4 + 2
)

// marshal encodes kind, p and the state words.
func marshal(kind byte, p Params, words ...uint64) []byte {
	b := make([]byte, 0, len(binTag)+1+paramsBytes+8*len(words))
	b = append(b, binTag...)
	b = append(b, kind)
	for _, f := range []float64{p.Epsilon, p.Rho, p.Lo, p.Hi, p.Grid} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(p.MaxPartitionsContributed))
	b = binary.LittleEndian.AppendUint32(b, uint32(p.MaxContributionsPerPartition))
	b = append(b, byte(p.Neighbour))
	seeded := byte(0)
	if p.Reproducible {
		seeded = 1
	}
	b = append(b, seeded)
	for _, w := range words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

// unmarshal decodes data of the given kind with nw state words and
// validates the parameters.
func unmarshal(data []byte, kind byte, nw int) (Params, []uint64, error) {
	want := len(binTag) + 1 + paramsBytes + 8*nw
	if len(data) != want || string(data[:len(binTag)]) != binTag {
		return Params{}, nil, invalidf("binary accumulator: %d bytes, want %d with tag %q", len(data), want, binTag)
	}
	if data[4] != kind {
		return Params{}, nil, invalidf("binary accumulator of kind %d, want %d", data[4], kind)
	}
	d := data[5:]
	f := func() float64 { v := math.Float64frombits(binary.LittleEndian.Uint64(d)); d = d[8:]; return v }
	var p Params
	p.Epsilon, p.Rho, p.Lo, p.Hi, p.Grid = f(), f(), f(), f(), f()
	p.MaxPartitionsContributed = int(int32(binary.LittleEndian.Uint32(d)))
	p.MaxContributionsPerPartition = int(int32(binary.LittleEndian.Uint32(d[4:])))
	p.Neighbour = Neighbour(d[8])
	if d[9] > 1 {
		return Params{}, nil, invalidf("binary accumulator: bad seeded flag %d", d[9])
	}
	p.Reproducible = d[9] == 1
	d = d[10:]
	if err := p.Validate(); err != nil {
		return Params{}, nil, fmt.Errorf("binary accumulator: %w", err)
	}
	w := make([]uint64, nw)
	for i := range w {
		w[i] = binary.LittleEndian.Uint64(d[8*i:])
	}
	return p, w, nil
}

// MarshalBinary encodes the parameters and the count.
func (a *CountAccumulator) MarshalBinary() ([]byte, error) {
	if a == nil {
		return nil, invalidf("nil accumulator")
	}
	return marshal(kindCount, a.p, uint64(a.n)), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded, validating it.
func (a *CountAccumulator) UnmarshalBinary(data []byte) error {
	p, w, err := unmarshal(data, kindCount, 1)
	if err != nil {
		return err
	}
	if int64(w[0]) < 0 {
		return invalidf("binary count accumulator: negative count")
	}
	*a = CountAccumulator{p: p, n: int64(w[0])}
	return nil
}

// MarshalBinary encodes the parameters and the sum.
func (a *SumAccumulator) MarshalBinary() ([]byte, error) {
	if a == nil {
		return nil, invalidf("nil accumulator")
	}
	return marshal(kindSum, a.p, uint64(a.s.hi), a.s.lo), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded, validating it.
func (a *SumAccumulator) UnmarshalBinary(data []byte) error {
	p, w, err := unmarshal(data, kindSum, 2)
	if err != nil {
		return err
	}
	n, err := NewSumAccumulator(p)
	if err != nil {
		return err
	}
	n.s = wide{hi: int64(w[0]), lo: w[1]}
	*a = *n
	return nil
}

// MarshalBinary encodes the parameters, the count and the sum.
func (a *MeanAccumulator) MarshalBinary() ([]byte, error) {
	if a == nil {
		return nil, invalidf("nil accumulator")
	}
	return marshal(kindMean, a.p, uint64(a.n), uint64(a.s.hi), a.s.lo), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded, validating it.
func (a *MeanAccumulator) UnmarshalBinary(data []byte) error {
	p, w, err := unmarshal(data, kindMean, 3)
	if err != nil {
		return err
	}
	if int64(w[0]) < 0 {
		return invalidf("binary mean accumulator: negative count")
	}
	n, err := NewMeanAccumulator(p)
	if err != nil {
		return err
	}
	n.n, n.s = int64(w[0]), wide{hi: int64(w[1]), lo: w[2]}
	*a = *n
	return nil
}
