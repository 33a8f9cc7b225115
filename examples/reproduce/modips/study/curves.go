package study

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/privinfer/privinfer/combine"
	"github.com/privinfer/privinfer/synth"
)

// Point summarizes the Theorem-7 inference of one study setting over its
// repetitions.
type Point struct {
	Scenario string  // e.g. "binary p=0.1 n=100"
	M        int     // number of synthetic sets
	W        float64 // mean's share of the budget (allocation study)
	Reps     int
	Bias     float64 // mean of Q̄ − truth
	SDEst    float64 // mean of √T, the estimated standard deviation of Q̄
	EmpSD    float64 // standard deviation of Q̄ over the repetitions
	OrigSD   float64 // mean standard error from the original data
	CP       float64 // coverage of the 95% interval
	Half     float64 // mean half-width of the 95% interval
	OrigHalf float64 // mean half-width of the original-data 95% interval
}

// setting is one simulation setting of a curve study.
type setting struct {
	name   string
	binary bool
	p      float64 // binary truth
	n      int
	c0, c1 float64
	bound  synth.Bounding
}

func (s setting) data(r *rand.Rand, x []float64) {
	for i := range x {
		if s.binary {
			x[i] = 0
			if r.Float64() < s.p {
				x[i] = 1
			}
		} else {
			x[i] = math.Max(s.c0, math.Min(s.c1, r.NormFloat64()))
		}
	}
}

func (s setting) truth() float64 {
	if s.binary {
		return s.p
	}
	return 0
}

// run simulates reps repetitions of modips with m sets at budget eps
// and model, pooling the means of the sets with the Theorem-7 rule.
func (s setting) run(ctx context.Context, seed uint64, reps, m int, eps float64, model synth.Model) (Point, error) {
	if reps < 2 {
		return Point{}, fmt.Errorf("%w: Config.Reps must be >= 2 for an empirical sd, got %d", ErrInvalid, reps)
	}
	type out struct {
		q, sd, osd, half, ohalf float64
		cover                   bool
	}
	res := make([]out, reps)
	truth := s.truth()
	err := mapReps(ctx, reps, seed, func(i int, r *rand.Rand) error {
		x := make([]float64, s.n)
		s.data(r, x)
		_, u0 := analyse(x, s.binary)
		rel, err := synth.Modips(ctx, r, synth.Single(model), x, synth.Config{Reproducible: true, M: m, Epsilon: eps})
		if err != nil {
			return err
		}
		qs := make([]float64, m)
		us := make([]float64, m)
		for j, d := range rel.Sets {
			qs[j], us[j] = analyse(d, s.binary)
		}
		pr, err := combine.Pool(combine.DPSynthesis, qs, us, combine.Options{})
		if err != nil {
			return err
		}
		lo, hi, err := pr.Interval(0.95)
		if err != nil {
			return err
		}
		res[i] = out{q: pr.Mean, sd: pr.SE(), osd: math.Sqrt(u0), half: (hi - lo) / 2,
			ohalf: z975 * math.Sqrt(u0), cover: lo <= truth && truth <= hi}
		return nil
	})
	if err != nil {
		return Point{}, err
	}
	p := Point{Scenario: s.name, M: m, Reps: reps}
	var sq, s2 float64
	for _, o := range res {
		sq += o.q
		s2 += o.q * o.q
		p.SDEst += o.sd
		p.OrigSD += o.osd
		p.Half += o.half
		p.OrigHalf += o.ohalf
		if o.cover {
			p.CP++
		}
	}
	fr := float64(reps)
	mean := sq / fr
	p.Bias = mean - truth
	p.EmpSD = math.Sqrt(math.Max(0, (s2-fr*mean*mean)/(fr-1)))
	p.SDEst /= fr
	p.OrigSD /= fr
	p.Half /= fr
	p.OrigHalf /= fr
	p.CP /= fr
	return p, nil
}

// MStudyValues is the default grid of m for the m-study.
var MStudyValues = []int{2, 3, 5, 10, 20, 30, 50, 100, 200, 500}

// MStudy reruns the m-study of Figs 6 (binary data, p ∈ {0.1, 0.5}) and 7
// (Gaussian data, bounds (−4, 4) and (−4, 5), BIT and truncation) at ε = 1
// and n ∈ {100, 1000}, for every m in ms (each in [2, synth.MaxSets]), with
// cfg.Reps repetitions each (at least 2). Invalid arguments and a nil ctx
// give errors wrapping ErrInvalid.
func MStudy(ctx context.Context, cfg Config, ms []int) ([]Point, error) {
	return MStudyScaled(ctx, cfg, ms, 1)
}

// MaxScale bounds the sample-size multiplier of MStudyScaled.
const MaxScale = 1000

