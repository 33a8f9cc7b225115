package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/lattice"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// RecordStep selects the Markov kernel that updates the latent records in
// data-augmentation MCMC. The zero value is RandomScanIMwG.
type RecordStep int

const (
	// RandomScanIMwG offers each fresh record to one uniformly chosen slot
	// and accepts with probability min{1, w_I/w_0} (Ju et al. 2022).
	RandomScanIMwG RecordStep = iota
	// SystematicScanIMwG offers the k-th fresh record of a sweep to slot k.
	SystematicScanIMwG
	// SOMA (single offer, multiple attempts) offers each fresh record y to
	// every slot: slot I is chosen with probability w_I/W and the
	// replacement is accepted with probability min{1, W/(W + w_0 − w_I)}.
	// An attempt evaluates all n weights where IMwG evaluates one, so a
	// sweep costs O(n²·dim s); the package documentation says when that
	// pays off.
	SOMA
)

// String returns the record step's short name.
func (k RecordStep) String() string {
	switch k {
	case RandomScanIMwG:
		return "Ran-IMwG"
	case SystematicScanIMwG:
		return "Sys-IMwG"
	case SOMA:
		return "SOMA"
	}
	return fmt.Sprintf("RecordStep(%d)", int(k))
}

// valid reports whether k is one of the three record steps.
func (k RecordStep) valid() bool {
	return k == RandomScanIMwG || k == SystematicScanIMwG || k == SOMA
}

// ThetaStep is the θ-step of data augmentation: it updates θ given the n
// raw records stored back to back in records (length n·RecordDim),
// overwriting theta (which holds the current θ on entry), by an exact draw
// from π(θ | x) ∝ π(θ) Π_i f(x_i | θ) (simulate/linreg's Conjugate and NIG) or by
// a move that leaves it invariant (MetropolisTheta). Its prior π(θ) must
// be the Problem's Prior: the sampler cannot check this.
type ThetaStep interface {
	SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error
}

// ErrNaN is wrapped by errors reporting that a target density, a
// mechanism density or a proposal produced NaN.
var ErrNaN = errors.New("mcmc: density evaluated to NaN")

// DAConfig configures data-augmentation MCMC (RunDA, NewDAChain): the
// θ-step and the record step, which are the engine's own knobs, and the
// chain settings. Only ThetaStep has no usable zero value.
type DAConfig struct {
	// ThetaStep updates θ given the records, for example simulate/linreg's
	// Conjugate or NIG, a model of simulate/conjugate, or MetropolisTheta;
	// it is required.
	ThetaStep ThetaStep
	// RecordStep is the kernel of the latent-record updates; the zero
	// value is RandomScanIMwG.
	RecordStep RecordStep
	// Chains is the number of chains; 0 means 4. They run in parallel,
	// chain c on its own random stream derived from (Seed, c).
	Chains int
	// Warmup sweeps are discarded; 0 means none.
	Warmup int
	// Draws is the number of retained draws per chain; 0 means 1000.
	Draws int
	// Thin keeps every Thin-th sweep after warm-up; 0 means 1.
	Thin int
	// Seed selects the random streams; the result depends on it only.
	Seed uint64
	// Init, if non-nil, holds one initial θ per chain; nil draws each
	// chain's θ from the Problem's Prior. The records are then drawn
	// from f(·|θ).
	Init [][]float64
	// Progress, if non-nil, receives events with Stage "chain", Step the
	// sweeps done over all chains and Total their number (as Config's).
	Progress privinfer.ProgressFunc
}

// Validate checks the settings that do not depend on the Problem: a
// non-nil ThetaStep, a known RecordStep, counts non-negative and within
// the size limits, and Init finite with one point per chain. Errors wrap
// ErrInvalid.
func (c DAConfig) Validate() error {
	dim := 0
	if len(c.Init) > 0 {
		if dim = len(c.Init[0]); dim == 0 {
			return fmt.Errorf("%w: Init[0] is empty", ErrInvalid)
		}
	}
	return c.check(dim)
}

