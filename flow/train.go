package flow

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/privinfer/privinfer"
	itrain "github.com/privinfer/privinfer/flow/internal/train"
	"github.com/privinfer/privinfer/flow/internal/vec"
	"github.com/privinfer/privinfer/flow/optim"
)

// TrainConfig holds the settings of maximum-likelihood training. The
// library's defaults (DefaultTrainConfig) are: Adam with
// learning rate 5·10⁻⁴ and weight decay 10⁻⁴ (decoupled, AdamW), batches
// of 100, 5% of the data held out for validation, and early stopping after
// 20 epochs without improvement of the validation loss, restoring the best
// parameters; gradients are clipped to norm 5 as in the sbi package.
type TrainConfig struct {
	LearningRate       float64 // Adam learning rate, > 0
	WeightDecay        float64 // decoupled weight decay, ≥ 0
	BatchSize          int     // rows per optimiser step, ≥ 1
	MaxEpochs          int     // upper bound on epochs, ≥ 1
	Patience           int     // epochs without validation improvement before stopping, ≥ 1
	ValidationFraction float64 // in [0, 1); 0 disables validation and early stopping
	ClipNorm           float64 // gradient-norm clipping threshold; 0 disables
	// EMA is the decay β ∈ [0, 1) of an exponential moving average of the
	// parameters, updated after every step (a ← β·a + (1−β)·φ): the
	// validation loss, the early stopping and the parameters kept are
	// those of the average, which smooths the noise of the last steps
	// out of the estimate. 0 disables it (the parameters themselves are
	// kept).
	EMA  float64
	Seed uint64 // seeds the validation split and the batch order

	// Shards is the fixed number of pieces every batch is cut into for
	// data-parallel gradient evaluation. Each shard accumulates its own
	// gradient and the shard gradients are summed in shard order, so the
	// result depends on Shards but never on Workers or GOMAXPROCS.
	// 0 means 8.
	Shards int
	// Workers is the number of goroutines evaluating shards; 0 means
	// GOMAXPROCS.
	Workers int
	// Float32 computes the conditioners' hidden-layer products of every
	// training step (and the validation losses of Fit) in float32
	// arithmetic, their operands rounded to float32 and sums of at most
	// 128 products accumulated in float32, and evaluates the splines of
	// those steps in float32 too (knots, values, log-derivatives and
	// their gradients, eight splines at a time; inputs outside the tail
	// bound pass through unrounded; in dimension 1 with contexts shared
	// by groups of rows the shared splines stay in float64). Everything
	// else (the losses, the optimiser, the parameters, the LU layers) is
	// float64. On amd64 machines with AVX2 (or AVX-512) a step of the SBI
	// paper's flow then takes about 0.6 of the float64 CPU time;
	// elsewhere the float32 products and splines run in portable Go and
	// are slower than the default. Gradients change by a few 10⁻⁶
	// relative.
	// The trained flow is evaluated and sampled in float64 as always.
	Float32 bool
	// Progress, if not nil, receives an event with Stage "epoch" after
	// every epoch of Fit: Step is the 1-based epoch, Total is MaxEpochs and
	// Message gives the training and validation losses. The per-epoch
	// losses are also in the FitResult.
	Progress privinfer.ProgressFunc
}

// FitResult summarises a Fit.
type FitResult struct {
	Epochs             int       // epochs run
	BestEpoch          int       // epoch whose parameters were kept
	BestValidationLoss float64   // validation loss of the kept parameters (NaN without validation)
	EarlyStopped       bool      // training stopped because of Patience
	TrainLoss          []float64 // per epoch
	ValidationLoss     []float64 // per epoch
}

// DefaultTrainConfig returns the library's default training settings (see
// TrainConfig), picked by the rule of DefaultConfig: a setting with
// published results to compare against, the training of the sbi
// package's flows as the SBI paper ran it (App. E). flow/sbi's
// DefaultTrain departs from it where measured.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{
		LearningRate: 5e-4, WeightDecay: 1e-4, BatchSize: 100, MaxEpochs: 1000,
		Patience: 20, ValidationFraction: 0.05, ClipNorm: 5, Shards: 8,
	}
}

