package synth

import (
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
)

// SiDD draws a privacy-preserving posterior sample by the exponential
// mechanism over the cells of grid (Algorithm 2): cell i is selected with
// probability ∝ exp(ε·u_i/(2Δu)), u_i = log(f̄_i V_i), Δu = 2A, where
// A ≥ sup|log f(θ|x)| and f̄_i is the (unnormalized) posterior density at
// the cell center, or its average over points uniform draws in the cell
// when points > 0. log f is clamped to [−A, A], which is the assumption
// behind Prop. 3. It charges eps by rl and returns the selected cell as
// a posterior (θ* uniform in it).
func SiDD(r *rand.Rand, grid *Grid, logf func(theta []float64) float64, A float64, points int, eps float64, rl Releaser) (*CellPosterior, error) {
	if err := grid.check(); err != nil {
		return nil, err
	}
	if logf == nil {
		return nil, invalidf("SiDD needs a log density")
	}
	if err := checkPos("log-density bound A", A); err != nil {
		return nil, err
	}
	if err := checkEps("epsilon", eps); err != nil {
		return nil, err
	}
	if points < 0 || points > maxPoints || points*grid.Cells() > maxPoints*16 {
		return nil, invalidf("points must be in [0, %d] with points·cells <= %d, got %d", maxPoints, maxPoints*16, points)
	}
	B := grid.Cells()
	logV := math.Log(grid.Volume())
	theta := make([]float64, grid.Dim())
	u := make([]float64, B)
	for i := range B {
		var lf float64
		if points == 0 {
			grid.Center(i, theta)
			lf = clampLog(logf(theta), A)
		} else {
			s := 0.0
			for range points {
				grid.Uniform(r, i, theta)
				s += math.Exp(clampLog(logf(theta), A))
			}
			lf = math.Log(s / float64(points))
		}
		u[i] = lf + logV
	}
	k, err := exponentialSelect(r, u, 2*A, eps, rl)
	if err != nil {
		return nil, err
	}
	w := make([]float64, B)
	w[k] = 1
	return newCellPosterior(grid, w), nil
}

// maxPoints bounds SiDD's points per cell.
const maxPoints = 1 << 20

func clampLog(v, A float64) float64 {
	if math.IsNaN(v) {
		return -A
	}
	return mechanism.Clamp(v, -A, A)
}

// histogramCounts bins the samples (flat, dim p) into grid cells; samples
// outside the grid are dropped.
func histogramCounts(grid *Grid, samples []float64) ([]float64, int, error) {
	if err := grid.check(); err != nil {
		return nil, 0, err
	}
	p := grid.Dim()
	if len(samples) == 0 || len(samples)%p != 0 {
		return nil, 0, invalidf("samples length %d is not a positive multiple of %d", len(samples), p)
	}
	for i, v := range samples {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, invalidf("posterior sample value %d is %v", i, v)
		}
	}
	counts := make([]float64, grid.Cells())
	for i := 0; i < len(samples); i += p {
		if c := grid.Locate(samples[i : i+p]); c >= 0 {
			counts[c]++
		}
	}
	return counts, len(samples) / p, nil
}

// SiDDMC draws a privacy-preserving posterior from N posterior samples
// (flat, dimension grid.Dim()) by sanitizing the histogram's log
// proportions log(N_i/N) with the Laplace mechanism (Algorithm 3). Each
// log proportion is first clamped to [log V − A, log V + A], the range
// implied by |log f| ≤ A (Prop. 4), which also handles empty bins. The
// sanitized proportions exp(·) are normalized and returned as a cell
// posterior. eps is charged by rl.
//
// Calibration (why the noise is Laplace(2AB/ε), not the paper's
// Laplace(2A/ε) per bin). The released statistic s lies in the box
// Π_i [log V − A, log V + A] whatever the data, and all B coordinates can
// change together when one record changes (the posterior, and so every
// bin, moves). Its ℓ1 sensitivity is therefore the box's ℓ1 diameter
// 2A·B, and Laplace noise of scale 2AB/ε gives ε-DP. The per-bin scale
// 2A/ε bounds the privacy loss between two points of the box only by
// ‖s − s'‖1/(2A/ε) ≤ B·ε, a bound the Laplace law attains (for outputs
// beyond both points in every coordinate), so charging ε for it would
// under-charge by up to a factor B; that calibration is not offered.
func SiDDMC(r *rand.Rand, grid *Grid, samples []float64, A float64, eps float64, rl Releaser) (*CellPosterior, error) {
	out, err := siddmcRelease(r, grid, samples, A, eps, rl)
	if err != nil {
		return nil, err
	}
	mx := math.Inf(-1)
	for _, v := range out {
		mx = math.Max(mx, v)
	}
	for i, v := range out {
		out[i] = math.Exp(v - mx)
	}
	return newCellPosterior(grid, out), nil
}

