package sgd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// Privacy audit of the per-user release. For neighbouring gradients g, g'
// and an output event E, (ε, δ)-LDP requires
//
//	P(R(g) ∈ E) ≤ e^ε P(R(g') ∈ E) + δ   (and with g, g' swapped).
//
// From n releases on each side, Clopper–Pearson intervals at level 1e-6
// give the empirical lower bound ε_lb = log((lo(P(R(g)∈E)) − δ)/hi(P(R(g')∈E))),
// maximised over the events E_k = {R_1 ≥ t_k} for five thresholds, their
// complements and both orders (20 comparisons): for a correct randomizer
// ε_lb > ε has probability below ~2e-5 per audit. The worst neighbours
// are gradients clipped to opposite points of the sphere: g = 5·e1 and
// g' = −5·e1 (clipped to ±C·e1, distance 2C). The thresholds put
// P(R(g') ∈ E_k) at 10%, 3%, 1%, 0.3% and 0.1%. Each audit is paired with
// mis-calibrated randomizers (no clipping, or noise calibrated for
// sensitivity C instead of 2C) that the same audit must catch. Draws come
// from seeded generators through ReleaseSeeded, the same law as Release's.
const auditAlpha = 1e-6

// auditEpsilon draws n releases per side (release(r, side) returns the
// audited coordinate) and returns ε_lb over the events {x ≥ t_k}.
func auditEpsilon(n int, seed uint64, delta float64, thresholds []float64, release func(r *rand.Rand, side int) float64) float64 {
	k := make([][2]int64, len(thresholds))
	for side := range 2 {
		r := rand.New(rand.NewPCG(seed, uint64(side)+1))
		for range n {
			v := release(r, side)
			for i, t := range thresholds {
				if v >= t {
					k[i][side]++
				}
			}
		}
	}
	nn := int64(n)
	lb := math.Inf(-1)
	for _, ki := range k {
		for _, kk := range [][2]int64{{ki[0], ki[1]}, {nn - ki[0], nn - ki[1]}} {
			lo0, hi0 := stats.ClopperPearson(kk[0], nn, auditAlpha)
			lo1, hi1 := stats.ClopperPearson(kk[1], nn, auditAlpha)
			lb = math.Max(lb, math.Log((lo0-delta)/hi1))
			lb = math.Max(lb, math.Log((lo1-delta)/hi0))
		}
	}
	return lb
}

func runAudit(t *testing.T, n int, seed uint64) {
	const d = 2
	for i, c := range []struct {
		eps, delta, clip float64
		bad              string // "", "noclip" or "halfsens"
	}{
		{1, 1e-5, 1, ""},
		{0.3, 1e-5, 1, ""},
		{4, 1e-6, 0.5, ""},
		{1, 1e-5, 1, "noclip"},
		{1, 1e-5, 1, "halfsens"},
	} {
		rz, err := NewRandomizer(c.eps, c.delta, c.clip, d)
		if err != nil {
			t.Fatal(err)
		}
		claimed := rz.Budget()
		clip := c.clip
		switch c.bad {
		case "noclip":
			rz.clip = 5 // releases the raw gradient with noise calibrated for clipping at C = 1
			clip = 5
		case "halfsens":
			half, err := NewRandomizer(c.eps, c.delta, c.clip/2, d)
			if err != nil {
				t.Fatal(err)
			}
			rz.g = half.g // noise for sensitivity C instead of 2C
		}
		sg := rz.NoiseSigma()
		var thr []float64
		for _, z := range []float64{1.2816, 1.8808, 2.3263, 2.7478, 3.0902} { // upper 10%, 3%, 1%, 0.3%, 0.1% points
			thr = append(thr, -clip+z*sg)
		}
		g0 := []float64{5, 0}
		g1 := []float64{-5, 0}
		dst := make([]float64, d)
		release := func(r *rand.Rand, side int) float64 {
			g := g0
			if side == 1 {
				g = g1
			}
			if err := rz.ReleaseSeeded(r, g, dst); err != nil {
				panic(err)
			}
			return dst[0]
		}
		lb := auditEpsilon(n, seed+uint64(i)*7919, claimed.Delta, thr, release)
		t.Logf("LDP-SGD randomizer ε = %g, δ = %g, C = %g %-8s: empirical ε_lb = %.4f (n = %d per side)", c.eps, c.delta, c.clip, c.bad, lb, n)
		if c.bad != "" {
			if !(lb > claimed.Epsilon) {
				t.Errorf("%s: the audit failed to detect the mis-calibration (ε_lb = %v ≤ %v)", c.bad, lb, claimed.Epsilon)
			}
			continue
		}
		if lb > claimed.Epsilon {
			t.Errorf("ε = %v: empirical lower bound %v exceeds the claimed ε", c.eps, lb)
		}
	}
}

