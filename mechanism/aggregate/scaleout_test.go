package aggregate

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// TestAccumulatorLaw releases each accumulator 2·10^4 times (seeded) and
// tests the noise against the exact discrete Laplace law of the scale the
// parameters imply (L0·L∞·bound/ε', doubled under Substitute): a
// chi-square test on about 40 equiprobable bins and z-tests of mean and
// variance, false-alarm rate about 10^-4 per law (checkDLap), 5 laws.
func TestAccumulatorLaw(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const n = 20000
	r := newRand(21)
	eps := 1.5
	ep := math.Ldexp(math.Floor(math.Ldexp(eps, 30)), -30)
	x := []float64{-1, 0.3, 2.5, 7, 1.25, math.Inf(1), math.NaN()}
	for _, nb := range []Neighbour{AddRemove, Substitute} {
		p := Params{Epsilon: eps, Lo: -1, Hi: 3, Grid: 0.25, MaxPartitionsContributed: 3, MaxContributionsPerPartition: 2, Neighbour: nb, Reproducible: true}
		mult := 6.0
		if nb == Substitute {
			mult = 12
		}
		c, _ := NewCountAccumulator(p)
		s, _ := NewSumAccumulator(p)
		m, _ := NewMeanAccumulator(p)
		for _, v := range x {
			c.Add(v)
			s.Add(v)
			m.Add(v)
		}
		// Lattice indices of the records (γ = 1/4, [L, H] = [−4, 12]);
		// NaN dropped by the sum and the mean.
		S := int64(-4 + 1 + 10 + 12 + 5 + 12)
		zc, zs, zm0, zm1 := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		var rc, rs, rm Result
		for i := range n {
			rc, _ = c.Release(r)
			rs, _ = s.Release(r)
			rm, _ = m.Release(r)
			zc[i] = int64(rc.Value) - 7
			zs[i] = int64(rs.Value*4) - S
			zm0[i] = int64(rm.Releases[0]) - 6
			zm1[i] = int64(rm.Releases[1]*4) - (S - 6*4) // C = ⌊(−4+12)/2⌋ = 4
		}
		if want := mult / ep; math.Abs(rc.Scale-want) > 1e-12*want {
			t.Errorf("count scale %v, want %v", rc.Scale, want)
		}
		if want := mult * 12 / ep / 4; math.Abs(rs.Scale-want) > 1e-12*want {
			t.Errorf("sum scale %v, want %v", rs.Scale, want)
		}
		checkDLap(t, "count accumulator "+nb.String(), zc, rc.Scale)
		checkDLap(t, "sum accumulator "+nb.String(), zs, rs.Scale*4)
		if nb == AddRemove {
			checkDLap(t, "mean accumulator count", zm0, 2*mult/ep)
			checkDLap(t, "mean accumulator centred sum", zm1, 2*mult*8/ep)
		}
	}
}

// boundedPipeline runs the single-process version of a bounded pipeline:
// rows (unit, partition, value) are bounded per unit with BoundPartitions
// and CapContributions and added to one count and one sum accumulator per
// partition. It returns the exact per-partition count and index sum (the
// accumulators' state, never released).
func boundedPipeline(t *testing.T, rows []row, p Params, r *rand.Rand) map[int][2]int64 {
	t.Helper()
	byUnit := map[int]map[int][]float64{}
	var units []int
	for _, w := range rows {
		if byUnit[w.unit] == nil {
			byUnit[w.unit] = map[int][]float64{}
			units = append(units, w.unit)
		}
		byUnit[w.unit][w.part] = append(byUnit[w.unit][w.part], w.v)
	}
	counts := map[int]*CountAccumulator{}
	sums := map[int]*SumAccumulator{}
	for _, u := range units {
		var keys []int
		for _, w := range rows {
			if w.unit == u {
				keys = append(keys, w.part)
			}
		}
		kept, err := BoundPartitions(keys, p.MaxPartitionsContributed, r)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range kept {
			vals, err := CapContributions(slices.Clone(byUnit[u][k]), p.MaxContributionsPerPartition, r)
			if err != nil {
				t.Fatal(err)
			}
			if counts[k] == nil {
				counts[k], _ = NewCountAccumulator(p)
				sums[k], _ = NewSumAccumulator(p)
			}
			for _, v := range vals {
				counts[k].Add(v)
				sums[k].Add(v)
			}
		}
	}
	out := map[int][2]int64{}
	for k, c := range counts {
		out[k] = [2]int64{c.n, sums[k].s.clamp(maxStat)}
	}
	return out
}

