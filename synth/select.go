package synth

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// selectModel picks a candidate by the exponential mechanism with
// Pr(i) ∝ exp(ε0·u_i/(2Δu)), charging ε0 to acct.
func selectModel(r *rand.Rand, sel Selection, x []float64, eps0 float64, rl Releaser) (int, error) {
	u := make([]float64, len(sel.Candidates))
	for i := range u {
		u[i] = sel.Utility(i, x)
		if math.IsNaN(u[i]) || math.IsInf(u[i], 0) {
			return 0, invalidf("utility of candidate %d is %v", i, u[i])
		}
	}
	return exponentialSelect(r, u, sel.Sensitivity, eps0, rl)
}

// exponentialSelect releases, through mechanism.Exponential charged by
// rl, an index i with probability ∝ exp(eps·u_i/(2du)).
func exponentialSelect(r *rand.Rand, u []float64, du, eps float64, rl Releaser) (int, error) {
	mech, err := mechanism.NewExponential(mechanism.ExponentialConfig{Epsilon: eps, Sensitivity: du, Candidates: len(u)})
	if err != nil {
		return 0, mechErr(err)
	}
	var k [1]float64
	if err := rl.release(mech, r, u, k[:]); err != nil {
		return 0, err
	}
	return int(k[0]), nil
}
