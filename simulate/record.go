package simulate

import (
	"fmt"
	"math/rand/v2"
	"sync"
)

// RecordModel is a model of confidential data made of n i.i.d. records
// x_1, …, x_n ~ f(·|θ) whose summary is the mean of per-record
// contributions, s(x) = (1/n) Σ_i t(x_i).
//
// It is the record-level view data-augmentation MCMC needs (Ju et al.
// 2022; the slides' IMwG and SOMA kernels): the sampler keeps the latent
// records, proposes a replacement x_i* ~ f(·|θ) with SampleRecord, updates
// the running statistic by (t(x_i*) − t(x_i))/n with Contribution, accepts
// with the mechanism's density ratio, and updates θ given the records with
// RecordLogLik. The same model drives the summary-level simulator
// MeanStat, so both levels share one definition of the data.
//
// Records and contributions are flat []float64 of length RecordDim and
// ContribDim. Methods other than CheckParam do not validate: callers check
// θ once with CheckParam and then call the hot-path methods freely. They
// panic on an empty rec or dst (a programmer error); with slices of other
// wrong lengths, or a θ that CheckParam refuses, their results are
// unspecified. Implementations are safe for concurrent use.
//
// A model may also implement Validate() error, reporting a value not
// built by its constructor: NewMeanStat and MeanContribution refuse such a
// model (every model in this module's simulate packages implements it).
type RecordModel interface {
	// ParamDim is the length of θ.
	ParamDim() int
	// RecordDim is the length of one raw record x_i.
	RecordDim() int
	// ContribDim is the length of t(x_i), which is the length of s.
	ContribDim() int
	// CheckParam returns an error wrapping ErrInvalidTheta if θ has the
	// wrong length, non-finite entries or lies outside the parameter space.
	CheckParam(theta []float64) error
	// SampleRecord draws one raw record x ~ f(·|θ) into rec.
	SampleRecord(r *rand.Rand, theta, rec []float64)
	// Contribution writes t(rec) into dst; it includes any clamping or
	// scaling applied before release, so it is bounded when the model's
	// release has finite sensitivity.
	Contribution(rec, dst []float64)
	// RecordLogLik returns log f(rec | θ) for a raw record (with respect to
	// the model's base measure: Lebesgue for continuous coordinates,
	// counting for discrete ones).
	RecordLogLik(theta, rec []float64) float64
}

// MeanContribution writes s = (1/n) Σ_i t(x_i) for the n records stored
// back to back in records (length n·RecordDim, n ≥ 1) into dst. It sums
// in record order and divides once, exactly as MeanStat.Simulate does, so
// the two agree bit for bit on the same records.
func MeanContribution(m RecordModel, records, dst []float64) error {
	if err := checkModel(m); err != nil {
		return err
	}
	rd, cd := m.RecordDim(), m.ContribDim()
	if rd == 0 || len(records) == 0 || len(records)%rd != 0 {
		return fmt.Errorf("%w: records must hold a positive multiple of %d values, got %d", ErrInvalid, rd, len(records))
	}
	if len(dst) != cd {
		return fmt.Errorf("%w: dst must have length %d, got %d", ErrInvalid, cd, len(dst))
	}
	for i, v := range records {
		if !finite(v) {
			return fmt.Errorf("%w: records[%d] must be finite, got %v", ErrInvalid, i, v)
		}
	}
	n := len(records) / rd
	t := make([]float64, cd)
	clear(dst)
	for i := range n {
		m.Contribution(records[i*rd:(i+1)*rd], t)
		for k, v := range t {
			dst[k] += v
		}
	}
	fn := float64(n)
	for k := range dst {
		dst[k] /= fn
	}
	return nil
}

// MeanStat is the summary-level simulator of a RecordModel: it draws n
// records and writes the mean contribution.
type MeanStat struct {
	m    RecordModel
	n    int
	pool sync.Pool // *[]float64 scratch of length RecordDim + ContribDim
}

// NewMeanStat returns the simulator of s for n ≥ 1 records of m.
func NewMeanStat(m RecordModel, n int) (*MeanStat, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("%w: number of records n must be >= 1, got %d", ErrInvalid, n)
	}
	ms := &MeanStat{m: m, n: n}
	sz := m.RecordDim() + m.ContribDim()
	ms.pool.New = func() any { b := make([]float64, sz); return &b }
	return ms, nil
}

// Model returns the record model.
func (s *MeanStat) Model() RecordModel { return s.m }

// N returns the number of records.
func (s *MeanStat) N() int { return s.n }

// StatDim is the model's ContribDim (0 for the zero value).
func (s *MeanStat) StatDim() int {
	if s.m == nil {
		return 0
	}
	return s.m.ContribDim()
}

// Simulate draws n records with SampleRecord in order and writes their
// mean contribution into dst. Drawing the records yourself with the same
// stream and calling MeanContribution gives the identical result.
func (s *MeanStat) Simulate(r *rand.Rand, theta, dst []float64) error {
	if s == nil || s.m == nil {
		return errUnbuilt("MeanStat")
	}
	cd := s.m.ContribDim()
	if err := checkRecordSim(s.m, r, theta, dst, cd); err != nil {
		return err
	}
	bp := s.pool.Get().(*[]float64)
	buf := *bp
	rd := s.m.RecordDim()
	rec, t := buf[:rd], buf[rd:rd+cd]
	clear(dst)
	for range s.n {
		s.m.SampleRecord(r, theta, rec)
		s.m.Contribution(rec, t)
		for k, v := range t {
			dst[k] += v
		}
	}
	fn := float64(s.n)
	for k := range dst {
		dst[k] /= fn
	}
	s.pool.Put(bp)
	return nil
}