// TestRandomizerAudit runs each audit with 3e5 releases per side.
func TestRandomizerAudit(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	runAudit(t, 300_000, 1)
}

// TestRandomizerAuditLong repeats the audits with 4e6 releases per side.
func TestRandomizerAuditLong(t *testing.T) {
	testutil.Long(t)
	runAudit(t, 4_000_000, 77)
}

// Every user releases exactly once, whatever the number of steps, so the
// protocol's budget is each release's.
func TestEachUserReleasesOnce(t *testing.T) {
	x, y := logisticData(1003, []float64{1, -2, 0.5}, 1)
	count := make([]int, len(y))
	res, err := train(context.Background(), x, y, 3, Config{Loss: Logistic, Epsilon: 1, Delta: 1e-5, GroupSize: 10, SeededNoise: true, Seed: 2}, func(u int) { count[u]++ })
	if err != nil {
		t.Fatal(err)
	}
	released := 0
	for u, c := range count {
		if c > 1 {
			t.Fatalf("user %d released %d times", u, c)
		}
		released += c
	}
	if res.Steps != 100 || released != res.Steps*res.GroupSize {
		t.Errorf("steps %d, group %d, releases %d", res.Steps, res.GroupSize, released)
	}
	if res.Budget.Epsilon != 1 || res.Budget.Delta != 1e-5 {
		t.Errorf("budget %v, want (1, 1e-5)", res.Budget)
	}
}

func logisticData(n int, theta []float64, seed uint64) (x, y []float64) {
	d := len(theta)
	r := rand.New(rand.NewPCG(seed, 99))
	x = make([]float64, n*d)
	y = make([]float64, n)
	for i := range n {
		u := 0.0
		for j := range d {
			x[i*d+j] = 0.5 * r.NormFloat64()
			u += theta[j] * x[i*d+j]
		}
		if r.Float64() < 1/(1+math.Exp(-u)) {
			y[i] = 1
		}
	}
	return x, y
}

// With ε = 1000 (near the calibrated Gaussian's upper limit) the noise
// nearly vanishes and LDP-SGD is plain SGD with clipped gradients: it
// recovers the coefficients of a large simulated data set (logistic:
// within 0.15 of θ; linear: within 0.05).
func TestTrainConvergesWithoutNoise(t *testing.T) {
	theta := []float64{1.5, -1, 0.5}
	x, y := logisticData(60000, theta, 3)
	res, err := Train(context.Background(), x, y, 3, Config{Loss: Logistic, Epsilon: 1000, Delta: 1e-5, GroupSize: 20, LearningRate: 5, Seed: 4, SeededNoise: true})
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range theta {
		if math.Abs(res.Average[j]-v) > 0.15 {
			t.Errorf("logistic θ%d: averaged iterate %v, truth %v", j, res.Average[j], v)
		}
	}
	// Linear: y = θᵀx + N(0, 0.1²).
	r := rand.New(rand.NewPCG(5, 6))
	ly := make([]float64, len(y))
	for i := range ly {
		for j := range theta {
			ly[i] += theta[j] * x[i*3+j]
		}
		ly[i] += 0.1 * r.NormFloat64()
	}
	res, err = Train(context.Background(), x, ly, 3, Config{Loss: Squared, Epsilon: 1000, Delta: 1e-5, GroupSize: 20, LearningRate: 2, Seed: 4, SeededNoise: true})
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range theta {
		if math.Abs(res.Theta[j]-v) > 0.05 {
			t.Errorf("linear θ%d: final iterate %v, truth %v", j, res.Theta[j], v)
		}
	}
}

