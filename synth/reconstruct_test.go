package synth

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// publicFloats collects every float64 reachable through exported fields,
// slices, pointers and interfaces of v: everything a recipient of v can
// read.
func publicFloats(v reflect.Value, out *[]float64, depth int) {
	if depth > 8 || !v.IsValid() {
		return
	}
	switch v.Kind() {
	case reflect.Float64, reflect.Float32:
		*out = append(*out, v.Float())
	case reflect.Int, reflect.Int64, reflect.Int32:
		*out = append(*out, float64(v.Int()))
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			publicFloats(v.Elem(), out, depth+1)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			publicFloats(v.Index(i), out, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				publicFloats(v.Field(i), out, depth+1)
			}
		}
	}
}

// leaks reports the first public value within 1e-12 (relative) of a
// confidential statistic.
func leaks(public []float64, secret []float64) (float64, bool) {
	for _, p := range public {
		for _, s := range secret {
			if math.Abs(p-s) <= 1e-12*math.Max(1, math.Abs(s)) {
				return p, true
			}
		}
	}
	return 0, false
}

// TestNoUnnoisedOutput runs every sanitizer on confidential data whose
// sufficient statistics are distinctive numbers and searches every public
// output (the Release, each posterior returned by a sanitizer, sanitized
// statistics, cell weights, and draws from the posteriors) for a value
// equal to a confidential statistic; the control shows the search finds
// one that is planted.
func TestNoUnnoisedOutput(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 1))
	ctx := context.Background()
	// Continuous data in [−4, 4] with distinctive mean and variance.
	x := make([]float64, 137)
	for i := range x {
		x[i] = math.Max(-4, math.Min(4, 0.3+1.1*r.NormFloat64()))
	}
	sum, ss := 0.0, 0.0
	for _, v := range x {
		sum += v
	}
	mean := sum / float64(len(x))
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	secrets := []float64{mean, ss / float64(len(x)-1), sum, ss}
	// Binary data with 53 ones of 137.
	xb := make([]float64, 137)
	for i := range 53 {
		xb[i] = 1
	}
	gm, _ := NewGaussianMean(GaussianMeanConfig{Sigma: 1, Lo: -4, Hi: 4, RecordBounding: BIT})
	nig, _ := NewGaussianNIG(GaussianNIGConfig{Lo: -4, Hi: 4, RecordBounding: BIT})
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	g, _ := NewGrid([]float64{-4}, []float64{4}, []int{16})
	type run struct {
		name   string
		model  Model
		data   []float64
		secret []float64
	}
	var histCounts []float64
	for c := range 16 {
		k := 0.0
		for _, v := range x {
			if g.Locate([]float64{v}) == c {
				k++
			}
		}
		if k > 1 { // counts 0 and 1 coincide with synthetic values by chance
			histCounts = append(histCounts, k)
		}
	}
	sampler := func(r *rand.Rand, x []float64, n int) ([]float64, error) {
		m := 0.0
		for _, v := range x {
			m += v
		}
		m /= float64(len(x))
		out := make([]float64, n)
		for i := range out {
			out[i] = m + r.NormFloat64()/math.Sqrt(float64(len(x)))
		}
		return out, nil
	}
	logPost := func(x []float64) (func([]float64) float64, error) {
		m := 0.0
		for _, v := range x {
			m += v
		}
		m /= float64(len(x))
		lf, _, err := MVNLogDensity([]float64{m}, []float64{1 / float64(len(x))})
		return lf, err
	}
	gen := func(r *rand.Rand, th, dst []float64) error {
		for i := range dst {
			dst[i] = th[0] + r.NormFloat64()
		}
		return nil
	}
	runs := []run{
		{"SSS Gaussian mean", mustSSS(gm), x, secrets},
		{"SSS Gaussian NIG", &SSS{Model: nig, Weights: []float64{0.5, 0.5}, Bounding: Truncation}, x, secrets},
		{"SSS beta-Bernoulli", mustSSS(bb), xb, []float64{53, 53.0 / 137}},
		{"histogram", &HistogramModel{Grid: g}, x, append(histCounts, secrets...)},
		{"histogram bootstrap", &HistogramModel{Grid: g, Bootstrap: true}, x, secrets},
		{"SiDD", &DensityModel{Grid: g, Method: MethodSiDD, A: 50, Records: 1, LogPosterior: logPost, Generate: gen}, x, secrets},
		{"SiDD.MC", &DensityModel{Grid: g, Method: MethodSiDDMC, A: 50, N: 500, Records: 1, SamplePosterior: sampler, Generate: gen}, x, secrets},
		{"SiPHiC", &DensityModel{Grid: g, Method: MethodSiPHiC, G: 10, N: 500, Records: 1, SamplePosterior: sampler, Generate: gen}, x, secrets},
	}
	for _, c := range runs {
		rel, err := Modips(ctx, r, Single(c.model), c.data, Config{M: 3, Epsilon: 1, Reproducible: true})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var pub []float64
		publicFloats(reflect.ValueOf(rel), &pub, 0)
		// The posterior a sanitizer returns, and draws from it.
		a, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1})
		post, err := c.model.Sanitize(r, c.data, 1, Releaser{Accountant: a, Reproducible: true})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		publicFloats(reflect.ValueOf(post), &pub, 0)
		th := make([]float64, post.Dim())
		for range 20 {
			if err := post.Sample(r, th); err != nil {
				t.Fatal(err)
			}
			pub = append(pub, th...)
		}
		if s, ok := c.model.(*SSS); ok {
			st, _, err := s.SanitizeStats(r, c.data, 1, Releaser{Accountant: a, Reproducible: true})
			if err == nil {
				pub = append(pub, st...)
			}
		}
		if v, bad := leaks(pub, c.secret); bad {
			t.Errorf("%s: public output %v equals a confidential statistic", c.name, v)
		}
		t.Logf("%-20s %6d public values searched, no confidential statistic among them", c.name, len(pub))
	}
	// Control: a release that carries the unnoised mean is caught.
	planted := struct {
		Sets [][]float64
		Stat float64
	}{Stat: mean}
	var pub []float64
	publicFloats(reflect.ValueOf(planted), &pub, 0)
	if _, bad := leaks(pub, secrets); !bad {
		t.Error("control: the planted unnoised statistic was not found")
	}
}

