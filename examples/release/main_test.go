package main

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
)

func records(n int) []float64 {
	r := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, n)
	for i := range x {
		x[i] = r.ExpFloat64() * 12
	}
	return x
}

// TestRelease checks the budget arithmetic (1 − 0.25 − 0.5 left, the third
// release refused), the noise scales against their closed forms
// (sensitivity/ε: 1/0.25 for the count, (60/1000)/0.5 for the mean) and
// that the JSON an analyst reads back is the release, with the same noise
// model (the same log density at the true statistics).
func TestRelease(t *testing.T) {
	x := records(1000)
	var buf bytes.Buffer
	rel, err := run(&buf, x)
	if err != nil {
		t.Fatal(err)
	}
	if rel.Remaining != 0.25 {
		t.Errorf("remaining ε %v, want 0.25", rel.Remaining)
	}
	c, m := rel.Count, rel.Mean
	if c.Scale != 4 || c.Noise[0].Num != 4*c.Noise[0].Den {
		t.Errorf("count scale %v, noise %+v; want 4", c.Scale, c.Noise[0])
	}
	if math.Abs(m.Scale-0.12) > 1e-12 || math.Abs(m.Noise[0].Grid*float64(m.Noise[0].Num)/float64(m.Noise[0].Den)-120) > 1e-9 {
		t.Errorf("mean scale %v, sum's noise %+v; want 0.12 and 120", m.Scale, m.Noise[0])
	}
	var back Release
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rel) {
		t.Fatalf("read back %+v, released %+v", back, rel)
	}
	var sum float64 // the sum of the clamped records, the statistic of the mean's release
	for _, v := range x {
		sum += min(max(v, 0), 60)
	}
	for _, tc := range []struct {
		name      string
		got, want aggregate.Result
		s         []float64
	}{{"count", back.Count, rel.Count, []float64{1000}}, {"mean", back.Mean, rel.Mean, []float64{sum}}} {
		mg, err := tc.got.Mechanism()
		if err != nil {
			t.Fatal(err)
		}
		mw, err := tc.want.Mechanism()
		if err != nil {
			t.Fatal(err)
		}
		dg, okg := mg.(mechanism.Density)
		dw, okw := mw.(mechanism.Density)
		if !okg || !okw {
			t.Fatalf("%s: the release's mechanism has no density", tc.name)
		}
		lg, lw := dg.LogDensity(tc.got.Observed(), tc.s), dw.LogDensity(tc.want.Observed(), tc.s)
		if lg != lw || math.IsInf(lg, 0) || math.IsNaN(lg) {
			t.Errorf("%s: log density %v read back, %v released", tc.name, lg, lw)
		}
	}
}

// TestReleaseNoise checks the count's noise against the discrete Laplace
// law of scale t = 4 over 2000 releases (noise from the OS generator): the
// mean error within 4 standard errors of 0, and the sample variance within
// 4 standard errors of 2a/(1−a)², a = e^(−1/t) (the kurtosis of the law is
// about 6, so the variance's relative standard error is √(5/2000)). Each
// check is a false alarm about once in 16,000 runs.
func TestReleaseNoise(t *testing.T) {
	if testing.Short() {
		t.Skip("2000 releases")
	}
	x := records(100)
	const reps = 2000
	var s1, s2 float64
	for range reps {
		rel, err := run(io.Discard, x)
		if err != nil {
			t.Fatal(err)
		}
		e := rel.Count.Value - 100
		s1 += e
		s2 += e * e
	}
	a := math.Exp(-1.0 / 4)
	v := 2 * a / ((1 - a) * (1 - a))
	mean, sv := s1/reps, (s2-s1*s1/reps)/(reps-1)
	if math.Abs(mean) > 4*math.Sqrt(v/reps) {
		t.Errorf("mean error %.3f, want 0 ± %.3f", mean, 4*math.Sqrt(v/reps))
	}
	if math.Abs(sv-v) > 4*v*math.Sqrt(5.0/reps) {
		t.Errorf("error variance %.2f, want %.2f ± %.2f", sv, v, 4*v*math.Sqrt(5.0/reps))
	}
}
