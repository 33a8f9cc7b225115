package tb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Indices of the summary written by BDM.Simulate (Tanaka et al. 2006).
const (
	// BDMGenotypes is g, the number of distinct genotypes in the sample.
	BDMGenotypes = iota
	// BDMDiversity is the gene diversity H = 1 − Σ_i (n_i/n)² of the
	// sample's genotype counts n_i.
	BDMDiversity
	// NumBDMStats is the length of the BDM summary.
	NumBDMStats
)

// Defaults of BDMConfig: Tanaka et al. (2006) grow the population to
// 10,000 cases and compare a sample of the 473 San Francisco isolates.
const (
	DefaultBDMPopulation  = 10000
	DefaultBDMSample      = 473
	DefaultBDMMaxRestarts = 100_000
)

// BDMConfig describes the birth–death–mutation model. Zero fields take the
// defaults above.
type BDMConfig struct {
	// Population is the size N at which the process stops, ≥ 1.
	Population int
	// Sample is the number n ≤ Population of cases sampled without
	// replacement at the stop, ≥ 1.
	Sample int
	// MaxRestarts bounds the number of extinctions before Simulate gives
	// up with an error, ≥ 1.
	MaxRestarts int
}

// BDM is the birth–death–mutation model of Tanaka et al. (2006): starting
// from one case, every case independently transmits (a new case of its
// genotype) at rate α, ends at rate δ and mutates into a new genotype at
// rate μ (infinitely many alleles). The process runs until N cases are
// active, restarting from one case whenever it dies out; then n cases are
// sampled without replacement and summarised by the number of genotypes g
// and the gene diversity H. Only the event order matters, so the output
// depends on θ = (α, δ, μ) through the ratios α : δ : μ. It is a
// simulate.Simulator of θ; see NumBDMStats.
type BDM struct {
	cfg  BDMConfig
	pool sync.Pool // *bdmState
}

// NewBDM returns the model for cfg (zero fields take the defaults).
func NewBDM(cfg BDMConfig) (*BDM, error) {
	if cfg.Population == 0 {
		cfg.Population = DefaultBDMPopulation
	}
	if cfg.Sample == 0 {
		cfg.Sample = min(DefaultBDMSample, cfg.Population)
	}
	if cfg.MaxRestarts == 0 {
		cfg.MaxRestarts = DefaultBDMMaxRestarts
	}
	switch {
	case cfg.Population < 1 || cfg.Population > 1<<26:
		return nil, fmt.Errorf("%w: tb.BDMConfig.Population must be in [1, 2^26], got %d", simulate.ErrInvalid, cfg.Population)
	case cfg.Sample < 1 || cfg.Sample > cfg.Population:
		return nil, fmt.Errorf("%w: tb.BDMConfig.Sample must be in [1, Population = %d], got %d", simulate.ErrInvalid, cfg.Population, cfg.Sample)
	case cfg.MaxRestarts < 1:
		return nil, fmt.Errorf("%w: tb.BDMConfig.MaxRestarts must be >= 1, got %d", simulate.ErrInvalid, cfg.MaxRestarts)
	}
	m := &BDM{cfg: cfg}
	m.pool.New = func() any { return new(bdmState) }
	return m, nil
}

// Config returns the configuration with its defaults filled in.
func (m *BDM) Config() BDMConfig {
	if m == nil {
		return BDMConfig{}
	}
	return m.cfg
}

// StatDim is NumBDMStats.
func (m *BDM) StatDim() int { return NumBDMStats }

// ErrExtinct is wrapped by the error BDM.Simulate returns when the process
// died out BDMConfig.MaxRestarts times. It wraps simulate.ErrInvalidTheta.
var ErrExtinct = fmt.Errorf("%w: tb birth–death–mutation process died out too often", simulate.ErrInvalidTheta)