// TestModipsEndToEndAudit audits a whole Modips release (the synthetic
// data set only) at ε = 1 on neighbouring binary data sets of 12 records
// (6 vs 7 ones) with Clopper–Pearson bounds, and checks that the same
// audit catches a release that leaks the statistic.
func TestModipsEndToEndAudit(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const n = 20000
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	data := [2][]float64{make([]float64, 12), make([]float64, 12)}
	for i := range 6 {
		data[0][i] = 1
		data[1][i] = 1
	}
	data[1][6] = 1
	ctx := context.Background()
	ones := func(d []float64) float64 {
		s := 0.0
		for _, v := range d {
			s += v
		}
		return s
	}
	lb := auditLB(n, 11, func(r *rand.Rand, side int) bool {
		rel, err := Modips(ctx, r, Single(mustSSS(bb)), data[side], Config{M: 1, Epsilon: 1, Reproducible: true})
		if err != nil {
			panic(err)
		}
		return ones(rel.Sets[0]) >= 7
	})
	leaky := auditLB(n, 12, func(r *rand.Rand, side int) bool {
		rel, err := Modips(ctx, r, Single(&leakySSS{SSS{Model: bb}}), data[side], Config{M: 1, Epsilon: 1, Reproducible: true})
		if err != nil {
			panic(err)
		}
		return rel.Sets[0][0] == 7
	})
	t.Logf("Modips beta-Bernoulli: ε_lb = %.3f (claimed 1); leaky control ε_lb = %.3f", lb, leaky)
	if lb > 1 {
		t.Errorf("Modips: ε_lb = %v exceeds the claimed 1", lb)
	}
	if leaky <= 1 {
		t.Errorf("leaky control not caught: ε_lb = %v", leaky)
	}
}

// leakySSS releases honestly but writes the confidential count into the
// first synthetic record: the audit's positive control.
type leakySSS struct{ SSS }

func (l *leakySSS) Sanitize(r *rand.Rand, x []float64, eps float64, rl Releaser) (Posterior, error) {
	p, err := l.SSS.Sanitize(r, x, eps, rl)
	if err != nil {
		return nil, err
	}
	s := 0.0
	for _, v := range x {
		s += v
	}
	return leakyPost{p, s}, nil
}

type leakyPost struct {
	Posterior
	s float64
}

func (l leakyPost) Sample(r *rand.Rand, theta []float64) error {
	theta[0] = l.s
	return nil
}

func (l *leakySSS) Synthesize(r *rand.Rand, theta, dst []float64) error {
	for i := range dst {
		dst[i] = 0
	}
	dst[0] = theta[0]
	return nil
}
