package qmc

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/parallel"
)

// Integrand is a function on [0,1)^d evaluated at one point u. It must not
// retain u.
type Integrand func(u []float64) float64

// Estimate is an RQMC (or Monte Carlo) estimate of an integral from R
// independent replicates of n points each.
type Estimate struct {
	// Mean is the average of the replicate averages, an unbiased estimate
	// of the integral when the sequence's points are each uniform.
	Mean float64
	// StdErr is the standard error of Mean: the sample standard deviation
	// of the replicate averages divided by √R (NaN if R = 1).
	StdErr float64
	// Replicates is R and Points is n.
	Replicates, Points int
}

// maxReplicates bounds the number of replicates (one float64 each) an
// estimate may request, refusing sizes that cannot be allocated.
const maxReplicates = 1 << 28

// chunkValues bounds the size of the point buffer used by Replicates.
const chunkValues = 1 << 12

// Replicates computes len(dst) independent replicate averages of f: for
// each replicate it calls seq.Randomize(r), evaluates f at the first n
// points and writes their mean into dst. The replicates are independent
// and, for a sequence whose points are each uniform on [0,1)^d (every
// scrambled Sobol, rotated or Monte Carlo sequence in this package), each
// is unbiased for ∫f. It allocates one chunk buffer per call and nothing
// per point. It stops with ctx's error if ctx is cancelled between
// replicates, and with an error wrapping ErrInvalid, naming the point, if f
// returns NaN or ±Inf (an integral with no finite estimate) or the sum of
// its values overflows.
func Replicates(ctx context.Context, seq Randomized, f Integrand, n int, dst []float64, r *rand.Rand) error {
	if ctx == nil || argcheck.Nil(seq) || f == nil || r == nil {
		return fmt.Errorf("%w: Replicates needs non-nil ctx, seq, f and r", ErrInvalid)
	}
	if n < 1 {
		return fmt.Errorf("%w: points per replicate must be ≥ 1, got %d", ErrInvalid, n)
	}
	if len(dst) < 1 {
		return fmt.Errorf("%w: need at least one replicate, got %d", ErrInvalid, len(dst))
	}
	d := seq.Dim()
	if d < 1 {
		return fmt.Errorf("%w: sequence dimension %d < 1 (used without its constructor?)", ErrInvalid, d)
	}
	if m, ok := seq.(interface{ MaxPoints() uint64 }); ok && uint64(n) > m.MaxPoints() {
		return fmt.Errorf("%w: %d points per replicate exceed the sequence's %d points", ErrInvalid, n, m.MaxPoints())
	}
	chunk := min(n, max(1, chunkValues/d))
	buf := make([]float64, chunk*d)
	for rep := range dst {
		if err := ctx.Err(); err != nil {
			return err
		}
		seq.Randomize(r)
		var sum float64
		for done := 0; done < n; {
			k := min(chunk, n-done)
			if err := seq.Fill(buf, k); err != nil {
				return fmt.Errorf("qmc: replicate %d: %w", rep, err)
			}
			var part float64
			for p := 0; p < k; p++ {
				u := buf[p*d : p*d+d : p*d+d]
				v := f(u)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("%w: replicate %d: the integrand is %v at point %d, u = %v", ErrInvalid, rep, v, done+p, u)
				}
				part += v
			}
			sum += part
			done += k
		}
		if math.IsInf(sum, 0) {
			return fmt.Errorf("%w: replicate %d: the sum of the integrand's values overflows", ErrInvalid, rep)
		}
		dst[rep] = sum / float64(n)
	}
	return nil
}

// checkReplicateArgs validates the arguments Replicates checks, before
// anything is allocated.
func checkReplicateArgs(ctx context.Context, seq Randomized, f Integrand, n int, r *rand.Rand) error {
	if ctx == nil || argcheck.Nil(seq) || f == nil || r == nil {
		return fmt.Errorf("%w: Integrate needs non-nil ctx, seq, f and r", ErrInvalid)
	}
	if n < 1 {
		return fmt.Errorf("%w: points per replicate must be ≥ 1, got %d", ErrInvalid, n)
	}
	return nil
}

// Integrate estimates ∫_{[0,1)^d} f(u) du from R = replicates independent
// randomizations of seq with n points each (see Replicates) and returns
// the mean of the replicate averages with its standard error. With a
// MonteCarlo sequence it is plain Monte Carlo with R·n points, reported in
// the same form. For Sobol points n should be a power of two (the net
// property holds for the first 2^m points). Errors as for Replicates (a
// NaN or infinite integrand value is refused, not averaged).
func Integrate(ctx context.Context, seq Randomized, f Integrand, n, replicates int, r *rand.Rand) (Estimate, error) {
	if replicates < 1 || replicates > maxReplicates {
		return Estimate{}, fmt.Errorf("%w: replicates must be in [1, %d], got %d", ErrInvalid, maxReplicates, replicates)
	}
	if err := checkReplicateArgs(ctx, seq, f, n, r); err != nil {
		return Estimate{}, err
	}
	vals := make([]float64, replicates)
	if err := Replicates(ctx, seq, f, n, vals, r); err != nil {
		return Estimate{}, err
	}
	mean, sd := meanSD(vals)
	return Estimate{Mean: mean, StdErr: sd / math.Sqrt(float64(replicates)), Replicates: replicates, Points: n}, nil
}

// meanSD returns the mean and the (n−1) sample standard deviation (NaN for
// a single value), by a two-pass computation.
func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// IntegrateParallel is Integrate with the replicates spread over all
// cores. Replicate i calls newReplicate for a point set and integrand of
// its own (so integrands may keep scratch buffers; the function itself is
// called concurrently and must be safe for that) and draws its
// randomization from the stream parallel.Stream(seed, i), so the estimate
// depends on seed only, never on GOMAXPROCS or scheduling. It returns the
// error of the lowest-indexed failing replicate, or ctx's error.
func IntegrateParallel(ctx context.Context, newReplicate func() (Randomized, Integrand, error), n, replicates int, seed uint64) (Estimate, error) {
	if newReplicate == nil {
		return Estimate{}, fmt.Errorf("%w: IntegrateParallel needs a non-nil replicate constructor", ErrInvalid)
	}
	if ctx == nil {
		return Estimate{}, fmt.Errorf("%w: IntegrateParallel needs a non-nil ctx", ErrInvalid)
	}
	if replicates < 1 || replicates > maxReplicates {
		return Estimate{}, fmt.Errorf("%w: replicates must be in [1, %d], got %d", ErrInvalid, maxReplicates, replicates)
	}
	if n < 1 {
		return Estimate{}, fmt.Errorf("%w: points per replicate must be ≥ 1, got %d", ErrInvalid, n)
	}
	vals := make([]float64, replicates)
	err := parallel.Map(ctx, replicates, seed, func(i int, r *rand.Rand) error {
		seq, f, err := newReplicate()
		if err != nil {
			return fmt.Errorf("qmc: replicate %d: %w", i, err)
		}
		return Replicates(ctx, seq, f, n, vals[i:i+1], r)
	})
	if err != nil {
		return Estimate{}, err
	}
	mean, sd := meanSD(vals)
	return Estimate{Mean: mean, StdErr: sd / math.Sqrt(float64(replicates)), Replicates: replicates, Points: n}, nil
}
