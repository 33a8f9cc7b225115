package sbi

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// paperEngine returns an engine of the given role at the SBI paper's
// configuration (8 coupling layers of two 50-unit blocks with context
// gating, M = 16 inner points, 10 atoms, batches of 100, float32 steps)
// on the linear regression at ε = 10, with pairs prior simulations
// standardised as round 1 does.
func paperEngine(tb testing.TB, role Role, pairs int) *engine {
	tb.Helper()
	model := linreg.Paper()
	sim, _ := simulate.NewMeanStat(model, linreg.PaperN)
	sens, _ := linreg.Sensitivity(model.P(), linreg.PaperN)
	mech, _ := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: 10, Dim: model.ContribDim()})
	prior, _ := linreg.Prior(2)
	obs, _ := linreg.Release(10)
	p := privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: mech, Observed: obs}
	fc := flow.DefaultConfig(1, 1)
	fc.ContextGating = true
	tc := flow.DefaultTrainConfig()
	tc.BatchSize, tc.LearningRate, tc.Float32 = 100, 5e-4, true
	tc.MaxEpochs = 1
	o := Config{Rounds: 10, SimsPerRound: 1000, InnerPoints: 16, Atoms: 10, Flow: &fc, Train: &tc,
		RegressionShift: ShiftOff, Seed: 1}
	e, err := newEngine(p, &o, role)
	if err != nil {
		tb.Fatal(err)
	}
	th, err := e.priorDraws(pairs, 1)
	if err != nil {
		tb.Fatal(err)
	}
	if err := e.simulate(context.Background(), 1, th); err != nil {
		tb.Fatal(err)
	}
	if err := e.standardize(); err != nil {
		tb.Fatal(err)
	}
	return e
}

// BenchmarkPaperEpoch measures one training epoch, its validation pass
// included, at the SBI paper's configuration on the linear regression: the
// atomic SPPE loss and SPLE's on 2,000 pairs (round 2's data; 5% held
// out), and the first round's non-atomic SPPE loss on 1,000. It reports
// the CPU time per epoch (whole process) besides the wall time.
func BenchmarkPaperEpoch(b *testing.B) {
	for _, c := range []struct {
		name  string
		role  Role
		kind  lossKind
		pairs int
	}{
		{"SPPE-atomic", PosteriorFlow, lossAtomic, 2000},
		{"SPPE-round1", PosteriorFlow, lossNPE, 1000},
		{"SPLE", LikelihoodFlow, lossPLE, 2000},
	} {
		b.Run(fmt.Sprintf("%s/pairs=%d", c.name, c.pairs), func(b *testing.B) {
			e := paperEngine(b, c.role, c.pairs)
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				var rr RoundResult
				if err := e.train(context.Background(), 2, c.kind, &rr); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(time.Second)/float64(b.N), "cpu-s/epoch")
		})
	}
}

// cpuTime returns the process's user+system CPU time: wall time on a
// shared machine includes waiting for the CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
