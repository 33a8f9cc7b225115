package mcmc

import (
	"context"
	"fmt"
	"github.com/privinfer/privinfer/internal/lattice"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/stats"
)

// Coupler supplies the model-specific parts of a coupling of two
// data-augmentation chains: coupled draws of a record proposal and of the
// θ-step whose marginals are the single-chain laws and which coincide as
// often as possible (maximal couplings), so that once two chains share θ
// and records they stay together.
type Coupler interface {
	// SampleRecordPair draws y1 ~ f(·|θ1) and y2 ~ f(·|θ2) jointly.
	SampleRecordPair(r *rand.Rand, theta1, theta2, y1, y2 []float64)
	// SampleThetaPair draws θ1 ~ π(·|x1) and θ2 ~ π(·|x2) jointly.
	SampleThetaPair(r *rand.Rand, rec1, rec2 []float64, n int, theta1, theta2 []float64) error
}

// CouplingConfig configures CoupleDA. Pairs, MaxIter and InitPair have no
// usable zero values.
type CouplingConfig struct {
	// RecordStep is the kernel of the latent-record updates of both
	// chains; the zero value is RandomScanIMwG.
	RecordStep RecordStep
	// Coupler supplies the coupled record proposals and θ-steps; nil
	// means the Problem's record model, which must then implement
	// Coupler.
	Coupler Coupler
	// Pairs is the number of independent coupled pairs (≥ 1), run in
	// parallel on random streams derived from (Seed, pair).
	Pairs int
	// MaxIter caps the iterations of one pair (≥ 1); pairs that have not
	// met are reported as censored at MaxIter.
	MaxIter int
	// Seed selects the random streams; the result depends on it only.
	Seed uint64
	// InitPair writes the starting θ and records of both chains of a pair;
	// it must be non-nil.
	InitPair func(pair int, r *rand.Rand, theta1, rec1, theta2, rec2 []float64) error
	// Progress, if non-nil, receives events with Stage "pair", Step the
	// pairs finished and Total = Pairs, from the goroutine that called
	// CoupleDA.
	Progress privinfer.ProgressFunc
}

// Validate checks the settings that do not depend on the Problem: a
// known RecordStep, 1 ≤ Pairs ≤ 65536, MaxIter ≥ 1 and a non-nil
// InitPair. Errors wrap ErrInvalid.
func (c CouplingConfig) Validate() error {
	if !c.RecordStep.valid() {
		return fmt.Errorf("%w: unknown CouplingConfig.RecordStep %d", ErrInvalid, int(c.RecordStep))
	}
	if c.Pairs > maxChains {
		return fmt.Errorf("%w: CoupleDA Pairs must be <= %d, got %d", ErrInvalid, maxChains, c.Pairs)
	}
	if c.Pairs < 1 || c.MaxIter < 1 {
		return fmt.Errorf("%w: CoupleDA needs Pairs >= 1 and MaxIter >= 1, got %d and %d", ErrInvalid, c.Pairs, c.MaxIter)
	}
	if c.InitPair == nil {
		return fmt.Errorf("%w: CoupleDA needs InitPair", ErrInvalid)
	}
	return nil
}

// CouplingResult holds the meeting times of the coupled pairs.
type CouplingResult struct {
	// Times[i] is the first iteration after which both chains of pair i
	// have identical θ and records; MaxIter if they had not met.
	Times []int
	// Censored counts pairs that had not met by MaxIter.
	Censored int
}

// Mean returns the mean meeting time (censored pairs count as MaxIter, so
// it is then a lower bound); NaN without pairs.
func (c *CouplingResult) Mean() float64 {
	if c == nil || len(c.Times) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, t := range c.Times {
		s += float64(t)
	}
	return s / float64(len(c.Times))
}

// Quartiles returns the type-7 25% and 75% quantiles of the meeting times.
//
// Both are NaN without pairs.
func (c *CouplingResult) Quartiles() (q1, q3 float64) {
	if c == nil {
		return math.NaN(), math.NaN()
	}
	x := make([]float64, len(c.Times))
	for i, t := range c.Times {
		x[i] = float64(t)
	}
	slices.Sort(x)
	return stats.Quantile(x, 0.25), stats.Quantile(x, 0.75)
}

// Rate returns 1 − 1/E[τ], the geometric convergence rate implied by a
// memoryless meeting time with the observed mean (the slides' table's
// "convergence rate" is of this form).
func (c *CouplingResult) Rate() float64 { return 1 - 1/c.Mean() }

