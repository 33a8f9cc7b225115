package abc

import (
	"context"
	"errors"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/privinfer/privinfer"
)

// exactStatProblem is a Problem with a nil Mechanism whose simulator
// returns θ itself, so the distance of a draw to Observed is |θ − obs|.
func exactStatProblem(t *testing.T) privinfer.Problem {
	t.Helper()
	p := kernelTestProblem(t)
	p.Simulator, p.Mechanism = normalMean{se: 0}, nil
	return p
}

// TestNilMechanismExactDistances pins what the documentation of Rejection
// and SMC warns about: with a nil Mechanism their distances are the exact
// distances to Observed (so a confidential Observed must not be passed),
// and KernelIS refuses a nil Mechanism. If the engines ever add noise or
// hide the distances, this test and the warning change together.
func TestNilMechanismExactDistances(t *testing.T) {
	p := exactStatProblem(t)
	ctx := context.Background()
	exact := func(name string, th, d []float64) {
		t.Helper()
		if len(th) != len(d) || len(d) == 0 {
			t.Fatalf("%s: %d draws and %d distances", name, len(th), len(d))
		}
		for i := range d {
			if want := math.Abs(th[i] - pnmObs); math.Abs(d[i]-want) > 1e-15*(1+want) {
				t.Fatalf("%s: distance %d is %v, |θ − Observed| = %v", name, i, d[i], want)
			}
		}
	}
	rr, err := Rejection(ctx, p, RejectionConfig{Distance: Euclidean{}, Tolerance: 0.5, Simulations: 2000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	exact("Rejection", rr.Draws.Theta, rr.Distance)
	sr, err := SMC(ctx, p, SMCConfig{Distance: Euclidean{}, Particles: 200, Schedule: ToleranceList{1, 0.5, 0.2}, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range sr.Rounds {
		exact("SMC round", r.Draws.Theta, r.Distance)
	}
	_, err = KernelIS(ctx, p, KernelISConfig{Simulations: 10, Stages: 1, Mean: []float64{0}, Cov: []float64{1}})
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("KernelIS with a nil Mechanism: error %v, want ErrInvalid", err)
	}
}

// TestNilMechanismWarningDocumented checks that the doc comments of
// Rejection, SMC and the distance fields they return warn that with a nil
// Mechanism the outputs are exact functions of Observed.
func TestNilMechanismWarningDocumented(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			f, err := parser.ParseFile(fset, n, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
	}
	pkg, err := doc.NewFromFiles(fset, files, "github.com/privinfer/privinfer/abc")
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"package": pkg.Doc}
	for _, ty := range pkg.Types {
		for _, f := range ty.Funcs {
			texts[f.Name] = f.Doc
		}
		for _, spec := range ty.Decl.Specs {
			ts, ok := spec.(*ast.TypeSpec)
			if !ok {
				continue
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				for _, fld := range st.Fields.List {
					for _, n := range fld.Names {
						texts[ts.Name.Name+"."+n.Name] = fld.Doc.Text()
					}
				}
			}
		}
	}
	for name, want := range map[string][]string{
		"Rejection":                {"nil Mechanism", "exact distances", "without noise", "ABCDP"},
		"SMC":                      {"nil Mechanism", "exact distances", "importance weights", "without noise", "ABCDP"},
		"RejectionResult.Distance": {"exact distance", "nil Mechanism", "without noise"},
		"Round.Distance":           {"exact accepted distance", "nil Mechanism", "without noise"},
		"package":                  {"nil Mechanism", "exact distances", "KernelIS refuses a nil Mechanism"},
	} {
		text := strings.Join(strings.Fields(texts[name]), " ")
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("the doc comment of %s does not say %q", name, w)
			}
		}
	}
}
