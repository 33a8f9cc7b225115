package simulate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime/debug"
	"slices"

	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/parallel"
)

// Stream returns the random stream of row index under seed: a PCG-DXSM
// generator whose state is derived from (seed, index) alone. Every
// simulation of a run uses the stream of its row, so its result depends on
// (seed, index, θ) only — never on the machine, worker or block that ran
// it. These are the streams of the package's parallel helpers: row i of
// Batch uses Stream(seed, i).
func Stream(seed, index uint64) *rand.Rand { return parallel.Stream(seed, index) }

// SeedStream sets p to the starting state of Stream(seed, index), so that a
// loop over many rows can reuse one generator without allocating:
//
//	var pcg rand.PCG
//	r := rand.New(&pcg)
//	for i := range rows { SeedStream(&pcg, seed, first+i); sim.Simulate(r, …) }
func SeedStream(p *rand.PCG, seed, index uint64) { parallel.SeedPCG(p, seed, index) }

// Block is one unit of simulation work: rows First, First+1, …,
// First+Rows()−1 of a run. Row k of the block is simulated at
// θ = Theta[k·Dim:(k+1)·Dim] with the stream Stream(Seed, First+k), and its
// statistic is written into Stats[k·StatDim:(k+1)·StatDim]. A block cut
// out of a block (Slice, Split) is a block of the same run with the same
// streams, so how a run is cut into blocks never changes its result.
type Block struct {
	// Seed selects the run's streams.
	Seed uint64
	// First is the index of the block's first row within the run.
	First uint64
	// Dim is the length of θ (≥ 1).
	Dim int
	// Theta holds Rows×Dim parameter values, row-major. Executors only
	// read it.
	Theta []float64
	// Stats receives Rows×StatDim statistics, row-major, written by the
	// executor.
	Stats []float64
}

// Rows is the number of rows, len(Theta)/Dim (0 when Dim < 1).
func (b Block) Rows() int {
	if b.Dim < 1 {
		return 0
	}
	return len(b.Theta) / b.Dim
}

// Check reports whether b is a well-formed block for a simulator of
// statistics of length statDim: Dim ≥ 1, len(Theta) a multiple of Dim and
// len(Stats) = Rows·statDim. Its errors wrap ErrInvalid. A remote worker
// calls it before simulating a block it received.
func (b Block) Check(statDim int) error {
	switch {
	case b.Dim < 1:
		return fmt.Errorf("%w: block Dim must be >= 1, got %d", ErrInvalid, b.Dim)
	case statDim < 1:
		return fmt.Errorf("%w: block statistic dimension must be >= 1, got %d", ErrInvalid, statDim)
	case len(b.Theta)%b.Dim != 0:
		return fmt.Errorf("%w: block Theta has %d values, not a multiple of Dim %d", ErrInvalid, len(b.Theta), b.Dim)
	case len(b.Stats) != b.Rows()*statDim:
		return fmt.Errorf("%w: block Stats has %d values, want %d rows × StatDim %d", ErrInvalid, len(b.Stats), b.Rows(), statDim)
	case b.Rows() > 0 && b.First > math.MaxUint64-uint64(b.Rows()-1):
		return fmt.Errorf("%w: block rows from %d overflow the row index", ErrInvalid, b.First)
	}
	return nil
}

// Slice returns rows lo..hi−1 of b as a block of the same run (First+lo),
// sharing b's storage. It panics if 0 ≤ lo ≤ hi ≤ Rows() does not hold or
// b's Stats does not hold a whole number of rows.
func (b Block) Slice(lo, hi int) Block {
	n := b.Rows()
	if lo < 0 || hi < lo || hi > n {
		panic(fmt.Sprintf("simulate: Block.Slice(%d, %d) out of range [0, %d]", lo, hi, n))
	}
	sd := 0
	if n > 0 {
		sd = len(b.Stats) / n
	}
	return Block{Seed: b.Seed, First: b.First + uint64(lo), Dim: b.Dim,
		Theta: b.Theta[lo*b.Dim : hi*b.Dim : hi*b.Dim], Stats: b.Stats[lo*sd : hi*sd : hi*sd]}
}

