package main

import (
	"testing"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// TestDAMCMCVerdict checks that the Table 2 and Table 4 verdicts are
// computed from the numbers: the paper's own row reproduces; moving any
// one of the nine numbers beyond the tolerance makes it partial, moving
// all of them makes it differ; the authors' draws do not enter it.
func TestDAMCMCVerdict(t *testing.T) {
	for _, eps := range []float64{10, 0.1} {
		row := table[eps]
		far := [3][3]float64{{9, 9, 9}, {9, 9, 9}, {9, 9, 9}}
		if v, ok := damcmcVerdict(eps, row, &far); !ok || v.Outcome != cli.Reproduced || v.Ours == "" || v.Paper == "" {
			t.Errorf("ε = %v, the paper's own numbers: %+v", eps, v)
		}
		for j := range 3 {
			for k := range 3 {
				for _, d := range []float64{-1.01, 1.01} {
					in, out := row, row
					in[j][k] += d * damcmcTol * 0.9 / 1.01
					out[j][k] += d * damcmcTol
					if v, _ := damcmcVerdict(eps, in, nil); v.Outcome != cli.Reproduced {
						t.Errorf("ε = %v, β%d[%d] moved within the tolerance: %+v", eps, j, k, v)
					}
					if v, _ := damcmcVerdict(eps, out, nil); v.Outcome != cli.Partial {
						t.Errorf("ε = %v, β%d[%d] moved beyond the tolerance: %+v", eps, j, k, v)
					}
				}
			}
		}
		var off [3][3]float64
		for j := range 3 {
			for k := range 3 {
				off[j][k] = row[j][k] + 2*damcmcTol
			}
		}
		if v, _ := damcmcVerdict(eps, off, &row); v.Outcome != cli.Differs {
			t.Errorf("ε = %v, every number off: %+v", eps, v)
		}
	}
	if _, ok := damcmcVerdict(1, [3][3]float64{}, nil); ok {
		t.Error("ε = 1 has no DA-MCMC row in the paper, but a verdict was given")
	}
}

// TestRHatVerdict checks the n = 100 verdict against the checkpoints:
// SOMA a checkpoint ahead of both scans reproduces, a checkpoint behind
// either differs, within a checkpoint is partial, and the report's own
// numbers (SOMA 2200, Ran-IMwG 1700, Sys-IMwG 1500) differ.
func TestRHatVerdict(t *testing.T) {
	cases := []struct {
		soma, ran, sys int
		want           cli.Outcome
	}{
		{800, 1500, 1500, cli.Reproduced},
		{1400, 1500, 1600, cli.Reproduced},
		{1500, 1500, 1600, cli.Partial},
		{1600, 1700, 1500, cli.Differs},
		{2200, 1700, 1500, cli.Differs},
		{0, 1700, 1500, cli.Differs},
		{800, 0, 0, cli.Reproduced},
		{0, 0, 0, cli.Partial},
	}
	for _, c := range cases {
		v := rhatVerdict(c.soma, c.ran, c.sys, 5000)
		if v.Outcome != c.want || v.Validate() != nil || v.Ours == "" {
			t.Errorf("SOMA %d, Ran %d, Sys %d: %+v, want %s", c.soma, c.ran, c.sys, v, c.want)
		}
	}
}

// TestN10Verdicts checks the n = 10 verdicts against their numbers: the
// slides' own table reproduces, and moving any acceptance rate or mean
// coupling time beyond its tolerance (either way) makes that verdict
// partial.
func TestN10Verdicts(t *testing.T) {
	const pairs = 1000
	table := func() (acc, couple []cli.Compared) {
		for _, eps := range []float64{3, 30} {
			for _, k := range kernels {
				ref := slides[eps][k]
				acc = append(acc, cli.Compared{Name: k.String(), Ours: ref[0], Paper: ref[0], Tol: n10AccTol})
				couple = append(couple, cli.Compared{Name: k.String(), Ours: ref[1], Paper: ref[1], Tol: coupleTol(ref[1], pairs)})
			}
		}
		return acc, couple
	}
	acc, couple := table()
	for _, v := range n10Verdicts(acc, couple) {
		if v.Outcome != cli.Reproduced {
			t.Errorf("the slides' own numbers: %+v", v)
		}
	}
	for i := range acc {
		for _, d := range []float64{-1.01, 1.01} {
			a, c := table()
			a[i].Ours += d * a[i].Tol
			c[i].Ours += d * c[i].Tol
			vs := n10Verdicts(a, c)
			if vs[0].Outcome != cli.Partial || vs[1].Outcome != cli.Partial {
				t.Errorf("row %d moved by %+.2f tolerances: %v, %v", i, d, vs[0].Outcome, vs[1].Outcome)
			}
		}
	}
}
