package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// A code fingerprint names the source a result depends on: a hash of the
// non-test source files of every package of this module in the dependency
// closure of the example program that produced it (as `go list -deps`
// reports it), with their import paths and file names. A change to any of
// those files changes it; a change elsewhere in the repository (another
// example, a package the program does not import, the documentation)
// does not. Cached results record the fingerprint of the code they ran
// (cached.Fingerprint, the report's "Code fingerprint" line), and a result
// whose fingerprint differs from the current code's, or that has none, is
// reported as stale.

// fingerprintLen is the number of hexadecimal digits kept of the hash.
const fingerprintLen = 16

// listedPackage is the part of `go list -json` output a fingerprint needs.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	SFiles     []string
	HFiles     []string
	EmbedFiles []string
	Module     *struct{ Main bool }
	Error      *struct{ Err string }
}

// moduleDeps lists the packages of the main module in the dependency
// closure of pkg (pkg included), sorted by import path, with `go list
// -deps -json` run in root.
func moduleDeps(ctx context.Context, root, pkg string) ([]listedPackage, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-deps", "-json=ImportPath,Dir,GoFiles,CgoFiles,SFiles,HFiles,EmbedFiles,Module,Error", pkg)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -deps %s: %v: %s", pkg, err, tail(stderr.String(), 5))
	}
	var ps []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list -deps %s: %w", pkg, err)
		}
		if p.Error != nil {
			return nil, fmt.Errorf("go list -deps %s: %s: %s", pkg, p.ImportPath, p.Error.Err)
		}
		if p.Module != nil && p.Module.Main {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("go list -deps %s: no package of the main module", pkg)
	}
	slices.SortFunc(ps, func(a, b listedPackage) int { return strings.Compare(a.ImportPath, b.ImportPath) })
	return ps, nil
}

// codeFingerprint is the fingerprint of the code the program pkg (a
// package path relative to root, such as ./examples/reproduce/sir) is built from:
// the hash of the import path, file names and contents of every source
// file (Go, cgo, assembly, headers and embedded files; not tests) of the
// main module's packages in its dependency closure.
func codeFingerprint(ctx context.Context, root, pkg string) (string, error) {
	ps, err := moduleDeps(ctx, root, pkg)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, p := range ps {
		fmt.Fprintf(h, "package %d:%s\n", len(p.ImportPath), p.ImportPath)
		var files []string
		for _, fs := range [][]string{p.GoFiles, p.CgoFiles, p.SFiles, p.HFiles, p.EmbedFiles} {
			files = append(files, fs...)
		}
		slices.Sort(files)
		for _, f := range slices.Compact(files) {
			b, err := os.ReadFile(filepath.Join(p.Dir, f))
			if err != nil {
				return "", fmt.Errorf("fingerprint of %s: %w", pkg, err)
			}
			fmt.Fprintf(h, "file %d:%s %d\n", len(f), f, len(b))
			h.Write(b)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:fingerprintLen], nil
}

// depDirs returns the directories, relative to root with forward slashes,
// of the main module's packages in pkg's dependency closure (for asking
// git which of them changed).
func depDirs(ctx context.Context, root, pkg string) ([]string, error) {
	ps, err := moduleDeps(ctx, root, pkg)
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, p := range ps {
		rel, err := filepath.Rel(root, p.Dir)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, filepath.ToSlash(rel))
	}
	return dirs, nil
}

// fingerprints computes and remembers the current code's fingerprint and
// dependency directories of each example package, and the staleness of
// cached results against them.
type fingerprints struct {
	ctx  context.Context
	root string
	// compute is codeFingerprint (tests may replace it).
	compute func(ctx context.Context, root, pkg string) (string, error)
	fp      map[string]fpResult
	changed map[string]string // commit + pkg → the changed dependency directories ("" if unknown)
}

type fpResult struct {
	fp  string
	err error
}

func newFingerprints(ctx context.Context, root string) *fingerprints {
	return &fingerprints{ctx: ctx, root: root, compute: codeFingerprint, fp: map[string]fpResult{}, changed: map[string]string{}}
}

// of returns the current fingerprint of pkg.
func (f *fingerprints) of(pkg string) (string, error) {
	if r, ok := f.fp[pkg]; ok {
		return r.fp, r.err
	}
	fp, err := f.compute(f.ctx, f.root, pkg)
	f.fp[pkg] = fpResult{fp, err}
	return fp, err
}

// staleness says why the result r (which ran) no longer describes the
// current code, or "" when its fingerprint is the current code's.
func (f *fingerprints) staleness(r result) string {
	cur, err := f.of(r.Pkg)
	if err != nil {
		return fmt.Sprintf("the current code's fingerprint cannot be computed (%v)", err)
	}
	var why string
	switch {
	case r.Fingerprint == "":
		why = "no code fingerprint recorded (cached before fingerprints were kept)"
	case r.Fingerprint != cur:
		why = fmt.Sprintf("code fingerprint %s, the current code's is %s", r.Fingerprint, cur)
	default:
		return ""
	}
	if r.Commit != "" {
		if ch := f.changedSince(r.Commit, r.Pkg); ch != "" {
			why += "; " + ch
		}
	}
	return why
}

// changedSince describes, from git, which of pkg's dependency directories
// changed since commit (and how many commits ago it was), or "" when git
// cannot tell.
func (f *fingerprints) changedSince(commit, pkg string) string {
	key := commit + " " + pkg
	if s, ok := f.changed[key]; ok {
		return s
	}
	s := f.gitChanged(commit, pkg)
	f.changed[key] = s
	return s
}

func (f *fingerprints) gitChanged(commit, pkg string) string {
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(f.ctx, "git", args...)
		cmd.Dir = f.root
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	n, err := git("rev-list", "--count", commit+"..HEAD")
	if err != nil {
		return ""
	}
	dirs, err := depDirs(f.ctx, f.root, pkg)
	if err != nil {
		return ""
	}
	out, err := git(append([]string{"diff", "--name-only", commit, "HEAD", "--"}, dirs...)...)
	if err != nil {
		return ""
	}
	// Only the files of the packages themselves (not of their
	// subdirectories, which are other packages) count.
	in := map[string]bool{}
	for _, d := range dirs {
		in[d] = true
	}
	var changed []string
	seen := map[string]bool{}
	for _, file := range strings.Split(out, "\n") {
		d := filepath.ToSlash(filepath.Dir(file))
		if file == "" || !in[d] || strings.HasSuffix(file, "_test.go") || seen[d] {
			continue
		}
		seen[d] = true
		if d == "." {
			d = "the root package"
		}
		changed = append(changed, d)
	}
	if len(changed) == 0 {
		return fmt.Sprintf("%s commits since %s, none of them in its packages' source", n, commit)
	}
	const show = 6
	list := strings.Join(changed[:min(len(changed), show)], ", ")
	if len(changed) > show {
		list += fmt.Sprintf(" and %d more", len(changed)-show)
	}
	return fmt.Sprintf("%s commits since %s; changed since: %s", n, commit, list)
}
