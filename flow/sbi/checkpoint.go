package sbi

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/atomicfile"
)

// File format of a checkpoint (Config.Checkpoint):
//
//	magic "PRIVSBIC" | version uint32 | fingerprint [32]byte |
//	length uint64 | the state, encoded by encoding/gob |
//	CRC-32 (IEEE) of all preceding bytes, uint32.
//
// The fingerprint is a SHA-256 of everything that decides the run's
// results and is not code (see engine.fingerprint); a checkpoint whose
// fingerprint differs belongs to another run and is refused.
const (
	ckptMagic   = "PRIVSBIC"
	ckptVersion = 1
)

// ErrCheckpointMismatch is returned (wrapping ErrInvalid) when the file
// named by Config.Checkpoint was saved by a run with other settings, another
// release or another kind of problem; the message reads
// `sbi: invalid argument: Config.Checkpoint "<path>": the checkpoint was
// saved by a run with other settings: …`.
var ErrCheckpointMismatch = fmt.Errorf("%w: the checkpoint was saved by a run with other settings", ErrInvalid)

// ckptArg names the argument a checkpoint file comes from in errors:
// Config.Checkpoint and its path.
func ckptArg(path string) string { return fmt.Sprintf("Config.Checkpoint %q", path) }

// ckptCorrupt returns an error wrapping ErrCorrupt about the checkpoint
// file at path.
func ckptCorrupt(path, format string, a ...any) error {
	return about(ErrCorrupt, ckptArg(path), format, a...)
}

// ckptState is what a run keeps after a round: every round's simulations
// with their split, the trained flow (with its z-scoring), SPPE's
// regression shift, the parameters the next round simulates at and the
// result so far. Everything else an engine holds is rebuilt from the
// problem and Config: every round's random streams derive from Config.Seed
// and the round, and each round trains with a new optimiser.
type ckptState struct {
	Round                 int // rounds completed
	Theta, Stat, LogPrior []float64
	Train, Val            []int
	Flow                  []byte // flow.Flow.Save
	HasShift              bool
	ShiftA, ShiftB        []float64
	Next                  []float64 // the next round's θ
	History               []roundState
	Rounds                []RoundResult // the totals of Result derive from them
	Elapsed               time.Duration
}

// roundState is what a checkpoint keeps of every round done, so that a
// resumed run can give OnRound the rounds' estimates again: the flow's
// parameters after the round and the number of chains of its draws (the
// draws themselves are the next round's simulated parameters).
type roundState struct {
	Params []float64
	Chains int
}

// fingerprint hashes what decides a run's results besides the problem's
// code: the method, the filled configuration (not its callbacks, nor
// Train.Workers, which does not change results), the problem's dimensions,
// the types of its parts and its release, the given simulations, and the
// initial flows (which carry the architectures and their seeded
// initialisation).
func (e *engine) fingerprint() ([32]byte, error) {
	h := sha256.New()
	put := func(vs ...any) {
		for _, v := range vs {
			_ = binary.Write(h, binary.LittleEndian, v)
		}
	}
	str := func(s string) { put(uint64(len(s))); h.Write([]byte(s)) }
	c := &e.cfg
	b2i := func(b bool) uint8 {
		if b {
			return 1
		}
		return 0
	}
	put(uint8(e.role), int64(c.Rounds), int64(c.SimsPerRound), int64(e.m), int64(c.Integration), int64(c.Atoms),
		shiftCode(c.RegressionShift), c.MinInSupport, b2i(c.LeakageFallback), int64(c.Chains), int64(c.Warmup),
		int64(c.Thin), int64(c.PosteriorSamples), c.Seed)
	if c.CarryChains { // only when set, so that earlier checkpoints stay valid
		// 2: the chains are carried from round 3's proposals on; a
		// checkpoint written when they were carried from round 2's (1) is
		// refused rather than resumed under other rules.
		put(uint8(2))
	}
	t := c.Train
	put(t.LearningRate, t.WeightDecay, int64(t.BatchSize), int64(t.MaxEpochs), int64(t.Patience),
		t.ValidationFraction, t.ClipNorm, t.EMA, int64(t.Shards), b2i(t.Float32))
	put(int64(e.ds.d), int64(e.ds.sd), int64(e.ds.nd), e.deq)
	str(fmt.Sprintf("%T|%T|%T", e.p.Prior, e.p.Simulator, e.p.Mechanism))
	put(uint64(len(e.p.Observed)), e.p.Observed)
	if s := c.Simulations; s != nil {
		put(uint64(len(s.Theta)), s.Theta, uint64(len(s.Stats)), s.Stats)
	} else {
		put(uint64(0))
	}
	for _, f := range append([]*flow.Flow{e.f}, e.alts...) {
		var b bytes.Buffer
		if err := f.Save(&b); err != nil {
			return [32]byte{}, fmt.Errorf("sbi: %w", err)
		}
		put(uint64(b.Len()))
		h.Write(b.Bytes())
	}
	var fp [32]byte
	copy(fp[:], h.Sum(nil))
	return fp, nil
}

