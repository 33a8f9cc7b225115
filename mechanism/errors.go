package mechanism

import (
	"errors"
	"fmt"
	"math"
)

// Errors returned (wrapped) by constructors and releases. Test with
// errors.Is.
var (
	// ErrInvalid is wrapped by every error reporting an invalid argument:
	// a mechanism or budget parameter outside its domain (ε ≤ 0,
	// δ ∉ [0,1), a non-positive sensitivity, …), a statistic or output
	// buffer whose length does not match the mechanism, a NaN or ±Inf
	// entry in a statistic to release, or a finite statistic outside the
	// domain on which the mechanism's guarantee holds (e.g. a count
	// outside [0, K]). The message names the argument.
	ErrInvalid = errors.New("mechanism: invalid argument")
	// ErrBudgetExceeded reports a spend that would exceed an Accountant's
	// total budget: a refusal, not an invalid argument.
	ErrBudgetExceeded = errors.New("mechanism: privacy budget exceeded")
)

// invalidf formats a parameter error that wraps ErrInvalid.
func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// checkPositive validates a strictly positive finite parameter.
func checkPositive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 1) {
		return invalidf("%s must be finite and > 0, got %v", name, v)
	}
	return nil
}

// checkEpsilon validates ε.
func checkEpsilon(eps float64) error { return checkPositive("epsilon", eps) }

// checkDelta validates δ ∈ [0, 1).
func checkDelta(delta float64) error {
	if !(delta >= 0 && delta < 1) {
		return invalidf("delta must be in [0, 1), got %v", delta)
	}
	return nil
}

// MaxDim is the largest dimension a constructor accepts (the Dim of a
// statistic, the number of candidates, categories or time points): 2^24.
// A mechanism holds a few float64 per coordinate, and callers allocate
// statistics and releases of that length, so a larger value is almost
// always a unit or overflow mistake; refusing it keeps a bad argument from
// ending the process with an out-of-memory fatal error, which no caller
// could recover from.
const MaxDim = 1 << 24

// checkDim validates a dimension: 1 ≤ d ≤ MaxDim.
func checkDim(name string, d int) error {
	if d < 1 || d > MaxDim {
		return invalidf("%s must be in [1, 2^24 = MaxDim], got %d", name, d)
	}
	return nil
}

// checkRelease validates the arguments of a Release: both slices must have
// length dim and s must be finite. It never writes into dst.
func checkRelease(s, dst []float64, dim int) error {
	return checkReleaseShape(s, dst, dim, dim)
}

// checkReleaseShape is checkRelease for mechanisms whose output length
// outDim differs from the statistic's length dim.
func checkReleaseShape(s, dst []float64, dim, outDim int) error {
	if len(s) != dim {
		return fmt.Errorf("%w: statistic has length %d, mechanism expects %d", ErrInvalid, len(s), dim)
	}
	if len(dst) != outDim {
		return fmt.Errorf("%w: dst has length %d, mechanism expects %d", ErrInvalid, len(dst), outDim)
	}
	for i, v := range s {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: statistic entry %d is %v", ErrInvalid, i, v)
		}
	}
	return nil
}

// checkApply enforces Transform's contract on the hot path: Apply panics
// (a programmer error) unless len(s) = dim, len(u) = noise and
// len(dst) = out. A shorter slice with spare capacity would otherwise be
// resliced silently into memory the caller did not pass.
func checkApply(name string, u, s, dst []float64, dim, noise, out int) {
	if len(s) != dim || len(u) != noise || len(dst) != out {
		panic(fmt.Sprintf("mechanism: %s.Apply: u, s and dst have lengths %d, %d, %d; the mechanism needs %d, %d, %d",
			name, len(u), len(s), len(dst), noise, dim, out))
	}
}

// fillNaN sets every element of dst to NaN: the result of a computation
// without an error return on a nil mechanism.
func fillNaN(dst []float64) {
	for i := range dst {
		dst[i] = math.NaN()
	}
}

// errNilMechanism reports a method called on a nil mechanism pointer.
func errNilMechanism(name string) error {
	return invalidf("%s is nil (build it with its constructor)", name)
}

// checkResult validates a computed parameter (a noise scale, a sensitivity,
// a zCDP ρ): a positive normal finite number, so that no overflow to +Inf
// and no underflow to 0 or a subnormal is ever returned as a usable value.
func checkResult(name string, v float64) error {
	if !(v >= 0x1p-1022) || math.IsInf(v, 1) {
		return invalidf("%s evaluates to %v, not a positive normal finite number; the arguments are outside the range where it is representable", name, v)
	}
	return nil
}

// result returns v if it is a positive normal finite number (checkResult)
// and an error naming the quantity otherwise.
func result(name string, v float64) (float64, error) {
	if err := checkResult(name, v); err != nil {
		return 0, err
	}
	return v, nil
}
