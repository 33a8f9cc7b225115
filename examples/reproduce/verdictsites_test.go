package main

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// verdictSite is one place in an example's source where a "reproduced"
// outcome is produced (cli.Reproduced used as a value) or a verdict is
// reported (cli.PrintVerdict, cli.Report).
type verdictSite struct {
	pos  token.Position
	kind string // "reproduced", "print" or "report"
	// conds are the conditions of the enclosing if and switch statements
	// (innermost first), as source text; computed is whether one of them
	// tests more than the presence of a value.
	conds    []string
	computed bool
	// fn is a verdict function the outcome comes from (cli.Within, …), or
	// "" when the site itself picks it.
	fn string
}

// verdictFuncs are the examples/reproduce/support/cli functions that compute a
// verdict from its numbers (tested in that package).
var verdictFuncs = map[string]bool{"Within": true, "AllWithin": true, "Judge": true}

// findVerdictSites parses the non-test Go files of the examples (not the
// shared support packages under examples/reproduce/support, nor this
// harness's own files) and returns every verdict site.
func findVerdictSites(t *testing.T, root string) []verdictSite {
	t.Helper()
	var sites []verdictSite
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join(root, "examples"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "examples/reproduce/support" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || filepath.ToSlash(filepath.Dir(rel)) == "examples/reproduce" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		cliName := ""
		for _, imp := range f.Imports {
			if strings.Trim(imp.Path.Value, `"`) == "github.com/privinfer/privinfer/examples/reproduce/support/cli" {
				cliName = "cli"
				if imp.Name != nil {
					cliName = imp.Name.Name
				}
			}
		}
		if cliName == "" {
			return nil
		}
		sites = append(sites, sitesIn(fset, f, cliName)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sites
}

// sitesIn returns the verdict sites of one file.
func sitesIn(fset *token.FileSet, f *ast.File, cliName string) []verdictSite {
	var sites []verdictSite
	var stack []ast.Node
	isCli := func(e ast.Expr, name string) bool {
		s, ok := e.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		x, ok := s.X.(*ast.Ident)
		return ok && x.Name == cliName && s.Sel.Name == name
	}
	text := func(e ast.Node) string {
		return strings.Join(strings.Fields(types(fset, e)), " ")
	}
	site := func(n ast.Node, kind string) {
		s := verdictSite{pos: fset.Position(n.Pos()), kind: kind}
		child := n
		for i := len(stack) - 1; i >= 0; i-- {
			var conds []ast.Expr
			switch p := stack[i].(type) {
			case *ast.IfStmt:
				if child == p.Body || child == p.Else {
					conds = append(conds, p.Cond)
				}
			case *ast.CaseClause:
				conds = append(conds, p.List...)
				if i < 2 {
					break
				}
				if sw, ok := stack[i-2].(*ast.SwitchStmt); ok && sw.Tag != nil {
					conds = append(conds, sw.Tag)
				}
			case *ast.CallExpr:
				if sel, ok := p.Fun.(*ast.SelectorExpr); ok && verdictFuncs[sel.Sel.Name] && isCli(p.Fun, sel.Sel.Name) && s.fn == "" {
					s.fn = sel.Sel.Name
				}
			}
			for _, c := range conds {
				s.conds = append(s.conds, text(c))
				if !presenceOnly(c) {
					s.computed = true
				}
			}
			child = stack[i]
		}
		sites = append(sites, s)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		switch e := n.(type) {
		case *ast.CallExpr:
			switch {
			case isCli(e.Fun, "PrintVerdict"):
				site(e, "print")
			case isCli(e.Fun, "Report"):
				site(e, "report")
			}
		case *ast.SelectorExpr:
			if isCli(e, "Reproduced") && !compared(stack) {
				site(e, "reproduced")
			}
		}
		stack = append(stack, n)
		return true
	})
	return sites
}

// compared reports whether the node on top of the stack's children (a
// cli.Reproduced being visited) is an operand of == or != or a case
// value: a test of an outcome, not the making of one.
func compared(stack []ast.Node) bool {
	if len(stack) == 0 {
		return false
	}
	switch p := stack[len(stack)-1].(type) {
	case *ast.BinaryExpr:
		return p.Op == token.EQL || p.Op == token.NEQ
	case *ast.CaseClause:
		return true
	}
	return false
}

// presenceOnly reports whether the condition c only tests whether a value
// is there (x == "", x != nil, joined by && or ||), not anything computed
// from numbers. A count such as len(failed) == 0 is computed: the
// examples collect there the checks that failed.
func presenceOnly(c ast.Expr) bool {
	switch e := c.(type) {
	case *ast.ParenExpr:
		return presenceOnly(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.LAND, token.LOR:
			return presenceOnly(e.X) && presenceOnly(e.Y)
		case token.EQL, token.NEQ, token.GTR, token.LSS, token.GEQ, token.LEQ:
			for _, side := range []ast.Expr{e.X, e.Y} {
				if b, ok := side.(*ast.BasicLit); ok && b.Kind == token.STRING && b.Value == `""` {
					return true
				}
				if id, ok := side.(*ast.Ident); ok && id.Name == "nil" {
					return true
				}
			}
		}
	}
	return false
}

// types renders a node as source text (for the sites' listing).
func types(fset *token.FileSet, n ast.Node) string {
	var b strings.Builder
	if err := format.Node(&b, fset, n); err != nil {
		return fmt.Sprintf("%T", n)
	}
	return b.String()
}

// TestVerdictSites checks every verdict site of the examples: a
// "reproduced" outcome is either computed by a verdict function
// (cli.Within, cli.AllWithin, cli.Judge, whose outcomes the cli tests
// perturb) or chosen under a condition that tests the numbers, never
// unconditionally or under a test of a value's mere presence (as the SOMA
// example's Table 2 verdict once was: reproduced whenever the comparison
// had run). The sites are listed with -v.
func TestVerdictSites(t *testing.T) {
	root, err := cli.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	sites := findVerdictSites(t, root)
	counts := map[string]int{}
	for _, s := range sites {
		counts[s.kind]++
		rel, _ := filepath.Rel(root, s.pos.Filename)
		where := fmt.Sprintf("%s:%d", filepath.ToSlash(rel), s.pos.Line)
		how := "under " + strings.Join(s.conds, " ⟵ ")
		if s.fn != "" {
			how = "computed by cli." + s.fn
		} else if len(s.conds) == 0 {
			how = "unconditional"
		}
		t.Logf("%-10s %s: %s", s.kind, where, how)
		if s.kind == "reproduced" && s.fn == "" && !s.computed {
			t.Errorf("%s: a reproduced outcome that does not depend on the numbers (%s)", where, how)
		}
	}
	t.Logf("%d verdict reports (%d PrintVerdict, %d Report), %d places that make a reproduced outcome", counts["print"]+counts["report"], counts["print"], counts["report"], counts["reproduced"])
	if counts["print"]+counts["report"] < 50 || counts["reproduced"] < 20 {
		t.Errorf("found only %v verdict sites: the search is broken", counts)
	}
}

// TestPresenceOnly checks the classification of conditions.
func TestPresenceOnly(t *testing.T) {
	for src, want := range map[string]bool{
		`v != ""`:               true,
		`v != "" && err == nil`: true,
		`len(failed) == 0`:      false,
		`d1 < d2`:               false,
		`v != "" && d < tol`:    false,
		`ok`:                    false,
		`good == n`:             false,
	} {
		e, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := presenceOnly(e); got != want {
			t.Errorf("presenceOnly(%s) = %v, want %v", src, got, want)
		}
	}
	// The pattern the SOMA example had: reproduced under a presence test.
	src := "package p\nimport \"github.com/privinfer/privinfer/examples/reproduce/support/cli\"\nfunc f(v string) {\n\tif v != \"\" {\n\t\tcli.PrintVerdict(nil, cli.Reproduced, \"T\", v)\n\t}\n}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var flagged int
	for _, s := range sitesIn(fset, f, "cli") {
		if s.kind == "reproduced" && !s.computed && s.fn == "" {
			flagged++
		}
	}
	if flagged != 1 {
		t.Errorf("the presence-tested reproduced verdict was flagged %d times, want 1", flagged)
	}
}
