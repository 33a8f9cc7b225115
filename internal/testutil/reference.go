package testutil

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// PaperValues decodes the shared folder's reference/paper-values.json
// into v. It skips t when the shared folder (see SharedDir, whose rel it
// takes) or the file is absent and fails t when the file does not decode.
func PaperValues(t testing.TB, rel string, v any) {
	t.Helper()
	dir := SharedDir(t, rel)
	raw, err := os.ReadFile(filepath.Join(dir, "reference", "paper-values.json"))
	if err != nil {
		t.Skipf("reference file: %v", err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatal(err)
	}
}

// SlicesNear reports through t.Errorf, under name, a length mismatch of
// got and want, or else each element of got that differs from want's by
// more than tol (a NaN on either side always differs).
func SlicesNear(t testing.TB, name string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: length %d, reference %d", name, len(got), len(want))
		return
	}
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol) {
			t.Errorf("%s[%d] = %v, reference %v", name, i, got[i], want[i])
		}
	}
}
