package mcmc

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/privinfer/privinfer"
)

// TestRoundMatchesMathRound checks the lattice path's rounding against
// math.Round on the halves (where rounding to even and away from zero
// differ), their neighbours, signed zeros, huge and non-finite values and
// random values of every magnitude the grids produce.
func TestRoundMatchesMathRound(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
		0x1p52 - 0.5, -(0x1p52 - 0.5), 0x1p52 + 1, 0x1p53 + 2, 0x1p51 + 0.5, 1e300, -1e300,
		math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, 4503599627370495.5}
	for m := -5.0; m <= 5; m++ {
		xs = append(xs, m+0.5, math.Nextafter(m+0.5, math.Inf(1)), math.Nextafter(m+0.5, math.Inf(-1)))
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 200000 {
		x := math.Ldexp(r.Float64()-0.5, r.IntN(70)-10)
		if r.IntN(4) == 0 {
			x = math.Trunc(x) + 0.5*float64(1-2*r.IntN(2)) // a half
		}
		xs = append(xs, x)
	}
	for _, x := range xs {
		got, want := round(x), math.Round(x)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("round(%v) = %v, math.Round gives %v", x, got, want)
		}
	}
	if !math.IsNaN(round(math.NaN())) {
		t.Error("round(NaN) is not NaN")
	}
}

// latticeProblems are the Laplace-released problems the lattice path is
// checked on: the linear regression with known variance at several n and
// ε, and the normal-inverse-gamma model of the slides.
func latticeProblems(t *testing.T) []struct {
	name string
	p    privinfer.Problem
	th   ThetaStep
} {
	var out []struct {
		name string
		p    privinfer.Problem
		th   ThetaStep
	}
	for _, n := range []int{1, 7, 100} {
		for _, eps := range []float64{0.1, 1, 10, 30} {
			p, th := linRegProblem(t, n, eps)
			out = append(out, struct {
				name string
				p    privinfer.Problem
				th   ThetaStep
			}{"linreg n=" + itoa(n) + " eps=" + itoa(int(eps*10)) + "/10", p, th})
		}
	}
	for _, eps := range []float64{3, 30} {
		p, nig := nigProblem(t, eps)
		out = append(out, struct {
			name string
			p    privinfer.Problem
			th   ThetaStep
		}{"nig eps=" + itoa(int(eps)), p, nig})
	}
	return out
}

// TestLatticeWeightsMatchDirect checks that the lattice path gives the
// weights of the mechanism's LogDensity: on random states (θ from the
// prior, records from the model, then a few sweeps so the statistic has
// been updated incrementally) and fresh proposals, every SOMA weight, the
// IMwG weight of a random slot and log η of the current records agree to
// 1e-12 relative (on amd64, where the compiler fuses no operations, they
// are required to be bit-identical).
func TestLatticeWeightsMatchDirect(t *testing.T) {
	exact := runtime.GOARCH == "amd64"
	r := rand.New(rand.NewPCG(11, 12))
	for _, tc := range latticeProblems(t) {
		m, err := newDAModel(&tc.p, tc.th)
		if err != nil {
			t.Fatal(err)
		}
		for rep := range 20 {
			theta := make([]float64, m.rec.ParamDim())
			m.prior.Sample(r, theta)
			c, err := newDAChain(m, SOMA, r, theta)
			if err != nil {
				t.Fatal(err)
			}
			if c.lat == nil || !c.latOK {
				t.Fatalf("%s: the lattice path is not in use", tc.name)
			}
			for range rep % 4 {
				if err := c.Sweep(r); err != nil {
					t.Fatal(err)
				}
			}
			for range 5 {
				c.propose(r)
				mx := c.weights()
				for i, got := range c.logw {
					want := c.slotLogW(i)
					if !close12(got, want, exact) {
						t.Fatalf("%s rep %d slot %d: lattice log w = %v, LogDensity %v", tc.name, rep, i, got, want)
					}
					if got > mx {
						t.Fatalf("%s: maximum %v below weight %v", tc.name, mx, got)
					}
				}
				i := r.IntN(c.n)
				if !c.latticeA() {
					t.Fatalf("%s: lattice path declined a proposal", tc.name)
				}
				if got, want := c.lat.slot(c.a, c.tg, c.n, i), c.slotLogW(i); !close12(got, want, exact) {
					t.Fatalf("%s: IMwG slot weight %v, LogDensity %v", tc.name, got, want)
				}
				if err := c.Step(r); err != nil {
					t.Fatal(err)
				}
				// The grid-unit copies follow the statistic exactly.
				for k, v := range c.s {
					if c.sg[k] != v*c.lat.inv[k] {
						t.Fatalf("%s: scaled statistic %v, want %v", tc.name, c.sg[k], v*c.lat.inv[k])
					}
				}
				if got, want := c.lat.logEta(c.sg), c.m.mech.LogDensity(c.m.sdp, c.s); !close12(got, want, exact) || !close12(c.logE, want, exact) {
					t.Fatalf("%s: log η lattice %v, chain %v, LogDensity %v", tc.name, got, c.logE, want)
				}
			}
		}
	}
}

