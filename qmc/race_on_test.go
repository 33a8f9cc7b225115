//go:build race

package qmc

// raceEnabled reports whether the race detector is on; allocation counts
// are not meaningful under it.
const raceEnabled = true
