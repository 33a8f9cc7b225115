package flow

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow/internal/train"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestInvertibility checks InverseTransform(Transform(y)) = y to 1e-10 for
// points inside the tail bound and outside it up to three times the bound
// (standardised units), and that the log-determinants of both directions
// cancel. The random flows are perturbed moderately (log-determinants
// within about ±6). With stronger perturbations, or inputs tens of
// standard deviations out that drive the conditioners to extreme splines,
// the map's derivative falls to e⁻²⁰ or below in places and the inverse is
// ill-conditioned beyond 1e-10 in double precision; the spline package
// tests that regime against its conditioning bound.
func TestInvertibility(t *testing.T) {
	for ci, tc := range gradCases {
		cfg := tc.cfg()
		f := randomFlow(t, cfg, uint64(ci+50), 0.1)
		r := rand.New(rand.NewPCG(uint64(ci), 8))
		n := 300
		y := randData(r, n, cfg.Dim, 2)
		for i := 0; i < 60; i++ { // outside the tail bound, up to three times it
			k := r.IntN(n * cfg.Dim)
			v := cfg.TailBound * (1 + 2*r.Float64())
			if r.IntN(2) == 0 {
				v = -v
			}
			y[k] = f.meanY[k%cfg.Dim] + f.stdY[k%cfg.Dim]*v
		}
		y[0] = f.meanY[0] + f.stdY[0]*cfg.TailBound // exactly on the bound in the first layer
		z := randData(r, n, cfg.ContextDim, 1)
		u, ld := make([]float64, n*cfg.Dim), make([]float64, n)
		y2, ld2 := make([]float64, n*cfg.Dim), make([]float64, n)
		if err := f.Transform(y, z, n, u, ld); err != nil {
			t.Fatal(err)
		}
		if err := f.InverseTransform(u, z, n, y2, ld2); err != nil {
			t.Fatal(err)
		}
		worst, worstLD := 0.0, 0.0
		for i := range y {
			worst = math.Max(worst, math.Abs(y2[i]-y[i])/math.Max(1, math.Abs(y[i])))
		}
		for i := range ld {
			worstLD = math.Max(worstLD, math.Abs(ld[i]+ld2[i]))
		}
		t.Logf("%s: worst |y − T⁻¹(T(y))|/max(1,|y|) = %.2g, worst |logdet + logdet⁻¹| = %.2g", tc.name, worst, worstLD)
		if worst > 1e-10 || worstLD > 1e-9 {
			t.Errorf("%s: inversion error %.3g, log-det mismatch %.3g", tc.name, worst, worstLD)
		}
	}
}

// TestLogDetJacobian compares the log-determinant returned by Transform
// with log|det| of a finite-difference Jacobian of the map y ↦ u.
func TestLogDetJacobian(t *testing.T) {
	for ci, tc := range gradCases {
		cfg := tc.cfg()
		D := cfg.Dim
		f := randomFlow(t, cfg, uint64(ci+70), 0.1)
		r := rand.New(rand.NewPCG(uint64(ci), 9))
		worst := 0.0
		for trial := 0; trial < 10; trial++ {
			y := randData(r, 1, D, 1.5)
			z := randData(r, 1, cfg.ContextDim, 1)
			u, ld := make([]float64, D), make([]float64, 1)
			if err := f.Transform(y, z, 1, u, ld); err != nil {
				t.Fatal(err)
			}
			J := make([]float64, D*D)
			for k := 0; k < D; k++ {
				for j := 0; j < D; j++ {
					J[j*D+k] = testutil.FD5(func() float64 {
						f.Transform(y, z, 1, u, nil)
						return u[j]
					}, y, k, 1e-5)
				}
			}
			worst = math.Max(worst, math.Abs(ld[0]-logAbsDet(J, D)))
		}
		t.Logf("%s: worst |logdet − log|det J_fd|| = %.2g", tc.name, worst)
		if worst > 1e-6 {
			t.Errorf("%s: log-det differs from the numerical Jacobian by %.3g", tc.name, worst)
		}
	}
}

// logAbsDet returns log|det A| by Gaussian elimination with partial
// pivoting (A is modified).
func logAbsDet(a []float64, n int) float64 {
	s := 0.0
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(a[r*n+c]) > math.Abs(a[p*n+c]) {
				p = r
			}
		}
		for k := 0; k < n; k++ {
			a[c*n+k], a[p*n+k] = a[p*n+k], a[c*n+k]
		}
		s += math.Log(math.Abs(a[c*n+c]))
		for r := c + 1; r < n; r++ {
			m := a[r*n+c] / a[c*n+c]
			for k := c; k < n; k++ {
				a[r*n+k] -= m * a[c*n+k]
			}
		}
	}
	return s
}

