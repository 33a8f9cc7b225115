package tb

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/internal/modelutil"
)

// Study simulates a data set of n independent outbreaks under the same θ
// and writes their summaries back to back (StatDim = n·NumStats). It is the
// data set of the ABCDP paper's TB experiment, where each of the n records
// is one outbreak's summary and the distance averages per-record distances
// (Distance).
type Study struct {
	o *Outbreak
	n int
}

// NewStudy returns the simulator of n ≥ 1 outbreaks of o.
func NewStudy(o *Outbreak, n int) (*Study, error) {
	if !o.valid() {
		return nil, modelutil.ErrUnbuilt("tb.Outbreak")
	}
	if n < 1 || n > modelutil.MaxValues/NumStats {
		return nil, fmt.Errorf("%w: tb study needs 1 to %d outbreaks, got %d", simulate.ErrInvalid, modelutil.MaxValues/NumStats, n)
	}
	return &Study{o: o, n: n}, nil
}

// N is the number of outbreaks.
func (s *Study) N() int {
	if s == nil {
		return 0
	}
	return s.n
}

// StatDim is N·NumStats.
func (s *Study) StatDim() int { return s.N() * NumStats }

// Simulate draws the n outbreaks in order from r.
func (s *Study) Simulate(r *rand.Rand, theta, dst []float64) error {
	if s == nil || s.o == nil {
		return modelutil.ErrUnbuilt("tb.Study")
	}
	if len(dst) != s.n*NumStats {
		return fmt.Errorf("%w: tb study dst must have length %d, got %d", simulate.ErrInvalid, s.n*NumStats, len(dst))
	}
	rt, err := s.o.Rates(theta)
	if err != nil {
		return err
	}
	for j := range s.n {
		if err := s.o.SimulateRates(r, rt, dst[j*NumStats:(j+1)*NumStats]); err != nil {
			return err
		}
	}
	return nil
}

// OutbreakDistance is the weighted ℓ2 distance of Lintusaari et al. (2019)
// between a simulated outbreak summary x and an observed one y (NumStats
// values each), as in the ABCDP authors' code: the norm of
//
//	(Δobserved, Δclusters, 2·Δlargest, 10·Δlargest_diff,
//	 100·rel(singletons/observed), 100·rel(pairs/observed),
//	 10·Δperiod, 10·Δmonths)
//
// where rel(a) = (a_x − a_y)/a_y is the relative error of a proportion
// against the observed one (the plain difference a_x when a_y = 0, which the
// authors' code leaves undefined; a proportion with no observed cases is
// 0). The gene diversity is not used. It returns NaN for wrong lengths or
// NaN entries.
func OutbreakDistance(x, y []float64) float64 {
	if len(x) != NumStats || len(y) != NumStats {
		return math.NaN()
	}
	prop := func(s []float64, k int) float64 {
		if s[StatObserved] > 0 {
			return s[k] / s[StatObserved]
		}
		return 0
	}
	rel := func(k int) float64 {
		a, b := prop(x, k), prop(y, k)
		if b == 0 {
			return a
		}
		return (a - b) / b
	}
	d := [...]float64{
		x[StatObserved] - y[StatObserved],
		x[StatClusters] - y[StatClusters],
		2 * (x[StatLargest] - y[StatLargest]),
		10 * (x[StatLargestDiff] - y[StatLargestDiff]),
		100 * rel(StatSingletons),
		100 * rel(StatPairs),
		10 * (x[StatPeriod] - y[StatPeriod]),
		10 * (x[StatMonths] - y[StatMonths]),
	}
	s := 0.0
	for _, v := range d {
		s += v * v
	}
	return math.Sqrt(s)
}

// Distance compares two studies of the same number of outbreaks: the mean
// over j of min(OutbreakDistance(x_j, y_j), Clip), pairing the j-th
// simulated outbreak with the j-th observed one (the ABCDP authors' code).
// Because each term lies in [0, Clip], replacing one observed outbreak
// changes the mean by at most Clip/n (Sensitivity), the bound ABCDP's noise
// is calibrated to; the paper uses Clip = 200. Clip = 0 means no clip
// (and no bounded sensitivity).
type Distance struct {
	// Clip bounds every per-outbreak distance; 0 means no clip.
	Clip float64
}

// Distance returns the mean clipped per-outbreak distance between the
// studies x (simulated) and y (observed); NaN unless both hold the same
// positive multiple of NumStats values, or when Clip is negative or NaN.
func (d Distance) Distance(x, y []float64) float64 {
	if len(x) != len(y) || len(x) == 0 || len(x)%NumStats != 0 || !(d.Clip >= 0) {
		return math.NaN()
	}
	n := len(x) / NumStats
	s := 0.0
	for j := range n {
		v := OutbreakDistance(x[j*NumStats:(j+1)*NumStats], y[j*NumStats:(j+1)*NumStats])
		if d.Clip > 0 {
			v = math.Min(v, d.Clip)
		}
		s += v
	}
	return s / float64(n)
}

// Sensitivity returns Clip/n, the largest change of the distance when one
// of n observed outbreaks is replaced (+Inf without a clip, NaN for n < 1).
func (d Distance) Sensitivity(n int) float64 {
	if n < 1 || !(d.Clip >= 0) {
		return math.NaN()
	}
	if d.Clip == 0 {
		return math.Inf(1)
	}
	return d.Clip / float64(n)
}
