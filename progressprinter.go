package privinfer

import (
	"io"
	"sync"
	"time"
)

// ProgressPrinter returns a ProgressFunc that writes events to w as lines
// (Progress.String and a newline), throttled for runs that emit many events
// (training epochs, MCMC iterations):
//
//   - the first event of every stage is written (a stage is a run of events
//     with the same Stage and Round);
//   - the last event of every stage is written: at once when it completes
//     the stage (Step ≥ Total > 0), otherwise, if it was held back, just
//     before the first event of the next stage;
//   - any other event is written only when at least every has passed since
//     the last line written, so that a run reports at least that often
//     while it emits events and no more than one line per interval.
//
// An every ≤ 0 writes every event. Each line goes to w in one Write call;
// write errors are ignored (progress is advisory). The function is safe
// for concurrent use, so it may be shared by several runs. A nil w gives a
// function that discards every event.
func ProgressPrinter(w io.Writer, every time.Duration) ProgressFunc {
	return newProgressPrinter(w, every, time.Now)
}

// progressPrinter is the state of a ProgressPrinter; now is its clock.
type progressPrinter struct {
	mu      sync.Mutex
	w       io.Writer
	every   time.Duration
	now     func() time.Time
	last    time.Time // when the last line was written
	wrote   bool      // a line was written
	stage   string    // Stage and Round of the last event seen
	round   int
	pending *Progress // the last event seen, when it was not written
}

// newProgressPrinter is ProgressPrinter with the clock now.
func newProgressPrinter(w io.Writer, every time.Duration, now func() time.Time) ProgressFunc {
	if w == nil {
		return func(Progress) {}
	}
	p := &progressPrinter{w: w, every: every, now: now}
	return p.event
}

func (p *progressPrinter) event(e Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	first := !p.wrote && p.pending == nil || e.Stage != p.stage || e.Round != p.round
	if first && p.pending != nil {
		p.write(*p.pending, t) // the previous stage's last event
	}
	p.pending = nil
	p.stage, p.round = e.Stage, e.Round
	done := e.Total > 0 && e.Step >= e.Total
	if first || done || p.every <= 0 || t.Sub(p.last) >= p.every {
		p.write(e, t)
		return
	}
	p.pending = &e
}

// write writes one line; p.mu is held.
func (p *progressPrinter) write(e Progress, t time.Time) {
	_, _ = io.WriteString(p.w, e.String()+"\n")
	p.last, p.wrote = t, true
}