// TestNormalisation integrates q(y | z) over a 2-D grid for random
// conditioners and contexts; the integral must be 1 within 3e-3 (the
// midpoint rule on a 300×300 grid over ±7 standard deviations has error
// O(h²) ≈ 1e-3 for a density with kinks in its derivative at the spline
// knots; an error in a log-determinant would shift it by far more).
func TestNormalisation(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	cfgs := []Config{smallConfig(2, 3), smallConfig(2, 0)}
	noLU := smallConfig(2, 2)
	noLU.LU = false
	aff := smallConfig(2, 3)
	aff.ContextAffine = true
	cfgs = append(cfgs, noLU, aff)
	for ci, cfg := range cfgs {
		for trial := 0; trial < 1; trial++ {
			f := randomFlow(t, cfg, uint64(100+10*ci+trial), 0.3)
			if f.aff != nil {
				// A moderate shift and scale (|μ| < 1, e^σ ≈ 0.5–2), so
				// that the density stays inside the integration box.
				for i := f.affOff; i < f.affOff+f.aff.NumParams(); i++ {
					f.params[i] *= 0.3
				}
			}
			r := rand.New(rand.NewPCG(uint64(ci), uint64(trial)))
			z0 := randData(r, 1, cfg.ContextDim, 1)
			const m = 300
			lo := []float64{f.meanY[0] - 7*f.stdY[0], f.meanY[1] - 7*f.stdY[1]}
			h := []float64{14 * f.stdY[0] / m, 14 * f.stdY[1] / m}
			y := make([]float64, 2*m)
			z := make([]float64, m*cfg.ContextDim)
			for i := 0; i < m; i++ {
				copy(z[i*cfg.ContextDim:], z0)
			}
			lq := make([]float64, m)
			total := 0.0
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					y[2*j] = lo[0] + (float64(i)+0.5)*h[0]
					y[2*j+1] = lo[1] + (float64(j)+0.5)*h[1]
				}
				if err := f.LogDensityBatch(y, z, m, lq); err != nil {
					t.Fatal(err)
				}
				for _, v := range lq {
					total += math.Exp(v)
				}
			}
			total *= h[0] * h[1]
			t.Logf("config %d trial %d: ∫q = %.6f", ci, trial, total)
			if math.Abs(total-1) > 3e-3 {
				t.Errorf("config %d trial %d: density integrates to %.6f", ci, trial, total)
			}
		}
	}
}

// TestSampleMatchesDensity draws from a random 1-D conditional flow and
// compares the draws with the CDF obtained by integrating LogDensity
// numerically (Kolmogorov–Smirnov, n = 4000; the threshold 1.63/√n is the
// 1% critical value, so the false-alarm rate for a fixed seed is 1%). It
// also checks that SampleLogDensity returns the log-density of its draws.
func TestSampleMatchesDensity(t *testing.T) {
	cfg := smallConfig(1, 2)
	f := randomFlow(t, cfg, 5, 0.4)
	r := rand.New(rand.NewPCG(6, 7))
	z := []float64{0.3, -1.1}
	n := 4000
	ys, lqs := make([]float64, n), make([]float64, n)
	if err := f.SampleLogDensity(r, z, n, ys, lqs); err != nil {
		t.Fatal(err)
	}
	zz := make([]float64, 2*n)
	for i := 0; i < n; i++ {
		copy(zz[2*i:], z)
	}
	lq := make([]float64, n)
	if err := f.LogDensityBatch(ys, zz, n, lq); err != nil {
		t.Fatal(err)
	}
	for i := range lq {
		if math.Abs(lq[i]-lqs[i]) > 1e-9 {
			t.Fatalf("SampleLogDensity log q %v, LogDensity %v", lqs[i], lq[i])
		}
	}
	// CDF on a fine grid by the trapezoid rule.
	const m = 40000
	lo, hi := f.meanY[0]-12*f.stdY[0], f.meanY[0]+12*f.stdY[0]
	h := (hi - lo) / m
	grid, dens := make([]float64, m+1), make([]float64, m+1)
	zg := make([]float64, 2*(m+1))
	for i := range grid {
		grid[i] = lo + float64(i)*h
		copy(zg[2*i:], z)
	}
	if err := f.LogDensityBatch(grid, zg, m+1, dens); err != nil {
		t.Fatal(err)
	}
	cdf := make([]float64, m+1)
	for i := 1; i <= m; i++ {
		cdf[i] = cdf[i-1] + 0.5*h*(math.Exp(dens[i-1])+math.Exp(dens[i]))
	}
	if math.Abs(cdf[m]-1) > 1e-4 {
		t.Fatalf("1-D density integrates to %v", cdf[m])
	}
	sort.Float64s(ys)
	d := 0.0
	for i, v := range ys {
		k := int((v - lo) / h)
		k = max(0, min(k, m-1))
		c := cdf[k] + (cdf[k+1]-cdf[k])*(v-grid[k])/h
		d = math.Max(d, math.Max(math.Abs(c-float64(i)/float64(n)), math.Abs(c-float64(i+1)/float64(n))))
	}
	crit := 1.63 / math.Sqrt(float64(n))
	t.Logf("KS distance %.4f (1%% critical value %.4f)", d, crit)
	if d > crit {
		t.Errorf("samples do not follow the flow's density: KS %.4f > %.4f", d, crit)
	}
}