// saveCheckpoint writes st to path through a temporary file in the same
// folder renamed over it, so that a run stopped while writing leaves the
// previous checkpoint intact.
func saveCheckpoint(path string, fp [32]byte, st *ckptState) error {
	var g bytes.Buffer
	if err := gob.NewEncoder(&g).Encode(st); err != nil {
		return fmt.Errorf("sbi: %s: encoding the state: %w", ckptArg(path), err)
	}
	var b bytes.Buffer
	b.WriteString(ckptMagic)
	_ = binary.Write(&b, binary.LittleEndian, uint32(ckptVersion))
	b.Write(fp[:])
	_ = binary.Write(&b, binary.LittleEndian, uint64(g.Len()))
	b.Write(g.Bytes())
	_ = binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
		return fmt.Errorf("sbi: %s: writing: %w", ckptArg(path), err)
	}
	return nil
}

// loadCheckpoint reads the checkpoint at path; it returns an error wrapping
// fs.ErrNotExist when there is none, ErrCheckpointMismatch when it belongs
// to another run and ErrCorrupt when it is malformed.
func loadCheckpoint(path string, fp [32]byte) (*ckptState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("sbi: %s: reading: %w", ckptArg(path), err)
	}
	return decodeCheckpoint(path, data, fp)
}

// decodeCheckpoint parses the bytes of the checkpoint file at path.
func decodeCheckpoint(path string, data []byte, fp [32]byte) (*ckptState, error) {
	head := len(ckptMagic) + 4 + 32 + 8
	switch {
	case len(data) < head+4:
		return nil, ckptCorrupt(path, "not a checkpoint file (%d bytes)", len(data))
	case string(data[:len(ckptMagic)]) != ckptMagic:
		return nil, ckptCorrupt(path, "not a checkpoint file (bad magic number)")
	}
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, ckptCorrupt(path, "checksum mismatch")
	}
	if v := binary.LittleEndian.Uint32(data[len(ckptMagic):]); v != ckptVersion {
		return nil, ckptCorrupt(path, "version %d, want %d", v, ckptVersion)
	}
	if !bytes.Equal(data[len(ckptMagic)+4:len(ckptMagic)+36], fp[:]) {
		return nil, about(ErrCheckpointMismatch, ckptArg(path), "another Config, problem or release (delete the file to start over)")
	}
	n := binary.LittleEndian.Uint64(data[head-8:])
	if n != uint64(len(body)-head) {
		return nil, ckptCorrupt(path, "state of %d bytes in a file that holds %d", n, len(body)-head)
	}
	st := new(ckptState)
	if err := gob.NewDecoder(bytes.NewReader(body[head:])).Decode(st); err != nil {
		return nil, ckptCorrupt(path, "state: %v", err)
	}
	return st, nil
}

