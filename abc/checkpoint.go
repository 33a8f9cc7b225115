package abc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/atomicfile"
)

// File format of an SMC-ABC checkpoint (SMCConfig.Checkpoint):
//
//	magic "PRIVSMCC" | version uint32 | fingerprint [32]byte |
//	length uint64 | the state, encoded by encoding/gob |
//	CRC-32 (IEEE) of all preceding bytes, uint32.
//
// The fingerprint is a SHA-256 of what decides the run's results besides
// code (smcFingerprint); a checkpoint with another fingerprint belongs to
// another run and is refused.
const (
	smcMagic   = "PRIVSMCC"
	smcVersion = 1
)

// ErrCorrupt is wrapped (with ErrInvalid) by the errors of SMC about a
// malformed SMCConfig.Checkpoint: not a checkpoint file, a failed
// checksum, or fields out of range or inconsistent with each other, with
// the problem or with the configuration.
var ErrCorrupt = fmt.Errorf("%w: corrupt or unsupported checkpoint", ErrInvalid)

// ErrCheckpointMismatch is returned (wrapping ErrInvalid) when the file
// named by SMCConfig.Checkpoint was saved by a run with another problem
// or other settings.
var ErrCheckpointMismatch = fmt.Errorf("%w: the checkpoint was saved by a run with other settings", ErrInvalid)

// smcState is what an SMC-ABC run keeps after a round: every completed
// round, the total number of simulations and the wall time so far. The
// next round's random streams derive from SMCConfig.Seed and the round
// index, and its perturbation from the last round, so nothing else is
// needed to continue.
type smcState struct {
	Rounds      []smcRoundState
	Simulations int64
	Elapsed     time.Duration
}

// smcRoundState is a Round without its Draws' names (they are the
// problem's).
type smcRoundState struct {
	Round                  int
	Theta, Weights         []float64
	Distance               []float64
	Tolerance              float64
	Simulations, Proposals int64
	Speculative            int64
	Acceptance, ESS        float64
	Resampled              bool
	Elapsed                time.Duration
}

// smcFingerprint hashes what decides an SMC-ABC run's results besides the
// problem's code: the types of the prior, simulator and mechanism, the
// dimensions, the observation, and the configuration (the types and
// values of Distance and Schedule, Particles, Perturbation, ResampleESS,
// MaxSimulations, MinAcceptance, StallRatio, Seed and MinBatch; not the
// Executor, which does not change results, nor Progress and Checkpoint). A Distance or Schedule holding pointers or functions is
// printed with their addresses, so its checkpoint is refused by another
// process: such runs start again instead of continuing.
func smcFingerprint(p *privinfer.Problem, cfg *SMCConfig, dim, statDim int) [32]byte {
	h := sha256.New()
	put := func(vs ...any) {
		for _, v := range vs {
			_ = binary.Write(h, binary.LittleEndian, v)
		}
	}
	str := func(s string) { put(uint64(len(s))); io.WriteString(h, s) }
	value := func(v any) string {
		x := reflect.ValueOf(v)
		for x.Kind() == reflect.Pointer && !x.IsNil() {
			x = x.Elem()
		}
		if !x.IsValid() {
			return fmt.Sprintf("%T", v)
		}
		return fmt.Sprintf("%T|%+v", v, x.Interface())
	}
	str(fmt.Sprintf("%T|%T|%T", p.Prior, p.Simulator, p.Mechanism))
	put(int64(dim), int64(statDim), uint64(len(p.Observed)), p.Observed)
	str(value(cfg.Distance))
	str(value(cfg.Schedule))
	minBatch := cfg.MinBatch
	if minBatch == 0 {
		minBatch = defaultMinBatch
	}
	put(int64(cfg.Particles), int64(cfg.Perturbation), cfg.ResampleESS, cfg.MaxSimulations, cfg.MinAcceptance,
		cfg.StallRatio, cfg.Seed, int64(minBatch))
	var fp [32]byte
	copy(fp[:], h.Sum(nil))
	return fp
}

// saveSMCCheckpoint writes the completed rounds, the number of
// simulations and the elapsed time to path atomically (temporary file,
// fsync, rename), so a run killed while writing leaves the previous
// checkpoint whole.
func saveSMCCheckpoint(path string, fp [32]byte, rounds []*Round, sims int64, elapsed time.Duration) error {
	st := smcState{Simulations: sims, Elapsed: elapsed}
	for _, r := range rounds {
		st.Rounds = append(st.Rounds, smcRoundState{Round: r.Round, Theta: r.Draws.Theta, Weights: r.Draws.Weights,
			Distance: r.Distance, Tolerance: r.Tolerance, Simulations: r.Simulations, Proposals: r.Proposals,
			Speculative: r.Speculative, Acceptance: r.Acceptance, ESS: r.ESS, Resampled: r.Resampled, Elapsed: r.Elapsed})
	}
	var g bytes.Buffer
	if err := gob.NewEncoder(&g).Encode(&st); err != nil {
		return fmt.Errorf("abc: SMCConfig.Checkpoint %q: encoding the state: %w", path, err)
	}
	var b bytes.Buffer
	b.WriteString(smcMagic)
	_ = binary.Write(&b, binary.LittleEndian, uint32(smcVersion))
	b.Write(fp[:])
	_ = binary.Write(&b, binary.LittleEndian, uint64(g.Len()))
	b.Write(g.Bytes())
	_ = binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(b.Bytes()); return err }); err != nil {
		return fmt.Errorf("abc: SMCConfig.Checkpoint %q: %w", path, err)
	}
	return nil
}

