package sir

import (
	"math"
	"testing"
)

// TestObservedReleases checks the exported paper releases: the synthetic
// SIR releases lie on the mechanism's 1/n lattice (n = 1000) and m = nL/ε;
// the real-outbreak vectors are documented as off the lattice (n = 100);
// the tables have the paper's lengths and fresh slices are returned.
func TestObservedReleases(t *testing.T) {
	for _, eps := range []float64{10, 1, 0.1} {
		s, err := SyntheticRelease(eps)
		if err != nil || len(s) != 10 {
			t.Fatalf("eps %v: %v %v", eps, s, err)
		}
		for i, v := range s {
			if math.Abs(v*1000-math.Round(v*1000)) > 1e-9 {
				t.Errorf("eps %v entry %d = %v not a multiple of 1/1000", eps, i, v)
			}
		}
		m, _ := SyntheticM(eps)
		if got := float64(SyntheticN*SyntheticL) / float64(m); math.Abs(got-eps) > 1e-12 {
			t.Errorf("m=%d gives eps %v, want %v", m, got, eps)
		}
		s[0] = 99
		if s2, _ := SyntheticRelease(eps); s2[0] == 99 {
			t.Error("release table is shared")
		}
	}
	if _, err := SyntheticRelease(2); err == nil {
		t.Error("unknown epsilon accepted")
	}
	offLattice := 0
	for _, o := range Outbreaks() {
		if len(o.SDP) != 10 || o.SDP[0] != 0.001 || len(o.CodeLogTheta) != 2 {
			t.Errorf("%s: malformed %+v", o.Name, o)
		}
		for _, v := range o.SDP {
			if math.Abs(v*100-math.Round(v*100)) > 1e-9 {
				offLattice++
			}
		}
	}
	if offLattice == 0 {
		t.Error("outbreak releases unexpectedly on the 1/n lattice")
	}
	if _, err := OutbreakByName("ebola_liberia"); err != nil {
		t.Error(err)
	}
	if r0 := R0(SyntheticTheta(), LogRates); math.Abs(r0-math.Exp(2.5)) > 1e-12 {
		t.Errorf("R0 = %v", r0)
	}
	if !math.IsNaN(R0([]float64{-1, 1}, Rates)) {
		t.Error("R0 of negative rate not NaN")
	}
}

func TestSIRSyntheticSimulator(t *testing.T) {
	for _, eps := range []float64{10, 1, 0.1} {
		p, err := SyntheticSimulator(eps)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Mechanism().Budget().Epsilon; math.Abs(got-eps) > 1e-12 {
			t.Errorf("budget %v, want %v", got, eps)
		}
		if p.StatDim() != 10 {
			t.Errorf("StatDim %d", p.StatDim())
		}
	}
	if _, err := SyntheticSimulator(3); err == nil {
		t.Error("unknown epsilon accepted")
	}
}

// TestSIRODEStiffFails checks that the ODE reports, rather than silently
// truncates, an integration it cannot finish.
func TestSIRODEStiffFails(t *testing.T) {
	od, _ := NewODE(Config{K: 1000}, 0)
	dst := make([]float64, 10)
	if err := od.Simulate(nil, []float64{40, 0}, dst); err == nil {
		t.Error("β = e^40 integrated without error")
	}
	if err := od.Simulate(nil, []float64{5, -1}, dst); err != nil {
		t.Errorf("β = e^5: %v", err)
	}
}

// TestPrior checks that the SBI paper's printed 0.5 and 0.2 are variances:
// the log density at the prior mean is that of N(0, diag(0.5, 0.2)) at 0.
func TestPrior(t *testing.T) {
	sp := Prior()
	lp := sp.LogDensity([]float64{math.Log(0.4), math.Log(0.125)})
	wantMode := -0.5*math.Log(0.5*0.2) - math.Log(2*math.Pi)
	if math.Abs(lp-wantMode) > 1e-12 {
		t.Errorf("SIR prior log density at its mean %v, want %v", lp, wantMode)
	}
}
