// Package atomicfile writes files so that a reader, or a run stopped
// half-way (even by SIGKILL or a power cut), never sees a partial one.
package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// tempPrefix starts the name of every temporary file Write creates; Temp
// reports such names.
const tempPrefix = ".tmp-"

// Write lets write fill a temporary file in path's folder, flushes it to
// stable storage (fsync), renames it to path and flushes the folder, so
// that path holds either its old content or the whole new one, also after
// a crash. On any error the temporary file is removed and path is
// untouched. A process killed while writing leaves its temporary file
// behind (nothing can remove it then): a later successful Write or Remove
// of the same path removes such leftovers. The file is created with mode
// 0600 (os.CreateTemp's).
func Write(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, tempPrefix+base+"-")
	if err != nil {
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	removeLeftovers(dir, base)
	return nil
}

// Remove removes path and the temporary files of interrupted writes of it;
// a path that does not exist is not an error.
func Remove(path string) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	err := os.Remove(path)
	removeLeftovers(dir, base)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Temp reports whether name (a file name without its folder) is that of
// a temporary file of Write.
func Temp(name string) bool { return strings.HasPrefix(name, tempPrefix) }

// removeLeftovers removes the temporary files that writes of base in dir
// stopped before their rename left behind.
func removeLeftovers(dir, base string) {
	prefix := tempPrefix + base + "-"
	matches, _ := filepath.Glob(filepath.Join(dir, escapeGlob(prefix)+"*"))
	for _, m := range matches {
		// os.CreateTemp ends the name with decimal digits; anything else
		// belongs to another file whose name starts like base.
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		if rest != "" && strings.Trim(rest, "0123456789") == "" {
			os.Remove(m)
		}
	}
}

// escapeGlob quotes the pattern characters of s for filepath.Glob.
func escapeGlob(s string) string {
	if runtime.GOOS == "windows" { // '\\' separates paths there, not an escape
		return strings.NewReplacer("*", "?", "[", "?").Replace(s)
	}
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`).Replace(s)
}

// syncDir flushes dir's entries (the rename) to stable storage. Windows
// cannot open a folder for syncing and orders renames itself.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
