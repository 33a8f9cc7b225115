package abc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/privinfer/privinfer/internal/argcheck"
	"github.com/privinfer/privinfer/internal/kernel"
)

// ErrInvalid is the package's invalid-argument sentinel: every error
// returned for an invalid Problem, configuration, observation or dimension
// wraps it (test with errors.Is). Errors about a Problem also wrap the root
// package's error (privinfer.ErrInvalid, or privinfer.ErrNoDensity and the
// other capability errors).
var ErrInvalid = errors.New("abc: invalid argument")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
}

// Distance measures the discrepancy ρ(x, y) ≥ 0 between a simulated
// statistic x and the observed one y (vectors of equal length). It returns
// NaN if the lengths do not fit. Implementations are safe for concurrent
// use.
type Distance interface {
	Distance(x, y []float64) float64
}

// Euclidean is the ℓ2 distance ‖x − y‖2, the SBI paper's choice for SMC-ABC.
// A sum of squares beyond the float64 range (differences above about
// 1e154) gives +Inf, which every engine treats as a rejection.
type Euclidean struct{}

// Distance returns ‖x − y‖2.
func (Euclidean) Distance(x, y []float64) float64 {
	if len(x) != len(y) {
		return math.NaN()
	}
	s := 0.0
	for i := range x {
		d := x[i] - y[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// L1 is the ℓ1 distance Σ|x_i − y_i|.
type L1 struct{}

// Distance returns ‖x − y‖1.
func (L1) Distance(x, y []float64) float64 {
	if len(x) != len(y) {
		return math.NaN()
	}
	s := 0.0
	for i := range x {
		s += math.Abs(x[i] - y[i])
	}
	return s
}

// WeightedL2 is the weighted Euclidean distance √(Σ w_i (x_i − y_i)²),
// e.g. with w_i the inverse prior-predictive variance of coordinate i. As
// for Euclidean, a sum beyond the float64 range gives +Inf.
type WeightedL2 struct {
	w []float64
}

// NewWeightedL2 returns the weighted ℓ2 distance with the given weights
// (at least one, each finite and ≥ 0, with a finite total > 0). The slice
// is copied.
func NewWeightedL2(weights []float64) (*WeightedL2, error) {
	if _, err := argcheck.Weights(weights); err != nil {
		return nil, invalidf("weighted L2 weights: %v", err)
	}
	return &WeightedL2{w: slices.Clone(weights)}, nil
}

// Distance returns √(Σ w_i (x_i − y_i)²).
func (d *WeightedL2) Distance(x, y []float64) float64 {
	if d == nil || len(d.w) == 0 || len(x) != len(y) || len(x) != len(d.w) {
		return math.NaN()
	}
	s := 0.0
	for i := range x {
		e := x[i] - y[i]
		s += d.w[i] * e * e
	}
	return math.Sqrt(s)
}

// Clipped wraps a distance and reports min(max(ρ, 0), C): the two-sided
// clipping that gives any distance the bounded range [0, C], and hence a
// sensitivity of at most C, that ABCDP needs (ABCDP §4, §6.3). Clipping
// from above only, as the paper writes it, is not enough for a distance that
// can be negative (the unbiased MMD²): its sensitivity would stay unbounded.
// ABCDPConfig.Clip applies the same clamp to the distances it is given; see
// there for why the interval is [0, C] rather than [−C, C].
//
// A Clipped with a nil D, or a C that is not a finite number > 0, reports
// NaN (an error wherever the package uses the distance); NewClipped
// validates both.
type Clipped struct {
	D Distance
	C float64
}

// NewClipped returns d clipped to [0, c]; c must be a finite normal number
// > 0 and d non-nil.
func NewClipped(d Distance, c float64) (Clipped, error) {
	if argcheck.Nil(d) {
		return Clipped{}, invalidf("Clipped: distance is nil")
	}
	if !(c >= minNormal) || math.IsInf(c, 0) {
		return Clipped{}, invalidf("Clipped: C must be a finite normal number > 0, got %v", c)
	}
	return Clipped{D: d, C: c}, nil
}

// Distance returns min(max(D.Distance(x, y), 0), C); NaN stays NaN.
func (c Clipped) Distance(x, y []float64) float64 {
	if argcheck.Nil(c.D) || !(c.C > 0) || math.IsInf(c.C, 0) {
		return math.NaN()
	}
	v := c.D.Distance(x, y)
	if math.IsNaN(v) {
		return v
	}
	return min(max(v, 0), c.C)
}

// MMD is the maximum mean discrepancy between two sample sets of points in
// R^Dim with the Gaussian kernel k(x, y) = exp(−‖x − y‖²/(2ℓ²)), ℓ the
// Bandwidth. A vector passed to Distance holds the points back to back
// (length n·Dim).
//
// By default Distance returns the biased estimate of the ABCDP paper §2.1,
//
//	MMD_b(X, Y) = √( (1/m²)Σ k(x_i,x_j) + (1/n²)Σ k(y_i,y_j) − (2/mn)Σ k(x_i,y_j) ),
//
// the RKHS distance between the two empirical mean embeddings; it is a
// metric bounded by 2 whose sensitivity to one point of an N-point data set
// is 2/N (ABCDP Lemma 4.1; mechanism.MMDSensitivity). With Unbiased set it
// returns the unbiased U-statistic estimate of MMD² (diagonal terms left
// out), which can be negative and carries no such sensitivity bound.
//
// The O(n²) kernel sums are computed by internal/kernel in blocks on all
// cores; a fixed block layout makes the result independent of GOMAXPROCS.
type MMD struct {
	Dim       int
	Bandwidth float64
	Unbiased  bool
}

// MMDConfig sets an MMD distance. It has no usable zero value: Dim and
// Bandwidth are required.
type MMDConfig struct {
	// Dim is the dimension of the points, ≥ 1.
	Dim int
	// Bandwidth is the Gaussian kernel's ℓ > 0 (about 1.5e-154 < ℓ <
	// 1.3e154, so that ℓ² is a normal float64).
	Bandwidth float64
	// Unbiased selects the unbiased estimate (false: the biased V-statistic).
	Unbiased bool
}

// Validate reports whether c is usable, with an error wrapping ErrInvalid
// naming the field at fault.
func (c MMDConfig) Validate() error {
	_, err := NewMMD(c)
	return err
}

// NewMMD returns the MMD distance of cfg for points of dimension
// cfg.Dim ≥ 1 with bandwidth ℓ = cfg.Bandwidth > 0.
func NewMMD(cfg MMDConfig) (*MMD, error) {
	dim, bandwidth, unbiased := cfg.Dim, cfg.Bandwidth, cfg.Unbiased
	if dim < 1 {
		return nil, invalidf("MMD point dimension must be >= 1, got %d", dim)
	}
	if err := checkBandwidth("MMD bandwidth", bandwidth); err != nil {
		return nil, err
	}
	return &MMD{Dim: dim, Bandwidth: bandwidth, Unbiased: unbiased}, nil
}

// checkBandwidth validates a Gaussian-kernel bandwidth ℓ: finite, > 0 and
// such that ℓ² is a normal finite float64 (about 1.5e-154 < ℓ < 1.3e154),
// since the kernel divides by 2ℓ² (a subnormal or zero ℓ² turns k(x, x) into
// 0/0 = NaN, an infinite one makes every kernel value 1).
func checkBandwidth(name string, bw float64) error {
	if math.IsNaN(bw) || math.IsInf(bw, 0) || !(bw > 0) {
		return invalidf("%s must be finite and > 0, got %v", name, bw)
	}
	if sq := bw * bw; !(sq >= minNormal) || math.IsInf(sq, 0) {
		return invalidf("%s must have a normal finite square (about 1.5e-154 to 1.3e154), got %v", name, bw)
	}
	return nil
}

// Distance returns the MMD estimate between the point sets x and y (see
// MMD). It returns NaN if a length is not a positive multiple of Dim, or
// (unbiased) if a set has fewer than two points.
func (m *MMD) Distance(x, y []float64) float64 {
	v, err := m.MMD2(context.Background(), x, y)
	if err != nil {
		return math.NaN()
	}
	if m.Unbiased {
		return v
	}
	return math.Sqrt(math.Max(v, 0))
}

// MMD2 returns the squared-MMD estimate (biased or unbiased, as configured)
// and honours ctx between blocks.
func (m *MMD) MMD2(ctx context.Context, x, y []float64) (float64, error) {
	if m == nil {
		return 0, invalidf("MMD is nil")
	}
	d := m.Dim
	if d < 1 {
		return 0, invalidf("MMD needs Dim >= 1, got %d", d)
	}
	if err := checkBandwidth("MMD bandwidth", m.Bandwidth); err != nil {
		return 0, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	if len(x) == 0 || len(y) == 0 || len(x)%d != 0 || len(y)%d != 0 {
		return 0, invalidf("MMD point sets of length %d and %d are not non-empty multiples of %d", len(x), len(y), d)
	}
	nx, ny := len(x)/d, len(y)/d
	if m.Unbiased && (nx < 2 || ny < 2) {
		return 0, invalidf("unbiased MMD needs at least two points per set, got %d and %d", nx, ny)
	}
	v, err := kernel.MMD2(ctx, x, y, d, m.Bandwidth, m.Unbiased)
	if errors.Is(err, kernel.ErrInput) {
		return 0, invalidf("MMD: %v", err)
	}
	return v, err
}

// MedianHeuristic returns the median of the pairwise Euclidean distances
// ‖x_i − x_j‖, i < j, among the first maxPoints points of x (points of
// dimension dim back to back; maxPoints ≤ 0 means 1000). Compute it on
// simulated data only (ABCDP §6.1): a bandwidth chosen from the confidential
// data would itself leak. It returns an error for fewer than two points or a
// zero median (all points equal).
func MedianHeuristic(x []float64, dim, maxPoints int) (float64, error) {
	h, err := kernel.MedianHeuristic(x, dim, maxPoints)
	if err != nil {
		return 0, invalidf("%v", err)
	}
	return h, nil
}
