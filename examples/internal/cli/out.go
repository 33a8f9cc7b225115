package cli

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"

	"github.com/privinfer/privinfer/examples/internal/plot"
)

// WritePlot writes the canvas as base.svg and base.png into the output
// directory and returns the two paths; it does nothing when -out is empty.
func (c *Common) WritePlot(base string, cv *plot.Canvas) ([]string, error) {
	if c.Out == "" {
		return nil, nil
	}
	var paths []string
	for _, ext := range []string{".svg", ".png"} {
		p := c.Path(base + ext)
		f, err := os.Create(p)
		if err != nil {
			return paths, err
		}
		if ext == ".svg" {
			err = cv.WriteSVG(f)
		} else {
			err = cv.WritePNG(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return paths, fmt.Errorf("writing %s: %w", p, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// WriteCSV writes a header and rows to name in the output directory; it
// does nothing when -out is empty.
func (c *Common) WriteCSV(name string, header []string, rows [][]string) (string, error) {
	if c.Out == "" {
		return "", nil
	}
	p := c.Path(name)
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	w := csv.NewWriter(f)
	w.Write(header)
	w.WriteAll(rows)
	if err := w.Error(); err != nil {
		f.Close()
		return "", fmt.Errorf("writing %s: %w", p, err)
	}
	return p, f.Close()
}

// FloatRow formats values for CSV with full precision.
func FloatRow(vs ...float64) []string {
	r := make([]string, len(vs))
	for i, v := range vs {
		r[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return r
}
