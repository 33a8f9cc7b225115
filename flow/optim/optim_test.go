package optim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestAdamWFirstStep checks the closed form of the first step: with bias
// correction, m̂ = g and v̂ = g², so p₁ = p₀(1 − lr·wd) − lr·g/(|g| + ε).
func TestAdamWFirstStep(t *testing.T) {
	a, err := NewAdamW(3, AdamWConfig{LearningRate: 0.1, WeightDecay: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	p := []float64{1, -2, 3}
	g := []float64{0.5, -4, 0}
	want := make([]float64, 3)
	for i := range p {
		want[i] = p[i]*(1-0.1*0.01) - 0.1*g[i]/(math.Abs(g[i])+1e-8)
	}
	a.Step(p, g)
	for i := range p {
		if math.Abs(p[i]-want[i]) > 1e-15 {
			t.Errorf("p[%d] = %v, want %v", i, p[i], want[i])
		}
	}
}

// TestAdamWQuadratic minimises Σ (p_i − c_i)² and checks convergence to c
// (up to the weight-decay shrinkage, zero here).
func TestAdamWQuadratic(t *testing.T) {
	c := []float64{3, -1, 0.5, 10}
	p := make([]float64, 4)
	g := make([]float64, 4)
	a, _ := NewAdamW(4, AdamWConfig{LearningRate: 0.05})
	for it := 0; it < 5000; it++ {
		for i := range p {
			g[i] = 2 * (p[i] - c[i])
		}
		a.Step(p, g)
	}
	for i := range p {
		if math.Abs(p[i]-c[i]) > 1e-3 {
			t.Errorf("p[%d] = %v, want %v", i, p[i], c[i])
		}
	}
	if a.t != 5000 {
		t.Errorf("step count = %d", a.t)
	}
}

func TestNewAdamWErrors(t *testing.T) {
	for _, c := range []struct{ lr, wd float64 }{{0, 0}, {-1, 0}, {math.NaN(), 0}, {1e-3, -1}, {1e-3, math.Inf(1)}} {
		if _, err := NewAdamW(1, AdamWConfig{LearningRate: c.lr, WeightDecay: c.wd}); err == nil {
			t.Errorf("NewAdamW(lr=%v, wd=%v): expected an error", c.lr, c.wd)
		}
	}
}

func TestClipNorm(t *testing.T) {
	g := []float64{3, 4}
	if n := ClipNorm(g, 1); n != 5 || math.Abs(g[0]-0.6) > 1e-15 || math.Abs(g[1]-0.8) > 1e-15 {
		t.Errorf("ClipNorm: norm %v, g %v", n, g)
	}
	g = []float64{3, 4}
	if ClipNorm(g, 10); g[0] != 3 || g[1] != 4 {
		t.Errorf("ClipNorm changed a small gradient: %v", g)
	}
}

func ExampleClipNorm() {
	g := []float64{6, 8}
	n := ClipNorm(g, 5)
	fmt.Println(n, g)
	// Output: 10 [3 4]
}

func BenchmarkAdamWStep(b *testing.B) {
	n := 100000
	p, g := make([]float64, n), make([]float64, n)
	for i := range g {
		g[i] = float64(i%7) - 3
	}
	a, _ := NewAdamW(n, AdamWConfig{LearningRate: 5e-4, WeightDecay: 1e-4})
	b.ReportAllocs()
	for b.Loop() {
		a.Step(p, g)
	}
}

// TestAdamWConfigZeroValues checks that the zero β₁, β₂ and ε of an
// AdamWConfig give the documented defaults and that set values are kept.
func TestAdamWConfigZeroValues(t *testing.T) {
	a, err := NewAdamW(1, AdamWConfig{LearningRate: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Beta1 != 0.9 || a.Beta2 != 0.999 || a.Eps != 1e-8 || a.WeightDecay != 0 || a.LR != 0.1 {
		t.Errorf("defaults: %+v", *a)
	}
	b, err := NewAdamW(1, AdamWConfig{LearningRate: 0.2, WeightDecay: 0.3, Beta1: 0.5, Beta2: 0.6, Eps: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	if b.Beta1 != 0.5 || b.Beta2 != 0.6 || b.Eps != 0.7 || b.WeightDecay != 0.3 || b.LR != 0.2 {
		t.Errorf("set values: %+v", *b)
	}
}

// TestAdamWStepInParts checks that Next and Update on disjoint ranges,
// run concurrently, give the parameters and moments of Step bit for bit
// over several steps, and that Update rejects a range outside p.
func TestAdamWStepInParts(t *testing.T) {
	const n = 1001
	cfg := AdamWConfig{LearningRate: 3e-3, WeightDecay: 0.01}
	a1, _ := NewAdamW(n, cfg)
	a2, _ := NewAdamW(n, cfg)
	r := rand.New(rand.NewPCG(5, 6))
	p1 := make([]float64, n)
	for i := range p1 {
		p1[i] = r.NormFloat64()
	}
	p2 := append([]float64(nil), p1...)
	g := make([]float64, n)
	for step := 0; step < 5; step++ {
		for i := range g {
			g[i] = r.NormFloat64()
		}
		a1.Step(p1, g)
		s := a2.Next()
		var wg sync.WaitGroup
		for _, lr := range [][2]int{{0, 300}, {300, 301}, {301, 1001}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.Update(p2, g, lr[0], lr[1])
			}()
		}
		wg.Wait()
	}
	for i := range p1 {
		if math.Float64bits(p1[i]) != math.Float64bits(p2[i]) || a1.m[i] != a2.m[i] || a1.v[i] != a2.v[i] {
			t.Fatalf("parameter %d: Step %v, in parts %v", i, p1[i], p2[i])
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("Update past the end of p did not panic")
		}
	}()
	a2.Next().Update(p2, g, 1000, 1002)
}