type row struct {
	unit, part int
	v          float64
}

// TestContributionBounding: a privacy unit with 5 records in each of 100
// partitions, added to a data set of 50 other units, changes at most L0
// partitions' exact statistics, each count by at most L∞ and each index
// sum by at most L∞·max(|L|, |H|); over 400 seeded runs, and the
// partitions it keeps are uniform among its 100 (chi-square, p < 10^-4
// fails).
func TestContributionBounding(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := Params{Epsilon: 1, Lo: -2, Hi: 5, MaxPartitionsContributed: 4, MaxContributionsPerPartition: 3, Reproducible: true}
	l, _ := p.lattice()
	base := []row{}
	g := newRand(31)
	for u := range 50 {
		for range 1 + g.IntN(6) {
			base = append(base, row{u, g.IntN(120), 10*g.Float64() - 4})
		}
	}
	heavy := slices.Clone(base)
	for k := range 100 {
		for range 5 {
			heavy = append(heavy, row{999, k, 100 * (g.Float64() - 0.5)})
		}
	}
	hits := make([]float64, 100)
	const runs = 400
	maxChanged, maxDc, maxDs := 0, int64(0), int64(0)
	for run := range runs {
		// The same generator state for both data sets, so that the other
		// units' sampling coincides (the unit 999 is bounded last).
		a := boundedPipeline(t, base, p, newRand(uint64(1000+run)))
		b := boundedPipeline(t, heavy, p, newRand(uint64(1000+run)))
		changed := 0
		for k := range 120 {
			da, db := a[k], b[k]
			if da != db {
				changed++
				if k < 100 {
					hits[k]++
				}
				maxDc = max(maxDc, absInt(db[0]-da[0]))
				maxDs = max(maxDs, absInt(db[1]-da[1]))
			}
		}
		maxChanged = max(maxChanged, changed)
	}
	t.Logf("over %d runs: at most %d partitions changed (L0 = 4), count changes ≤ %d (L∞ = 3), index-sum changes ≤ %d (L∞·max|L|,|H| = %d)",
		runs, maxChanged, maxDc, maxDs, 3*l.maxAbs())
	if maxChanged > 4 || maxDc > 3 || maxDs > 3*l.maxAbs() {
		t.Errorf("bounding violated: %d partitions, count %d, sum %d", maxChanged, maxDc, maxDs)
	}
	if maxChanged != 4 || maxDc != 3 {
		t.Errorf("the heavy unit should reach the bounds: %d partitions, count change %d", maxChanged, maxDc)
	}
	exp := make([]float64, 100)
	for i := range exp {
		exp[i] = runs * 4 / 100.0
	}
	_, pv, _ := stats.ChiSquareGOF(hits, exp, 0)
	t.Logf("kept partitions uniform among the unit's 100: chi-square p = %.3g", pv)
	if pv < 1e-4 {
		t.Errorf("kept partitions not uniform: p = %.3g", pv)
	}
}

