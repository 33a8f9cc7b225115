// Package clitest checks, in the examples' tests, the contract of package
// cli for a run with -out: the output directory holds at least one plot as
// PNG and one as SVG, and the run reported progress on stderr.
package clitest

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// progressLine matches a line written by cli.Progress: the elapsed time in
// brackets, then the message.
var progressLine = regexp.MustCompile(`(?m)^\[ *[0-9]+\.[0-9]s\] \S`)

// Plots reports an error unless dir holds at least one .png file that
// decodes as PNG and one non-empty .svg file that starts with <svg or
// <?xml, and every .png and .svg file in dir is valid. It returns the names
// of the plot files found.
func Plots(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	var pngs, svgs int
	for _, e := range entries {
		name := e.Name()
		switch strings.ToLower(filepath.Ext(name)) {
		case ".png":
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return names, err
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				return names, fmt.Errorf("%s: %w", name, err)
			}
			if r := img.Bounds(); r.Dx() < 10 || r.Dy() < 10 {
				return names, fmt.Errorf("%s: %d×%d image", name, r.Dx(), r.Dy())
			}
			pngs++
		case ".svg":
			b, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return names, err
			}
			head := strings.TrimSpace(string(b))
			if !strings.HasPrefix(head, "<svg") && !strings.HasPrefix(head, "<?xml") {
				return names, fmt.Errorf("%s does not start with <svg or <?xml", name)
			}
			if !strings.HasSuffix(head, "</svg>") {
				return names, fmt.Errorf("%s does not end with </svg>", name)
			}
			svgs++
		default:
			continue
		}
		names = append(names, name)
	}
	if pngs == 0 || svgs == 0 {
		return names, fmt.Errorf("%s holds %d PNG and %d SVG files, want at least one of each", dir, pngs, svgs)
	}
	return names, nil
}

// ProgressLines returns the number of progress lines (as cli.Progress
// writes them) in stderr.
func ProgressLines(stderr string) int {
	return len(progressLine.FindAllStringIndex(stderr, -1))
}

// Check fails t unless dir holds valid PNG and SVG plots (Plots) and stderr
// holds at least one progress line. It returns the plot files found.
func Check(t testing.TB, dir, stderr string) []string {
	t.Helper()
	names, err := Plots(dir)
	if err != nil {
		t.Error(err)
	}
	if ProgressLines(stderr) == 0 {
		t.Errorf("no progress lines on stderr:\n%s", stderr)
	}
	return names
}
