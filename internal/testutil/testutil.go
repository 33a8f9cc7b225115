// Package testutil holds conventions shared by the project's tests.
package testutil

import (
	"os"
	"testing"
)

// LongEnv is the environment variable that enables long statistical
// validations. The README's test command runs without it and stays fast;
// set PRIVINFER_LONG=1 to run paper-scale checks.
const LongEnv = "PRIVINFER_LONG"

// Long skips t unless long validations are enabled through LongEnv.
func Long(t testing.TB) {
	t.Helper()
	if os.Getenv(LongEnv) == "" {
		t.Skipf("long validation: set %s=1 to run", LongEnv)
	}
}

// SharedEnv names the environment variable that overrides the location of
// the shared reference folder (as examples/reproduce/support/cli.SharedFile does).
const SharedEnv = "PRIVINFER_SHARED"

// SharedDir returns the path of the project's shared reference folder
// ($PRIVINFER_SHARED when set, else ../shared relative to the repository
// root) if it exists, and skips t otherwise, as on a user's clone without
// it. rel is the repository-root relative path of the calling package,
// e.g. "mcmc" or "mcmc/ldp".
func SharedDir(t testing.TB, rel string) string {
	t.Helper()
	if dir := os.Getenv(SharedEnv); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			t.Skipf("shared reference folder %s=%s not present", SharedEnv, dir)
		}
		return dir
	}
	up := "../"
	for _, c := range rel {
		if c == '/' {
			up += "../"
		}
	}
	dir := up + "../shared"
	if rel == "" || rel == "." {
		dir = "../shared"
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("shared reference folder %s not present", dir)
	}
	return dir
}

// SkipHeavyUnderRace skips t in the race-detector run of the whole module
// (go test -race -short ./..., which must finish within CI's time): under
// -race and -short together. A heavy test is one that takes more than a
// few seconds under the race detector, such as an example program's whole
// run or a statistical validation with many replications; the code it
// drives keeps its race coverage through the packages' own smaller tests.
// Without -race, or without -short, the test runs as before.
func SkipHeavyUnderRace(t testing.TB) {
	t.Helper()
	if Race && testing.Short() {
		t.Skip("heavy under the race detector: skipped with -race -short")
	}
}
