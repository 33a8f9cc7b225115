package sbi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"unicode/utf8"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/simulate"
)

// File format of a saved posterior (little-endian), version 1, 2 or 3
// (Save writes version 3; all three load):
//
//	magic "PRIVSBIP" | version uint32 | kind uint8 (1 SPPE Posterior,
//	2 SPLE LikelihoodPosterior) | rounds uint32 | seed uint64 |
//	dim uint32 (θ) | obsLen uint32 | obs [obsLen]float64 |
//	inSupport, minInSupport float64 | fallback uint8 |
//	chains, warmup, thin uint32 |
//	(version 2 only: the regression shift, Config.RegressionShift,
//	 a [dim]float64 | B [dim×obsLen]float64) |
//	(version 3 only: ctxDim uint32 (the release's length) | hasShift uint8 |
//	 if hasShift: a [dim]float64 | B [dim×ctxDim]float64 |
//	 nNames uint32 (0 or dim) | nNames × (len uint32 | UTF-8 name)) |
//	nProbe uint32 | probes [nProbe×dim]float64 | log π(probe) [nProbe]float64 |
//	nCand uint32 | cand [nCand×dim]float64 (kind 2; 0 for kind 1) |
//	flowLen uint64 | the flow as written by flow.Flow.Save |
//	CRC-32 (IEEE) of all preceding bytes, uint32.
//
// In version 3 obsLen is 0 for an amortized SPPE posterior trained
// without an observation (its probes are then all prior draws and its
// inSupport 0). Files of versions 1 and 2 load with no parameter names.
//
// The prior itself is not stored: it is code, passed again to the loader,
// which checks it against the probes (the saved prior's log density at
// prior and posterior draws).
const (
	postMagic    = "PRIVSBIP"
	postVersion  = 1 // without a regression shift
	shiftVersion = 2 // with one
	namesVersion = 3 // the context dimension, an optional shift, names
	maxNameLen   = 1 << 10
	kindPost     = 1
	kindLik      = 2
	// probes is the number of prior-compatibility probes: half prior
	// draws, half draws of the trained flow.
	probes      = 16
	maxPostFile = 1 << 31
	tagProbe    = 0x70726f6265
)

// ErrCorrupt is wrapped by the errors of LoadPosterior and
// LoadLikelihoodPosterior about a malformed file, and by those of SPPE and
// SPLE about a malformed Config.Checkpoint: a file that is not one, fails
// its checksum, or whose fields are out of range or disagree with each
// other, with the flow or with the prior. It wraps ErrInvalid. The
// messages name the argument that supplied the file:
// "sbi: invalid argument: r: corrupt or unsupported file: <what>", or
// `… Config.Checkpoint "<path>": corrupt or unsupported file: <what>`.
var ErrCorrupt = fmt.Errorf("%w: corrupt or unsupported file", ErrInvalid)

// ErrIncompatiblePrior is returned (wrapping ErrInvalid) when the prior
// passed to a loader is not the one the posterior was saved with; the
// message reads "sbi: invalid argument: prior: not the prior saved with
// the posterior: <where it differs>".
var ErrIncompatiblePrior = fmt.Errorf("%w: not the prior saved with the posterior", ErrInvalid)

// corrupt returns an error wrapping ErrCorrupt about the file read from
// the loaders' argument r.
func corrupt(format string, a ...any) error { return about(ErrCorrupt, "r", format, a...) }

// saved is the content of a posterior file.
type saved struct {
	kind uint8
	dim  int
	postSettings
	probes  []float64 // nProbe×dim
	probeLP []float64
	cand    []float64
	f       *flow.Flow
}