// Validate checks the settings: LearningRate finite and > 0, WeightDecay
// and ClipNorm finite and ≥ 0, BatchSize in [1, 2^24] (a trainer holds
// per-row workspaces of every layer, so a batch beyond 2^24 rows could not
// be allocated), MaxEpochs and Patience ≥ 1, ValidationFraction and EMA in
// [0, 1), Shards in [0, 4096] and Workers ≥ 0.
// Errors wrap ErrInvalid and name the field.
func (c TrainConfig) Validate() error {
	bad := func(field, format string, a ...any) error {
		return fmt.Errorf("%w: TrainConfig.%s: "+format, append([]any{ErrInvalid, field}, a...)...)
	}
	switch {
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return bad("LearningRate", "must be > 0 and finite, got %v", c.LearningRate)
	case !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0):
		return bad("WeightDecay", "must be >= 0 and finite, got %v", c.WeightDecay)
	case c.BatchSize < 1 || c.BatchSize > 1<<24:
		return bad("BatchSize", "must be in [1, 2^24], got %d", c.BatchSize)
	case c.MaxEpochs < 1:
		return bad("MaxEpochs", "must be >= 1, got %d", c.MaxEpochs)
	case c.Patience < 1:
		return bad("Patience", "must be >= 1, got %d", c.Patience)
	case !(c.ValidationFraction >= 0 && c.ValidationFraction < 1):
		return bad("ValidationFraction", "must be in [0, 1), got %v", c.ValidationFraction)
	case !(c.ClipNorm >= 0) || math.IsInf(c.ClipNorm, 0):
		return bad("ClipNorm", "must be >= 0 and finite, got %v", c.ClipNorm)
	case !(c.EMA >= 0 && c.EMA < 1):
		return bad("EMA", "must be in [0, 1), got %v", c.EMA)
	case c.Shards < 0 || c.Shards > 1<<12:
		return bad("Shards", "must be in [0, 4096], got %d", c.Shards)
	case c.Workers < 0:
		return bad("Workers", "must be >= 0, got %d", c.Workers)
	}
	return nil
}

// trainer takes optimiser steps on a flow: it evaluates gradients in
// parallel over a fixed partition of each batch (see TrainConfig.Shards),
// clips them and applies AdamW. After the first step of a given batch size
// a step allocates nothing. A trainer must be closed to stop its worker
// goroutines, and must not be used concurrently.
type trainer struct {
	f      *Flow
	cfg    TrainConfig
	opt    *optim.AdamW
	shards []*shard
	// works holds a workspace per worker: a worker evaluates all its
	// shards' chunks in one workspace, which stays in the caches from one
	// shard to the next (the results do not depend on which workspace a
	// chunk runs in).
	works   []*work
	grad    []float64
	ema     []float64 // the moving average of the parameters; nil without EMA
	logq    []float64
	dlogq   []float64
	workers int

	// the current parallel job
	mode  int
	y, z  []float64
	n     int
	group int // rows per context row of the current job
	gloss itrain.GroupLossFunc
	jobs  chan job
	// the optimiser step apply takes in parts (updatePart)
	upd     optim.AdamWStep
	clipF   float64 // the gradient's clipping factor, 1 without clipping
	wg      sync.WaitGroup
	closing sync.Once
}

type shard struct {
	grad []float64
	loss float64 // modeLocal: the sum of the shard's loss parts
	bad  bool    // modeLocal: a loss part had a non-finite gradient
}

// init installs newTrainer as NewTrainer of flow/internal/train, the
// constructor flow/sbi trains its flows with.
func init() {
	itrain.NewTrainer = func(f, cfg any) (itrain.Trainer, error) {
		ff, ok := f.(*Flow)
		if !ok {
			return nil, invalid("f", "train.NewTrainer needs a *Flow, got %T", f)
		}
		c, ok := cfg.(TrainConfig)
		if !ok {
			return nil, invalid("cfg", "train.NewTrainer needs a TrainConfig, got %T", cfg)
		}
		t, err := newTrainer(ff, c)
		if err != nil {
			return nil, err
		}
		return t, nil
	}
}

