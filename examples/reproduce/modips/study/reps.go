package study

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/privinfer/privinfer/simulate"
)

// mapReps runs fn(i, r) for the replications i = 0, …, n−1 on GOMAXPROCS
// goroutines, replication i drawing from its own stream simulate.Stream(seed,
// i), so that results depend on the seed only. It returns the error of
// the lowest-numbered failing replication, or the context's error if it
// was cancelled first; replications not started by then are skipped.
func mapReps(ctx context.Context, n int, seed uint64, fn func(i int, r *rand.Rand) error) error {
	errs := make([]error, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				errs[i] = fn(i, simulate.Stream(seed, uint64(i)))
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}
