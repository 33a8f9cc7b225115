package sbi

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/simulate"
)

// failing is an io.Reader and io.Writer whose every call fails.
type failing struct{}

var errFailing = errors.New("device failure")

func (failing) Read([]byte) (int, error)  { return 0, errFailing }
func (failing) Write([]byte) (int, error) { return 0, errFailing }

// refix recomputes the trailing CRC-32 of a file whose body was edited.
func refix(b []byte) []byte {
	b = slices.Clone(b)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

// TestFileBadInput: the loaders, Save and Config.Checkpoint refuse
// damaged files, other priors, nil readers and writers and unusable paths
// with errors that wrap the documented sentinel and whose message starts
// "sbi: invalid argument: " followed by the argument the file came from
// (r, w, prior, or Config.Checkpoint with its path), and never panic.
func TestFileBadInput(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ctx := context.Background()
	p := testProblem()
	post, _ := savedFiles(t)
	res, err := SPPE(ctx, p, quickConfig())
	if err != nil {
		t.Fatal(err)
	}
	loadP := func(b []byte, prior simulate.Prior) func() error {
		return func() error { _, err := LoadPosterior(bytes.NewReader(b), prior); return err }
	}
	loadL := func(b []byte, prior simulate.Prior) func() error {
		return func() error { _, err := LoadLikelihoodPosterior(bytes.NewReader(b), prior); return err }
	}
	const r, corrupt = "sbi: invalid argument: r: ", "sbi: invalid argument: r: corrupt or unsupported file: "
	other, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{2}})
	wide, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0, 0}, Variances: []float64{1, 1}})
	magic := slices.Clone(post)
	copy(magic, "PRIVFLOW")
	flip := slices.Clone(post)
	flip[len(flip)/2] ^= 0x10
	// A file cut short with a valid checksum: the decoder runs out of
	// bytes rather than failing the checksum.
	short := refix(append(slices.Clone(post[:len(postMagic)+10]), 0, 0, 0, 0))
	// The flow inside the file damaged, the file's checksum valid.
	flowBad := slices.Clone(post)
	flowBad[len(flowBad)-12] ^= 0x10
	flowBad = refix(flowBad)
	type B = testutil.BadInput
	N := testutil.Naming
	cases := []B{
		{Category: "nil", Name: "LoadPosterior nil reader", Err: N(func() error { _, err := LoadPosterior(nil, p.Prior); return err }, r+"must not be nil")},
		{Category: "typednil", Name: "LoadPosterior typed-nil reader", Err: N(func() error { _, err := LoadPosterior((*bytes.Buffer)(nil), p.Prior); return err }, r)},
		{Category: "nil", Name: "LoadPosterior nil prior", Err: N(loadP(post, nil), "sbi: invalid argument: prior: must not be nil")},
		{Category: "nil", Name: "LoadLikelihoodPosterior nil reader", Err: N(func() error { _, err := LoadLikelihoodPosterior(nil, p.Prior); return err }, r)},
		{Category: "empty", Name: "LoadPosterior empty file", Err: N(loadP(nil, p.Prior), corrupt, "magic")},
		{Category: "mismatched", Name: "LoadPosterior wrong magic", Err: N(loadP(magic, p.Prior), corrupt, "magic")},
		{Category: "mismatched", Name: "LoadPosterior truncated", Err: N(loadP(post[:len(post)/2], p.Prior), corrupt, "checksum")},
		{Category: "mismatched", Name: "LoadPosterior truncated, checksum fixed", Err: N(loadP(short, p.Prior), corrupt, "truncated")},
		{Category: "mismatched", Name: "LoadPosterior flipped byte", Err: N(loadP(flip, p.Prior), corrupt)},
		{Category: "mismatched", Name: "LoadPosterior damaged flow", Err: N(loadP(flowBad, p.Prior), corrupt+"its flow: ")},
		{Category: "mismatched", Name: "LoadPosterior other prior", Err: N(loadP(post, other), "sbi: invalid argument: prior: not the prior saved with the posterior: log density")},
		{Category: "mismatched", Name: "LoadPosterior prior of dimension 2", Err: N(loadP(post, wide), "sbi: invalid argument: prior: not the prior saved with the posterior: it has dimension 2")},
		{Category: "mismatched", Name: "LoadLikelihoodPosterior of an SPPE file", Err: N(loadL(post, p.Prior), r+"the file holds an SPPE Posterior")},
		{Category: "nil", Name: "Posterior.Save nil writer", Err: N(func() error { return res.Posterior.Save(nil) }, "sbi: invalid argument: w: must not be nil")},
		{Category: "typednil", Name: "Posterior.Save typed-nil writer", Err: N(func() error { return res.Posterior.Save((*bytes.Buffer)(nil)) }, "sbi: invalid argument: w: ")},
	}
	testutil.RunBadInput(t, ErrInvalid, cases)
	for name, c := range map[string]struct {
		err  error
		kind error
	}{
		"other prior":    {loadP(post, other)(), ErrIncompatiblePrior},
		"damaged flow":   {loadP(flowBad, p.Prior)(), flow.ErrCorrupt},
		"damaged flow, ": {loadP(flowBad, p.Prior)(), ErrCorrupt},
		"short":          {loadP(short, p.Prior)(), ErrCorrupt},
	} {
		if !errors.Is(c.err, c.kind) {
			t.Errorf("%s: %v does not wrap %v", name, c.err, c.kind)
		}
	}
	// Failures of the reader and writer are passed on, naming them.
	if _, err := LoadPosterior(failing{}, p.Prior); !errors.Is(err, errFailing) || !strings.HasPrefix(err.Error(), "sbi: r: ") {
		t.Errorf("failing reader: %v", err)
	}
	if err := res.Posterior.Save(failing{}); !errors.Is(err, errFailing) || !strings.HasPrefix(err.Error(), "sbi: w: ") {
		t.Errorf("failing writer: %v", err)
	}
	var _ io.ReadWriter = failing{}
}

