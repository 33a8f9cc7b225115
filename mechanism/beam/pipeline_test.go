package beam

import (
	"context"
	"math"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/beam/internal/core"
)

// aggCase is one aggregation of a test pipeline.
type aggCase struct {
	name  string
	kind  core.Kind
	p     Params
	value bool // ByKey with the spend as value
}

// testCases are the four aggregations with unknown keys (and a sum with
// discrete Gaussian noise) and two with public keys (one public key has
// no data).
func testCases(public []string) []aggCase {
	sel := func(p Params) Params { p.SelectionEpsilon, p.SelectionDelta = 2, 1e-5; return p }
	pub := func(p Params) Params { p.PublicPartitions = public; return p }
	base := Params{Epsilon: 0.25, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 3}
	money := base
	money.Lo, money.Hi = 0, 40
	gauss := money
	gauss.Epsilon, gauss.Rho = 0, 0.5
	distinct := base
	distinct.MaxContributionsPerPartition = 0
	return []aggCase{
		{"count", core.Count, sel(base), false},
		{"sum", core.Sum, sel(money), true},
		{"mean", core.Mean, sel(money), true},
		{"distinct", core.Distinct, sel(distinct), false},
		{"sum-rho", core.Sum, sel(gauss), true},
		{"count-public", core.Count, pub(base), false},
		{"mean-public", core.Mean, pub(money), true},
	}
}

// runCases builds one pipeline with every case on vs, runs it on prism
// and returns each case's released keys and results.
func runCases(t *testing.T, vs []visit, cases []aggCase, seed uint64, noNoise bool) (map[string]*sink, *Budget) {
	t.Helper()
	p, s := beam.NewPipelineWithRoot()
	b, err := NewBudget(mechanism.Budget{Epsilon: 20, Delta: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.TestMode(seed, noNoise); err != nil {
		t.Fatal(err)
	}
	pc, err := MakePrivate(s, beam.CreateList(s, vs), visitUser, b)
	if err != nil {
		t.Fatal(err)
	}
	days, err := ByKey(s, pc, visitDay)
	if err != nil {
		t.Fatal(err)
	}
	spend, err := ByKey(s, pc, visitDaySpend)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*sink{}
	for _, c := range cases {
		in := days
		if c.value {
			in = spend
		}
		var col beam.PCollection
		switch c.kind {
		case core.Count:
			col, err = CountPerKey(s, in, c.p)
		case core.Sum:
			col, err = SumPerKey(s, in, c.p)
		case core.Mean:
			col, err = MeanPerKey(s, in, c.p)
		case core.Distinct:
			col, err = DistinctUnitsPerKey(s, in, c.p)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out[c.name] = collect(t, s, c.name, col)
	}
	acct, err := mechanism.NewAccountant(mechanism.Budget{Epsilon: 20, Delta: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(t.Context(), p, b, acct, prism); err != nil {
		t.Fatal(err)
	}
	return out, b
}

// compareLocal checks that the pipeline's releases equal the in-memory
// path's bit for bit.
func compareLocal(t *testing.T, vs []visit, cases []aggCase, public []string, got map[string]*sink, seed uint64, noNoise bool) {
	t.Helper()
	for _, c := range cases {
		cfg := c.p.config(c.kind)
		cfg.Test = core.TestMode{On: true, Seed: seed, NoNoise: noNoise}
		want := local(t, cfg, vs, public, c.value)
		g := got[c.name]
		if g.dup != 0 {
			t.Errorf("%s: %d keys released twice", c.name, g.dup)
		}
		if len(g.rows) != len(want) || len(want) == 0 {
			t.Errorf("%s: prism released %d keys, the in-memory path %d", c.name, len(g.rows), len(want))
		}
		for _, k := range sortedKeys(want) {
			w, ok := g.rows[k]
			if !ok {
				t.Errorf("%s: key %s missing on prism", c.name, k)
				continue
			}
			if math.Float64bits(w.Value) != math.Float64bits(g.rows[k].Value) || len(w.Releases) != len(g.rows[k].Releases) {
				t.Errorf("%s[%s]: prism %v, in memory %v", c.name, k, g.rows[k].Value, w.Value)
			}
			for i := range w.Releases {
				if math.Float64bits(w.Releases[i]) != math.Float64bits(g.rows[k].Releases[i]) {
					t.Errorf("%s[%s]: release %d: prism %v, in memory %v", c.name, k, i, g.rows[k].Releases[i], w.Releases[i])
				}
			}
		}
	}
}

// prism runs a pipeline on Beam's in-process prism runner (ptest).
func prism(_ context.Context, p *beam.Pipeline) error { return ptest.Run(p) }

// TestPrismMatchesLocal runs every aggregation on prism and in memory with
// the same seed: in the noise-free mode the exact bounded aggregates, in
// the seeded mode the noisy releases, must agree bit for bit (the
// bounding samples depend on (seed, unit) only and the integer
// accumulators on no merge order).
func TestPrismMatchesLocal(t *testing.T) {
	vs := synthLog(1, 4000, 600, 12)
	public := []string{"d000", "d001", "d002", "d005", "none"}
	cases := testCases(public)
	for _, mode := range []struct {
		name    string
		noNoise bool
	}{{"noise-free", true}, {"seeded", false}} {
		t.Run(mode.name, func(t *testing.T) {
			got, _ := runCases(t, vs, cases, 7, mode.noNoise)
			compareLocal(t, vs, cases, public, got, 7, mode.noNoise)
			if r, ok := got["count-public"].rows["none"]; !ok || (mode.noNoise && r.Value != 0) {
				t.Errorf("the empty public partition: %v, %v", r, ok)
			}
		})
	}
}
