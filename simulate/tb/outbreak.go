package tb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Indices of the per-outbreak summary written by Outbreak.Simulate.
const (
	// StatObserved is the number of observed cases.
	StatObserved = iota
	// StatClusters is the number of distinct clusters among them.
	StatClusters
	// StatLargest is the size of the largest observed cluster.
	StatLargest
	// StatLargestDiff is the mean difference between consecutive sizes of
	// the four largest clusters, (s₁ − s₄)/3, missing clusters counting as
	// size 0.
	StatLargestDiff
	// StatSingletons is the number of clusters of size 1.
	StatSingletons
	// StatPairs is the number of clusters of size 2.
	StatPairs
	// StatPeriod is the number of months from the first to the last month
	// (inclusive) in which the largest cluster was observed; 0 without
	// observations.
	StatPeriod
	// StatMonths is the number of months in which the largest cluster was
	// observed.
	StatMonths
	// StatDiversity is the gene diversity H = 1 − Σ_i (s_i/n)² of the
	// observed cluster sizes s_i (Tanaka et al. 2006); 0 for fewer than
	// one case.
	StatDiversity
	// NumStats is the length of one outbreak's summary.
	NumStats
)

// StatNames returns the names of the summary entries, in index order.
func StatNames() []string {
	return []string{"observed", "clusters", "largest", "largest_diff", "singletons", "pairs", "period_months", "months", "diversity"}
}

// Defaults of Config (Lintusaari et al. 2019; the ABCDP authors' code).
const (
	DefaultPCompliance = 0.95
	DefaultPObserved   = 0.8
	DefaultDeathC      = 5.95
	DefaultObsYears    = 2
	DefaultMinWarmup   = 15
	DefaultMaxWarmup   = 300
	DefaultMaxEvents   = 100_000_000
)

// Config describes the outbreak model. Zero fields take the defaults
// above, which are those of the ABCDP paper's experiment.
type Config struct {
	// PCompliance is the probability that a new case is compliant, in
	// (0, 1).
	PCompliance float64
	// PObserved is the probability that a case ending inside the
	// observation window is observed, in (0, 1].
	PObserved float64
	// DeathC is the compliant population's death (end) rate d₀ per year,
	// > 0; θ's R₂ scales it into the compliant transmission rate.
	DeathC float64
	// ObsYears is the length of the observation window in whole years,
	// 1 to 100.
	ObsYears int
	// MinWarmup and MaxWarmup bound the warm-up in years: the populations
	// are advanced year by year, at most MaxWarmup/2 years, until both have
	// reached their balance means, and the window opens after twice that
	// time, at least MinWarmup years. 0 < MinWarmup, 2 ≤ MaxWarmup ≤ 10⁴.
	MinWarmup, MaxWarmup float64
	// MaxEvents bounds the number of events of one outbreak; a simulation
	// that would exceed it returns an error. ≥ 1.
	MaxEvents int
}

func (c Config) withDefaults() Config {
	if c.PCompliance == 0 {
		c.PCompliance = DefaultPCompliance
	}
	if c.PObserved == 0 {
		c.PObserved = DefaultPObserved
	}
	if c.DeathC == 0 {
		c.DeathC = DefaultDeathC
	}
	if c.ObsYears == 0 {
		c.ObsYears = DefaultObsYears
	}
	if c.MinWarmup == 0 {
		c.MinWarmup = DefaultMinWarmup
	}
	if c.MaxWarmup == 0 {
		c.MaxWarmup = DefaultMaxWarmup
	}
	if c.MaxEvents == 0 {
		c.MaxEvents = DefaultMaxEvents
	}
	return c
}

// Validate checks the configuration after defaults are applied; errors
// wrap simulate.ErrInvalid and name the field.
func (c Config) Validate() error {
	c = c.withDefaults()
	bad := func(f string, v any) error {
		return fmt.Errorf("%w: tb.Config.%s out of range, got %v", simulate.ErrInvalid, f, v)
	}
	switch {
	case !(c.PCompliance > 0 && c.PCompliance < 1):
		return bad("PCompliance (want (0, 1))", c.PCompliance)
	case !(c.PObserved > 0 && c.PObserved <= 1):
		return bad("PObserved (want (0, 1])", c.PObserved)
	case !(c.DeathC > 0) || c.DeathC > 1e6:
		return bad("DeathC (want (0, 1e6])", c.DeathC)
	case c.ObsYears < 1 || c.ObsYears > 100:
		return bad("ObsYears (want 1 to 100)", c.ObsYears)
	case !(c.MinWarmup > 0) || c.MinWarmup > 1e4:
		return bad("MinWarmup (want (0, 1e4])", c.MinWarmup)
	case !(c.MaxWarmup >= 2) || c.MaxWarmup > 1e4:
		return bad("MaxWarmup (want [2, 1e4])", c.MaxWarmup)
	case c.MaxEvents < 1:
		return bad("MaxEvents (want >= 1)", c.MaxEvents)
	}
	return nil
}

