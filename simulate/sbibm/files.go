package sbibm

import (
	"compress/bzip2"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// DirEnv names the environment variable that Dir reads first: the
// directory holding one subdirectory per task (two_moons, …).
const DirEnv = "PRIVINFER_SBIBM"

// SharedEnv names the environment variable of the project's shared
// reference directory; Dir falls back to its subdirectory sbibm.
const SharedEnv = "PRIVINFER_SHARED"

// Dir returns the directory of the benchmark's files: $PRIVINFER_SBIBM if
// set, else $PRIVINFER_SHARED/sbibm if that variable is set, else "". It
// does not check that the directory exists.
func Dir() string {
	if d := os.Getenv(DirEnv); d != "" {
		return d
	}
	if d := os.Getenv(SharedEnv); d != "" {
		return filepath.Join(d, "sbibm")
	}
	return ""
}

// obsDir returns <dir>/<task>/num_observation_<num> after checking the
// arguments.
func (t *Task) obsDir(dir string, num int) (string, error) {
	if t == nil || t.sim == nil {
		return "", modelutil.ErrUnbuilt("sbibm.Task")
	}
	if dir == "" {
		return "", fmt.Errorf("%w: sbibm directory is empty (set %s or pass the directory)", simulate.ErrInvalid, DirEnv)
	}
	if num < 1 || num > Observations {
		return "", fmt.Errorf("%w: sbibm observation number must be in [1, %d], got %d", simulate.ErrInvalid, Observations, num)
	}
	return filepath.Join(dir, t.name, "num_observation_"+strconv.Itoa(num)), nil
}

// Observation reads the observation x of number num (1 to Observations)
// of the task from the benchmark directory dir: a vector of length
// DataDim.
func (t *Task) Observation(dir string, num int) ([]float64, error) {
	d, err := t.obsDir(dir, num)
	if err != nil {
		return nil, err
	}
	return readRow(filepath.Join(d, "observation.csv"), t.DataDim())
}

// TrueParameters reads the parameters θ that generated observation num:
// a vector of length Dim.
func (t *Task) TrueParameters(dir string, num int) ([]float64, error) {
	d, err := t.obsDir(dir, num)
	if err != nil {
		return nil, err
	}
	return readRow(filepath.Join(d, "true_parameters.csv"), t.Dim())
}

// Reference reads the benchmark's reference posterior samples of
// observation num (10,000 equally weighted draws named as in ParamNames).
func (t *Task) Reference(dir string, num int) (*privinfer.Draws, error) {
	d, err := t.obsDir(dir, num)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(d, "reference_posterior_samples.csv.bz2")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sbibm: %w", err)
	}
	defer f.Close()
	draws, err := privinfer.ReadCSV(bzip2.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%w: sbibm %s: %w", simulate.ErrInvalid, path, err)
	}
	if draws.Dim != t.Dim() {
		return nil, fmt.Errorf("%w: sbibm %s has %d columns, the task's θ has %d", simulate.ErrInvalid, path, draws.Dim, t.Dim())
	}
	return draws, nil
}

// readRow reads a CSV file of a header and one row of n numbers.
func readRow(path string, n int) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sbibm: %w", err)
	}
	defer f.Close()
	return parseRow(f, path, n)
}

// parseRow parses a header line and one row of n finite numbers.
func parseRow(r io.Reader, path string, n int) ([]float64, error) {
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%w: sbibm %s: %v", simulate.ErrInvalid, path, err)
	}
	if len(recs) != 2 {
		return nil, fmt.Errorf("%w: sbibm %s has %d lines, want a header and one row", simulate.ErrInvalid, path, len(recs))
	}
	row := recs[1]
	if len(row) != n {
		return nil, fmt.Errorf("%w: sbibm %s has %d columns, want %d", simulate.ErrInvalid, path, len(row), n)
	}
	out := make([]float64, n)
	for i, s := range row {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || !modelutil.Finite(v) {
			return nil, fmt.Errorf("%w: sbibm %s column %d: %q is not a finite number", simulate.ErrInvalid, path, i+1, s)
		}
		out[i] = v
	}
	return out, nil
}
