package privinfer

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
)

// same reports whether two draws are identical, NaN equal to NaN.
func same(a, b *Draws) bool {
	eq := func(x, y []float64) bool {
		if (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) && !(math.IsNaN(x[i]) && math.IsNaN(y[i])) {
				return false
			}
		}
		return true
	}
	return a.Dim == b.Dim && a.Chains == b.Chains && strings.Join(a.ParamNames(), "\x00") == strings.Join(b.ParamNames(), "\x00") &&
		eq(a.Theta, b.Theta) && eq(a.Weights, b.Weights)
}

func roundTripCases() map[string]*Draws {
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0.1, -0.0, 5e-324, math.MaxFloat64, 1.0 / 3}
	return map[string]*Draws{
		"special values": {Dim: 2, Names: []string{"a", "b,c \"quoted\""}, Theta: special},
		"weighted":       {Dim: 1, Theta: []float64{1, 2, 3}, Weights: []float64{0, 1e-300, 2.5}},
		"chained":        {Dim: 2, Theta: []float64{1, 2, 3, 4, 5, 6, 7, 8}, Chains: 2},
		"unnamed":        {Dim: 3, Theta: []float64{1, 2, math.NaN()}},
	}
}

func TestCSVRoundTrip(t *testing.T) {
	for name, d := range roundTripCases() {
		var b bytes.Buffer
		if err := d.WriteCSV(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := ReadCSV(&b)
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b.String())
		}
		if !same(d, got) {
			t.Errorf("%s: read back %+v, want %+v", name, got, d)
		}
	}
	var b bytes.Buffer
	_ = roundTripCases()["chained"].WriteCSV(&b)
	if want := "θ[0],θ[1],chain\n1,2,0\n3,4,0\n5,6,1\n7,8,1\n"; b.String() != want {
		t.Errorf("chained CSV:\n%s\nwant\n%s", b.String(), want)
	}
	d := &Draws{Dim: 1, Names: []string{WeightColumn}, Theta: []float64{1}}
	if err := d.WriteCSV(&b); !errors.Is(err, ErrInvalid) {
		t.Errorf("reserved name: %v", err)
	}
}

// TestReadCSVReference loads the library's committed reference posteriors
// (weighted importance samples and chained MCMC draws).
func TestReadCSVReference(t *testing.T) {
	for _, c := range []struct {
		path     string
		dim      int
		weighted bool
		chains   int
	}{
		{"abc/testdata/sir_eps1_exact.csv", 2, true, 0},
		{"mcmc/testdata/linreg_eps1_damcmc.csv", 3, false, 4},
	} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		d, err := ReadCSV(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if d.Dim != c.dim || d.Weighted() != c.weighted || d.Chains != c.chains || d.Len() < 1000 {
			t.Errorf("%s: dim %d weighted %v chains %d len %d", c.path, d.Dim, d.Weighted(), d.Chains, d.Len())
		}
		if c.chains > 0 {
			// The file's README states split R̂ < 1.002 for every coefficient.
			for j := range d.Dim {
				if rh, err := d.RHat(j); err != nil || !(rh < 1.002) {
					t.Errorf("%s: R̂[%d] = %v, %v", c.path, j, rh, err)
				}
			}
		}
	}
}

func TestReadCSVBadInput(t *testing.T) {
	bad := map[string]string{
		"empty":              "",
		"no draws":           "a,b\n",
		"not a number":       "a\nx\n",
		"ragged":             "a,b\n1,2\n3\n",
		"empty name":         "a,\n1,2\n",
		"repeated name":      "a,a\n1,2\n",
		"only weight":        "weight\n1\n",
		"negative weight":    "a,weight\n1,-1\n",
		"NaN weight":         "a,weight\n1,NaN\n",
		"chain not integer":  "a,chain\n1,0.5\n",
		"chain not from 0":   "a,chain\n1,1\n",
		"chain interleaved":  "a,chain\n1,0\n2,1\n3,0\n4,1\n",
		"chains unequal":     "a,chain\n1,0\n2,0\n3,1\n",
		"chain skipped":      "a,chain\n1,0\n2,2\n",
		"two weight columns": "a,weight,weight\n1,1,1\n",
		"bare quote":         "a\n\"1\n",
		"weights and chains": "a,weight,chain\n1,1,0\n2,1,0\n",
	}
	for name, s := range bad {
		if _, err := ReadCSV(strings.NewReader(s)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ReadCSV(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil reader: %v", err)
	}
	d, err := ReadCSV(strings.NewReader(" a , b \n inf , -INF \n"))
	if err != nil || d.Names[0] != "a" || !math.IsInf(d.Theta[0], 1) || !math.IsInf(d.Theta[1], -1) {
		t.Errorf("spaces and case: %+v, %v", d, err)
	}
}

// FuzzReadCSV checks that ReadCSV never panics, returns valid draws or an
// error wrapping ErrInvalid, and that what it reads writes and reads back
// unchanged.
func FuzzReadCSV(f *testing.F) {
	f.Add("a,b\n1,2\n3,NaN\n")
	f.Add("a,weight\n1,0.5\n2,+Inf\n")
	f.Add("x,chain\n1,0\n2,0\n3,1\n4,1\n")
	f.Add("weight,chain\n")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ReadCSV(strings.NewReader(s))
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ReadCSV returned invalid draws: %v", err)
		}
		var b bytes.Buffer
		if err := d.WriteCSV(&b); err != nil {
			return // e.g. a name WriteCSV cannot write back unchanged
		}
		e, err := ReadCSV(&b)
		if err != nil {
			// Names with surrounding spaces are trimmed on reading.
			if strings.Join(d.Names, "") != strings.TrimSpace(strings.Join(d.Names, "")) {
				return
			}
			t.Fatalf("round trip: %v\n%q", err, b.String())
		}
		if !same(d, e) {
			t.Fatalf("round trip changed the draws: %+v vs %+v", d, e)
		}
	})
}

func TestJSONRoundTrip(t *testing.T) {
	for name, d := range roundTripCases() {
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got Draws
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
		if !same(d, &got) {
			t.Errorf("%s: read back %+v, want %+v", name, got, d)
		}
	}
	b, _ := json.Marshal(&Draws{Dim: 1, Names: []string{"p"}, Theta: []float64{math.NaN(), math.Inf(-1), 0.5}, Weights: []float64{1, 1, 2}})
	if want := `{"names":["p"],"dim":1,"theta":["NaN","-Inf",0.5],"weights":[1,1,2]}`; string(b) != want {
		t.Errorf("JSON = %s\nwant   %s", b, want)
	}
	if _, err := json.Marshal(&Draws{Dim: 0}); err == nil {
		t.Error("invalid draws marshalled")
	}
	for _, s := range []string{`{"dim":1,"theta":["x"]}`, `{"dim":1,"theta":["1"]}`, `{"dim":2,"theta":[1]}`, `{"dim":1,"theta":[1],"weights":[-1]}`, `[`, `{"dim":1,"theta":[null]}`} {
		var d Draws
		if err := json.Unmarshal([]byte(s), &d); err == nil {
			t.Errorf("%s accepted", s)
		}
	}
}
