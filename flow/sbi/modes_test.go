package sbi

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/parallel"
)

// twoModes is the log density of 0.25·N((−5, 0), 0.5²I) + 0.75·N((5, 0),
// 0.5²I) on R², whose modes are 20 standard deviations apart. (At ±3 an
// adaptive Metropolis chain crossed between them about once in 30,000
// steps.)
func twoModes(x []float64) float64 {
	a := -((x[0]+5)*(x[0]+5)+x[1]*x[1])/(2*0.25) + math.Log(0.25)
	b := -((x[0]-5)*(x[0]-5)+x[1]*x[1])/(2*0.25) + math.Log(0.75)
	return logAddExp(a, b)
}

// modeStarts returns C starts for twoModes, left of them in the left-hand
// mode and the rest in the right-hand one.
func modeStarts(r *rand.Rand, C, left int) [][]float64 {
	starts := make([][]float64, C)
	for c := range starts {
		cx := 5.0
		if c < left {
			cx = -5
		}
		starts[c] = []float64{cx + 0.5*r.NormFloat64(), 0.5 * r.NormFloat64()}
	}
	return starts
}

// TestChainModes checks the grouping of chains into modes: chains of
// one normal distribution form one mode, even in 10 dimensions; chains in
// the two modes of twoModes form two, each chain in the right one.
func TestChainModes(t *testing.T) {
	const L = 100
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 2, 10} {
		const C = 12
		pts := make([]float64, C*L*d)
		for i := range pts {
			pts[i] = r.NormFloat64()
		}
		if _, K := chainModes(pts, C, L, d); K != 1 {
			t.Errorf("d = %d: chains of one normal in %d modes, want 1", d, K)
		}
	}
	const C, d = 10, 2
	pts := make([]float64, C*L*d)
	for c := range C {
		cx := 6.0 * float64(c%2) // scaled coordinates: 12 sd apart
		for i := range L {
			pts[(c*L+i)*d] = cx + 0.5*r.NormFloat64()
			pts[(c*L+i)*d+1] = 0.5 * r.NormFloat64()
		}
	}
	mode, K := chainModes(pts, C, L, d)
	if K != 2 {
		t.Fatalf("chains in two separated modes grouped into %d", K)
	}
	for c := range C {
		if mode[c] != c%2 {
			t.Fatalf("chain %d in mode %d, want %d (modes %v)", c, mode[c], c%2, mode)
		}
	}
}

// TestRebalanceManyChains checks that rebalance stays cheap and finds one
// mode with many chains on one normal distribution (300 chains of 40
// draws: 8 draws of each compared, 45,000 pairs at most).
func TestRebalanceManyChains(t *testing.T) {
	const C, per, d = 300, 40, 2
	r := rand.New(rand.NewPCG(21, 22))
	draws := make([]float64, C*per*d)
	for i := range draws {
		draws[i] = r.NormFloat64()
	}
	starts := make([][]float64, C)
	for c := range starts {
		starts[c] = make([]float64, d)
	}
	logp := func(x []float64) float64 { return -(x[0]*x[0] + x[1]*x[1]) / 2 }
	if moved, K := rebalance(logp, draws, starts, per, d, []float64{1, 1}, math.NaN(), r); moved || K != 1 {
		t.Errorf("300 chains on one normal: moved %v, %d modes; want 1 mode", moved, K)
	}
}

// TestSampleAMRebalancesFourModes checks the sharing out on a target like
// SLCP's posterior: four equal modes in 5 dimensions (the signs of
// coordinates 3 and 4, each mode curved in coordinates 1 and 2), with
// 8, 4, 4 and 4 of 20 chains started in them; the draws must hold exactly
// a quarter in each (5 chains per mode; exact in 20 of 20 seeds of a
// sweep).
func TestSampleAMRebalancesFourModes(t *testing.T) {
	const d, C, n = 5, 20, 4000
	centers := [][]float64{{0, 0, 4, 4, 0}, {0, 0, -4, 4, 0}, {0, 0, 4, -4, 0}, {0, 0, -4, -4, 0}}
	logp := func(x []float64) float64 {
		lp := math.Inf(-1)
		for _, c := range centers {
			z := (x[0] - c[0] - 0.3*x[1]*x[1]) / 0.3
			q := z * z
			for k := 1; k < d; k++ {
				z := (x[k] - c[k]) / 0.5
				q += z * z
			}
			lp = logAddExp(lp, -q/2)
		}
		return lp
	}
	r := rand.New(rand.NewPCG(3, 77))
	starts := make([][]float64, C)
	for c := range starts {
		m := centers[0]
		if c >= 8 {
			m = centers[1+(c-8)/4]
		}
		starts[c] = make([]float64, d)
		for k := range d {
			starts[c][k] = m[k] + 0.3*r.NormFloat64()
		}
	}
	run, err := sampleAM(context.Background(), logp, d, starts, []float64{1, 1, 3, 3, 1}, 500, n, 5, 103)
	if err != nil {
		t.Fatal(err)
	}
	count := make([]int, 4)
	for i := range n {
		q := 0
		if run.draws[i*d+2] < 0 {
			q++
		}
		if run.draws[i*d+3] < 0 {
			q += 2
		}
		count[q]++
	}
	if run.groups != 4 || !slices.Equal(count, []int{n / 4, n / 4, n / 4, n / 4}) {
		t.Errorf("draws per mode %v in %d groups, want %d each in 4", count, run.groups, n/4)
	}
}