func (c DAConfig) check(dim int) error {
	if argcheck.Nil(c.ThetaStep) {
		return fmt.Errorf("%w: DAConfig.ThetaStep is nil", ErrInvalid)
	}
	if !c.RecordStep.valid() {
		return fmt.Errorf("%w: unknown DAConfig.RecordStep %d", ErrInvalid, int(c.RecordStep))
	}
	s, err := resolveChains(c.Chains, c.Warmup, c.Draws, c.Thin, dim)
	if err != nil {
		return err
	}
	return checkInit(c.Init, s.chains, dim)
}

// daModel is the record-level view of a Problem that the chains use:
// records x_1..x_n ~ f(·|θ) with contributions t(x_i), the statistic s(x)
// = (1/n) Σ t(x_i), the release density η(s_dp | s) at the observed
// s_dp, and the θ-step. The record proposal is the model itself, q =
// f(·|θ), so every weight of the slides' kernels reduces to a mechanism
// density: w_0 = η(s_dp | s(x)), w_i = η(s_dp | s([x_{−i}, y])).
//
// The joint target is π(θ, x | s_dp) ∝ π(θ) Π_i f(x_i|θ) η(s_dp | s(x)),
// which is permutation invariant in the records because s is a mean of
// contributions; this is what makes SOMA reversible.
type daModel struct {
	prior simulate.Prior
	rec   simulate.RecordModel
	theta ThetaStep
	mech  mechanism.Density
	sdp   []float64
	n     int
}

// newDAModel checks that p has a record-level simulator and a release
// density and builds the model with θ-step theta.
func newDAModel(p *privinfer.Problem, theta ThetaStep) (*daModel, error) {
	if err := p.Require(privinfer.NeedRecords | privinfer.NeedDensity); err != nil {
		return nil, problemErr(err)
	}
	if argcheck.Nil(theta) {
		return nil, fmt.Errorf("%w: DAConfig.ThetaStep is nil", ErrInvalid)
	}
	rec, n, err := p.Records()
	if err != nil {
		return nil, problemErr(err)
	}
	mech, err := p.Density()
	if err != nil {
		return nil, problemErr(err)
	}
	if argcheck.Nil(rec) || argcheck.Nil(mech) {
		return nil, fmt.Errorf("%w: the problem's record model or release density is nil", ErrInvalid)
	}
	cd, rd := rec.ContribDim(), rec.RecordDim()
	if cd < 1 || rd < 1 || rec.ParamDim() < 1 {
		return nil, fmt.Errorf("%w: record model must have positive ParamDim, RecordDim and ContribDim, got %d, %d and %d (used without its constructor?)", ErrInvalid, rec.ParamDim(), rd, cd)
	}
	if n < 1 || n > maxValues/max(rd, cd) {
		return nil, fmt.Errorf("%w: number of records n·max(RecordDim, ContribDim) = %d·%d must be in [1, %d]", ErrInvalid, n, max(rd, cd), maxValues)
	}
	if len(p.Observed) != cd {
		return nil, fmt.Errorf("%w: Observed must have length ContribDim = %d, got %d", ErrInvalid, cd, len(p.Observed))
	}
	return &daModel{prior: p.Prior, rec: rec, theta: theta, mech: mech, sdp: append([]float64(nil), p.Observed...), n: n}, nil
}

// problemErr wraps an error of the Problem's checks: an invalid Problem
// is an invalid argument (both sentinels match), a missing capability
// keeps the root package's named error.
func problemErr(err error) error {
	if errors.Is(err, privinfer.ErrInvalid) {
		return argcheck.Also(err, ErrInvalid)
	}
	return fmt.Errorf("mcmc: data augmentation: %w", err)
}