func TestBadConfig(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	mod := []func(*Config){
		func(c *Config) { c.Layers = 0 },
		func(c *Config) { c.Bins = 1 },
		func(c *Config) { c.Bins = 0 },
		func(c *Config) { c.TailBound = 0 },
		func(c *Config) { c.TailBound = -3 },
		func(c *Config) { c.TailBound = math.NaN() },
		func(c *Config) { c.TailBound = math.Inf(1) },
		func(c *Config) { c.Dim = 0 },
		func(c *Config) { c.ContextDim = -1 },
		func(c *Config) { c.Hidden = 0 },
		func(c *Config) { c.Blocks = -1 },
		func(c *Config) { c.MinBinWidth = 0.2 },
		func(c *Config) { c.MinDerivative = 0 },
	}
	for i, m := range mod {
		c := DefaultConfig(2, 3)
		m(&c)
		if _, err := New(c, r); err == nil || !errors.Is(err, ErrInvalid) {
			t.Errorf("modification %d: New returned %v, want an ErrInvalid error", i, err)
		}
	}
	if _, err := New(DefaultConfig(2, 1), nil); err == nil {
		t.Error("New with nil rand: expected an error")
	}
	// Dimension 1 is supported through the context-only fallback.
	if _, err := New(DefaultConfig(1, 0), r); err != nil {
		t.Errorf("dimension 1: %v", err)
	}
}

func TestBadData(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	cfg := smallConfig(2, 1)
	f, _ := New(cfg, r)
	y := randData(r, 20, 2, 1)
	z := randData(r, 20, 1, 1)
	tc := DefaultTrainConfig()
	tc.MaxEpochs = 1
	for _, c := range []struct {
		y, z []float64
	}{
		{append(append([]float64{}, y[:5]...), append([]float64{math.NaN()}, y[6:]...)...), z},
		{y, append([]float64{math.Inf(1)}, z[1:]...)},
	} {
		if _, err := f.Fit(context.Background(), c.y, c.z, 20, tc); !errors.Is(err, ErrNonFinite) {
			t.Errorf("Fit with non-finite data: %v", err)
		}
	}
	if _, err := f.Fit(context.Background(), y[:10], z, 20, tc); err == nil {
		t.Error("Fit with short y: expected an error")
	}
	bad := []func(*TrainConfig){
		func(c *TrainConfig) { c.LearningRate = 0 },
		func(c *TrainConfig) { c.BatchSize = 0 },
		func(c *TrainConfig) { c.ValidationFraction = 1 },
		func(c *TrainConfig) { c.Patience = 0 },
		func(c *TrainConfig) { c.WeightDecay = -1 },
		func(c *TrainConfig) { c.ClipNorm = math.NaN() },
	}
	for i, m := range bad {
		c := tc
		m(&c)
		if _, err := f.Fit(context.Background(), y, z, 20, c); err == nil {
			t.Errorf("train modification %d: expected an error", i)
		}
	}
	if !math.IsNaN(f.LogDensity([]float64{math.NaN(), 0}, []float64{0})) {
		t.Error("LogDensity of NaN input should be NaN")
	}
	if err := f.Sample(r, []float64{math.NaN()}, 3, make([]float64, 6)); err == nil {
		t.Error("Sample with NaN context: expected an error")
	}
}