// TestPartitionSelectionDelta keeps a partition held by a single unit
// 2·10^5 times (seeded) per rule and requires the kept fraction to be
// within its bound δ/L0 (δ/(2L0) for the Gaussian threshold): the one-sided Clopper–Pearson lower limit at
// level 10^-6 must not exceed it (false alarm 10^-6 per rule), and the
// fraction must match KeepProbability (two-sided, 10^-6), so the test
// would also catch a selector that keeps too rarely. It also checks the
// optimal rule's table against the DP constraints at the true (ε/L0,
// δ/L0).
func TestPartitionSelectionDelta(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const trials = 200000
	cases := []SelectionParams{
		{Epsilon: 1, Delta: 0.01, MaxPartitionsContributed: 1, Rule: OptimalRule, Reproducible: true},
		{Epsilon: 0.5, Delta: 0.02, MaxPartitionsContributed: 4, Rule: OptimalRule, Reproducible: true},
		{Epsilon: 1, Delta: 0.01, MaxPartitionsContributed: 1, Rule: LaplaceThresholdRule, Reproducible: true},
		{Epsilon: 2, Delta: 0.04, MaxPartitionsContributed: 8, Rule: LaplaceThresholdRule, Reproducible: true},
		{Epsilon: 1, Delta: 0.02, MaxPartitionsContributed: 1, Rule: GaussianThresholdRule, Reproducible: true},
		{Epsilon: 2, Delta: 0.08, MaxPartitionsContributed: 8, Rule: GaussianThresholdRule, Reproducible: true},
	}
	r := newRand(41)
	for _, c := range cases {
		s, err := NewPartitionSelector(c)
		if err != nil {
			t.Fatal(err)
		}
		bound := c.Delta / float64(c.MaxPartitionsContributed)
		if c.Rule == GaussianThresholdRule {
			bound /= 2 // the other half of δ covers the noisy counts
		}
		kept := int64(0)
		for range trials {
			if s.Keep(r, 1) {
				kept++
			}
		}
		lo, hi := stats.ClopperPearson(kept, trials, 1e-6)
		p1 := s.KeepProbability(1)
		t.Logf("%v L0=%d ε=%v δ=%v: single-unit partition kept %d of %d (%.5f, 99.9999%% interval [%.5f, %.5f]); bound %.5f, KeepProbability(1) = %.5f",
			s.Rule(), c.MaxPartitionsContributed, c.Epsilon, c.Delta, kept, trials, float64(kept)/trials, lo, hi, bound, p1)
		if lo > bound || p1 > bound {
			t.Errorf("%v: single-unit keep rate above δ/L0 = %v", s.Rule(), bound)
		}
		if p1 < lo || p1 > hi {
			t.Errorf("%v: keep rate disagrees with KeepProbability(1) = %v", s.Rule(), p1)
		}
		if s.Keep(r, 0) {
			t.Errorf("%v: kept an empty partition", s.Rule())
		}
		if c.Rule == OptimalRule {
			e := c.Epsilon / float64(c.MaxPartitionsContributed)
			d := bound
			for n := 1; n <= len(s.pi); n++ {
				prev, cur := s.pi[n-1], s.KeepProbability(int64(n))
				if cur > math.Exp(e)*prev+d || 1-prev > math.Exp(e)*(1-cur)+d || cur < prev {
					t.Errorf("optimal table violates the DP constraints at n = %d: π = %v after %v", n, cur, prev)
				}
			}
		}
		// Utility: a partition of many units is kept.
		if p := s.KeepProbability(200); p < 0.999 {
			t.Errorf("%v: KeepProbability(200) = %v", s.Rule(), p)
		}
	}
	// The automatic rule picks whichever rule reaches keep probability ½
	// with fewer units.
	half := func(s *PartitionSelector) int64 {
		n := int64(1)
		for s.KeepProbability(n) < 0.5 {
			n++
		}
		return n
	}
	for _, l0 := range []int{1, 8, 64} {
		sp := SelectionParams{Epsilon: 1, Delta: 1e-6, MaxPartitionsContributed: l0}
		auto, _ := NewPartitionSelector(sp)
		var halves [3]int64
		best := OptimalRule
		for i, rule := range []SelectionRule{OptimalRule, LaplaceThresholdRule, GaussianThresholdRule} {
			sp.Rule = rule
			s, err := NewPartitionSelector(sp)
			if err != nil {
				t.Fatal(err)
			}
			halves[i] = half(s)
			if halves[i] < halves[best-OptimalRule] {
				best = rule
			}
		}
		t.Logf("L0 = %d: keep probability ½ from %d units (optimal rule), %d (Laplace threshold), %d (Gaussian threshold); auto chose %v",
			l0, halves[0], halves[1], halves[2], auto.Rule())
		if auto.Rule() != best {
			t.Errorf("L0 = %d: auto chose %v, want %v", l0, auto.Rule(), best)
		}
	}
}

