package privinfer

import (
	"fmt"
	"strings"
	"time"
)

// Progress is the one progress event of every long run: SMC-ABC rounds,
// MCMC chains, kernel importance-sampling stages, flow training epochs,
// SPPE and SPLE rounds, synthesis studies. Engines deliver it through the
// Progress field of their Config.
//
// A run is a sequence of stages (for example "simulate", "train",
// "sample" inside SPPE round 2); within a stage Step counts up to Total.
// Fields that do not apply are zero.
type Progress struct {
	// Stage names what the run is doing, in lower case ("round", "chain",
	// "epoch", "stage", "warmup", "sample", …). Engines document theirs.
	Stage string
	// Round is the 1-based outer round of a sequential method (SMC-ABC,
	// SPPE, SPLE), 0 when the run has no rounds.
	Round int
	// Step of Total is the position within the stage: Step counts from 1
	// and equals Total when the stage is complete. Total is 0 when the
	// number of steps is not known in advance.
	Step, Total int
	// Elapsed is the wall time since the run started.
	Elapsed time.Duration
	// Message is a short human-readable status, such as the current
	// tolerance, acceptance rate or loss.
	Message string
}

// ProgressFunc receives progress events. Engines call it synchronously
// from the goroutine that called the engine, one event at a time and
// never concurrently, so it needs no locking; it should return quickly,
// since the run waits for it. A nil ProgressFunc means no reporting.
type ProgressFunc func(Progress)

// Report calls f with p if f is not nil.
func (f ProgressFunc) Report(p Progress) {
	if f != nil {
		f(p)
	}
}

// Fraction returns Step/Total clamped to [0, 1], or 0 when Total is 0.
func (p Progress) Fraction() float64 {
	if p.Total <= 0 {
		return 0
	}
	return min(max(float64(p.Step)/float64(p.Total), 0), 1)
}

// String formats the event on one line, e.g.
// "round 3 sample 400/1000 (12.5s): tolerance 0.21". An event of stage
// "round" names its round once: "round 2/10 (2s)" when Step counts the
// rounds, "round 3 (2s)" otherwise (not "round 3 round (2s)").
func (p Progress) String() string {
	var b strings.Builder
	// A "round" event says its round once: "round 2/10" when Step counts
	// the rounds, "round 3" otherwise.
	roundEvent := p.Stage == "round" && p.Round > 0
	if p.Round > 0 && !(roundEvent && p.Step == p.Round) {
		fmt.Fprintf(&b, "round %d ", p.Round)
	}
	if p.Stage != "" && !(roundEvent && p.Step != p.Round) {
		b.WriteString(p.Stage)
		b.WriteByte(' ')
	}
	switch {
	case p.Total > 0:
		fmt.Fprintf(&b, "%d/%d ", p.Step, p.Total)
	case p.Step > 0:
		fmt.Fprintf(&b, "%d ", p.Step)
	}
	fmt.Fprintf(&b, "(%s)", p.Elapsed.Round(100*time.Millisecond))
	if p.Message != "" {
		b.WriteString(": ")
		b.WriteString(p.Message)
	}
	return b.String()
}