// TestDeterminism checks that training results depend on the seed only,
// not on the number of workers.
func TestDeterminism(t *testing.T) {
	cfg := smallConfig(2, 2)
	r := rand.New(rand.NewPCG(3, 3))
	n := 300
	y, z := randData(r, n, 2, 1), randData(r, n, 2, 1)
	var ref []float64
	for _, workers := range []int{1, 2, 3} {
		f, _ := New(cfg, rand.New(rand.NewPCG(9, 9)))
		tc := DefaultTrainConfig()
		tc.MaxEpochs, tc.Workers, tc.Seed, tc.BatchSize = 3, workers, 42, 50
		if _, err := f.Fit(context.Background(), y, z, n, tc); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = append([]float64(nil), f.Params()...)
			continue
		}
		for i, v := range f.Params() {
			if v != ref[i] {
				t.Fatalf("workers=%d: parameter %d = %v, with 1 worker %v", workers, i, v, ref[i])
			}
		}
	}
}

// TestEarlyStoppingRestoresBest trains with a tiny validation set and high
// learning rate so that the validation loss fluctuates, and checks that
// the kept parameters achieve the best recorded validation loss.
func TestEarlyStoppingRestoresBest(t *testing.T) {
	cfg := smallConfig(2, 0)
	r := rand.New(rand.NewPCG(4, 4))
	n := 200
	y := bananaSample(r, n)
	f, _ := New(cfg, r)
	tc := DefaultTrainConfig()
	tc.LearningRate, tc.Patience, tc.MaxEpochs, tc.ValidationFraction, tc.BatchSize = 2e-2, 3, 200, 0.25, 20
	var events []privinfer.Progress
	tc.Progress = func(e privinfer.Progress) { events = append(events, e) }
	res, err := f.Fit(context.Background(), y, nil, n, tc)
	if err != nil {
		t.Fatal(err)
	}
	if !res.EarlyStopped || res.Epochs != len(events) || len(res.ValidationLoss) != res.Epochs || res.Epochs-res.BestEpoch != tc.Patience {
		t.Fatalf("early stopping: %+v after %d progress events", res, len(events))
	}
	for i, e := range events {
		if e.Stage != "epoch" || e.Step != i+1 || e.Total != tc.MaxEpochs || e.Message != train.EpochMessage(res.TrainLoss[i], res.ValidationLoss[i]) {
			t.Fatalf("progress event %d: %+v", i, e)
		}
	}
	best := math.Inf(1)
	for _, v := range res.ValidationLoss {
		best = math.Min(best, v)
	}
	if best != res.BestValidationLoss || res.ValidationLoss[res.BestEpoch-1] != best {
		t.Fatalf("best validation loss %v, result %v", best, res.BestValidationLoss)
	}
	// Recompute the validation loss of the restored parameters.
	perm := rand.New(rand.NewPCG(tc.Seed, 0x9e3779b97f4a7c15)).Perm(n)
	nVal := int(math.Round(tc.ValidationFraction * float64(n)))
	v := 0.0
	for _, j := range perm[:nVal] {
		v -= f.LogDensity(y[2*j:2*j+2], nil)
	}
	v /= float64(nVal)
	if math.Abs(v-best) > 1e-12*math.Max(1, math.Abs(best)) {
		t.Errorf("restored parameters have validation loss %v, best was %v", v, best)
	}
}

// TestStepLossMatchesStep checks that a custom loss equal to the mean
// negative log-likelihood gives exactly the gradient of Step, and that the
// trainer's gradient equals LogDensityGrad's.
func TestStepLossMatchesStep(t *testing.T) {
	cfg := smallConfig(3, 2)
	r := rand.New(rand.NewPCG(5, 5))
	n := 37
	y, z := randData(r, n, 3, 1), randData(r, n, 2, 1)
	f1 := randomFlow(t, cfg, 77, 0.2)
	f2 := randomFlow(t, cfg, 77, 0.2)
	tc := DefaultTrainConfig()
	tc.ClipNorm = 0
	t1, _ := newTrainer(f1, tc)
	defer t1.Close()
	t2, _ := newTrainer(f2, tc)
	defer t2.Close()
	want := make([]float64, f1.NumParams())
	dl := make([]float64, n)
	for i := range dl {
		dl[i] = -1 / float64(n)
	}
	if err := f1.LogDensityGrad(y, z, n, dl, want, nil); err != nil {
		t.Fatal(err)
	}
	l1, err := t1.Step(y, z, n)
	if err != nil {
		t.Fatal(err)
	}
	l2, err := t2.StepLoss(y, z, n, func(lq, d []float64) float64 {
		s := 0.0
		for i := range lq {
			s -= lq[i]
			d[i] = -1 / float64(len(lq))
		}
		return s / float64(len(lq))
	})
	if err != nil {
		t.Fatal(err)
	}
	if l1 != l2 {
		t.Errorf("losses differ: %v vs %v", l1, l2)
	}
	g1, g2 := t1.Gradient(), t2.Gradient()
	for i := range g1 {
		if g1[i] != g2[i] {
			t.Fatalf("gradient %d: Step %v, StepLoss %v", i, g1[i], g2[i])
		}
		if math.Abs(g1[i]-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) {
			t.Fatalf("gradient %d: trainer %v, LogDensityGrad %v", i, g1[i], want[i])
		}
	}
}

