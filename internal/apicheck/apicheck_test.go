package apicheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
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

func TestDialect(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dirs := packageDirs(t, root)
	var problems []string
	seenSentinel := map[string]bool{}
	seenCtor := map[string]bool{}
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
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
}

// packageDirs lists the directories of the core module holding Go files,
// without internal/, testdata, example programs and nested modules.
func packageDirs(t *testing.T, root string) []string {
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
			if name == "internal" || name == "testdata" || name == "examples" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
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
		return
	}
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
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	run := func(pkg string) string {
		c := checker{fset: fset, file: "p.go", pkg: pkg}
		c.check(f)
		return strings.Join(c.problems, "\n")
	}
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
