package abc

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/simulate"
)

// RejectionConfig configures rejection ABC and selects its variant.
//
//   - Tolerance > 0, Accept = 0: fixed tolerance; simulate Simulations prior
//     draws and keep those with ρ ≤ Tolerance.
//   - Tolerance > 0, Accept > 0: simulate until Accept draws with ρ ≤
//     Tolerance have been found (the first Accept in draw order), at most
//     Simulations draws.
//   - Tolerance = 0, Accept > 0: fixed number accepted; simulate Simulations
//     draws and keep the Accept nearest (the tolerance is the Accept-th
//     smallest distance).
//
// The zero value is not valid: Distance, Simulations and one of Tolerance
// and Accept must be set.
type RejectionConfig struct {
	// Distance compares a simulated release with Problem.Observed.
	Distance Distance
	// Tolerance is the acceptance radius (see above); 0 selects the
	// nearest-Accept variant.
	Tolerance float64
	// Accept is the number of draws to accept; 0 keeps every draw within
	// Tolerance.
	Accept int
	// Simulations is the number of prior simulations (at most, for the
	// until-accepted variant).
	Simulations int
	// Seed selects the random streams: draw t is that of
	// SimulatePrior(…, Seed, …), whatever the Executor.
	Seed uint64
	// Executor simulates the draws (nil: simulate.InProcess, all cores of
	// this process). It runs Problem.Simulator; θ is drawn and the
	// mechanism and distance applied on the driver (see simulate.Executor).
	Executor simulate.Executor
	// Progress, if not nil, receives an event with Stage "simulate" after
	// every batch of simulations (Step simulations run of Total).
	Progress privinfer.ProgressFunc
}

// Validate checks the configuration on its own (the engine also checks it
// against the Problem). Errors wrap ErrInvalid.
func (cfg *RejectionConfig) Validate() error {
	if cfg == nil {
		return invalidf("nil *RejectionConfig")
	}
	switch {
	case argcheck.Nil(cfg.Distance):
		return invalidf("RejectionConfig.Distance is nil")
	case math.IsNaN(cfg.Tolerance) || cfg.Tolerance < 0 || math.IsInf(cfg.Tolerance, 0):
		return invalidf("RejectionConfig.Tolerance must be finite and > 0 (or 0 with Accept > 0 for the nearest-k variant), got %v", cfg.Tolerance)
	case cfg.Accept < 0:
		return invalidf("RejectionConfig.Accept must be >= 0, got %d", cfg.Accept)
	case cfg.Tolerance == 0 && cfg.Accept == 0:
		return invalidf("RejectionConfig.Tolerance must be > 0 unless Accept > 0 selects the nearest-k variant")
	case cfg.Simulations < 1:
		return invalidf("RejectionConfig.Simulations must be >= 1, got %d", cfg.Simulations)
	case cfg.Tolerance == 0 && cfg.Accept > cfg.Simulations:
		return invalidf("RejectionConfig.Accept (%d) must not exceed Simulations (%d)", cfg.Accept, cfg.Simulations)
	}
	return nil
}

// RejectionResult is the outcome of rejection ABC.
type RejectionResult struct {
	// Draws holds the accepted draws (unweighted), named after the
	// Problem's parameters.
	Draws *privinfer.Draws
	// Distance holds the exact distance of each accepted draw to
	// Problem.Observed (with a nil Mechanism, a function of Observed
	// without noise: see Rejection).
	Distance []float64
	// Tolerance is the tolerance used (for the nearest-k variant, the
	// largest accepted distance).
	Tolerance float64
	// Simulations is the number of simulations run.
	Simulations int
}

// Rejection runs rejection ABC (Pritchard et al. 1999) on p: prior draws
// θ_t, releases simulated through p.ReleaseSimulator() (the Simulator
// composed with the Mechanism), and acceptance by cfg.Distance to
// p.Observed. Simulations run on all cores; the result depends on cfg.Seed
// only. A simulator error aborts the run and is returned. A nil ctx means
// context.Background().
//
// Rejection is inference from a public release: p.Observed is the output of
// a privacy mechanism, so the accepted draws, their distances and the
// tolerance are post-processing of it and may be published. To select draws
// against a confidential observation, use ABCDP.
//
// Confidential data with a nil Mechanism: nothing adds noise, and p.Observed is taken to be
// public data, and the draws, the exact distances ρ(s_t, p.Observed) (RejectionResult.Distance)
// and the tolerances are computed from it without noise. Never pass
// confidential data as p.Observed with a nil Mechanism: pass a release of
// it (p.Mechanism set, p.Observed its output), or select against it
// within a budget with ABCDP. The exact distances locate the observation
// (a handful from known points trilaterate it).
func Rejection(ctx context.Context, p privinfer.Problem, cfg RejectionConfig) (*RejectionResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	tg, err := newTarget(&p, cfg.Distance, "RejectionConfig.Distance", cfg.Executor)
	if err != nil {
		return nil, err
	}
	// The fixed-tolerance and nearest-k variants hold all simulations in
	// memory at once; the until-accepted variant holds batches and its
	// acceptances.
	held := cfg.Simulations
	if cfg.Tolerance > 0 && cfg.Accept > 0 {
		held = max(min(cfg.Simulations, max(1024, 4*min(cfg.Accept, MaxElements))), cfg.Accept)
	}
	if err := checkCount("RejectionConfig.Simulations (held in memory)", held, tg.dim, tg.statDim); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	start := time.Now()
	dim := tg.dim
	var theta, dist []float64
	res := &RejectionResult{Tolerance: cfg.Tolerance}
	report := func(done int) {
		cfg.Progress.Report(privinfer.Progress{Stage: "simulate", Step: done, Total: cfg.Simulations,
			Elapsed: time.Since(start), Message: fmt.Sprintf("%d accepted", len(dist))})
	}
	switch {
	case cfg.Tolerance == 0:
		all, rho, err := tg.simulatePrior(ctx, 0, cfg.Simulations, cfg.Seed)
		if err != nil {
			return nil, err
		}
		res.Simulations = cfg.Simulations
		idx := make([]int, len(rho))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(rho[a], rho[b]) })
		for _, i := range idx[:cfg.Accept] {
			theta = append(theta, all[i*dim:(i+1)*dim]...)
			dist = append(dist, rho[i])
		}
		res.Tolerance = rho[idx[cfg.Accept-1]]
		report(cfg.Simulations)
	default:
		// Simulate in batches; with Accept = 0 one batch of Simulations.
		batch := cfg.Simulations
		if cfg.Accept > 0 {
			batch = min(cfg.Simulations, max(1024, 4*cfg.Accept))
		}
	batches:
		for done := 0; done < cfg.Simulations; {
			n := min(batch, cfg.Simulations-done)
			th, rho, err := tg.simulatePrior(ctx, done, n, cfg.Seed)
			if err != nil {
				return nil, err
			}
			for i := 0; i < n; i++ {
				res.Simulations = done + i + 1
				if rho[i] <= cfg.Tolerance {
					theta = append(theta, th[i*dim:(i+1)*dim]...)
					dist = append(dist, rho[i])
					if cfg.Accept > 0 && len(dist) == cfg.Accept {
						report(res.Simulations)
						break batches
					}
				}
			}
			done += n
			report(done)
		}
	}
	if theta == nil {
		theta = []float64{}
	}
	res.Draws, res.Distance = tg.draws(theta, nil), dist
	return res, nil
}
