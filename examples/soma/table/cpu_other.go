//go:build !unix

package main

import "time"

// cpuTime returns the wall clock and false where the process CPU time is
// not available; the table then reports wall seconds.
func cpuTime() (time.Duration, bool) { return time.Duration(time.Now().UnixNano()), false }