// siddmcStat returns SiDDMC's clamped log proportions.
func siddmcStat(grid *Grid, samples []float64, A float64) ([]float64, error) {
	if err := checkPos("log-density bound A", A); err != nil {
		return nil, err
	}
	counts, N, err := histogramCounts(grid, samples)
	if err != nil {
		return nil, err
	}
	logV := math.Log(grid.Volume())
	stat := make([]float64, len(counts))
	for i, c := range counts {
		l := math.Inf(-1)
		if c > 0 {
			l = math.Log(c / float64(N))
		}
		stat[i] = mechanism.Clamp(l, logV-A, logV+A)
	}
	return stat, nil
}

// siddmcRelease releases SiDDMC's statistic with the joint calibration.
func siddmcRelease(r *rand.Rand, grid *Grid, samples []float64, A float64, eps float64, rl Releaser) ([]float64, error) {
	if err := checkEps("epsilon", eps); err != nil {
		return nil, err
	}
	stat, err := siddmcStat(grid, samples, A)
	if err != nil {
		return nil, err
	}
	return laplaceRelease(r, rl, stat, siddmcSens(A, len(stat)), eps)
}

// laplaceRelease releases stat through rl with the Laplace mechanism of ℓ1
// sensitivity sens at budget eps, into a new slice.
func laplaceRelease(r *rand.Rand, rl Releaser, stat []float64, sens, eps float64) ([]float64, error) {
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: eps, Dim: len(stat)})
	if err != nil {
		return nil, mechErr(err)
	}
	out := make([]float64, len(stat))
	if err := rl.release(mech, r, stat, out); err != nil {
		return nil, err
	}
	return out, nil
}

// SiPHiC draws a privacy-preserving posterior from N posterior samples by
// sanitizing the histogram counts with the Laplace mechanism (Algorithm
// 4), where G ≥ sup f(θ|x) bounds the posterior density. Counts are first
// clamped to [0, N·G·V] (the range implied by f ≤ G, Prop. 5); negative
// sanitized counts are set to zero before sampling. eps is charged by rl.
//
// Calibration. Each clamped count lies in [0, NGV] and the counts sum to
// at most N, so for any two data sets ‖c − c'‖1 ≤ min(Σc + Σc', B·NGV)
// ≤ min(2N, B·NGV), attained when the two posteriors' samples fall in
// disjoint bins. The noise is Laplace(min(2N, B·NGV)/ε), which is ε-DP.
// The paper's per-bin scale NGV/ε (Prop. 5) is ε-DP only for a change of
// one count; when every bin moves its loss reaches min(2/(GV), B)·ε, so
// it is not offered.
func SiPHiC(r *rand.Rand, grid *Grid, samples []float64, G float64, eps float64, rl Releaser) (*CellPosterior, error) {
	out, err := siphicRelease(r, grid, samples, G, eps, rl)
	if err != nil {
		return nil, err
	}
	for i, v := range out {
		out[i] = math.Max(0, v)
	}
	return newCellPosterior(grid, out), nil
}

// siphicStat returns SiPHiC's clamped counts and the number of samples.
func siphicStat(grid *Grid, samples []float64, G float64) ([]float64, int, error) {
	if err := checkPos("density bound G", G); err != nil {
		return nil, 0, err
	}
	counts, N, err := histogramCounts(grid, samples)
	if err != nil {
		return nil, 0, err
	}
	per := siphicPerBin(N, G, grid.Volume())
	for i := range counts {
		counts[i] = math.Min(counts[i], per)
	}
	return counts, N, nil
}