const (
	modeForward = iota
	modeGrad
	modeLocal // forward, loss part and backward chunk by chunk
)

// newTrainer returns a trainer for f with the optimiser and parallelism
// settings of cfg (the epoch-related fields are ignored).
func newTrainer(f *Flow, cfg TrainConfig) (*trainer, error) {
	if err := f.ready(); err != nil {
		return nil, err
	}
	if cfg.Shards == 0 {
		cfg.Shards = 8
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	opt, err := optim.NewAdamW(f.NumParams(), optim.AdamWConfig{LearningRate: cfg.LearningRate, WeightDecay: cfg.WeightDecay})
	if err != nil {
		return nil, fmt.Errorf("%w: TrainConfig: %w", ErrInvalid, err)
	}
	t := &trainer{f: f, cfg: cfg, opt: opt, grad: make([]float64, f.NumParams())}
	if cfg.EMA > 0 {
		t.ema = append([]float64(nil), f.params...)
	}
	rows := min(t.chunk(), (cfg.BatchSize+cfg.Shards-1)/cfg.Shards)
	t.shards = make([]*shard, cfg.Shards)
	for s := range t.shards {
		t.shards[s] = &shard{grad: make([]float64, f.NumParams())}
	}
	t.workers = cfg.Workers
	if t.workers == 0 {
		t.workers = runtime.GOMAXPROCS(0)
	}
	t.workers = min(t.workers, cfg.Shards)
	t.works = make([]*work, t.workers)
	for i := range t.works {
		t.works[i] = t.newWork(rows)
	}
	if t.workers > 1 {
		t.jobs = make(chan job, cfg.Shards)
		for i := 0; i < t.workers; i++ {
			go func() {
				for j := range t.jobs {
					t.do(j, t.works[i])
					t.wg.Done()
				}
			}()
		}
	}
	return t, nil
}

// Close stops the trainer's worker goroutines. It is safe to call twice.
func (t *trainer) Close() {
	if t == nil {
		return
	}
	t.closing.Do(func() {
		if t.jobs != nil {
			close(t.jobs)
		}
	})
}

// Flow returns the flow being trained (nil for a nil trainer).
func (t *trainer) Flow() *Flow {
	if t == nil {
		return nil
	}
	return t.f
}

// Gradient returns the gradient computed by the last step (after
// clipping); it is overwritten by the next step. It is nil for a nil
// trainer.
func (t *trainer) Gradient() []float64 {
	if t == nil {
		return nil
	}
	return t.grad
}

// rows returns the row range of shard s for a batch of n rows: whole
// context groups are split evenly over the shards.
func (t *trainer) rows(s, n int) (int, int) {
	S, g := len(t.shards), t.group
	G := n / g
	return s * G / S * g, (s + 1) * G / S * g
}

// chunk returns the largest number of rows a shard evaluates at once:
// chunkRows, or chunkRows32 with float32 products and splines.
func (t *trainer) chunk() int {
	if t.cfg.Float32 {
		return chunkRows32
	}
	return chunkRows
}

// fit grows the workers' workspaces, once, so that a shard's rows of an
// n-row batch are evaluated in chunks of up to chunk() rows, each a whole
// number of context groups.
func (t *trainer) fit(n int) {
	per := (n/t.group + len(t.shards) - 1) / len(t.shards) * t.group
	want := max(t.group, min(t.chunk(), per))
	if t.works[0].cap >= want {
		return
	}
	for i := range t.works {
		t.works[i] = t.newWork(want)
	}
}

// newWork allocates a worker's workspace for up to rows rows, its
// conditioners' products in float32 when the configuration asks for it.
func (t *trainer) newWork(rows int) *work {
	w := t.f.newWork(rows)
	w.s32 = t.cfg.Float32
	for _, nw := range w.allNets() {
		nw.SetFloat32(t.cfg.Float32)
	}
	return w
}

// runShard evaluates shard s of the current job in the workspace w.
func (t *trainer) runShard(s int, w *work) {
	f := t.f
	lo, hi := t.rows(s, t.n)
	sh := t.shards[s]
	if t.mode != modeForward && hi <= lo {
		clear(sh.grad) // no rows: the first chunk's backward cannot write it
	}
	sh.loss, sh.bad = 0, false
	D, C, g := f.cfg.Dim, f.cfg.ContextDim, t.group
	step := w.cap / g * g
	for a := lo; a < hi; a += step {
		m := min(step, hi-a)
		f.loadShared(w, t.y[a*D:], t.z[a/g*C:], m, g)
		w.keep = t.mode != modeForward
		f.forward(w, t.logq[a:a+m])
		if t.mode == modeLocal {
			sh.loss += t.gloss(a, t.logq[a:a+m], t.dlogq[a:a+m])
			if finite("dlogq", t.dlogq[a:a+m]) != nil {
				sh.bad = true
				return
			}
		}
		if t.mode != modeForward {
			// The first chunk stores its gradient, the others add theirs.
			f.backward(w, t.dlogq[a:a+m], sh.grad, a == lo)
		}
	}
}

// job is a task of a trainer's workers: a shard of the current batch, or
// part i of t.workers parts of a step's other work.
type job struct {
	kind int
	i    int
}

const (
	jobShard  = iota // runShard
	jobHold          // holdPart: round part of the float32 weights
	jobSum           // sumPart: sum part of the shard gradients
	jobUpdate        // updatePart: clip and step part of the parameters
)

// do runs the job j in the worker workspace w.
func (t *trainer) do(j job, w *work) {
	switch j.kind {
	case jobShard:
		t.runShard(j.i, w)
	case jobHold:
		t.f.holdFloat32Part(t.works[0], j.i, t.workers)
	case jobSum:
		t.sumPart(j.i)
	case jobUpdate:
		t.updatePart(j.i)
	}
}

// parts runs the t.workers parts of a kind of job, on the workers, and
// waits for them.
func (t *trainer) parts(kind int) {
	if t.jobs == nil {
		for p := range t.workers {
			t.do(job{kind, p}, t.works[0])
		}
		return
	}
	t.wg.Add(t.workers)
	for p := range t.workers {
		t.jobs <- job{kind, p}
	}
	t.wg.Wait()
}

// run evaluates every shard of the current job and waits for them.
func (t *trainer) run() {
	// The parameters are fixed during a job: round the float32 layers'
	// weights once, the workers each rounding some layers into the first
	// worker's workspace, for every chunk of every shard.
	f := t.f
	t.parts(jobHold)
	for _, w := range t.works[1:] {
		f.shareFloat32(w, t.works[0])
	}
	defer func() {
		for _, w := range t.works {
			f.releaseFloat32(w)
		}
	}()
	if t.jobs == nil {
		for s := range t.shards {
			t.runShard(s, t.works[0])
		}
		return
	}
	t.wg.Add(len(t.shards))
	for s := range t.shards {
		t.jobs <- job{jobShard, s}
	}
	t.wg.Wait()
}

func (t *trainer) prepare(y, z []float64, n, group int) error {
	if t == nil || t.opt == nil {
		return invalid("trainer", "nil or not built by newTrainer")
	}
	if n < 1 {
		return invalid("n", "must be >= 1, got %d", n)
	}
	if group < 1 || n%group != 0 {
		return invalid("group", "must be >= 1 and divide the %d rows, got %d", n, group)
	}
	if err := t.f.checkShared(y, z, n, n/group); err != nil {
		return err
	}
	if cap(t.logq) < n {
		t.logq = make([]float64, n)
		t.dlogq = make([]float64, n)
	}
	t.logq, t.dlogq = t.logq[:n], t.dlogq[:n]
	t.y, t.z, t.n, t.group = y, z, n, group
	t.fit(n)
	return nil
}

// LogDensities writes log q(y_i | z_i) for the n rows into dst, evaluating the
// shards in parallel.
func (t *trainer) LogDensities(y, z []float64, n int, dst []float64) error {
	return t.LogDensitiesShared(y, z, n, 1, dst)
}

// LogDensitiesShared is LogDensities for a batch whose rows come in consecutive
// groups of group rows sharing one context: z holds n/group rows (group
// must divide n), row i has context row i/group. The context's
// contribution to every conditioner is computed once per group.
func (t *trainer) LogDensitiesShared(y, z []float64, n, group int, dst []float64) error {
	if err := t.prepare(y, z, n, group); err != nil {
		return err
	}
	if len(dst) < n {
		return invalid("dst", "has %d values, need %d", len(dst), n)
	}
	t.mode = modeForward
	t.run()
	copy(dst, t.logq)
	return nil
}

// Step takes one optimiser step on the mean negative log-likelihood of the
// n rows of y and z and returns that loss (before the step).
func (t *trainer) Step(y, z []float64, n int) (float64, error) {
	if err := t.prepare(y, z, n, 1); err != nil {
		return 0, err
	}
	for i := range t.dlogq {
		t.dlogq[i] = -1 / float64(n)
	}
	t.mode = modeGrad
	t.run()
	loss := 0.0
	for _, v := range t.logq {
		loss -= v
	}
	loss /= float64(n)
	return loss, t.apply(loss)
}

// StepLoss takes one optimiser step on a custom loss of the batch's
// log-densities: it evaluates log q(y_i | z_i) for the n rows, calls loss
// to obtain ℓ and ∂ℓ/∂log q_i, back-propagates Σ_i (∂ℓ/∂log q_i)·∇ log q_i
// and applies the clipped AdamW update. It returns ℓ. The forward pass is
// evaluated twice (once before and once during back-propagation), which
// keeps memory independent of n.
func (t *trainer) StepLoss(y, z []float64, n int, loss itrain.LossFunc) (float64, error) {
	return t.StepLossShared(y, z, n, 1, loss)
}

// StepLossShared is StepLoss for a batch whose rows come in consecutive
// groups of group rows sharing one context (z holds n/group rows; group
// must divide n), as in an atomic loss where every observation is paired
// with several parameters. The context's contribution to the first layer
// and to every gate of every conditioner is computed, and
// back-propagated, once per group; the result equals StepLoss on the
// expanded contexts up to rounding.
func (t *trainer) StepLossShared(y, z []float64, n, group int, loss itrain.LossFunc) (float64, error) {
	if loss == nil {
		return 0, invalid("loss", "must not be nil")
	}
	if err := t.prepare(y, z, n, group); err != nil {
		return 0, err
	}
	t.mode = modeForward
	t.run()
	l := loss(t.logq, t.dlogq)
	if err := finite("dlogq", t.dlogq); err != nil {
		return l, rewrap(ErrNonFinite, "loss", err)
	}
	t.mode = modeGrad
	t.run()
	return l, t.apply(l)
}

// StepGroupLoss takes one optimiser step on a loss that is a sum over
// groups of group consecutive rows (see GroupLossFunc in
// flow/internal/train), whose rows share one context per group: z holds
// n/group rows (group must divide n). Because every group's loss gradient is known as soon as its rows have
// been evaluated, each chunk of rows is evaluated forward, differentiated
// and back-propagated at once: one forward pass instead of StepLoss's
// two. The parts are summed in a fixed order, so the result does not
// depend on the scheduling. It returns the loss.
func (t *trainer) StepGroupLoss(y, z []float64, n, group int, loss itrain.GroupLossFunc) (float64, error) {
	if loss == nil {
		return 0, invalid("loss", "must not be nil")
	}
	if err := t.prepare(y, z, n, group); err != nil {
		return 0, err
	}
	t.gloss = loss
	t.mode = modeLocal
	t.run()
	t.gloss = nil
	l := 0.0
	for _, sh := range t.shards {
		if sh.bad {
			return math.NaN(), fmt.Errorf("%w: loss: gradient must be finite", ErrNonFinite)
		}
		l += sh.loss
	}
	return l, t.apply(l)
}

// sumBlock is the number of gradient values apply sums over the shards
// at a time (16 KiB of float64).
const sumBlock = 2048

// sumPart sums the shard gradients into part p of t.grad, one of
// t.workers parts of whole blocks of sumBlock values. The first shard's
// gradient is stored as 0 + v (v = −0 becomes +0, as when adding into a
// cleared sum), the others are added in order, a block at a time so that
// the block of the sum stays in the level-1 cache while every shard's
// gradient is added to it. Every value is the same sum in the same order
// whichever part it falls in.
func (t *trainer) sumPart(p int) {
	nb := (len(t.grad) + sumBlock - 1) / sumBlock
	for b := p * nb / t.workers; b < (p+1)*nb/t.workers; b++ {
		lo, hi := b*sumBlock, min((b+1)*sumBlock, len(t.grad))
		dst := t.grad[lo:hi]
		for s, sh := range t.shards {
			g := sh.grad[lo:hi]
			if s == 0 {
				for i, v := range g {
					dst[i] = 0 + v
				}
				continue
			}
			vec.Add(dst, g)
		}
	}
}

// apply sums the shard gradients in shard order, clips and steps, the
// workers each summing, clipping and stepping a part of them: the same
// values as optim.ClipNorm and AdamW.Step on the whole, bit for bit.
func (t *trainer) apply(loss float64) error {
	t.parts(jobSum)
	norm := optim.ClipNorm(t.grad, 0) // the norm only
	t.clipF = 1
	if c := t.cfg.ClipNorm; c > 0 && norm > c {
		t.clipF = c / norm // as optim.ClipNorm scales
	}
	if math.IsNaN(norm) || math.IsInf(norm, 0) || math.IsNaN(loss) {
		if t.clipF != 1 {
			t.clipPart(0, len(t.grad)) // Gradient is the clipped one
		}
		return fmt.Errorf("%w: loss %v, gradient norm %v", ErrDiverged, loss, norm)
	}
	t.upd = t.opt.Next()
	t.parts(jobUpdate)
	return nil
}

// clipPart scales t.grad[lo:hi] by the clipping factor.
func (t *trainer) clipPart(lo, hi int) {
	for i := lo; i < hi; i++ {
		t.grad[i] *= t.clipF
	}
}

// updatePart clips part p of t.workers parts of the gradient, applies the
// optimiser step to those parameters and updates their moving average.
func (t *trainer) updatePart(p int) {
	n := len(t.grad)
	lo, hi := p*n/t.workers, (p+1)*n/t.workers
	if t.clipF != 1 {
		t.clipPart(lo, hi)
	}
	t.upd.Update(t.f.params, t.grad, lo, hi)
	if t.ema != nil {
		b := t.cfg.EMA
		ema, ps := t.ema[lo:hi], t.f.params[lo:hi]
		for i, v := range ps {
			ema[i] = b*ema[i] + (1-b)*v
		}
	}
}

// SwapAverage exchanges the flow's parameters with their moving average
// (TrainConfig.EMA): call it to evaluate or keep the averaged parameters,
// and again to resume training. It does nothing without EMA and does not
// allocate.
func (t *trainer) SwapAverage() {
	if t == nil {
		return
	}
	for i, v := range t.ema {
		t.ema[i], t.f.params[i] = t.f.params[i], v
	}
}

// ErrDiverged is returned when a loss or gradient becomes NaN or infinite.
var ErrDiverged = errors.New("flow: training diverged")

// Fit trains the flow by maximum likelihood on the n rows of y (n×Dim)
// and contexts z (n×ContextDim; nil when ContextDim is 0) with the
// settings of cfg, and returns a summary. On the first Fit of a flow whose
// configuration standardises y or z, the statistics are computed from all
// n rows (SetStandardization). A validation set of round(n·
// ValidationFraction) rows (at least one when the fraction is positive) is
// held out at random; training stops after Patience epochs without a
// strict improvement of the validation loss, or after MaxEpochs, and the
// parameters of the best validation epoch are restored. Results depend on
// the data, cfg.Seed and cfg.Shards only. NaN or infinite data is an error
// wrapping ErrNonFinite. If ctx is cancelled, Fit restores the best
// parameters so far and returns ctx's error.
func (f *Flow) Fit(ctx context.Context, y, z []float64, n int, cfg TrainConfig) (*FitResult, error) {
	start := time.Now()
	if ctx == nil {
		return nil, invalid("ctx", "must not be nil")
	}
	if cfg.Shards == 0 {
		cfg.Shards = 8
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := f.checkData(y, z, n); err != nil {
		return nil, err
	}
	nVal := int(math.Round(cfg.ValidationFraction * float64(n)))
	if cfg.ValidationFraction > 0 && nVal == 0 {
		nVal = 1
	}
	if n-nVal < 1 {
		return nil, invalid("n", "leaves no training row: %d rows with %d for validation", n, nVal)
	}
	if (f.cfg.StandardizeInputs || f.cfg.StandardizeContext) && !f.standardized && n >= 2 {
		if err := f.SetStandardization(y, z, n); err != nil {
			return nil, err
		}
	}
	D, C := f.cfg.Dim, f.cfg.ContextDim
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x9e3779b97f4a7c15))
	perm := rng.Perm(n)
	gatherRows := func(idx []int) ([]float64, []float64) {
		ys, zs := make([]float64, len(idx)*D), make([]float64, len(idx)*C)
		for i, j := range idx {
			copy(ys[i*D:(i+1)*D], y[j*D:(j+1)*D])
			copy(zs[i*C:(i+1)*C], z[j*C:(j+1)*C])
		}
		return ys, zs
	}
	yv, zv := gatherRows(perm[:nVal])
	train := append([]int(nil), perm[nVal:]...)

	t, err := newTrainer(f, cfg)
	if err != nil {
		return nil, err
	}
	defer t.Close()
	bs := min(cfg.BatchSize, len(train))
	yb, zb := make([]float64, bs*D), make([]float64, bs*C)
	lv := make([]float64, nVal)
	best := append([]float64(nil), f.params...)
	res := &FitResult{BestValidationLoss: math.NaN()}
	bestLoss := math.Inf(1)
	since := 0
	restore := func() { copy(f.params, best) }
	for epoch := 1; epoch <= cfg.MaxEpochs; epoch++ {
		if err := ctx.Err(); err != nil {
			restore()
			return res, err
		}
		rng.Shuffle(len(train), func(i, j int) { train[i], train[j] = train[j], train[i] })
		sum := 0.0
		for lo := 0; lo < len(train); lo += bs {
			m := min(bs, len(train)-lo)
			for i, j := range train[lo : lo+m] {
				copy(yb[i*D:(i+1)*D], y[j*D:(j+1)*D])
				copy(zb[i*C:(i+1)*C], z[j*C:(j+1)*C])
			}
			l, err := t.Step(yb, zb, m)
			if err != nil {
				restore()
				return res, err
			}
			sum += l * float64(m)
		}
		trainLoss, valLoss := sum/float64(len(train)), math.NaN()
		res.Epochs = epoch
		t.SwapAverage() // evaluate and keep the averaged parameters
		res.TrainLoss = append(res.TrainLoss, trainLoss)
		if nVal > 0 {
			if err := t.LogDensities(yv, zv, nVal, lv); err != nil {
				restore()
				return res, err
			}
			v := 0.0
			for _, x := range lv {
				v -= x
			}
			v /= float64(nVal)
			valLoss = v
			if v < bestLoss {
				bestLoss, since = v, 0
				copy(best, f.params)
				res.BestEpoch, res.BestValidationLoss = epoch, v
			} else {
				since++
			}
		} else {
			copy(best, f.params)
			res.BestEpoch = epoch
		}
		t.SwapAverage()
		res.ValidationLoss = append(res.ValidationLoss, valLoss)
		cfg.Progress.Report(privinfer.Progress{Stage: "epoch", Step: epoch, Total: cfg.MaxEpochs,
			Elapsed: time.Since(start), Message: itrain.EpochMessage(trainLoss, valLoss)})
		if nVal > 0 && since >= cfg.Patience {
			res.EarlyStopped = true
			break
		}
	}
	restore()
	return res, nil
}
