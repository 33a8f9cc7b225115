package testutil

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/atomicfile"
)

// CheckpointFrame frames a gob-encoded state as a checkpoint file in the
// layout the project's checkpoints share: magic, version (uint32), the
// run's fingerprint fp, the state's length (uint64), the state, and the
// CRC-32 (IEEE) of everything before it, integers little-endian. The
// checksum is correct, so a loader reaches the state's own checks.
func CheckpointFrame(magic string, version uint32, fp [32]byte, state []byte) []byte {
	var b bytes.Buffer
	b.WriteString(magic)
	_ = binary.Write(&b, binary.LittleEndian, version)
	b.Write(fp[:])
	_ = binary.Write(&b, binary.LittleEndian, uint64(len(state)))
	b.Write(state)
	_ = binary.Write(&b, binary.LittleEndian, crc32.ChecksumIEEE(b.Bytes()))
	return b.Bytes()
}

// KilledRunState is a KillTrials.AfterKill for a run whose folder dir may
// hold only its checkpoint (file name checkpoint), its finished result
// (file "result", starting with resultPrefix) and temporary files of
// atomic writes. load checks the checkpoint at path and returns the state
// it holds (such as "after round 2"). The label is that state, "finished"
// or "before the first checkpoint", followed by the number of temporary
// files if there are any; a partial result or an unexpected file is an
// error.
func KilledRunState(dir, checkpoint, resultPrefix string, load func(path string) (string, error)) (string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	state, temps := "before the first checkpoint", 0
	for _, e := range es {
		switch name := e.Name(); {
		case atomicfile.Temp(name):
			temps++
		case name == checkpoint:
			if state, err = load(filepath.Join(dir, name)); err != nil {
				return "", err
			}
		case name == "result":
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !strings.HasPrefix(string(b), resultPrefix) {
				return "", fmt.Errorf("partial result file (%v)", err)
			}
			state = "finished"
		default:
			return "", fmt.Errorf("unexpected file %s", name)
		}
	}
	if temps > 0 {
		state += fmt.Sprintf(", %d temporary file(s)", temps)
	}
	return state, nil
}

// OnlyResultLeft reports an error naming the first file in dir other than
// "result": a finished run removes its checkpoint and temporary files.
func OnlyResultLeft(dir string) error {
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if e.Name() != "result" {
			return fmt.Errorf("file %s left after the run", e.Name())
		}
	}
	return nil
}

// WriteResult writes, with write, the finished run's result file in dir
// (the file "result" that KilledRunState and OnlyResultLeft expect) as an
// atomic write, failing t when it cannot.
func WriteResult(t testing.TB, dir string, write func(io.Writer)) {
	t.Helper()
	if err := atomicfile.Write(filepath.Join(dir, "result"), func(w io.Writer) error { write(w); return nil }); err != nil {
		t.Fatal(err)
	}
}