func close12(got, want float64, exact bool) bool {
	if exact {
		return math.Float64bits(got) == math.Float64bits(want)
	}
	return got == want || math.Abs(got-want) <= 1e-12*math.Abs(want)
}

// TestLatticeChainMatchesDirect runs a SOMA and an IMwG chain twice from
// the same seed, once on the lattice path and once through LogDensity,
// and requires the same θ and records after every sweep: the faster pass
// changes no decision of the chain. (amd64 only, where the two paths are
// bit-identical; elsewhere TestLatticeWeightsMatchDirect bounds their
// difference.)
func TestLatticeChainMatchesDirect(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("bit-identical weights are required on amd64 only")
	}
	p, th := linRegProblem(t, 50, 10)
	for _, k := range []RecordStep{SOMA, SystematicScanIMwG, RandomScanIMwG} {
		var chains [2]*DAChain
		var rs [2]*rand.Rand
		for j := range chains {
			rs[j] = rand.New(rand.NewPCG(5, 6))
			c, err := NewDAChain(p, DAConfig{ThetaStep: th, RecordStep: k}, rs[j], []float64{1, -1, 0.5})
			if err != nil {
				t.Fatal(err)
			}
			chains[j] = c
		}
		chains[1].lat, chains[1].latOK = nil, false
		for sweep := range 40 {
			for j := range chains {
				if err := chains[j].Sweep(rs[j]); err != nil {
					t.Fatal(err)
				}
			}
			a, b := chains[0], chains[1]
			for i, v := range a.theta {
				if v != b.theta[i] {
					t.Fatalf("%v sweep %d: θ %v on the lattice path, %v through LogDensity", k, sweep, a.theta, b.theta)
				}
			}
			for i, v := range a.recs {
				if v != b.recs[i] {
					t.Fatalf("%v sweep %d: record value %d differs", k, sweep, i)
				}
			}
		}
		if a, b := chains[0].accepted, chains[1].accepted; a != b || a == 0 {
			t.Fatalf("%v: %d and %d accepted moves", k, a, b)
		}
	}
}

// TestLatticeDeclinesHugeContributions checks that contributions beyond
// the lattice path's range (the regression's are clamped, so one is set
// by hand) send the weights through LogDensity and that ordinary records
// bring the path back at the next recomputation of the statistic.
func TestLatticeDeclinesHugeContributions(t *testing.T) {
	p, th := linRegProblem(t, 5, 10)
	r := rand.New(rand.NewPCG(3, 4))
	c, err := NewDAChain(p, DAConfig{ThetaStep: th, RecordStep: SOMA}, r, []float64{0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	c.tc[2*c.cd+1] = 1e280
	if err := c.resum(); err != nil {
		t.Fatal(err)
	}
	if c.latOK {
		t.Fatal("lattice path kept with a contribution of about 1e287 grid units (beyond 2^900)")
	}
	c.propose(r)
	c.weights()
	for i, got := range c.logw {
		if want := c.slotLogW(i); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("slot %d: %v, LogDensity %v", i, got, want)
		}
	}
	if err := c.SetRecords(append([]float64(nil), c.Records()...)); err != nil {
		t.Fatal(err)
	}
	if !c.latOK {
		t.Fatal("lattice path not restored with ordinary records")
	}
}
