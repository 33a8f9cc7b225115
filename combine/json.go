package combine

import (
	"encoding/json"
	"fmt"

	"github.com/privinfer/privinfer/internal/jsonfloat"
)

// MarshalText returns the rule's name (String), so that a Rule is a JSON
// string such as "dp-synthesis".
func (r Rule) MarshalText() ([]byte, error) {
	if r < DPSynthesis || r > Raab {
		return nil, fmt.Errorf("%w: unknown rule %d", ErrInvalid, int(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText reads a rule name written by MarshalText.
func (r *Rule) UnmarshalText(b []byte) error {
	for k := DPSynthesis; k <= Raab; k++ {
		if string(b) == k.String() {
			*r = k
			return nil
		}
	}
	return fmt.Errorf("%w: unknown rule %q", ErrInvalid, b)
}

// jsonFloat is a float64 whose JSON form is a number, or one of the
// strings "NaN", "+Inf" and "-Inf" (the form privinfer.Draws uses).
type jsonFloat = jsonfloat.Float

// resultJSON is the JSON form of Result.
type resultJSON struct {
	Rule     Rule      `json:"rule"`
	M        int       `json:"m"`
	Mean     jsonFloat `json:"mean"`
	Within   jsonFloat `json:"within"`
	Between  jsonFloat `json:"between"`
	Var      jsonFloat `json:"var"`
	DF       jsonFloat `json:"df"`
	Adjusted bool      `json:"adjusted,omitempty"`
}

func (r Result) toJSON() resultJSON {
	return resultJSON{Rule: r.Rule, M: r.M, Mean: jsonFloat(r.Mean), Within: jsonFloat(r.Within),
		Between: jsonFloat(r.Between), Var: jsonFloat(r.Var), DF: jsonFloat(r.DF), Adjusted: r.Adjusted}
}

func (j resultJSON) result() Result {
	return Result{Rule: j.Rule, M: j.M, Mean: float64(j.Mean), Within: float64(j.Within),
		Between: float64(j.Between), Var: float64(j.Var), DF: float64(j.DF), Adjusted: j.Adjusted}
}

// MarshalJSON writes the result as
//
//	{"rule": "dp-synthesis", "m": 5, "mean": …, "within": …, "between": …,
//	 "var": …, "df": …, "adjusted": true}
//
// with the rule by name and adjusted omitted when false. Non-finite
// values, which JSON numbers cannot hold, are written as the strings
// "+Inf", "-Inf" and "NaN": a normal reference distribution (DF = +Inf,
// the Raab rule and B = 0) is "df": "+Inf". UnmarshalJSON reads the form
// back exactly (numbers are written with the shortest representation that
// round-trips).
func (r Result) MarshalJSON() ([]byte, error) { return json.Marshal(r.toJSON()) }

// UnmarshalJSON reads the form written by MarshalJSON; errors wrap
// ErrInvalid.
func (r *Result) UnmarshalJSON(b []byte) error {
	if r == nil {
		return fmt.Errorf("%w: UnmarshalJSON into a nil Result", ErrInvalid)
	}
	var j resultJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("%w: result JSON: %w", ErrInvalid, err)
	}
	*r = j.result()
	return nil
}

// nestedJSON is the JSON form of NestedResult.
type nestedJSON struct {
	resultJSON
	T            int       `json:"t"`
	WithinNest   jsonFloat `json:"within_nest"`
	Sanitization jsonFloat `json:"sanitization"`
	Synthesis    jsonFloat `json:"synthesis"`
}

// MarshalJSON writes the fields of Result.MarshalJSON and "t",
// "within_nest", "sanitization" and "synthesis", non-finite values as
// strings as there.
func (r NestedResult) MarshalJSON() ([]byte, error) {
	return json.Marshal(nestedJSON{resultJSON: r.Result.toJSON(), T: r.T, WithinNest: jsonFloat(r.WithinNest),
		Sanitization: jsonFloat(r.Sanitization), Synthesis: jsonFloat(r.Synthesis)})
}

// UnmarshalJSON reads the form written by MarshalJSON; errors wrap
// ErrInvalid.
func (r *NestedResult) UnmarshalJSON(b []byte) error {
	if r == nil {
		return fmt.Errorf("%w: UnmarshalJSON into a nil NestedResult", ErrInvalid)
	}
	var j nestedJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("%w: nested result JSON: %w", ErrInvalid, err)
	}
	*r = NestedResult{Result: j.resultJSON.result(), T: j.T, WithinNest: float64(j.WithinNest),
		Sanitization: float64(j.Sanitization), Synthesis: float64(j.Synthesis)}
	return nil
}
