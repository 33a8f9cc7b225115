package aggregate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// TestFloatingPointDistinguishability releases each aggregation many
// times through its default path (operating-system generator) and counts
// outputs that would be impossible under a neighbouring data set. A
// discrete Laplace release of a neighbour reaches every point of the
// lattice γZ (|·/γ| < 2^53) with positive probability, so an output is
// distinguishing exactly when it is off that lattice; the means are
// deterministic maps of such lattice releases, and a quantile output must
// be a public candidate, each of which keeps positive probability under
// every data set; the accumulators' releases (count, sum, and a mean's
// count and centred sum) must each lie on its own lattice. As a control, the same check flags the textbook
// floating-point Laplace release of the same sum. 400,000 draws per path
// (40,000 with -short).
func TestFloatingPointDistinguishability(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	n := 400000
	if testing.Short() {
		n = 40000
	}
	l, _ := newLattice("Config", testLo, testHi, 0)
	cand, _ := Candidates(withK(Config{}, testLo, testHi, 16))
	flagged := map[string]int{}
	// The scaled-out accumulators of the same data, with contribution
	// bounds L0 = 3, L∞ = 2, released on every tenth round.
	p := Params{Epsilon: 2, Lo: testLo, Hi: testHi, MaxPartitionsContributed: 3, MaxContributionsPerPartition: 2}
	ca, _ := NewCountAccumulator(p)
	sa, _ := NewSumAccumulator(p)
	mean, _ := NewMeanAccumulator(p)
	accs := []Accumulator{ca, sa, mean}
	for _, acc := range accs {
		for _, v := range testData {
			acc.Add(v)
		}
	}
	cfg := func(nb Neighbour) Config { return Config{Epsilon: 2, Neighbour: nb} }
	for i := range n {
		c, err := Count(nil, 1234, cfg(AddRemove))
		if err != nil {
			t.Fatal(err)
		}
		if !onLattice(c.Value, 0) {
			flagged["count"]++
		}
		for _, nb := range []Neighbour{AddRemove, Substitute} {
			s, err := BoundedSum(nil, testData, within(cfg(nb), testLo, testHi))
			if err != nil {
				t.Fatal(err)
			}
			if !onLattice(s.Value, l.k) {
				flagged["sum "+nb.String()]++
			}
		}
		m, err := BoundedMean(nil, testData, within(cfg(Substitute), testLo, testHi))
		if err != nil {
			t.Fatal(err)
		}
		// m = fl(γ·i/n) for a lattice index i: reachable from any neighbour
		// (same n) through the same i.
		nr := float64(len(testData))
		if i := math.Round(math.Ldexp(m.Value*nr, -l.k)); math.Ldexp(i, l.k)/nr != m.Value || math.Abs(i) >= 1<<53 {
			flagged["mean substitute"]++
		}
		ma, err := BoundedMean(nil, testData, within(cfg(AddRemove), testLo, testHi))
		if err != nil {
			t.Fatal(err)
		}
		if !onLattice(ma.Releases[0], 0) || !onLattice(ma.Releases[1], l.k) {
			flagged["mean add/remove"]++
		}
		for _, acc := range accs {
			if i%10 != 0 {
				break
			}
			res, err := acc.Release(nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range res.Releases {
				if !onLattice(v, int(math.Round(math.Log2(res.Noise[i].Grid)))) {
					flagged[fmt.Sprintf("accumulator %T", acc)]++
				}
			}
		}
		h, err := Histogram(nil, []int{0, 1, 1, 3}, 4, cfg(Substitute))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range h.Counts {
			if !onLattice(v, 0) {
				flagged["histogram"]++
				break
			}
		}
		q, err := Quantile(nil, testData, 0.5, withK(cfg(Substitute), testLo, testHi, 16))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(cand, q.Value) || cand[q.Index] != q.Value {
			flagged["quantile"]++
		}
	}
	for _, k := range []string{"count", "sum add/remove", "sum substitute", "mean substitute", "mean add/remove", "histogram", "quantile",
		"accumulator *aggregate.CountAccumulator", "accumulator *aggregate.SumAccumulator", "accumulator *aggregate.MeanAccumulator"} {
		m := n
		if strings.HasPrefix(k, "accumulator") {
			m = n / 10
		}
		t.Logf("%-16s %d of %d outputs distinguishable", k, flagged[k], m)
		if flagged[k] != 0 {
			t.Errorf("%s: %d distinguishable outputs", k, flagged[k])
		}
	}
	// Control: textbook floating-point Laplace (inverse CDF of a float
	// uniform) on the same lattice sum at the same scale.
	s, _ := BoundedSum(nil, testData, within(cfg(Substitute), testLo, testHi))
	r := newRand(9)
	src := math.Ldexp(float64(l.sum(testData, testLo, testHi, AddRemove)), l.k)
	off := 0
	const ctl = 10000
	for range ctl {
		u := r.Float64() - 0.5
		v := src - s.Scale*math.Copysign(math.Log1p(-2*math.Abs(u)), u)
		if !onLattice(v, l.k) {
			off++
		}
	}
	t.Logf("control: textbook Laplace %d of %d outputs off the lattice", off, ctl)
	if off < ctl*9/10 {
		t.Errorf("control: the check flagged only %d of %d textbook releases", off, ctl)
	}
}
