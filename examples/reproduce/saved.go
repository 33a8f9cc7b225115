package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// savedRoot is the committed folder (relative to the repository root) that
// keeps the paper-scale parts' per-trial files, one subfolder per entry of
// savedDirs named by its last element.
const savedRoot = "examples/reproduce/saved"

// savedDirs are the folders, relative to the repository root, where the
// paper-scale parts of a split example save every finished trial for a
// later part to put together (the -trials-dir of examples/reproduce/sir,
// examples/reproduce/sir-abc, examples/reproduce/naivebayes and
// examples/reproduce/linreg's trials and depths). They live under the
// uncommitted .reproduce-cache, and their path is part of the parts'
// commands, so it cannot move without invalidating the results the report
// holds. Instead the run copies them to savedRoot after every part that
// ran, and back before it starts: a clone that has lost .reproduce-cache
// (a new machine) can then run the remaining parts of a split example and
// its last part sees every trial, including those run elsewhere.
var savedDirs = []string{sirTrials, ".reproduce-cache/naivebayes-trials", linregTrials, linregDepth}

// keptDirs returns the folders whose files the run keeps in savedRoot:
// savedDirs for the registry's paper-scale run, none for the quick run or
// for other entries (the tests').
func keptDirs(cfg config) []string {
	if cfg.quick || len(cfg.entries) == 0 || &cfg.entries[0] != &registry[0] {
		return nil
	}
	return savedDirs
}

// syncFiles copies every regular file of the folder src into the folder
// dst (created when missing) that dst lacks, and with replace also every
// one whose bytes differ, and returns how many it copied; a missing src
// copies nothing. Files are written with cli.WriteAtomic, so an
// interrupted copy never leaves half a file.
func syncFiles(src, dst string, replace bool) (int, error) {
	entries, err := os.ReadDir(src)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		to := filepath.Join(dst, e.Name())
		if _, err := os.Stat(to); err == nil && !replace {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return n, err
		}
		if old, err := os.ReadFile(to); err == nil && bytes.Equal(old, b) {
			continue
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return n, err
		}
		err = cli.WriteAtomic(to, func(w io.Writer) error {
			_, err := w.Write(b)
			return err
		})
		if err == nil {
			err = os.Chmod(to, 0o644) // the temporary file's 0600 would hide it from other users
		}
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// syncSaved copies the saved trials between the working folders under root
// and their committed copies: toCommitted from the working folders to
// savedRoot, replacing changed files (a trial run again is the newer
// result), otherwise back, only the files the working folders lack.
func syncSaved(root string, dirs []string, toCommitted bool) (int, error) {
	total := 0
	for _, d := range dirs {
		work := filepath.Join(root, filepath.FromSlash(d))
		kept := filepath.Join(root, filepath.FromSlash(savedRoot), filepath.Base(d))
		src, dst := kept, work
		if toCommitted {
			src, dst = work, kept
		}
		n, err := syncFiles(src, dst, toCommitted)
		total += n
		if err != nil {
			return total, fmt.Errorf("copying the saved trials of %s: %w", d, err)
		}
	}
	return total, nil
}
