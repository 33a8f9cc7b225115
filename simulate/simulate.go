package simulate

import "math/rand/v2"

// Prior is a proper prior distribution over a parameter vector θ.
type Prior interface {
	// Dim is the length of θ.
	Dim() int
	// Sample draws θ ~ π and writes it into theta, which has length Dim.
	// It has no error return: a nil r or a theta shorter than Dim is a
	// programmer error and panics (the package's priors document this);
	// callers such as PriorPredictive check their arguments first.
	Sample(r *rand.Rand, theta []float64)
	// LogDensity returns log π(θ); it is -Inf outside the support and NaN
	// if len(theta) != Dim(). A Prior is therefore an mcmc.Target.
	LogDensity(theta []float64) float64
}

// Simulator draws confidential data x ~ f(·|θ) and summarises it.
type Simulator interface {
	// StatDim is the length of the summary s(x).
	StatDim() int
	// Simulate draws confidential data for theta and writes its summary
	// s(x) into dst (length StatDim). It returns an error for an invalid
	// θ (wrong length, NaN, outside the model's parameter space).
	Simulate(r *rand.Rand, theta, dst []float64) error
}