// probePoints returns the compatibility probes of a posterior: probes/2
// prior draws and probes/2 draws of the flow sampler draw(r, n, dst), on
// streams of seed, with the prior's log density at each.
func probePoints(prior simulate.Prior, seed uint64, draw func(r *rand.Rand, n int, dst []float64) error) ([]float64, []float64, error) {
	d := prior.Dim()
	pts := make([]float64, probes*d)
	r := parallel.Stream(seed, tagProbe)
	for i := range probes / 2 {
		prior.Sample(r, pts[i*d:(i+1)*d])
	}
	if err := draw(r, probes-probes/2, pts[probes/2*d:]); err != nil {
		return nil, nil, fmt.Errorf("sbi: %w", err)
	}
	lp := make([]float64, probes)
	for i := range lp {
		lp[i] = prior.LogDensity(pts[i*d : (i+1)*d])
	}
	return pts, lp, nil
}

func (s *saved) write(w io.Writer) error {
	if argcheck.Nil(w) {
		return about(ErrInvalid, "w", "must not be nil")
	}
	var b bytes.Buffer
	le := binary.LittleEndian
	put := func(v any) { _ = binary.Write(&b, le, v) }
	b.WriteString(postMagic)
	put(uint32(namesVersion))
	put(s.kind)
	put(uint32(s.rounds))
	put(s.seed)
	put(uint32(s.dim))
	put(uint32(len(s.obs)))
	put(s.obs)
	put([]float64{s.inSupport, s.minIn})
	fb := uint8(0)
	if s.fallback {
		fb = 1
	}
	put(fb)
	put([]uint32{uint32(s.chains), uint32(s.warmup), uint32(s.thin)})
	ctxDim := s.f.ContextDim()
	if s.kind == kindLik {
		ctxDim = s.f.Dim()
	}
	put(uint32(ctxDim))
	if s.shift != nil {
		put(uint8(1))
		put(s.shift.a)
		put(s.shift.b)
	} else {
		put(uint8(0))
	}
	put(uint32(len(s.names)))
	for _, n := range s.names {
		put(uint32(len(n)))
		b.WriteString(n)
	}
	put(uint32(len(s.probeLP)))
	put(s.probes)
	put(s.probeLP)
	put(uint32(len(s.cand) / max(s.dim, 1)))
	put(s.cand)
	var fb2 bytes.Buffer
	if err := s.f.Save(&fb2); err != nil {
		return fmt.Errorf("sbi: %w", err)
	}
	put(uint64(fb2.Len()))
	b.Write(fb2.Bytes())
	put(crc32.ChecksumIEEE(b.Bytes()))
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("sbi: w: writing the posterior: %w", err)
	}
	return nil
}

// reader decodes the fixed-width fields of a posterior file.
type reader struct {
	data []byte
	p    int
	err  error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.data)-r.p < n {
		r.err = corrupt("truncated after %d bytes", r.p)
		return false
	}
	return true
}

func (r *reader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	r.p++
	return r.data[r.p-1]
}

func (r *reader) u32() int {
	if !r.need(4) {
		return 0
	}
	r.p += 4
	return int(binary.LittleEndian.Uint32(r.data[r.p-4:]))
}

func (r *reader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	r.p += 8
	return binary.LittleEndian.Uint64(r.data[r.p-8:])
}

// floats reads n float64 values; finite ones only unless inf is set
// (then −Inf is allowed too).
func (r *reader) floats(n int, what string, inf bool) []float64 {
	if n < 0 || n > len(r.data)/8 || !r.need(8*n) {
		r.need(-1)
		return nil
	}
	out := make([]float64, n)
	for i := range out {
		v := math.Float64frombits(r.u64())
		if math.IsNaN(v) || math.IsInf(v, 1) || (math.IsInf(v, -1) && !inf) {
			r.err = corrupt("%s[%d] is %v", what, i, v)
			return nil
		}
		out[i] = v
	}
	return out
}

