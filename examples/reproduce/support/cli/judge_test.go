package cli

import (
	"math"
	"testing"
)

// TestVerdictFunctions checks that every verdict function's outcome
// follows its numbers: at the tolerance it reproduces, just beyond it (on
// either side) it does not, and NaN or infinite numbers never reproduce.
func TestVerdictFunctions(t *testing.T) {
	const paper, tol = 0.62, 0.05
	for _, d := range []float64{-1, 1} {
		if v := Within("T", "x", paper+d*tol*0.999, paper, tol, ""); v.Outcome != Reproduced || v.Validate() != nil {
			t.Errorf("within the tolerance (%+g): %+v", d, v)
		}
		if v := Within("T", "x", paper+d*tol*1.01, paper, tol, "note"); v.Outcome != Differs || v.Ours == "" || v.Paper == "" {
			t.Errorf("beyond the tolerance (%+g): %+v", d, v)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if v := Within("T", "x", bad, paper, tol, ""); v.Outcome != Differs {
			t.Errorf("measured %v: %+v", bad, v)
		}
		if v := Within("T", "x", paper, paper, bad, ""); bad != math.Inf(1) && v.Outcome != Differs {
			t.Errorf("tolerance %v: %+v", bad, v)
		}
	}
	cs := []Compared{{"a", 1, 1, 0.1}, {"b", 2, 2, 0.1}, {"c", 3, 3, 0.1}}
	if v := AllWithin("T", cs, ""); v.Outcome != Reproduced {
		t.Errorf("all agree: %+v", v)
	}
	for i := range cs {
		moved := append([]Compared(nil), cs...)
		moved[i].Ours += 0.11
		if v := AllWithin("T", moved, ""); v.Outcome != Partial {
			t.Errorf("number %d moved beyond its tolerance: %+v", i, v)
		}
	}
	for i := range cs {
		cs[i].Ours -= 0.2
	}
	if v := AllWithin("T", cs, ""); v.Outcome != Differs {
		t.Errorf("none agrees: %+v", v)
	}
	if v := AllWithin("T", nil, ""); v.Outcome != Differs {
		t.Errorf("nothing compared: %+v", v)
	}
	for _, c := range []struct {
		good, n int
		want    Outcome
	}{{3, 3, Reproduced}, {2, 3, Partial}, {0, 3, Differs}, {0, 0, Differs}} {
		if v := Judge("T", c.good, c.n, "r", ""); v.Outcome != c.want {
			t.Errorf("Judge(%d of %d) = %v, want %v", c.good, c.n, v.Outcome, c.want)
		}
	}
}
