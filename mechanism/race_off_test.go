//go:build !race

package mechanism

// raceEnabled reports whether the race detector is on; allocation counts
// are not meaningful under it (sync.Pool drops a quarter of its items).
const raceEnabled = false