// TestRebalanceAutocorrelatedChains checks that short, autocorrelated
// chains on one distribution are not split into groups: 10 adaptive
// Metropolis chains of 100 draws thinned by 5 on a 10-dimensional normal
// (split R̂ about 1.3, so sampleAM does look for modes) form one group
// when about as many draws per chain are compared as the chain has
// effective draws; comparing all 100 split them into 9.
func TestRebalanceAutocorrelatedChains(t *testing.T) {
	const d, C, per = 10, 10, 100
	logp, starts, scale := normalChains(rand.New(rand.NewPCG(5, 5100)), d, C)
	run, err := runAM(context.Background(), logp, d, starts, scale, 500, per, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	if converged(run.rhat) || run.ess/C > per/2 {
		t.Fatalf("R̂ %v, ESS %.0f: the test needs unmixed, autocorrelated chains", run.rhat, run.ess)
	}
	if moved, K := rebalance(logp, run.draws, starts, per, d, scale, run.ess, parallel.Stream(1, 0)); moved || K != 1 {
		t.Errorf("chains on one normal: moved %v, %d groups; want 1 group", moved, K)
	}
}

// TestLargestRemainders checks the allocation of chains to modes.
func TestLargestRemainders(t *testing.T) {
	for _, tc := range []struct {
		w    []float64
		C    int
		want []int
	}{
		{[]float64{0.47, 0.53}, 20, []int{9, 11}},
		{[]float64{0.491, 0.509}, 20, []int{10, 10}},
		{[]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, 20, []int{7, 7, 6}},
		{[]float64{0.005, 0.495, 0.5}, 20, []int{0, 10, 10}},
		{[]float64{0.03, 0.97}, 20, []int{1, 19}},
		{[]float64{0, 1}, 4, []int{0, 4}},
	} {
		if got := largestRemainders(tc.w, tc.C); !slices.Equal(got, tc.want) {
			t.Errorf("largestRemainders(%v, %d) = %v, want %v", tc.w, tc.C, got, tc.want)
		}
	}
}

// TestModeMasses checks the importance estimate of the modes' masses on
// twoModes, with 4 chains in the light mode and 4 in the heavy one: the
// estimate of the light mode's mass 0.25 must lie within 0.02 (the
// proposal fits each mode well; the estimate's standard deviation is
// about 0.005, so the band is 4 standard deviations: false-alarm rate
// below 1e-4, and the seed is fixed).
func TestModeMasses(t *testing.T) {
	const C, per, d, L = 8, 200, 2, 100
	r := rand.New(rand.NewPCG(3, 4))
	draws := make([]float64, C*per*d)
	mode := make([]int, C)
	for c := range C {
		cx := -5.0
		if c >= C/2 {
			cx, mode[c] = 5, 1
		}
		for i := range per {
			draws[(c*per+i)*d] = cx + 0.5*r.NormFloat64()
			draws[(c*per+i)*d+1] = 0.5 * r.NormFloat64()
		}
	}
	scale := []float64{1, 1}
	pts := make([]float64, C*L*d)
	for c := range C {
		for i := range L {
			copy(pts[(c*L+i)*d:(c*L+i+1)*d], draws[(c*per+i*per/L)*d:])
		}
	}
	mass, ok := modeMasses(twoModes, draws, mode, 2, per, d, scale, pts, L, parallel.Stream(5, 0))
	if !ok {
		t.Fatal("the estimate was not trusted")
	}
	if math.Abs(mass[0]-0.25) > 0.02 || math.Abs(mass[0]+mass[1]-1) > 1e-12 {
		t.Errorf("masses %v, want 0.25 and 0.75", mass)
	}
}

// TestSampleAMRebalancesModes checks that sampleAM shares its chains
// between the modes of twoModes in proportion to their masses however
// they start: with 15 of 20 chains started in the light mode (mass 0.25)
// the draws must hold 0.75 ± 0.05 in the heavy one (one chain's share of
// tolerance; the mass estimate is within 0.025 of the truth, and so the
// allocation exact, with probability above 1 − 1e-6), and with the
// allocation already right the chains are not moved.
func TestSampleAMRebalancesModes(t *testing.T) {
	const C, n, d = 20, 4000, 2
	r := rand.New(rand.NewPCG(7, 8))
	scale := []float64{3, 1}
	for _, left := range []int{15, 5} {
		starts := modeStarts(r, C, left)
		run, err := sampleAM(context.Background(), twoModes, d, starts, scale, 300, n, 5, 9)
		if err != nil {
			t.Fatal(err)
		}
		heavy := 0
		for i := range n {
			if run.draws[i*d] > 0 {
				heavy++
			}
		}
		if f := float64(heavy) / n; math.Abs(f-0.75) > 0.05 || run.groups != 2 {
			t.Errorf("%d chains started in the light mode: heavy mode's share %.3f in %d groups, want 0.75 in 2", left, f, run.groups)
		}
	}
	// Directly: the right allocation is kept.
	starts := modeStarts(r, C, 5)
	run, err := runAM(context.Background(), twoModes, d, starts, scale, 300, n/C, 5, 11)
	if err != nil {
		t.Fatal(err)
	}
	if moved, K := rebalance(twoModes, run.draws, starts, n/C, d, scale, run.ess, parallel.Stream(12, 0)); moved || K != 2 {
		t.Errorf("rebalance: moved %v, %d modes; want the chains kept in their 2 modes", moved, K)
	}
	starts = modeStarts(r, C, 15)
	run, err = runAM(context.Background(), twoModes, d, starts, scale, 300, n/C, 5, 13)
	if err != nil {
		t.Fatal(err)
	}
	if moved, _ := rebalance(twoModes, run.draws, starts, n/C, d, scale, run.ess, parallel.Stream(14, 0)); !moved {
		t.Fatal("rebalance kept 15 of 20 chains in a mode of mass 0.25")
	}
	left := 0
	for _, s := range starts {
		if s[0] < 0 {
			left++
		}
	}
	if left != 5 {
		t.Errorf("after rebalancing %d chains start in the light mode, want 5", left)
	}
}