// TestMergeOrder splits 3,000 records into 40 shards and merges the
// shards' accumulators along 200 random merge trees (random pairings,
// each partial result passed through MarshalBinary and UnmarshalBinary
// with probability ½), with a fixed seed: every tree must give the same
// state and, released with the same seeded generator, the same bits. As
// a control, the float64 sum of the same shards in the same orders
// differs between trees.
func TestMergeOrder(t *testing.T) {
	g := newRand(51)
	x := make([]float64, 3000)
	for i := range x {
		x[i] = math.Exp(8*g.Float64()) * (g.Float64() - 0.3)
	}
	p := Params{Epsilon: 1, Lo: -100, Hi: 1000, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1, Reproducible: true}
	cut := []int{0}
	for i := 1; i < 40; i++ {
		cut = append(cut, g.IntN(len(x)))
	}
	cut = append(cut, len(x))
	slices.Sort(cut)
	type shard struct {
		c   *CountAccumulator
		s   *SumAccumulator
		m   *MeanAccumulator
		fl  float64
		raw []float64
	}
	mk := func(v []float64) *shard {
		c, _ := NewCountAccumulator(p)
		s, _ := NewSumAccumulator(p)
		m, _ := NewMeanAccumulator(p)
		sh := &shard{c: c, s: s, m: m}
		for _, e := range v {
			c.Add(e)
			s.Add(e)
			m.Add(e)
			sh.fl += max(p.Lo, min(p.Hi, e))
		}
		return sh
	}
	trip := func(a Accumulator, z Accumulator) {
		b, _ := a.MarshalBinary()
		if err := z.UnmarshalBinary(b); err != nil {
			t.Fatal(err)
		}
	}
	var ref [3]uint64
	var refState [3]any
	floats := map[uint64]bool{}
	for tree := range 200 {
		var pool []*shard
		for i := range 40 {
			pool = append(pool, mk(x[cut[i]:cut[i+1]]))
		}
		for len(pool) > 1 {
			i := g.IntN(len(pool))
			j := g.IntN(len(pool) - 1)
			if j >= i {
				j++
			}
			a, b := pool[i], pool[j]
			if g.IntN(2) == 0 {
				var c CountAccumulator
				var s SumAccumulator
				var m MeanAccumulator
				trip(b.c, &c)
				trip(b.s, &s)
				trip(b.m, &m)
				b = &shard{c: &c, s: &s, m: &m, fl: b.fl}
			}
			if err := a.c.Merge(b.c); err != nil {
				t.Fatal(err)
			}
			if err := a.s.Merge(b.s); err != nil {
				t.Fatal(err)
			}
			if err := a.m.Merge(b.m); err != nil {
				t.Fatal(err)
			}
			a.fl += b.fl
			pool[j] = pool[len(pool)-1]
			pool = pool[:len(pool)-1]
			if j == len(pool) {
				continue
			}
		}
		f := pool[0]
		floats[math.Float64bits(f.fl)] = true
		var bitsOut [3]uint64
		for k, acc := range []Accumulator{f.c, f.s, f.m} {
			res, err := acc.Release(newRand(77))
			if err != nil {
				t.Fatal(err)
			}
			bitsOut[k] = math.Float64bits(res.Value)
		}
		state := [3]any{*f.c, *f.s, *f.m}
		if tree == 0 {
			ref, refState = bitsOut, state
			continue
		}
		if bitsOut != ref || state != refState {
			t.Fatalf("merge tree %d changed the result: %v vs %v", tree, bitsOut, ref)
		}
	}
	t.Logf("200 merge trees: one state, one set of released bits; the float64 sum of the same shards took %d distinct values", len(floats))
	if len(floats) < 2 {
		t.Errorf("control: the float64 sums all agreed; the test's trees do not vary the order enough")
	}
}

