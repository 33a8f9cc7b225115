//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used,
// and true; the table's per-second figures divide by its differences.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return time.Duration(time.Now().UnixNano()), false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
