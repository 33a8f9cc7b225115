package cli

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

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
)

type config struct {
	Common
	n int
}

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	common := Register(fs, 7)
	fs.IntVar(&c.n, "n", 3, "count")
	if err := Parse(fs, args); err != nil {
		return c, err
	}
	c.Common = *common
	return c, AtLeast("n", c.n, 1)
}

func run(ctx context.Context, c config, stdout, stderr io.Writer) error {
	if c.Seed == 99 {
		return errors.New("boom")
	}
	PrintVerdict(stdout, Reproduced, "Table 9", "all cells within 0.01")
	return nil
}

func TestExitCodes(t *testing.T) {
	usage := func(w io.Writer) { io.WriteString(w, "  -n int\n") }
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{nil, 0, ""},
		{[]string{"-h"}, 0, "usage of t"},
		{[]string{"-nope"}, 2, "flag provided but not defined"},
		{[]string{"-n", "0"}, 2, "-n must be >= 1"},
		{[]string{"-n", "x"}, 2, "invalid value"},
		{[]string{"extra"}, 2, "unexpected arguments"},
		{[]string{"-seed", "99"}, 1, "boom"},
	} {
		var out, errw bytes.Buffer
		code := Exit("t", usage, Runner("t", parse, run), tc.args, &out, &errw)
		if code != tc.code || !strings.Contains(errw.String(), tc.err) {
			t.Errorf("%v: code %d stderr %q, want %d containing %q", tc.args, code, errw.String(), tc.code, tc.err)
		}
		if tc.code == 2 && !strings.Contains(errw.String(), "usage of t") {
			t.Errorf("%v: no usage message", tc.args)
		}
	}
}

func TestVerdictRoundTrip(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("some table\n")
	PrintVerdict(&b, Reproduced, "Table 1", "max |Δ| = 0.01: within tolerance")
	PrintVerdict(&b, Differs, "Fig. 3", "coverage 0.90")
	b.WriteString("verdict: maybe — x: y\nverdict: partial - Fig 2: plain hyphen\n")
	vs := ParseVerdicts(b.String())
	want := []ParsedVerdict{
		{Reproduced, "Table 1", "max |Δ| = 0.01: within tolerance"},
		{Differs, "Fig. 3", "coverage 0.90"},
		{"invalid", "x", "y"},
		{Partial, "Fig 2", "plain hyphen"},
	}
	if len(vs) != len(want) {
		t.Fatalf("got %d verdicts %+v, want %d", len(vs), vs, len(want))
	}
	for i := range want {
		if vs[i] != want[i] {
			t.Errorf("verdict %d: got %+v, want %+v", i, vs[i], want[i])
		}
	}
}

func TestTableMarkdown(t *testing.T) {
	tb := Table{Header: []string{"param", "ours"}}
	tb.Add("a|b", "0.5")
	tb.Add("c")
	var b bytes.Buffer
	tb.Markdown(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines:\n%s", len(lines), b.String())
	}
	for _, l := range lines {
		if strings.Count(l, " |")+strings.Count(l, "-|") < 2 || !strings.HasPrefix(l, "|") || len(l) != len(lines[0]) {
			t.Errorf("malformed line %q", l)
		}
	}
	if !strings.Contains(lines[2], `a\|b`) || !strings.HasPrefix(lines[1], "| ---") {
		t.Errorf("unexpected table:\n%s", b.String())
	}
}

func TestOutputs(t *testing.T) {
	var c Common
	if p, err := c.WriteCSV("x.csv", []string{"a"}, nil); p != "" || err != nil {
		t.Fatalf("no -out must write nothing, got %q %v", p, err)
	}
	c.Out = filepath.Join(t.TempDir(), "sub")
	if err := c.Prepare(); err != nil {
		t.Fatal(err)
	}
	p, err := c.WriteCSV("x.csv", []string{"a", "b"}, [][]string{FloatRow(0.1, 2)})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	if string(data) != "a,b\n0.1,2\n" {
		t.Errorf("csv = %q", data)
	}
	if p, err := c.WriteCorner("corner", &privinfer.Draws{Dim: 1, Theta: []float64{1, 2, 3}}, privinfer.CornerConfig{}); err != nil || !strings.HasSuffix(p, "corner.svg") {
		t.Fatalf("WriteCorner: %q, %v", p, err)
	}
	if b, err := os.ReadFile(filepath.Join(c.Out, "corner.png")); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("WriteCorner wrote no PNG beside the SVG: %v", err)
	}
	cv, err := plot.LineChart{Title: "t", Series: []plot.Series{{Name: "s", X: []float64{0, 1}, Y: []float64{1, 2}}}}.Draw()
	if err != nil {
		t.Fatal(err)
	}
	paths, err := c.WritePlot("chart", cv)
	if err != nil || len(paths) != 2 {
		t.Fatalf("WritePlot: %v %v", paths, err)
	}
	png, _ := os.ReadFile(paths[1])
	svg, _ := os.ReadFile(paths[0])
	if !bytes.HasPrefix(png, []byte("\x89PNG")) || !bytes.Contains(svg, []byte("<svg")) {
		t.Error("plot files malformed")
	}
}

