package simulate

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/mechanism"
)

// PrivateSimulator draws private releases s_dp ~ ∫ η(·|s(x)) f(x|θ) dx: it
// runs a confidential simulator and passes its summary through a
// mechanism. It is itself a Simulator, so inference code that only
// simulates (ABC, SPPE, SPLE) treats private and confidential models alike.
type PrivateSimulator struct {
	sim  Simulator
	mech mechanism.Mechanism
	pool sync.Pool // *[]float64 of length sim.StatDim()
}

// Private composes the confidential simulator sim with the mechanism mech
// into a simulator of s_dp. The mechanism must release vectors of the
// simulator's StatDim; if it reports its dimension through a Dim() int
// method the two are checked here.
func Private(sim Simulator, mech mechanism.Mechanism) (Simulator, error) {
	return NewPrivate(sim, mech)
}

// NewPrivate is Private returning the concrete type.
func NewPrivate(sim Simulator, mech mechanism.Mechanism) (*PrivateSimulator, error) {
	if sim == nil {
		return nil, errors.New("simulate: private simulator needs a non-nil simulator")
	}
	if mech == nil {
		return nil, errors.New("simulate: private simulator needs a non-nil mechanism")
	}
	d := sim.StatDim()
	if d < 1 {
		return nil, fmt.Errorf("simulate: simulator StatDim must be >= 1, got %d", d)
	}
	if md, ok := mech.(interface{ Dim() int }); ok && md.Dim() != d {
		return nil, fmt.Errorf("simulate: mechanism dimension %d does not match simulator StatDim %d", md.Dim(), d)
	}
	p := &PrivateSimulator{sim: sim, mech: mech}
	p.pool.New = func() any { b := make([]float64, d); return &b }
	return p, nil
}

// Confidential returns the confidential simulator.
func (p *PrivateSimulator) Confidential() Simulator { return p.sim }

// Mechanism returns the mechanism.
func (p *PrivateSimulator) Mechanism() mechanism.Mechanism { return p.mech }

// StatDim is the confidential simulator's StatDim.
func (p *PrivateSimulator) StatDim() int { return p.sim.StatDim() }

// Simulate draws s ~ f(·|θ) and then s_dp ~ η(·|s) into dst, using r for
// both in that order. The release is simulated through
// mechanism.Simulate — the fast, seeded path with the law of the
// mechanism's secure Release — so simulations are reproducible from the
// seed. It allocates nothing after warm-up for the package's mechanisms.
func (p *PrivateSimulator) Simulate(r *rand.Rand, theta, dst []float64) error {
	_, err := p.SimulateBoth(r, theta, nil, dst)
	return err
}

// SimulateBoth is Simulate that also writes the confidential summary s
// into conf when conf is non-nil (length StatDim). It returns conf.
func (p *PrivateSimulator) SimulateBoth(r *rand.Rand, theta, conf, dst []float64) ([]float64, error) {
	d := p.sim.StatDim()
	if len(dst) != d {
		return nil, fmt.Errorf("simulate: dst must have length %d, got %d", d, len(dst))
	}
	s := conf
	var bp *[]float64
	if s == nil {
		bp = p.pool.Get().(*[]float64)
		s = *bp
	} else if len(s) != d {
		return nil, fmt.Errorf("simulate: conf must have length %d, got %d", d, len(conf))
	}
	err := p.sim.Simulate(r, theta, s)
	if err == nil {
		err = mechanism.Simulate(p.mech, r, s, dst)
	}
	if bp != nil {
		p.pool.Put(bp)
		s = nil
	}
	return s, err
}

// Batch simulates n parameter vectors on all cores: row i of thetas
// (length n·len(θ), row-major) is simulated with the random stream
// parallel.Stream(seed, i) and its summary is written into row i of dst
// (length n·StatDim). Results depend on seed only, never on GOMAXPROCS.
// The error of the lowest failing row is returned (wrapped with its
// index); ctx cancels the remaining rows.
func Batch(ctx context.Context, sim Simulator, thetas []float64, dim int, seed uint64, dst []float64) error {
	if sim == nil {
		return errors.New("simulate: batch needs a non-nil simulator")
	}
	if dim < 1 || len(thetas)%dim != 0 {
		return fmt.Errorf("simulate: batch thetas length %d is not a multiple of dim %d", len(thetas), dim)
	}
	n := len(thetas) / dim
	sd := sim.StatDim()
	if len(dst) != n*sd {
		return fmt.Errorf("simulate: batch dst must have length %d (n=%d × StatDim=%d), got %d", n*sd, n, sd, len(dst))
	}
	return parallel.Map(ctx, n, seed, func(i int, r *rand.Rand) error {
		if err := sim.Simulate(r, thetas[i*dim:(i+1)*dim], dst[i*sd:(i+1)*sd]); err != nil {
			return fmt.Errorf("simulate: batch row %d: %w", i, err)
		}
		return nil
	})
}

// PriorPredictive draws n pairs (θ_i, s_i) with θ_i ~ prior and
// s_i ~ sim(θ_i) on all cores: task i uses the stream parallel.Stream(seed,
// i) for both draws, θ_i goes to row i of thetas (length n·prior.Dim()) and
// s_i to row i of stats (length n·StatDim). This is the training set of
// SPPE/SPLE and the proposal pool of rejection ABC.
func PriorPredictive(ctx context.Context, prior Prior, sim Simulator, n int, seed uint64, thetas, stats []float64) error {
	if prior == nil || sim == nil {
		return errors.New("simulate: prior predictive needs a non-nil prior and simulator")
	}
	if n < 0 {
		return fmt.Errorf("simulate: prior predictive n must be >= 0, got %d", n)
	}
	d, sd := prior.Dim(), sim.StatDim()
	if len(thetas) != n*d {
		return fmt.Errorf("simulate: prior predictive thetas must have length %d, got %d", n*d, len(thetas))
	}
	if len(stats) != n*sd {
		return fmt.Errorf("simulate: prior predictive stats must have length %d, got %d", n*sd, len(stats))
	}
	return parallel.Map(ctx, n, seed, func(i int, r *rand.Rand) error {
		th := thetas[i*d : (i+1)*d]
		prior.Sample(r, th)
		if err := sim.Simulate(r, th, stats[i*sd:(i+1)*sd]); err != nil {
			return fmt.Errorf("simulate: prior predictive row %d: %w", i, err)
		}
		return nil
	})
}
