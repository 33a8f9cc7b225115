package mcmc

import (
	"github.com/privinfer/privinfer/simulate/linreg"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// summary holds the standard posterior summaries of one coordinate of a
// run, computed by privinfer.Draws.
type summary struct {
	Mean, SD, Q2_5, Q50, Q97_5       float64
	RHat, ESSBulk, ESSTail, MCSEMean float64
}

// summarize returns the summary of coordinate j of res (NaN fields for
// estimates the draws cannot support).
func summarize(res *Result, j int) summary {
	d := res.Draws
	q := d.Quantiles(j, 0.025, 0.5, 0.975)
	s := summary{Mean: d.Mean()[j], SD: d.SD()[j], Q2_5: q[0], Q50: q[1], Q97_5: q[2]}
	or := func(v float64, err error) float64 {
		if err != nil {
			return math.NaN()
		}
		return v
	}
	s.RHat = or(d.RHat(j))
	s.ESSBulk = or(d.ESSBulk(j))
	s.ESSTail = or(d.ESSTail(j))
	s.MCSEMean = or(d.MCSEMean(j))
	return s
}

// pooled returns coordinate j of every draw of res, chain after chain.
func pooled(res *Result, j int) []float64 { return res.Draws.Column(j) }

// thinTo returns every k-th element of x so that about m remain.
func thinTo(x []float64, m float64) []float64 {
	k := int(math.Ceil(float64(len(x)) / math.Max(m, 1)))
	var out []float64
	for i := 0; i < len(x); i += k {
		out = append(out, x[i])
	}
	return out
}

// releaseOnly hides every method of a mechanism but Release and Budget:
// a mechanism without a release density.
type releaseOnly struct{ mechanism.Mechanism }

// checkProgress checks the events of a run of total iterations: Stage
// "chain", Total constant, Step increasing and ending at Total.
func checkProgress(t *testing.T, events []privinfer.Progress, total int) {
	t.Helper()
	if len(events) == 0 {
		t.Fatal("no progress events")
	}
	prev := 0
	for i, e := range events {
		if e.Stage != "chain" || e.Total != total || e.Step <= prev || e.Step > total {
			t.Fatalf("event %d: %+v after step %d, want stage chain, step in (%d, %d], total %d", i, e, prev, prev, total, total)
		}
		prev = e.Step
	}
	if prev != total {
		t.Errorf("last step %d, want %d", prev, total)
	}
}

// TestLinRegNIGPrior checks the NIG model as a prior: LogDensity against
// the product of an inverse-gamma density (a gamma density of 1/σ² with
// the Jacobian 1/σ⁴) and normal densities from package simulate, and the
// sample mean of σ² from Sample against b0/(a0 − 1) within 5 standard
// errors (variance b0²/((a0−1)²(a0−2))).
func TestLinRegNIGPrior(t *testing.T) {
	nig, err := linreg.NewNIG(linreg.NIGConfig{PredictorMean: []float64{0.9, -1.17}, A0: 10, B0: 10, G: 2, Clamp: 6})
	if err != nil {
		t.Fatal(err)
	}
	var _ simulate.Prior = nig
	ig, _ := simulate.NewGamma(simulate.GammaConfig{Shape: 10, Scale: 1.0 / 10})
	for _, th := range [][]float64{{0.1, -0.5, 1.2, 0.8}, {2, 0, -1, 3.5}, {0, 0, 0, 0.05}} {
		s2 := th[3]
		want := ig.LogDensity(1/s2) - 2*math.Log(s2)
		nrm, _ := simulate.NewNormal(simulate.NormalConfig{Mu: 0, Sigma: math.Sqrt(2 * s2)})
		for _, b := range th[:3] {
			want += nrm.LogDensity(b)
		}
		if got := nig.LogDensity(th); math.Abs(got-want) > 1e-10*math.Max(1, math.Abs(want)) {
			t.Errorf("LogDensity(%v) = %v, want %v", th, got, want)
		}
	}
	if !math.IsInf(nig.LogDensity([]float64{0, 0, 0, -1}), -1) || !math.IsNaN(nig.LogDensity([]float64{0, 0})) {
		t.Error("σ² ≤ 0 must give −Inf and a wrong length NaN")
	}
	r := rand.New(rand.NewPCG(5, 6))
	const n = 20000
	th := make([]float64, 4)
	sum := 0.0
	for range n {
		nig.Sample(r, th)
		sum += th[3]
	}
	mean, want := sum/n, 10.0/9
	se := math.Sqrt(100.0 / (81 * 8) / n)
	if math.Abs(mean-want) > 5*se {
		t.Errorf("mean σ² = %v, want %v ± %v", mean, want, 5*se)
	}
}
