// Package testenv holds what tests share across the module: skipping
// heavy tests in the race run, and crash-safety trials that kill a
// re-executed test binary with SIGKILL and resume its work.
//
// It uses only the standard library. The reproduction programs' tests
// (examples/reproduce) and the test files (never the code) of abc and
// flow/sbi, whose checkpoints it exercises, use it.
package testenv

import "testing"

// longEnv is the environment variable that enables long validations.
const longEnv = "PRIVINFER_LONG"

// SkipHeavyUnderRace skips t in the race run of the module (go test
// -race -short), where a test that takes seconds takes minutes; without
// either flag the test runs as before.
func SkipHeavyUnderRace(t testing.TB) {
	t.Helper()
	if race && testing.Short() {
		t.Skip("heavy under the race detector: skipped with -race -short")
	}
}