// RunDA samples the posterior π(θ | s_dp) of problem p by data
// augmentation: on cfg.Chains parallel chains each iteration is a Sweep,
// n attempts of cfg.RecordStep on the latent records followed by
// cfg.ThetaStep. The Problem needs a record-level simulator
// (privinfer.NeedRecords: a *simulate.MeanStat) and a release density
// (privinfer.NeedDensity); otherwise the error wraps
// privinfer.ErrNoRecords, ErrNoMechanism or ErrNoDensity. Result.Draws
// holds θ, chain-major, named by the Problem; Accepted and Proposed count
// the record replacements accepted and attempted after warm-up.
func RunDA(ctx context.Context, p privinfer.Problem, cfg DAConfig) (*Result, error) {
	m, err := newDAModel(&p, cfg.ThetaStep)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, fmt.Errorf("%w: context is nil", ErrInvalid)
	}
	d := m.rec.ParamDim()
	if err := cfg.check(d); err != nil {
		return nil, err
	}
	s, _ := resolveChains(cfg.Chains, cfg.Warmup, cfg.Draws, cfg.Thin, d)
	res := newResult(s, d, p.Names)
	total := s.iters()
	err = runChains(ctx, s, cfg.Seed, cfg.Progress, func(c int, r *rand.Rand, tick func(int)) error {
		th := make([]float64, d)
		if cfg.Init != nil {
			copy(th, cfg.Init[c])
		} else {
			m.prior.Sample(r, th)
		}
		st, err := newDAChain(m, cfg.RecordStep, r, th)
		if err != nil {
			return fmt.Errorf("mcmc: chain %d: %w", c, err)
		}
		kept := 0
		for it := range total {
			if it&15 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			if it == s.warmup {
				st.ResetAcceptance()
			}
			if err := st.Sweep(r); err != nil {
				return fmt.Errorf("mcmc: chain %d iteration %d: %w", c, it, err)
			}
			if it >= s.warmup && (it-s.warmup+1)%s.thin == 0 {
				res.store(s, c, kept, st.theta, st.logE)
				kept++
			}
			tick(it + 1)
		}
		res.Accepted[c], res.Proposed[c] = st.Acceptance()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// DAChain is the state of one data-augmentation chain: θ, the n latent
// records, their scaled contributions and the running statistic. Its Step
// and Sweep methods allocate nothing. A DAChain is not safe for
// concurrent use; run one per goroutine.
type DAChain struct {
	m      *daModel
	kernel RecordStep
	n      int
	rd, cd int
	scale  float64 // 1/n

	theta []float64
	recs  []float64 // n × rd
	tc    []float64 // n × cd, scaled contributions t(x_i)·scale
	s     []float64 // current statistic Σ tc_i
	logE  float64   // log η(s_dp | s)

	// Laplace lattice path (lattice.go): the statistic and the
	// contributions (column-major: coordinate k of slot i at tg[k·n + i])
	// in grid units, and scratch for s + t(y); used while latOK (every
	// scaled value within latMaxScaled).
	lat       *lapLattice
	latOK     bool
	sg, tg, a []float64

	y, ty, buf, c []float64
	logw, w       []float64

	next     int // systematic-scan position
	accepted int64
	attempts int64
}

// NewDAChain returns one data-augmentation chain for problem p with the
// θ-step and record step of cfg (its chain settings are not used), started
// at θ = theta0 (copied) with records drawn from f(·|θ0) using r. The
// Problem needs what RunDA needs.
func NewDAChain(p privinfer.Problem, cfg DAConfig, r *rand.Rand, theta0 []float64) (*DAChain, error) {
	m, err := newDAModel(&p, cfg.ThetaStep)
	if err != nil {
		return nil, err
	}
	return newDAChain(m, cfg.RecordStep, r, theta0)
}

func newDAChain(m *daModel, k RecordStep, r *rand.Rand, theta0 []float64) (*DAChain, error) {
	if !k.valid() {
		return nil, fmt.Errorf("%w: unknown record step %d", ErrInvalid, int(k))
	}
	if r == nil {
		return nil, fmt.Errorf("%w: random source is nil", ErrInvalid)
	}
	if err := m.rec.CheckParam(theta0); err != nil {
		return nil, argcheck.Also(err, ErrInvalid)
	}
	n, rd, cd := m.n, m.rec.RecordDim(), m.rec.ContribDim()
	c := &DAChain{m: m, kernel: k, n: n, rd: rd, cd: cd,
		theta: append([]float64(nil), theta0...),
		recs:  make([]float64, n*rd), tc: make([]float64, n*cd), s: make([]float64, cd),
		y: make([]float64, rd), ty: make([]float64, cd), buf: make([]float64, cd), c: make([]float64, cd),
		logw: make([]float64, n), w: make([]float64, n)}
	c.scale = 1 / float64(n)
	if c.lat = newLapLattice(m.mech, m.sdp); c.lat != nil {
		c.sg, c.tg, c.a = make([]float64, cd), make([]float64, n*cd), make([]float64, cd)
	}
	for i := range n {
		m.rec.SampleRecord(r, c.theta, c.recs[i*rd:(i+1)*rd])
	}
	if err := c.refresh(); err != nil {
		return nil, err
	}
	return c, nil
}

// SetRecords replaces the latent records by a copy of recs (length
// n·RecordDim) and recomputes the statistic.
func (c *DAChain) SetRecords(recs []float64) error {
	if err := c.check(); err != nil {
		return err
	}
	if len(recs) != len(c.recs) {
		return fmt.Errorf("%w: records must have length n·RecordDim = %d, got %d", ErrInvalid, len(c.recs), len(recs))
	}
	for i, v := range recs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: records[%d] must be finite, got %v", ErrInvalid, i, v)
		}
	}
	copy(c.recs, recs)
	return c.refresh()
}