func TestSaveLoad(t *testing.T) {
	for _, aff := range []bool{false, true} {
		testSaveLoad(t, aff)
	}
}

// testSaveLoad is TestSaveLoad for a flow with or without a ContextAffine
// layer.
func testSaveLoad(t *testing.T, aff bool) {
	cfg := smallConfig(3, 2)
	cfg.ContextAffine = aff
	f := randomFlow(t, cfg, 8, 0.3)
	f.standardized = true
	var buf bytes.Buffer
	if err := f.Save(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	g, err := Load(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Clone()
	c.Params()[0] += 1 // the clone is independent
	if c.Params()[0] == f.Params()[0] || c.LogDensity(make([]float64, 3), make([]float64, 2)) == f.LogDensity(make([]float64, 3), make([]float64, 2)) {
		t.Error("Clone shares parameters with the original")
	}
	if g.Config() != f.Config() || !g.Standardized() {
		t.Fatalf("config %+v, want %+v", g.Config(), f.Config())
	}
	r := rand.New(rand.NewPCG(1, 1))
	y, z := randData(r, 20, 3, 1), randData(r, 20, 2, 1)
	a, b := make([]float64, 20), make([]float64, 20)
	f.LogDensityBatch(y, z, 20, a)
	g.LogDensityBatch(y, z, 20, b)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("log q differs after load: %v vs %v", a[i], b[i])
		}
	}
	// Every single-byte corruption and every truncation must be rejected.
	for i := 0; i < len(data); i += 7 {
		c := append([]byte(nil), data...)
		c[i] ^= 0x5a
		if _, err := Load(bytes.NewReader(c)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("corrupted byte %d: Load returned %v", i, err)
		}
	}
	for _, k := range []int{0, 5, 40, len(data) / 2, len(data) - 1} {
		if _, err := Load(bytes.NewReader(data[:k])); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d bytes: Load returned %v", k, err)
		}
	}
	if _, err := Load(bytes.NewReader(append(append([]byte(nil), data...), 0))); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("trailing byte: Load returned %v", err)
	}
}

// FuzzLoad feeds arbitrary bytes to Load; with fixCRC the checksum of the
// fuzzed bytes is recomputed first, so that mutations reach the validation
// behind it. Load must refuse the file or return a flow whose density and
// samples are finite.
func FuzzLoad(f *testing.F) {
	fl := randomFlow(f, smallConfig(2, 1), 1, 0.1)
	var buf bytes.Buffer
	fl.Save(&buf)
	f.Add(buf.Bytes(), false)
	f.Add(buf.Bytes(), true)
	ac := smallConfig(2, 1)
	ac.ContextAffine = true
	buf.Reset()
	randomFlow(f, ac, 2, 0.1).Save(&buf)
	f.Add(buf.Bytes(), true)
	f.Add(savedFlow(f), true)
	f.Add([]byte(fileMagic), true)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, data []byte, fixCRC bool) {
		if fixCRC && len(data) >= 4 {
			data = append([]byte(nil), data...)
			binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.ChecksumIEEE(data[:len(data)-4]))
		}
		checkLoaded(t, data)
	})
}

func TestNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	for _, aff := range []bool{false, true} {
		testNoAllocs(t, aff)
	}
}