// checkpoint captures the engine after round with thetas to simulate next.
func (e *engine) checkpoint(round int, thetas []float64, res *Result) error {
	var fb bytes.Buffer
	if err := e.f.Save(&fb); err != nil {
		return fmt.Errorf("sbi: %s: %w", ckptArg(e.cfg.Checkpoint), err)
	}
	st := &ckptState{Round: round, Theta: e.ds.theta, Stat: e.ds.stat, LogPrior: e.ds.logPrior,
		Train: e.ds.train, Val: e.ds.val, Flow: fb.Bytes(), Next: thetas, History: e.hist, Rounds: res.Rounds,
		Elapsed: time.Since(e.start)}
	if e.shift != nil {
		st.HasShift, st.ShiftA, st.ShiftB = true, e.shift.a, e.shift.b
	}
	return saveCheckpoint(e.cfg.Checkpoint, e.fp, st)
}

// resume restores the engine from st after checking that it fits the run,
// and returns the next round's θ and the result so far.
func (e *engine) resume(st *ckptState) ([]float64, *Result, error) {
	bad := func(format string, args ...any) error { return ckptCorrupt(e.cfg.Checkpoint, format, args...) }
	ds, cfg := e.ds, &e.cfg
	n := len(st.LogPrior)
	switch {
	case st.Round < 1 || st.Round >= cfg.Rounds:
		return nil, nil, bad("after round %d of a run of %d", st.Round, cfg.Rounds)
	case len(st.Rounds) != st.Round || len(st.History) != st.Round:
		return nil, nil, bad("records %d rounds and %d states after round %d", len(st.Rounds), len(st.History), st.Round)
	case n == 0 || len(st.Theta) != n*ds.d || len(st.Stat) != n*ds.sd:
		return nil, nil, bad("holds %d, %d and %d values for %d simulations", len(st.Theta), len(st.Stat), n, n)
	case len(st.Train)+len(st.Val) != n:
		return nil, nil, bad("splits %d simulations of %d", len(st.Train)+len(st.Val), n)
	case len(st.Next) != cfg.SimsPerRound*ds.d:
		return nil, nil, bad("holds %d next parameters, want %d", len(st.Next), cfg.SimsPerRound*ds.d)
	case st.HasShift != e.useShift:
		return nil, nil, bad("has a regression shift where the run has none, or none where it has one")
	case st.HasShift && (len(st.ShiftA) != ds.d || len(st.ShiftB) != ds.d*ds.sd):
		return nil, nil, bad("regression shift has the wrong size")
	}
	for r, rr := range st.Rounds {
		h := st.History[r]
		switch {
		case rr.Round != r+1 || rr.Simulations < 1 || rr.Simulations > n:
			return nil, nil, bad("round record %d names round %d after %d simulations", r+1, rr.Round, rr.Simulations)
		case r+1 < st.Round && rr.Simulations+cfg.SimsPerRound > st.Rounds[r+1].Simulations:
			return nil, nil, bad("round %d's simulations do not follow round %d's", r+2, r+1)
		case len(h.Params) != e.f.NumParams() || h.Chains < 0 || h.Chains > cfg.SimsPerRound:
			return nil, nil, bad("state of round %d does not fit the run", r+1)
		}
	}
	if last := st.Rounds[st.Round-1].Simulations; last != n {
		return nil, nil, bad("holds %d simulations, its records %d", n, last)
	}
	if err := e.checkRecords(st); err != nil {
		return nil, nil, err
	}
	seen := make([]bool, n)
	for _, idx := range [][]int{st.Train, st.Val} {
		for _, i := range idx {
			if i < 0 || i >= n || seen[i] {
				return nil, nil, bad("split names simulation %d twice or out of range", i)
			}
			seen[i] = true
		}
	}
	vals := [][]float64{st.Theta, st.Stat, st.Next, st.ShiftA, st.ShiftB}
	for _, h := range st.History {
		vals = append(vals, h.Params)
	}
	for _, v := range vals {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, nil, bad("holds a non-finite value")
			}
		}
	}
	if err := e.checkPrior(st); err != nil {
		return nil, nil, err
	}
	f, err := flow.Load(bytes.NewReader(st.Flow))
	if err != nil {
		return nil, nil, aboutCause(ErrCorrupt, ckptArg(e.cfg.Checkpoint), err, "its flow")
	}
	if f.Dim() != e.f.Dim() || f.ContextDim() != e.f.ContextDim() || f.NumParams() != e.f.NumParams() {
		return nil, nil, bad("flow does not have the run's shape")
	}
	ds.theta, ds.stat, ds.logPrior, ds.train, ds.val = st.Theta, st.Stat, st.LogPrior, st.Train, st.Val
	e.f, e.alts, e.hist = f, nil, st.History
	if st.HasShift {
		e.shift = &linShift{a: st.ShiftA, b: st.ShiftB}
	}
	e.start = time.Now().Add(-st.Elapsed)
	res := &Result{Rounds: st.Rounds, Simulations: n}
	for _, rr := range st.Rounds {
		res.SimTime += rr.SimTime
		res.TrainTime += rr.TrainTime
		res.ProposalTime += rr.ProposalTime
	}
	return st.Next, res, nil
}