// SeededNoise reproduces a run exactly; the default draws the noise from
// the operating system, so two runs with the same seed differ.
func TestSeededNoiseAndDefault(t *testing.T) {
	x, y := logisticData(2000, []float64{1, -1}, 7)
	cfg := Config{Loss: Logistic, Epsilon: 1, Delta: 1e-5, Seed: 8, SeededNoise: true}
	a, err := Train(context.Background(), x, y, 2, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Train(context.Background(), x, y, 2, cfg)
	for j := range a.Theta {
		if a.Theta[j] != b.Theta[j] {
			t.Fatalf("seeded runs differ: %v vs %v", a.Theta, b.Theta)
		}
	}
	cfg.SeededNoise = false
	c, _ := Train(context.Background(), x, y, 2, cfg)
	e, _ := Train(context.Background(), x, y, 2, cfg)
	if c.Theta[0] == e.Theta[0] && c.Theta[1] == e.Theta[1] {
		t.Errorf("two runs with operating-system noise gave identical models %v", c.Theta)
	}
	rz, _ := NewRandomizer(1, 1e-5, 1, 2)
	d1, d2 := make([]float64, 2), make([]float64, 2)
	seeded := rand.New(rand.NewPCG(1, 1))
	if err := rz.Release(seeded, []float64{0.3, 0.1}, d1); err != nil {
		t.Fatal(err)
	}
	seeded = rand.New(rand.NewPCG(1, 1))
	if err := rz.Release(seeded, []float64{0.3, 0.1}, d2); err != nil {
		t.Fatal(err)
	}
	if d1[0] == d2[0] && d1[1] == d2[1] {
		t.Error("Release drew the same noise from two equally seeded generators: it must ignore them")
	}
}

// The released noise has the calibrated standard deviation: the sample
// variance of 20000 releases of a zero gradient lies within 5% of σ²
// (about 7 standard errors).
func TestRandomizerNoiseScale(t *testing.T) {
	rz, _ := NewRandomizer(2, 1e-5, 1, 1)
	r := rand.New(rand.NewPCG(3, 3))
	xs := make([]float64, 20000)
	dst := make([]float64, 1)
	for i := range xs {
		if err := rz.ReleaseSeeded(r, []float64{0}, dst); err != nil {
			t.Fatal(err)
		}
		xs[i] = dst[0]
	}
	if v, s2 := stats.Variance(xs), rz.NoiseSigma()*rz.NoiseSigma(); math.Abs(v/s2-1) > 0.05 {
		t.Errorf("noise variance %v, want %v", v, s2)
	}
}

func TestTrainBadInput(t *testing.T) {
	x, y := logisticData(100, []float64{1, -1}, 1)
	good := Config{Loss: Logistic, Epsilon: 1, Delta: 1e-5}
	ctx := context.Background()
	for name, c := range map[string]Config{
		"no loss":     {Epsilon: 1, Delta: 1e-5},
		"eps 0":       {Loss: Logistic, Delta: 1e-5},
		"eps NaN":     {Loss: Logistic, Epsilon: math.NaN(), Delta: 1e-5},
		"delta 0":     {Loss: Logistic, Epsilon: 1},
		"delta 1":     {Loss: Logistic, Epsilon: 1, Delta: 1},
		"clip < 0":    {Loss: Logistic, Epsilon: 1, Delta: 1e-5, Clip: -1},
		"group < 0":   {Loss: Logistic, Epsilon: 1, Delta: 1e-5, GroupSize: -1},
		"group > N":   {Loss: Logistic, Epsilon: 1, Delta: 1e-5, GroupSize: 101},
		"rate NaN":    {Loss: Logistic, Epsilon: 1, Delta: 1e-5, LearningRate: math.NaN()},
		"radius Inf":  {Loss: Logistic, Epsilon: 1, Delta: 1e-5, Radius: math.Inf(1)},
		"init length": {Loss: Logistic, Epsilon: 1, Delta: 1e-5, Init: []float64{1}},
		"init NaN":    {Loss: Logistic, Epsilon: 1, Delta: 1e-5, Init: []float64{1, math.NaN()}},
	} {
		if _, err := Train(ctx, x, y, 2, c); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", name, err)
		}
	}
	if _, err := Train(ctx, x, y, 0, good); !errors.Is(err, ErrInvalid) {
		t.Errorf("d = 0: err = %v", err)
	}
	if _, err := Train(ctx, x[:5], y, 2, good); !errors.Is(err, ErrInvalid) {
		t.Errorf("short x: err = %v", err)
	}
	if _, err := Train(ctx, nil, nil, 2, good); !errors.Is(err, ErrInvalid) {
		t.Errorf("no data: err = %v", err)
	}
	bad := append([]float64(nil), y...)
	bad[3] = 0.5
	if _, err := Train(ctx, x, bad, 2, good); !errors.Is(err, ErrInvalid) {
		t.Errorf("label 0.5: err = %v", err)
	}
	bx := append([]float64(nil), x...)
	bx[7] = math.Inf(-1)
	if _, err := Train(ctx, bx, y, 2, good); !errors.Is(err, ErrInvalid) {
		t.Errorf("infinite x: err = %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Train(cctx, x, y, 2, good); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err = %v", err)
	}
	if _, err := NewRandomizer(1, 1e-5, 0, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("clip 0: err = %v", err)
	}
	if _, err := NewRandomizer(0, 1e-5, 1, 2); !errors.Is(err, ErrInvalid) {
		t.Errorf("eps 0: err = %v", err)
	}
	if _, err := NewRandomizer(1, 1e-5, 1, 0); !errors.Is(err, ErrInvalid) {
		t.Errorf("d 0: err = %v", err)
	}
	rz, _ := NewRandomizer(1, 1e-5, 1, 2)
	if err := rz.Release(nil, []float64{1}, make([]float64, 2)); !errors.Is(err, ErrInvalid) {
		t.Errorf("short gradient: err = %v", err)
	}
	if err := rz.Release(nil, []float64{1, math.NaN()}, make([]float64, 2)); !errors.Is(err, ErrInvalid) {
		t.Errorf("NaN gradient: err = %v", err)
	}
	if err := rz.ReleaseSeeded(nil, []float64{1, 0}, make([]float64, 2)); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil generator: err = %v", err)
	}
	var zero Randomizer
	if err := zero.Release(nil, []float64{1, 0}, make([]float64, 2)); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero Randomizer: err = %v", err)
	}
	if zero.Budget() != (mechanism.Budget{}) || !math.IsNaN(zero.NoiseSigma()) {
		t.Error("zero Randomizer: want empty budget and NaN sigma")
	}
}

