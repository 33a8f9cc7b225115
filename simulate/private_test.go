package simulate_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/sir"
)

func TestBatchIndependentOfGOMAXPROCS(t *testing.T) {
	sim, _ := sir.New(sir.Config{K: 2000})
	mech, _ := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 2000, Times: 10})
	priv, err := simulate.Private(sim, mech)
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	thetas := make([]float64, 2*n)
	prior := sir.Prior()
	r := rand.New(rand.NewPCG(1, 1))
	for i := range n {
		prior.Sample(r, thetas[2*i:2*i+2])
	}
	run := func(procs int) []float64 {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		dst := make([]float64, n*10)
		if err := simulate.Batch(context.Background(), nil, priv, thetas, 2, 42, dst); err != nil {
			t.Fatal(err)
		}
		return dst
	}
	a, b := run(1), run(2)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("entry %d differs between GOMAXPROCS 1 and 2: %v vs %v", i, a[i], b[i])
		}
	}
	// Releases are proportions on the 1/n lattice.
	for i, v := range a {
		if v < 0 || v > 1 || math.Abs(v*1000-math.Round(v*1000)) > 1e-9 {
			t.Fatalf("release %d = %v not on the lattice", i, v)
		}
	}
	// Prior predictive: same property, and θ rows come from the prior.
	pp := func(procs int) ([]float64, []float64) {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		th, st := make([]float64, 2*n), make([]float64, 10*n)
		if err := simulate.PriorPredictive(context.Background(), nil, prior, priv, n, 7, th, st); err != nil {
			t.Fatal(err)
		}
		return th, st
	}
	t1, s1 := pp(1)
	t2, s2 := pp(2)
	for i := range t1 {
		if t1[i] != t2[i] {
			t.Fatal("prior predictive θ depends on GOMAXPROCS")
		}
	}
	for i := range s1 {
		if s1[i] != s2[i] {
			t.Fatal("prior predictive stats depend on GOMAXPROCS")
		}
	}
}

func TestBatchErrors(t *testing.T) {
	sim, _ := sir.New(sir.Config{K: 100, Param: sir.Rates})
	dst := make([]float64, 3*10)
	thetas := []float64{0.3, 0.1, -1, 0.1, 0.3, 0.1}
	err := simulate.Batch(context.Background(), nil, sim, thetas, 2, 1, dst)
	if !errors.Is(err, simulate.ErrInvalidTheta) {
		t.Errorf("got %v, want simulate.ErrInvalidTheta from row 1", err)
	}
	if err := simulate.Batch(context.Background(), nil, sim, thetas[:5], 2, 1, dst); err == nil {
		t.Error("ragged thetas accepted")
	}
	if err := simulate.Batch(context.Background(), nil, sim, thetas, 2, 1, dst[:5]); err == nil {
		t.Error("short dst accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := make([]float64, 2*1000)
	for i := range 1000 {
		big[2*i], big[2*i+1] = 0.3, 0.1
	}
	if err := simulate.Batch(ctx, nil, sim, big, 2, 1, make([]float64, 1000*10)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: got %v", err)
	}
	if _, err := simulate.Private(nil, nil); err == nil {
		t.Error("nil simulator accepted")
	}
	mech, _ := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 100, Inflation: 100, Population: 100, Times: 5})
	if _, err := simulate.Private(sim, mech); err == nil {
		t.Error("dimension mismatch accepted")
	}
}

// TestPrivateLaw checks the composition: the private simulator's release
// equals (in law) the mechanism applied to the confidential summary. With
// SimulateBoth the confidential summary is returned; the release mean given
// s is n·(s+m)/(K+2m)/n, checked by a z-test over 4000 draws at one time
// point (5-sd bound: false alarm ≈ 6e-7).
func TestPrivateLaw(t *testing.T) {
	sim, _ := sir.New(sir.Config{K: 500, Times: []float64{0, 10, 20}, Param: sir.Rates})
	mech, _ := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 50, Inflation: 20, Population: 500, Times: 3})
	p, _ := simulate.NewPrivate(sim, mech)
	r := rand.New(rand.NewPCG(3, 3))
	conf, dst := make([]float64, 3), make([]float64, 3)
	var z, v float64
	const reps = 4000
	for range reps {
		if _, err := p.SimulateBoth(r, []float64{0.5, 0.1}, conf, dst); err != nil {
			t.Fatal(err)
		}
		q := (conf[2] + 20) / (500 + 40)
		z += dst[2] - q
		v += q * (1 - q) / 50
	}
	if zz := z / math.Sqrt(v); math.Abs(zz) > 5 {
		t.Errorf("release mean differs from the mechanism's mean given s: z = %v", zz)
	}
	th := []float64{0.5, 0.1}
	// Under the race detector sync.Pool drops a random quarter of its
	// Puts, so the pooled buffers are sometimes allocated again (with 50
	// runs the count reached 1 per run about once in 10⁴ race runs).
	if a := testing.AllocsPerRun(50, func() { _ = p.Simulate(r, th, dst) }); a != 0 && !raceEnabled {
		t.Errorf("private simulation allocates %v", a)
	}
}
