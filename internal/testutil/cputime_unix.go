//go:build unix

package testutil

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time (user and system) used by the process
// so far, or ok = false when it cannot be read. Benchmarks report it
// beside wall time because wall time is inflated on a loaded machine.
func ProcessCPU() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
