package nats

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/internal/parallel"
)

// Block is a run of consecutive simulation rows: row First+k has parameter
// Theta[k·Dim:(k+1)·Dim], its summary goes to Stats[k·s:(k+1)·s] with s the
// simulator's StatDim, and it is simulated with Stream(Seed, First+k).
type Block struct {
	Seed, First uint64
	Dim         int
	Theta       []float64
	Stats       []float64
}

// RowError reports the failing row of a block with the lowest index.
type RowError struct {
	Index uint64
	Theta []float64
	Err   error
}

func (e *RowError) Error() string {
	return fmt.Sprintf("simulate: row %d, θ = %v: %v", e.Index, e.Theta, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }

// stream is the random stream of row index under seed.
func stream(seed, index uint64) *rand.Rand { return parallel.Stream(seed, index) }