// replay calls Config.OnRound for the rounds a resumed run restored, with
// the estimates and draws the run gave it when it made them: each round's
// flow parameters rebuild its estimate, and its draws are the parameters
// the next round simulated (next, for the last round restored).
func (e *engine) replay(m method, res *Result, next []float64) error {
	if e.cfg.OnRound == nil {
		return nil
	}
	d := e.ds.d
	for r, h := range e.hist {
		x := next
		if r+1 < len(e.hist) {
			lo := res.Rounds[r].Simulations
			x = slices.Clone(e.ds.theta[lo*d : (lo+e.cfg.SimsPerRound)*d])
		}
		f := e.f.Clone()
		if err := f.SetParams(h.Params); err != nil {
			return fmt.Errorf("sbi: %s: round %d: %w", ckptArg(e.cfg.Checkpoint), r+1, err)
		}
		est, err := m.estimate(e, f, r+1, x)
		if err != nil {
			return fmt.Errorf("sbi: %s: round %d: %w", ckptArg(e.cfg.Checkpoint), r+1, err)
		}
		e.cfg.OnRound(r+1, est, e.draws(x, h.Chains))
	}
	return nil
}

// removeCheckpoint deletes a finished run's checkpoint and the temporary
// files of checkpoint writes a killed run left; one that is already gone
// is not an error.
func removeCheckpoint(path string) error {
	if err := atomicfile.Remove(path); err != nil {
		return fmt.Errorf("sbi: %s: removing: %w", ckptArg(path), err)
	}
	return nil
}