// Dataset is the simulator that releases the records themselves: it draws
// n records and writes them back to back (StatDim = n·RecordDim). It is the
// confidential-data simulator for local-DP settings, where every record is
// perturbed on its own.
type Dataset struct {
	m RecordModel
	n int
}

// NewDataset returns the simulator of n ≥ 1 raw records of m.
func NewDataset(m RecordModel, n int) (*Dataset, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	if n < 1 || n > maxValues/m.RecordDim() {
		return nil, fmt.Errorf("%w: number of records n must be in [1, %d], got %d", ErrInvalid, maxValues/m.RecordDim(), n)
	}
	return &Dataset{m, n}, nil
}

// Model returns the record model.
func (d *Dataset) Model() RecordModel { return d.m }

// N returns the number of records.
func (d *Dataset) N() int { return d.n }

// StatDim is n·RecordDim (0 for the zero value).
func (d *Dataset) StatDim() int {
	if d.m == nil {
		return 0
	}
	return d.n * d.m.RecordDim()
}

// Simulate draws the n records into dst.
func (d *Dataset) Simulate(r *rand.Rand, theta, dst []float64) error {
	if d == nil || d.m == nil {
		return errUnbuilt("Dataset")
	}
	if err := checkRecordSim(d.m, r, theta, dst, d.StatDim()); err != nil {
		return err
	}
	rd := d.m.RecordDim()
	for i := range d.n {
		d.m.SampleRecord(r, theta, dst[i*rd:(i+1)*rd])
	}
	return nil
}

// checkRecordSim checks the arguments of a record-level simulator's
// Simulate: θ valid for m, a random source and dst of length statDim.
func checkRecordSim(m RecordModel, r *rand.Rand, theta, dst []float64, statDim int) error {
	if err := m.CheckParam(theta); err != nil {
		return err
	}
	if err := checkRand(r); err != nil {
		return err
	}
	if len(dst) != statDim {
		return fmt.Errorf("%w: dst must have length %d, got %d", ErrInvalid, statDim, len(dst))
	}
	return nil
}

// Records holds n latent records of a RecordModel together with the
// running sum of their contributions, the state data-augmentation MCMC
// updates one record at a time. The mean statistic is available in O(d)
// after every replacement; Recompute refreshes the sum from scratch to
// shed accumulated rounding. A Records value is not safe for concurrent
// use; run one per chain.
type Records struct {
	m    RecordModel
	n    int
	data []float64 // n × RecordDim
	sum  []float64 // Σ_i t(x_i)
	t    []float64 // scratch contribution
}

// NewRecords draws n ≥ 1 records from f(·|θ) with r (in order, as
// MeanStat.Simulate does) and returns the state.
//
// The Records methods take record indices in [0, N()) and records of
// length RecordDim; other arguments are programmer errors and panic.
func NewRecords(m RecordModel, n int, r *rand.Rand, theta []float64) (*Records, error) {
	if err := checkModel(m); err != nil {
		return nil, err
	}
	if n < 1 || n > maxValues/m.RecordDim() {
		return nil, fmt.Errorf("%w: number of records n must be in [1, %d], got %d", ErrInvalid, maxValues/m.RecordDim(), n)
	}
	if err := checkRand(r); err != nil {
		return nil, err
	}
	if err := m.CheckParam(theta); err != nil {
		return nil, err
	}
	rd := m.RecordDim()
	s := &Records{m: m, n: n, data: make([]float64, n*rd), sum: make([]float64, m.ContribDim()), t: make([]float64, m.ContribDim())}
	for i := range n {
		m.SampleRecord(r, theta, s.data[i*rd:(i+1)*rd])
	}
	s.Recompute()
	return s, nil
}

// N returns the number of records.
func (s *Records) N() int { return s.n }

// Record returns record i (a view into the state; do not modify it).
func (s *Records) Record(i int) []float64 {
	rd := s.m.RecordDim()
	return s.data[i*rd : (i+1)*rd]
}

// Stat writes the current mean statistic (1/n) Σ t(x_i) into dst.
func (s *Records) Stat(dst []float64) {
	fn := float64(s.n)
	for k, v := range s.sum {
		dst[k] = v / fn
	}
}

// StatWith writes the mean statistic that would result from replacing
// record i by rec into dst, without changing the state: the proposal's
// statistic in a record-wise Metropolis step.
func (s *Records) StatWith(i int, rec, dst []float64) {
	s.m.Contribution(s.Record(i), s.t)
	fn := float64(s.n)
	for k := range s.sum {
		dst[k] = s.sum[k] - s.t[k]
	}
	s.m.Contribution(rec, s.t)
	for k := range dst {
		dst[k] = (dst[k] + s.t[k]) / fn
	}
}

// Replace sets record i to rec and updates the running sum.
func (s *Records) Replace(i int, rec []float64) {
	old := s.Record(i)
	s.m.Contribution(old, s.t)
	for k, v := range s.t {
		s.sum[k] -= v
	}
	copy(old, rec)
	s.m.Contribution(old, s.t)
	for k, v := range s.t {
		s.sum[k] += v
	}
}

// Recompute rebuilds the running sum from the records in order, so that
// Stat then equals MeanContribution of the records exactly.
func (s *Records) Recompute() {
	clear(s.sum)
	for i := range s.n {
		s.m.Contribution(s.Record(i), s.t)
		for k, v := range s.t {
			s.sum[k] += v
		}
	}
}

// Data returns the records back to back (a view; do not modify it).
func (s *Records) Data() []float64 { return s.data }
