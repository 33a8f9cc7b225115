package cli

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/privinfer/privinfer"
)

// Heartbeat keeps a long run talking: it writes progress lines through a
// Progress and, whenever no line was written for the interval given to
// NewHeartbeat, a line saying what the run is still doing — the current
// phase (set by Phase or by the last library event), how long it has
// lasted and how many work items (Tick) it has finished — so that stderr is
// never silent for longer than the interval, even inside a library call
// that reports nothing (a batch of slow simulations, a metric). Its methods
// are safe for concurrent use; Stop ends it.
type Heartbeat struct {
	p     *Progress
	every time.Duration

	mu         sync.Mutex
	phase      string
	phaseStart time.Time
	last       time.Time // of the last line written
	ticks      atomic.Int64
	done       chan struct{}
	stopped    sync.Once
}

// NewHeartbeat starts a heartbeat on p that speaks up after every silent
// interval every (at least 100 ms; a nil p or a nil p.W writes nothing).
func NewHeartbeat(p *Progress, every time.Duration) *Heartbeat {
	h := &Heartbeat{p: p, every: max(every, 100*time.Millisecond), last: time.Now(), phaseStart: time.Now(), done: make(chan struct{})}
	go h.loop()
	return h
}

func (h *Heartbeat) loop() {
	t := time.NewTicker(h.every / 5)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case now := <-t.C:
			h.mu.Lock()
			if now.Sub(h.last) >= h.every {
				msg := "still working"
				if h.phase != "" {
					msg += " after: " + h.phase
				}
				msg += fmt.Sprintf(" (%s", now.Sub(h.phaseStart).Round(time.Second))
				if n := h.ticks.Load(); n > 0 {
					msg += fmt.Sprintf(", %d done", n)
				}
				h.printLocked(msg + ")")
			}
			h.mu.Unlock()
		}
	}
}

func (h *Heartbeat) printLocked(msg string) {
	h.p.Printf("%s", msg)
	h.last = time.Now()
}

// Printf writes one progress line.
func (h *Heartbeat) Printf(format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.printLocked(fmt.Sprintf(format, args...))
}

// Phase starts a new phase: it writes the line and names the phase in the
// heartbeat's lines until the next phase, with the count of Tick reset.
func (h *Heartbeat) Phase(format string, args ...any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.phase = fmt.Sprintf(format, args...)
	h.phaseStart = time.Now()
	h.ticks.Store(0)
	h.printLocked(h.phase)
}

// Tick counts one finished work item of the current phase (one simulation,
// say); it only increments a counter.
func (h *Heartbeat) Tick() { h.ticks.Add(1) }

// Func returns a privinfer.ProgressFunc that writes every event of a
// library run as a line and makes it the current phase.
func (h *Heartbeat) Func() privinfer.ProgressFunc {
	return func(e privinfer.Progress) { h.Phase("%v", e) }
}

// Stop ends the heartbeat; later lines are written only by Printf and
// Phase.
func (h *Heartbeat) Stop() { h.stopped.Do(func() { close(h.done) }) }
