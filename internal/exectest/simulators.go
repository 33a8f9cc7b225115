package exectest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
)

// Faulty is a simulator of one statistic, θ[0] plus Noise times a
// standard normal draw, that fails on the rows with θ[0] > At: it panics
// when Panic is set and returns the statistic NaN otherwise. With At in
// the far tail of the prior, a run meets few bad rows, and the error an
// engine returns must name the lowest, whichever executor ran it.
type Faulty struct {
	At    float64
	Noise float64
	Panic bool
}

// StatDim returns 1.
func (Faulty) StatDim() int { return 1 }

// Simulate writes θ[0] + Noise·N(0, 1) to dst[0], or fails as described
// on Faulty.
func (f Faulty) Simulate(r *rand.Rand, theta, dst []float64) error {
	if theta[0] > f.At {
		if f.Panic {
			panic(fmt.Sprintf("cannot simulate at %v", theta[0]))
		}
		dst[0] = math.NaN()
		return nil
	}
	dst[0] = theta[0] + f.Noise*r.NormFloat64()
	return nil
}

// CancelAt is a simulator of one statistic, θ[0] plus Noise times a
// standard normal draw, that counts its simulations in Done and calls
// Cancel at the N-th. When Stop is not nil (the cancelled context's Done
// channel), every simulation counted after the N-th waits for it before
// returning, so no run can finish its rows while the N-th call is still on
// its way to Cancel: whatever the scheduling, at most the calls in flight
// when Cancel runs get past the N-th, and an engine that checks its context
// between rows stops. Without Stop a worker descheduled between counting
// the N-th call and cancelling lets the others run every remaining row.
type CancelAt struct {
	N      int64
	Done   *atomic.Int64
	Cancel context.CancelFunc
	Noise  float64
	Stop   <-chan struct{}
}

// StatDim returns 1.
func (CancelAt) StatDim() int { return 1 }

// Simulate writes θ[0] + Noise·N(0, 1) to dst[0], after calling Cancel
// if this is the N-th simulation, or after Stop is closed if it comes
// later.
func (c CancelAt) Simulate(r *rand.Rand, theta, dst []float64) error {
	switch k := c.Done.Add(1); {
	case k == c.N:
		c.Cancel()
	case k > c.N && c.Stop != nil:
		<-c.Stop
	}
	dst[0] = theta[0] + c.Noise*r.NormFloat64()
	return nil
}
