package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// TestLeftovers checks that the temporary files a killed write leaves are
// named as Temp says, and that the next Write or Remove of the same path
// removes them while leaving other files (also those of a path whose name
// starts like this one's) alone.
func TestLeftovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ckpt")
	put := func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }
	stale := []string{".tmp-run.ckpt-123", ".tmp-run.ckpt-9"}
	keep := []string{".tmp-run.ckpt-old-5", "run.ckpt-2", "other"}
	for _, n := range append(append([]string{}, stale...), keep...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range stale {
		if !Temp(n) {
			t.Errorf("Temp(%q) = false", n)
		}
	}
	if Temp("run.ckpt") {
		t.Error(`Temp("run.ckpt") = true`)
	}
	left := func() []string {
		es, _ := os.ReadDir(dir)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	if err := Write(path, put); err != nil {
		t.Fatal(err)
	}
	want := []string{".tmp-run.ckpt-old-5", "other", "run.ckpt", "run.ckpt-2"}
	if got := left(); !slices.Equal(got, want) {
		t.Errorf("after Write the folder holds %q, want %q", got, want)
	}
	for _, n := range stale {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	if err := Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := Remove(path); err != nil {
		t.Errorf("removing a missing file: %v", err)
	}
	if got, want := left(), []string{".tmp-run.ckpt-old-5", "other", "run.ckpt-2"}; !slices.Equal(got, want) {
		t.Errorf("after Remove the folder holds %q, want %q", got, want)
	}
}