// decodeSMCCheckpoint parses a checkpoint file's bytes: ErrCorrupt for a
// malformed file, ErrCheckpointMismatch for another run's.
func decodeSMCCheckpoint(data []byte, fp [32]byte) (*smcState, error) {
	head := len(smcMagic) + 4 + 32 + 8
	if len(data) < head+4 || string(data[:len(smcMagic)]) != smcMagic {
		return nil, fmt.Errorf("%w: not an SMC-ABC checkpoint file", ErrCorrupt)
	}
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(data[len(smcMagic):]); v != smcVersion {
		return nil, fmt.Errorf("%w: version %d", ErrCorrupt, v)
	}
	if !bytes.Equal(data[len(smcMagic)+4:len(smcMagic)+36], fp[:]) {
		return nil, ErrCheckpointMismatch
	}
	if n := binary.LittleEndian.Uint64(data[head-8:]); n != uint64(len(body)-head) {
		return nil, fmt.Errorf("%w: state of %d bytes in a file that holds %d", ErrCorrupt, n, len(body)-head)
	}
	st := new(smcState)
	if err := gob.NewDecoder(bytes.NewReader(body[head:])).Decode(st); err != nil {
		return nil, fmt.Errorf("%w: state: %v", ErrCorrupt, err)
	}
	return st, nil
}

// loadSMCCheckpoint reads the checkpoint at path and checks it against the
// run (checkSMCState); it returns nil rounds and no error when there is
// no checkpoint.
func loadSMCCheckpoint(path string, fp [32]byte, tg *target, cfg *SMCConfig) ([]*Round, int64, time.Duration, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, 0, nil
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("abc: SMCConfig.Checkpoint %q: %w", path, err)
	}
	st, err := decodeSMCCheckpoint(data, fp)
	if err == nil {
		err = checkSMCState(st, tg, cfg)
	}
	if err != nil {
		// One prefix: "abc: invalid argument: SMCConfig.Checkpoint "<path>":
		// corrupt or unsupported checkpoint: …", still matching err's
		// sentinels (ErrCorrupt or ErrCheckpointMismatch, and ErrInvalid).
		detail := strings.TrimPrefix(err.Error(), ErrInvalid.Error()+": ")
		return nil, 0, 0, argcheck.Sentinel(fmt.Sprintf("%v: SMCConfig.Checkpoint %q: %s", ErrInvalid, path, detail), err)
	}
	rounds := make([]*Round, len(st.Rounds))
	for i, r := range st.Rounds {
		rounds[i] = &Round{Round: r.Round, Draws: tg.draws(r.Theta, r.Weights),
			Distance: r.Distance, Tolerance: r.Tolerance, Simulations: r.Simulations, Proposals: r.Proposals,
			Speculative: r.Speculative, Acceptance: r.Acceptance, ESS: r.ESS, Resampled: r.Resampled, Elapsed: r.Elapsed}
	}
	return rounds, st.Simulations, st.Elapsed, nil
}

