package mechanism

import (
	"errors"
	"math"
	"sync"
	"testing"
)

func TestComposition(t *testing.T) {
	a := Budget{Epsilon: 0.5, Delta: 1e-6}
	b := Budget{Epsilon: 1.5}
	if got := Sequential(a, b); got != (Budget{Epsilon: 2, Delta: 1e-6}) {
		t.Errorf("Sequential = %v", got)
	}
	if got := Parallel(a, b); got != (Budget{Epsilon: 1.5, Delta: 1e-6}) {
		t.Errorf("Parallel = %v", got)
	}
	parts, err := Split(Budget{Epsilon: 1, Delta: 1e-5}, []float64{1, 2, 7})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(parts[1].Epsilon-0.2) > 1e-15 || math.Abs(parts[2].Delta-7e-6) > 1e-20 {
		t.Errorf("Split = %v", parts)
	}
	tot := Sequential(parts...)
	if math.Abs(tot.Epsilon-1) > 1e-15 || math.Abs(tot.Delta-1e-5) > 1e-20 {
		t.Errorf("parts compose to %v", tot)
	}
	if _, err := Split(Budget{Epsilon: 1}, []float64{1, 0}); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero weight: %v", err)
	}
	if _, err := Split(Budget{Epsilon: -1}, []float64{1}); !errors.Is(err, ErrInvalid) {
		t.Errorf("negative epsilon: %v", err)
	}
	if err := (Budget{Epsilon: 1, Delta: 1}).Validate(); !errors.Is(err, ErrInvalid) {
		t.Errorf("delta = 1 should be invalid: %v", err)
	}
}

// TestCommunalIndividualized checks modips Defs. 5–6 and Remark 6.
func TestCommunalIndividualized(t *testing.T) {
	sens := []float64{0.08, 0.64} // (c1−c0)/n and (c1−c0)²/n for [−4, 4], n = 100
	com, err := CommunalLaplace(sens, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if math.Abs(com.Scale(i)-0.72) > 1e-15 {
			t.Errorf("communal scale %d = %v, want 0.72", i, com.Scale(i))
		}
	}
	// Remark 6a: weights ∝ sensitivities give the communal scales; the
	// paper-values weight is 1/(1 + c1 − c0) = 1/9 for the mean.
	w, _ := CommunalWeights(sens)
	if math.Abs(w[0]-1.0/9) > 1e-15 {
		t.Errorf("communal weight %v, want 1/9", w[0])
	}
	ind, err := IndividualizedLaplace(sens, w, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if math.Abs(ind.Scale(i)-com.Scale(i)) > 1e-14 {
			t.Errorf("Remark 6a: scale %d %v vs communal %v", i, ind.Scale(i), com.Scale(i))
		}
	}
	// Remark 6b: equal weights give a smaller scale than communal for the
	// below-average sensitivity and a larger one for the other.
	eq, _ := IndividualizedLaplace(sens, []float64{1, 1}, 1)
	if !(eq.Scale(0) < com.Scale(0) && eq.Scale(1) > com.Scale(1)) {
		t.Errorf("Remark 6b violated: %v %v vs %v", eq.Scale(0), eq.Scale(1), com.Scale(0))
	}
	if math.Abs(eq.Scale(0)-0.16) > 1e-15 {
		t.Errorf("individualized scale %v, want δ_i/(w_i ε) = 0.16", eq.Scale(0))
	}
	if _, err := IndividualizedLaplace(sens, []float64{1}, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("weights length mismatch: %v", err)
	}
}

func TestAccountant(t *testing.T) {
	acc, err := NewAccountant(Budget{Epsilon: 1, Delta: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := Split(acc.Total(), []float64{0.1, 0.2, 0.7})
	for _, p := range parts {
		if err := acc.Spend(p); err != nil {
			t.Fatalf("spending split part %v: %v", p, err)
		}
	}
	if err := acc.Spend(Budget{Epsilon: 1e-9}); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("overspend: %v", err)
	}
	if r := acc.Remaining(); r.Epsilon > 1e-12 {
		t.Errorf("remaining %v", r)
	}
	// δ is tracked too.
	acc2, _ := NewAccountant(Budget{Epsilon: 10, Delta: 1e-6})
	if err := acc2.Spend(Budget{Epsilon: 1, Delta: 2e-6}); !errors.Is(err, ErrBudgetExceeded) {
		t.Errorf("delta overspend: %v", err)
	}
	if acc2.Spent() != (Budget{}) {
		t.Errorf("a refused spend must record nothing: %v", acc2.Spent())
	}
	// Release through the accountant: charge, refund on failure.
	lap, _ := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 4, Dim: 2})
	acc3, _ := NewAccountant(Budget{Epsilon: 10})
	r := newRand(3)
	dst := make([]float64, 2)
	if err := acc3.Release(lap, r, []float64{1, math.NaN()}, dst); !errors.Is(err, ErrInvalid) {
		t.Fatalf("NaN release: %v", err)
	}
	if acc3.Spent().Epsilon != 0 {
		t.Errorf("failed release was charged: %v", acc3.Spent())
	}
	for i := 0; i < 2; i++ {
		if err := acc3.Release(lap, r, []float64{1, 2}, dst); err != nil {
			t.Fatal(err)
		}
	}
	dst[0] = 12345
	if err := acc3.Release(lap, r, []float64{1, 2}, dst); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("third release should exceed: %v", err)
	}
	if dst[0] != 12345 {
		t.Errorf("refused release wrote into dst")
	}
	// Mechanisms without a privacy claim are refused.
	g, _ := NewGaussian(ScaleConfig{Sigma: 1, Dim: 1})
	if err := acc3.Spend(g.Budget()); !errors.Is(err, ErrInvalid) {
		t.Errorf("uncalibrated Gaussian: %v", err)
	}
	// Concurrent spends never exceed the total.
	acc4, _ := NewAccountant(Budget{Epsilon: 1})
	var wg sync.WaitGroup
	var mu sync.Mutex
	ok := 0
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if acc4.Spend(Budget{Epsilon: 0.1}) == nil {
				mu.Lock()
				ok++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ok != 10 {
		t.Errorf("%d concurrent spends of 0.1 accepted from a total of 1, want 10", ok)
	}
}
