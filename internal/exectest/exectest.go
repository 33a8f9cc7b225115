// Package exectest provides a simulate.Executor for tests that proves a
// run's results do not depend on how it is cut into blocks, in which order
// the blocks run or on which goroutine: Shuffled cuts every block it is
// given into blocks of a fixed number of rows, runs them in a random order
// on several goroutines with simulate.RunBlock, and reports the failure of
// the lowest failing row, as a remote executor must.
package exectest

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/privinfer/privinfer/simulate"
)

// Shuffled is a simulate.Executor that splits each block into blocks of
// Size rows (Size < 1: one block), shuffles them with a generator seeded
// from Seed and a per-call counter (so successive calls run in different
// orders), and simulates them on Workers goroutines (Workers < 1: 4).
type Shuffled struct {
	Size    int
	Workers int
	Seed    uint64
	calls   atomic.Uint64
	blocks  atomic.Int64
}

// Blocks is the number of blocks run so far.
func (s *Shuffled) Blocks() int64 { return s.blocks.Load() }

// Execute runs b as shuffled sub-blocks on goroutines. Every sub-block
// runs to its end or first failure; the error returned is that of the
// first failing sub-block in row order, so the lowest failing row wins.
func (s *Shuffled) Execute(ctx context.Context, sim simulate.Simulator, b simulate.Block) error {
	if err := b.Check(sim.StatDim()); err != nil {
		return err
	}
	parts := b.Split(s.Size)
	s.blocks.Add(int64(len(parts)))
	call := s.calls.Add(1)
	order := rand.New(rand.NewPCG(s.Seed, call)).Perm(len(parts))
	errs := make([]error, len(parts))
	w := s.Workers
	if w < 1 {
		w = 4
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				errs[j] = simulate.RunBlock(ctx, sim, parts[j])
			}
		}()
	}
	for _, j := range order {
		jobs <- j
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
