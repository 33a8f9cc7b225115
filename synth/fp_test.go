package synth

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// onGrid reports whether v is an exactly representable multiple of γ (a
// power of two) with |v/γ| < 2^53.
func onGrid(v, gamma float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	k := v / gamma
	return k == math.Trunc(k) && math.Abs(k) < 1<<53 && k*gamma == v
}

// TestFloatingPointDistinguishability releases confidential statistics
// through every synth release path on its default (operating-system
// generator) path and counts outputs impossible under a neighbouring data
// set. The secure lattice release of a neighbour reaches every point of
// the lattice γZ (and, for BIT, the bounds), so an output is
// distinguishing exactly when it is off that set. At least 400,000
// released coordinates per path (40,000 with -short); a textbook
// floating-point Laplace release of the same statistic is the control.
func TestFloatingPointDistinguishability(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	n := 400000
	if testing.Short() {
		n = 40000
	}
	acct := func() Releaser {
		a, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1e9})
		return Releaser{Accountant: a}
	}
	r := rand.New(rand.NewPCG(5, 5))
	gm, _ := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: -4, Hi: 4, RecordBounding: BIT})
	x := []float64{0.3, -1.2, 2.5, 0.7, 1.1, -0.4, 3.9, 0.05}
	g, _ := NewGrid([]float64{-4}, []float64{4}, []int{8})
	samples := []float64{0.1, 0.2, 0.25, 1.5, -2, 3.3, 0.6, 0.61}
	type path struct {
		name  string
		grid  float64
		lo    []float64
		hi    []float64
		draw  func() ([]float64, error)
		count int
	}
	var paths []*path
	for _, b := range []Bounding{BIT, Truncation} {
		s := &SSS{Model: gm, Bounding: b}
		inner := 2.0
		if b == Truncation {
			inner = 1
		}
		lap, st, _ := s.Mechanism(len(x), inner)
		paths = append(paths, &path{name: "SSS " + b.String(), grid: lap.Grid(0), lo: []float64{st[0].Lo}, hi: []float64{st[0].Hi},
			draw: func() ([]float64, error) { out, _, err := s.SanitizeStats(r, x, 2, acct()); return out, err }})
	}
	hl, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 2, Epsilon: 1, Dim: 8})
	paths = append(paths, &path{name: "histogram", grid: hl.Grid(0),
		draw: func() ([]float64, error) {
			p, err := (&HistogramModel{Grid: g}).Sanitize(r, x, 1, acct())
			if err != nil {
				return nil, err
			}
			return p.(*histPosterior).cp.Weights, nil
		}})
	paths = append(paths, &path{name: "predictive SSS", grid: hl.Grid(0),
		draw: func() ([]float64, error) {
			p, err := (&PredictiveSSS{Grid: g}).Sanitize(r, x, 1, acct())
			if err != nil {
				return nil, err
			}
			return p.(statPosterior), nil
		}})
	dl, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: siddmcSens(5, 8), Epsilon: 1, Dim: 8})
	paths = append(paths, &path{name: "SiDD.MC", grid: dl.Grid(0),
		draw: func() ([]float64, error) { return siddmcRelease(r, g, samples, 5, 1, acct()) }})
	sl, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: siphicSens(8, 1, 1, 8), Epsilon: 1, Dim: 8})
	paths = append(paths, &path{name: "SiPHiC", grid: sl.Grid(0),
		draw: func() ([]float64, error) { return siphicRelease(r, g, samples, 1, 1, acct()) }})
	for _, p := range paths {
		coords := 0
		for coords < n {
			out, err := p.draw()
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			for i, v := range out {
				coords++
				if p.lo != nil && (v == p.lo[i] || v == p.hi[i]) {
					continue
				}
				if !onGrid(v, p.grid) {
					p.count++
				}
			}
		}
		t.Logf("%-16s %d of %d released values distinguishable (lattice %g)", p.name, p.count, coords, p.grid)
		if p.count != 0 {
			t.Errorf("%s: %d distinguishable values", p.name, p.count)
		}
	}
	// Control: textbook Laplace (inverse CDF of a float uniform) of the
	// same mean at the SSS BIT scale is flagged.
	off := 0
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	for range 10000 {
		u := r.Float64() - 0.5
		v := m - 0.5*math.Copysign(math.Log1p(-2*math.Abs(u)), u)
		if v > -4 && v < 4 && !onGrid(v, paths[0].grid) {
			off++
		}
	}
	t.Logf("control: %d of 10000 textbook releases flagged", off)
	if off < 9000 {
		t.Errorf("control: only %d of 10000 textbook releases flagged", off)
	}
}
