package beam

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/beam/internal/core"
)

// TestOneUnitChangesAtMostL0 runs, in one prism pipeline in the
// noise-free test mode, a count and a sum over 100 public partitions on a
// background log D and on D plus one unit with 5 records of spend 1000 in
// every one of the 100 partitions. The bounding samples of the background
// units depend on (seed, unit) only, so they are the same in both runs;
// the added unit must change exactly L0 = 4 partitions, each count by
// exactly L∞ = 2 and each sum by exactly L∞·Hi = 20 (its values clamped to
// Hi = 10). A second added unit with NaN and +Inf spends checks that NaN
// is dropped before bounding and +Inf is clamped to Hi.
func TestOneUnitChangesAtMostL0(t *testing.T) {
	const (
		parts = 100
		l0    = 4
		li    = 2
		hi    = 10.0
	)
	r := rand.New(rand.NewPCG(21, 0))
	var public []string
	for j := range parts {
		public = append(public, fmt.Sprintf("p%03d", j))
	}
	var bg []visit
	for u := range 300 {
		for range 1 + r.IntN(6) {
			bg = append(bg, visit{User: fmt.Sprintf("u%03d", u), Day: public[r.IntN(parts)], Spend: float64(r.IntN(12))})
		}
	}
	withUnit := append([]visit(nil), bg...)
	for _, k := range public {
		for range 5 {
			withUnit = append(withUnit, visit{User: "heavy", Day: k, Spend: 1000})
		}
	}
	withOdd := append(append([]visit(nil), bg...),
		visit{User: "odd", Day: "p000", Spend: math.Inf(1)},
		visit{User: "odd", Day: "p001", Spend: math.NaN()},
		visit{User: "odd", Day: "p001", Spend: math.NaN()},
		visit{User: "odd", Day: "p002", Spend: math.Inf(-1)},
	)

	p, s := beam.NewPipelineWithRoot()
	b, err := NewBudget(mechanism.Budget{Epsilon: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.TestMode(5, true); err != nil {
		t.Fatal(err)
	}
	count := Params{Epsilon: 0.5, MaxPartitionsContributed: l0, MaxContributionsPerPartition: li, PublicPartitions: public}
	sum := count
	sum.Lo, sum.Hi = 0, hi
	type out struct{ count, sum *sink }
	run := func(name string, vs []visit) out {
		pc, err := MakePrivate(s, beam.CreateList(s, vs), visitUser, b)
		if err != nil {
			t.Fatal(err)
		}
		days, err := ByKey(s, pc, visitDaySpend)
		if err != nil {
			t.Fatal(err)
		}
		c, err := CountPerKey(s, days, count)
		if err != nil {
			t.Fatal(err)
		}
		sm, err := SumPerKey(s, days, sum)
		if err != nil {
			t.Fatal(err)
		}
		return out{collect(t, s, name+"/count", c), collect(t, s, name+"/sum", sm)}
	}
	d, d1, d2 := run("D", bg), run("D+heavy", withUnit), run("D+odd", withOdd)
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 10})
	if err := Run(t.Context(), p, b, acct, prism); err != nil {
		t.Fatal(err)
	}
	for _, o := range []out{d, d1, d2} {
		if len(o.count.rows) != parts || len(o.sum.rows) != parts {
			t.Fatalf("released %d counts and %d sums of %d public partitions", len(o.count.rows), len(o.sum.rows), parts)
		}
	}
	changed := 0
	for _, k := range public {
		dc := d1.count.rows[k].Value - d.count.rows[k].Value
		ds := d1.sum.rows[k].Value - d.sum.rows[k].Value
		switch {
		case dc == 0 && ds == 0:
		case dc == li && ds == li*hi:
			changed++
		default:
			t.Errorf("partition %s changed by %v (count) and %v (sum); want 0 or %d and %v", k, dc, ds, li, li*hi)
		}
	}
	if changed != l0 {
		t.Errorf("the heavy unit changed %d partitions, want L0 = %d", changed, l0)
	}
	for k, want := range map[string][2]float64{"p000": {1, hi}, "p001": {2, 0}, "p002": {1, 0}} {
		dc := d2.count.rows[k].Value - d.count.rows[k].Value
		ds := d2.sum.rows[k].Value - d.sum.rows[k].Value
		if dc != want[0] || ds != want[1] {
			t.Errorf("%s: +Inf/NaN/−Inf unit changed count by %v and sum by %v, want %v", k, dc, ds, want)
		}
	}
}

// TestSelectThenPublic selects the partitions of a log with unknown keys
// and uses the selected keys, a PCollection, as the public partitions of a
// count (seeded test mode): the keys selected and the counts released must
// be exactly those of the in-memory path.
func TestSelectThenPublic(t *testing.T) {
	// Day j has 5j units (one to three records each): the selection at
	// ε/L0 = 0.5 keeps the large days and drops the small ones.
	var vs []visit
	for j := range 15 {
		for u := range 5 * j {
			for range 1 + u%3 {
				vs = append(vs, visit{User: fmt.Sprintf("u%02d-%03d", j, u), Day: fmt.Sprintf("d%03d", j)})
			}
		}
	}
	p, s := beam.NewPipelineWithRoot()
	b, err := NewBudget(mechanism.Budget{Epsilon: 4, Delta: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.TestMode(9, false); err != nil {
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
	sel := Params{MaxPartitionsContributed: 2, SelectionEpsilon: 1, SelectionDelta: 1e-5}
	keys, err := SelectPartitions(s, days, sel)
	if err != nil {
		t.Fatal(err)
	}
	cp := Params{Epsilon: 1, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 3, PublicPartitions: keys}
	counts, err := CountPerKey(s, days, cp)
	if err != nil {
		t.Fatal(err)
	}
	gotKeys := collectKeys(t, s, "keys", keys)
	gotCounts := collect(t, s, "counts", counts)
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 4, Delta: 1e-4})
	if err := Run(t.Context(), p, b, acct, prism); err != nil {
		t.Fatal(err)
	}
	selCfg := sel.config(core.Select)
	selCfg.Test = core.TestMode{On: true, Seed: 9}
	wantKeys := local(t, selCfg, vs, nil, false)
	if len(wantKeys) == 0 || len(wantKeys) == 15 {
		t.Fatalf("selection kept %d of 15 keys; the test needs some kept and some dropped", len(wantKeys))
	}
	var public []string
	for _, k := range sortedKeys(wantKeys) {
		public = append(public, k)
		if _, ok := gotKeys.rows[k]; !ok {
			t.Errorf("key %s selected in memory, not on prism", k)
		}
	}
	if len(gotKeys.rows) != len(wantKeys) {
		t.Errorf("prism selected %d keys, in memory %d", len(gotKeys.rows), len(wantKeys))
	}
	cntCfg := cp.config(core.Count)
	cntCfg.Test = core.TestMode{On: true, Seed: 9}
	want := local(t, cntCfg, vs, public, false)
	for _, k := range public {
		if g, w := gotCounts.rows[k].Value, want[k].Value; g != w {
			t.Errorf("count of %s: prism %v, in memory %v", k, g, w)
		}
	}
	if len(gotCounts.rows) != len(public) {
		t.Errorf("prism released %d counts for %d selected keys", len(gotCounts.rows), len(public))
	}
}
