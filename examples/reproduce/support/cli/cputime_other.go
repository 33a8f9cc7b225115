//go:build !unix

package cli

import "time"

// ProcessCPU reports that the process CPU time is not available here
// (ok = false); callers fall back to wall time and say so.
func ProcessCPU() (d time.Duration, ok bool) { return 0, false }