// read parses a posterior file of the given kind and checks prior against
// its probes.
func read(src io.Reader, prior simulate.Prior, kind uint8) (*saved, error) {
	if argcheck.Nil(src) {
		return nil, about(ErrInvalid, "r", "must not be nil")
	}
	if argcheck.Nil(prior) {
		return nil, about(ErrInvalid, "prior", "must not be nil (pass the prior the posterior was trained with)")
	}
	data, err := io.ReadAll(io.LimitReader(src, maxPostFile+1))
	if err != nil {
		return nil, fmt.Errorf("sbi: r: reading the posterior: %w", err)
	}
	bad := corrupt
	switch {
	case len(data) > maxPostFile:
		return nil, bad("file larger than %d bytes", maxPostFile)
	case len(data) < len(postMagic)+8 || string(data[:len(postMagic)]) != postMagic:
		return nil, bad("not a posterior file (bad magic number)")
	}
	le := binary.LittleEndian
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != le.Uint32(data[len(data)-4:]) {
		return nil, bad("checksum mismatch")
	}
	r := &reader{data: body, p: len(postMagic)}
	bad = func(format string, a ...any) error {
		if r.err != nil { // a field read past the end: say so
			return r.err
		}
		return corrupt(format, a...)
	}
	version := r.u32()
	if r.err == nil && version != postVersion && version != shiftVersion && version != namesVersion {
		return nil, bad("unsupported version %d", version)
	}
	s := &saved{kind: r.u8()}
	if r.err == nil && s.kind != kindPost && s.kind != kindLik {
		return nil, bad("unknown posterior kind %d", s.kind)
	}
	if r.err == nil && s.kind != kind {
		want, got := "an SPPE Posterior", "an SPLE LikelihoodPosterior"
		if kind == kindLik {
			want, got = got, want
		}
		return nil, about(ErrInvalid, "r", "the file holds %s, not %s", got, want)
	}
	s.rounds = r.u32()
	s.seed = r.u64()
	if s.dim = r.u32(); s.dim < 1 || s.dim > maxDim {
		return nil, bad("θ dimension %d", s.dim)
	}
	s.obs = r.floats(r.u32(), "observation", false)
	if len(s.obs) == 0 {
		s.obs = nil // not conditioned on a release
	}
	sup := r.floats(2, "in-support fraction", false)
	fallback := r.u8()
	if r.err == nil && fallback > 1 {
		return nil, bad("leakage fallback flag %d, want 0 or 1", fallback)
	}
	s.fallback = fallback == 1
	s.chains, s.warmup, s.thin = r.u32(), r.u32(), r.u32()
	ctxDim := len(s.obs)
	hasShift := version == shiftVersion
	if version == namesVersion {
		ctxDim = r.u32()
		if ctxDim < 1 || ctxDim > maxDim {
			return nil, bad("release dimension %d", ctxDim)
		}
		h := r.u8()
		if r.err == nil && h > 1 {
			return nil, bad("regression shift flag %d, want 0 or 1", h)
		}
		hasShift = h == 1
	}
	if hasShift {
		if s.kind != kindPost {
			return nil, bad("a regression shift in an SPLE posterior")
		}
		s.shift = &linShift{a: r.floats(s.dim, "shift intercept", false)}
		s.shift.b = r.floats(s.dim*ctxDim, "shift slope", false)
	}
	if version == namesVersion {
		if s.names, err = r.names(s.dim); err != nil {
			return nil, err
		}
	}
	np := r.u32()
	if r.err == nil && np != probes {
		return nil, bad("%d prior probes, want %d", np, probes)
	}
	s.probes = r.floats(np*s.dim, "probe", false)
	s.probeLP = r.floats(np, "probe log density", true)
	s.cand = r.floats(r.u32()*s.dim, "chain start", false)
	fl := r.u64()
	if r.err != nil {
		return nil, r.err
	}
	if fl != uint64(len(body)-r.p) {
		return nil, bad("flow of %d bytes, %d left in the file", fl, len(body)-r.p)
	}
	s.f, err = flow.Load(bytes.NewReader(body[r.p:]))
	if err != nil {
		return nil, aboutCause(ErrCorrupt, "r", err, "its flow")
	}
	s.inSupport, s.minIn = sup[0], sup[1]
	theta := s.f.Dim()
	if kind == kindLik {
		theta = s.f.ContextDim()
	}
	switch {
	case s.rounds < 1 || s.rounds > maxRounds:
		return nil, bad("%d rounds", s.rounds)
	case s.dim != theta:
		return nil, bad("θ dimension %d, the flow's is %d", s.dim, theta)
	case kind == kindPost && ctxDim != s.f.ContextDim(), kind == kindLik && ctxDim != s.f.Dim():
		return nil, bad("release dimension %d does not fit the flow", ctxDim)
	case s.obs != nil && len(s.obs) != ctxDim:
		return nil, bad("observation of length %d, the release dimension is %d", len(s.obs), ctxDim)
	case s.obs == nil && (kind != kindPost || s.rounds != 1):
		return nil, bad("no observation in a posterior that is not an amortized SPPE posterior")
	case !(s.inSupport >= 0 && s.inSupport <= 1) || !(s.minIn >= 0 && s.minIn <= 1):
		return nil, bad("in-support fractions %v, %v outside [0, 1]", s.inSupport, s.minIn)
	case s.chains < 1 || s.chains > maxChains || s.warmup > maxWarmup || s.thin < 1 || s.thin > maxThin:
		return nil, bad("chains %d, warm-up %d, thinning %d out of range", s.chains, s.warmup, s.thin)
	case kind == kindPost && len(s.cand) != 0:
		return nil, bad("chain starts in an SPPE posterior")
	case kind == kindLik && (s.inSupport != 1 || s.minIn != 0 || s.fallback || s.seed != 0):
		return nil, bad("SPLE posterior with in-support fraction %v, minimum %v, fallback %v, seed %d (written as 1, 0, false, 0)",
			s.inSupport, s.minIn, s.fallback, s.seed)
	}
	// The first half of the probes are prior draws: inside the prior's
	// support by construction.
	for i, lp := range s.probeLP[:probes/2] {
		if math.IsInf(lp, -1) {
			return nil, bad("prior probe %d has log density −Inf", i)
		}
	}

	if d := prior.Dim(); d != s.dim {
		return nil, about(ErrIncompatiblePrior, "prior", "it has dimension %d, the posterior's θ has %d", d, s.dim)
	}
	for i, want := range s.probeLP {
		x := s.probes[i*s.dim : (i+1)*s.dim]
		got := prior.LogDensity(x)
		same := got == want || math.Abs(got-want) <= 1e-9*math.Max(1, math.Abs(want))
		if !same {
			return nil, about(ErrIncompatiblePrior, "prior", "log density %v at θ = %v, saved %v", got, x, want)
		}
	}
	for i := 0; i < len(s.cand)/s.dim; i++ {
		x := s.cand[i*s.dim : (i+1)*s.dim]
		if lp := prior.LogDensity(x); math.IsNaN(lp) || math.IsInf(lp, 0) {
			return nil, bad("chain start %d = %v outside the prior's support", i, x)
		}
	}
	return s, nil
}

