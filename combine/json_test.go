package combine

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// sameFloat reports bitwise-equal values up to NaN payloads.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

func sameResult(a, b Result) bool {
	return a.Rule == b.Rule && a.M == b.M && a.Adjusted == b.Adjusted && sameFloat(a.Mean, b.Mean) &&
		sameFloat(a.Within, b.Within) && sameFloat(a.Between, b.Between) && sameFloat(a.Var, b.Var) && sameFloat(a.DF, b.DF)
}

func TestResultJSONRoundTrip(t *testing.T) {
	q := []float64{1.1, 0.9, 1.05, 0.97, 1.2}
	u := []float64{0.04, 0.05, 0.045, 0.041, 0.05}
	var cases []Result
	for _, rule := range []Rule{DPSynthesis, Rubin, FullySynthetic, Raab} {
		r, err := Pool(rule, q, u, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, r)
	}
	cases = append(cases,
		Result{Rule: FullySynthetic, M: 3, Mean: 0.1, Within: 0.3, Between: 0, Var: -0.3, DF: math.NaN()},
		Result{Rule: Rubin, M: 1, Mean: -1e-300, Within: 5e-324, Between: math.Inf(1), Var: math.Inf(-1), DF: 0, Adjusted: true},
	)
	if !math.IsInf(cases[3].DF, 1) {
		t.Fatalf("the Raab rule's DF is %v, want +Inf", cases[3].DF)
	}
	for _, r := range cases {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("%+v: %v", r, err)
		}
		if !json.Valid(b) {
			t.Fatalf("invalid JSON %s", b)
		}
		var back Result
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !sameResult(r, back) {
			t.Errorf("round trip %+v → %s → %+v", r, b, back)
		}
		// Inside another value, by value and by pointer.
		type wrap struct {
			R Result
			P *Result
		}
		b, err = json.Marshal(wrap{R: r, P: &r})
		if err != nil {
			t.Fatal(err)
		}
		var w wrap
		if err := json.Unmarshal(b, &w); err != nil || !sameResult(w.R, r) || w.P == nil || !sameResult(*w.P, r) {
			t.Errorf("wrapped round trip %s: %+v, %v", b, w, err)
		}
	}
	b, _ := json.Marshal(cases[3])
	if !strings.Contains(string(b), `"df":"+Inf"`) || !strings.Contains(string(b), `"rule":"raab"`) {
		t.Errorf("Raab result encoded as %s, want \"df\":\"+Inf\" and \"rule\":\"raab\"", b)
	}
}

func TestNestedResultJSONRoundTrip(t *testing.T) {
	q := []float64{1.1, 0.9, 1.05, 0.97, 1.2, 1.0}
	u := []float64{0.04, 0.05, 0.045, 0.041, 0.05, 0.06}
	r, err := PoolNested(2, q, u, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"t":2`, `"within_nest":`, `"sanitization":`, `"synthesis":`, `"df":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("%s lacks %s", b, key)
		}
	}
	var back NestedResult
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !sameResult(r.Result, back.Result) || r.T != back.T || !sameFloat(r.WithinNest, back.WithinNest) ||
		!sameFloat(r.Sanitization, back.Sanitization) || !sameFloat(r.Synthesis, back.Synthesis) {
		t.Errorf("round trip %+v → %s → %+v", r, b, back)
	}
}

func TestResultJSONBadInput(t *testing.T) {
	for _, s := range []string{
		`{"rule":"median","m":2}`,
		`{"rule":"rubin","df":"infinite"}`,
		`{"rule":"rubin","df":"1.5"}`,
		`{"rule":3}`,
		`[1,2]`,
	} {
		var r Result
		if err := json.Unmarshal([]byte(s), &r); !errors.Is(err, ErrInvalid) {
			t.Errorf("Unmarshal(%s): error %v, want ErrInvalid", s, err)
		}
	}
	if _, err := json.Marshal(Result{Rule: Rule(9)}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Marshal of an unknown rule: error %v, want ErrInvalid", err)
	}
}
