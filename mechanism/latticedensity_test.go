package mechanism

import (
	"math"
	"math/big"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// laplaceLogDensityRef is Laplace.LogDensity written directly with
// math.Ldexp and math.Round: the reference the fast form must match bit
// for bit.
func laplaceLogDensityRef(m *Laplace, sdp, s []float64) float64 {
	if m == nil || len(sdp) != len(m.scales) || len(s) != len(m.scales) {
		return math.NaN()
	}
	lp := 0.0
	for i, x := range sdp {
		k := math.Round(math.Ldexp(x, -m.grid[i]))
		c := math.Round(math.Ldexp(s[i], -m.grid[i]))
		lp += m.logNorm[i] - m.lam[i]*math.Abs(k-c) - float64(m.grid[i])*math.Ln2
	}
	return lp
}

// gaussianLogDensityRef is Gaussian.LogDensity written directly with
// math.Ldexp and math.Round.
func gaussianLogDensityRef(g *Gaussian, sdp, s []float64) float64 {
	if g == nil || len(sdp) != g.dim || len(s) != g.dim {
		return math.NaN()
	}
	ss := 0.0
	for i := range s {
		k := math.Round(math.Ldexp(sdp[i], -g.grid))
		c := math.Round(math.Ldexp(s[i], -g.grid))
		z := k - c
		ss += z * z
	}
	return -0.5*ss/float64(g.dg.s) + float64(g.dim)*g.lnorm
}

// sameFloat reports whether a and b have the same bits, or are both NaN.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

// latticeProbes returns values that stress rounding to a grid 2^e: exact
// halves and their float64 neighbours, integers, zeros of both signs,
// values that underflow or overflow when scaled, NaN and ±Inf, and
// random values of every magnitude.
func latticeProbes(e int) []float64 {
	var xs []float64
	for _, k := range []float64{0, 0.5, 1, 1.5, 2.5, 3, 0.49999999999999994, 1 << 51, 1<<52 + 1, 1<<52 - 0.5, 1 << 53, 1e300} {
		for _, v := range []float64{k, math.Nextafter(k, 0), math.Nextafter(k, math.Inf(1))} {
			x := math.Ldexp(v, e)
			xs = append(xs, x, -x)
		}
	}
	xs = append(xs, math.NaN(), math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
		0x1p-1022, math.MaxFloat64, -math.MaxFloat64)
	r := newRand(uint64(e + 2000))
	for range 2000 {
		xs = append(xs, math.Float64frombits(r.Uint64()))
		xs = append(xs, math.Ldexp(r.NormFloat64(), e+r.IntN(120)-60))
	}
	return xs
}

// TestLatticeIndexMatchesLdexpRound checks latticeIndex against
// math.Round(math.Ldexp(x, −e)) bit for bit (signed zeros included) at
// every grid exponent a release may use and beyond, on latticeProbes.
func TestLatticeIndexMatchesLdexpRound(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	for e := -1080; e <= 1080; e++ {
		if e > -1000 && e < 1000 && (e < -60 || e > 60) && e%7 != 0 {
			continue // every exponent near the ends and around 0, a seventh elsewhere
		}
		for _, x := range latticeProbes(e) {
			want := math.Round(math.Ldexp(x, -e))
			if got := latticeIndex(x, e); !sameFloat(got, want) {
				t.Fatalf("latticeIndex(%v, %d) = %v, want %v", x, e, got, want)
			}
		}
	}
}

// TestLatticeDensitiesMatchReference checks Laplace.LogDensity and
// Gaussian.LogDensity against the direct forms bit for bit, for
// mechanisms whose grids range from 2^-1060 to 2^970 and statistics from
// latticeProbes around each grid.
func TestLatticeDensitiesMatchReference(t *testing.T) {
	type mech struct {
		lap *Laplace
		gau *Gaussian
	}
	var ms []mech
	for _, sc := range []float64{0x1p-1030, 1e-300, 1e-9, 0.013, 1, 3.7, 1e12, 1e250} {
		m, err := NewLaplaceScales([]float64{sc, sc / 3, sc * 5}, Budget{Epsilon: 1})
		if err != nil {
			t.Fatalf("scale %v: %v", sc, err)
		}
		ms = append(ms, mech{lap: m})
	}
	for _, g := range []float64{0x1p-1060, 0x1p-40, 1, 0x1p900, 0x1p970} {
		m, err := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 3, Grid: g})
		if err == nil {
			ms = append(ms, mech{lap: m})
		}
	}
	for _, sigma := range []float64{1e-300, 1e-6, 0.13, 1, 1e6, 1e200, 1e300} {
		m, err := NewGaussian(ScaleConfig{Sigma: sigma, Dim: 3})
		if err != nil {
			t.Fatalf("sigma %v: %v", sigma, err)
		}
		ms = append(ms, mech{gau: m})
	}
	for _, m := range ms {
		var grids []int
		if m.lap != nil {
			grids = m.lap.grid
		} else {
			grids = []int{m.gau.grid, m.gau.grid, m.gau.grid}
		}
		var probes [3][]float64
		for i, g := range grids {
			probes[i] = latticeProbes(g)
		}
		sdp, s := make([]float64, 3), make([]float64, 3)
		for j := range probes[0] {
			for i := range 3 {
				p := probes[i]
				sdp[i] = p[(j+i)%len(p)]
				s[i] = p[(7*j+3*i+1)%len(p)]
			}
			var got, want float64
			if m.lap != nil {
				got, want = m.lap.LogDensity(sdp, s), laplaceLogDensityRef(m.lap, sdp, s)
			} else {
				got, want = m.gau.LogDensity(sdp, s), gaussianLogDensityRef(m.gau, sdp, s)
			}
			if !sameFloat(got, want) {
				t.Fatalf("grids %v: LogDensity(%v, %v) = %v, want %v", grids, sdp, s, got, want)
			}
		}
	}
}

