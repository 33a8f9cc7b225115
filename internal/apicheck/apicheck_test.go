package apicheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// sentinels lists the exported error values besides ErrInvalid, each with
// the reason it is not an invalid-argument error. Keys are
// "<directory relative to the module root>.<name>".
var sentinels = map[string]string{
	"..ErrNoMechanism":               "capability: the Problem has no mechanism",
	"..ErrNoDensity":                 "capability: the mechanism has no release density",
	"..ErrNoTransform":               "capability: the mechanism has no uniform transform",
	"..ErrNoRecords":                 "capability: the simulator has no record-level model",
	"..ErrDegenerate":                "result: a diagnostic of a degenerate sample",
	"mcmc.ErrDegenerate":             "result: the same value as privinfer.ErrDegenerate",
	"mcmc.ErrNaN":                    "result: a log density evaluated to NaN during a run",
	"mechanism.ErrBudgetExceeded":    "refusal: an Accountant's total budget would be exceeded",
	"mechanism.ErrSVTHalted":         "state: the sparse vector session has answered its maximum",
	"simulate.ErrInvalidTheta":       "per-draw outcome: θ outside the model's space (wraps ErrInvalid; executors carry it across the wire)",
	"simulate.ErrNonFinite":          "per-row outcome: the cause of a *RowError whose statistic is NaN or infinite",
	"simulate/tb.ErrTooManyEvents":   "per-draw outcome: the outbreak exceeded Config.MaxEvents (wraps simulate.ErrInvalidTheta)",
	"simulate/tb.ErrExtinct":         "per-draw outcome: the process died out too often (wraps simulate.ErrInvalidTheta)",
	"combine.ErrNegativeVariance":    "result: the pooled Result has no interval (wraps ErrInvalid)",
	"combine.ErrNoDF":                "result: the pooled Result has no interval (wraps ErrInvalid)",
	"abc.ErrCorrupt":                 "file: a checkpoint that cannot be read (wraps ErrInvalid)",
	"abc.ErrCheckpointMismatch":      "file: a checkpoint of a run with other settings (wraps ErrInvalid)",
	"flow.ErrDiverged":               "result: training diverged",
	"flow/sbi.ErrNoObservation":      "capability: the posterior is not conditioned on a release (wraps ErrInvalid)",
	"flow/sbi.ErrCheckpointMismatch": "file: a checkpoint of a run with other settings (wraps ErrInvalid)",
	"flow/sbi.ErrCorrupt":            "file: a posterior file that cannot be read (wraps ErrInvalid)",
	"flow/sbi.ErrIncompatiblePrior":  "file: a saved posterior with another prior (wraps ErrInvalid)",
	"flow/sbi.ErrSequential":         "capability: a sequential posterior is valid at its own observation only (wraps ErrInvalid)",
	"flow/sbi.ErrLeakage":            "result: posterior mass leaks out of the prior support",
	"flow.ErrNonFinite":              "result: a non-finite value during training or sampling",
	"flow.ErrCorrupt":                "file: a saved flow that cannot be read",
}

// constructors lists the exported constructors still taking more than one
// positional numeric parameter, each with its reason.
var constructors = map[string]string{}

// maxNumeric is the largest number of positional numeric parameters an
// exported constructor may take.
const maxNumeric = 1