// SetTheta replaces θ by a copy of theta after checking it.
func (c *DAChain) SetTheta(theta []float64) error {
	if err := c.check(); err != nil {
		return err
	}
	if err := c.m.rec.CheckParam(theta); err != nil {
		return argcheck.Also(err, ErrInvalid)
	}
	copy(c.theta, theta)
	return nil
}

// refresh recomputes the contributions, the statistic (summed in record
// order, which removes any drift of the incremental updates) and log η.
func (c *DAChain) refresh() error {
	for i := range c.n {
		t := c.tc[i*c.cd : (i+1)*c.cd]
		c.m.rec.Contribution(c.recs[i*c.rd:(i+1)*c.rd], t)
		for k := range t {
			t[k] *= c.scale
		}
	}
	if err := c.resum(); err != nil {
		return fmt.Errorf("%w at the current records", err)
	}
	return nil
}

// logEta returns log η(s_dp | s).
func (c *DAChain) logEta(s []float64) float64 {
	return c.m.mech.LogDensity(c.m.sdp, s)
}

// scaleLattice recomputes the grid-unit copies of the contributions and
// the statistic and whether the lattice path may be used (every scaled
// value within latMaxScaled, so no sum of them overflows).
func (c *DAChain) scaleLattice() {
	if c.lat == nil {
		return
	}
	ok := true
	inv := c.lat.inv[:c.cd]
	for i := range c.n {
		for k, v := range c.tc[i*c.cd : (i+1)*c.cd] {
			g := v * inv[k]
			c.tg[k*c.n+i] = g
			ok = ok && math.Abs(g) <= latMaxScaled
		}
	}
	for k, v := range c.s {
		c.sg[k] = v * inv[k]
		ok = ok && math.Abs(c.sg[k]) <= latMaxScaled
	}
	c.latOK = ok
}

// check reports a DAChain used without NewDAChain.
func (c *DAChain) check() error {
	if c == nil || c.m == nil {
		return fmt.Errorf("%w: DAChain used without NewDAChain (nil or zero value)", ErrInvalid)
	}
	return nil
}

// checkRand is check plus a non-nil random source.
func (c *DAChain) checkRand(r *rand.Rand) error {
	if err := c.check(); err != nil {
		return err
	}
	if r == nil {
		return fmt.Errorf("%w: random source is nil", ErrInvalid)
	}
	return nil
}

