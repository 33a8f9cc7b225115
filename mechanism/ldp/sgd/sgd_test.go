package sgd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// Every user releases exactly once, whatever the number of steps, so the
// protocol's budget is each release's.
func TestEachUserReleasesOnce(t *testing.T) {
	x, y := logisticData(1003, []float64{1, -2, 0.5}, 1)
	count := make([]int, len(y))
	res, err := train(context.Background(), x, y, 3, Config{Loss: Logistic, Epsilon: 1, Delta: 1e-5, GroupSize: 10, Reproducible: true, Seed: 2}, func(u int) { count[u]++ })
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
	res, err := Train(context.Background(), x, y, 3, Config{Loss: Logistic, Epsilon: 1000, Delta: 1e-5, GroupSize: 20, LearningRate: 5, Seed: 4, Reproducible: true})
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
	res, err = Train(context.Background(), x, ly, 3, Config{Loss: Squared, Epsilon: 1000, Delta: 1e-5, GroupSize: 20, LearningRate: 2, Seed: 4, Reproducible: true})
	if err != nil {
		t.Fatal(err)
	}
	for j, v := range theta {
		if math.Abs(res.Theta[j]-v) > 0.05 {
			t.Errorf("linear θ%d: final iterate %v, truth %v", j, res.Theta[j], v)
		}
	}
}

// Config.Reproducible reproduces a run exactly; the default draws the noise from
// the operating system, so two runs with the same seed differ.
func TestReproducibleAndDefault(t *testing.T) {
	x, y := logisticData(2000, []float64{1, -1}, 7)
	cfg := Config{Loss: Logistic, Epsilon: 1, Delta: 1e-5, Seed: 8, Reproducible: true}
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
	cfg.Reproducible = false
	c, _ := Train(context.Background(), x, y, 2, cfg)
	e, _ := Train(context.Background(), x, y, 2, cfg)
	if c.Theta[0] == e.Theta[0] && c.Theta[1] == e.Theta[1] {
		t.Errorf("two runs with operating-system noise gave identical models %v", c.Theta)
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
}

func BenchmarkTrain(b *testing.B) {
	x, y := logisticData(10000, []float64{1, -1, 0.5, 0.2, -0.3}, 1)
	cfg := Config{Loss: Logistic, Epsilon: 1, Delta: 1e-5, Seed: 1, Reproducible: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Train(context.Background(), x, y, 5, cfg); err != nil {
			b.Fatal(err)
		}
	}
}