// sameTyped lists the exported functions and methods of mechanism/** that
// still take two or more positional parameters of one numeric type, each
// with the reason the positions cannot be confused in practice. Keys are
// "<directory>.<func>" or "<directory>.<Type>.<method>".
var sameTyped = map[string]string{
	"mechanism.Clamp":                      "clamp(x, lo, hi): the value then its interval, the order of every clamp; a per-value helper",
	"mechanism.ClampSlice":                 "as Clamp: the interval [lo, hi] in its written order after the slices",
	"mechanism.Normalize":                  "as Clamp: the value then the interval [lo, hi] it is mapped from",
	"mechanism.NormalizeSlice":             "as Clamp: the interval [lo, hi] in its written order after the slices",
	"mechanism.ClampedMean":                "as Clamp: the records then the interval [lo, hi]",
	"mechanism.ClampedVarianceSensitivity": "the interval [lo, hi] in its written order; n is an int",
	"mechanism.SampleDiscreteLaplace":      "the scale as the fraction num/den, in the order it is written; a low-level sampler for packages that build their own lattice",
	"mechanism.BernoulliExpNeg":            "the exponent as the fraction num/den, in the order it is written; a low-level sampler",
	"mechanism.AnalyticGaussianDelta":      "δ(ε, σ, Δ2), the privacy profile in the order of its published statement; an inner-loop function returning NaN for invalid input (AnalyticGaussianSigma takes a GaussianConfig)",
	"mechanism.RhoFromEpsilonDelta":        "the name states the order: ε then δ",
	"mechanism.GaussianRho":                "ρ = Δ²/(2σ²): the sensitivity then the noise, the order of the formula",
	"mechanism.ZCDPEpsilon":                "ε(ρ, δ), the order of the conversion's statement, as Accountant.Epsilon",
	"mechanism.ZCDPEpsilonBS":              "ε(ρ, δ), as ZCDPEpsilon",
	"mechanism/ldp/sgd.DefaultGroupSize":   "the default Train derives from its dimension d and number of users n, in Train's order",
}

// measurements lists the comment lines the measurement rule flags that
// are not measurements, each with its reason. Keys are "<file>|<a
// substring of the line>".
var measurements = map[string]string{
	"grid.go|ESS ≈ 884, a factor 1.0011": "a worked value of the exact weights, not a measurement (TestGridConjugate checks it)",
}

// minSameTyped is the number of positional parameters of one numeric type
// from which an exported function of mechanism/** is flagged.
const minSameTyped = 2

