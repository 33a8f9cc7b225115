package cli

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
)

// WriteFile creates name in the output directory, lets write fill it and
// returns its path; it does nothing and returns "" when -out is empty.
func (c *Common) WriteFile(name string, write func(io.Writer) error) (string, error) {
	if c.Out == "" {
		return "", nil
	}
	p := c.Path(name)
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", p, err)
	}
	return p, nil
}

// WriteAtomic lets write fill a temporary file in path's folder, flushes
// it to stable storage, renames it to path and flushes the folder, so
// that path holds its old content or the whole new one, also after a kill
// or a crash; on any error the temporary file is removed and path is
// untouched. Temporary files that killed writes of path left (named
// ".tmp-" + base + "-" + digits, see IsTemp) are removed by the next
// successful write.
//
// It is the library's internal/atomicfile.Write, written again here
// because examples use only the public API.
func WriteAtomic(path string, write func(io.Writer) error) error {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, ".tmp-"+base+"-")
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
	if runtime.GOOS != "windows" { // Windows cannot sync a folder
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		err = d.Sync()
		if cerr := d.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		rest, ok := strings.CutPrefix(e.Name(), ".tmp-"+base+"-")
		if ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	return nil
}

// IsTemp reports whether the file name (without its folder) is that of a
// temporary file of WriteAtomic.
func IsTemp(name string) bool { return strings.HasPrefix(name, ".tmp-") }

// WritePlot writes the canvas as base.svg and base.png into the output
// directory and returns the two paths; it does nothing when -out is empty.
func (c *Common) WritePlot(base string, cv *plot.Canvas) ([]string, error) {
	if c.Out == "" {
		return nil, nil
	}
	svg, err := c.WriteFile(base+".svg", cv.WriteSVG)
	if err != nil {
		return nil, err
	}
	png, err := c.WriteFile(base+".png", cv.WritePNG)
	if err != nil {
		return []string{svg}, err
	}
	return []string{svg, png}, nil
}

// WriteCorner writes the corner plot of d (Draws.Corner and
// Draws.CornerPNG) as base.svg and base.png into the output directory and
// returns the path of the SVG file; it does nothing and returns "" when
// -out is empty.
func (c *Common) WriteCorner(base string, d *privinfer.Draws, cfg privinfer.CornerConfig) (string, error) {
	svg, err := c.WriteFile(base+".svg", func(w io.Writer) error { return d.Corner(w, cfg) })
	if err != nil || svg == "" {
		return svg, err
	}
	if _, err := c.WriteFile(base+".png", func(w io.Writer) error { return d.CornerPNG(w, cfg) }); err != nil {
		return svg, err
	}
	return svg, nil
}

// WriteCSV writes a header and rows to name in the output directory; it
// does nothing when -out is empty.
func (c *Common) WriteCSV(name string, header []string, rows [][]string) (string, error) {
	return c.WriteFile(name, func(f io.Writer) error {
		w := csv.NewWriter(f)
		w.Write(header)
		w.WriteAll(rows)
		return w.Error()
	})
}

// FloatRow formats values for CSV with full precision.
func FloatRow(vs ...float64) []string {
	r := make([]string, len(vs))
	for i, v := range vs {
		r[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return r
}

// ReadDraws reads posterior draws from the CSV file at path: the form
// privinfer.ReadCSV reads, or a pandas data frame saved with its index
// (an unnamed first column, which is dropped); a file without draws is an
// error. Non-nil names replace the
// column names (the authors' files name their columns 0, 1, …).
func ReadDraws(path string, names ...string) (*privinfer.Draws, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) > 0 && len(recs[0]) > 1 && recs[0][0] == "" {
		for i := range recs {
			recs[i] = recs[i][1:]
		}
	}
	var b bytes.Buffer
	csv.NewWriter(&b).WriteAll(recs)
	d, err := privinfer.ReadCSV(&b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if d.Len() == 0 {
		return nil, fmt.Errorf("%s: no draws", path)
	}
	if names != nil {
		if len(names) != d.Dim {
			return nil, fmt.Errorf("%s: %d columns of draws, want %d (%v)", path, d.Dim, len(names), names)
		}
		d.Names = names
	}
	return d, nil
}

// AuthorsDir is the folder of the papers' authors' reference posterior
// samples inside the optional shared directory (see SharedFile).
const AuthorsDir = "reference/authors-reference-posteriors/"

// Authors reads the authors' reference sample file (a name inside
// AuthorsDir) with ReadDraws, naming its columns names. It returns nil
// draws and no error when the shared directory or the file is absent.
func Authors(file string, names ...string) (*privinfer.Draws, error) {
	p, ok := SharedFile(AuthorsDir + file)
	if !ok {
		return nil, nil
	}
	return ReadDraws(p, names...)
}