// TestCheckpointBadInput: a checkpoint file that is damaged, empty, of
// another run or kind, or a path that names a folder or lies in a missing
// folder, is refused before any simulation with an error that wraps the
// documented sentinel and names Config.Checkpoint with its path.
func TestCheckpointBadInput(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := testProblem()
	cfg := quickConfig()
	cfg.Rounds = 2
	path := stoppedCheckpoint(t, p, cfg)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := func(name string, b []byte) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	run := func(path string, edit func(c *Config)) func() error {
		return func() error {
			c := cfg
			c.Checkpoint = path
			if edit != nil {
				edit(&c)
			}
			_, err := SPPE(context.Background(), p, c)
			return err
		}
	}
	magic := slices.Clone(orig)
	copy(magic, "PRIVFLOW")
	version := slices.Clone(orig)
	version[len(ckptMagic)]++
	version = refix(version)
	cases := []struct {
		name, path string
		edit       func(c *Config)
		kind       error
		says       string
	}{
		{"empty file", file("empty.ckpt", nil), nil, ErrCorrupt, "corrupt or unsupported file: not a checkpoint file"},
		{"wrong magic", file("magic.ckpt", magic), nil, ErrCorrupt, "corrupt or unsupported file: not a checkpoint file (bad magic number)"},
		{"truncated", file("short.ckpt", orig[:len(orig)-9]), nil, ErrCorrupt, "corrupt or unsupported file: checksum mismatch"},
		{"other version", file("version.ckpt", version), nil, ErrCorrupt, "corrupt or unsupported file: version"},
		{"other seed", file("seed.ckpt", orig), func(c *Config) { c.Seed++ }, ErrCheckpointMismatch, "the checkpoint was saved by a run with other settings"},
		{"a folder", dir, nil, ErrInvalid, "is a folder"},
		{"missing folder", filepath.Join(dir, "missing", "run.ckpt"), nil, ErrInvalid, "must name a file in an existing folder"},
	}
	type B = testutil.BadInput
	var table []B
	for _, c := range cases {
		prefix := "sbi: invalid argument: " + ckptArg(c.path) + ": "
		table = append(table, B{Category: "mismatched", Name: c.name, Err: testutil.Naming(run(c.path, c.edit), prefix, c.says)})
	}
	testutil.RunBadInput(t, ErrInvalid, table)
	for _, c := range cases {
		if err := run(c.path, c.edit)(); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v does not wrap %v", c.name, err, c.kind)
		}
	}
}

// FuzzCheckpointFile feeds arbitrary bytes, with the trailing checksum
// fixed or not, to the checkpoint decoder: it must refuse them with an
// error wrapping ErrInvalid (ErrCorrupt or ErrCheckpointMismatch) that
// names Config.Checkpoint and its path, or accept a state, and never
// panic. The seeds are a frame of the right fingerprint around an empty
// state, the magic number alone and a frame of another version.
func FuzzCheckpointFile(f *testing.F) {
	var fp [32]byte
	fp[0] = 7
	f.Add(wrapState(fp, nil), false)
	f.Add([]byte(ckptMagic), false)
	v := wrapState(fp, []byte{1, 2, 3})
	v[len(ckptMagic)] = 9
	f.Add(v, true)
	const path = "fuzz.ckpt"
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix && len(data) >= 4 {
			data = refix(data)
		}
		st, err := decodeCheckpoint(path, data, fp)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "sbi: invalid argument: "+ckptArg(path)+": ") {
				t.Fatalf("%v: want an error wrapping ErrInvalid that names %s", err, ckptArg(path))
			}
			return
		}
		if st == nil {
			t.Fatal("nil state without an error")
		}
	})
}
