//go:build unix

package cli

import (
	"testing"
	"time"
)

// TestProcessCPU checks that the process CPU time is readable on Unix and
// grows while the test spins for 20 ms of CPU time by its own measure.
func TestProcessCPU(t *testing.T) {
	d0, ok := ProcessCPU()
	if !ok || d0 <= 0 {
		t.Fatalf("ProcessCPU() = %v, %v; want a positive duration and true", d0, ok)
	}
	deadline := time.Now().Add(10 * time.Second)
	x := 1.0
	for {
		for i := range 100000 {
			x = x*1.0000001 + float64(i&1)
		}
		d1, _ := ProcessCPU()
		if d1-d0 >= 20*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("process CPU time grew by %v in 10 s of spinning (%v)", d1-d0, x)
		}
	}
}