// Rates are the event rates of the outbreak process, per year and case
// (Burden per year).
type Rates struct {
	// Burden is β, the rate at which new clusters appear.
	Burden float64
	// TransC and DeathC are the compliant population's transmission and
	// death rates a₀, d₀.
	TransC, DeathC float64
	// TransNC and DeathNC are the non-compliant population's rates a₁, d₁.
	TransNC, DeathNC float64
}

// Outbreak simulates one outbreak and writes its NumStats summary. It is a
// simulate.Simulator of θ = (R₁, t₁, R₂, β); see the package documentation.
type Outbreak struct {
	cfg  Config
	pool sync.Pool // *state
}

// NewOutbreak returns the outbreak simulator for cfg (zero fields take the
// paper's values).
func NewOutbreak(cfg Config) (*Outbreak, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := &Outbreak{cfg: cfg.withDefaults()}
	o.pool.New = func() any { return new(state) }
	return o, nil
}

// Config returns the configuration with its defaults filled in.
func (o *Outbreak) Config() Config {
	if o == nil {
		return Config{}
	}
	return o.cfg
}

func (o *Outbreak) valid() bool { return o != nil && o.cfg.DeathC > 0 }

// StatDim is NumStats.
func (o *Outbreak) StatDim() int { return NumStats }

// Rates converts θ = (R₁, t₁, R₂, β) into event rates: d₁ = t₁/(R₁ − 1),
// a₁ = t₁ + d₁, d₀ = Config.DeathC, a₀ = R₂·d₀. θ must be finite with
// R₁ > 1, t₁ > 0, R₂ ≥ 0, β > 0, and the process must be subcritical,
// (1 − p)R₁ + pR₂ < 1 with p = Config.PCompliance; otherwise the error
// wraps simulate.ErrInvalidTheta.
func (o *Outbreak) Rates(theta []float64) (Rates, error) {
	if !o.valid() {
		return Rates{}, modelutil.ErrUnbuilt("tb.Outbreak")
	}
	if err := modelutil.CheckFinite("tb outbreak", theta, 4); err != nil {
		return Rates{}, err
	}
	r1, t1, r2, beta := theta[0], theta[1], theta[2], theta[3]
	switch {
	case !(r1 > 1) || r1 > 1e6:
		return Rates{}, fmt.Errorf("%w: tb outbreak R1 = θ[0] must be in (1, 1e6], got %v", simulate.ErrInvalidTheta, r1)
	case !(t1 > 0) || t1 > 1e6:
		return Rates{}, fmt.Errorf("%w: tb outbreak t1 = θ[1] must be in (0, 1e6], got %v", simulate.ErrInvalidTheta, t1)
	case !(r2 >= 0) || r2 > 1e6:
		return Rates{}, fmt.Errorf("%w: tb outbreak R2 = θ[2] must be in [0, 1e6], got %v", simulate.ErrInvalidTheta, r2)
	case !(beta > 0) || beta > 1e6:
		return Rates{}, fmt.Errorf("%w: tb outbreak burden β = θ[3] must be in (0, 1e6], got %v", simulate.ErrInvalidTheta, beta)
	}
	p := o.cfg.PCompliance
	if rho := (1-p)*r1 + p*r2; !(rho < 1) {
		return Rates{}, fmt.Errorf("%w: tb outbreak is not subcritical: (1-p)R1 + pR2 = %v >= 1 (R1 = %v, R2 = %v, p = %v)", simulate.ErrInvalidTheta, rho, r1, r2, p)
	}
	d1 := t1 / (r1 - 1)
	d0 := o.cfg.DeathC
	return Rates{Burden: beta, TransC: r2 * d0, DeathC: d0, TransNC: t1 + d1, DeathNC: d1}, nil
}

