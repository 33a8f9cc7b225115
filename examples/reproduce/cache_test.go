package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
)

// fakeEnv, when set, makes the test binary behave as a fake example
// program (fakeMain) instead of running the tests; fakeLogEnv names the
// file where every fake run appends a line.
const (
	fakeEnv    = "PRIVINFER_REPRODUCE_FAKE"
	fakeLogEnv = "PRIVINFER_REPRODUCE_FAKE_LOG"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) != "" {
		os.Exit(fakeMain(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeMain is a tiny example following the examples/reproduce/support/cli contract:
// it logs "start NAME PART" and "end NAME PART", prints a Markdown line and
// reports one verdict. -fail-if FILE makes it fail while FILE exists;
// -hang makes it sleep until killed.
func fakeMain(args []string) int {
	fs := flag.NewFlagSet("fake", flag.ContinueOnError)
	common := cli.Register(fs, 1)
	name := fs.String("name", "", "")
	part := fs.String("part", "-", "")
	failIf := fs.String("fail-if", "", "")
	hang := fs.Bool("hang", false, "")
	sppe := fs.Bool("sppe", false, "")
	if err := cli.Parse(fs, args); err != nil {
		return 2
	}
	if *sppe {
		return sppeExample(*name, *part, common.Seed)
	}
	logf := func(what string) {
		f, err := os.OpenFile(os.Getenv(fakeLogEnv), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s %s %s seed=%d\n", what, *name, *part, common.Seed)
			f.Close()
		}
	}
	logf("start")
	if dir := os.Getenv(cli.CheckpointsEnv); dir != "" {
		// A checkpoint of the job's: a second run finds it and says so.
		marker := filepath.Join(dir, "marker")
		if _, err := os.Stat(marker); err == nil {
			if f, err := os.OpenFile(os.Getenv(fakeLogEnv)+".ckpt", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintf(f, "resumed %s %s\n", *name, *part)
				f.Close()
			}
		}
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if *hang {
		time.Sleep(time.Minute)
	}
	if _, err := os.Stat(*failIf); *failIf != "" && err == nil {
		fmt.Fprintln(os.Stderr, "fake failure")
		return 1
	}
	fmt.Printf("fake %s part %s quick=%v\n", *name, *part, common.Quick)
	cli.PrintVerdict(os.Stdout, cli.Partial, "Fig. "+*name, "fake")
	logf("end")
	return 0
}

// fakeRun runs the reproduction of entries with the test binary as every
// example and returns the report and the lines the fakes logged during this
// run.
func fakeRun(t *testing.T, ctx context.Context, dir string, entries []entry, args ...string) (report string, log []string, err error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "log")
	before, _ := os.ReadFile(logPath)
	// parse checks -only against the registry: the fakes' names are set
	// after it.
	var only []string
	if i := slices.Index(args, "-only"); i >= 0 && i+1 < len(args) {
		only = strings.Split(args[i+1], ",")
		args = slices.Delete(slices.Clone(args), i, i+2)
	}
	cfg, perr := parse(flag.NewFlagSet("t", flag.ContinueOnError), append([]string{"-cache", filepath.Join(dir, "cache"), "-report", filepath.Join(dir, "R.md")}, args...))
	if perr != nil {
		t.Fatal(perr)
	}
	cfg.entries = entries
	if only != nil {
		cfg.only = map[string]bool{}
		for _, n := range only {
			cfg.only[n] = true
		}
	}
	cfg.build = func(context.Context, string, string, string) (string, error) { return exe, nil }
	os.Remove(cfg.report)
	err = run(ctx, cfg, io.Discard, io.Discard)
	after, _ := os.ReadFile(logPath)
	rep, _ := os.ReadFile(cfg.report)
	for _, l := range strings.Split(strings.TrimSpace(string(after[len(before):])), "\n") {
		if l != "" {
			log = append(log, l)
		}
	}
	return string(rep), log, err
}

// fakeSetup makes t's fakes run in a fresh folder dir and returns it, the
// file whose presence makes fake b fail (created) and the entries a and b
// (b with -fail-if).
func fakeSetup(t *testing.T) (dir, fail string, ab []entry) {
	t.Helper()
	dir = t.TempDir()
	t.Setenv(fakeEnv, "1")
	t.Setenv(fakeLogEnv, filepath.Join(dir, "log"))
	fail = filepath.Join(dir, "fail")
	if err := os.WriteFile(fail, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, fail, []entry{
		{Name: "a", Pkg: fakePkg, Target: "Fig. a", Full: []string{"-name", "a"}, Quick: []string{"-name", "a"}},
		{Name: "b", Pkg: fakePkg, Target: "Fig. b", Full: []string{"-name", "b", "-fail-if", fail}, Quick: []string{"-name", "b"}},
	}
}

// fakePkg is the package of the fake entries: it exists, and the fake
// build ignores it.
const fakePkg = "./examples/reproduce"

// TestCacheResume runs a fake list of examples, one of them split into two
// parts, through the reproduction: a failed example is rerun on the next
// run while the finished ones come from the cache; other settings (seed,
// quick mode) and -fresh run everything again; an interrupted run resumes.
func TestCacheResume(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir, fail, entries := fakeSetup(t)
	entries = append(entries, entry{Name: "c", Pkg: fakePkg, Target: "Fig. c", Full: []string{"-name", "c"}, Quick: []string{"-name", "c"},
		Split: []part{{"x", []string{"-part", "x"}, "1 s", ""}, {"y", []string{"-part", "y"}, "1 s", ""}}})
	want := func(step string, log []string, lines ...string) {
		t.Helper()
		if !slices.Equal(log, lines) {
			t.Errorf("%s: the fakes logged\n%s\nwant\n%s", step, strings.Join(log, "\n"), strings.Join(lines, "\n"))
		}
	}
	all := []string{"start a - seed=1", "end a - seed=1", "start b - seed=1", "end b - seed=1",
		"start c x seed=1", "end c x seed=1", "start c y seed=1", "end c y seed=1"}

	// 0: -list runs nothing and lists the parts.
	cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-list"})
	if err != nil {
		t.Fatal(err)
	}
	cfg.entries = entries
	var list strings.Builder
	if err := run(context.Background(), cfg, &list, io.Discard); err != nil {
		t.Fatal(err)
	}
	if s := list.String(); !strings.Contains(s, "| c-y ") || !strings.Contains(s, "-name c -part y`") || strings.Contains(s, "| c ") {
		t.Errorf("-list:\n%s", s)
	}

	// 1: b fails, the others finish and are cached.
	rep, log, err := fakeRun(t, context.Background(), dir, entries)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "log")); err != nil {
		t.Errorf("no fake ran: %v", err)
	}
	want("first run", log, "start a - seed=1", "end a - seed=1", "start b - seed=1", "start c x seed=1", "end c x seed=1", "start c y seed=1", "end c y seed=1")
	for _, frag := range []string{"## c-x\n", "## c-y\n", "Part of the paper-scale run of c (expected 1 s)", "fake failure", "Outcome: **failed**", "fake c part y quick=false"} {
		if !strings.Contains(rep, frag) {
			t.Errorf("first report lacks %q:\n%s", frag, rep)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "cache", "*.json")); len(files) != 3 {
		t.Errorf("cache holds %v, want 3 results", files)
	}

	// 2: only b runs again; the report shows the cached results.
	os.Remove(fail)
	rep, log, err = fakeRun(t, context.Background(), dir, entries)
	if err != nil {
		t.Fatal(err)
	}
	want("resumed run", log, "start b - seed=1", "end b - seed=1")
	if strings.Contains(rep, "failed") || strings.Count(rep, "(cached result of a run finished") != 3 ||
		!strings.Contains(rep, "fake c part x quick=false") || !strings.Contains(rep, "3 of them cached results of earlier runs") {
		t.Errorf("resumed report:\n%s", rep)
	}

	// 3: everything is cached now.
	if _, log, _ = fakeRun(t, context.Background(), dir, entries); log != nil {
		t.Errorf("third run ran %v", log)
	}

	// 4: another seed is another argument list, so nothing is reused; nor
	// with -fresh.
	_, log, _ = fakeRun(t, context.Background(), dir, entries, "-seed", "2")
	want("seed 2", log, strings.Split(strings.ReplaceAll(strings.Join(all, "\n"), "seed=1", "seed=2"), "\n")...)
	_, log, _ = fakeRun(t, context.Background(), dir, entries, "-fresh")
	want("-fresh", log, all...)

	// 5: quick mode runs each entry once, unsplit, and its report says that
	// quick settings are not expected to reproduce.
	rep, log, _ = fakeRun(t, context.Background(), dir, entries, "-quick")
	if len(log) != 6 || !strings.Contains(rep, "partial"+quickNote) || !strings.Contains(rep, "fake c part - quick=true") || strings.Contains(rep, "## c-x") {
		t.Errorf("quick run logged %v, report:\n%s", log, rep)
	}

	// 6: an interrupted run (the context is cancelled while b hangs) writes
	// no report and caches nothing of b; the next run resumes with b.
	entries[1].Full = []string{"-name", "b", "-hang"}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for ctx.Err() == nil {
			if l, _ := os.ReadFile(filepath.Join(dir, "log")); strings.HasSuffix(string(l), "start b - seed=3\n") {
				cancel()
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	rep, log, err = fakeRun(t, ctx, dir, entries, "-seed", "3")
	cancel()
	if err == nil || !strings.Contains(err.Error(), "run the same command again to resume") || rep != "" {
		t.Errorf("interrupted run: error %v, report %q", err, rep)
	}
	want("interrupted run", log, "start a - seed=3", "end a - seed=3", "start b - seed=3")
	entries[1].Full = []string{"-name", "b"}
	_, log, err = fakeRun(t, context.Background(), dir, entries, "-seed", "3")
	if err != nil {
		t.Fatal(err)
	}
	want("run after the interruption", log, strings.Split(strings.ReplaceAll(strings.Join(all[2:], "\n"), "seed=1", "seed=3"), "\n")...)
}

// TestFromReport loses the cache of a run and regenerates the report from
// the old report with -from-report: only the run that had failed runs
// again, and every restored section is identical to the old report's. A
// run with other arguments restores nothing; a quick report, no cache and
// a file that is not a report are refused.
func TestFromReport(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	dir, fail, entries := fakeSetup(t)
	entries = append(entries, entry{Name: "c", Pkg: fakePkg, Target: "Fig. c", Full: []string{"-name", "c"}, Quick: []string{"-name", "c"}, Plain: true,
		Split: []part{{"x", []string{"-part", "x"}, "1 s", ""}, {"y", []string{"-part", "y"}, "1 s", ""}}})
	// The second run's report shows a, c-x and c-y as cached results (with
	// their finishing times and commits) and b as failed.
	if _, _, err := fakeRun(t, context.Background(), dir, entries); err != nil {
		t.Fatal(err)
	}
	old, _, err := fakeRun(t, context.Background(), dir, entries)
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "saved.md")
	if err := os.WriteFile(saved, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(fail)
	os.RemoveAll(filepath.Join(dir, "cache"))
	rep, log, err := fakeRun(t, context.Background(), dir, entries, "-from-report", saved)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"start b - seed=1", "end b - seed=1"}; !slices.Equal(log, want) {
		t.Errorf("after -from-report the fakes logged %v, want %v", log, want)
	}
	section := func(rep, name string) string {
		_, s, _ := strings.Cut(rep, "\n## "+name+"\n")
		s, _, _ = strings.Cut(s, "\n## ")
		return s
	}
	for _, name := range []string{"a", "c-x", "c-y"} {
		if o, n := section(old, name), section(rep, name); o == "" || o != n {
			t.Errorf("section %s: restored\n%s\nold\n%s", name, n, o)
		}
	}
	if !strings.Contains(rep, "3 of them cached results") || !strings.Contains(section(rep, "b"), "Outcome: **partial**") {
		t.Errorf("regenerated report:\n%s", rep)
	}
	// -only runs the selected (here cached) and reports the others from
	// the cache.
	if rep, log, _ = fakeRun(t, context.Background(), dir, entries, "-only", "b"); log != nil || strings.Contains(rep, "not selected") ||
		section(rep, "c-y") != section(old, "c-y") {
		t.Errorf("-only b ran %v; report:\n%s", log, rep)
	}
	os.RemoveAll(filepath.Join(dir, "cache"))
	if rep, log, _ = fakeRun(t, context.Background(), dir, entries, "-only", "a"); !slices.Equal(log, []string{"start a - seed=1", "end a - seed=1"}) ||
		strings.Count(rep, "not run: not selected by -only") != 3 {
		t.Errorf("-only a on an empty cache ran %v; report:\n%s", log, rep)
	}
	os.RemoveAll(filepath.Join(dir, "cache"))
	if _, log, _ = fakeRun(t, context.Background(), dir, entries, "-from-report", saved, "-seed", "2"); len(log) != 8 {
		t.Errorf("seed 2 from a seed-1 report ran %v, want all four runs", log)
	}

	quick, _, err := fakeRun(t, context.Background(), dir, entries, "-quick")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saved, []byte(quick), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := fakeRun(t, context.Background(), dir, entries, "-from-report", saved); err == nil || !strings.Contains(err.Error(), "quick") {
		t.Errorf("a quick report: %v", err)
	}
	// A quick run reads a quick report: with the cache lost, nothing runs
	// again and the sections are the same but for the wall time's line,
	// which now says the result is cached.
	os.RemoveAll(filepath.Join(dir, "cache"))
	noWall := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "- Wall time:") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if rep, log, err := fakeRun(t, context.Background(), dir, entries, "-quick", "-from-report", saved); err != nil || log != nil || noWall(section(rep, "a")) != noWall(section(quick, "a")) {
		t.Errorf("a quick run from the quick report: %v, ran %v; section a\n%s\nwas\n%s", err, log, section(rep, "a"), section(quick, "a"))
	}
	if err := os.WriteFile(saved, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := fakeRun(t, context.Background(), dir, entries, "-quick", "-from-report", saved); err == nil || !strings.Contains(err.Error(), "paper-scale report") {
		t.Errorf("a quick run from a paper-scale report: %v", err)
	}
	if _, _, err := fakeRun(t, context.Background(), dir, entries, "-from-report", filepath.Join(dir, "log")); err == nil || !strings.Contains(err.Error(), "not a report") {
		t.Errorf("not a report: %v", err)
	}
	cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-cache", "none", "-from-report", saved, "-report", filepath.Join(dir, "R.md")})
	if err != nil {
		t.Fatal(err)
	}
	cfg.entries = entries
	if err := run(context.Background(), cfg, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "needs a cache") {
		t.Errorf("-cache none: %v", err)
	}
}

// TestParseReport reads back a report written from results with escaped
// table cells, demoted headings, plain output, a failure and a run that
// was not cached when the report was written.
func TestParseReport(t *testing.T) {
	fin := time.Date(2026, 11, 27, 10, 4, 0, 0, time.UTC)
	v := []cli.Verdict{{Outcome: cli.Reproduced, Target: "Table 2", Reason: "a | b within 0.1"}, {Outcome: cli.Partial, Target: "Fig. 3", Reason: "c"}}
	results := []result{
		{job: job{entry: entry{Name: "md", Pkg: "./x", Target: "T"}, Group: "md"}, Args: []string{"-seed", "1", "-k", "0.1,0.3"}, Ran: true, Cached: true,
			Stdout: "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Sub\ntext\n", Wall: 1234567 * time.Millisecond, Verdicts: v, Finished: fin, Commit: "abc123"},
		{job: job{entry: entry{Name: "plain", Pkg: "./y", Target: "T", Plain: true}, Group: "plain"}, Args: []string{"-seed", "1"}, Ran: true,
			Stdout: "  x\n## not a section\n", Wall: 2 * time.Second, Verdicts: v[1:]},
		{job: job{entry: entry{Name: "bad", Pkg: "./z", Target: "T"}, Group: "bad"}, Args: []string{"-seed", "1"}, Ran: true, Err: "exit status 1", Stderr: "boom"},
		{job: job{entry: entry{Name: "skipped", Pkg: "./z", Target: "T"}, Group: "skipped"}, NotRun: "not selected by -only"},
	}
	var b strings.Builder
	writeReport(&b, config{seed: 1, commit: "def456"}, results, time.Second)
	got, err := parseReport(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("read %d results, want md and plain: %v", len(got), got)
	}
	md, plain := got["md"], got["plain"]
	if md.Pkg != "./x" || !slices.Equal(md.Args, results[0].Args) || md.Wall != 1234600*time.Millisecond ||
		!md.Finished.Equal(fin) || md.Commit != "abc123" || !slices.Equal(md.Verdicts, v) ||
		md.Stdout != "### Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n### Sub\ntext" {
		t.Errorf("md read back as %+v", md)
	}
	if plain.Stdout != "x\n## not a section" || plain.Wall != 2*time.Second || plain.Commit != "def456" ||
		plain.Finished.IsZero() || !slices.Equal(plain.Verdicts, v[1:]) {
		t.Errorf("plain read back as %+v", plain)
	}
}

// TestCheckpointFolders checks the checkpoint folders: each job's example
// gets its own through cli.CheckpointsEnv; a failed job's folder stays,
// with the wall time it spent, so that its next run continues from it and
// records the time of both; a job that succeeds removes its folder.
func TestCheckpointFolders(t *testing.T) {
	dir, fail, entries := fakeSetup(t)
	if _, _, err := fakeRun(t, context.Background(), dir, entries); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	folders, _ := filepath.Glob(filepath.Join(cache, checkpointsDir, "*"))
	if len(folders) != 1 || !strings.HasPrefix(filepath.Base(folders[0]), "b-") {
		t.Fatalf("checkpoint folders after b failed: %v, want b's only", folders)
	}
	if _, err := os.Stat(filepath.Join(folders[0], "marker")); err != nil {
		t.Errorf("b's checkpoint was not kept: %v", err)
	}
	before, err := earlierWall(folders[0])
	if err != nil {
		t.Fatal(err)
	}
	if before <= 0 {
		t.Errorf("the failed run's wall time was not recorded (%v)", before)
	}
	os.Remove(fail)
	if _, _, err := fakeRun(t, context.Background(), dir, entries); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "log.ckpt")); string(got) != "resumed b -\n" {
		t.Errorf("the fakes that found a checkpoint: %q, want b once", got)
	}
	if folders, _ := filepath.Glob(filepath.Join(cache, checkpointsDir, "*")); len(folders) != 0 {
		t.Errorf("checkpoint folders left after every job succeeded: %v", folders)
	}
	var c cached
	if raw, err := os.ReadFile(filepath.Join(cache, filepath.Base(folders[0])+".json")); err != nil || json.Unmarshal(raw, &c) != nil {
		t.Fatalf("b's cached result: %v", err)
	}
	if c.Wall < before {
		t.Errorf("b's cached wall time %v, want at least the failed run's %v", c.Wall, before)
	}
}