// MStudyScaled is MStudy with both sample sizes multiplied by scale (in
// [1, MaxScale]): scale 10 simulates n = 1000 and 10 000 where the paper
// prints 100 and 1000. Scenario names carry the simulated n.
func MStudyScaled(ctx context.Context, cfg Config, ms []int, scale int) ([]Point, error) {
	if err := cfg.validateCurves(ctx); err != nil {
		return nil, err
	}
	if scale < 1 || scale > MaxScale {
		return nil, fmt.Errorf("%w: scale must be in [1, %d], got %d", ErrInvalid, MaxScale, scale)
	}
	if len(ms) == 0 {
		return nil, fmt.Errorf("%w: no values of m", ErrInvalid)
	}
	for _, m := range ms {
		if m < 2 || m > synth.MaxSets {
			return nil, fmt.Errorf("%w: m must be in [2, %d], got %d", ErrInvalid, synth.MaxSets, m)
		}
	}
	start := time.Now()
	sizes := []int{100 * scale, 1000 * scale}
	var set []setting
	for _, n := range sizes {
		for _, p := range []float64{0.1, 0.5} {
			set = append(set, setting{name: fmt.Sprintf("binary p=%g n=%d", p, n), binary: true, p: p, n: n})
		}
	}
	for _, n := range sizes {
		for _, c1 := range []float64{4, 5} {
			for _, b := range []synth.Bounding{synth.BIT, synth.Truncation} {
				set = append(set, setting{name: fmt.Sprintf("gaussian (-4,%g) %v n=%d", c1, b, n), n: n, c0: -4, c1: c1, bound: b})
			}
		}
	}
	var pts []Point
	for k, s := range set {
		var model synth.Model
		if s.binary {
			bb, _ := synth.NewBetaBernoulli(synth.BetaBernoulliConfig{Alpha: 1, Beta: 1})
			model, _ = synth.NewSSS(bb, nil, synth.BIT)
		} else {
			gm, err := synth.NewGaussianMean(synth.GaussianMeanConfig{Sigma: 1, Lo: s.c0, Hi: s.c1, RecordBounding: s.bound})
			if err != nil {
				return nil, err
			}
			model, _ = synth.NewSSS(gm, nil, s.bound)
		}
		for i, m := range ms {
			p, err := s.run(ctx, cfg.Seed+uint64(k*1000+i)*0x9E3779B97F4A7C15, cfg.Reps, m, 1, model)
			if err != nil {
				return nil, err
			}
			pts = append(pts, p)
			cfg.report(start, len(pts), len(set)*len(ms), fmt.Sprintf("%s, m = %d", s.name, m))
		}
	}
	return pts, nil
}

// AllocationWeights is the default grid of the mean's budget share w.
var AllocationWeights = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// Allocation reruns the budget-allocation study of Fig 9: N(0, 1) data,
// the normal–inverse-gamma model with individualized sanitization giving
// share w of ε = 1 to the mean and 1 − w to the variance, m = 10, n ∈
// {100, 1000}, bounds (−4, 4) and (−4, 5), BIT and truncation. Besides the
// weights in ws, every scenario is also run at the communal weight
// 1/(1 + c1 − c0) (reported with M = 10 and W set to that weight).
// Every w must be in (0, 1) and cfg.Reps at least 2; invalid arguments
// and a nil ctx give errors wrapping ErrInvalid.
func Allocation(ctx context.Context, cfg Config, ws []float64) ([]Point, error) {
	if err := cfg.validateCurves(ctx); err != nil {
		return nil, err
	}
	for i, w := range ws {
		if !(w > 0 && w < 1) {
			return nil, fmt.Errorf("%w: ws[%d] must be in (0, 1), got %v", ErrInvalid, i, w)
		}
	}
	start := time.Now()
	total := 8 * (len(ws) + 1)
	var pts []Point
	k := 0
	for _, n := range []int{100, 1000} {
		for _, c1 := range []float64{4, 5} {
			for _, b := range []synth.Bounding{synth.BIT, synth.Truncation} {
				s := setting{name: fmt.Sprintf("gaussian (-4,%g) %v n=%d", c1, b, n), n: n, c0: -4, c1: c1, bound: b}
				nig, err := synth.NewGaussianNIG(synth.GaussianNIGConfig{Lo: s.c0, Hi: s.c1, RecordBounding: b})
				if err != nil {
					return nil, err
				}
				all := append(append([]float64(nil), ws...), nig.CommunalWeight())
				for i, w := range all {
					model, err := synth.NewSSS(nig, []float64{w, 1 - w}, b)
					if err != nil {
						return nil, err
					}
					p, err := s.run(ctx, cfg.Seed+uint64(k*1000+i)*0x9E3779B97F4A7C15, cfg.Reps, 10, 1, model)
					if err != nil {
						return nil, err
					}
					p.W = w
					pts = append(pts, p)
					cfg.report(start, len(pts), total, fmt.Sprintf("%s, w = %.3g", s.name, w))
				}
				k++
			}
		}
	}
	return pts, nil
}

// validateCurves checks the arguments shared by MStudy and Allocation:
// a valid cfg with Reps ≥ 2 (each point has an empirical sd) and a
// non-nil ctx.
func (c Config) validateCurves(ctx context.Context) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.Reps < 2 {
		return fmt.Errorf("%w: Config.Reps must be >= 2 for an empirical sd, got %d", ErrInvalid, c.Reps)
	}
	if ctx == nil {
		return fmt.Errorf("%w: ctx is nil", ErrInvalid)
	}
	return nil
}