// Split cuts b into consecutive blocks of size rows (the last may be
// shorter), sharing b's storage. size < 1 means one block.
func (b Block) Split(size int) []Block {
	n := b.Rows()
	if size < 1 || size >= n {
		return []Block{b}
	}
	out := make([]Block, 0, (n+size-1)/size)
	for lo := 0; lo < n; lo += size {
		out = append(out, b.Slice(lo, min(lo+size, n)))
	}
	return out
}

// Executor simulates blocks of rows. Execute fills b.Stats for every row
// of b and returns nil, or returns an error: a *RowError for the
// lowest-indexed failing row (a simulator error, a panic, a non-finite
// statistic), ctx.Err() when ctx ends first, or an error of the executor
// itself (a lost connection, a simulator unknown to a worker). Execute may
// cut b into blocks of any size and run them in any order, anywhere, as
// long as row First+k is simulated with Stream(Seed, First+k) (RunBlock
// does this): the statistics then depend only on (Seed, index, θ) and are
// identical whichever executor ran them.
//
// # What the engines pass as sim
//
// Every engine hands the executor the Problem's confidential Simulator
// (privinfer.Problem.Simulator), never a composite with the mechanism or a
// closure: the privacy mechanism, the distances of ABC and the weights of
// importance sampling are applied on the driver, from streams of the
// driver's own. A remote executor, which cannot ship sim, therefore looks
// the simulator up by a name configured on both sides and registers the
// very Simulator of the Problem (same model, same settings) on its workers;
// it can check sim.StatDim against the worker's. Nothing about the
// mechanism or the privacy budget is configured on workers.
//
// # Why parameters are proposed on the driver
//
// A row's random stream covers the simulation only. θ is drawn (from the
// prior, a perturbation kernel or a flow) on the driver from streams that
// depend on the engine's seed, so a block is plain data — (Seed, First,
// θ) in, statistics out — that any machine can simulate and that carries
// no state between rows. Engines that simulate until acceptance (SMC-ABC)
// repeat such batches for the rows not yet accepted.
type Executor interface {
	Execute(ctx context.Context, sim Simulator, b Block) error
}

// InProcess is the default executor: it simulates the rows of a block on
// all cores of this process (one goroutine per core, rows handed out in
// increasing order), each row with its own stream. It is what every
// engine uses when its Config.Executor is nil; results do not depend on
// GOMAXPROCS.
type InProcess struct{}

// Execute simulates every row of b on all cores. A failing row stops the
// rows after it from starting; the error of the lowest failing row is
// returned as a *RowError. When ctx ends, no further row starts and
// ctx.Err() is returned. It allocates nothing per row.
func (InProcess) Execute(ctx context.Context, sim Simulator, b Block) error {
	if err := checkExec(ctx, sim, b); err != nil {
		return err
	}
	n := b.Rows()
	if n == 0 {
		return nil
	}
	sd := sim.StatDim()
	return parallel.MapAt(ctx, n, b.Seed, b.First, func(k int, r *rand.Rand) error {
		return simulateRow(sim, r, b.First+uint64(k), b.Theta[k*b.Dim:(k+1)*b.Dim], b.Stats[k*sd:(k+1)*sd])
	})
}

// RunBlock simulates the rows of b one after another on the calling
// goroutine, row First+k with Stream(Seed, First+k): what a worker of a
// remote executor runs for each block it receives. It stops at the first
// failing row and returns its *RowError, or returns ctx.Err() if ctx ends
// between rows. It allocates nothing per row.
func RunBlock(ctx context.Context, sim Simulator, b Block) error {
	if err := checkExec(ctx, sim, b); err != nil {
		return err
	}
	n := b.Rows()
	sd := sim.StatDim()
	var pcg rand.PCG
	r := rand.New(&pcg)
	for k := 0; k < n; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		idx := b.First + uint64(k)
		parallel.SeedPCG(&pcg, b.Seed, idx)
		if err := simulateRow(sim, r, idx, b.Theta[k*b.Dim:(k+1)*b.Dim], b.Stats[k*sd:(k+1)*sd]); err != nil {
			return err
		}
	}
	return nil
}