func TestDialect(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dirs := packageDirs(t, root, false)
	var problems []string
	seenSentinel := map[string]bool{}
	seenCtor := map[string]bool{}
	seenSame := map[string]bool{}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = "."
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range pkgs {
			if pkg.Name == "main" {
				continue
			}
			for name, f := range pkg.Files {
				file, _ := filepath.Rel(root, name)
				c := checker{fset: fset, file: filepath.ToSlash(file), pkg: rel}
				c.check(f)
				problems = append(problems, c.problems...)
				for _, s := range c.sentinels {
					seenSentinel[s] = true
				}
				for _, s := range c.ctors {
					seenCtor[s] = true
				}
				for _, s := range c.same {
					seenSame[s] = true
				}
			}
		}
	}
	for k := range sentinels {
		if !seenSentinel[k] {
			problems = append(problems, "allowlist: sentinel "+k+" is no longer declared; remove it from the list")
		}
	}
	for k := range constructors {
		if !seenCtor[k] {
			problems = append(problems, "allowlist: constructor "+k+" no longer takes several numeric parameters; remove it from the list")
		}
	}
	for k := range sameTyped {
		if !seenSame[k] {
			problems = append(problems, "allowlist: "+k+" no longer takes several positional parameters of one numeric type; remove it from the list")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// packageDirs lists the directories of the core module holding Go files,
// without testdata, example programs and nested modules, and without
// internal/ unless withInternal.
func packageDirs(t *testing.T, root string, withInternal bool) []string {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root {
			if (name == "internal" && !withInternal) || name == "testdata" || name == "examples" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		if m, _ := filepath.Glob(filepath.Join(path, "*.go")); len(m) > 0 {
			dirs = append(dirs, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

type checker struct {
	fset      *token.FileSet
	file, pkg string
	problems  []string
	sentinels []string
	ctors     []string
	same      []string
}

func (c *checker) errorf(pos token.Pos, format string, args ...any) {
	p := c.fset.Position(pos)
	c.problems = append(c.problems, c.file+":"+itoa(p.Line)+": "+sprintf(format, args...))
}

func (c *checker) check(f *ast.File) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			c.funcDecl(d)
		case *ast.GenDecl:
			c.genDecl(d)
		}
	}
}

func (c *checker) funcDecl(d *ast.FuncDecl) {
	if !d.Name.IsExported() {
		return
	}
	name := d.Name.Name
	if d.Recv != nil {
		recv := receiverType(d.Recv.List[0].Type)
		c.ident(d.Name, "method", true)
		if recv == "" || !ast.IsExported(recv) {
			return
		}
		if !docStarts(d.Doc, name) {
			c.errorf(d.Pos(), "method %s.%s: doc comment must begin with %q", recv, name, name)
		}
		c.sameTypedParams(d, recv+"."+name)
		return
	}
	c.sameTypedParams(d, name)
	c.ownConfig(d)
	c.ident(d.Name, "func", true)
	if !docStarts(d.Doc, name) {
		c.errorf(d.Pos(), "func %s: doc comment must begin with %q", name, name)
	}
	if strings.HasPrefix(name, "New") {
		n := 0
		var names []string
		for _, field := range d.Type.Params.List {
			if numeric(field.Type) {
				k := max(len(field.Names), 1)
				n += k
				for _, id := range field.Names {
					names = append(names, id.Name)
				}
			}
		}
		if n > maxNumeric {
			key := c.pkg + "." + name
			c.ctors = append(c.ctors, key)
			if _, ok := constructors[key]; !ok {
				c.errorf(d.Pos(), "constructor %s takes %d positional numeric parameters (%s); use a Config struct with named fields (a dimension is Dim)", name, n, strings.Join(names, ", "))
			}
		}
	}
}

// mechanismPackage reports whether pkg (a directory relative to the
// module root) is mechanism or one of its subpackages, whose functions
// take no confusable positional numbers.
func mechanismPackage(pkg string) bool {
	return pkg == "mechanism" || strings.HasPrefix(pkg, "mechanism/")
}

// sameTypedParams flags an exported function or method of mechanism/**
// (name is "Func" or "Type.Method") with minSameTyped or more positional
// parameters of one numeric type, such as bounds lo, hi float64 that
// can be swapped without a compile error: they belong in a Config's
// named fields.
func (c *checker) sameTypedParams(d *ast.FuncDecl, name string) {
	if !mechanismPackage(c.pkg) {
		return
	}
	count := map[string][]string{}
	var order []string
	for _, field := range d.Type.Params.List {
		if !numeric(field.Type) {
			continue
		}
		t := field.Type.(*ast.Ident).Name
		if _, ok := count[t]; !ok {
			order = append(order, t)
		}
		if len(field.Names) == 0 {
			count[t] = append(count[t], "_")
		}
		for _, id := range field.Names {
			count[t] = append(count[t], id.Name)
		}
	}
	for _, t := range order {
		if len(count[t]) < minSameTyped {
			continue
		}
		key := c.pkg + "." + name
		c.same = append(c.same, key)
		if _, ok := sameTyped[key]; !ok {
			c.errorf(d.Pos(), "func %s takes %d positional %s parameters (%s) that can be swapped unnoticed; take them as named fields of a Config (or allowlist it with a reason)", name, len(count[t]), t, strings.Join(count[t], ", "))
		}
		return
	}
}

// ownConfig flags an exported constructor NewT that takes a T (or *T):
// a type that is its own configuration. The configuration is a separate
// type (TConfig, with Validate), so the built value can keep its fields
// unexported and its invariants.
func (c *checker) ownConfig(d *ast.FuncDecl) {
	name := d.Name.Name
	t := strings.TrimPrefix(name, "New")
	if t == name || t == "" || !ast.IsExported(t) {
		return
	}
	for _, field := range d.Type.Params.List {
		e := field.Type
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		if id, ok := e.(*ast.Ident); ok && id.Name == t {
			c.errorf(d.Pos(), "constructor %s takes a %s: a type is not its own configuration; take a %sConfig with Validate", name, t, t)
			return
		}
	}
}

func (c *checker) genDecl(d *ast.GenDecl) {
	for _, spec := range d.Specs {
		switch s := spec.(type) {
		case *ast.TypeSpec:
			if !s.Name.IsExported() {
				continue
			}
			c.ident(s.Name, "type", false)
			c.members(s.Type)
			doc := s.Doc
			if doc == nil && len(d.Specs) == 1 {
				doc = d.Doc
			}
			if !docStarts(doc, s.Name.Name) && !docStarts(doc, "A "+s.Name.Name) && !docStarts(doc, "An "+s.Name.Name) {
				c.errorf(s.Pos(), "type %s: doc comment must begin with %q", s.Name.Name, s.Name.Name)
			}
		case *ast.ValueSpec:
			for _, id := range s.Names {
				if !id.IsExported() {
					continue
				}
				c.ident(id, d.Tok.String(), false)
				switch {
				case len(d.Specs) == 1 && s.Doc == nil:
					if !docStarts(d.Doc, id.Name) && !(d.Lparen.IsValid() && d.Doc != nil) {
						c.errorf(id.Pos(), "%s %s: doc comment must begin with %q", d.Tok, id.Name, id.Name)
					}
				case s.Doc != nil:
					if len(s.Names) == 1 && !docStarts(s.Doc, id.Name) {
						c.errorf(id.Pos(), "%s %s: doc comment must begin with %q", d.Tok, id.Name, id.Name)
					}
				case d.Doc == nil:
					c.errorf(id.Pos(), "%s %s: no doc comment (neither its own nor its group's)", d.Tok, id.Name)
				}
				if d.Tok == token.VAR && strings.HasPrefix(id.Name, "Err") && id.Name != "ErrInvalid" {
					key := c.pkg + "." + id.Name
					c.sentinels = append(c.sentinels, key)
					if _, ok := sentinels[key]; !ok {
						c.errorf(id.Pos(), "error %s: a package's only argument error is ErrInvalid (wrap it with %%w, naming the argument); a documented non-argument error needs an allowlist entry with its reason", id.Name)
					}
				}
			}
		}
	}
}

// modelPackage reports whether pkg (a directory relative to the module
// root) is a model package, where names of a published study's settings
// ("Paper…") belong: a subpackage simulate/<model> or mcmc/linregda.
func modelPackage(pkg string) bool {
	return strings.HasPrefix(pkg, "simulate/") || pkg == "mcmc/linregda"
}

// ident applies the naming rules to the exported identifier id of the
// given kind; fn tells whether it is a function or method (including an
// interface's).
func (c *checker) ident(id *ast.Ident, kind string, fn bool) {
	name := id.Name
	if !ast.IsExported(name) {
		return
	}
	if strings.Contains(name, "Seeded") {
		c.errorf(id.Pos(), "%s %s: the seeded-noise opt-out is named Reproducible, not Seeded…", kind, name)
	}
	if fn && strings.HasPrefix(name, "LogProb") {
		c.errorf(id.Pos(), "%s %s: a log density is named LogDensity, not LogProb…", kind, name)
	}
	if strings.Contains(name, "Paper") && !modelPackage(c.pkg) {
		c.errorf(id.Pos(), "%s %s: a study's settings (Paper…) belong in its model package (simulate/<model>, mcmc/linregda) or examples/", kind, name)
	}
}

// members applies the naming rules to the exported fields and interface
// methods of a type expression, including those of nested struct and
// interface literals.
func (c *checker) members(e ast.Expr) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch t := n.(type) {
		case *ast.StructType:
			for _, f := range t.Fields.List {
				for _, id := range f.Names {
					c.ident(id, "field", false)
				}
			}
		case *ast.InterfaceType:
			for _, f := range t.Methods.List {
				for _, id := range f.Names {
					c.ident(id, "interface method", true)
				}
			}
		case *ast.FuncLit, *ast.BlockStmt:
			return false
		}
		return true
	})
}

