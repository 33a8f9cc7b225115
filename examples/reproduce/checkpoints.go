package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// A part that runs longer than a session survives being stopped: every
// job that runs with a cache gets a checkpoint folder of its own in it,
// named like its cached result, which the example receives through
// cli.CheckpointsEnv (so its command, and with it the cache key, stays the
// same). Its SPPE and SPLE runs keep their state there after every round
// (sbi.Config.Checkpoint), and the next run of the same job continues from
// the last saved round. The folder also holds the wall time the job's
// earlier runs spent (wallFile), written every wallEvery, so that the
// result records the time of all of them. A job that succeeds removes its
// folder.
const (
	checkpointsDir = "checkpoints"
	wallFile       = "wall"
	wallEvery      = 30 * time.Second
)

// checkpointFolder is job r's checkpoint folder in the cache dir.
func checkpointFolder(dir string, r *result) string {
	return filepath.Join(dir, checkpointsDir, strings.TrimSuffix(filepath.Base(cachePath(dir, r)), ".json"))
}

// earlierWall reads the wall time that earlier runs of a job spent: 0
// when there were none, and an error wrapping errInvalid when the record
// is not a duration ≥ 0 (a killed run never leaves a partial one: it is
// written atomically).
func earlierWall(folder string) (time.Duration, error) {
	path := filepath.Join(folder, wallFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	d, err := time.ParseDuration(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("%w %s: %v", errInvalid, path, err)
	}
	if d < 0 {
		return 0, fmt.Errorf("%w %s: negative wall time %v", errInvalid, path, d)
	}
	return d, nil
}

// wallClock records a job's wall time in its checkpoint folder while it
// runs: the earlier runs' time plus this run's, every wallEvery and when
// stopped.
type wallClock struct {
	folder string
	prev   time.Duration
	t0     time.Time
	stop   chan struct{}
	done   sync.WaitGroup
}

// startWall creates folder and starts recording in it.
func startWall(folder string) (*wallClock, error) {
	if err := os.MkdirAll(folder, 0o755); err != nil {
		return nil, err
	}
	prev, err := earlierWall(folder)
	if err != nil {
		return nil, err
	}
	w := &wallClock{folder: folder, prev: prev, t0: time.Now(), stop: make(chan struct{})}
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(wallEvery)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.write()
			}
		}
	}()
	return w, nil
}

func (w *wallClock) total() time.Duration { return w.prev + time.Since(w.t0) }

func (w *wallClock) write() {
	_ = cli.WriteAtomic(filepath.Join(w.folder, wallFile), func(f io.Writer) error {
		_, err := fmt.Fprintln(f, w.total().Round(time.Millisecond))
		return err
	})
}

// finish stops the recording and returns the total wall time; when the
// job succeeded its folder is removed, otherwise the time is written for
// the next run.
func (w *wallClock) finish(ok bool) (time.Duration, error) {
	close(w.stop)
	w.done.Wait()
	total := w.total()
	if !ok {
		w.write()
		return total, nil
	}
	if err := os.RemoveAll(w.folder); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return total, err
	}
	return total, nil
}
