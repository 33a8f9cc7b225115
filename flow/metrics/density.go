package metrics

import (
	"fmt"
	"math"
	"sort"

	"github.com/privinfer/privinfer/internal/linalg"
	"github.com/privinfer/privinfer/internal/stats"
)

// KDE is a Gaussian kernel density estimate with a full bandwidth matrix
// H = h²·Σ̂, where Σ̂ is the sample covariance and h is Scott's factor
// n^(−1/(d+4)) — the estimator of scipy.stats.gaussian_kde, used to score
// sample-only posteriors (SMC-ABC, SPLE) by NLOG.
type KDE struct {
	d      int
	pts    []float64
	chol   []float64 // Cholesky factor of H
	logNrm float64   // log normalising constant of one kernel, minus log n
	buf    []float64
}

// NewKDE returns the Gaussian KDE of the sample x (n points of dimension d,
// n > d). It returns an error if the sample covariance is singular.
func NewKDE(x []float64, d int) (*KDE, error) {
	n, err := checkSample("x", x, d)
	if err != nil {
		return nil, err
	}
	if n <= d {
		return nil, fmt.Errorf("%w: x: a KDE in dimension %d needs more than %d points, got %d", ErrInvalid, d, d, n)
	}
	mean := make([]float64, d)
	cov := make([]float64, d*d)
	if err := stats.WeightedCov(x, d, nil, mean, cov); err != nil {
		return nil, fmt.Errorf("%w: x: sample covariance: %v", ErrInvalid, err)
	}
	// scipy's gaussian_kde uses the unbiased (n−1) covariance.
	f := math.Pow(float64(n), -1/float64(d+4))
	for i := range cov {
		cov[i] *= f * f * float64(n) / float64(n-1)
	}
	l := make([]float64, d*d)
	if err := linalg.Cholesky(cov, d, l); err != nil {
		return nil, fmt.Errorf("%w: x: sample covariance is not positive definite: %v", ErrInvalid, err)
	}
	k := &KDE{d: d, pts: append([]float64(nil), x...), chol: l, buf: make([]float64, d)}
	k.logNrm = -0.5*float64(d)*math.Log(2*math.Pi) - 0.5*linalg.LogDetChol(l, d) - math.Log(float64(n))
	return k, nil
}

// LogDensity returns the log density of the estimate at theta (length d), or NaN
// for a wrong length, a NaN entry or a nil KDE. It is not safe for concurrent use.
func (k *KDE) LogDensity(theta []float64) float64 {
	if k == nil || len(theta) != k.d {
		return math.NaN()
	}
	n := len(k.pts) / k.d
	maxv := math.Inf(-1)
	vals := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < k.d; j++ {
			k.buf[j] = theta[j] - k.pts[i*k.d+j]
		}
		linalg.SolveLower(k.chol, k.d, k.buf)
		q := 0.0
		for _, v := range k.buf {
			q += v * v
		}
		vals[i] = -0.5 * q
		if vals[i] > maxv {
			maxv = vals[i]
		}
	}
	s := 0.0
	for _, v := range vals {
		s += math.Exp(v - maxv)
	}
	return k.logNrm + maxv + math.Log(s)
}

// NLOGSamples returns −log p̂(θ*) for a sample-only posterior, with p̂ the
// Gaussian KDE of the sample (see KDE).
func NLOGSamples(x []float64, d int, thetaTrue []float64) (float64, error) {
	if len(thetaTrue) != d {
		return 0, fmt.Errorf("%w: thetaTrue: has length %d, want %d", ErrInvalid, len(thetaTrue), d)
	}
	for i, v := range thetaTrue {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%w: thetaTrue[%d]: must be finite, got %v", ErrInvalid, i, v)
		}
	}
	k, err := NewKDE(x, d)
	if err != nil {
		return 0, err
	}
	return -k.LogDensity(thetaTrue), nil
}

// LMD returns the log of the median Euclidean distance between the
// posterior-predictive releases pred (n rows of dimension d) and the observed
// release obs (length d), the SBI paper's LMD metric.
func LMD(pred []float64, d int, obs []float64) (float64, error) {
	n, err := checkSample("pred", pred, d)
	if err != nil {
		return 0, err
	}
	if len(obs) != d {
		return 0, fmt.Errorf("%w: obs: has length %d, want %d", ErrInvalid, len(obs), d)
	}
	for i, v := range obs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%w: obs[%d]: must be finite, got %v", ErrInvalid, i, v)
		}
	}
	dist := make([]float64, n)
	for i := range dist {
		dist[i] = math.Sqrt(linalg.SqDist(pred[i*d:(i+1)*d], obs))
	}
	sort.Float64s(dist)
	med := dist[n/2]
	if n%2 == 0 {
		med = 0.5 * (dist[n/2-1] + dist[n/2])
	}
	return math.Log(med), nil
}

// MarginalKS returns, for every coordinate, the two-sample
// Kolmogorov–Smirnov statistic between the marginals of x and ref (both of
// dimension d) and its p-value (the paper's Fig. 3).
func MarginalKS(x, ref []float64, d int) (stat, pvalue []float64, err error) {
	n, m, err := checkPair(x, ref, d)
	if err != nil {
		return nil, nil, err
	}
	stat = make([]float64, d)
	pvalue = make([]float64, d)
	a := make([]float64, n)
	b := make([]float64, m)
	for k := 0; k < d; k++ {
		for i := range a {
			a[i] = x[i*d+k]
		}
		for i := range b {
			b[i] = ref[i*d+k]
		}
		stat[k], pvalue[k] = stats.KSTwoSample(a, b)
	}
	return stat, pvalue, nil
}

// Moments returns the per-coordinate mean and the equal-tailed interval
// [q(α/2), q(1−α/2)] (type-7 quantiles) of the sample x of dimension d.
func Moments(x []float64, d int, alpha float64) (mean, lo, hi []float64, err error) {
	n, err := checkSample("x", x, d)
	if err != nil {
		return nil, nil, nil, err
	}
	if !(alpha > 0 && alpha < 1) {
		return nil, nil, nil, fmt.Errorf("%w: alpha: must be in (0, 1), got %v", ErrInvalid, alpha)
	}
	mean, lo, hi = make([]float64, d), make([]float64, d), make([]float64, d)
	col := make([]float64, n)
	for k := 0; k < d; k++ {
		for i := range col {
			col[i] = x[i*d+k]
		}
		mean[k] = stats.Mean(col)
		sort.Float64s(col)
		lo[k] = stats.Quantile(col, alpha/2)
		hi[k] = stats.Quantile(col, 1-alpha/2)
	}
	return mean, lo, hi, nil
}
