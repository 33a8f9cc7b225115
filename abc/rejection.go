package abc

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// RejectionConfig selects the variant of rejection ABC.
//
//   - Tolerance > 0, Accept = 0: fixed tolerance; simulate Simulations prior
//     draws and keep those with ρ ≤ Tolerance.
//   - Tolerance > 0, Accept > 0: simulate until Accept draws with ρ ≤
//     Tolerance have been found (the first Accept in draw order), at most
//     Simulations draws.
//   - Tolerance = 0, Accept > 0: fixed number accepted; simulate Simulations
//     draws and keep the Accept nearest (the tolerance is the Accept-th
//     smallest distance).
type RejectionConfig struct {
	Tolerance   float64
	Accept      int
	Simulations int
	// Seed selects the random streams: draw t uses parallel.Stream(Seed, t).
	Seed uint64
}

// RejectionResult is the outcome of rejection ABC.
type RejectionResult struct {
	// Accepted holds the accepted draws and their distances.
	Accepted Draws
	// Tolerance is the tolerance used (for the nearest-k variant, the
	// largest accepted distance).
	Tolerance float64
	// Simulations is the number of simulations run.
	Simulations int
}

// Rejection runs rejection ABC (Pritchard et al. 1999) on p. Simulations
// run on all cores; the result depends on cfg.Seed only. A simulator error
// aborts the run and is returned. A nil ctx means context.Background().
//
// Rejection is inference from a public release: p.Observed is the output of
// a privacy mechanism, so the accepted draws, their distances and the
// tolerance are post-processing of it and may be published. To select draws
// against a confidential observation, use ABCDP.
func Rejection(ctx context.Context, p Problem, cfg RejectionConfig) (*RejectionResult, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if math.IsNaN(cfg.Tolerance) || cfg.Tolerance < 0 || math.IsInf(cfg.Tolerance, 0) {
		return nil, invalidf("RejectionConfig.Tolerance must be finite and > 0 (or 0 with Accept > 0 for the nearest-k variant), got %v", cfg.Tolerance)
	}
	if cfg.Accept < 0 {
		return nil, invalidf("RejectionConfig.Accept must be >= 0, got %d", cfg.Accept)
	}
	if cfg.Tolerance == 0 && cfg.Accept == 0 {
		return nil, invalidf("tolerance must be > 0 unless Accept > 0 selects the nearest-k variant")
	}
	if cfg.Simulations < 1 {
		return nil, invalidf("RejectionConfig.Simulations must be >= 1, got %d", cfg.Simulations)
	}
	// The fixed-tolerance and nearest-k variants hold all simulations in
	// memory at once; the until-accepted variant holds batches and its
	// acceptances.
	held := cfg.Simulations
	if cfg.Tolerance > 0 && cfg.Accept > 0 {
		held = max(min(cfg.Simulations, max(1024, 4*min(cfg.Accept, MaxElements))), cfg.Accept)
	}
	if err := checkCount("RejectionConfig.Simulations (held in memory)", held, p.Prior.Dim(), p.Simulator.StatDim()); err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if cfg.Tolerance == 0 && cfg.Accept > cfg.Simulations {
		return nil, invalidf("accept (%d) must not exceed simulations (%d)", cfg.Accept, cfg.Simulations)
	}
	dim := p.Prior.Dim()
	res := &RejectionResult{Accepted: Draws{Dim: dim}, Tolerance: cfg.Tolerance}
	switch {
	case cfg.Tolerance == 0:
		all, err := simulatePrior(ctx, &p, 0, cfg.Simulations, cfg.Seed)
		if err != nil {
			return nil, err
		}
		res.Simulations = cfg.Simulations
		idx := make([]int, all.Len())
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(all.Distance[a], all.Distance[b]) })
		for _, i := range idx[:cfg.Accept] {
			res.Accepted.Theta = append(res.Accepted.Theta, all.At(i)...)
			res.Accepted.Distance = append(res.Accepted.Distance, all.Distance[i])
		}
		res.Tolerance = all.Distance[idx[cfg.Accept-1]]
	default:
		// Simulate in batches; with Accept = 0 one batch of Simulations.
		batch := cfg.Simulations
		if cfg.Accept > 0 {
			batch = min(cfg.Simulations, max(1024, 4*cfg.Accept))
		}
		for done := 0; done < cfg.Simulations; {
			n := min(batch, cfg.Simulations-done)
			d, err := simulatePrior(ctx, &p, done, n, cfg.Seed)
			if err != nil {
				return nil, err
			}
			for i := 0; i < n; i++ {
				res.Simulations = done + i + 1
				if d.Distance[i] <= cfg.Tolerance {
					res.Accepted.Theta = append(res.Accepted.Theta, d.At(i)...)
					res.Accepted.Distance = append(res.Accepted.Distance, d.Distance[i])
					if cfg.Accept > 0 && res.Accepted.Len() == cfg.Accept {
						return res, nil
					}
				}
			}
			done += n
		}
	}
	return res, nil
}