func BenchmarkTrain(b *testing.B) {
	x, y := logisticData(10000, []float64{1, -1, 0.5, 0.2, -0.3}, 1)
	cfg := Config{Loss: Logistic, Epsilon: 1, Delta: 1e-5, Seed: 1, SeededNoise: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Train(context.Background(), x, y, 5, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReleaseFloatingPointDistinguishability: every coordinate of a
// default release (secure lattice Gaussian, operating-system generator)
// lies on the mechanism's lattice, which every other user's clipped
// gradient reaches with positive probability, so no release is impossible
// under a neighbouring input. 100,000 releases (10,000 with -short); a
// textbook floating-point release is the control.
func TestReleaseFloatingPointDistinguishability(t *testing.T) {
	n := 100000
	if testing.Short() {
		n = 10000
	}
	rz, err := NewRandomizer(1, 1e-5, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	gamma := rz.g.Grid()
	on := func(v float64) bool {
		k := v / gamma
		return !math.IsNaN(v) && !math.IsInf(v, 0) && k == math.Trunc(k) && math.Abs(k) < 1<<53 && k*gamma == v
	}
	dst := make([]float64, 3)
	off := 0
	for i := range n {
		g := []float64{0.37 + float64(i%7)*0.3, -0.11 * float64(i%5), 2.5}
		if err := rz.Release(nil, g, dst); err != nil {
			t.Fatal(err)
		}
		for _, v := range dst {
			if !on(v) {
				off++
			}
		}
	}
	if off != 0 {
		t.Errorf("%d of %d released coordinates off the lattice", off, 3*n)
	}
	r := rand.New(rand.NewPCG(1, 1))
	ctl := 0
	for range 10000 {
		if !on(0.37/math.Sqrt(1.37) + rz.NoiseSigma()*r.NormFloat64()) {
			ctl++
		}
	}
	if ctl < 9000 {
		t.Errorf("control: only %d of 10000 textbook releases flagged", ctl)
	}
}
