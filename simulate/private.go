package simulate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/privinfer/privinfer/internal/argcheck"
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
// method the two are checked here. A nil sim or mech, including a typed
// nil pointer in the interface, is refused with an error wrapping
// ErrInvalid, as is a StatDim below 1 or a dimension mismatch.
func Private(sim Simulator, mech mechanism.Mechanism) (Simulator, error) {
	return NewPrivate(sim, mech)
}

// NewPrivate is Private returning the concrete type.
func NewPrivate(sim Simulator, mech mechanism.Mechanism) (*PrivateSimulator, error) {
	if argcheck.Nil(sim) {
		return nil, fmt.Errorf("%w: private simulator needs a non-nil sim", ErrInvalid)
	}
	if argcheck.Nil(mech) {
		return nil, fmt.Errorf("%w: private simulator needs a non-nil mech", ErrInvalid)
	}
	d := sim.StatDim()
	if d < 1 || d > maxValues {
		return nil, fmt.Errorf("%w: private simulator sim.StatDim must be in [1, %d], got %d", ErrInvalid, maxValues, d)
	}
	if md, ok := mech.(interface{ Dim() int }); ok && md.Dim() != d {
		return nil, fmt.Errorf("%w: private simulator mech dimension %d does not match sim.StatDim %d", ErrInvalid, md.Dim(), d)
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
// into conf when conf is non-nil (length StatDim). It returns conf. A
// PrivateSimulator not built by NewPrivate (nil or zero value), a nil r
// or a dst or conf of the wrong length is refused with an error wrapping
// ErrInvalid.
func (p *PrivateSimulator) SimulateBoth(r *rand.Rand, theta, conf, dst []float64) ([]float64, error) {
	if p == nil || p.sim == nil || p.mech == nil || p.pool.New == nil {
		return nil, errUnbuilt("PrivateSimulator")
	}
	if err := checkRand(r); err != nil {
		return nil, err
	}
	d := p.sim.StatDim()
	if len(dst) != d {
		return nil, fmt.Errorf("%w: private simulator dst must have length %d, got %d", ErrInvalid, d, len(dst))
	}
	s := conf
	var bp *[]float64
	if s == nil {
		bp = p.pool.Get().(*[]float64)
		s = *bp
	} else if len(s) != d {
		return nil, fmt.Errorf("%w: private simulator conf must have length %d, got %d", ErrInvalid, d, len(conf))
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

// Batch simulates n parameter vectors through exec (nil: InProcess, all
// cores of this process): row i of thetas (length n·dim, row-major) is
// simulated with the random stream Stream(seed, i) and its summary is
// written into row i of dst (length n·StatDim). Results depend on seed
// only, never on the executor, its block size or GOMAXPROCS. It is Execute
// of the block {seed, 0, dim, thetas, dst} with the arguments checked. A
// failing row (simulator error, panic, non-finite summary) is returned as
// the *RowError of the lowest failing row; ctx cancels the remaining rows.
func Batch(ctx context.Context, exec Executor, sim Simulator, thetas []float64, dim int, seed uint64, dst []float64) error {
	if argcheck.Nil(sim) {
		return fmt.Errorf("%w: batch needs a non-nil simulator", ErrInvalid)
	}
	if dim < 1 {
		return fmt.Errorf("%w: batch dim must be >= 1, got %d", ErrInvalid, dim)
	}
	if len(thetas)%dim != 0 {
		return fmt.Errorf("%w: batch thetas length %d is not a multiple of dim %d", ErrInvalid, len(thetas), dim)
	}
	n := len(thetas) / dim
	sd := sim.StatDim()
	if len(dst) != n*sd {
		return fmt.Errorf("%w: batch dst must have length %d (n=%d × StatDim=%d), got %d", ErrInvalid, n*sd, n, sd, len(dst))
	}
	if ctx == nil {
		return fmt.Errorf("%w: batch context is nil", ErrInvalid)
	}
	return Execute(ctx, exec, sim, Block{Seed: seed, Dim: dim, Theta: thetas, Stats: dst})
}

// PriorSeed is the seed of the streams PriorPredictive draws θ from:
// θ_i is drawn from Stream(PriorSeed(seed), i) on the calling machine, and
// simulated with Stream(seed, i) by the executor.
func PriorSeed(seed uint64) uint64 { return parallel.Stream(seed^priorTag, priorTag).Uint64() }

const priorTag = 0x7072696f72 // "prior"

// PriorPredictive draws n pairs (θ_i, s_i) with θ_i ~ prior and
// s_i ~ sim(θ_i): θ_i is drawn on the calling machine (on all cores) from
// the stream Stream(PriorSeed(seed), i) into row i of thetas (length
// n·prior.Dim()), then all rows are simulated through exec (nil:
// InProcess) as in Batch, s_i into row i of stats (length n·StatDim). The
// pairs depend on seed only, whichever executor ran them. This is the
// training set of SPPE/SPLE and the proposal pool of rejection ABC.
func PriorPredictive(ctx context.Context, exec Executor, prior Prior, sim Simulator, n int, seed uint64, thetas, stats []float64) error {
	if argcheck.Nil(prior) || argcheck.Nil(sim) {
		return fmt.Errorf("%w: prior predictive needs a non-nil prior and simulator", ErrInvalid)
	}
	if n < 0 || n > maxValues {
		return fmt.Errorf("%w: prior predictive n must be in [0, %d], got %d", ErrInvalid, maxValues, n)
	}
	d, sd := prior.Dim(), sim.StatDim()
	if d < 1 || d > maxValues {
		return fmt.Errorf("%w: prior predictive prior.Dim must be in [1, %d], got %d", ErrInvalid, maxValues, d)
	}
	if sd < 1 || sd > maxValues {
		return fmt.Errorf("%w: prior predictive sim.StatDim must be in [1, %d], got %d", ErrInvalid, maxValues, sd)
	}
	if len(thetas) != n*d {
		return fmt.Errorf("%w: prior predictive thetas must have length %d, got %d", ErrInvalid, n*d, len(thetas))
	}
	if len(stats) != n*sd {
		return fmt.Errorf("%w: prior predictive stats must have length %d, got %d", ErrInvalid, n*sd, len(stats))
	}
	if ctx == nil {
		return fmt.Errorf("%w: prior predictive context is nil", ErrInvalid)
	}
	if err := parallel.Map(ctx, n, PriorSeed(seed), func(i int, r *rand.Rand) error {
		prior.Sample(r, thetas[i*d:(i+1)*d])
		return nil
	}); err != nil {
		return err
	}
	return Execute(ctx, exec, sim, Block{Seed: seed, Dim: d, Theta: thetas, Stats: stats})
}
