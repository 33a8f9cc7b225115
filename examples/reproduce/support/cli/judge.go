package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The verdict functions compute a Verdict from the numbers it names and
// the tolerance the example states, so that the outcome can only be what
// the numbers give: a measured number moved beyond the tolerance changes
// it. A NaN or infinite measured number never reproduces.

// Compared is one measured number beside the paper's, with the largest
// absolute difference that still counts as agreement.
type Compared struct {
	Name  string  // what is compared, such as "β1 mean"
	Ours  float64 // our measured number
	Paper float64 // the paper's number
	Tol   float64 // agreement when |Ours − Paper| ≤ Tol
}

// Agrees reports whether c's numbers agree within its tolerance (never
// when either is NaN or infinite, or the tolerance is negative or NaN).
func (c Compared) Agrees() bool {
	if math.IsNaN(c.Ours) || math.IsInf(c.Ours, 0) || math.IsNaN(c.Paper) || math.IsInf(c.Paper, 0) || !(c.Tol >= 0) {
		return false
	}
	return math.Abs(c.Ours-c.Paper) <= c.Tol
}

// String is "name ours (paper P, |Δ| D ≤ T)" with ≤ or > as the case is.
func (c Compared) String() string {
	rel := ">"
	if c.Agrees() {
		rel = "≤"
	}
	return fmt.Sprintf("%s%s (paper %s, |Δ| %s %s %s)", c.label(), num(c.Ours), num(c.Paper), num(math.Abs(c.Ours-c.Paper)), rel, num(c.Tol))
}

// label is c's name followed by a space, or "" when it has none.
func (c Compared) label() string {
	if c.Name == "" {
		return ""
	}
	return c.Name + " "
}

// num formats a compared number with three significant digits (more when
// it has them at two decimals), so that the verdict shows what it judged.
func num(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e6 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	s := strconv.FormatFloat(x, 'g', 3, 64)
	if a := math.Abs(x); a >= 1 && a < 1e4 {
		s = strconv.FormatFloat(x, 'f', 2, 64)
	}
	return s
}

// Within is the verdict on one number: Reproduced when ours is within
// tol of the paper's, Differs otherwise. note, when not empty, is added
// to the reason (where the tolerance comes from, a caveat).
func Within(target, name string, ours, paper, tol float64, note string) Verdict {
	return AllWithin(target, []Compared{{Name: name, Ours: ours, Paper: paper, Tol: tol}}, note)
}

// AllWithin is the verdict on several numbers: Reproduced when every one
// agrees with the paper's within its tolerance, Partial when some do,
// Differs when none does (or there are none).
func AllWithin(target string, cs []Compared, note string) Verdict {
	good := 0
	var parts, ours, paper []string
	for _, c := range cs {
		if c.Agrees() {
			good++
		}
		parts = append(parts, c.String())
		ours = append(ours, c.label()+num(c.Ours))
		paper = append(paper, c.label()+num(c.Paper))
	}
	v := Judge(target, good, len(cs), fmt.Sprintf("%d of %d within tolerance: %s", good, len(cs), strings.Join(parts, "; ")), note)
	v.Ours, v.Paper = strings.Join(ours, ", "), strings.Join(paper, ", ")
	return v
}

// Judge is the verdict of good checks holding out of n: Reproduced when
// all hold (n > 0), Partial when some do, Differs when none does. reason
// states the checks with their numbers; note, when not empty, is added.
func Judge(target string, good, n int, reason, note string) Verdict {
	out := Outcome(Differs)
	switch {
	case n > 0 && good == n:
		out = Reproduced
	case good > 0:
		out = Partial
	}
	if note != "" {
		reason += "; " + note
	}
	return Verdict{Outcome: out, Target: target, Reason: reason}
}