// Theta returns the current θ (a view; do not modify); nil for a nil
// DAChain.
func (c *DAChain) Theta() []float64 {
	if c == nil {
		return nil
	}
	return c.theta
}

// Records returns the current latent records, n·RecordDim values (a view;
// do not modify); nil for a nil DAChain.
func (c *DAChain) Records() []float64 {
	if c == nil {
		return nil
	}
	return c.recs
}

// Stat returns the current statistic s(x) (a view; do not modify); nil
// for a nil DAChain.
func (c *DAChain) Stat() []float64 {
	if c == nil {
		return nil
	}
	return c.s
}

// LogEta returns log η(s_dp | s(x)) at the current records (NaN for a nil
// DAChain).
func (c *DAChain) LogEta() float64 {
	if c == nil {
		return math.NaN()
	}
	return c.logE
}

// Acceptance returns the accepted and attempted record replacements so far
// (0, 0 for a nil DAChain).
func (c *DAChain) Acceptance() (accepted, attempts int64) {
	if c == nil {
		return 0, 0
	}
	return c.accepted, c.attempts
}

// ResetAcceptance zeroes the acceptance counters (nothing for a nil
// DAChain).
func (c *DAChain) ResetAcceptance() {
	if c == nil {
		return
	}
	c.accepted, c.attempts = 0, 0
}

// weights fills c.logw[i] = log w_i(y) = log η(s_dp | s + t(y) − t(x_i))
// for all slots in one pass over the contiguous contribution matrix and
// returns their maximum (NaN if any is NaN).
func (c *DAChain) weights() float64 {
	mx := math.Inf(-1)
	if c.latticeA() {
		// In grid units: a = s + t(y), log w_i = lattice slot form at a − t_i.
		logw := c.logw[:c.n]
		return c.lat.weights(c.a, c.tg, logw) // NaN from non-finite contributions
	}
	for i := range c.n {
		lw := c.slotLogW(i)
		c.logw[i] = lw
		if lw > mx || math.IsNaN(lw) {
			mx = lw
		}
		if math.IsNaN(mx) {
			return mx
		}
	}
	return mx
}

// slotLogW returns log η(s_dp | s + t(y) − t(x_i)).
func (c *DAChain) slotLogW(i int) float64 {
	t := c.tc[i*c.cd : (i+1)*c.cd]
	for k := range c.buf {
		c.buf[k] = c.s[k] + c.ty[k] - t[k]
	}
	return c.logEta(c.buf)
}

// latticeA reports whether the proposal's weights can take the lattice
// path and if so sets c.a = s + t(y) in grid units (the scaling by a
// power of two is exact, so a_k = (s_k + t_k(y))/γ_k as the mechanism
// computes it).
func (c *DAChain) latticeA() bool {
	if !c.latOK {
		return false
	}
	for k, v := range c.ty {
		g := v * c.lat.inv[k]
		if !(math.Abs(g) <= latMaxScaled) {
			return false
		}
		c.a[k] = c.sg[k] + g
	}
	return true
}

// propose draws a fresh record y ~ f(·|θ) and its scaled contribution.
func (c *DAChain) propose(r *rand.Rand) {
	c.m.rec.SampleRecord(r, c.theta, c.y)
	c.m.rec.Contribution(c.y, c.ty)
	for k := range c.ty {
		c.ty[k] *= c.scale
	}
}

// replace puts the proposal into slot i, with new log η logw.
func (c *DAChain) replace(i int, logw float64) {
	copy(c.recs[i*c.rd:(i+1)*c.rd], c.y)
	t := c.tc[i*c.cd : (i+1)*c.cd]
	for k := range t {
		c.s[k] += c.ty[k] - t[k]
		t[k] = c.ty[k]
	}
	if c.latOK {
		// A contribution beyond latMaxScaled switches the lattice path
		// off until the next resum.
		for k, v := range c.ty {
			c.sg[k] = c.s[k] * c.lat.inv[k]
			g := v * c.lat.inv[k]
			c.tg[k*c.n+i] = g
			c.latOK = c.latOK && math.Abs(g) <= latMaxScaled
		}
	}
	c.logE = logw
	c.accepted++
}

