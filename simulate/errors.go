package simulate

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/argcheck"
)

// ErrInvalid is wrapped by every error reporting an invalid argument: a
// non-finite, non-positive or out-of-range setting, an empty or mismatched
// slice, a nil model or random source, or a value used without its
// constructor. ErrInvalidTheta wraps it.
var ErrInvalid = errors.New("simulate: invalid argument")

// ErrInvalidTheta is wrapped by the errors simulators return for a
// parameter vector of the wrong length, with NaN or infinite entries, or
// outside the model's parameter space. It wraps ErrInvalid.
var ErrInvalidTheta = argcheck.Sentinel("simulate: invalid parameter vector", ErrInvalid)

// errUnbuilt reports a simulator or model used without its constructor.
func errUnbuilt(what string) error {
	return fmt.Errorf("%w: %s used without its constructor (nil or zero value)", ErrInvalid, what)
}

// checkRand refuses a nil random source.
func checkRand(r *rand.Rand) error {
	if r == nil {
		return fmt.Errorf("%w: random source is nil", ErrInvalid)
	}
	return nil
}

// maxValues bounds the number of values a simulator may write or hold,
// refusing sizes that cannot be allocated.
const maxValues = 1 << 31

// checkModel validates a RecordModel passed to a constructor: non-nil,
// built by its constructor, with positive dimensions.
func checkModel(m RecordModel) error {
	if argcheck.Nil(m) {
		return fmt.Errorf("%w: record model is nil", ErrInvalid)
	}
	if err := checkBuilt("record model", m); err != nil {
		return err
	}
	if v, ok := m.(interface{ Validate() error }); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("simulate: record model %T: %w", m, err)
		}
	}
	if m.ParamDim() < 1 || m.RecordDim() < 1 || m.ContribDim() < 1 || m.RecordDim() > maxValues || m.ContribDim() > maxValues {
		return fmt.Errorf("%w: record model %T has dimensions (θ %d, record %d, contribution %d), each must be in [1, %d]", ErrInvalid, m, m.ParamDim(), m.RecordDim(), m.ContribDim(), maxValues)
	}
	return nil
}