// docStarts reports whether the doc comment begins with word followed by
// a space, a comma or the end of the text.
func docStarts(doc *ast.CommentGroup, word string) bool {
	if doc == nil {
		return false
	}
	text := strings.TrimSpace(doc.Text())
	if strings.HasPrefix(text, "Deprecated:") {
		return true
	}
	if !strings.HasPrefix(text, word) {
		return false
	}
	rest := text[len(word):]
	return rest == "" || strings.ContainsAny(rest[:1], " ,.:;'(\n")
}

// TestNoMeasurementsInComments fails when a comment of a non-test file of
// the core module (internal packages included; examples/, where
// measurements live beside what they measure, excluded) holds a
// measurement table or figure: doc comments state decisions and point to
// the measurements (benchmarks, RESULTS.md, BENCHMARKS.md, the
// reproduction report), which go stale in a comment. The heuristic
// (measurementRule) flags a line that is a markdown table row or
// separator, a line naming an evaluation metric (C2ST, MMD, NLOG, LMD,
// KS, ESS, R̂) beside a figure with two or more decimals, and a line
// with a "mean ± sd" figure.
func TestNoMeasurementsInComments(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	seen := map[string]bool{}
	for _, dir := range packageDirs(t, root, true) {
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, pkg := range pkgs {
			for name, f := range pkg.Files {
				file, _ := filepath.Rel(root, name)
				for _, m := range commentMeasurements(fset, f) {
					key, ok := allowedMeasurement(filepath.ToSlash(file), m.text)
					if ok {
						seen[key] = true
						continue
					}
					problems = append(problems, sprintf("%s:%d: %s in a comment (%q): move it beside what it measures and point there, or allowlist the line with a reason", filepath.ToSlash(file), m.line, m.why, m.text))
				}
			}
		}
	}
	for k := range measurements {
		if !seen[k] {
			problems = append(problems, "allowlist: measurement "+k+" no longer matches a flagged comment line; remove it from the list")
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// allowedMeasurement returns the allowlist key matching a flagged line of
// file.
func allowedMeasurement(file, line string) (string, bool) {
	for k := range measurements {
		f, sub, _ := strings.Cut(k, "|")
		if f == file && strings.Contains(line, sub) {
			return k, true
		}
	}
	return "", false
}

// measurement is a flagged comment line.
type measurement struct {
	line      int
	text, why string
}

var (
	// tableRow matches a markdown table row (| a | b |) or separator.
	tableRow = regexp.MustCompile(`^\|.*\|.*\|$|^\|?\s*:?-{3,}:?\s*\|`)
	// metricFigure matches an evaluation metric beside a figure with two
	// or more decimals (C2ST 0.551, ESS … 1.0002).
	metricFigure = regexp.MustCompile(`(\b(C2ST|MMD|NLOG|LMD|KS|ESS)\b|R̂).*(\d\.\d{3,}|\b0\.\d{2,})`)
	// meanSD matches a "mean ± sd" figure (3.96 ± 0.58).
	meanSD = regexp.MustCompile(`\d\.\d+ ?± ?\d*\.\d+`)
)

// measurementRule returns why a comment line (without its // marker)
// looks like a measurement, or "".
func measurementRule(line string) string {
	l := strings.TrimSpace(line)
	switch {
	case tableRow.MatchString(l):
		return "a table row"
	case metricFigure.MatchString(l):
		return "a metric's figure"
	case meanSD.MatchString(l):
		return "a mean ± sd figure"
	}
	return ""
}

// commentMeasurements returns the lines of f's comments that
// measurementRule flags.
func commentMeasurements(fset *token.FileSet, f *ast.File) []measurement {
	var out []measurement
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			line := fset.Position(c.Pos()).Line
			for i, l := range strings.Split(c.Text, "\n") {
				l = strings.TrimPrefix(strings.TrimPrefix(l, "//"), "/*")
				if why := measurementRule(l); why != "" {
					out = append(out, measurement{line: line + i, text: strings.TrimSpace(l), why: why})
				}
			}
		}
	}
	return out
}

func receiverType(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverType(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return receiverType(t.X)
	case *ast.IndexListExpr:
		return receiverType(t.X)
	}
	return ""
}

func numeric(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	if !ok {
		return false
	}
	switch id.Name {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr", "float32", "float64":
		return true
	}
	return false
}

// TestNamingRulesReport checks that each naming rule reports a snippet
// violating it, in every position the rule covers, and leaves the allowed
// forms alone, so that TestDialect cannot pass by checking nothing.
func TestNamingRulesReport(t *testing.T) {
	const src = `package p

// Config configures.
type Config struct {
	// SeededNoise is a violating field.
	SeededNoise bool
	// Nested holds a violating nested field.
	Nested struct {
		// PaperRate is a violating nested field.
		PaperRate float64
	}
	seededOK bool
}

// Model is a model.
type Model struct{}

// LogProb is a violating method.
func (Model) LogProb(x float64) float64 { return x }

// LogDensity is allowed.
func (Model) LogDensity(x float64) float64 { return x }

// Density is an interface.
type Density interface {
	// LogProbability is a violating interface method.
	LogProbability(x float64) float64
}

// NewSeeded is a violating func.
func NewSeeded() *Model { return nil }

// PaperTheta is a func named after a study.
func PaperTheta() []float64 { return nil }

// SeededType is a violating type.
type SeededType int

// SeededDefault is a violating const.
const SeededDefault = 1

// LogProbVar is a variable, not a function: only the Seeded rule applies.
var LogProbVar = 0

func logProb() {}

func withSeededBits() {}
`
	run := snippetChecker(t, src)
	got := run("synth")
	for _, want := range []string{
		"field SeededNoise: the seeded-noise opt-out is named Reproducible",
		"field PaperRate: a study's settings",
		"method LogProb: a log density is named LogDensity",
		"interface method LogProbability: a log density is named LogDensity",
		"func NewSeeded: the seeded-noise opt-out",
		"func PaperTheta: a study's settings",
		"type SeededType: the seeded-noise opt-out",
		"const SeededDefault: the seeded-noise opt-out",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not report %q; got:\n%s", want, got)
		}
	}
	for _, bad := range []string{"LogDensity", "LogProbVar", "logProb", "seededOK", "withSeededBits"} {
		if strings.Contains(got, " "+bad+":") {
			t.Errorf("problems report the allowed %s; got:\n%s", bad, got)
		}
	}
	for _, pkg := range []string{"simulate/sir", "mcmc/linregda"} {
		if got := run(pkg); strings.Contains(got, "Paper") {
			t.Errorf("in model package %s, Paper names are reported:\n%s", pkg, got)
		}
	}
	for _, pkg := range []string{".", "simulate", "mcmc"} {
		if got := run(pkg); !strings.Contains(got, "func PaperTheta: a study's settings") {
			t.Errorf("in %s, PaperTheta is not reported:\n%s", pkg, got)
		}
	}
}

