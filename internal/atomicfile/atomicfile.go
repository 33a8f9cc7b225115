// Package atomicfile writes files so that a reader, or a run stopped
// half-way, never sees a partial one.
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write lets write fill a temporary file in path's folder and renames it to
// path, so an interrupted run never leaves a partial file; on any error the
// temporary file is removed and path is untouched. The file is created
// with mode 0600 (os.CreateTemp's).
func Write(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-")
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
