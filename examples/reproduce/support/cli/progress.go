package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
)

// Every returns a privinfer.ProgressFunc for long library runs that emit
// many events (training epochs, MCMC iterations): privinfer.ProgressPrinter
// with interval d, each line written through Printf (so timestamped) and
// prefixed by label when label is not empty. A run then reports at least
// every d while it emits events, without flooding stderr.
func (p *Progress) Every(d time.Duration, label string) privinfer.ProgressFunc {
	return privinfer.ProgressPrinter(progressLines{p: p, label: label}, d)
}

// progressLines writes the lines of a privinfer.ProgressPrinter through
// Printf.
type progressLines struct {
	p     *Progress
	label string
}

func (w progressLines) Write(b []byte) (int, error) {
	line := strings.TrimSuffix(string(b), "\n")
	if w.label != "" {
		w.p.Printf("%s: %s", w.label, line)
	} else {
		w.p.Printf("%s", line)
	}
	return len(b), nil
}

// While runs fn and, until it returns, writes the progress line
// "label: running (elapsed)" whenever no line has been written for d, for
// long calls that report no progress of their own or report it rarely (fn
// may write lines itself). It returns fn's error; d must be positive.
func (p *Progress) While(d time.Duration, label string, fn func() error) error {
	if d <= 0 {
		return fmt.Errorf("cli: While needs a positive interval, got %v", d)
	}
	done := make(chan error, 1)
	start := time.Now()
	go func() { done <- fn() }()
	tick := time.NewTicker(max(d/4, time.Nanosecond))
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			if p.sinceLast() >= d {
				p.Printf("%s: running (%s)", label, time.Since(start).Round(time.Second))
			}
		}
	}
}

// sinceLast is the time since the last line was written (since the start
// when none was).
func (p *Progress) sinceLast() time.Duration {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.last.IsZero() {
		return time.Since(p.start)
	}
	return time.Since(p.last)
}

// WhileValue is While for a call that returns a value with its error: it
// runs fn under p.While(d, label, …) and returns what fn returned (the
// zero value and While's error when d is not positive).
func WhileValue[R any](p *Progress, d time.Duration, label string, fn func() (R, error)) (R, error) {
	var v R
	err := p.While(d, label, func() (err error) {
		v, err = fn()
		return err
	})
	return v, err
}
