package beam

import (
	"fmt"
	"math"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	"github.com/privinfer/privinfer/mechanism/beam/internal/core"
)

// Normal quantiles of the stated false-alarm rates.
const (
	z1e3 = 3.090232306167813 // 1 − 10⁻³
	z1e6 = 4.753424308822899 // 1 − 10⁻⁶
)

// chi2Quantile is the Wilson–Hilferty approximation of the chi-square
// quantile with df degrees of freedom at the normal quantile z (relative
// error below 1% for df ≥ 10 in the upper tail used here).
func chi2Quantile(df int, z float64) float64 {
	k := float64(df)
	c := 1 - 2/(9*k) + z*math.Sqrt(2/(9*k))
	return k * c * c * c
}

// dlapChi2 returns Pearson's statistic of the integer noises zs against
// the discrete Laplace law of scale t, P(Z = z) = (1−a)/(1+a)·a^|z|,
// a = e^(−1/t), with one cell per z in [−m, m] (m the largest |z| whose
// cell expects at least 5) and the two tails, and its degrees of freedom.
func dlapChi2(t *testing.T, zs []int64, scale float64) (float64, int) {
	t.Helper()
	a := math.Exp(-1 / scale)
	p0 := (1 - a) / (1 + a)
	n := float64(len(zs))
	m := 0
	for n*p0*math.Pow(a, float64(m+1)) >= 5 {
		m++
	}
	obs := make([]float64, 2*m+3) // [lower tail, −m … m, upper tail]
	for _, z := range zs {
		switch {
		case z < int64(-m):
			obs[0]++
		case z > int64(m):
			obs[2*m+2]++
		default:
			obs[int(z)+m+1]++
		}
	}
	tail := a * math.Pow(a, float64(m)) / (1 + a) // P(Z > m) = a^(m+1)/(1+a)
	stat := 0.0
	for i, o := range obs {
		var p float64
		switch i {
		case 0, 2*m + 2:
			p = tail
		default:
			p = p0 * math.Pow(a, math.Abs(float64(i-m-1)))
		}
		e := n * p
		stat += (o - e) * (o - e) / e
	}
	if m < 3 {
		t.Fatalf("too few cells (m = %d) for a chi-square test", m)
	}
	return stat, len(obs) - 1
}

// lawRecords builds keys k0…k(n−1) where key j has j%5 units with one
// record each (value j%9 for sums); it returns the records, the public
// keys (encoded) and each key's exact count and sum.
func lawRecords(t testing.TB, n int) ([]core.Record, []string, map[string][2]float64) {
	var recs []core.Record
	var pub []string
	exact := make(map[string][2]float64, n)
	for j := range n {
		k := encodeString(t, fmt.Sprintf("k%05d", j))
		pub = append(pub, k)
		for u := range j % 5 {
			recs = append(recs, core.Record{ID: encodeString(t, fmt.Sprintf("u%05d-%d", j, u)), Row: core.Row{Key: k, Value: float64(j % 9)}})
		}
		exact[k] = [2]float64{float64(j % 5), float64((j % 5) * (j % 9))}
	}
	return recs, pub, exact
}

