package cli

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/privinfer/privinfer"
)

// lockedBuffer is a strings.Builder safe for the heartbeat's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHeartbeat: a silent phase gets "still working" lines naming it and
// its count of finished items; lines written in time keep it quiet.
func TestHeartbeat(t *testing.T) {
	var out lockedBuffer
	h := NewHeartbeat(NewProgress(&out), 100*time.Millisecond)
	h.Func()(privinfer.Progress{Stage: "simulate", Round: 2})
	h.Tick()
	h.Tick()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(out.String(), "still working") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	h.Stop()
	s := out.String()
	if !strings.Contains(s, "] round 2 simulate (0s)\n") || !strings.Contains(s, "still working after: round 2 simulate (0s) (") || !strings.Contains(s, ", 2 done)") {
		t.Errorf("silent phase:\n%s", s)
	}

	var quiet lockedBuffer
	h = NewHeartbeat(NewProgress(&quiet), time.Second)
	for i := 0; i < 5; i++ {
		h.Phase("step %d", i)
		time.Sleep(20 * time.Millisecond)
	}
	h.Stop()
	h.Stop()
	if s := quiet.String(); strings.Contains(s, "still working") || strings.Count(s, "\n") != 5 {
		t.Errorf("busy run:\n%s", s)
	}
}
