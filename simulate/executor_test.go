package simulate_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/privinfer/privinfer/internal/exectest"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/sir"
)

// wobble is a cheap two-statistic simulator that uses a varying number of
// draws per row (so a stream shared between rows would show).
type wobble struct{}

func (wobble) StatDim() int { return 2 }
func (wobble) Simulate(r *rand.Rand, theta, dst []float64) error {
	dst[0] = theta[0] + r.NormFloat64()
	k := 1 + r.IntN(5)
	s := 0.0
	for range k {
		s += r.Float64()
	}
	dst[1] = theta[1] * s
	return nil
}

// faulty fails on chosen rows, identified by θ[0]: a simulator error at
// θ[0] = 1, a panic at 2, NaN at 3, +Inf at 4.
type faulty struct{}

var errFaulty = errors.New("faulty row")

func (faulty) StatDim() int { return 1 }
func (faulty) Simulate(r *rand.Rand, theta, dst []float64) error {
	switch theta[0] {
	case 1:
		return errFaulty
	case 2:
		panic("faulty simulator")
	case 3:
		dst[0] = math.NaN()
	case 4:
		dst[0] = math.Inf(1)
	default:
		dst[0] = r.Float64()
	}
	return nil
}

func thetaRows(n, d int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	th := make([]float64, n*d)
	for i := range th {
		th[i] = r.NormFloat64()
	}
	return th
}

// TestExecutorBlockIndependence: a run gives the same bits in process and
// cut into shuffled blocks of 1, 7 and 64 rows run on goroutines, for
// Batch, PriorPredictive and a run starting at a nonzero First; and row i
// is exactly sim(Stream(seed, i), θ_i).
func TestExecutorBlockIndependence(t *testing.T) {
	const n, d = 300, 2
	th := thetaRows(n, d, 1)
	ref := make([]float64, n*2)
	if err := simulate.Batch(context.Background(), nil, wobble{}, th, d, 9, ref); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		want := make([]float64, 2)
		_ = wobble{}.Simulate(simulate.Stream(9, uint64(i)), th[i*d:(i+1)*d], want)
		if !slices.Equal(want, ref[2*i:2*i+2]) {
			t.Fatalf("row %d: %v, want sim(Stream(9, %d)) = %v", i, ref[2*i:2*i+2], i, want)
		}
	}
	prior, err := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0, 1}, Variances: []float64{1, 4}})
	if err != nil {
		t.Fatal(err)
	}
	refTh, refSt := make([]float64, n*d), make([]float64, n*2)
	if err := simulate.PriorPredictive(context.Background(), nil, prior, wobble{}, n, 5, refTh, refSt); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{1, 7, 64} {
		ex := &exectest.Shuffled{Size: size, Workers: 3, Seed: uint64(size)}
		got := make([]float64, n*2)
		if err := simulate.Batch(context.Background(), ex, wobble{}, th, d, 9, got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, ref) {
			t.Errorf("Batch with blocks of %d differs from in-process", size)
		}
		gTh, gSt := make([]float64, n*d), make([]float64, n*2)
		if err := simulate.PriorPredictive(context.Background(), ex, prior, wobble{}, n, 5, gTh, gSt); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gTh, refTh) || !slices.Equal(gSt, refSt) {
			t.Errorf("PriorPredictive with blocks of %d differs from in-process", size)
		}
		// The second half of the run as its own block gives the second
		// half of the reference.
		half := simulate.Block{Seed: 9, First: n / 2, Dim: d, Theta: th[n/2*d:], Stats: make([]float64, (n-n/2)*2)}
		if err := simulate.Execute(context.Background(), ex, wobble{}, half); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(half.Stats, ref[n/2*2:]) {
			t.Errorf("block starting at row %d with sub-blocks of %d differs from the whole run", n/2, size)
		}
		if ex.Blocks() < int64((n+size-1)/size) {
			t.Errorf("blocks of %d: only %d blocks ran", size, ex.Blocks())
		}
	}
}