// checkRecords checks the meaning of a checkpoint's round records and
// elapsed time: what a run writes is in these ranges, so a record outside
// them was not written by one.
func (e *engine) checkRecords(st *ckptState) error {
	bad := func(r int, format string, args ...any) error {
		return ckptCorrupt(e.cfg.Checkpoint, "round record %d: %s", r, fmt.Sprintf(format, args...))
	}
	if st.Elapsed < 0 {
		return ckptCorrupt(e.cfg.Checkpoint, "elapsed time %v is negative", st.Elapsed)
	}
	cfg, d := &e.cfg, e.ds.d
	frac := func(v float64) bool { return math.IsNaN(v) || (v >= 0 && v <= 1) }
	for i, rr := range st.Rounds {
		r := i + 1
		switch {
		case rr.Epochs < 1 || rr.Epochs > cfg.Train.MaxEpochs:
			return bad(r, "%d epochs, the run trains 1 to %d", rr.Epochs, cfg.Train.MaxEpochs)
		case rr.BestEpoch < 0 || rr.BestEpoch > rr.Epochs:
			return bad(r, "best epoch %d of %d", rr.BestEpoch, rr.Epochs)
		case len(rr.TrainLoss) != rr.Epochs || len(rr.ValidationLoss) != rr.Epochs:
			return bad(r, "%d training and %d validation losses for %d epochs", len(rr.TrainLoss), len(rr.ValidationLoss), rr.Epochs)
		case rr.Candidates != nil && (r != 1 || len(rr.Candidates) != 1+len(cfg.FlowCandidates)):
			return bad(r, "%d candidate losses, the run has %d architectures", len(rr.Candidates), 1+len(cfg.FlowCandidates))
		case rr.Selected < 0 || rr.Selected >= max(len(rr.Candidates), 1):
			return bad(r, "selected architecture %d of %d", rr.Selected, len(rr.Candidates))
		case rr.SimTime < 0 || rr.TrainTime < 0 || rr.ProposalTime < 0:
			return bad(r, "negative wall time (%v, %v, %v)", rr.SimTime, rr.TrainTime, rr.ProposalTime)
		case !frac(rr.InSupport):
			return bad(r, "in-support fraction %v outside [0, 1]", rr.InSupport)
		case rr.RHat != nil && len(rr.RHat) != d:
			return bad(r, "%d R̂ values for dimension %d", len(rr.RHat), d)
		case !frac(rr.AcceptRate) || rr.ESS < 0 || rr.Thin < 0 || rr.ChainGroups < 0:
			return bad(r, "chain diagnostics out of range (acceptance %v, ESS %v, thinning %d, groups %d)",
				rr.AcceptRate, rr.ESS, rr.Thin, rr.ChainGroups)
		}
		for _, v := range rr.RHat {
			if v < 0 || math.IsInf(v, 0) {
				return bad(r, "R̂ %v", v)
			}
		}
	}
	return nil
}

// checkPrior checks a checkpoint's simulations against the run: every
// recorded log prior density is the prior's at its θ, every θ the next
// round simulates lies in the prior's support, and the first rows are
// Config.Simulations when the run was given simulations.
func (e *engine) checkPrior(st *ckptState) error {
	bad := func(format string, args ...any) error { return ckptCorrupt(e.cfg.Checkpoint, format, args...) }
	d := e.ds.d
	for i, lp := range st.LogPrior {
		th := st.Theta[i*d : (i+1)*d]
		if got := e.p.Prior.LogDensity(th); got != lp || math.IsInf(lp, 0) || math.IsNaN(lp) {
			return bad("records log prior density %v at θ = %v, the prior gives %v", lp, th, got)
		}
	}
	for i := 0; i < len(st.Next)/d; i++ {
		th := st.Next[i*d : (i+1)*d]
		if lp := e.p.Prior.LogDensity(th); math.IsInf(lp, 0) || math.IsNaN(lp) {
			return bad("proposes θ = %v outside the prior's support", th)
		}
	}
	if s := e.cfg.Simulations; s != nil {
		if len(st.Theta) < len(s.Theta) || len(st.Stat) < len(s.Stats) ||
			!slices.Equal(st.Theta[:len(s.Theta)], s.Theta) || !slices.Equal(st.Stat[:len(s.Stats)], s.Stats) {
			return bad("does not start with Config.Simulations")
		}
	}
	return nil
}

// shiftCode is Config.RegressionShift in the fingerprint: 0 for ShiftAuto
// and 1 for ShiftOff, the codes of the earlier boolean (shift on, shift
// off), so that checkpoints written before the modes stay valid (whether
// a run has a shift is checked against the checkpoint separately), and 2
// for ShiftOn.
func shiftCode(m ShiftMode) uint8 {
	switch m {
	case ShiftOff:
		return 1
	case ShiftOn:
		return 2
	}
	return 0
}
