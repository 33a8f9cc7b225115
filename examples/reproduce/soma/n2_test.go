package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/testenv"
	"github.com/privinfer/privinfer/mcmc"
)

// TestTheorem5OnGrid checks the slides' Theorem (5) on the exact n = 2
// chain (12×12 grid): at ε = 0.5, 1 and 2, where the bound is well below
// one, the SOMA kernel satisfies detailed balance to rounding and its
// second-largest eigenvalue modulus is below the bound. A kernel that is
// not π-reversible fails the first check, one that mixes too slowly the
// second.
func TestTheorem5OnGrid(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	for _, eps := range []float64{0.5, 1, 2} {
		g := newGridChain(12, eps)
		p, _ := g.transition(mcmc.SOMA)
		for i, row := range p {
			s := 0.0
			for _, v := range row {
				if v < 0 {
					t.Fatalf("ε=%v: negative transition probability from state %d", eps, i)
				}
				s += v
			}
			if math.Abs(s-1) > 1e-12 {
				t.Fatalf("ε=%v: row %d sums to %v", eps, i, s)
			}
		}
		rate, asym, err := g.slem(p)
		if err != nil {
			t.Fatal(err)
		}
		if asym > 1e-15 {
			t.Errorf("ε=%v: detailed balance violated by %v", eps, asym)
		}
		if b := somaRateBound(eps); !(rate <= b) || rate < 0.5 {
			t.Errorf("ε=%v: SOMA rate %v, bound (5) %v (and at least 1/2, the rate at ε = 0)", eps, rate, b)
		}
	}
	if b := somaRateBound(1e-9); math.Abs(b-0.5) > 1e-6 {
		t.Errorf("bound (5) at ε → 0 is %v, want 1/2", b)
	}
}

// TestLibraryMatchesGridChain checks the library's SOMA and Ran-IMwG
// chains on the n = 2 problem against the exact grid chain (24×24): their
// acceptance rates over 100,000 seeded iterations agree with the grid
// chain's stationary acceptance within 0.02 (the discretisation moves it
// by about 0.005; the Monte Carlo error is below 0.003).
func TestLibraryMatchesGridChain(t *testing.T) {
	testenv.SkipHeavyUnderRace(t)
	for _, eps := range []float64{2, 10} {
		g := newGridChain(24, eps)
		for _, k := range []mcmc.RecordStep{mcmc.SOMA, mcmc.RandomScanIMwG} {
			_, _, acc, err := n2Chain(eps, k, 100000, 3)
			if err != nil {
				t.Fatal(err)
			}
			_, accept := g.transition(k)
			if exact := g.stationaryAcceptance(accept); math.Abs(acc-exact) > 0.02 {
				t.Errorf("ε=%v %v: library acceptance %v, exact grid chain %v", eps, k, acc, exact)
			}
		}
	}
}

// TestSymEigenvalues checks the eigenvalue routine on the second-difference
// matrix (eigenvalues 2 − 2cos(kπ/(n+1))) and on a random symmetric
// matrix (trace and Frobenius norm).
func TestSymEigenvalues(t *testing.T) {
	const n = 30
	a := make([][]float64, n)
	for i := range a {
		a[i] = make([]float64, n)
		a[i][i] = 2
		if i > 0 {
			a[i][i-1], a[i-1][i] = -1, -1
		}
	}
	ev, err := symEigenvalues(a)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(ev)
	for k := 1; k <= n; k++ {
		if want := 2 - 2*math.Cos(float64(k)*math.Pi/(n+1)); math.Abs(ev[k-1]-want) > 1e-12 {
			t.Fatalf("eigenvalue %d = %v, want %v", k, ev[k-1], want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	tr, fro := 0.0, 0.0
	for i := range a {
		for j := range i + 1 {
			v := r.NormFloat64()
			a[i][j], a[j][i] = v, v
			fro += v * v
			if i == j {
				tr += v
			} else {
				fro += v * v
			}
		}
	}
	if ev, err = symEigenvalues(a); err != nil {
		t.Fatal(err)
	}
	s, s2 := 0.0, 0.0
	for _, v := range ev {
		s, s2 = s+v, s2+v*v
	}
	if math.Abs(s-tr) > 1e-10 || math.Abs(s2-fro) > 1e-9 {
		t.Fatalf("Σλ = %v, trace %v; Σλ² = %v, ‖A‖² = %v", s, tr, s2, fro)
	}
}
