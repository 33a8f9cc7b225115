package nats

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// normalMean is the confidential simulator of the private normal-mean
// problem: the mean of 20 draws of N(θ, 1).
type normalMean struct{}

func (normalMean) StatDim() int { return 1 }

func (normalMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	s := 0.0
	for range 20 {
		s += theta[0] + r.NormFloat64()
	}
	dst[0] = s / 20
	return nil
}

// normalMeanProblem is θ ~ N(0, 1), s = mean of 20 draws of N(θ, 1),
// released with Laplace noise of scale 0.5.
func normalMeanProblem(t testing.TB) privinfer.Problem {
	t.Helper()
	prior, err := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	if err != nil {
		t.Fatal(err)
	}
	lap, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 0.5, Epsilon: 1, Dim: 1})
	if err != nil {
		t.Fatal(err)
	}
	return privinfer.Problem{Prior: prior, Simulator: normalMean{}, Mechanism: lap, Observed: []float64{0.7}}
}

// engineSetups are the NATS set-ups every engine must agree with the
// in-process run on: 1 and 3 workers, blocks of 1, 7 and 64 rows.
type engineSetup struct{ workers, block int }

func engineSetups() []engineSetup {
	var s []engineSetup
	for _, w := range []int{1, 3} {
		for _, b := range []int{1, 7, 64} {
			s = append(s, engineSetup{w, b})
		}
	}
	return s
}

// natsExecutors starts the workers of each set-up on one server (a prefix
// per set-up) and returns an executor for each.
func natsExecutors(t *testing.T, reg *Registry) []*Executor {
	t.Helper()
	s := startServer(t, embeddedOpts())
	var out []*Executor
	for _, st := range engineSetups() {
		prefix := fmt.Sprintf("w%db%d", st.workers, st.block)
		for range st.workers {
			startWorker(t, s.ClientURL(), reg, ServeOptions{Streams: Streams{Prefix: prefix, Memory: true}, Parallelism: 2})
		}
		out = append(out, newExecutor(t, s.ClientURL(), Config{Streams: Streams{Prefix: prefix, Memory: true}, Registry: reg, BlockRows: st.block, MaxInFlight: 16}))
	}
	return out
}

