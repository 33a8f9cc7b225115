package study

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/privinfer/privinfer/synth"
)

func TestCurvePoint(t *testing.T) {
	// Binary p = 0.5, n = 100, m = 5, ε = 1, 600 repetitions: the
	// Theorem-7 interval covers near 95% (binomial sd 0.009; we allow
	// [0.91, 0.985]) and its estimated sd matches the empirical sd of Q̄
	// within 15% (the sd of an sd estimate from 600 draws is about 3%).
	s := setting{name: "binary", binary: true, p: 0.5, n: 100}
	bb, _ := synth.NewBetaBernoulli(synth.BetaBernoulliConfig{Alpha: 1, Beta: 1})
	model, _ := synth.NewSSS(bb, nil, synth.BIT)
	p, err := s.run(context.Background(), 5, 600, 5, 1, model)
	if err != nil {
		t.Fatal(err)
	}
	if p.CP < 0.91 || p.CP > 0.985 {
		t.Errorf("coverage %v", p.CP)
	}
	if r := p.SDEst / p.EmpSD; r < 0.85 || r > 1.15 {
		t.Errorf("estimated sd %v vs empirical %v", p.SDEst, p.EmpSD)
	}
	if math.Abs(p.Bias) > 4*p.EmpSD/math.Sqrt(600) {
		t.Errorf("bias %v (sd of Q̄ %v)", p.Bias, p.EmpSD)
	}
	if math.Abs(p.OrigSD-0.05) > 0.002 {
		t.Errorf("original sd %v, want ≈ 0.05", p.OrigSD)
	}
}

func TestStudiesRun(t *testing.T) {
	ctx := context.Background()
	pts, err := MStudy(ctx, Config{Seed: 1, Reps: 4}, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 12*2 {
		t.Errorf("m-study has %d points", len(pts))
	}
	ap, err := Allocation(ctx, Config{Seed: 1, Reps: 4}, []float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	if len(ap) != 8*2 || ap[1].W != 1.0/9 || ap[5].W != 1.0/10 {
		t.Errorf("allocation points %d, communal weights %v %v", len(ap), ap[1].W, ap[5].W)
	}
	if _, err := MStudy(ctx, Config{Seed: 1, Reps: 1}, []int{2}); err == nil {
		t.Error("reps = 1 accepted")
	}
}

func TestMStudyScaledInvalid(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		ms    []int
		scale int
	}{{[]int{2}, 0}, {[]int{2}, MaxScale + 1}, {nil, 1}, {[]int{1}, 1}} {
		if _, err := MStudyScaled(ctx, Config{Seed: 1, Reps: 4}, c.ms, c.scale); !errors.Is(err, ErrInvalid) {
			t.Errorf("ms %v scale %d: got %v", c.ms, c.scale, err)
		}
	}
	pts, err := MStudyScaled(ctx, Config{Seed: 1, Reps: 2}, []int{2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].Scenario != "binary p=0.1 n=200" || pts[len(pts)-1].Scenario != "gaussian (-4,5) truncate n=2000" {
		t.Errorf("scaled scenarios %q … %q", pts[0].Scenario, pts[len(pts)-1].Scenario)
	}
}