// BalanceMeans returns the balance (stationary) mean sizes of the compliant
// and non-compliant populations and the mean number of observed cases per
// year: with ρ = p·a₀/d₀ + (1 − p)·a₁/d₁ < 1 (p the compliance
// probability, q the observation probability), cases end at the total rate
// D = β/(1 − ρ), so
//
//	E n_c = pD/d₀,  E n_nc = (1 − p)D/d₁,  observed per year = qD.
//
// These equal the analytical means of the authors' simulator. It returns
// NaN values unless the rates are finite and positive (transmissions ≥ 0)
// and ρ < 1.
func BalanceMeans(rt Rates, pCompliance, pObserved float64) (nC, nNC, obsPerYear float64) {
	nan := math.NaN()
	if !(rt.Burden > 0 && rt.DeathC > 0 && rt.DeathNC > 0 && rt.TransC >= 0 && rt.TransNC >= 0) ||
		math.IsInf(rt.Burden+rt.DeathC+rt.DeathNC+rt.TransC+rt.TransNC, 0) ||
		!(pCompliance > 0 && pCompliance < 1) || !(pObserved >= 0 && pObserved <= 1) {
		return nan, nan, nan
	}
	p := pCompliance
	rho := p*rt.TransC/rt.DeathC + (1-p)*rt.TransNC/rt.DeathNC
	if !(rho < 1) {
		return nan, nan, nan
	}
	d := rt.Burden / (1 - rho)
	return p * d / rt.DeathC, (1 - p) * d / rt.DeathNC, pObserved * d
}

// Simulate draws one outbreak for θ = (R₁, t₁, R₂, β) and writes its
// summary (NumStats values, see StatObserved) into dst.
func (o *Outbreak) Simulate(r *rand.Rand, theta, dst []float64) error {
	rt, err := o.Rates(theta)
	if err != nil {
		return err
	}
	return o.SimulateRates(r, rt, dst)
}

// SimulateRates draws one outbreak with the given event rates (which need
// not come from a θ: zero transmission rates are allowed) and writes its
// summary into dst. The rates must be finite, Burden and the death rates
// > 0 and at most 1e6, the transmission rates in [0, 1e6].
func (o *Outbreak) SimulateRates(r *rand.Rand, rt Rates, dst []float64) error {
	if !o.valid() {
		return modelutil.ErrUnbuilt("tb.Outbreak")
	}
	if err := modelutil.CheckRand(r); err != nil {
		return err
	}
	if len(dst) != NumStats {
		return fmt.Errorf("%w: tb outbreak dst must have length %d, got %d", simulate.ErrInvalid, NumStats, len(dst))
	}
	for _, f := range []struct {
		name string
		v    float64
		zero bool
	}{{"Burden", rt.Burden, false}, {"DeathC", rt.DeathC, false}, {"DeathNC", rt.DeathNC, false}, {"TransC", rt.TransC, true}, {"TransNC", rt.TransNC, true}} {
		if math.IsNaN(f.v) || f.v > 1e6 || f.v < 0 || (f.v == 0 && !f.zero) {
			return fmt.Errorf("%w: tb outbreak rate %s out of range, got %v", simulate.ErrInvalidTheta, f.name, f.v)
		}
	}
	s := o.pool.Get().(*state)
	err := s.run(r, &o.cfg, rt)
	if err == nil {
		s.summarise(o.cfg.ObsYears, dst)
	}
	o.pool.Put(s)
	return err
}

// state is the scratch space of one simulation: the cluster of every
// active case by population, the observed count of every cluster and the
// observation month of every observed case.
type state struct {
	comp, nonc []int32 // cluster id of each active case
	obs        []int32 // observed cases per cluster id
	events     []obsEvent
	sizes      []int32 // observed cluster sizes (summary scratch)
}

type obsEvent struct {
	cluster int32
	month   int32
}

// ErrTooManyEvents is wrapped by the error returned when an outbreak
// exceeds Config.MaxEvents events. It wraps simulate.ErrInvalidTheta: the
// parameters make the process too large to simulate.
var ErrTooManyEvents = fmt.Errorf("%w: tb outbreak exceeded Config.MaxEvents events", simulate.ErrInvalidTheta)