// TestSMCIdenticalOnNATS: SMC-ABC gives the in-process rounds bit for bit
// (draws, weights, distances, tolerances, simulation counts) with 1 and 3
// NATS workers and blocks of 1, 7 and 64 rows, and the executor merges
// exactly the simulations the run counts.
func TestSMCIdenticalOnNATS(t *testing.T) {
	p := normalMeanProblem(t)
	var reg Registry
	must(reg.Register("normal-mean", p.Simulator))
	cfg := abc.SMCConfig{Distance: abc.Euclidean{}, Particles: 100, Schedule: abc.Adaptive{Initial: 2, Quantile: 0.5, Rounds: 3},
		Perturbation: abc.PerturbOLCM, MinBatch: 16, Seed: 7}
	ref, err := abc.SMC(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range natsExecutors(t, &reg) {
		c := cfg
		c.Executor = e
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		got, err := abc.SMC(ctx, p, c)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		st := engineSetups()[i]
		if len(got.Rounds) != len(ref.Rounds) || got.Simulations != ref.Simulations {
			t.Fatalf("%+v: %d rounds, %d simulations; in process %d, %d", st, len(got.Rounds), got.Simulations, len(ref.Rounds), ref.Simulations)
		}
		for k, r := range got.Rounds {
			w := ref.Rounds[k]
			if !slices.Equal(r.Draws.Theta, w.Draws.Theta) || !slices.Equal(r.Draws.Weights, w.Draws.Weights) ||
				!slices.Equal(r.Distance, w.Distance) || r.Tolerance != w.Tolerance || r.Simulations != w.Simulations {
				t.Fatalf("%+v: round %d differs from the in-process run", st, k)
			}
		}
		// Every simulation the run counts was merged once, none twice (a
		// block answered twice after a resend is dropped, in Duplicates).
		if es := e.Stats(); es.Rows != got.Simulations {
			t.Fatalf("%+v: executor merged %d rows (%d duplicates), the run counts %d simulations", st, es.Rows, es.Duplicates, got.Simulations)
		}
	}
}

// TestOtherEnginesOnNATS: rejection ABC, ABCDP, kernel importance sampling,
// SPLE and the prior-predictive helper give their in-process results bit
// for bit through NATS workers (3 workers, blocks of 7 rows).
func TestOtherEnginesOnNATS(t *testing.T) {
	p := normalMeanProblem(t)
	var reg Registry
	must(reg.Register("normal-mean", p.Simulator))
	s := startServer(t, embeddedOpts())
	for range 3 {
		startWorker(t, s.ClientURL(), &reg, ServeOptions{Streams: Streams{Memory: true}, Parallelism: 2})
	}
	e := newExecutor(t, s.ClientURL(), Config{Streams: Streams{Memory: true}, Registry: &reg, BlockRows: 7})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	rc := abc.RejectionConfig{Distance: abc.Euclidean{}, Accept: 50, Simulations: 1000, Seed: 3}
	ref, err := abc.Rejection(ctx, p, rc)
	if err != nil {
		t.Fatal(err)
	}
	rc.Executor = e
	got, err := abc.Rejection(ctx, p, rc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Draws.Theta, ref.Draws.Theta) || !slices.Equal(got.Distance, ref.Distance) {
		t.Error("rejection ABC differs from the in-process run")
	}

	pdp := p
	pdp.Mechanism = nil
	dc := abc.ABCDPConfig{EpsTotal: 5, EpsABC: 0.2, C: 5, Clip: 2, Distance: abc.Euclidean{}, Simulations: 300, Seed: 9, Reproducible: true}
	dref, err := abc.ABCDP(ctx, pdp, dc)
	if err != nil {
		t.Fatal(err)
	}
	dc.Executor = e
	dgot, err := abc.ABCDP(ctx, pdp, dc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(dgot.Public.Theta, dref.Public.Theta) || !slices.Equal(dgot.Indicators, dref.Indicators) {
		t.Error("ABCDP differs from the in-process run")
	}

	kc := abc.KernelISConfig{Simulations: 300, Stages: 2, Mean: []float64{0}, Cov: []float64{1}, Seed: 2}
	kref, err := abc.KernelIS(ctx, p, kc)
	if err != nil {
		t.Fatal(err)
	}
	kc.Executor = e
	kgot, err := abc.KernelIS(ctx, p, kc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kgot.Draws.Theta, kref.Draws.Theta) || !slices.Equal(kgot.Draws.Weights, kref.Draws.Weights) {
		t.Error("kernel importance sampling differs from the in-process run")
	}

	lref, err := sbi.SPLE(ctx, p, tinySPPE())
	if err != nil {
		t.Fatal(err)
	}
	lc := tinySPPE()
	lc.Executor = e
	lgot, err := sbi.SPLE(ctx, p, lc)
	if err != nil {
		t.Fatal(err)
	}
	if len(lref.Draws.Theta) == 0 || !slices.Equal(lgot.Draws.Theta, lref.Draws.Theta) {
		t.Error("SPLE differs from the in-process run")
	}

	const n = 200
	th, st := make([]float64, n), make([]float64, n)
	th2, st2 := make([]float64, n), make([]float64, n)
	if err := simulate.PriorPredictive(ctx, nil, p.Prior, p.Simulator, n, 5, th, st); err != nil {
		t.Fatal(err)
	}
	if err := simulate.PriorPredictive(ctx, e, p.Prior, p.Simulator, n, 5, th2, st2); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(th, th2) || !slices.Equal(st, st2) {
		t.Error("PriorPredictive differs from the in-process run")
	}
	// The simulations went through the workers, each merged once.
	if es := e.Stats(); es.Rows < int64(got.Simulations)+int64(lgot.Simulations)+n {
		t.Errorf("executor merged %d rows (%d duplicates)", es.Rows, es.Duplicates)
	}
}