// Step performs one attempt of the chain's record step: one fresh record y ~
// f(·|θ) offered to one slot (IMwG) or to all slots (SOMA).
func (c *DAChain) Step(r *rand.Rand) error {
	if err := c.checkRand(r); err != nil {
		return err
	}
	c.propose(r)
	c.attempts++
	switch c.kernel {
	case SOMA:
		return c.somaStep(r)
	case SystematicScanIMwG:
		i := c.next
		c.next++
		if c.next == c.n {
			c.next = 0
		}
		return c.imwgStep(r, i)
	default:
		return c.imwgStep(r, r.IntN(c.n))
	}
}

func (c *DAChain) imwgStep(r *rand.Rand, i int) error {
	var lw float64
	if c.latticeA() {
		lw = c.lat.slot(c.a, c.tg, c.n, i)
	} else {
		lw = c.slotLogW(i)
	}
	if math.IsNaN(lw) {
		return fmt.Errorf("%w: log η at a proposed record", ErrNaN)
	}
	if imwgAccept(r.Float64(), c.logE, lw) {
		c.replace(i, lw)
	}
	return nil
}

// imwgAccept reports u < min{1, w/w0} in log space.
func imwgAccept(u, logw0, logw float64) bool {
	if logw >= logw0 {
		return true
	}
	return u < math.Exp(logw-logw0)
}

func (c *DAChain) somaStep(r *rand.Rand) error {
	mx := c.weights()
	idx, ok, err := somaSelect(r.Float64(), r.Float64(), c.logE, mx, c.logw, c.w)
	if err != nil {
		return err
	}
	if ok {
		c.replace(idx, c.logw[idx])
	}
	return nil
}

// somaChoose draws the SOMA slot I ∝ w_i with the uniform u1 and accepts
// with probability min{1, W/(W + w_0 − w_I)} using u2, all in log space.
// It returns the slot, whether the move is accepted, and an error on NaN.
func somaChoose(u1, u2, logw0 float64, logw []float64) (int, bool, error) {
	mx := math.Inf(-1)
	for _, v := range logw {
		if v > mx || math.IsNaN(v) {
			mx = v
		}
	}
	return somaSelect(u1, u2, logw0, mx, logw, make([]float64, len(logw)))
}

