package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite checks that a write replaces the file whole, that a failing
// write leaves the old file and no temporary file behind, and that a
// missing folder is an error.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	put := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := Write(path, put("one")); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, put("two")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Write(path, func(w io.Writer) error { io.WriteString(w, "partial"); return boom }); !errors.Is(err, boom) {
		t.Errorf("failing write: err = %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("file holds %q, want %q", b, "two")
	}
	if names, _ := os.ReadDir(dir); len(names) != 1 {
		t.Errorf("folder holds %d files, want 1 (no temporary file left)", len(names))
	}
	if err := Write(filepath.Join(dir, "missing", "f"), put("x")); err == nil {
		t.Error("a missing folder was not an error")
	}
}
