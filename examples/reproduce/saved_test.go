package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// TestSyncSaved keeps trial files through a lost working folder: files go
// to the committed copy, come back into an empty working folder, and only
// new or changed files are copied.
func TestSyncSaved(t *testing.T) {
	root := t.TempDir()
	dirs := []string{".reproduce-cache/sir-trials", ".reproduce-cache/nb"}
	work := filepath.Join(root, ".reproduce-cache", "sir-trials")
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sync := func(toCommitted bool, want int) {
		t.Helper()
		n, err := syncSaved(root, dirs, toCommitted)
		if err != nil || n != want {
			t.Fatalf("syncSaved(toCommitted=%v) = %d, %v; want %d files", toCommitted, n, err, want)
		}
	}
	// Nothing anywhere: nothing to copy, no error.
	sync(false, 0)
	sync(true, 0)

	write(work, "a.csv", "trial a")
	write(work, "b.csv", "trial b")
	if err := os.Mkdir(filepath.Join(work, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	sync(true, 2)
	sync(true, 0) // unchanged
	kept := filepath.Join(root, filepath.FromSlash(savedRoot), "sir-trials")
	if b, err := os.ReadFile(filepath.Join(kept, "b.csv")); err != nil || string(b) != "trial b" {
		t.Fatalf("kept b.csv = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(kept, "sub")); !os.IsNotExist(err) {
		t.Errorf("a subfolder was copied: %v", err)
	}

	// A new machine: the working folder is lost and comes back.
	if err := os.RemoveAll(filepath.Join(root, ".reproduce-cache")); err != nil {
		t.Fatal(err)
	}
	sync(false, 2)
	if b, err := os.ReadFile(filepath.Join(work, "a.csv")); err != nil || string(b) != "trial a" {
		t.Fatalf("restored a.csv = %q, %v", b, err)
	}
	// One more trial and one rewritten: two files copied; restoring does
	// not put the older copy back over the rerun.
	write(work, "c.csv", "trial c")
	write(work, "a.csv", "trial a, rerun")
	sync(false, 0)
	sync(true, 2)
	if b, _ := os.ReadFile(filepath.Join(kept, "a.csv")); string(b) != "trial a, rerun" {
		t.Errorf("kept a.csv = %q after the rerun", b)
	}
	left, _ := filepath.Glob(filepath.Join(kept, ".tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestKeptDirs: the paper-scale run of the registry keeps its trials, the
// quick run and other entries do not.
func TestKeptDirs(t *testing.T) {
	for _, c := range []struct {
		args  []string
		other bool
		want  int
	}{{nil, false, len(savedDirs)}, {[]string{"-quick"}, false, 0}, {nil, true, 0}} {
		cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), c.args)
		if err != nil {
			t.Fatal(err)
		}
		if c.other {
			cfg.entries = []entry{{Name: "a", Pkg: "./a"}}
		}
		if got := keptDirs(cfg); len(got) != c.want {
			t.Errorf("args %v, other entries %v: kept %v, want %d folders", c.args, c.other, got, c.want)
		}
	}
}