// TestPlanRefusesOverBudget: a share beyond the plan's total is refused
// when declared; a plan beyond the accountant's remaining budget is
// refused at Commit, charging nothing, so a pipeline that commits before
// releasing releases nothing; a committed plan is charged once, exactly
// its shares.
func TestPlanRefusesOverBudget(t *testing.T) {
	total := mechanism.Budget{Epsilon: 1, Delta: 1e-6}
	plan, err := NewPlan(total)
	if err != nil {
		t.Fatal(err)
	}
	cnt := Params{Epsilon: 0.5, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 1}
	if err := plan.AddParams("count", cnt); err != nil {
		t.Fatal(err)
	}
	if err := plan.AddSelection("select", SelectionParams{Epsilon: 0.3, Delta: 1e-6, MaxPartitionsContributed: 2}); err != nil {
		t.Fatal(err)
	}
	if err := plan.Add("sum", mechanism.Budget{Epsilon: 0.25}); !errors.Is(err, mechanism.ErrBudgetExceeded) {
		t.Errorf("share beyond the total: %v", err)
	}
	if err := plan.Add("count", mechanism.Budget{Epsilon: 0.1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("duplicate name: %v", err)
	}
	if err := plan.AddRho("gauss", 0.01); !errors.Is(err, mechanism.ErrBudgetExceeded) {
		t.Errorf("zCDP share with no δ left: %v", err)
	}
	// An accountant with less left than the plan: nothing is charged.
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1, Delta: 1e-6})
	_ = acct.Spend(mechanism.Budget{Epsilon: 0.5})
	released := 0
	pipeline := func(a *mechanism.Accountant) error {
		if err := plan.Commit(a); err != nil {
			return err
		}
		acc, _ := NewCountAccumulator(cnt)
		acc.Add(1)
		if _, err := acc.Release(nil); err != nil {
			return err
		}
		released++
		return nil
	}
	if err := pipeline(acct); !errors.Is(err, mechanism.ErrBudgetExceeded) || released != 0 {
		t.Errorf("over-budget plan: %v, %d released", err, released)
	}
	if s := acct.Spent(); s != (mechanism.Budget{Epsilon: 0.5}) {
		t.Errorf("refused plan charged the accountant: %v", s)
	}
	if plan.Committed() {
		t.Error("refused plan counts as committed")
	}
	// A fresh accountant: charged once, exactly the shares.
	fresh, _ := mechanism.NewAccountant(total)
	if err := pipeline(fresh); err != nil || released != 1 {
		t.Fatalf("plan within budget: %v", err)
	}
	if s := fresh.Spent(); math.Abs(s.Epsilon-0.8) > 1e-15 || s.Delta != 1e-6 {
		t.Errorf("charged %v, want (0.8, 1e-6)", s)
	}
	if err := plan.Commit(fresh); !errors.Is(err, ErrInvalid) {
		t.Errorf("second commit: %v", err)
	}
	if err := plan.Add("late", mechanism.Budget{Epsilon: 0.01}); !errors.Is(err, ErrInvalid) {
		t.Errorf("share after commit: %v", err)
	}
	// Joint (ε, δ) and ρ shares are charged together or not at all.
	zp, _ := NewPlan(mechanism.Budget{Epsilon: 4, Delta: 1e-5})
	if err := zp.Add("pure", mechanism.Budget{Epsilon: 1}); err != nil {
		t.Fatal(err)
	}
	if err := zp.AddParams("gauss", Params{Rho: 0.05, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1}); err != nil {
		t.Fatal(err)
	}
	small, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1.5, Delta: 1e-5})
	if err := zp.Commit(small); !errors.Is(err, mechanism.ErrBudgetExceeded) || small.Spent() != (mechanism.Budget{}) || small.Rho() != 0 {
		t.Errorf("joint plan beyond the accountant: %v, spent %v, ρ %v", err, small.Spent(), small.Rho())
	}
	t.Logf("plan guarantee %v within total %v", zp.Guarantee(), zp.Total())
}