// testNoAllocs is TestNoAllocs for a flow with or without a ContextAffine
// layer.
func testNoAllocs(t *testing.T, aff bool) {
	cfg := smallConfig(2, 3)
	cfg.ContextAffine = aff
	f := randomFlow(t, cfg, 1, 0.1)
	r := rand.New(rand.NewPCG(1, 1))
	n := 50
	y, z := randData(r, n, 2, 1), randData(r, n, 3, 1)
	dst := make([]float64, n)
	f.LogDensityBatch(y, z, n, dst)
	if a := testing.AllocsPerRun(5, func() { f.LogDensityBatch(y, z, n, dst) }); a != 0 {
		t.Errorf("LogDensityBatch allocates %v times per call", a)
	}
	if a := testing.AllocsPerRun(5, func() { f.LogDensity(y[:2], z[:3]) }); a != 0 {
		t.Errorf("LogDensity allocates %v times per call", a)
	}
	for _, w := range []int{1, 2} {
		tc := DefaultTrainConfig()
		tc.Workers = w
		tr, _ := newTrainer(f, tc)
		tr.Step(y, z, n)
		if a := testing.AllocsPerRun(5, func() { tr.Step(y, z, n) }); a != 0 {
			t.Errorf("Trainer.Step with %d workers allocates %v times per step", w, a)
		}
		tr.Close()
	}
}

// TestLUGradient checks the LU-linear layer on its own: the gradient of
// Σ R ⊙ (W x + b) + Σ_i w_i log|det W| with respect to the layer's
// parameters and its input x, against central differences.
func TestLUGradient(t *testing.T) {
	for _, D := range []int{1, 2, 3, 5} {
		cfg := smallConfig(D, 0)
		cfg.Layers = 1
		f := randomFlow(t, cfg, uint64(D), 0.5)
		r := rand.New(rand.NewPCG(uint64(D), 3))
		n := 4
		w := f.newWork(n)
		w.n = n
		x := randData(r, n, D, 1.5)
		R := randData(r, n, D, 1)
		wt := randData(r, n, 1, 1)
		loss := func() float64 {
			copy(w.hc[0], x)
			clear(w.ld)
			f.luForward(w, 0)
			s := 0.0
			for i := 0; i < n; i++ {
				s += wt[i] * w.ld[i]
				for d := 0; d < D; d++ {
					s += R[i*D+d] * w.h[1][i*D+d]
				}
			}
			return s
		}
		loss()
		grad := make([]float64, f.NumParams())
		g := append([]float64(nil), R...)
		sumW := 0.0
		for _, v := range wt {
			sumW += v
		}
		f.luBackward(w, 0, g, sumW, grad, false)
		off := f.layers[0].luOff
		worst := 0.0
		rel := func(a, b float64) float64 {
			return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-4)
		}
		for i := off; i < off+D*D+D; i++ {
			worst = math.Max(worst, rel(grad[i], testutil.FD5(loss, f.params, i, 1e-4)))
		}
		for i := range x {
			worst = math.Max(worst, rel(g[i], testutil.FD5(loss, x, i, 1e-4)))
		}
		t.Logf("LU D=%d: worst rel. error %.2g", D, worst)
		if worst > 1e-6 {
			t.Errorf("LU D=%d: worst relative gradient error %.3g", D, worst)
		}
	}
}

// atomicLoss is an APT-style contrastive loss over groups of m rows:
// ℓ = −(1/G) Σ_g log softmax(log q_{g,·})_0, a non-linear function of the
// log-densities, with its partial derivatives.
func atomicLoss(m int) train.LossFunc {
	return func(lq, d []float64) float64 {
		G := len(lq) / m
		l := 0.0
		for g := 0; g < G; g++ {
			row := lq[g*m : (g+1)*m]
			mx := math.Inf(-1)
			for _, v := range row {
				mx = math.Max(mx, v)
			}
			s := 0.0
			for _, v := range row {
				s += math.Exp(v - mx)
			}
			lse := mx + math.Log(s)
			l -= (row[0] - lse) / float64(G)
			for j, v := range row {
				d[g*m+j] = math.Exp(v-lse) / float64(G)
			}
			d[g*m] -= 1 / float64(G)
		}
		return l
	}
}