// Simulate runs the process for θ = (α, δ, μ) and writes (g, H) into dst.
// θ must be finite with α > 0, δ ≥ 0, μ ≥ 0 and α > δ (a process that is
// not supercritical almost never reaches N), each at most 1e6.
func (m *BDM) Simulate(r *rand.Rand, theta, dst []float64) error {
	if m == nil || m.cfg.Population == 0 {
		return modelutil.ErrUnbuilt("tb.BDM")
	}
	if err := modelutil.CheckRand(r); err != nil {
		return err
	}
	if err := modelutil.CheckFinite("tb BDM", theta, 3); err != nil {
		return err
	}
	if len(dst) != NumBDMStats {
		return fmt.Errorf("%w: tb BDM dst must have length %d, got %d", simulate.ErrInvalid, NumBDMStats, len(dst))
	}
	alpha, delta, mu := theta[0], theta[1], theta[2]
	if !(alpha > 0) || delta < 0 || mu < 0 || !(alpha > delta) || alpha > 1e6 || delta > 1e6 || mu > 1e6 {
		return fmt.Errorf("%w: tb BDM needs 0 <= δ < α <= 1e6 and 0 <= μ <= 1e6, got α = %v, δ = %v, μ = %v", simulate.ErrInvalidTheta, alpha, delta, mu)
	}
	s := m.pool.Get().(*bdmState)
	defer m.pool.Put(s)
	total := alpha + delta + mu
	pb, pd := alpha/total, (alpha+delta)/total
	for range m.cfg.MaxRestarts {
		switch s.grow(r, m.cfg.Population, pb, pd) {
		case grown:
			s.summarise(r, m.cfg.Sample, dst)
			return nil
		case tooLong:
			return fmt.Errorf("%w: tb BDM run exceeded %d genotypes (α = %v, δ = %v, μ = %v)", simulate.ErrInvalidTheta, math.MaxInt32, alpha, delta, mu)
		}
	}
	return ErrExtinct
}

// bdmState holds the genotype of every active case and, for the summary,
// the sample's counts per genotype.
type bdmState struct {
	cases  []int32
	next   int32
	counts []int32
	used   []int32
}

// Outcomes of bdmState.grow.
const (
	grown = iota
	extinct
	tooLong
)

// grow runs the embedded jump chain from one case until N cases (grown),
// extinction, or more genotypes than int32 holds (tooLong). pb and pd are
// the cumulative probabilities of a transmission and of an end.
func (s *bdmState) grow(r *rand.Rand, n int, pb, pd float64) int {
	s.cases = append(s.cases[:0], 0)
	s.next = 1
	for len(s.cases) < n {
		if len(s.cases) == 0 {
			return extinct
		}
		if s.next == math.MaxInt32 {
			return tooLong
		}
		i := r.IntN(len(s.cases))
		u := r.Float64()
		switch {
		case u < pb:
			s.cases = append(s.cases, s.cases[i])
		case u < pd:
			last := len(s.cases) - 1
			s.cases[i] = s.cases[last]
			s.cases = s.cases[:last]
		default:
			s.cases[i] = s.next
			s.next++
		}
	}
	return grown
}

// summarise samples k cases without replacement (a partial Fisher–Yates
// shuffle) and writes the number of their genotypes and their gene
// diversity.
func (s *bdmState) summarise(r *rand.Rand, k int, dst []float64) {
	if cap(s.counts) < int(s.next) {
		s.counts = make([]int32, s.next)
	}
	counts := s.counts[:s.next]
	s.used = s.used[:0]
	c := s.cases
	for j := range k {
		i := j + r.IntN(len(c)-j)
		c[j], c[i] = c[i], c[j]
		g := c[j]
		if counts[g] == 0 {
			s.used = append(s.used, g)
		}
		counts[g]++
	}
	sq := 0.0
	for _, g := range s.used {
		sq += float64(counts[g]) * float64(counts[g])
		counts[g] = 0
	}
	dst[BDMGenotypes] = float64(len(s.used))
	dst[BDMDiversity] = 1 - sq/(float64(k)*float64(k))
	if math.IsNaN(dst[BDMDiversity]) {
		dst[BDMDiversity] = 0
	}
}