// Save writes the posterior to w in a versioned binary format with a
// checksum: the trained flow with its standardisation, the observation
// (none for an amortized posterior trained without one), the parameter
// names,
// the in-support fraction and leakage settings, the MCMC settings, the
// number of training rounds and the seed of the support check, the
// regression shift if it has one (Config.RegressionShift), and the
// prior's log density at 16 probe points. The prior itself is passed again
// to LoadPosterior, which checks it against the probes. A loaded posterior
// samples exactly as the saved one: the same draws for the same random
// source.
func (q *Posterior) Save(w io.Writer) error {
	if q.unbuilt() {
		return errUnbuilt("Posterior")
	}
	pts, lp, err := probePoints(q.prior, q.seed, func(r *rand.Rand, n int, dst []float64) error {
		if q.obs == nil { // no release to draw the flow at: prior draws
			d := q.f.Dim()
			for i := range n {
				q.prior.Sample(r, dst[i*d:(i+1)*d])
			}
			return nil
		}
		return q.flowSample(r, q.obs, n, dst)
	})
	if err != nil {
		return err
	}
	s := &saved{kind: kindPost, dim: q.f.Dim(), postSettings: q.postSettings, probes: pts, probeLP: lp, f: q.f}
	return s.write(w)
}

// LoadPosterior reads a posterior written by Posterior.Save. prior must be
// the prior the posterior was trained with: a prior of another dimension,
// or whose log density differs at the saved probe points (beyond a
// relative 10⁻⁹), is refused with an error wrapping ErrIncompatiblePrior.
// A malformed file gives an error wrapping ErrCorrupt.
func LoadPosterior(r io.Reader, prior simulate.Prior) (*Posterior, error) {
	s, err := read(r, prior, kindPost)
	if err != nil {
		return nil, err
	}
	q := &Posterior{f: s.f, prior: prior, postSettings: s.postSettings, resid: residPool(s.f.Dim())}
	// The in-support fraction derives from the flow, the observation and
	// the seed; one that differs from its recomputation (a fraction of 0
	// would make every log density +Inf) is refused.
	if err := q.estimateSupport(); err != nil {
		return nil, err
	}
	if q.inSupport != s.inSupport {
		return nil, corrupt("in-support fraction %v, the saved flow gives %v at the saved observation and seed", s.inSupport, q.inSupport)
	}
	return q, nil
}