// TestStepLossNonlinearGradient checks the gradient that StepLoss applies
// for a non-linear loss of the log-densities (the atomic loss above)
// against central differences of the loss itself, on every third
// parameter.
func TestStepLossNonlinearGradient(t *testing.T) {
	cfg := smallConfig(2, 2)
	f := randomFlow(t, cfg, 31, 0.2)
	r := rand.New(rand.NewPCG(8, 8))
	m, G := 4, 3
	n := m * G
	y, z := randData(r, n, 2, 1), randData(r, n, 2, 1)
	loss := atomicLoss(m)
	lq, d := make([]float64, n), make([]float64, n)
	value := func() float64 {
		f.LogDensityBatch(y, z, n, lq)
		return loss(lq, d)
	}
	tc := DefaultTrainConfig()
	tc.ClipNorm = 0
	tc.LearningRate = 1e-300 // keep the parameters (numerically) unchanged
	tc.WeightDecay = 0
	tr, _ := newTrainer(f, tc)
	defer tr.Close()
	before := append([]float64(nil), f.Params()...)
	if _, err := tr.StepLoss(y, z, n, loss); err != nil {
		t.Fatal(err)
	}
	copy(f.Params(), before)
	g := tr.Gradient()
	worst := 0.0
	for i := 0; i < f.NumParams(); i += 3 {
		num := testutil.FD5(value, f.params, i, 1e-4)
		worst = math.Max(worst, math.Abs(num-g[i])/math.Max(math.Max(math.Abs(num), math.Abs(g[i])), 1e-4))
	}
	t.Logf("atomic loss: worst rel. gradient error %.2g", worst)
	if worst > 1e-6 {
		t.Errorf("StepLoss gradient for a non-linear loss: worst relative error %.3g", worst)
	}
}

func TestFitCancel(t *testing.T) {
	f := randomFlow(t, smallConfig(2, 0), 1, 0)
	r := rand.New(rand.NewPCG(1, 1))
	y := randData(r, 100, 2, 1)
	before := append([]float64(nil), f.Params()...)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.Fit(ctx, y, nil, 100, DefaultTrainConfig()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Fit with a cancelled context returned %v", err)
	}
	for i, v := range f.Params() {
		if v != before[i] {
			t.Fatal("Fit with a cancelled context changed the parameters")
		}
	}
}

// TestTrainConfigValidate checks that the default training settings are
// valid and that each invalid field gives an error wrapping ErrInvalid that
// names it.
func TestTrainConfigValidate(t *testing.T) {
	if err := DefaultTrainConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for field, mod := range map[string]func(*TrainConfig){
		"LearningRate":       func(c *TrainConfig) { c.LearningRate = math.NaN() },
		"WeightDecay":        func(c *TrainConfig) { c.WeightDecay = -1 },
		"BatchSize":          func(c *TrainConfig) { c.BatchSize = 0 },
		"MaxEpochs":          func(c *TrainConfig) { c.MaxEpochs = 0 },
		"Patience":           func(c *TrainConfig) { c.Patience = 0 },
		"ValidationFraction": func(c *TrainConfig) { c.ValidationFraction = 1 },
		"ClipNorm":           func(c *TrainConfig) { c.ClipNorm = math.Inf(1) },
		"Shards":             func(c *TrainConfig) { c.Shards = 1 << 13 },
		"Workers":            func(c *TrainConfig) { c.Workers = -1 },
	} {
		c := DefaultTrainConfig()
		mod(&c)
		if err := c.Validate(); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "TrainConfig."+field) {
			t.Errorf("%s: error %v", field, err)
		}
	}
}

// TestLURowsUnrolled checks that the unrolled LU loops of the dimensions 2
// and 3 give the general loops' results bit for bit, forward and backward.
func TestLURowsUnrolled(t *testing.T) {
	for _, D := range []int{2, 3} {
		r := rand.New(rand.NewPCG(uint64(D), 9))
		const n = 37
		W, b := randData(r, D, D, 1), randData(r, 1, D, 1)
		src := randData(r, n, D, 2)
		next1, next2 := make([]float64, n*D), make([]float64, n*D)
		ld1, ld2 := randData(r, n, 1, 1), make([]float64, n)
		copy(ld2, ld1)
		if !luRows(D, n, W, b, src, next1, ld1, 0.3) {
			t.Fatalf("D=%d: luRows did not handle it", D)
		}
		luRowsRef(D, n, W, b, src, next2, ld2, 0.3)
		g1 := randData(r, n, D, 1)
		g1[0] = math.Copysign(0, -1) // a −0 must give the same sums too
		g2 := append([]float64(nil), g1...)
		gW1, gb1 := randData(r, D, D, 1), randData(r, 1, D, 1)
		gW2, gb2 := append([]float64(nil), gW1...), append([]float64(nil), gb1...)
		if !luBackRows(D, n, W, src, g1, gW1, gb1) {
			t.Fatalf("D=%d: luBackRows did not handle it", D)
		}
		luBackRowsAny(D, n, W, src, g2, gW2, gb2, make([]float64, D))
		for name, p := range map[string][2][]float64{"next": {next1, next2}, "ld": {ld1, ld2}, "g": {g1, g2}, "gW": {gW1, gW2}, "gb": {gb1, gb2}} {
			for i := range p[0] {
				if math.Float64bits(p[0][i]) != math.Float64bits(p[1][i]) {
					t.Errorf("D=%d %s[%d]: unrolled %v, general %v", D, name, i, p[0][i], p[1][i])
				}
			}
		}
	}
}