// siphicRelease releases SiPHiC's counts with the joint calibration.
func siphicRelease(r *rand.Rand, grid *Grid, samples []float64, G float64, eps float64, rl Releaser) ([]float64, error) {
	if err := checkEps("epsilon", eps); err != nil {
		return nil, err
	}
	counts, N, err := siphicStat(grid, samples, G)
	if err != nil {
		return nil, err
	}
	return laplaceRelease(r, rl, counts, siphicSens(N, G, grid.Volume(), len(counts)), eps)
}

// siddmcPerBin and siphicPerBin are the per-bin sensitivities of the
// paper's Props 4 and 5 (the change of one bin's statistic).
func siddmcPerBin(A float64) float64 { return 2 * A }

func siphicPerBin(N int, G, V float64) float64 { return float64(N) * G * V }

// siddmcSens is the ℓ1 sensitivity of SiDDMC's statistic for B bins.
func siddmcSens(A float64, B int) float64 { return siddmcPerBin(A) * float64(B) }

// siphicSens is the ℓ1 sensitivity of SiPHiC's counts for N samples,
// density bound G, cell volume V and B cells.
func siphicSens(N int, G, V float64, B int) float64 {
	return math.Min(2*float64(N), siphicPerBin(N, G, V)*float64(B))
}

// Method names a posterior sanitizer for DensityModel.
type Method int

// The sanitizers of §3.2.
const (
	MethodSiDD Method = iota
	MethodSiDDMC
	MethodSiPHiC
)

// DensityModel is a Model whose posterior is available as a log density
// (for SiDD) or through exact samples (for SiDD.MC and SiPHiC), sanitized
// on a grid.
type DensityModel struct {
	Grid   *Grid
	Method Method
	// A ≥ sup|log f(θ|x)| (SiDD, SiDD.MC); G ≥ sup f(θ|x) (SiPHiC).
	A, G float64
	// Points is the number of uniform points per cell averaged by SiDD
	// (0: the cell center).
	Points int
	// N is the number of posterior samples for SiDD.MC and SiPHiC.
	N int
	// Records is the number of values per record.
	Records int
	// LogPosterior returns the unnormalized log posterior density given
	// the data (SiDD).
	LogPosterior func(x []float64) (func(theta []float64) float64, error)
	// SamplePosterior draws n posterior samples (flat) given the data
	// (SiDD.MC, SiPHiC).
	SamplePosterior func(r *rand.Rand, x []float64, n int) ([]float64, error)
	// Generate fills dst with records drawn from f(x | θ).
	Generate func(r *rand.Rand, theta, dst []float64) error
}

// RecordDim implements Model.
func (d *DensityModel) RecordDim() int { return d.Records }

// Synthesize implements Model.
func (d *DensityModel) Synthesize(r *rand.Rand, theta, dst []float64) error {
	if d.Generate == nil {
		return invalidf("density model has no generator")
	}
	return d.Generate(r, theta, dst)
}

// Sanitize implements Model.
func (d *DensityModel) Sanitize(r *rand.Rand, x []float64, eps float64, rl Releaser) (Posterior, error) {
	switch d.Method {
	case MethodSiDD:
		if d.LogPosterior == nil {
			return nil, invalidf("SiDD needs LogPosterior")
		}
		lf, err := d.LogPosterior(x)
		if err != nil {
			return nil, err
		}
		return SiDD(r, d.Grid, lf, d.A, d.Points, eps, rl)
	case MethodSiDDMC, MethodSiPHiC:
		if d.SamplePosterior == nil || d.N < 1 || d.N > MaxValues {
			return nil, invalidf("sample-based sanitizers need SamplePosterior and N in [1, %d], got N = %d", MaxValues, d.N)
		}
		if err := d.Grid.check(); err != nil {
			return nil, err
		}
		s, err := d.SamplePosterior(r, x, d.N)
		if err != nil {
			return nil, err
		}
		if d.Method == MethodSiDDMC {
			return SiDDMC(r, d.Grid, s, d.A, eps, rl)
		}
		return SiPHiC(r, d.Grid, s, d.G, eps, rl)
	}
	return nil, invalidf("unknown method %d", int(d.Method))
}
