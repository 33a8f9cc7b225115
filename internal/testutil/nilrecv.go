package testutil

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// NilReceiverFailures calls every exported pointer-receiver method of each
// value in nilPtrs (each a typed nil pointer, such as (*T)(nil)) with
// zero-valued arguments and returns one "T.Method: problem" line, sorted,
// for each call that panicked or, when the method's last result is an
// error, returned an error that does not wrap sentinel (nil included).
// Methods declared on the value type are skipped: calling them through a
// nil pointer dereferences it at the call site, which no method body can
// prevent.
func NilReceiverFailures(nilPtrs []any, sentinel error) []string {
	var out []string
	for _, v := range nilPtrs {
		pt := reflect.TypeOf(v)
		if pt == nil || pt.Kind() != reflect.Pointer || !reflect.ValueOf(v).IsNil() {
			out = append(out, fmt.Sprintf("%v: not a typed nil pointer", v))
			continue
		}
		et := pt.Elem()
		for i := range pt.NumMethod() {
			m := pt.Method(i)
			if _, onValue := et.MethodByName(m.Name); onValue {
				continue
			}
			args := []reflect.Value{reflect.ValueOf(v)}
			ft := m.Type
			for j := 1; j < ft.NumIn(); j++ {
				args = append(args, reflect.Zero(ft.In(j)))
			}
			res, p := callRecover(m.Func, args, ft.IsVariadic())
			switch {
			case p != nil:
				out = append(out, fmt.Sprintf("%s.%s: panic: %v", et.Name(), m.Name, p))
			case ft.NumOut() > 0 && ft.Out(ft.NumOut()-1) == errorType:
				err, _ := res[len(res)-1].Interface().(error)
				if !errors.Is(err, sentinel) {
					out = append(out, fmt.Sprintf("%s.%s: error %v does not wrap %v", et.Name(), m.Name, err, sentinel))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

var errorType = reflect.TypeFor[error]()

func callRecover(f reflect.Value, args []reflect.Value, variadic bool) (res []reflect.Value, p any) {
	defer func() { p = recover() }()
	if variadic {
		return f.CallSlice(args), nil
	}
	return f.Call(args), nil
}

// PointerReceiverTypes parses the non-test Go files of the package in dir
// and returns the names of the exported types that declare at least one
// exported method on a pointer receiver, sorted (generic types by their
// bare name).
func PointerReceiverTypes(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) != 1 || !fd.Name.IsExported() {
				continue
			}
			star, ok := fd.Recv.List[0].Type.(*ast.StarExpr)
			if !ok {
				continue
			}
			x := star.X
			switch g := x.(type) {
			case *ast.IndexExpr:
				x = g.X
			case *ast.IndexListExpr:
				x = g.X
			}
			if id, ok := x.(*ast.Ident); ok && id.IsExported() {
				seen[id.Name] = true
			}
		}
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

// TypeNames returns the bare names of the element types of nilPtrs
// (generic instantiations without their type arguments), sorted.
func TypeNames(nilPtrs []any) []string {
	var names []string
	for _, v := range nilPtrs {
		t := reflect.TypeOf(v)
		if t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == nil {
			continue
		}
		n := t.Name()
		if i := strings.IndexByte(n, '['); i >= 0 {
			n = n[:i]
		}
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