func TestRepoRootAndShared(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PRIVINFER_SHARED", t.TempDir())
	if _, ok := SharedFile("nope.csv"); ok {
		t.Error("missing shared file reported present")
	}
}

func TestQuickDefaults(t *testing.T) {
	parse := func(quick bool, args ...string) (int, string, error) {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		n := fs.Int("n", 100, "")
		s := fs.String("s", "full", "")
		if err := fs.Parse(args); err != nil {
			return 0, "", err
		}
		err := QuickDefaults(fs, quick, map[string]string{"n": "10", "s": "quick"})
		return *n, *s, err
	}
	if n, s, err := parse(false); err != nil || n != 100 || s != "full" {
		t.Errorf("without -quick: %d %q %v", n, s, err)
	}
	if n, s, err := parse(true); err != nil || n != 10 || s != "quick" {
		t.Errorf("-quick: %d %q %v", n, s, err)
	}
	if n, s, err := parse(true, "-n", "7"); err != nil || n != 7 || s != "quick" {
		t.Errorf("-quick with explicit -n: %d %q %v", n, s, err)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	if err := QuickDefaults(fs, true, map[string]string{"missing": "1"}); !errors.Is(err, ErrUsage) {
		t.Errorf("unknown flag: got %v, want a usage error", err)
	}
}

// TestReportRecordsTypedVerdicts checks that Report prints the line that
// ParseVerdicts reads and records the same typed value for ReadVerdicts,
// and that ReadVerdicts refuses unknown outcomes.
func TestReportRecordsTypedVerdicts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "verdicts.jsonl")
	if vs, err := ReadVerdicts(path); err != nil || vs != nil {
		t.Fatalf("missing file: %v, %v", vs, err)
	}
	t.Setenv(VerdictFileEnv, path)
	want := []Verdict{
		{Outcome: Reproduced, Target: "Table 1", Reason: "max |Δ| = 0.01: within tolerance"},
		{Outcome: Partial, Target: "Fig. 3", Reason: "coverage 0.90\nsecond line"},
	}
	var b bytes.Buffer
	for _, v := range want {
		if err := Report(&b, v); err != nil {
			t.Fatal(err)
		}
	}
	got, err := ReadVerdicts(path)
	if err != nil || len(got) != len(want) {
		t.Fatalf("ReadVerdicts: %+v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("verdict %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if p := ParseVerdicts(b.String()); len(p) != 2 || p[0].Kind != Reproduced || p[0].What != "Table 1" {
		t.Errorf("printed lines parse to %+v", p)
	}
	if err := os.WriteFile(path, []byte(`{"outcome":"maybe","target":"x","reason":"y"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadVerdicts(path); err == nil {
		t.Error("unknown outcome accepted")
	}
	if err := (Verdict{Outcome: Differs}).Validate(); err == nil {
		t.Error("verdict without a target accepted")
	}
}

// TestReadDraws reads the two sample formats: the library's CSV (with a
// weight column) and a pandas frame with an unnamed index column.
func TestReadDraws(t *testing.T) {
	dir := t.TempDir()
	ours := filepath.Join(dir, "ours.csv")
	pandas := filepath.Join(dir, "pandas.csv")
	os.WriteFile(ours, []byte("a,b,weight\n1,2,0.25\n3,NaN,0.75\n"), 0o644)
	os.WriteFile(pandas, []byte(",0,1\n0,1.5,-2\n1,2.5,-3\n2,3.5,-4\n"), 0o644)
	d, err := ReadDraws(ours)
	if err != nil || d.Dim != 2 || d.Len() != 2 || d.Weights[1] != 0.75 || d.ParamNames()[1] != "b" {
		t.Fatalf("ours: %+v, %v", d, err)
	}
	d, err = ReadDraws(pandas, "x", "y")
	if err != nil || d.Dim != 2 || d.Len() != 3 || d.Weighted() || d.Row(2)[0] != 3.5 || d.Row(2)[1] != -4 || d.Names[1] != "y" {
		t.Fatalf("pandas: %+v, %v", d, err)
	}
	if _, err := ReadDraws(pandas, "x"); err == nil {
		t.Error("wrong number of names accepted")
	}
	for name, body := range map[string]string{"empty.csv": ",0\n", "short.csv": ",0,1\n0,0.5\n", "nan.csv": ",0,1\n0,x,0.5\n", "absent.csv": ""} {
		p := filepath.Join(dir, name)
		if body != "" {
			os.WriteFile(p, []byte(body), 0o644)
		}
		if _, err := ReadDraws(p); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	t.Setenv("PRIVINFER_SHARED", dir)
	if d, err := Authors("absent.csv"); d != nil || err != nil {
		t.Errorf("absent authors' file: %v, %v", d, err)
	}
	os.MkdirAll(filepath.Join(dir, AuthorsDir), 0o755)
	os.WriteFile(filepath.Join(dir, AuthorsDir, "p.csv"), []byte(",0\n0,1\n1,2\n"), 0o644)
	if d, err := Authors("p.csv", "mu"); err != nil || d.Len() != 2 || d.Names[0] != "mu" {
		t.Errorf("authors' file: %+v, %v", d, err)
	}
}

// TestEvery checks the throttled progress: the first event, a change of
// stage or round and the completion of a stage are written, repeated
// events within the interval are dropped, and events after it are written.
func TestEvery(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	f := p.Every(time.Hour, "fit")
	f(privinfer.Progress{Stage: "epoch", Step: 1, Total: 10})
	f(privinfer.Progress{Stage: "epoch", Step: 2, Total: 10}) // dropped
	f(privinfer.Progress{Stage: "epoch", Step: 10, Total: 10})
	f(privinfer.Progress{Stage: "epoch", Round: 2, Step: 1})
	f(privinfer.Progress{Stage: "sample", Round: 2, Step: 1})
	f(privinfer.Progress{Stage: "sample", Round: 2, Step: 2}) // dropped
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "fit: epoch 1/10") || !strings.Contains(lines[1], "epoch 10/10") ||
		!strings.Contains(lines[2], "round 2 epoch 1") || !strings.Contains(lines[3], "round 2 sample 1") {
		t.Errorf("throttled lines:\n%s", b.String())
	}
	b.Reset()
	g := p.Every(0, "")
	for i := range 3 {
		g(privinfer.Progress{Stage: "chain", Step: i + 1})
	}
	if n := strings.Count(b.String(), "chain"); n != 3 {
		t.Errorf("interval 0 wrote %d of 3 events:\n%s", n, b.String())
	}
}

// TestWhile checks the heartbeat of a call without progress of its own: a
// call silent for longer than the interval gets progress lines, lines the
// call writes itself are kept whole (run with -race to check the locking)
// and a call that writes lines often enough gets none; the call's error is
// returned, and a non-positive interval is refused.
func TestWhile(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	boom := errors.New("boom")
	err := p.While(5*time.Millisecond, "calibration", func() error {
		for i := range 6 {
			time.Sleep(10 * time.Millisecond)
			p.Printf("inner line %d", i) // concurrent with the heartbeat
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	if n := strings.Count(b.String(), "calibration: running"); n < 2 {
		t.Errorf("%d heartbeat lines in %q, want at least 2", n, b.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if !strings.HasPrefix(line, "[") || strings.Count(line, "[") != 1 {
			t.Errorf("mixed line %q", line)
		}
	}
	if err := p.While(0, "x", func() error { return nil }); err == nil {
		t.Error("interval 0 accepted")
	}
	// A call that writes its own lines more often than the interval gets
	// no heartbeat.
	b.Reset()
	q := NewProgress(&b)
	if err := q.While(time.Second, "busy", func() error {
		for i := range 5 {
			q.Printf("step %d", i)
			time.Sleep(5 * time.Millisecond)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "busy: running") {
		t.Errorf("heartbeat beside the call's own lines:\n%s", b.String())
	}
}

// TestWhileValue checks that WhileValue passes fn's value and error
// through and refuses a non-positive interval without calling fn.
func TestWhileValue(t *testing.T) {
	p := NewProgress(io.Discard)
	boom := errors.New("boom")
	if v, err := WhileValue(p, time.Second, "x", func() ([]int, error) { return []int{4, 2}, nil }); err != nil || len(v) != 2 || v[0] != 4 {
		t.Errorf("got %v, %v; want [4 2], nil", v, err)
	}
	if v, err := WhileValue(p, time.Second, "x", func() (int, error) { return 3, boom }); v != 3 || !errors.Is(err, boom) {
		t.Errorf("got %v, %v; want 3, boom", v, err)
	}
	called := false
	if v, err := WhileValue(p, 0, "x", func() (int, error) { called = true; return 5, nil }); err == nil || v != 0 || called {
		t.Errorf("interval 0: got %v, %v (called %v); want an error without calling fn", v, err, called)
	}
}

// TestCountParser checks the count flag's default, its -quick value, an
// explicit value under -quick, the lower bound and the common flags.
func TestCountParser(t *testing.T) {
	parse := CountParser("reps", 2000, 300, 10, "repetitions (-quick: 300)")
	for _, c := range []struct {
		args []string
		want int
	}{{nil, 2000}, {[]string{"-quick"}, 300}, {[]string{"-quick", "-reps", "50"}, 50}, {[]string{"-reps", "10"}, 10}} {
		cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), c.args)
		if err != nil || cfg.N != c.want || cfg.Seed != 1 {
			t.Errorf("%q: N %d seed %d, %v; want N %d seed 1", c.args, cfg.N, cfg.Seed, err, c.want)
		}
	}
	cfg, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-seed", "5", "-out", "d", "-quick"})
	if err != nil || cfg.Seed != 5 || cfg.Out != "d" || !cfg.Quick {
		t.Errorf("common flags: %+v, %v", cfg, err)
	}
	for _, args := range [][]string{{"-reps", "9"}, {"-reps", "x"}, {"extra"}} {
		if _, err := parse(flag.NewFlagSet("t", flag.ContinueOnError), args); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: got %v, want a usage error", args, err)
		}
	}
}
