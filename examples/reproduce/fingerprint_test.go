package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// TestCodeFingerprint builds a small module in which program a imports
// package b and package c is imported by nobody: the fingerprint of a
// changes when b's source changes or b gains a file, and not when c
// changes, when b's tests change or when a file outside any package does.
func TestCodeFingerprint(t *testing.T) {
	root := t.TempDir()
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	write := func(path, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.24\n")
	write("a/main.go", "package main\n\nimport \"example.com/m/b\"\n\nfunc main() { println(b.X) }\n")
	write("b/b.go", "package b\n\nconst X = 1\n")
	write("c/c.go", "package c\n\nconst Y = 1\n")
	ctx := context.Background()
	fp := func() string {
		t.Helper()
		s, err := codeFingerprint(ctx, root, "./a")
		if err != nil {
			t.Fatal(err)
		}
		if len(s) != fingerprintLen || strings.Trim(s, "0123456789abcdef") != "" {
			t.Fatalf("fingerprint %q is not %d hexadecimal digits", s, fingerprintLen)
		}
		return s
	}
	base := fp()
	if again := fp(); again != base {
		t.Fatalf("two fingerprints of the same code: %s and %s", base, again)
	}
	write("c/c.go", "package c\n\nconst Y = 2\n")
	write("b/b_test.go", "package b\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) {}\n")
	write("README.md", "changed\n")
	if got := fp(); got != base {
		t.Errorf("a change outside a's dependencies changed its fingerprint: %s → %s", base, got)
	}
	write("b/b.go", "package b\n\nconst X = 2\n")
	changed := fp()
	if changed == base {
		t.Errorf("a change to a's dependency b left its fingerprint %s", base)
	}
	write("b/more.go", "package b\n\nconst Z = 3\n")
	if got := fp(); got == changed {
		t.Errorf("a new file in b left a's fingerprint %s", got)
	}
	if ds, err := depDirs(ctx, root, "./a"); err != nil || strings.Join(ds, ",") != "a,b" {
		t.Errorf("dependency directories of a: %v, %v; want a, b", ds, err)
	}
	if _, err := codeFingerprint(ctx, root, "./missing"); err == nil {
		t.Error("the fingerprint of a missing package: no error")
	}
}

// TestStaleness checks the reasons given for stale results: no recorded
// fingerprint, another fingerprint, and none for the current one; and that
// the report lists exactly the stale results at its top, marks them in
// the summary and their sections, and reads their fingerprints back.
func TestStaleness(t *testing.T) {
	const cur, old = "0123456789abcdef", "fedcba9876543210"
	f := newFingerprints(context.Background(), t.TempDir())
	f.compute = func(context.Context, string, string) (string, error) { return cur, nil }
	mk := func(name, fp string) result {
		return result{job: job{entry: entry{Name: name, Pkg: "./x", Target: "SBI paper Fig. 1"}, Group: name, Estimate: "5 min"}, Args: []string{"-seed", "1"},
			Ran: true, Cached: true, Stdout: "out", Wall: time.Second, Finished: time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC), Fingerprint: fp,
			Verdicts: []cli.Verdict{cli.Within("SBI paper Table 9 ("+name+")", "x", 1, 1, 0.1, "")}}
	}
	results := []result{mk("fresh", cur), mk("old", old), mk("none", "")}
	for i, want := range []string{"", "code fingerprint " + old + ", the current code's is " + cur, "no code fingerprint recorded"} {
		got := f.staleness(results[i])
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: staleness %q, want %q", results[i].Name, got, want)
		}
		results[i].Stale = got
	}
	var b strings.Builder
	writeReport(&b, config{seed: 1, commit: "abc123"}, results, time.Second)
	rep := b.String()
	_, stale, _ := strings.Cut(rep, "\n## Stale results\n")
	stale, _, _ = strings.Cut(stale, "\n## ")
	if !strings.Contains(stale, "[old](#old)") || !strings.Contains(stale, "[none](#none)") || strings.Contains(stale, "[fresh]") || !strings.Contains(stale, "2 of the results") {
		t.Errorf("stale list:\n%s", stale)
	}
	if !strings.Contains(rep, "- **Stale**: no code fingerprint") || strings.Count(rep, "(stale)") != 4 || !strings.Contains(rep, "- Code fingerprint: `"+cur+"`") {
		t.Errorf("report:\n%s", rep)
	}
	if i, j := strings.Index(rep, "## Papers at a glance"), strings.Index(rep, "## Stale results"); i < 0 || j < i || j > strings.Index(rep, "## Summary") {
		t.Errorf("the report does not open with the papers' summary and the stale list:\n%s", rep)
	}
	got, err := parseReport(rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["fresh"].Fingerprint != cur || got["old"].Fingerprint != old || got["none"].Fingerprint != "" || got["fresh"].Verdicts[0].Ours != "x 1" {
		t.Errorf("read back %+v", got)
	}
}
