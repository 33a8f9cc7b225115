package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteAtomic checks that a successful write lands at path and a
// failing one leaves neither path nor a temporary file behind, and keeps
// an earlier file untouched.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	if err := WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "x,1\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "x,1\n" {
		t.Fatalf("read %q, %v", b, err)
	}
	boom := errors.New("boom")
	err := WriteAtomic(path, func(w io.Writer) error { io.WriteString(w, "partial"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "x,1\n" {
		t.Errorf("a failed write changed the file to %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the folder, want only a.csv", len(entries))
	}
	if err := WriteAtomic(filepath.Join(dir, "missing", "b"), func(io.Writer) error { return nil }); err == nil {
		t.Error("no error for a missing folder")
	}
}
