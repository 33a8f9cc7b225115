package sbi

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/internal/train"
	"github.com/privinfer/privinfer/internal/parallel"
)

type lossKind int

const (
	lossNPE    lossKind = iota // −log q(θ | s_dp), round 1 of SPPE
	lossAtomic                 // APT atomic loss, later rounds of SPPE
	lossPLE                    // −log q(s_dp | θ), SPLE
)

// data holds every round's simulations: parameters, confidential summaries
// and prior log-densities, with a fixed train/validation split.
type data struct {
	d, sd, nd int
	theta     []float64
	stat      []float64
	logPrior  []float64
	train     []int
	val       []int
}

func (ds *data) n() int { return len(ds.logPrior) }

// add appends k simulations and assigns round(k·frac) of them (at least one
// when frac > 0 and k ≥ 2) to the validation set, as the paper holds out a
// fraction of every round's new simulations.
func (ds *data) add(theta, stat, lp []float64, k int, frac float64, r *rand.Rand) {
	start := ds.n()
	ds.theta = append(ds.theta, theta...)
	ds.stat = append(ds.stat, stat...)
	ds.logPrior = append(ds.logPrior, lp...)
	nv := 0
	if frac > 0 && k >= 2 {
		nv = max(1, int(math.Round(frac*float64(k))))
		nv = min(nv, k-1)
	}
	perm := r.Perm(k)
	for i, p := range perm {
		if i < nv {
			ds.val = append(ds.val, start+p)
		} else {
			ds.train = append(ds.train, start+p)
		}
	}
}

// batch is the workspace of one mini-batch expanded over the inner points
// (and atoms).
type batch struct {
	y, z   []float64
	zg     []float64 // per group: the shared context (atomic SPPE loss)
	lp     []float64 // per row: log π of the row's θ (atomic loss)
	groups int       // number of (pair, inner point) groups
	na     int       // atoms per group (1 for the non-atomic losses)
	u      []float64
	sdp    []float64
	off    []float64 // the regression shift at sdp
	pick   []int
	dlogq  []float64
	logq   []float64
}

type engine struct {
	p    privinfer.Problem
	mech transform // the mechanism's transform; identity without one
	cfg  Config    // with the defaults filled
	m    int       // inner points per simulation
	role Role
	ds   *data
	f    *flow.Flow
	// alts are the flows of Config.FlowCandidates until round 1 has chosen
	// among them and f (nil afterwards).
	alts []*flow.Flow
	// label prefixes the epoch messages while candidates are trained.
	label string
	ps    *pointSet
	// start is when the run started, for the progress events.
	start time.Time
	// deq is the lattice spacing of a lattice mechanism's releases when
	// the flow models them (SPLE): training releases are dequantized by
	// adding (u − ½)·deq, u ~ U(0, 1), per coordinate. Zero otherwise.
	deq float64
	// useShift is whether SPPE fits the regression shift
	// (Config.UsesRegressionShift for the problem's prior); shift is the
	// fitted shift, nil before round 1's standardisation and without one.
	useShift bool
	shift    *linShift
	// fp is the run's fingerprint when it keeps a checkpoint
	// (Config.Checkpoint), and hist what it records of every round done.
	fp   [32]byte
	hist []roundState
}