// TestExecutorRowErrors: a simulator error, a panic, NaN and +Inf on one
// row each give a *RowError naming that row and its θ, whichever executor
// runs it; with several failing rows the lowest wins.
func TestExecutorRowErrors(t *testing.T) {
	const n = 200
	execs := []simulate.Executor{nil, simulate.InProcess{}, &exectest.Shuffled{Size: 1}, &exectest.Shuffled{Size: 7}, &exectest.Shuffled{Size: 64}}
	for _, c := range []struct {
		bad  float64
		want func(error) bool
	}{
		{1, func(err error) bool { return errors.Is(err, errFaulty) }},
		{2, func(err error) bool {
			var p *simulate.PanicError
			return errors.As(err, &p) && p.Value == "faulty simulator"
		}},
		{3, func(err error) bool { return errors.Is(err, simulate.ErrNonFinite) }},
		{4, func(err error) bool { return errors.Is(err, simulate.ErrNonFinite) }},
	} {
		for _, ex := range execs {
			th := make([]float64, n)
			th[150], th[77], th[131] = c.bad, c.bad, 1
			err := simulate.Batch(context.Background(), ex, faulty{}, th, 1, 1, make([]float64, n))
			var re *simulate.RowError
			if !errors.As(err, &re) {
				t.Fatalf("bad value %v, executor %T: %v is not a *RowError", c.bad, ex, err)
			}
			if re.Index != 77 || !slices.Equal(re.Theta, []float64{c.bad}) || !c.want(err) {
				t.Errorf("bad value %v, executor %T: got row %d θ %v (%v), want row 77 θ [%v]", c.bad, ex, re.Index, re.Theta, err, c.bad)
			}
			if !strings.Contains(err.Error(), "row 77") {
				t.Errorf("error %q does not name the row", err)
			}
		}
	}
}

// nanExec is an executor that forgets to check its rows: Execute catches
// the non-finite statistic on the driver.
type nanExec struct{}

func (nanExec) Execute(_ context.Context, _ simulate.Simulator, b simulate.Block) error {
	for i := range b.Stats {
		b.Stats[i] = 1
	}
	b.Stats[5] = math.NaN()
	return nil
}

// failExec fails as a broken transport would.
type failExec struct{}

var errTransport = errors.New("connection lost")

func (failExec) Execute(context.Context, simulate.Simulator, simulate.Block) error {
	return errTransport
}

func TestExecuteChecksExecutors(t *testing.T) {
	th := thetaRows(10, 2, 2)
	err := simulate.Batch(context.Background(), nanExec{}, wobble{}, th, 2, 1, make([]float64, 20))
	var re *simulate.RowError
	if !errors.As(err, &re) || re.Index != 2 || !errors.Is(err, simulate.ErrNonFinite) {
		t.Errorf("NaN from an executor: %v, want the *RowError of row 2", err)
	}
	err = simulate.Batch(context.Background(), failExec{}, wobble{}, th, 2, 1, make([]float64, 20))
	if !errors.Is(err, errTransport) || !strings.Contains(err.Error(), "failExec") {
		t.Errorf("executor failure: %v", err)
	}
	for _, b := range []simulate.Block{
		{Dim: 0, Theta: th, Stats: make([]float64, 20)},
		{Dim: 3, Theta: th, Stats: make([]float64, 20)},
		{Dim: 2, Theta: th, Stats: make([]float64, 19)},
		{Dim: 2, First: math.MaxUint64, Theta: th, Stats: make([]float64, 20)},
	} {
		if err := simulate.Execute(context.Background(), nil, wobble{}, b); !errors.Is(err, simulate.ErrInvalid) {
			t.Errorf("malformed block %+v: %v, want ErrInvalid", b, err)
		}
	}
	if err := simulate.Execute(nil, nil, wobble{}, simulate.Block{Dim: 2}); !errors.Is(err, simulate.ErrInvalid) {
		t.Errorf("nil context: %v", err)
	}
	if err := simulate.Execute(context.Background(), nil, nil, simulate.Block{Dim: 2}); !errors.Is(err, simulate.ErrInvalid) {
		t.Errorf("nil simulator: %v", err)
	}
}

// TestExecutorCancellation: a run cancelled by its 10th simulation stops
// with context.Canceled before the last rows, in process and through
// shuffled blocks. The simulations after the 10th wait for the
// cancellation (exectest.CancelAt.Stop): otherwise a worker descheduled
// inside the 10th call lets the other run every remaining row first, and
// the run rightly succeeds.
func TestExecutorCancellation(t *testing.T) {
	const n = 5000
	for _, ex := range []simulate.Executor{nil, &exectest.Shuffled{Size: 7, Workers: 1}} {
		ctx, cancel := context.WithCancel(context.Background())
		th := make([]float64, n)
		for i := range th {
			th[i] = float64(i)
		}
		st := make([]float64, n)
		var done atomic.Int64
		sim := exectest.CancelAt{N: 10, Done: &done, Cancel: cancel, Stop: ctx.Done()} // row i simulates i
		err := simulate.Batch(ctx, ex, sim, th, 1, 1, st)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("executor %T: %v, want context.Canceled", ex, err)
		}
		if zeros := slices.Index(st[n-100:], 0); zeros < 0 {
			t.Errorf("executor %T: every row ran despite cancellation", ex)
		}
		if k := done.Load(); k > 10+int64(runtime.GOMAXPROCS(0)) {
			t.Errorf("executor %T: %d rows started, want at most the 10th and those in flight", ex, k)
		}
		cancel()
	}
}