// laplaceScalesRef returns the discrete scales t_i of newLaplace computed
// coordinate by coordinate, as newLaplace did before it shared the exact
// arithmetic between coordinates of one scale.
func laplaceScalesRef(m *Laplace, sens float64) []ratScale {
	eps := m.budget.Epsilon
	d := len(m.scales)
	rat := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	pow2 := func(e int) *big.Rat { return new(big.Rat).SetFloat64(math.Ldexp(1, e)) }
	reps := rat(eps)
	onePlusEta := big.NewRat(1, 1)
	if sens == 0 {
		for i, b := range m.scales {
			onePlusEta.Add(onePlusEta, new(big.Rat).Quo(pow2(m.grid[i]), new(big.Rat).Mul(rat(b), reps)))
		}
	}
	out := make([]ratScale, d)
	for i, b := range m.scales {
		var x *big.Rat
		if sens > 0 {
			x = new(big.Rat).Quo(rat(sens), pow2(m.grid[i]))
			x.Add(x, big.NewRat(int64(d), 1))
			x.Quo(x, reps)
		} else {
			x = new(big.Rat).Quo(rat(b), pow2(m.grid[i]))
			x.Mul(x, onePlusEta)
		}
		t, err := ratAtLeast(x)
		if err != nil {
			return nil
		}
		out[i] = t
	}
	return out
}

// TestLaplaceSharedScales checks that the discrete scales and densities of
// Laplace mechanisms whose coordinates repeat scales are those computed
// coordinate by coordinate, and that coordinates of one scale share
// their law.
func TestLaplaceSharedScales(t *testing.T) {
	cases := []struct {
		scales []float64
		eps    float64
	}{
		{[]float64{0.5, 2, 0.5, 0.5, 7.25, 2, 0.5}, 1},
		{[]float64{1e-3, 1e-3, 1e-3}, 0.1},
		{[]float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5}, 2.5},
		{[]float64{1}, 1},
	}
	for _, c := range cases {
		m, err := NewLaplaceScales(c.scales, Budget{Epsilon: c.eps})
		if err != nil {
			t.Fatal(err)
		}
		want := laplaceScalesRef(m, 0)
		for i := range c.scales {
			if m.t[i] != want[i] {
				t.Errorf("scales %v: t[%d] = %v, want %v", c.scales, i, m.t[i], want[i])
			}
			for j := range i {
				if c.scales[j] == c.scales[i] && (m.laws[j] != m.laws[i] || m.lam[j] != m.lam[i] || m.logNorm[j] != m.logNorm[i]) {
					t.Errorf("scales %v: coordinates %d and %d of one scale differ", c.scales, j, i)
				}
			}
		}
	}
	// Twice each: the second mechanism takes its scale from commonScales.
	for _, d := range []int{1, 9, 50, 1, 9, 50} {
		m, err := NewLaplace(LaplaceConfig{Sensitivity: 13.0 / 100, Epsilon: 10, Dim: d})
		if err != nil {
			t.Fatal(err)
		}
		want := laplaceScalesRef(m, 13.0/100)
		for i := range d {
			if m.t[i] != want[i] {
				t.Errorf("dim %d: t[%d] = %v, want %v", d, i, m.t[i], want[i])
			}
		}
	}
}

// TestCeilSquareOver checks ceilSquareOver against exact rational
// arithmetic at the ends of its range, at integers and halves, at σ whose
// square t divides, and at random σ ∈ [2^10, 2^30] with t = ⌊σ⌋ + 1 (as
// newDGauss uses it) and random t.
func TestCeilSquareOver(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ref := func(sigma float64, t uint64) uint64 {
		x := new(big.Rat).SetFloat64(sigma)
		x.Mul(x, x)
		x.Quo(x, new(big.Rat).SetInt64(int64(t)))
		q := new(big.Int).Quo(x.Num(), x.Denom())
		if new(big.Rat).SetInt(q).Cmp(x) < 0 {
			q.Add(q, big.NewInt(1))
		}
		return q.Uint64()
	}
	sigmas := []float64{0x1p10, 0x1p30, math.Nextafter(0x1p30, 0), math.Nextafter(0x1p10, 1e9), 1025, 1024.5, 3000, 65536, 1e6, 123456789.5}
	r := newRand(11)
	for range 20000 {
		sigmas = append(sigmas, math.Ldexp(1+r.Float64(), 10+r.IntN(20)))
	}
	for _, s := range sigmas {
		ts := []uint64{uint64(math.Floor(s)) + 1, 1 + r.Uint64N(1<<31), 1 << 31, 1}
		if f := math.Floor(s); f == s {
			ts = append(ts, uint64(f)) // σ²/t = σ exactly
		}
		for _, tt := range ts {
			if got, want := ceilSquareOver(s, tt), ref(s, tt); got != want {
				t.Fatalf("ceilSquareOver(%v, %d) = %d, want %d", s, tt, got, want)
			}
		}
	}
}