// TestStyleRulesReport checks that the own-configuration and same-typed
// parameter rules report snippets violating them and leave the allowed
// forms alone, so that TestDialect cannot pass by checking nothing.
func TestStyleRulesReport(t *testing.T) {
	const src = `package p

// Foo is a type that is its own configuration.
type Foo struct{ A, B float64 }

// NewFoo takes a Foo.
func NewFoo(f Foo) (*Foo, error) { return &f, nil }

// Bar is another.
type Bar struct{}

// NewBar takes a *Bar.
func NewBar(r int, b *Bar) *Bar { return b }

// Baz is built from its own config type.
type Baz struct{}

// BazConfig configures NewBaz.
type BazConfig struct{}

// NewBaz is allowed.
func NewBaz(c BazConfig) *Baz { return nil }

// Sum takes confusable bounds.
func Sum(x []float64, lo, hi float64, n int) float64 { return 0 }

// Pair takes two unnamed uint64 parameters.
func Pair(uint64, uint64) {}

// Span is a method with confusable bounds.
func (Baz) Span(lo float64, hi float64) {}

// Level takes one float and one int: allowed.
func Level(q float64, k int) {}

// Clamp is on the real allowlist under mechanism.
func Clamp(x, lo, hi float64) float64 { return x }

type hidden struct{}

func (hidden) Wide(a, b float64) {}

func sum(lo, hi float64) {}
`
	run := snippetChecker(t, src)
	got := run("mechanism")
	for _, want := range []string{
		"constructor NewFoo takes a Foo: a type is not its own configuration",
		"constructor NewBar takes a Bar",
		"func Sum takes 2 positional float64 parameters (lo, hi)",
		"func Pair takes 2 positional uint64 parameters (_, _)",
		"func Baz.Span takes 2 positional float64 parameters (lo, hi)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems do not report %q; got:\n%s", want, got)
		}
	}
	for _, bad := range []string{"NewBaz", "func Level", "func Clamp", "Wide", "func sum"} {
		if strings.Contains(got, bad) {
			t.Errorf("problems report the allowed %s; got:\n%s", bad, got)
		}
	}
	got = run("mechanism/aggregate")
	if !strings.Contains(got, "func Sum takes 2") || !strings.Contains(got, "func Clamp takes 3") {
		t.Errorf("in mechanism/aggregate, Sum and Clamp (allowlisted only in mechanism) are not reported:\n%s", got)
	}
	got = run("synth")
	if strings.Contains(got, "positional float64") {
		t.Errorf("outside mechanism/**, same-typed parameters are reported:\n%s", got)
	}
	if !strings.Contains(got, "constructor NewFoo takes a Foo") {
		t.Errorf("outside mechanism/**, NewFoo is not reported:\n%s", got)
	}
}