// TestModelLaw: the mechanism a Result carries is the exact law of the
// release. For discrete Laplace noise its density sums to one over the
// lattice (to 10^-9), Apply on a fine grid of uniforms reproduces the
// mass function (to 10^-3, the grid's resolution), and the accumulator's
// releases follow it (chi-square over 2·10^4 draws, p < 10^-4 fails);
// for discrete Gaussian noise the releases match Apply (KS) and the
// density integrates to one; for the mean, the statistic (n, Σx̃) maps
// to the centred index the accumulator released.
func TestModelLaw(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := Params{Epsilon: 2, Lo: -2, Hi: 2, Grid: 1, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1, Reproducible: true}
	acc, err := NewSumAccumulator(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []float64{0.4, 1.6, -0.7, 2} {
		acc.Add(v)
	}
	const S = 0 + 2 - 1 + 2
	res, err := acc.Release(newRand(3))
	if err != nil {
		t.Fatal(err)
	}
	mm, err := res.Mechanism()
	if err != nil {
		t.Fatal(err)
	}
	m := mm.(*Model)
	if sp := m.LatticeSpacing(); sp != 1 {
		t.Fatalf("spacing %v, want 1", sp)
	}
	s := []float64{S}
	// Mass function on a window of ±60 lattice points (noise scale 1).
	pmf := map[float64]float64{}
	tot := 0.0
	for j := -60; j <= 60; j++ {
		y := S + float64(j)
		pr := math.Exp(m.LogDensity([]float64{y}, s))
		pmf[y] = pr
		tot += pr
	}
	if math.Abs(tot-1) > 1e-9 {
		t.Errorf("density sums to %v", tot)
	}
	// Apply through a fine uniform grid.
	const N = 100000
	apply := map[float64]float64{}
	var out [1]float64
	for i := range N {
		m.Apply([]float64{(float64(i) + 0.5) / N}, s, out[:])
		apply[out[0]] += 1.0 / N
	}
	worst := 0.0
	for y, pr := range pmf {
		worst = math.Max(worst, math.Abs(apply[y]-pr))
	}
	if worst > 1e-3 {
		t.Errorf("Apply's mass function differs by %v", worst)
	}
	// The accumulator's releases against the model's mass function.
	r := newRand(4)
	obs := map[float64]float64{}
	const D = 20000
	for range D {
		rr, _ := acc.Release(r)
		obs[rr.Value]++
	}
	var o, e []float64
	var oRest, eRest float64
	for y, pr := range pmf {
		if pr*D >= 5 {
			o = append(o, obs[y])
			e = append(e, pr*D)
		} else {
			oRest += obs[y]
			eRest += pr * D
		}
	}
	o, e = append(o, oRest+D-sumMap(obs)), append(e, eRest+D*(1-tot))
	_, pv, df := stats.ChiSquareGOF(o, e, 0)
	t.Logf("discrete Laplace: releases against the carried model: chi-square p = %.3g on %d df; Apply max error %.2g; density total %v", pv, df, worst, tot)
	if pv < 1e-4 {
		t.Errorf("releases do not follow the carried model (p = %v)", pv)
	}
	// The discrete Gaussian (its own grid is 2^-29 lattice units here):
	// releases against Apply of fresh uniforms (two-sample KS, p < 10^-4
	// fails), and the density integrates to one (Riemann sum, 10^-6).
	pg := Params{Rho: 2, Lo: -2, Hi: 2, Grid: 1, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1, Reproducible: true}
	ga, _ := NewSumAccumulator(pg)
	for _, v := range []float64{0.4, 1.6, -0.7, 2} {
		ga.Add(v)
	}
	gr, _ := ga.Release(r)
	gm, err := gr.Mechanism()
	if err != nil {
		t.Fatal(err)
	}
	rel, app := make([]float64, D), make([]float64, D)
	for i := range D {
		rr, _ := ga.Release(r)
		rel[i] = rr.Value
		gm.(mechanism.Transform).Apply([]float64{r.Float64()}, s, out[:])
		app[i] = out[0]
	}
	_, pks := stats.KSTwoSample(rel, app)
	integral := 0.0
	for y := S - 12.0; y <= S+12; y += 1.0 / 64 {
		integral += math.Exp(gm.(mechanism.Density).LogDensity([]float64{y}, s)) / 64
	}
	t.Logf("discrete Gaussian: releases against Apply, KS p = %.3g; density integral %v", pks, integral)
	if pks < 1e-4 || math.Abs(integral-1) > 1e-6 {
		t.Errorf("discrete Gaussian model: KS p = %v, integral %v", pks, integral)
	}
	// The mean's model maps (n, Σx̃) to the centred index.
	p = Params{Epsilon: 1, Lo: 0, Hi: 8, Grid: 1, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1, Reproducible: true}
	ma, _ := NewMeanAccumulator(p)
	for _, v := range []float64{1, 7, 7.4} {
		ma.Add(v)
	}
	res, _ = ma.Release(newRand(5))
	mm, _ = res.Mechanism()
	m = mm.(*Model)
	if i, _ := m.index([]float64{3, 15}, 1); i != 15-3*4 {
		t.Errorf("mean model: centred index %v, want 3", i)
	}
	if math.IsInf(m.LogDensity(res.Observed(), []float64{3, 15}), 0) || len(res.Observed()) != 2 || res.Center != 4 {
		t.Errorf("mean model: %+v", res)
	}
}

func sumMap(m map[float64]float64) float64 {
	s := 0.0
	for _, v := range m {
		s += v
	}
	return s
}

// TestPublicPartitions: every public key is released, a key without data
// from an empty accumulator (noise only: its releases follow the discrete
// Laplace law about 0, checkDLap, false alarm about 10^-4), and records
// of other keys are dropped.
func TestPublicPartitions(t *testing.T) {
	pub, err := NewPublicPartitions([]string{"a", "b", "a", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if k := pub.Keys(); !slices.Equal(k, []string{"a", "b", "c"}) {
		t.Fatalf("keys %v", k)
	}
	p := Params{Epsilon: 1, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1, Reproducible: true}
	rows := []string{"a", "a", "z", "c", "z"}
	accs := map[string]*CountAccumulator{}
	for _, k := range pub.Keys() {
		accs[k], _ = NewCountAccumulator(p)
	}
	for _, k := range rows {
		if pub.Contains(k) {
			accs[k].Add(0)
		}
	}
	if _, ok := accs["z"]; ok || pub.Contains("z") {
		t.Fatal("a key outside the public set was kept")
	}
	r := newRand(71)
	z := make([]int64, 20000)
	var scale float64
	for i := range z {
		res, err := accs["b"].Release(r)
		if err != nil {
			t.Fatal(err)
		}
		z[i], scale = int64(res.Value), res.Scale
	}
	checkDLap(t, "empty public partition", z, scale)
	if accs["a"].n != 2 || accs["c"].n != 1 {
		t.Errorf("counts %d, %d", accs["a"].n, accs["c"].n)
	}
}
