package mechanism

import "math/rand/v2"

// Mechanism releases a differentially private version of a statistic.
//
// Release draws s_dp ~ η(·|s) and writes it into dst. It returns an error,
// and writes nothing meaningful into dst, when s or dst has the wrong
// length or s holds NaN or ±Inf: a mechanism never releases unprotected
// data silently.
type Mechanism interface {
	Release(r *rand.Rand, s, dst []float64) error
	// Budget reports the privacy loss of one release.
	Budget() Budget
}

// Transform is implemented by mechanisms whose noise can be written as a
// deterministic map of uniform variates, s_dp = τ(u; s) with
// u ∈ [0,1)^NoiseDim. Randomized quasi-Monte Carlo integrates over the
// noise by pushing low-discrepancy points through Apply.
//
// If u is uniform on [0,1)^NoiseDim(len(s)), then Apply(u, s, dst) has
// exactly the law of Release. Apply is a hot-path primitive: it does not
// validate lengths and panics if they do not match (a programmer error).
// On a nil mechanism pointer it fills dst with NaN (see Nil receivers in
// the package doc).
type Transform interface {
	NoiseDim(statDim int) int
	Apply(u, s, dst []float64)
}

// Lattice is implemented by mechanisms whose releases lie on a grid: every
// coordinate of every release is an integer multiple of LatticeSpacing (for
// example counts c/n released as proportions). Density estimators of such
// releases dequantize them, since a continuous density fitted to lattice
// points can grow without bound.
type Lattice interface {
	LatticeSpacing() float64
}

// Density is implemented by mechanisms with a tractable release density
// (or probability mass function for discrete releases).
//
// LogDensity returns log η(sdp | s); it returns -Inf where the density is
// zero and NaN if the lengths of sdp and s do not match the mechanism.
type Density interface {
	LogDensity(sdp, s []float64) float64
}
