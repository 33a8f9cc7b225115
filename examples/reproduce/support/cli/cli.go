// Package cli is the small contract every example program follows, so that
// examples/reproduce can run them all and collect their results.
//
// An example program
//
//   - accepts the common flags -quick (reduced settings that finish in a few
//     minutes), -seed (the random seed) and -out DIR (optional directory for
//     SVG/PNG plots and CSV files; nothing is written when it is empty),
//     registered by Register;
//
//   - rejects bad flags and bad flag values with a usage message on stderr and
//     exit status 2 (Main does this for errors wrapping ErrUsage);
//
//   - writes at least one plot as SVG and PNG when -out is set (WritePlot,
//     WriteCorner), which its test checks with package clitest;
//
//   - reports progress on stderr at least every few seconds during long
//     runs (Progress; Every for library runs that emit many events, While
//     for calls that report rarely or not at all);
//
//   - prints its results on stdout as Markdown: "### " headings, tables
//     written by Table.Markdown with the paper's numbers beside ours, and
//     plain paragraphs;
//
//   - reports one Verdict per reproduced paper table or figure with Report
//     (or PrintVerdict), which prints the line
//
//     verdict: reproduced|differs|partial — <target>: <reason>
//
//     and records the typed value for examples/reproduce;
//
//   - needs no network and no files outside the repository (an optional file
//     of the shared reference directory found by SharedFile is used only when
//     present).
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/privinfer/privinfer"
)

// ErrUsage marks errors caused by bad command-line flags; Main prints the
// usage message and exits with status 2 for them.
var ErrUsage = errors.New("bad usage")

// Usagef returns an error wrapping ErrUsage with a formatted message.
func Usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// Common holds the flags shared by every example.
type Common struct {
	Quick bool
	Seed  uint64
	Out   string
}

// Register adds -quick, -seed and -out to fs and returns the struct they
// fill; defaultSeed is the seed used when -seed is not given.
func Register(fs *flag.FlagSet, defaultSeed uint64) *Common {
	c := &Common{Seed: defaultSeed}
	fs.BoolVar(&c.Quick, "quick", false, "reduced settings that finish in a few minutes")
	fs.Uint64Var(&c.Seed, "seed", defaultSeed, "random seed")
	fs.StringVar(&c.Out, "out", "", "directory for plots (SVG and PNG) and CSV files; empty writes none")
	return c
}

// Prepare creates the output directory when -out is set.
func (c *Common) Prepare() error {
	if c.Out == "" {
		return nil
	}
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	return nil
}

// Path returns the path of name inside the output directory ("" when -out
// is not set).
func (c *Common) Path(name string) string {
	if c.Out == "" {
		return ""
	}
	return filepath.Join(c.Out, name)
}

// Parse parses args into fs (which must use flag.ContinueOnError) and
// rejects positional arguments. Errors wrap ErrUsage, except flag.ErrHelp,
// which is returned as is.
func Parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected arguments %q", fs.Args())
	}
	return nil
}

// Main runs an example: run receives the command-line arguments and the
// standard streams and returns an error. Main exits with status 0 on
// success and on -h, 2 with the usage message for errors wrapping ErrUsage
// (and for flag.ErrHelp requested output), and 1 for any other error.
// usage writes the flag defaults of the program.
func Main(name string, usage func(w io.Writer), run func(args []string, stdout, stderr io.Writer) error) {
	os.Exit(Exit(name, usage, run, os.Args[1:], os.Stdout, os.Stderr))
}

// Program is Main for the usual shape of an example: parse registers the
// program's flags on a fresh flag set and reads the arguments into a
// configuration, and run executes it.
func Program[C any](name string, parse func(fs *flag.FlagSet, args []string) (C, error), run func(ctx context.Context, c C, stdout, stderr io.Writer) error) {
	usage := func(w io.Writer) {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		parse(fs, []string{"-h"}) // registers the flags
		FlagUsage(fs)(w)
	}
	Main(name, usage, Runner(name, parse, run))
}

// Runner returns the run function of Main and Exit for parse and run (see
// Program); every call parses into a fresh flag set called name.
func Runner[C any](name string, parse func(fs *flag.FlagSet, args []string) (C, error), run func(ctx context.Context, c C, stdout, stderr io.Writer) error) func(args []string, stdout, stderr io.Writer) error {
	return func(args []string, stdout, stderr io.Writer) error {
		c, err := parse(flag.NewFlagSet(name, flag.ContinueOnError), args)
		if err != nil {
			return err
		}
		return run(context.Background(), c, stdout, stderr)
	}
}

