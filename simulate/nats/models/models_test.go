package models

import (
	"math"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/sir"
)

func TestRegistry(t *testing.T) {
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := reg.Names(), []string{LinRegPaper, SIROutbreaks, SIRSynthetic}; !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	p, err := LinRegProblem(reg, 1)
	if err != nil {
		t.Fatal(err)
	}
	if name, ok := reg.NameOf(p.Simulator); !ok || name != LinRegPaper {
		t.Fatalf("the problem's simulator is registered as %q, %v", name, ok)
	}
	if p.Simulator.StatDim() != len(p.Observed) || p.Prior.Dim() != 3 {
		t.Fatalf("StatDim %d, observed %d, prior dim %d", p.Simulator.StatDim(), len(p.Observed), p.Prior.Dim())
	}
	if _, err := LinRegProblem(nil, 1); err == nil {
		t.Fatal("nil registry accepted")
	}
	if _, err := LinRegProblem(reg, 2); err == nil {
		t.Fatal("ε = 2 accepted")
	}
}

// TestSIRMatchesPaperSimulator checks that the registered SIR simulator is
// the confidential part of sir.SyntheticSimulator: the same bits from the
// same stream.
func TestSIRMatchesPaperSimulator(t *testing.T) {
	reg, err := Registry()
	if err != nil {
		t.Fatal(err)
	}
	p, err := SIRProblem(reg, 10)
	if err != nil {
		t.Fatal(err)
	}
	if name, ok := reg.NameOf(p.Simulator); !ok || name != SIRSynthetic {
		t.Fatalf("registered as %q, %v", name, ok)
	}
	ps, err := sir.SyntheticSimulator(10)
	if err != nil {
		t.Fatal(err)
	}
	theta := sir.SyntheticTheta()
	a, b := make([]float64, 10), make([]float64, 10)
	if err := p.Simulator.Simulate(simulate.Stream(1, 2), theta, a); err != nil {
		t.Fatal(err)
	}
	if err := ps.Confidential().Simulate(simulate.Stream(1, 2), theta, b); err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("statistic %d: %v vs %v", i, a[i], b[i])
		}
	}
}