// somaSelect is somaChoose given mx = max_i log w_i (NaN if any is NaN),
// using w as scratch for the relative weights e^{log w_i − mx} (computed
// by lattice.ExpShift, which gives math.Exp's values) and their running
// sums. The slot is the first whose running sum exceeds u1·W, found by
// bisection over the running sums, which are those a scan adding the
// weights in slot order would form.
func somaSelect(u1, u2, logw0, mx float64, logw, w []float64) (int, bool, error) {
	if math.IsNaN(mx) {
		return 0, false, fmt.Errorf("%w: log η at a proposed record", ErrNaN)
	}
	if math.IsInf(mx, -1) {
		return 0, false, nil // every w_i is zero: nothing can be accepted
	}
	w = w[:len(logw)]
	if lattice.ExpShift(w, logw, mx) != nil {
		return somaSelectScan(u1, u2, logw0, mx, logw, w)
	}
	wsum := 0.0
	for i, e := range w {
		wsum += e
		w[i] = wsum
	}
	if math.IsNaN(wsum) || math.IsInf(wsum, 0) {
		// Only with log w_i = +Inf: the running sums are not monotone.
		return somaSelectScan(u1, u2, logw0, mx, logw, w)
	}
	target := u1 * wsum
	lo, hi := 0, len(w)-1 // the slot is in [lo, hi]; hi is also the fallback
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if target < w[mid] {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return somaAccept(u2, logw0, mx, wsum, math.Exp(logw[lo]-mx), lo)
}

// somaSelectScan is somaSelect by a linear scan, one math.Exp per slot.
func somaSelectScan(u1, u2, logw0, mx float64, logw, w []float64) (int, bool, error) {
	wsum := 0.0
	for i, v := range logw {
		e := math.Exp(v - mx)
		w[i] = e
		wsum += e
	}
	target := u1 * wsum
	idx, acc := len(w)-1, 0.0
	for i, e := range w {
		acc += e
		if target < acc {
			idx = i
			break
		}
	}
	return somaAccept(u2, logw0, mx, wsum, w[idx], idx)
}

// somaAccept decides the acceptance of slot idx with relative weight wI
// out of the total wsum (both relative to e^{mx}) using u2: α = W / (W −
// w_I + w_0).
func somaAccept(u2, logw0, mx, wsum, wI float64, idx int) (int, bool, error) {
	rest := wsum - wI
	if rest < 0 {
		rest = 0
	}
	den := rest + math.Exp(logw0-mx)
	if den <= wsum {
		return idx, true, nil
	}
	return idx, u2*den < wsum, nil
}

// Sweep performs n attempts of the record step (a systematic sweep for
// Sys-IMwG) followed by the θ-step, and recomputes the statistic from the
// stored contributions.
func (c *DAChain) Sweep(r *rand.Rand) error {
	if err := c.checkRand(r); err != nil {
		return err
	}
	for range c.n {
		if err := c.Step(r); err != nil {
			return err
		}
	}
	return c.ThetaStep(r)
}

// ThetaStep recomputes the statistic from the stored contributions (to
// cancel floating-point drift of the incremental updates) and draws θ
// from the model's θ-step given the current records.
func (c *DAChain) ThetaStep(r *rand.Rand) error {
	if err := c.checkRand(r); err != nil {
		return err
	}
	if err := c.resum(); err != nil {
		return err
	}
	if err := c.m.theta.SampleTheta(r, c.recs, c.n, c.theta); err != nil {
		if errors.Is(err, simulate.ErrInvalid) && !errors.Is(err, ErrInvalid) {
			// A θ-step from a model package (simulate/linreg's) refusing
			// its own settings is an invalid DAConfig.ThetaStep.
			return argcheck.Also(err, ErrInvalid)
		}
		return fmt.Errorf("mcmc: θ-step: %w", err)
	}
	for i, v := range c.theta {
		if math.IsNaN(v) {
			return fmt.Errorf("%w: θ-step returned NaN in θ[%d]", ErrNaN, i)
		}
	}
	return nil
}

// resum recomputes s from the stored contributions, its grid-unit
// copies and log η.
func (c *DAChain) resum() error {
	clear(c.s)
	for i := range c.n {
		t := c.tc[i*c.cd : (i+1)*c.cd]
		for k, v := range t {
			c.s[k] += v
		}
	}
	c.scaleLattice()
	c.logE = c.logEta(c.s)
	if math.IsNaN(c.logE) {
		return fmt.Errorf("%w: log η(s_dp | s(x))", ErrNaN)
	}
	return nil
}

// slotAcceptProbs writes, for proposal weights logw and current weight
// logw0, the SOMA acceptance probability α_i^SOMA = min{1, W/(W + w_0 −
// w_i)} and the IMwG one α_i^IMwG = min{1, w_i/w_0} for every slot i, and
// returns the overall SOMA acceptance Σ_i (w_i/W) α_i^SOMA. It is the
// quantity compared by the slides' dominance theorem.
func slotAcceptProbs(logw0 float64, logw, soma, imwg []float64) float64 {
	mx := logw0
	for _, v := range logw {
		mx = math.Max(mx, v)
	}
	w := 0.0
	for _, v := range logw {
		w += math.Exp(v - mx)
	}
	w0 := math.Exp(logw0 - mx)
	total := 0.0
	for i, v := range logw {
		wi := math.Exp(v - mx)
		rest := math.Max(w-wi, 0)
		soma[i] = math.Min(1, w/(rest+w0))
		imwg[i] = math.Min(1, math.Exp(v-logw0))
		total += wi / w * soma[i]
	}
	return total
}