func TestBlockSplit(t *testing.T) {
	b := simulate.Block{Seed: 1, First: 10, Dim: 2, Theta: make([]float64, 2*15), Stats: make([]float64, 3*15)}
	parts := b.Split(4)
	if len(parts) != 4 || parts[3].Rows() != 3 || parts[2].First != 18 || len(parts[2].Stats) != 12 {
		t.Fatalf("Split(4) of 15 rows: %d parts, last %d rows, third at %d", len(parts), parts[len(parts)-1].Rows(), parts[2].First)
	}
	if got := b.Split(0); len(got) != 1 || got[0].Rows() != 15 {
		t.Errorf("Split(0) gave %d parts", len(got))
	}
}

// TestRunBlockMatchesBatchOnPrivate checks the streams on a real model:
// RunBlock over a private SIR simulator, row by row, equals Batch.
func TestRunBlockMatchesBatchOnPrivate(t *testing.T) {
	sim, _ := sir.New(sir.Config{K: 500})
	mech, _ := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 500, Times: 10})
	priv, err := simulate.Private(sim, mech)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	th := make([]float64, 2*n)
	prior := sir.Prior()
	r := rand.New(rand.NewPCG(4, 4))
	for i := range n {
		prior.Sample(r, th[2*i:2*i+2])
	}
	a, b := make([]float64, 10*n), make([]float64, 10*n)
	if err := simulate.Batch(context.Background(), nil, priv, th, 2, 3, a); err != nil {
		t.Fatal(err)
	}
	if err := simulate.RunBlock(context.Background(), priv, simulate.Block{Seed: 3, Dim: 2, Theta: th, Stats: b}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Error("RunBlock differs from Batch")
	}
}

// BenchmarkInProcessBlock measures the in-process executor's overhead per
// block of 64 rows of a trivial simulator (the per-row cost of streams and
// row checks, and the per-block cost of starting the workers).
func BenchmarkInProcessBlock(b *testing.B) {
	for _, rows := range []int{1, 64, 4096} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			th := thetaRows(rows, 2, 1)
			blk := simulate.Block{Seed: 1, Dim: 2, Theta: th, Stats: make([]float64, 2*rows)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if err := simulate.Execute(ctx, nil, wobble{}, blk); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunBlock measures a worker's serial loop over a block of 64 rows.
func BenchmarkRunBlock(b *testing.B) {
	th := thetaRows(64, 2, 1)
	blk := simulate.Block{Seed: 1, Dim: 2, Theta: th, Stats: make([]float64, 128)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := simulate.RunBlock(ctx, wobble{}, blk); err != nil {
			b.Fatal(err)
		}
	}
}

// TestExecutorNoAllocsPerRow: the in-process executor and RunBlock
// allocate per block only (workers, one generator), never per row: the
// count is the same for 64 and 4096 rows.
func TestExecutorNoAllocsPerRow(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	ctx := context.Background()
	count := func(rows int, run func(simulate.Block) error) float64 {
		blk := simulate.Block{Seed: 1, Dim: 2, Theta: thetaRows(rows, 2, 1), Stats: make([]float64, 2*rows)}
		return testing.AllocsPerRun(20, func() {
			if err := run(blk); err != nil {
				t.Fatal(err)
			}
		})
	}
	for name, run := range map[string]func(simulate.Block) error{
		"InProcess": func(b simulate.Block) error { return simulate.Execute(ctx, nil, wobble{}, b) },
		"RunBlock":  func(b simulate.Block) error { return simulate.RunBlock(ctx, wobble{}, b) },
	} {
		small, large := count(64, run), count(4096, run)
		if large > small+1 {
			t.Errorf("%s: %v allocations for 64 rows, %v for 4096", name, small, large)
		}
		t.Logf("%s: %v allocations for 64 rows, %v for 4096", name, small, large)
	}
}