// TestMeasurementRuleReports checks that the measurement rule flags the
// forms it names, in the comments of a parsed file at the right lines,
// and leaves formulas, absolute values and parameter values alone, so
// that TestNoMeasurementsInComments cannot pass by checking nothing.
func TestMeasurementRuleReports(t *testing.T) {
	for _, c := range []struct {
		line, why string
	}{
		{"| n | C2ST | ESS |", "a table row"},
		{"|---|---:|", "a table row"},
		{" --- | --- |", "a table row"},
		{"10,000 draws, seed 1: SNPE C2ST 0.551 (sbi 0.593) with 14.9 s", "a metric's figure"},
		{"moved between 0.495 and 0.575 with that share (C2ST against", ""},
		{"C2ST against the reference moved between 0.495 and 0.575", "a metric's figure"},
		{"SOMA's ESS per sweep there is 0.66–1.03 times", "a metric's figure"},
		{"R̂ below 1.010 on every run", "a metric's figure"},
		{"errors are 3.96 ± 0.58 → 2.76 ± 0.29 without RESAMPLE", "a mean ± sd figure"},
		{"|a_ij − a_ji| exceeds 1e-10 times the largest |a_ij| (the", ""},
		{"R₁ ~ U(1.01, 20),  t₁ ~ U(0.01, 30)", ""},
		{"ESS is the Kish effective sample size 1/Σw²", ""},
		{"σ = Δ2·(√(Φ⁻¹(δ/2)² + 2ε) − Φ⁻¹(δ/2)) / (2ε).", ""},
	} {
		if got := measurementRule(c.line); got != c.why {
			t.Errorf("measurementRule(%q) = %q, want %q", c.line, got, c.why)
		}
	}
	const src = `// Package p has a table in its documentation.
//
//	| rounds | C2ST |
//	|--------|------|
package p

// X is a value (ESS 0.91 on seed 3).
var X = 1

/* a block comment with 1.20 ± 0.05 */
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range commentMeasurements(fset, f) {
		got = append(got, sprintf("%d %s", m.line, m.why))
	}
	want := []string{"3 a table row", "4 a table row", "7 a metric's figure", "10 a mean ± sd figure"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("commentMeasurements = %q, want %q", got, want)
	}
}

// snippetChecker parses src as the file p.go and returns a function that
// runs the checker on it as if it were in package pkg (a path relative to
// the module root) and returns the problems found, one a line.
func snippetChecker(t *testing.T, src string) func(pkg string) string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	return func(pkg string) string {
		c := checker{fset: fset, file: "p.go", pkg: pkg}
		c.check(f)
		return strings.Join(c.problems, "\n")
	}
}