// Save writes the posterior to w in the format of Posterior.Save: the
// trained likelihood flow, the observation, the parameter names, the MCMC
// settings, the chain
// start candidates (the last round's draws), the number of training
// rounds and the prior's log density at 16 probe points. A loaded
// posterior samples exactly as the saved one.
func (q *LikelihoodPosterior) Save(w io.Writer) error {
	if q.unbuilt() {
		return errUnbuilt("LikelihoodPosterior")
	}
	d := q.Dim()
	pts, lp, err := probePoints(q.lik.prior, 0, func(r *rand.Rand, n int, dst []float64) error {
		nc := len(q.cand) / d
		for i := range n { // chain starts stand for posterior draws
			if nc == 0 {
				q.lik.prior.Sample(r, dst[i*d:(i+1)*d])
				continue
			}
			copy(dst[i*d:(i+1)*d], q.cand[i%nc*d:(i%nc+1)*d])
		}
		return nil
	})
	if err != nil {
		return err
	}
	s := &saved{kind: kindLik, dim: d, postSettings: postSettings{obs: q.obs, inSupport: 1,
		chains: q.cfg.Chains, warmup: q.cfg.Warmup, thin: q.cfg.Thin, rounds: q.rounds, names: q.names},
		probes: pts, probeLP: lp, cand: q.cand, f: q.lik.f}
	return s.write(w)
}

// LoadLikelihoodPosterior reads a posterior written by
// LikelihoodPosterior.Save; prior is checked as by LoadPosterior.
func LoadLikelihoodPosterior(r io.Reader, prior simulate.Prior) (*LikelihoodPosterior, error) {
	s, err := read(r, prior, kindLik)
	if err != nil {
		return nil, err
	}
	if len(s.cand) == 0 {
		return nil, corrupt("no chain starts")
	}
	return &LikelihoodPosterior{lik: &Likelihood{f: s.f, prior: prior}, obs: s.obs,
		cfg: Config{Chains: s.chains, Warmup: s.warmup, Thin: s.thin}, cand: s.cand, rounds: s.rounds, names: s.names}, nil
}

// names reads the parameter names of a version-3 file: none, or d
// non-empty, distinct UTF-8 names of at most maxNameLen bytes.
func (r *reader) names(d int) ([]string, error) {
	n := r.u32()
	if r.err != nil {
		return nil, r.err
	}
	if n == 0 {
		return nil, nil
	}
	if n != d {
		return nil, corrupt("%d parameter names for dimension %d", n, d)
	}
	out := make([]string, n)
	seen := make(map[string]bool, n)
	for i := range out {
		l := r.u32()
		if r.err == nil && (l < 1 || l > maxNameLen) {
			return nil, corrupt("parameter name %d of %d bytes", i, l)
		}
		if !r.need(l) {
			return nil, r.err
		}
		name := string(r.data[r.p : r.p+l])
		r.p += l
		if !utf8.ValidString(name) || seen[name] {
			return nil, corrupt("parameter name %d %q is not valid UTF-8 or is repeated", i, name)
		}
		seen[name] = true
		out[i] = name
	}
	return out, nil
}
