//go:build unix

package cli

import (
	"syscall"
	"time"
)

// ProcessCPU returns the CPU time (user and system, all threads) the
// process has used so far, and true; ok is false where it cannot be read.
// Examples divide effective sample sizes by its differences so that their
// per-second figures do not depend on how many cores were free.
func ProcessCPU() (d time.Duration, ok bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