// TestNoiseLawCore checks, on the in-memory path (the functions the DoFns
// call: BoundUnit, Merge, Release), that the released noise of 20,000
// counts and 20,000 sums follows the discrete Laplace law of the noise
// model each Result carries: the noise model's scale must be L0·L∞/ε (sum:
// times max(|Lo|, |Hi|) in lattice units), every sum must lie on its
// lattice, and Pearson's chi-square must stay below its 1 − 10⁻³ quantile
// for the seeded releases (a false alarm at rate 10⁻³ over seeds; the seed
// is fixed) and below its 1 − 10⁻⁶ quantile for the releases drawn from
// the operating system's generator (false-alarm rate 10⁻⁶ per run).
func TestNoiseLawCore(t *testing.T) {
	recs, pub, exact := lawRecords(t, 20000)
	for _, tc := range []struct {
		name  string
		kind  core.Kind
		p     aggregate.Params
		scale float64 // in lattice units
		grid  float64
		test  core.TestMode
		z     float64
	}{
		{"count/seeded", core.Count, aggregate.Params{Epsilon: 0.5, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1}, 2, 1, core.TestMode{On: true, Seed: 3}, z1e3},
		{"count/crypto", core.Count, aggregate.Params{Epsilon: 1, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 1}, 2, 1, core.TestMode{}, z1e6},
		{"sum/seeded", core.Sum, aggregate.Params{Epsilon: 4, Lo: 0, Hi: 8, Grid: 1, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1}, 2, 1, core.TestMode{On: true, Seed: 4}, z1e3},
		{"sum/quarter-grid", core.Sum, aggregate.Params{Epsilon: 8, Lo: 0, Hi: 8, Grid: 0.25, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1}, 4, 0.25, core.TestMode{On: true, Seed: 5}, z1e3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := core.Config{Kind: tc.kind, Params: tc.p, Public: true, Test: tc.test}
			got, err := core.Local(c, recs, pub)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(pub) {
				t.Fatalf("released %d keys of %d public", len(got), len(pub))
			}
			zs := make([]int64, 0, len(got))
			for k, r := range got {
				if len(r.Noise) != 1 {
					t.Fatalf("%d noise models", len(r.Noise))
				}
				nm := r.Noise[0]
				if nm.Kind != aggregate.DiscreteLaplace || nm.Grid != tc.grid || float64(nm.Num)/float64(nm.Den) != tc.scale {
					t.Fatalf("noise model %+v, want discrete Laplace of scale %v on grid %v", nm, tc.scale, tc.grid)
				}
				if r.Scale != tc.scale*tc.grid {
					t.Fatalf("Result.Scale %v, want %v", r.Scale, tc.scale*tc.grid)
				}
				want := exact[k][0]
				if tc.kind == core.Sum {
					want = exact[k][1]
				}
				z := (r.Value - want) / tc.grid
				if z != math.Trunc(z) {
					t.Fatalf("release %v is off the lattice %v", r.Value, tc.grid)
				}
				zs = append(zs, int64(z))
			}
			stat, df := dlapChi2(t, zs, tc.scale)
			if lim := chi2Quantile(df, tc.z); stat > lim {
				t.Errorf("chi-square %.1f on %d df exceeds %.1f", stat, df, lim)
			}
			t.Logf("chi-square %.1f on %d df", stat, df)
		})
	}
}

// TestNoiseLawPrism checks the same law through the pipeline on prism:
// 2,000 public keys with known counts, seeded noise (fixed seed;
// false-alarm rate 10⁻³ over seeds), and every Result's noise model must
// turn into a mechanism (Result.Mechanism) whose density is finite at the
// release.
func TestNoiseLawPrism(t *testing.T) {
	const n = 2000
	var vs []visit
	var public []string
	for j := range n {
		k := fmt.Sprintf("k%05d", j)
		public = append(public, k)
		for u := range j % 3 {
			vs = append(vs, visit{User: fmt.Sprintf("u%05d-%d", j, u), Day: k})
		}
	}
	p, s := beam.NewPipelineWithRoot()
	b, err := NewBudget(mechanism.Budget{Epsilon: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.TestMode(11, false); err != nil {
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
	counts, err := CountPerKey(s, days, Params{Epsilon: 0.5, MaxPartitionsContributed: 1, PublicPartitions: public})
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, s, "counts", counts)
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1})
	if err := Run(t.Context(), p, b, acct, prism); err != nil {
		t.Fatal(err)
	}
	if len(got.rows) != n {
		t.Fatalf("released %d keys of %d", len(got.rows), n)
	}
	zs := make([]int64, 0, n)
	for j := range n {
		r := got.rows[fmt.Sprintf("k%05d", j)]
		m, err := r.Mechanism()
		if err != nil {
			t.Fatal(err)
		}
		s := []float64{float64(j % 3)}
		if ld := m.(mechanism.Density).LogDensity(r.Observed(), s); math.IsNaN(ld) || math.IsInf(ld, 0) {
			t.Fatalf("log density %v at the release", ld)
		}
		zs = append(zs, int64(r.Value)-int64(j%3))
	}
	stat, df := dlapChi2(t, zs, 2)
	if lim := chi2Quantile(df, z1e3); stat > lim {
		t.Errorf("chi-square %.1f on %d df exceeds %.1f", stat, df, lim)
	}
	t.Logf("chi-square %.1f on %d df", stat, df)
}
