package nats

import (
	"errors"
	"fmt"

	"github.com/privinfer/privinfer/simulate"
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

// ErrRemote is wrapped by the Err of a *simulate.RowError raised on a
// worker: the simulator returned an error, panicked or returned a
// non-finite statistic there (see RemoteError).
var ErrRemote = errors.New("nats: simulation failed on a worker")

// ErrConnClosed is returned by Serve when its connection is closed.
var ErrConnClosed = errors.New("nats: connection closed")

// ErrClosed is returned by Execute after Close.
var ErrClosed = errors.New("nats: executor closed")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("nats: "+format+": %w", append(args, ErrInvalid)...)
}

// RemoteError is the cause of a *simulate.RowError raised on a worker:
// the simulator's error, panic or non-finite statistic, as text, with the
// sentinels the in-process failure would match.
type RemoteError struct {
	// Simulator is the registered name of the simulator.
	Simulator string
	// Worker identifies the worker process (ServeOptions.ID).
	Worker string
	// Message is the worker's error text (the panic value for a panic).
	Message string
	// Cause is what the in-process error would match: a
	// *simulate.PanicError (its Stack nil) for a panic, simulate.ErrNonFinite
	// for a non-finite statistic, simulate.ErrInvalidTheta or
	// simulate.ErrInvalid for simulator errors wrapping them, nil otherwise.
	Cause error
}

// Error names the simulator, the worker and the failure.
func (e *RemoteError) Error() string {
	return fmt.Sprintf("simulator %q on worker %s: %s", e.Simulator, e.Worker, e.Message)
}

// Unwrap returns ErrRemote and Cause.
func (e *RemoteError) Unwrap() []error {
	if e.Cause == nil {
		return []error{ErrRemote}
	}
	return []error{ErrRemote, e.Cause}
}

// remoteCause rebuilds the cause of a worker's row error.
func remoteCause(name string, r *wireResult) error {
	e := &RemoteError{Simulator: name, Worker: r.worker, Message: r.message}
	switch r.cause {
	case causePanic:
		e.Cause = &simulate.PanicError{Value: r.message}
		e.Message = "panicked: " + r.message
	case causeNonFinite:
		e.Cause = simulate.ErrNonFinite
	case causeInvalidTheta:
		e.Cause = simulate.ErrInvalidTheta
	case causeInvalid:
		e.Cause = simulate.ErrInvalid
	}
	return e
}

// rowCause classifies a worker's row failure for the wire.
func rowCause(err error) (uint8, string) {
	var pe *simulate.PanicError
	switch {
	case errors.As(err, &pe):
		return causePanic, fmt.Sprint(pe.Value)
	case errors.Is(err, simulate.ErrNonFinite):
		return causeNonFinite, err.Error()
	case errors.Is(err, simulate.ErrInvalidTheta):
		return causeInvalidTheta, err.Error()
	case errors.Is(err, simulate.ErrInvalid):
		return causeInvalid, err.Error()
	}
	return causeError, err.Error()
}
