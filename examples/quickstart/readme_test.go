package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMESnippetsBuild extracts every complete program (a ```go block
// with package main) from the repository's README and builds it, so that
// the README's code follows the library's API.
func TestREADMESnippetsBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the README's programs with the go command")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var programs []string
	for _, block := range strings.Split(string(readme), "```go\n")[1:] {
		code, _, ok := strings.Cut(block, "```")
		if ok && strings.Contains(code, "package main") {
			programs = append(programs, code)
		}
	}
	if len(programs) == 0 {
		t.Fatal("no Go programs found in README.md")
	}
	// Inside the module (names starting with _ are ignored by ./...), so
	// that the programs build against this tree.
	dir, err := os.MkdirTemp(".", "_readme")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for i, code := range programs {
		pkg := filepath.Join(dir, "p"+string(rune('a'+i)))
		if err := os.Mkdir(pkg, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, "main.go"), []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("go", "vet", "./"+pkg).CombinedOutput()
		if err != nil {
			t.Errorf("README program %d does not build: %v\n%s\n%s", i+1, err, out, code)
		}
	}
}