// CoupleDA runs coupled pairs of data-augmentation chains for problem p
// (which needs what RunDA needs) with cfg.RecordStep and returns their
// meeting times. Within a pair both chains use the coupled record
// proposals of the Coupler, the same IMwG slot index and the same
// acceptance uniform; SOMA's slot is drawn from a maximal coupling of the
// two chains' slot distributions; the θ-step is the Coupler's. Each chain
// on its own is an exact DA chain, so the meeting time bounds the total
// variation distance of the chain from stationarity: ‖P^t − π‖ ≤ P(τ > t)
// when one chain starts at stationarity.
func CoupleDA(ctx context.Context, p privinfer.Problem, cfg CouplingConfig) (*CouplingResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cp := cfg.Coupler
	if argcheck.Nil(cp) {
		if rec, _, err := p.Records(); err == nil {
			cp, _ = rec.(Coupler)
		}
	}
	if argcheck.Nil(cp) {
		return nil, fmt.Errorf("%w: CoupleDA needs CouplingConfig.Coupler or a record model implementing Coupler", ErrInvalid)
	}
	// The coupler's θ-step stands in for a DAConfig θ-step: single-chain
	// θ-steps are never taken.
	m, err := newDAModel(&p, coupledTheta{cp})
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, fmt.Errorf("%w: context is nil", ErrInvalid)
	}
	res := &CouplingResult{Times: make([]int, cfg.Pairs)}
	pd, rd := m.rec.ParamDim(), m.rec.RecordDim()
	s := chainSettings{chains: cfg.Pairs, draws: 1, thin: 1}
	err = runChains(ctx, s, cfg.Seed, relabel(cfg.Progress, "pair"), func(pair int, r *rand.Rand, tick func(int)) error {
		th1, th2 := make([]float64, pd), make([]float64, pd)
		x1, x2 := make([]float64, m.n*rd), make([]float64, m.n*rd)
		if err := cfg.InitPair(pair, r, th1, x1, th2, x2); err != nil {
			return fmt.Errorf("mcmc: pair %d: InitPair: %w", pair, err)
		}
		c1, err := newDAChain(m, cfg.RecordStep, r, th1)
		if err != nil {
			return err
		}
		c2, err := newDAChain(m, cfg.RecordStep, r, th2)
		if err != nil {
			return err
		}
		if err := c1.SetRecords(x1); err != nil {
			return err
		}
		if err := c2.SetRecords(x2); err != nil {
			return err
		}
		defer tick(1)
		pc := newPairCoupler(m.n)
		res.Times[pair] = cfg.MaxIter
		for it := 1; it <= cfg.MaxIter; it++ {
			if it&15 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			for range m.n {
				if err := pc.coupledStep(r, cp, c1, c2); err != nil {
					return err
				}
			}
			if err := c1.resum(); err != nil {
				return err
			}
			if err := c2.resum(); err != nil {
				return err
			}
			if err := cp.SampleThetaPair(r, c1.recs, c2.recs, m.n, c1.theta, c2.theta); err != nil {
				return err
			}
			if slices.Equal(c1.theta, c2.theta) && pc.align(c1, c2) == m.n {
				res.Times[pair] = it
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, t := range res.Times {
		if t == cfg.MaxIter {
			res.Censored++
		}
	}
	return res, nil
}

// coupledTheta is the θ-step of one chain of a Coupler: the first
// component of a pair drawn for two equal record sets.
type coupledTheta struct{ cp Coupler }

func (t coupledTheta) SampleTheta(r *rand.Rand, records []float64, n int, theta []float64) error {
	other := make([]float64, len(theta))
	return t.cp.SampleThetaPair(r, records, records, n, theta, other)
}

// relabel returns f with every event's Stage and Message set for a run
// of independent tasks called stage; nil stays nil.
func relabel(f privinfer.ProgressFunc, stage string) privinfer.ProgressFunc {
	if f == nil {
		return nil
	}
	return func(p privinfer.Progress) {
		p.Stage = stage
		p.Message = ""
		f(p)
	}
}

type pairCoupler struct {
	p, q, qa []float64
	perm     []int // chain-2 slot aligned with chain-1 slot i
	used     []bool
}

func newPairCoupler(n int) *pairCoupler {
	return &pairCoupler{p: make([]float64, n), q: make([]float64, n), qa: make([]float64, n), perm: make([]int, n), used: make([]bool, n)}
}

// align pairs every chain-1 slot with a chain-2 slot holding an identical
// record where one exists (identical records can only come from shared
// proposals), the rest in order, and returns the number of identical pairs.
// Because the DA target is permutation invariant, chains whose records
// agree as multisets are in the same state.
func (pc *pairCoupler) align(c1, c2 *DAChain) int {
	n, rd := c1.n, c1.rd
	clear(pc.used)
	matched := 0
	for i := range n {
		pc.perm[i] = -1
		a := c1.recs[i*rd : (i+1)*rd]
		for j := range n {
			if !pc.used[j] && slices.Equal(a, c2.recs[j*rd:(j+1)*rd]) {
				pc.perm[i], pc.used[j] = j, true
				matched++
				break
			}
		}
	}
	j := 0
	for i := range n {
		if pc.perm[i] >= 0 {
			continue
		}
		for pc.used[j] {
			j++
		}
		pc.perm[i], pc.used[j] = j, true
	}
	return matched
}

func (pc *pairCoupler) coupledStep(r *rand.Rand, cp Coupler, c1, c2 *DAChain) error {
	cp.SampleRecordPair(r, c1.theta, c2.theta, c1.y, c2.y)
	for _, c := range []*DAChain{c1, c2} {
		c.m.rec.Contribution(c.y, c.ty)
		for k := range c.ty {
			c.ty[k] *= c.scale
		}
		c.attempts++
	}
	u := r.Float64()
	switch c1.kernel {
	case SOMA:
		if math.IsNaN(c1.weights()) || math.IsNaN(c2.weights()) {
			return fmt.Errorf("%w: log η at a proposed record", ErrNaN)
		}
		pc.align(c1, c2)
		i1, j2, err := pc.coupledSlots(r, c1.logw, c2.logw)
		if err != nil {
			return err
		}
		i2 := pc.perm[j2]
		for _, z := range []struct {
			c *DAChain
			i int
		}{{c1, i1}, {c2, i2}} {
			if somaAcceptAt(u, z.c.logE, z.c.logw, z.i) {
				z.c.replace(z.i, z.c.logw[z.i])
			}
		}
	default:
		var i int
		if c1.kernel == SystematicScanIMwG {
			i = c1.next
			c1.next = (c1.next + 1) % c1.n
			c2.next = c1.next
		} else {
			i = r.IntN(c1.n)
		}
		for _, c := range []*DAChain{c1, c2} {
			lw := c.slotLogW(i)
			if math.IsNaN(lw) {
				return fmt.Errorf("%w: log η at a proposed record", ErrNaN)
			}
			if imwgAccept(u, c.logE, lw) {
				c.replace(i, lw)
			}
		}
	}
	return nil
}

// somaAcceptAt reports whether SOMA accepts slot i with uniform u.
func somaAcceptAt(u, logw0 float64, logw []float64, i int) bool {
	mx := math.Inf(-1)
	for _, v := range logw {
		mx = math.Max(mx, v)
	}
	if math.IsInf(mx, -1) {
		return false
	}
	w := 0.0
	for _, v := range logw {
		w += math.Exp(v - mx)
	}
	den := math.Max(w-math.Exp(logw[i]-mx), 0) + math.Exp(logw0-mx)
	return den <= w || u*den < w
}

// coupledSlots draws I1 ∝ w1 and J ∝ w2 (J in chain 1's aligned slot
// order, chain 2's slot is perm[J]) from a maximal coupling of the two
// slot distributions: I1 = J with probability Σ_i min(p_i, q_perm(i)).
func (pc *pairCoupler) coupledSlots(r *rand.Rand, lw1, lw2 []float64) (int, int, error) {
	if err := normLog(lw1, pc.p); err != nil {
		return 0, 0, err
	}
	if err := normLog(lw2, pc.q); err != nil {
		return 0, 0, err
	}
	// Reorder chain 2's probabilities into chain 1's slot order.
	for i, j := range pc.perm {
		pc.qa[i] = pc.q[j]
	}
	pc.q, pc.qa = pc.qa, pc.q
	over := 0.0
	for i := range pc.p {
		over += math.Min(pc.p[i], pc.q[i])
	}
	if r.Float64() < over {
		u := r.Float64() * over
		for i := range pc.p {
			u -= math.Min(pc.p[i], pc.q[i])
			if u < 0 {
				return i, i, nil
			}
		}
		n := len(pc.p) - 1
		return n, n, nil
	}
	draw := func(a, b []float64) int {
		u := r.Float64() * (1 - over)
		last := 0
		for i := range a {
			d := a[i] - math.Min(a[i], b[i])
			if d > 0 {
				last = i
			}
			u -= d
			if u < 0 {
				return i
			}
		}
		return last
	}
	return draw(pc.p, pc.q), draw(pc.q, pc.p), nil
}

func normLog(lw, p []float64) error {
	mx := math.Inf(-1)
	for _, v := range lw {
		if math.IsNaN(v) {
			return fmt.Errorf("%w: log η at a proposed record", ErrNaN)
		}
		mx = math.Max(mx, v)
	}
	// The same exponentials as the SOMA step's (bit for bit math.Exp),
	// vectorised.
	if err := lattice.ExpShift(p, lw, mx); err != nil {
		return err
	}
	s := 0.0
	for _, v := range p[:len(lw)] {
		s += v
	}
	for i := range p {
		p[i] /= s
	}
	return nil
}