// Execute runs b through e (InProcess when e is nil) and checks what comes
// back: the engines call it for every batch they simulate. It validates the
// arguments (errors wrapping ErrInvalid), and after a successful run scans
// b.Stats on the driver, so a non-finite statistic is reported as the
// *RowError of its row whichever executor produced it. Errors of the
// executor other than a *RowError or the context's are wrapped with the
// executor's type.
func Execute(ctx context.Context, e Executor, sim Simulator, b Block) error {
	if err := checkExec(ctx, sim, b); err != nil {
		return err
	}
	if argcheck.Nil(e) {
		e = InProcess{}
	}
	err := e.Execute(ctx, sim, b)
	if err != nil {
		var re *RowError
		if errors.As(err, &re) || errors.Is(err, ctx.Err()) || errors.Is(err, ErrInvalid) {
			return err
		}
		return fmt.Errorf("simulate: executor %T: %w", e, err)
	}
	if _, ok := e.(InProcess); ok {
		return nil // InProcess already checked every row.
	}
	sd := sim.StatDim()
	for i, v := range b.Stats {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			k := i / sd
			return &RowError{Index: b.First + uint64(k), Theta: slices.Clone(b.Theta[k*b.Dim : (k+1)*b.Dim]),
				Err: fmt.Errorf("%w: statistic %d is %v", ErrNonFinite, i%sd, v)}
		}
	}
	return nil
}

// checkExec validates the arguments of an execution.
func checkExec(ctx context.Context, sim Simulator, b Block) error {
	if ctx == nil {
		return fmt.Errorf("%w: context is nil", ErrInvalid)
	}
	if argcheck.Nil(sim) {
		return fmt.Errorf("%w: simulator is nil", ErrInvalid)
	}
	return b.Check(sim.StatDim())
}

// simulateRow simulates row idx at theta into dst, turning a simulator
// error, a panic and a non-finite statistic into a *RowError.
func simulateRow(sim Simulator, r *rand.Rand, idx uint64, theta, dst []float64) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &RowError{Index: idx, Theta: slices.Clone(theta), Err: &PanicError{Value: v, Stack: debug.Stack()}}
		}
	}()
	if e := sim.Simulate(r, theta, dst); e != nil {
		return &RowError{Index: idx, Theta: slices.Clone(theta), Err: e}
	}
	for j, v := range dst {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &RowError{Index: idx, Theta: slices.Clone(theta), Err: fmt.Errorf("%w: statistic %d is %v", ErrNonFinite, j, v)}
		}
	}
	return nil
}

// ErrNonFinite is wrapped by the *RowError of a row whose simulated
// statistic has a NaN or infinite entry.
var ErrNonFinite = errors.New("simulate: simulator returned a non-finite statistic")

// RowError reports the failure of one row of a run: the simulator returned
// an error, panicked (Err is a *PanicError) or wrote a non-finite statistic
// (Err wraps ErrNonFinite). Every executor returns it for the
// lowest-indexed failing row, so the error of a run is deterministic. It
// is the one simulation-failure error of every engine (abc, flow/sbi, the
// executors): use errors.As to read it out of an engine's error.
type RowError struct {
	// Index is the row's index within the run (Block.First + k).
	Index uint64
	// Theta is the row's parameter vector (a copy).
	Theta []float64
	// Err is the cause.
	Err error
}

// Error names the row, its parameters and the cause.
func (e *RowError) Error() string {
	return fmt.Sprintf("simulate: row %d at θ = %v: %v", e.Index, e.Theta, e.Err)
}

// Unwrap returns the cause.
func (e *RowError) Unwrap() error { return e.Err }

// PanicError is the cause of a *RowError whose simulator panicked: a
// panic in a simulator fails its row instead of crashing the process.
type PanicError struct {
	// Value is the value passed to panic.
	Value any
	// Stack is the panicking goroutine's stack trace (nil when the error
	// was rebuilt from a remote worker's report).
	Stack []byte
}

// Error reports the panic value.
func (e *PanicError) Error() string { return fmt.Sprintf("simulator panicked: %v", e.Value) }
