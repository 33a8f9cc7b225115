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
		// Every simulation the run counts was merged once, none twice (the
		// check simulates one row on the driver, not counted here).
		if es := e.Stats(); es.Rows != got.Simulations || es.Duplicates != 0 {
			t.Fatalf("%+v: executor merged %d rows (%d duplicates), the run counts %d simulations", st, es.Rows, es.Duplicates, got.Simulations)
		}
	}
}