// TestLUBackCols checks that the reordered LU backward loop gives the
// general loop's results bit for bit, for several dimensions.
func TestLUBackCols(t *testing.T) {
	for _, D := range []int{1, 2, 3, 5, 9, 10, 17} {
		r := rand.New(rand.NewPCG(uint64(D), 10))
		const n = 41
		W, x := randData(r, D, D, 1), randData(r, n, D, 2)
		g1 := randData(r, n, D, 1)
		g1[0] = math.Copysign(0, -1)
		g2 := append([]float64(nil), g1...)
		gW1, gb1 := randData(r, D, D, 1), randData(r, 1, D, 1)
		gW2, gb2 := append([]float64(nil), gW1...), append([]float64(nil), gb1...)
		luBackCols(D, n, W, x, g1, gW1, gb1, make([]float64, D*D), make([]float64, D))
		luBackRowsAny(D, n, W, x, g2, gW2, gb2, make([]float64, D))
		for name, p := range map[string][2][]float64{"g": {g1, g2}, "gW": {gW1, gW2}, "gb": {gb1, gb2}} {
			for i := range p[0] {
				if math.Float64bits(p[0][i]) != math.Float64bits(p[1][i]) {
					t.Errorf("D=%d %s[%d]: reordered %v, general %v", D, name, i, p[0][i], p[1][i])
				}
			}
		}
	}
}

// luBackRowsAny is luBackward's loop over the rows for any dimension as
// it was written first, the reference of the faster loops: it
// adds g_i into gb and g_i x_iᵀ into gW over the rows in order, and
// replaces g_i by Wᵀ g_i (tmp holds D values of scratch).
func luBackRowsAny(D, n int, W, x, g, gW, gb, tmp []float64) {
	for i := 0; i < n; i++ {
		gi := g[i*D : i*D+D]
		xi := x[i*D : i*D+D]
		for j := 0; j < D; j++ {
			gb[j] += gi[j]
			for k := 0; k < D; k++ {
				gW[j*D+k] += gi[j] * xi[k]
			}
		}
		// input gradient: Wᵀ g
		for k := 0; k < D; k++ {
			s := 0.0
			for j := 0; j < D; j++ {
				s += W[j*D+k] * gi[j]
			}
			tmp[k] = s
		}
		copy(gi, tmp)
	}
}

// luRowsRef is luForward's loop over the rows as it was written first, the
// reference of luRowsAny and luRows.
func luRowsRef(D, n int, W, b, src, next, ld []float64, ldw float64) {
	for i := 0; i < n; i++ {
		x := src[i*D : i*D+D]
		o := next[i*D : i*D+D]
		for j := 0; j < D; j++ {
			s := b[j]
			wr := W[j*D : j*D+D]
			for k, xk := range x {
				s += wr[k] * xk
			}
			o[j] = s
		}
		ld[i] += ldw
	}
}

// TestLURowsAny checks that luRowsAny gives the first loop's results bit
// for bit, for several dimensions.
func TestLURowsAny(t *testing.T) {
	for _, D := range []int{1, 2, 3, 4, 5, 9, 10, 17} {
		r := rand.New(rand.NewPCG(uint64(D), 11))
		const n = 29
		W, b, src := randData(r, D, D, 1), randData(r, 1, D, 1), randData(r, n, D, 2)
		n1, n2 := make([]float64, n*D), make([]float64, n*D)
		l1 := randData(r, n, 1, 1)
		l2 := append([]float64(nil), l1...)
		luRowsAny(D, n, W, b, src, n1, l1, 0.7)
		luRowsRef(D, n, W, b, src, n2, l2, 0.7)
		for i := range n1 {
			if math.Float64bits(n1[i]) != math.Float64bits(n2[i]) {
				t.Errorf("D=%d next[%d]: %v, first loop %v", D, i, n1[i], n2[i])
			}
		}
		for i := range l1 {
			if l1[i] != l2[i] {
				t.Errorf("D=%d ld[%d]: %v, first loop %v", D, i, l1[i], l2[i])
			}
		}
	}
}
