package privinfer

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/privinfer/privinfer/internal/jsonfloat"
)

// Reserved column names of the CSV form of Draws. A parameter may not be
// called by either name.
const (
	// WeightColumn holds the importance weights of weighted draws.
	WeightColumn = "weight"
	// ChainColumn holds the 0-based chain index of chained draws.
	ChainColumn = "chain"
)

// formatFloat writes v in the shortest form that parses back to the same
// value; NaN and ±Inf are written NaN, +Inf and -Inf.
func formatFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// parseFloat parses a number, NaN, Inf, +Inf or -Inf (any case), with
// surrounding spaces.
func parseFloat(s string) (float64, error) {
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}

// WriteCSV writes the draws as CSV: a header of the parameter names
// (ParamNames), followed by a weight column (WeightColumn) for weighted
// draws and a chain column (ChainColumn) for chained draws, then one line
// per draw. Numbers are written in the shortest form that reads back
// exactly; NaN and ±Inf are written NaN, +Inf and -Inf. ReadCSV reads the
// file back to equal Draws.
func (d *Draws) WriteCSV(w io.Writer) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if w == nil {
		return invalidf("WriteCSV needs a non-nil io.Writer")
	}
	names := d.ParamNames()
	for j, n := range names {
		if n == WeightColumn || n == ChainColumn {
			return invalidf("parameter %d is called %q, a reserved CSV column", j, n)
		}
	}
	header := names
	if d.Weights != nil {
		header = append(header, WeightColumn)
	}
	if d.Chains > 0 {
		header = append(header, ChainColumn)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	n := d.Len()
	per := 0
	if d.Chains > 0 {
		per = n / d.Chains
	}
	line := make([]string, len(header))
	for i := range n {
		for j, v := range d.Row(i) {
			line[j] = formatFloat(v)
		}
		k := d.Dim
		if d.Weights != nil {
			line[k] = formatFloat(d.Weights[i])
			k++
		}
		if d.Chains > 0 {
			line[k] = strconv.Itoa(i / per)
		}
		if err := cw.Write(line); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV reads draws written by WriteCSV, or any CSV file with a header
// of parameter names and one numeric line per draw: a column called
// WeightColumn becomes the weights and a column called ChainColumn the
// chain structure (chain indices must be non-decreasing integers from 0
// with every chain of equal length). Fields may be NaN, Inf, +Inf or
// -Inf. The result is validated; errors wrap ErrInvalid and name the line
// and column.
func ReadCSV(r io.Reader) (*Draws, error) {
	if r == nil {
		return nil, invalidf("ReadCSV needs a non-nil io.Reader")
	}
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, invalidf("CSV is empty: want a header of parameter names")
	}
	if err != nil {
		return nil, invalidf("CSV header: %v", err)
	}
	wcol, ccol := -1, -1
	var names []string
	var cols []int
	for k, h := range header {
		h = strings.TrimSpace(h)
		switch h {
		case WeightColumn:
			if wcol >= 0 {
				return nil, invalidf("CSV header has two %q columns", WeightColumn)
			}
			wcol = k
		case ChainColumn:
			if ccol >= 0 {
				return nil, invalidf("CSV header has two %q columns", ChainColumn)
			}
			ccol = k
		default:
			names = append(names, h)
			cols = append(cols, k)
		}
	}
	if len(names) == 0 {
		return nil, invalidf("CSV header has no parameter column")
	}
	d := &Draws{Names: names, Dim: len(names)}
	var chainOf []int
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, invalidf("CSV line %d: %v", pe.Line, pe.Err)
			}
			return nil, invalidf("CSV line %d: %v", line, err)
		}
		for _, k := range cols {
			v, err := parseFloat(rec[k])
			if err != nil {
				return nil, invalidf("CSV line %d, column %q: %q is not a number", line, header[k], rec[k])
			}
			d.Theta = append(d.Theta, v)
		}
		if wcol >= 0 {
			v, err := parseFloat(rec[wcol])
			if err != nil {
				return nil, invalidf("CSV line %d, column %q: %q is not a number", line, WeightColumn, rec[wcol])
			}
			d.Weights = append(d.Weights, v)
		}
		if ccol >= 0 {
			c, err := strconv.Atoi(strings.TrimSpace(rec[ccol]))
			if err != nil || c < 0 {
				return nil, invalidf("CSV line %d, column %q: %q is not a chain index >= 0", line, ChainColumn, rec[ccol])
			}
			chainOf = append(chainOf, c)
		}
	}
	if d.Len() == 0 {
		return nil, invalidf("CSV has a header but no draws")
	}
	if ccol >= 0 {
		chains, err := chainCount(chainOf)
		if err != nil {
			return nil, err
		}
		d.Chains = chains
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// chainCount checks that the chain indices are 0, …, C−1 in
// non-decreasing order with equal run lengths and returns C.
func chainCount(chainOf []int) (int, error) {
	if chainOf[0] != 0 {
		return 0, invalidf("chain indices must start at 0, got %d", chainOf[0])
	}
	run := 0
	for i, c := range chainOf {
		if c != chainOf[0] && run == 0 {
			run = i // the length of chain 0
		}
		if i > 0 && c != chainOf[i-1] && c != chainOf[i-1]+1 {
			return 0, invalidf("chain indices must be chain-major and consecutive: draw %d has chain %d after %d", i, c, chainOf[i-1])
		}
	}
	if run == 0 {
		return 1, nil
	}
	for i, c := range chainOf {
		if c != i/run {
			return 0, invalidf("chains must have equal lengths: chain 0 has %d draws, draw %d is in chain %d", run, i, c)
		}
	}
	if len(chainOf)%run != 0 {
		return 0, invalidf("chains must have equal lengths: %d draws do not split into chains of %d", len(chainOf), run)
	}
	return len(chainOf) / run, nil
}

// drawsJSON is the JSON form of Draws.
type drawsJSON struct {
	Names   []string     `json:"names"`
	Dim     int          `json:"dim"`
	Chains  int          `json:"chains,omitempty"`
	Theta   []jsonFloat  `json:"theta"`
	Weights *[]jsonFloat `json:"weights,omitempty"`
}

// jsonFloat is a float64 whose JSON form is a number, or one of the
// strings "NaN", "+Inf" and "-Inf".
type jsonFloat = jsonfloat.Float

// MarshalJSON writes the draws as
//
//	{"names": [...], "dim": d, "chains": c, "theta": [...], "weights": [...]}
//
// with theta the n·d draws row-major, chains omitted when 0 and weights
// omitted when nil. It never fails on NaN or ±Inf: such entries are
// written as the strings "NaN", "+Inf" and "-Inf" (JSON has no
// representation for them), and UnmarshalJSON reads them back. Names are
// ParamNames. Draws that do not Validate give an error.
func (d *Draws) MarshalJSON() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	j := drawsJSON{Names: d.ParamNames(), Dim: d.Dim, Chains: d.Chains, Theta: make([]jsonFloat, len(d.Theta))}
	for i, v := range d.Theta {
		j.Theta[i] = jsonFloat(v)
	}
	if d.Weights != nil {
		w := toJSONFloats(d.Weights)
		j.Weights = &w
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the form written by MarshalJSON (numbers, or the
// strings "NaN", "Inf", "+Inf", "-Inf") and validates the result; errors
// wrap ErrInvalid.
func (d *Draws) UnmarshalJSON(b []byte) error {
	if d == nil {
		return invalidf("UnmarshalJSON into nil Draws")
	}
	var j drawsJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return invalidf("draws JSON: %v", err)
	}
	out := Draws{Names: j.Names, Dim: j.Dim, Chains: j.Chains, Theta: make([]float64, len(j.Theta))}
	for i, v := range j.Theta {
		out.Theta[i] = float64(v)
	}
	if j.Weights != nil {
		out.Weights = fromJSONFloats(*j.Weights)
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*d = out
	return nil
}
