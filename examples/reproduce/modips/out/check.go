package out

import (
	"bytes"
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/clitest"
)

// Check is the test every modips study program shares: bad flags are
// usage errors, and a run with -quick, 10 repetitions and the extra
// arguments prints one valid verdict, writes its plots as PNG and SVG
// (clitest.Check) and reports progress on stderr. program is the program's
// cli.Runner.
func Check(t *testing.T, program func(args []string, stdout, stderr io.Writer) error, extra ...string) {
	t.Helper()
	for _, args := range [][]string{{"-reps", "0"}, {"-reps", "x"}, {"-nope"}, {"stray"}} {
		if err := program(args, io.Discard, io.Discard); !errors.Is(err, cli.ErrUsage) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	var out, errw bytes.Buffer
	if err := program(append([]string{"-quick", "-reps", "10", "-out", dir}, extra...), &out, &errw); err != nil {
		t.Fatal(err)
	}
	if vs := cli.ParseVerdicts(out.String()); len(vs) != 1 || vs[0].Kind == "invalid" || vs[0].Reason == "" {
		t.Errorf("verdicts %+v in\n%s", vs, out.String())
	}
	clitest.Check(t, dir, errw.String())
}
