package ldp

import (
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
	mldp "github.com/privinfer/privinfer/mechanism/ldp"
)

// simReport simulates one person's report of x under m's local mechanism
// with the secure release law drawn reproducibly from r (test data only).
func simReport(m interface{ Mechanism() *mldp.ClippedLaplace }, r *rand.Rand, x float64) (float64, error) {
	var s, z [1]float64
	s[0] = x
	err := mechanism.Reproducible(m.Mechanism()).Release(r, s[:], z[:])
	return z[0], err
}
