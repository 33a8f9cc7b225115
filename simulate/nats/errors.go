package nats

import (
	"errors"
	"fmt"
)

// ErrInvalid is wrapped by every error reporting an invalid argument: a
// nil connection or registry, a bad name, a negative setting, a block whose
// slices do not match its dimensions.
var ErrInvalid = errors.New("nats: invalid argument")

// ErrUnknownSimulator is wrapped by the error of a run whose simulator name
// a worker does not have in its registry, and by Registry.Lookup.
var ErrUnknownSimulator = errors.New("nats: unknown simulator")

// ErrMismatch is wrapped by the error of a run whose workers hold a
// different simulator under the same name: another StatDim, or other
// summaries for the same (seed, index) than the analyst's own simulator.
var ErrMismatch = errors.New("nats: worker's simulator differs from the analyst's")

// ErrTooLarge is wrapped by the error of a block or result that would
// exceed the server's message size limit.
var ErrTooLarge = errors.New("nats: message exceeds the server's limit")

// ErrDeliveries is wrapped by the error of a run in which a block was
// delivered to workers the stream's maximum number of times without a
// result: workers crashed, were killed or timed out on it.
var ErrDeliveries = errors.New("nats: block exhausted its deliveries")

// ErrRemote is wrapped by the Err of a RowError raised on a worker: the
// simulator returned an error, panicked or returned a non-finite summary.
var ErrRemote = errors.New("nats: simulation failed on a worker")

// ErrClosed is returned by Execute after Close.
var ErrClosed = errors.New("nats: executor closed")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("nats: "+format+": %w", append(args, ErrInvalid)...)
}

// RemoteError is the failure of one row on a worker. It wraps ErrRemote.
type RemoteError struct {
	// Simulator is the registered name of the simulator.
	Simulator string
	// Worker identifies the worker process (ServeOptions.ID).
	Worker string
	// Panicked is true when the simulator panicked.
	Panicked bool
	// Message is the worker's error text (the panic value for a panic).
	Message string
}

func (e *RemoteError) Error() string {
	what := "failed"
	if e.Panicked {
		what = "panicked"
	}
	return fmt.Sprintf("nats: simulator %q %s on worker %s: %s", e.Simulator, what, e.Worker, e.Message)
}

// Unwrap returns ErrRemote.
func (e *RemoteError) Unwrap() error { return ErrRemote }