// run simulates the process: the year-by-year warm-up, then the rest of the
// warm-up and the observation window.
func (s *state) run(r *rand.Rand, cfg *Config, rt Rates) error {
	s.comp, s.nonc, s.obs, s.events = s.comp[:0], s.nonc[:0], s.obs[:0], s.events[:0]
	mC, mNC, _ := BalanceMeans(rt, cfg.PCompliance, cfg.PObserved)
	if math.IsNaN(mC) {
		// A supercritical process has no balance: warm up for the
		// shortest time the rule allows.
		mC, mNC = 0, 0
	}
	p, q := cfg.PCompliance, cfg.PObserved
	total0 := rt.Burden
	cC := rt.TransC + rt.DeathC
	cNC := rt.TransNC + rt.DeathNC
	t := 0.0
	warm := math.Inf(1)
	events := 0
	// step draws the next event; it returns false when the event would fall
	// at or after end.
	step := func(end float64) (bool, error) {
		nc, nn := float64(len(s.comp)), float64(len(s.nonc))
		total := total0 + cC*nc + cNC*nn
		dt := r.ExpFloat64() / total
		if t+dt >= end {
			return false, nil
		}
		t += dt
		events++
		if events > cfg.MaxEvents {
			return false, ErrTooManyEvents
		}
		u := r.Float64() * total
		switch {
		case u < total0: // a new cluster
			id := int32(len(s.obs))
			if len(s.obs) >= math.MaxInt32 {
				return false, ErrTooManyEvents
			}
			s.obs = append(s.obs, 0)
			s.add(r, p, id)
		case u < total0+rt.TransC*nc: // transmission from a compliant case
			s.add(r, p, s.comp[r.IntN(len(s.comp))])
		case u < total0+cC*nc: // a compliant case ends
			s.end(r, &s.comp, t, warm, q)
		case u < total0+cC*nc+rt.TransNC*nn: // transmission from a non-compliant case
			s.add(r, p, s.nonc[r.IntN(len(s.nonc))])
		default: // a non-compliant case ends
			if len(s.nonc) == 0 { // rounding at the top of the range
				s.end(r, &s.comp, t, warm, q)
			} else {
				s.end(r, &s.nonc, t, warm, q)
			}
		}
		return true, nil
	}
	years := 0.0
	reachedC, reachedNC := false, false
	for years < cfg.MaxWarmup/2 && !(reachedC && reachedNC) {
		years++
		for t < years {
			if _, err := step(math.Inf(1)); err != nil {
				return err
			}
		}
		reachedC = reachedC || float64(len(s.comp)) >= mC
		reachedNC = reachedNC || float64(len(s.nonc)) >= mNC
	}
	warm = math.Max(2*years, cfg.MinWarmup)
	end := warm + float64(cfg.ObsYears)
	for {
		ok, err := step(end)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
	}
}

// add appends a new case of cluster id, compliant with probability p.
func (s *state) add(r *rand.Rand, p float64, id int32) {
	if r.Float64() < p {
		s.comp = append(s.comp, id)
	} else {
		s.nonc = append(s.nonc, id)
	}
}

// end removes a uniformly chosen case of *pop (its cluster chosen with
// probability proportional to the cluster's size) and, inside the window,
// observes it with probability q.
func (s *state) end(r *rand.Rand, pop *[]int32, t, warm, q float64) {
	a := *pop
	i := r.IntN(len(a))
	id := a[i]
	a[i] = a[len(a)-1]
	*pop = a[:len(a)-1]
	if t >= warm && r.Float64() < q {
		s.obs[id]++
		s.events = append(s.events, obsEvent{cluster: id, month: int32(12 * (t - warm))})
	}
}

// summarise writes the summary of the observed clusters.
func (s *state) summarise(years int, dst []float64) {
	clear(dst)
	s.sizes = s.sizes[:0]
	largestID := int32(-1)
	var largest int32
	var n, sq float64
	for id, c := range s.obs {
		if c == 0 {
			continue
		}
		s.sizes = append(s.sizes, c)
		if c > largest { // ties go to the earliest cluster
			largest, largestID = c, int32(id)
		}
		n += float64(c)
		sq += float64(c) * float64(c)
		switch c {
		case 1:
			dst[StatSingletons]++
		case 2:
			dst[StatPairs]++
		}
	}
	dst[StatObserved] = n
	dst[StatClusters] = float64(len(s.sizes))
	dst[StatLargest] = float64(largest)
	dst[StatLargestDiff] = largestDiff(s.sizes)
	if n > 0 {
		dst[StatDiversity] = 1 - sq/(n*n)
	}
	if largestID < 0 {
		return
	}
	months := 12 * years
	var seen [12 * 100]bool
	first, last, count := months, -1, 0
	for _, e := range s.events {
		if e.cluster != largestID {
			continue
		}
		m := min(int(e.month), months-1)
		if !seen[m] {
			seen[m] = true
			count++
		}
		first, last = min(first, m), max(last, m)
	}
	dst[StatPeriod] = float64(last - first + 1)
	dst[StatMonths] = float64(count)
}

// largestDiff is (s₁ − s₄)/3 for the four largest sizes s₁ ≥ … ≥ s₄ (0 for
// missing clusters), the mean of consecutive differences. It reorders
// sizes.
func largestDiff(sizes []int32) float64 {
	var top [4]int32
	for _, c := range sizes {
		for k := range top {
			if c > top[k] {
				copy(top[k+1:], top[k:3])
				top[k] = c
				break
			}
		}
	}
	return float64(top[0]-top[3]) / 3
}
