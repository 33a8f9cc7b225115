package privinfer

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test advances by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestProgressPrinterThrottles(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	f := newProgressPrinter(&b, time.Second, clk.now)
	ev := func(stage string, round, step, total int) Progress {
		return Progress{Stage: stage, Round: round, Step: step, Total: total, Message: fmt.Sprintf("s%d", step)}
	}
	// Stage 1: 100 epochs, one every 30 ms: the first, one line per
	// second (every 34 events: at 1.02 s, 2.04 s), and the completing one.
	for i := 1; i <= 100; i++ {
		f(ev("epoch", 1, i, 100))
		clk.advance(30 * time.Millisecond)
	}
	// Stage 2, Total unknown: first written, the rest within the interval
	// held back; the last is written when stage 3 begins.
	for i := 1; i <= 5; i++ {
		f(ev("sample", 1, i, 0))
		clk.advance(10 * time.Millisecond)
	}
	// Stage 3: a new round of the same stage name is a new stage.
	f(ev("epoch", 2, 1, 3))
	clk.advance(10 * time.Millisecond)
	f(ev("epoch", 2, 2, 3)) // dropped
	want := []string{
		"round 1 epoch 1/100 (0s): s1",
		"round 1 epoch 35/100 (0s): s35",
		"round 1 epoch 69/100 (0s): s69",
		"round 1 epoch 100/100 (0s): s100",
		"round 1 sample 1 (0s): s1",
		"round 1 sample 5 (0s): s5",
		"round 2 epoch 1/3 (0s): s1",
	}
	if got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestProgressPrinterEveryZero(t *testing.T) {
	var b bytes.Buffer
	clk := &fakeClock{t: time.Unix(0, 0)}
	f := newProgressPrinter(&b, 0, clk.now)
	for i := range 5 {
		f(Progress{Stage: "chain", Step: i + 1})
	}
	if n := strings.Count(b.String(), "\n"); n != 5 {
		t.Errorf("every = 0 wrote %d of 5 events:\n%s", n, b.String())
	}
	ProgressPrinter(nil, time.Second)(Progress{Stage: "x"}) // discards, no panic
}

// lineWriter records Write calls, failing the test on a partial line.
type lineWriter struct {
	mu    sync.Mutex
	lines []string
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, string(b))
	return len(b), nil
}

func TestProgressPrinterConcurrent(t *testing.T) {
	var w lineWriter
	f := ProgressPrinter(&w, 0)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				f(Progress{Stage: "chain", Round: g + 1, Step: i + 1, Total: 50})
			}
		}()
	}
	wg.Wait()
	if len(w.lines) != 400 {
		t.Errorf("%d lines, want 400", len(w.lines))
	}
	for _, l := range w.lines {
		if !strings.HasPrefix(l, "round ") || !strings.HasSuffix(l, "/50 (0s)\n") || strings.Count(l, "\n") != 1 {
			t.Fatalf("line written in pieces or garbled: %q", l)
		}
	}
}
