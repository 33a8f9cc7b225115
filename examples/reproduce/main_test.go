package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

func TestParse(t *testing.T) {
	for _, args := range [][]string{{"-only", "nosuch"}, {"-timeout", "-1s"}, {"-seed", "x"}, {"-bogus"}, {"stray"}} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-quick", "-only", "naivebayes, modips"})
	if err != nil || !cfg.only["naivebayes"] || !cfg.only["modips"] || len(cfg.only) != 2 || cfg.timeout != 6*time.Minute {
		t.Errorf("parse: %+v, %v", cfg, err)
	}
}

func TestRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range registry {
		if seen[e.Name] || e.Name == "" || !strings.HasPrefix(e.Pkg, "./examples/") || e.Target == "" {
			t.Errorf("bad or duplicate entry %+v", e)
		}
		seen[e.Name] = true
		// A part's own target, when given, says something.
		for _, p := range e.Split {
			if p.Target != "" && strings.TrimSpace(p.Target) == "" {
				t.Errorf("%s-%s: blank part target", e.Name, p.Name)
			}
		}
	}
	// A part's own target replaces the entry's in its job; other parts
	// keep the entry's.
	for _, j := range jobs(config{entries: registry}) {
		want := j.entry.Target
		for _, e := range registry {
			if e.Name == j.Group {
				want = e.Target
				for _, p := range e.Split {
					if j.Name == e.Name+"-"+p.Name && p.Target != "" {
						want = p.Target
					}
				}
			}
		}
		if j.Target != want {
			t.Errorf("job %s: target %q, want %q", j.Name, j.Target, want)
		}
		if j.Name == "ldp-fig1" && !strings.Contains(j.Target, "clipped-Gaussian") {
			t.Errorf("job ldp-fig1 has the target %q, not its own", j.Target)
		}
	}
	// Parts are named apart from every entry and from each other, and
	// every paper-scale run says how long it is expected to take.
	for _, quick := range []bool{false, true} {
		names := map[string]bool{}
		for _, j := range jobs(config{quick: quick, entries: registry}) {
			if names[j.Name] || (j.Name != j.Group && seen[j.Name]) || (!quick && j.Estimate == "") {
				t.Errorf("quick=%v: bad or duplicate job %q", quick, j.Name)
			}
			names[j.Name] = true
		}
	}
}

// TestRegistryPackagesExist checks that every example the reproduction
// runs is a main package of the repository.
func TestRegistryPackagesExist(t *testing.T) {
	root, err := cli.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range registry {
		if e.Pending != "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.Pkg), "main.go"))
		if err != nil {
			t.Errorf("%s: %v", e.Name, err)
			continue
		}
		src := string(data)
		if e.Demo {
			// A demonstration is a user-facing example: it does not import
			// the reproduction's cli package, but takes the flags the
			// harness passes (-seed, -quick and -out).
			for _, f := range []string{`"seed"`, `"quick"`, `"out"`} {
				if !strings.Contains(src, "package main") || !strings.Contains(src, f) {
					t.Errorf("%s: %s/main.go is not a main package with the flag %s", e.Name, e.Pkg, f)
				}
			}
			continue
		}
		if !strings.Contains(src, "package main") || !strings.Contains(src, "cli.") {
			t.Errorf("%s: %s/main.go is not a main package following the examples/reproduce/support/cli contract", e.Name, e.Pkg)
		}
	}
}

func TestOverallAndReport(t *testing.T) {
	rs := []result{
		{job: job{entry: entry{Name: "a", Target: "Table 1"}}, Ran: true, Stdout: "### A\n\n| x | y |\n\nverdict: reproduced — Table 1: fine\n",
			Verdicts: []cli.Verdict{{Outcome: cli.Reproduced, Target: "Table 1", Reason: "fine"}}},
		{job: job{entry: entry{Name: "b", Target: "Fig. 2", Plain: true}}, Ran: true, Stdout: "# raw text\n",
			Verdicts: []cli.Verdict{{Outcome: cli.Reproduced, Target: "x", Reason: "ok"}, {Outcome: cli.Partial, Target: "y", Reason: "half"}}},
		{job: job{entry: entry{Name: "c", Target: "Fig. 3"}}, Ran: true, Err: "exit status 1", Stderr: "boom"},
		{job: job{entry: entry{Name: "d", Target: "Table 4", Pending: "not written"}}, NotRun: "not written"},
		{job: job{entry: entry{Name: "e", Target: "Fig. 5"}}, Ran: true, Stdout: "no verdict here"},
		{job: job{entry: entry{Name: "f", Target: "Fig. 6"}}, Ran: true, Verdicts: []cli.Verdict{{Outcome: "maybe", Target: "Fig. 6"}}},
	}
	want := []string{cli.Reproduced, cli.Partial, "failed", "not run", "no verdict printed", cli.Differs}
	for i, r := range rs {
		if got := overall(r); got != want[i] {
			t.Errorf("overall(%s) = %q, want %q", r.Name, got, want[i])
		}
	}
	var b bytes.Buffer
	writeReport(&b, config{quick: true, seed: 1, commit: "abc123"}, rs, 90*time.Second)
	s := b.String()
	for _, frag := range []string{
		"-quick` at commit abc123 on", "## Summary", "## a\n", "\n### A\n", "```text\n# raw text\n```", "**Not run**: not written.",
		"Error: exit status 1", "boom", "| b       | partial (quick settings: not expected to reproduce)", "not expected to reproduce",
	} {
		if !strings.Contains(s, frag) {
			t.Errorf("report lacks %q:\n%s", frag, s)
		}
	}
}

func TestPrefixWriter(t *testing.T) {
	var b bytes.Buffer
	p := &prefixWriter{w: &b, prefix: "> "}
	io.WriteString(p, "one\ntw")
	io.WriteString(p, "o\nthree\n")
	if got := b.String(); got != "> one\n> two\n> three\n" {
		t.Errorf("got %q", got)
	}
}

// TestRunQuickstart builds and runs the quickstart through the whole
// pipeline and checks the report.
func TestRunQuickstart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an example")
	}
	dir := t.TempDir()
	cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-quick", "-only", "quickstart", "-cache", filepath.Join(dir, "cache"), "-report", filepath.Join(dir, "R.md"), "-out", filepath.Join(dir, "plots")})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), cfg, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "R.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, frag := range []string{"ran (demonstration)", "noise-aware", "not selected by -only", "-seed 1 -quick -out"} {
		if !strings.Contains(s, frag) {
			t.Errorf("report lacks %q:\n%s", frag, s)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "plots", "quickstart", "quickstart_posterior.svg")); err != nil {
		t.Error(err)
	}
}
