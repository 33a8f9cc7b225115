package sbi

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mcmc"
)

// jumpProb is the probability with which a modeJump kernel tries an
// independence proposal after warm-up instead of a local move.
const jumpProb = 0.1

// modeJump is the mcmc.Method of sampleAM's rerun when the first run's
// chains formed several groups (chains that did not intermingle: the
// posterior's modes, or parts of a long narrow mode that the chains cross
// slowly). Each of its kernels is the local Method's kernel, and after
// warm-up, with probability jumpProb per iteration, an independence
// Metropolis–Hastings move instead: a proposal y from mix, the equal
// mixture of Student t fits to the groups, accepted with probability
// min(1, π(y)·g(x) / (π(x)·g(y))) for the mixture density g.
//
// Both moves leave the target invariant, and so does their mixture; the
// independence move lets a chain jump between the groups, so the modes'
// shares of the draws converge to their posterior masses instead of being
// fixed by how many chains start in each. The mixture is fitted to the
// first run and fixed during the rerun, and warm-up uses the local kernel
// alone, so that its covariance adapts to the mode a chain is in.
type modeJump struct {
	local mcmc.Method
	mix   *tMix
}

// NewKernel returns a fresh kernel for t, whose coordinates must be mix's.
func (m modeJump) NewKernel(t mcmc.Target) (mcmc.Kernel, error) {
	if m.mix == nil || t.Dim() != m.mix.d {
		return nil, fmt.Errorf("sbi: mode-jump kernel: a mixture of dimension %d is needed", t.Dim())
	}
	k, err := m.local.NewKernel(t)
	if err != nil {
		return nil, err
	}
	d := t.Dim()
	return &jumpKernel{local: k, t: t, mix: m.mix, y: make([]float64, d), u: make([]float64, d)}, nil
}

type jumpKernel struct {
	local mcmc.Kernel
	t     mcmc.Target
	mix   *tMix
	y, u  []float64
}

// Step makes the local kernel's move during warm-up and, afterwards, the
// independence move with probability jumpProb.
func (k *jumpKernel) Step(r *rand.Rand, x []float64, logp float64, adapt bool) (float64, bool, error) {
	if adapt || r.Float64() >= jumpProb {
		return k.local.Step(r, x, logp, adapt)
	}
	k.mix.sample(r, r.IntN(k.mix.K), k.y, k.u)
	lq := k.t.LogDensity(k.y)
	if math.IsNaN(lq) {
		return logp, false, fmt.Errorf("%w: mode-jump proposal", mcmc.ErrNaN)
	}
	if !(lq > math.Inf(-1)) {
		return logp, false, nil
	}
	la := lq - logp + k.mix.logDensity(x, k.u) - k.mix.logDensity(k.y, k.u)
	if la >= 0 || math.Log(r.Float64()) < la {
		copy(x, k.y)
		return lq, true, nil
	}
	return logp, false, nil
}
