// Package models registers the library's model simulators under fixed
// names, so that worker processes and the analyst name the same simulator
// the same way, and builds the papers' problems around the registered
// simulators.
//
// A worker registers the confidential simulator of a problem — the
// Problem's Simulator, never its mechanism: engines apply the privacy
// mechanism on the analyst's machine (see simulate.Executor). The
// problems built here pair each registered simulator with its paper's
// mechanism, prior and observed release, so an analyst's
// nats.Config{Registry: reg} names the Problem's Simulator by identity.
package models

import (
	"fmt"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
	"github.com/privinfer/privinfer/simulate/nats"
	"github.com/privinfer/privinfer/simulate/sir"
)

// Names of the registered simulators.
const (
	// SIRSynthetic is the exact (Gillespie) SIR simulator of the SBI
	// paper's synthetic experiment: K = 10⁶, θ = (log β, log γ), record
	// times sir.PaperTimes(), counts (§4.1, App. E.1.1). About 30 ms per
	// simulation.
	SIRSynthetic = "sir/synthetic"
	// SIROutbreaks is the exact SIR simulator of the SBI paper's real
	// outbreaks: K = 10⁵, otherwise as SIRSynthetic (App. E.1.2).
	SIROutbreaks = "sir/outbreaks"
	// LinRegPaper is the mean-statistic simulator of the SBI paper's
	// linear regression: n = 100 records of linreg.Paper() (App. E.2).
	LinRegPaper = "linreg/paper"
)

// outbreakK is the population of the real-outbreak fits.
const outbreakK = 100_000

// Register adds the library's model simulators to reg under the names
// above.
func Register(reg *nats.Registry) error {
	syn, err := sir.New(sir.Config{K: sir.SyntheticK})
	if err != nil {
		return err
	}
	out, err := sir.New(sir.Config{K: outbreakK})
	if err != nil {
		return err
	}
	lr, err := simulate.NewMeanStat(linreg.Paper(), linreg.PaperN)
	if err != nil {
		return err
	}
	for name, sim := range map[string]simulate.Simulator{SIRSynthetic: syn, SIROutbreaks: out, LinRegPaper: lr} {
		if err := reg.Register(name, sim); err != nil {
			return err
		}
	}
	return nil
}

// Registry returns a new registry holding the library's model simulators.
func Registry() (*nats.Registry, error) {
	var reg nats.Registry
	if err := Register(&reg); err != nil {
		return nil, err
	}
	return &reg, nil
}

// lookup returns the simulator registered under name.
func lookup(reg *nats.Registry, name string) (simulate.Simulator, error) {
	if reg == nil {
		return nil, fmt.Errorf("models: registry is nil: %w", nats.ErrInvalid)
	}
	return reg.Lookup(name)
}

// LinRegProblem returns the SBI paper's private linear regression at
// ε ∈ {10, 1, 0.1} (App. E.2): prior N(0, I) on β ∈ ℝ³, the registered
// LinRegPaper simulator, the Laplace mechanism at the paper's sensitivity
// and the paper's observed release.
func LinRegProblem(reg *nats.Registry, eps float64) (privinfer.Problem, error) {
	sim, err := lookup(reg, LinRegPaper)
	if err != nil {
		return privinfer.Problem{}, err
	}
	model := linreg.Paper()
	sens, err := linreg.Sensitivity(model.P(), linreg.PaperN)
	if err != nil {
		return privinfer.Problem{}, err
	}
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: eps, Dim: model.ContribDim()})
	if err != nil {
		return privinfer.Problem{}, err
	}
	prior, err := linreg.Prior(model.P())
	if err != nil {
		return privinfer.Problem{}, err
	}
	obs, err := linreg.Release(eps)
	if err != nil {
		return privinfer.Problem{}, err
	}
	return privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: mech, Observed: obs, Names: []string{"beta0", "beta1", "beta2"}}, nil
}

// SIRProblem returns the SBI paper's synthetic SIR experiment at
// ε ∈ {10, 1, 0.1} (App. E.1.1): prior sir.Prior(), the registered
// SIRSynthetic simulator, the infection-trajectory mechanism
// (n = 1000, m = nL/ε) and the paper's observed release.
func SIRProblem(reg *nats.Registry, eps float64) (privinfer.Problem, error) {
	sim, err := lookup(reg, SIRSynthetic)
	if err != nil {
		return privinfer.Problem{}, err
	}
	ps, err := sir.SyntheticSimulator(eps)
	if err != nil {
		return privinfer.Problem{}, err
	}
	obs, err := sir.SyntheticRelease(eps)
	if err != nil {
		return privinfer.Problem{}, err
	}
	return privinfer.Problem{Prior: sir.Prior(), Simulator: sim, Mechanism: ps.Mechanism(), Observed: obs, Names: []string{"log_beta", "log_gamma"}}, nil
}