// Exit is Main without os.Exit: it returns the exit status.
func Exit(name string, usage func(w io.Writer), run func(args []string, stdout, stderr io.Writer) error, args []string, stdout, stderr io.Writer) int {
	err := run(args, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintf(stderr, "usage of %s:\n", name)
		usage(stderr)
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(stderr, "%s: %v\nusage of %s:\n", name, err, name)
		usage(stderr)
		return 2
	default:
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
}

// FlagUsage returns a usage writer printing the defaults of fs.
func FlagUsage(fs *flag.FlagSet) func(io.Writer) {
	return func(w io.Writer) {
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// Positive checks that a flag value is finite and > 0.
func Positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return Usagef("-%s must be finite and > 0, got %v", name, v)
	}
	return nil
}

// AtLeast checks that an integer flag value is ≥ lo.
func AtLeast(name string, v, lo int) error {
	if v < lo {
		return Usagef("-%s must be >= %d, got %d", name, lo, v)
	}
	return nil
}

// Progress writes timestamped progress lines to a writer (stderr). Its
// methods may be called from several goroutines: lines are written whole,
// one at a time.
type Progress struct {
	W     io.Writer
	start time.Time
	mu    sync.Mutex
	last  time.Time // when the last line was written
}

// NewProgress returns a progress writer on w, timing from now.
func NewProgress(w io.Writer) *Progress { return &Progress{W: w, start: time.Now()} }

// Printf writes one progress line prefixed by the elapsed time.
func (p *Progress) Printf(format string, args ...any) {
	if p == nil || p.W == nil {
		return
	}
	line := fmt.Sprintf("[%7.1fs] %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last = time.Now()
	io.WriteString(p.W, line)
}

// Func returns a privinfer.ProgressFunc that writes every event of a
// library run as one progress line.
func (p *Progress) Func() privinfer.ProgressFunc {
	return func(e privinfer.Progress) { p.Printf("%v", e) }
}

// Elapsed is the time since the progress writer was created.
func (p *Progress) Elapsed() time.Duration { return time.Since(p.start) }

// Outcome is the kind of a Verdict: Reproduced, Differs or Partial.
type Outcome string

// The outcomes of a verdict. The constants are untyped so that they serve
// both as an Outcome and as the Kind of a ParsedVerdict.
const (
	// Reproduced: our numbers agree with the paper's within the tolerance
	// the example states.
	Reproduced = "reproduced"
	// Differs: they disagree.
	Differs = "differs"
	// Partial: some agree and some do not, or the comparison is indirect.
	Partial = "partial"
)

// Verdict is an example's typed judgement of one paper table or figure.
type Verdict struct {
	// Outcome is Reproduced, Differs or Partial.
	Outcome Outcome `json:"outcome"`
	// Target names the paper table or figure.
	Target string `json:"target"`
	// Reason says why, with the numbers compared.
	Reason string `json:"reason"`
	// Ours and Paper, when set, are the measured number(s) and the
	// paper's, as the verdict compared them (for the report's summary);
	// verdicts computed by Within, AllWithin and Judge set them.
	Ours  string `json:"ours,omitempty"`
	Paper string `json:"paper,omitempty"`
}

// Validate reports a verdict whose Outcome is not one of the three known
// outcomes or whose Target is empty.
func (v Verdict) Validate() error {
	switch v.Outcome {
	case Reproduced, Differs, Partial:
	default:
		return fmt.Errorf("verdict outcome %q is not %s, %s or %s", v.Outcome, Reproduced, Differs, Partial)
	}
	if v.Target == "" {
		return errors.New("verdict has no target")
	}
	return nil
}

// String is the verdict line "verdict: <outcome> — <target>: <reason>".
func (v Verdict) String() string {
	return fmt.Sprintf("verdict: %s — %s: %s", v.Outcome, v.Target, v.Reason)
}

// VerdictFileEnv names the environment variable through which
// examples/reproduce collects verdicts: when it holds a path, Report appends
// every verdict to that file as one JSON object per line, which ReadVerdicts
// reads back.
const VerdictFileEnv = "PRIVINFER_VERDICTS"

// Report prints the verdict line on w (preceded by a blank line) and, when
// the environment variable VerdictFileEnv names a file, appends the verdict
// to it as a JSON line.
func Report(w io.Writer, v Verdict) error {
	fmt.Fprintf(w, "\n%s\n", v)
	path := os.Getenv(VerdictFileEnv)
	if path == "" {
		return nil
	}
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("recording verdict: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("recording verdict: %w", err)
	}
	return f.Close()
}

// ReadVerdicts reads the verdicts appended to path by Report, in order. A
// missing file means no verdicts. Every verdict is validated.
func ReadVerdicts(path string) ([]Verdict, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var vs []Verdict
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var v Verdict
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return vs, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		if err := v.Validate(); err != nil {
			return vs, fmt.Errorf("%s line %d: %w", path, i+1, err)
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// PrintVerdict reports the verdict {kind, what, reason} with Report,
// ignoring a failure to record it (examples/reproduce then finds no
// verdict and says so). kind is Reproduced, Differs or Partial; what names
// the paper table or figure.
func PrintVerdict(w io.Writer, kind, what, reason string) {
	_ = Report(w, Verdict{Outcome: Outcome(kind), Target: what, Reason: reason})
}

// ParsedVerdict is one verdict line read back from an example's output by
// ParseVerdicts, for tests of the printed text; programs exchange Verdict
// values through Report and ReadVerdicts.
type ParsedVerdict struct {
	Kind, What, Reason string
}

// ParseVerdicts returns the verdict lines of out in order. Lines whose kind
// is not one of the three known kinds are returned with Kind "invalid".
func ParseVerdicts(out string) []ParsedVerdict {
	var vs []ParsedVerdict
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "verdict:")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		kind, tail, _ := strings.Cut(rest, " ")
		tail = strings.TrimSpace(tail)
		tail = strings.TrimPrefix(tail, "—")
		tail = strings.TrimPrefix(tail, "-")
		tail = strings.TrimSpace(tail)
		what, reason, ok := strings.Cut(tail, ": ")
		if !ok {
			what, reason = "", tail
		}
		switch kind {
		case Reproduced, Differs, Partial:
		default:
			kind = "invalid"
		}
		vs = append(vs, ParsedVerdict{Kind: kind, What: strings.TrimSpace(what), Reason: strings.TrimSpace(reason)})
	}
	return vs
}

// Table is a Markdown table.
type Table struct {
	Header []string
	Rows   [][]string
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// Markdown writes the table in GitHub Markdown, padding columns so it also
// reads well as plain text.
func (t *Table) Markdown(w io.Writer) {
	n := len(t.Header)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	width := make([]int, n)
	cell := func(r []string, j int) string {
		if j < len(r) {
			return strings.ReplaceAll(r[j], "|", `\|`)
		}
		return ""
	}
	for j := range n {
		width[j] = max(3, len([]rune(cell(t.Header, j))))
		for _, r := range t.Rows {
			width[j] = max(width[j], len([]rune(cell(r, j))))
		}
	}
	line := func(r []string) {
		var b strings.Builder
		b.WriteString("|")
		for j := range n {
			c := cell(r, j)
			b.WriteString(" " + c + strings.Repeat(" ", width[j]-len([]rune(c))) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	fmt.Fprintln(w)
	line(t.Header)
	var b strings.Builder
	b.WriteString("|")
	for j := range n {
		b.WriteString(" " + strings.Repeat("-", width[j]) + " |")
	}
	fmt.Fprintln(w, b.String())
	for _, r := range t.Rows {
		line(r)
	}
	fmt.Fprintln(w)
}

// F formats a number with the given number of decimals ("—" for NaN).
func F(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.*f", decimals, v)
}

// RepoRoot returns the root of the module containing the working directory
// (the nearest parent directory with a go.mod).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod in the working directory or its parents")
		}
		dir = parent
	}
}

// SharedFile returns the path of rel inside the optional shared reference
// directory next to the repository (../shared/rel from the repository root,
// or $PRIVINFER_SHARED/rel when that variable is set) and whether the file
// exists. Examples must work without it.
func SharedFile(rel string) (string, bool) {
	base := os.Getenv("PRIVINFER_SHARED")
	if base == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", false
		}
		base = filepath.Join(root, "..", "shared")
	}
	p := filepath.Join(base, filepath.FromSlash(rel))
	st, err := os.Stat(p)
	return p, err == nil && !st.IsDir()
}

// QuickDefaults applies the reduced settings of -quick: when quick is set,
// every flag named in defaults that was not given on the command line is
// set to its quick value (parsed by the flag itself), so -quick never
// overrides an explicit flag. It returns a usage error for an unknown flag
// name or a value the flag rejects (a programmer error in the example).
func QuickDefaults(fs *flag.FlagSet, quick bool, defaults map[string]string) error {
	if !quick {
		return nil
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	names := make([]string, 0, len(defaults))
	for name := range defaults {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if given[name] {
			continue
		}
		if err := fs.Set(name, defaults[name]); err != nil {
			return Usagef("-quick default for -%s: %v", name, err)
		}
	}
	return nil
}
