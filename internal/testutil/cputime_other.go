//go:build !unix

package testutil

import "time"

// ProcessCPU reports that the process CPU time is not available here.
func ProcessCPU() (time.Duration, bool) { return 0, false }