// checkSMCState checks the meaning of every field of a checkpoint against
// the run: rounds numbered 0, 1, … with the tolerances the schedule gives
// for them, N particles of the prior's dimension inside its support, each
// with a distance within the round's tolerance, weights that are finite,
// non-negative and sum to 1 (all 1/N after a resampling), counts that
// agree (Acceptance = N/(Simulations − Speculative), Proposals ≥
// Simulations, Simulations − Speculative ≥ N, Speculative ≥ 0, the
// total the sum of the rounds' within the budget), an ESS in [1, N] and
// wall times ≥ 0. Errors wrap ErrCorrupt.
func checkSMCState(st *smcState, tg *target, cfg *SMCConfig) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	n, d := cfg.Particles, tg.dim
	if len(st.Rounds) == 0 {
		return bad("no rounds")
	}
	if st.Elapsed < 0 {
		return bad("elapsed time %v is negative", st.Elapsed)
	}
	var total int64
	var prev *Round
	for t, r := range st.Rounds {
		switch {
		case r.Round != t:
			return bad("round %d is numbered %d", t, r.Round)
		case len(r.Theta) != n*d || len(r.Weights) != n || len(r.Distance) != n:
			return bad("round %d holds %d parameters, %d weights and %d distances for %d particles of dimension %d",
				t, len(r.Theta), len(r.Weights), len(r.Distance), n, d)
		case !(r.Tolerance > 0) || math.IsInf(r.Tolerance, 0):
			return bad("round %d has tolerance %v", t, r.Tolerance)
		case r.Speculative < 0 || r.Simulations-r.Speculative < int64(n) || r.Proposals < r.Simulations:
			return bad("round %d counts %d simulations (%d speculative) and %d proposals for %d particles",
				t, r.Simulations, r.Speculative, r.Proposals, n)
		case r.Acceptance != float64(n)/float64(r.Simulations-r.Speculative):
			return bad("round %d has acceptance %v, its counts give %v", t, r.Acceptance, float64(n)/float64(r.Simulations-r.Speculative))
		case !(r.ESS >= 1-1e-9 && r.ESS <= float64(n)*(1+1e-9)):
			return bad("round %d has ESS %v outside [1, %d]", t, r.ESS, n)
		case r.Elapsed < 0:
			return bad("round %d has a negative wall time %v", t, r.Elapsed)
		}
		if eps, ok := cfg.Schedule.Next(t, prev); !ok || eps != r.Tolerance {
			return bad("round %d has tolerance %v, the schedule gives %v", t, r.Tolerance, eps)
		}
		sum := 0.0
		for i, w := range r.Weights {
			if !(w >= 0) || math.IsInf(w, 0) || (r.Resampled && w != 1/float64(n)) {
				return bad("round %d weight %d is %v", t, i, w)
			}
			sum += w
		}
		if math.Abs(sum-1) > 1e-9 {
			return bad("round %d weights sum to %v, not 1", t, sum)
		}
		for i, v := range r.Distance {
			if !(v >= 0 && v <= r.Tolerance) {
				return bad("round %d distance %d is %v, outside [0, %v]", t, i, v, r.Tolerance)
			}
		}
		for i := 0; i < n; i++ {
			th := r.Theta[i*d : (i+1)*d]
			if lp := tg.prior.LogDensity(th); math.IsNaN(lp) || math.IsInf(lp, 0) {
				return bad("round %d particle %d = %v lies outside the prior's support", t, i, th)
			}
		}
		total += r.Simulations
		prev = &Round{Round: t, Draws: &privinfer.Draws{Dim: d, Theta: r.Theta, Weights: r.Weights}, Distance: r.Distance,
			Tolerance: r.Tolerance, Simulations: r.Simulations, Proposals: r.Proposals, Acceptance: r.Acceptance, ESS: r.ESS,
			Resampled: r.Resampled, Elapsed: r.Elapsed}
	}
	if st.Simulations != total {
		return bad("%d simulations in all, its rounds ran %d", st.Simulations, total)
	}
	if cfg.MaxSimulations > 0 && total > cfg.MaxSimulations {
		return bad("%d simulations, beyond SMCConfig.MaxSimulations = %d", total, cfg.MaxSimulations)
	}
	return nil
}

// smcCheckpoint keeps an SMC-ABC run's checkpoint (SMCConfig.Checkpoint);
// its methods do nothing on a nil *smcCheckpoint (no checkpoint).
type smcCheckpoint struct {
	path string
	fp   [32]byte
	tg   *target
	cfg  *SMCConfig
}

// newSMCCheckpoint returns the checkpoint of a run, nil without
// SMCConfig.Checkpoint.
func newSMCCheckpoint(p *privinfer.Problem, cfg *SMCConfig, tg *target) *smcCheckpoint {
	if cfg.Checkpoint == "" {
		return nil
	}
	return &smcCheckpoint{path: cfg.Checkpoint, fp: smcFingerprint(p, cfg, tg.dim, tg.statDim), tg: tg, cfg: cfg}
}

// load returns the completed rounds, the number of simulations and the
// wall time of the run that saved the checkpoint; no rounds when there is
// none.
func (c *smcCheckpoint) load() ([]*Round, int64, time.Duration, error) {
	if c == nil {
		return nil, 0, 0, nil
	}
	return loadSMCCheckpoint(c.path, c.fp, c.tg, c.cfg)
}

// save writes the state after a completed round.
func (c *smcCheckpoint) save(rounds []*Round, sims int64, elapsed time.Duration) error {
	if c == nil {
		return nil
	}
	return saveSMCCheckpoint(c.path, c.fp, rounds, sims, elapsed)
}

// remove deletes a finished run's checkpoint (and temporary files of
// killed writes).
func (c *smcCheckpoint) remove() error {
	if c == nil {
		return nil
	}
	if err := atomicfile.Remove(c.path); err != nil {
		return fmt.Errorf("abc: SMCConfig.Checkpoint %q: %w", c.path, err)
	}
	return nil
}