// build fills b with the rows of the pairs idx for the given loss.
func (e *engine) build(b *batch, idx []int, kind lossKind, r *rand.Rand) {
	ds := e.ds
	B, M := len(idx), e.m
	na := 1
	if kind == lossAtomic {
		na = min(e.cfg.Atoms, B)
	}
	rows := B * M * na
	dy, dz := ds.d, ds.sd
	if e.role == LikelihoodFlow {
		dy, dz = ds.sd, ds.d
	}
	b.y = grow(b.y, rows*dy)
	b.z = grow(b.z, rows*dz)
	b.zg = grow(b.zg, B*M*dz)
	b.lp = grow(b.lp, rows)
	b.u = grow(b.u, M*ds.nd)
	b.sdp = grow(b.sdp, ds.sd)
	b.off = grow(b.off, ds.d)
	b.dlogq = grow(b.dlogq, rows)
	b.logq = grow(b.logq, rows)
	if cap(b.pick) < B {
		b.pick = make([]int, B)
	}
	b.pick = b.pick[:B]
	b.groups, b.na = B*M, na
	for bi, p := range idx {
		e.ps.fill(r, b.u)
		s := ds.stat[p*ds.sd : (p+1)*ds.sd]
		if kind == lossAtomic {
			// Atom 0 is the pair itself; the others are distinct members of
			// the batch drawn uniformly (partial Fisher–Yates on the batch
			// positions other than bi).
			for k := range b.pick {
				b.pick[k] = k
			}
			b.pick[0], b.pick[bi] = b.pick[bi], b.pick[0]
			for a := 1; a < na; a++ {
				j := a + r.IntN(B-a)
				b.pick[a], b.pick[j] = b.pick[j], b.pick[a]
			}
		}
		for m := 0; m < M; m++ {
			e.mech.Apply(b.u[m*ds.nd:(m+1)*ds.nd], s, b.sdp)
			if e.shift != nil && e.role == PosteriorFlow {
				e.shift.at(b.sdp, b.off)
			}
			if e.role == PosteriorFlow {
				copy(b.zg[(bi*M+m)*dz:(bi*M+m+1)*dz], b.sdp)
			}
			for a := 0; a < na; a++ {
				row := (bi*M+m)*na + a
				q := p
				if kind == lossAtomic {
					q = idx[b.pick[a]]
				}
				th := ds.theta[q*ds.d : (q+1)*ds.d]
				if e.role == LikelihoodFlow {
					y := b.y[row*dy : (row+1)*dy]
					copy(y, b.sdp)
					if e.deq > 0 {
						for k := range y {
							y[k] += (r.Float64() - 0.5) * e.deq
						}
					}
					copy(b.z[row*dz:(row+1)*dz], th)
				} else {
					y := b.y[row*dy : (row+1)*dy]
					copy(y, th)
					if e.shift != nil {
						for j := range y {
							y[j] -= b.off[j]
						}
					}
					copy(b.z[row*dz:(row+1)*dz], b.sdp)
				}
				b.lp[row] = ds.logPrior[q]
			}
		}
	}
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// loss evaluates the batch loss from the log-densities logq and writes its
// gradient with respect to them into dlogq.
func (b *batch) loss(kind lossKind, logq, dlogq []float64) float64 {
	return b.lossPart(kind, 0, logq, dlogq)
}

// lossPart is the contribution to the batch loss of the rows
// [lo, lo+len(logq)), a whole number of groups, and writes its gradient
// with respect to their log-densities into dlogq. It only reads b.
func (b *batch) lossPart(kind lossKind, lo int, logq, dlogq []float64) float64 {
	G := float64(b.groups)
	if kind != lossAtomic {
		s := 0.0
		for i, v := range logq {
			s += v
			dlogq[i] = -1 / G
		}
		return -s / G
	}
	na := b.na
	tot := 0.0
	for g := 0; g < len(logq)/na; g++ {
		l := logq[g*na : (g+1)*na]
		lp := b.lp[lo+g*na : lo+(g+1)*na]
		d := dlogq[g*na : (g+1)*na]
		// logits l_a − log π(θ_a): the prior-ratio correction of APT.
		mx := math.Inf(-1)
		for a := range l {
			mx = math.Max(mx, l[a]-lp[a])
		}
		se := 0.0
		for a := range l {
			d[a] = math.Exp(l[a] - lp[a] - mx)
			se += d[a]
		}
		lse := mx + math.Log(se)
		tot += lse - (l[0] - lp[0])
		for a := range d {
			d[a] = d[a] / se / G
		}
		d[0] -= 1 / G
	}
	return tot / G
}

// trainRound trains the round's flow; with candidate architectures left
// (round 1 of a run with Config.FlowCandidates) it trains each of them as
// well and keeps the one of lowest best-epoch validation loss.
func (e *engine) trainRound(ctx context.Context, round int, kind lossKind, rr *RoundResult) error {
	if len(e.alts) == 0 {
		return e.train(ctx, round, kind, rr)
	}
	flows := append([]*flow.Flow{e.f}, e.alts...)
	e.alts = nil
	defer func() { e.label = "" }()
	losses := make([]float64, len(flows))
	best, kept := -1, *rr
	for i, f := range flows {
		e.f = f
		e.label = fmt.Sprintf("architecture %d of %d: ", i+1, len(flows))
		r := *rr // train fills in the training fields
		if err := e.train(ctx, round, kind, &r); err != nil {
			return err
		}
		losses[i] = math.Inf(1) // no finite loss in any epoch
		if r.BestEpoch > 0 && !math.IsNaN(r.ValidationLoss[r.BestEpoch-1]) {
			losses[i] = r.ValidationLoss[r.BestEpoch-1]
		}
		if best < 0 || losses[i] < losses[best] {
			best, kept = i, r
		}
	}
	e.f = flows[best]
	*rr = kept
	rr.Candidates, rr.Selected = losses, best
	return nil
}

// train runs one round of training on all data and restores the parameters
// of the best validation epoch.
func (e *engine) train(ctx context.Context, round int, kind lossKind, res *RoundResult) error {
	tc := *e.cfg.Train
	tc.Seed = e.cfg.Seed ^ uint64(round)*0x9e3779b97f4a7c15
	tc.Progress = nil
	tr, err := train.NewTrainer(e.f, tc)
	if err != nil {
		return fmt.Errorf("sbi: %w", err)
	}
	defer tr.Close()
	bs := tc.BatchSize
	var b, nb batch // the batch of the step, and the next one being built
	idx := append([]int(nil), e.ds.train...)
	best := math.Inf(1)
	bestParams := append([]float64(nil), e.f.Params()...)
	bad := 0
	for ep := 1; ep <= tc.MaxEpochs; ep++ {
		r := parallel.Stream(tc.Seed, uint64(ep))
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		tot, cnt := 0.0, 0
		// The next batch is built while the step runs on this one, so
		// that building it (serial) takes no time of its own from the
		// parallel step; the batches are built in order from the one
		// stream r, so they are the same as when built one after another.
		built := make(chan struct{}, 1)
		if len(idx) > 0 {
			e.build(&b, idx[:min(bs, len(idx))], kind, r)
		}
		for lo := 0; lo < len(idx); lo += bs {
			if err := ctx.Err(); err != nil {
				_ = e.f.SetParams(bestParams)
				return err
			}
			hi := min(lo+bs, len(idx))
			next := hi < len(idx)
			if next {
				go func() {
					e.build(&nb, idx[hi:min(hi+bs, len(idx))], kind, r)
					built <- struct{}{}
				}()
			}
			l, err := e.step(tr, &b, kind)
			if next {
				<-built
			}
			if err != nil {
				_ = e.f.SetParams(bestParams)
				return fmt.Errorf("sbi: round %d epoch %d: %w", round, ep, err)
			}
			b, nb = nb, b
			tot += l * float64(hi-lo)
			cnt += hi - lo
		}
		trainLoss := tot / float64(max(cnt, 1))
		tr.SwapAverage() // evaluate and keep the averaged parameters (Train.EMA)
		valLoss := math.NaN()
		if len(e.ds.val) > 0 {
			valLoss, err = e.validate(tr, &b, kind, tc.Seed, bs)
			if err != nil {
				return err
			}
		}
		res.TrainLoss = append(res.TrainLoss, trainLoss)
		res.ValidationLoss = append(res.ValidationLoss, valLoss)
		res.Epochs = ep
		crit := valLoss
		if math.IsNaN(crit) {
			crit = trainLoss
		}
		if crit < best {
			best, bad = crit, 0
			res.BestEpoch = ep
			copy(bestParams, e.f.Params())
		} else {
			bad++
		}
		tr.SwapAverage()
		e.report(privinfer.Progress{Stage: "epoch", Round: round, Step: ep, Total: tc.MaxEpochs,
			Message: e.label + train.EpochMessage(trainLoss, valLoss)})
		if len(e.ds.val) > 0 && bad >= tc.Patience {
			break
		}
	}
	return e.f.SetParams(bestParams)
}

// step takes one optimiser step on the batch. Every loss here is a sum
// over groups of rows (one row, or the n_a atoms of a release), so the
// trainer differentiates and back-propagates each chunk right after its
// forward pass. In the atomic loss of a posterior flow the rows of a group
// also share their context (the release): the flow then computes the
// context's contribution to every conditioner once per group.
func (e *engine) step(tr train.Trainer, b *batch, kind lossKind) (float64, error) {
	rows := len(b.lp)
	part := func(lo int, logq, dlogq []float64) float64 { return b.lossPart(kind, lo, logq, dlogq) }
	switch {
	case kind != lossAtomic || b.na == 1:
		return tr.StepGroupLoss(b.y, b.z, rows, 1, part)
	case e.role == PosteriorFlow:
		return tr.StepGroupLoss(b.y, b.zg, rows, b.na, part)
	}
	return tr.StepLoss(b.y, b.z, rows, func(logq, dlogq []float64) float64 { return b.loss(kind, logq, dlogq) })
}

// validate returns the loss on the validation pairs with inner points and
// atoms fixed across epochs (stream per validation batch).
func (e *engine) validate(tr train.Trainer, b *batch, kind lossKind, seed uint64, bs int) (float64, error) {
	tot, cnt := 0.0, 0
	for k, lo := 0, 0; lo < len(e.ds.val); k, lo = k+1, lo+bs {
		hi := min(lo+bs, len(e.ds.val))
		r := parallel.Stream(e.cfg.Seed^0x76616c6964, uint64(k))
		e.build(b, e.ds.val[lo:hi], kind, r)
		rows := len(b.lp)
		var err error
		if e.role == PosteriorFlow && b.na > 1 {
			err = tr.LogDensitiesShared(b.y, b.zg, rows, b.na, b.logq)
		} else {
			err = tr.LogDensities(b.y, b.z, rows, b.logq)
		}
		if err != nil {
			return 0, fmt.Errorf("sbi: validation: %w", err)
		}
		l := b.loss(kind, b.logq, b.dlogq)
		tot += l * float64(hi-lo)
		cnt += hi - lo
	}
	return tot / float64(cnt), nil
}
