package synth

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mechanism"
)

// TestSanitizerAudits audits every sanitization procedure's release at
// the budget it charges (ε = 1) on neighbouring data sets (one record
// substituted), with Clopper–Pearson bounds (auditLB): SSS with BIT and
// with truncation (which charges 2× its inner budget), the model-free
// histogram and its bootstrap variant, model-free predictive SSS, and
// SiDD's selection. 40,000
// releases per side.
func TestSanitizerAudits(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	const n = 40000
	const eps = 1.0
	rl := func(total float64) Releaser {
		a, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: total})
		return Releaser{Accountant: a, Reproducible: true}
	}
	bb, _ := NewBetaBernoulli(BetaBernoulliConfig{Alpha: 1, Beta: 1})
	d := [2][]float64{{1, 1, 1, 1, 1, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 0, 0, 0, 0}}
	g, _ := NewGrid([]float64{0}, []float64{4}, []int{4})
	h := [2][]float64{{0.5, 0.5, 1.5, 2.5, 3.5}, {0.5, 0.5, 1.5, 2.5, 2.5}}
	sidd, _ := NewGrid([]float64{0}, []float64{1}, []int{3})
	A := 2.0
	logf := [2]func([]float64) float64{
		func(th []float64) float64 { return A - 4*A*th[0] },
		func(th []float64) float64 { return -A + 4*A*th[0] },
	}
	cases := []struct {
		name  string
		event func(r *rand.Rand, side int) bool
	}{
		{"SSS BIT", func(r *rand.Rand, side int) bool {
			s := &SSS{Model: bb, Bounding: BIT}
			st, _, err := s.SanitizeStats(r, d[side], eps, rl(eps))
			if err != nil {
				panic(err)
			}
			return st[0] >= 5.5
		}},
		{"SSS truncation", func(r *rand.Rand, side int) bool {
			s := &SSS{Model: bb, Bounding: Truncation}
			st, _, err := s.SanitizeStats(r, d[side], eps, rl(eps))
			if err != nil {
				panic(err)
			}
			return st[0] >= 5.5
		}},
		{"histogram", func(r *rand.Rand, side int) bool {
			p, err := (&HistogramModel{Grid: g}).Sanitize(r, h[side], eps, rl(eps))
			if err != nil {
				panic(err)
			}
			w := p.(*histPosterior).cp.Weights
			return w[3] >= 1 && w[2] <= 1
		}},
		{"histogram bootstrap", func(r *rand.Rand, side int) bool {
			p, err := (&HistogramModel{Grid: g, Bootstrap: true, MaxCopies: 1}).Sanitize(r, h[side], eps, rl(eps))
			if err != nil {
				panic(err)
			}
			w := p.(*histPosterior).cp.Weights
			return w[3] >= 1 && w[2] <= 1
		}},
		{"predictive SSS", func(r *rand.Rand, side int) bool {
			p, err := (&PredictiveSSS{Grid: g}).Sanitize(r, h[side], eps, rl(eps))
			if err != nil {
				panic(err)
			}
			s := p.(statPosterior)
			return s[3] >= 1 && s[2] <= 1
		}},
		{"SiDD selection", func(r *rand.Rand, side int) bool {
			cp, err := SiDD(r, sidd, logf[side], A, 0, eps, rl(eps))
			if err != nil {
				panic(err)
			}
			return cp.Weights[0] == 1
		}},
	}
	for i, c := range cases {
		lb := auditLB(n, uint64(40+i), c.event)
		t.Logf("%-20s ε_lb = %6.3f (charged %v)", c.name, lb, eps)
		if lb > eps {
			t.Errorf("%s: ε_lb = %v exceeds the charged ε = %v", c.name, lb, eps)
		}
		if math.IsNaN(lb) {
			t.Errorf("%s: audit failed", c.name)
		}
	}
}
