package study

import (
	"errors"
	"fmt"
	"time"

	"github.com/privinfer/privinfer"
)

// ErrInvalid is wrapped by every error the package returns for a bad
// argument.
var ErrInvalid = errors.New("study: invalid argument")

// MaxReps bounds Config.Reps, so that a mistyped count fails at once rather
// than running for days.
const MaxReps = 1 << 24

// Config holds the settings shared by the studies (Table1, MStudy,
// Allocation). There is no usable zero value: Reps must be set.
type Config struct {
	// Seed seeds every repetition's random stream; results depend on the
	// seed only, not on GOMAXPROCS.
	Seed uint64
	// Reps is the number of repetitions per setting, in [1, MaxReps].
	Reps int
	// Progress, if not nil, receives one event (stage "scenario") per
	// finished setting, with Step of Total settings and the setting's name
	// as the message.
	Progress privinfer.ProgressFunc
}

// Validate checks the settings; errors wrap ErrInvalid and name the field.
func (c Config) Validate() error {
	if c.Reps < 1 || c.Reps > MaxReps {
		return fmt.Errorf("%w: Config.Reps must be in [1, %d], got %d", ErrInvalid, MaxReps, c.Reps)
	}
	return nil
}

// report delivers one progress event.
func (c Config) report(start time.Time, step, total int, msg string) {
	c.Progress.Report(privinfer.Progress{Stage: "scenario", Step: step, Total: total, Elapsed: time.Since(start), Message: msg})
}
