//go:build race

package mcmc

// raceEnabled reports whether the race detector is on; allocation counts
// are not meaningful under it (sync.Pool drops a random quarter of its
// Puts in race builds).
const raceEnabled = true
