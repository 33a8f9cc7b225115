package beam_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	privbeam "github.com/privinfer/privinfer/mechanism/beam"
	"github.com/privinfer/privinfer/simulate"
)

// Visit is one row of a web shop's log: who, which day, how much.
type Visit struct {
	User  string
	Day   string
	Spend float64
}

func visitUser(v Visit) string                { return v.User }
func visitDaySpend(v Visit) (string, float64) { return v.Day, v.Spend }

func init() {
	register.Function1x1(visitUser)
	register.Function1x2(visitDaySpend)
	beam.RegisterType(reflect.TypeOf(Visit{}))
	register.DoFn2x0[string, aggregate.Result](&keepFn{})
}

// released holds what the example's pipeline released (prism runs the
// workers in this process); a real pipeline writes to files or a table.
var released sync.Map

type keepFn struct{ Name string }

func (f *keepFn) ProcessElement(day string, r aggregate.Result) {
	released.Store(f.Name+"/"+day, r)
}

// visitLog is a synthetic log of n visits by n/4 users over 30 days: each
// user visits one or two days, one to three times a day, and spends a
// Gamma(4) amount whose mean depends on the day.
func visitLog(n int) ([]Visit, map[string]float64) {
	r := rand.New(rand.NewPCG(2026, 12))
	mean := map[string]float64{}
	var vs []Visit
	for u := 0; len(vs) < n; u++ {
		first := r.IntN(30)
		for d := range 1 + r.IntN(2) {
			day := fmt.Sprintf("2026-11-%02d", 1+(first+d)%30)
			if _, ok := mean[day]; !ok {
				mean[day] = 15 + float64((first+d)%30)
			}
			for range 1 + r.IntN(3) {
				g, _ := simulate.NewGamma(simulate.GammaConfig{Shape: 4, Scale: mean[day] / 4})
				vs = append(vs, Visit{User: fmt.Sprintf("user%06d", u), Day: day, Spend: math.Round(100*g.Sample(r)) / 100})
			}
		}
	}
	return vs[:n], mean
}

// daySimulator simulates one day's bounded statistic (n, Σ x̃) for
// θ = (λ, m): n ~ Poisson(λ) visits spending Gamma(4, m/4) each, clamped
// and rounded as the release did (aggregate.Params.RoundValue).
type daySimulator struct{ p aggregate.Params }

func (d daySimulator) StatDim() int { return 2 }

func (d daySimulator) Simulate(r *rand.Rand, theta, dst []float64) error {
	pois, err := simulate.NewPoisson(theta[0])
	if err != nil {
		return err
	}
	g, err := simulate.NewGamma(simulate.GammaConfig{Shape: 4, Scale: theta[1] / 4})
	if err != nil {
		return err
	}
	n := pois.Sample(r)
	sum := 0.0
	for range int(n) {
		x, _ := d.p.RoundValue(g.Sample(r))
		sum += x
	}
	dst[0], dst[1] = n, sum
	return nil
}

// Example releases per-day visit counts and mean spend from a log whose
// days are not known in advance, under one budget: partition selection
// finds the days, a count and a mean are released on them, and the
// accountant is charged once before the pipeline runs. It then computes
// the noise-aware posterior of one day's mean spend with abc.KernelIS from
// the released value and its noise model (aggregate.Result.Mechanism).
//
// The budget's test mode only makes this example's output reproducible;
// a pipeline releasing confidential data leaves it out (it is refused
// outside tests). The program in example/visits runs the same on 10⁶ rows.
func Example() {
	vs, trueMean := visitLog(10_000)

	p, s := beam.NewPipelineWithRoot()
	budget, _ := privbeam.NewBudget(mechanism.Budget{Epsilon: 4, Delta: 1e-6})
	if err := budget.TestMode(1, false); err != nil {
		fmt.Println(err)
		return
	}
	pc, err := privbeam.MakePrivate(s, beam.CreateList(s, vs), visitUser, budget)
	if err != nil {
		fmt.Println(err)
		return
	}
	days, _ := privbeam.ByKey(s, pc, visitDaySpend)
	// Each user visits at most 2 days, at most 3 times a day: bounding
	// at L0 = 2, L∞ = 3 keeps every record.
	selected, err := privbeam.SelectPartitions(s, days, privbeam.Params{
		Name: "days", MaxPartitionsContributed: 2, SelectionEpsilon: 0.5, SelectionDelta: 1e-6,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	counts, err := privbeam.CountPerKey(s, days, privbeam.Params{
		Name: "visits", Epsilon: 1, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 3,
		PublicPartitions: selected,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	spend := privbeam.Params{
		Name: "mean spend", Epsilon: 2.5, Lo: 0, Hi: 100, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 3,
		PublicPartitions: selected,
	}
	means, err := privbeam.MeanPerKey(s, days, spend)
	if err != nil {
		fmt.Println(err)
		return
	}
	beam.ParDo0(s, &keepFn{Name: "count"}, counts)
	beam.ParDo0(s, &keepFn{Name: "mean"}, means)

	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 4, Delta: 1e-6})
	run := func(_ context.Context, p *beam.Pipeline) error { return ptest.Run(p) }
	if err := privbeam.Run(context.Background(), p, budget, acct, run); err != nil {
		fmt.Println(err)
		return
	}
	var got []string
	released.Range(func(k, _ any) bool { got = append(got, k.(string)); return true })
	sort.Strings(got)
	fmt.Printf("released %d values (a count and a mean per selected day); ε spent %.1f\n", len(got), 4-acct.Remaining().Epsilon)

	// The noise-aware posterior of one day's mean spend m, with the
	// day's visit rate λ as a nuisance parameter.
	const day = "2026-11-10"
	v, ok := released.Load("mean/" + day)
	if !ok {
		fmt.Println("day not released")
		return
	}
	res := v.(aggregate.Result)
	mech, err := res.Mechanism()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("noise of the mean's releases: %v (scale %g), %v (scale %g)\n",
		res.Noise[0].Kind, float64(res.Noise[0].Num)/float64(res.Noise[0].Den),
		res.Noise[1].Kind, float64(res.Noise[1].Num)/float64(res.Noise[1].Den)*res.Noise[1].Grid)
	rate, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 0, Hi: 2000})
	mu, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 1, Hi: 99})
	prior, _ := simulate.NewIndependent(rate, mu)
	prob := privinfer.Problem{
		Prior:     prior,
		Simulator: daySimulator{p: aggregate.Params{Lo: spend.Lo, Hi: spend.Hi}},
		Mechanism: mech,
		Observed:  res.Observed(),
		Names:     []string{"lambda", "m"},
	}
	n := math.Max(res.Releases[0], 1)
	post, err := abc.KernelIS(context.Background(), prob, abc.KernelISConfig{
		Simulations: 3000, Stages: 3, Seed: 7,
		Mean: []float64{n, res.Value},
		Cov:  []float64{4 * (n + 100), 0, 0, 25},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi := post.Draws.Interval(1, 0.9)
	fmt.Printf("the 90%% posterior interval of %s's mean spend covers its true mean %.0f: %v\n", day, trueMean[day], lo <= trueMean[day] && trueMean[day] <= hi)
	// Output:
	// released 60 values (a count and a mean per selected day); ε spent 4.0
	// noise of the mean's releases: discrete Laplace (scale 4.8), discrete Laplace (scale 240)
	// the 90% posterior interval of 2026-11-10's mean spend covers its true mean 24: true
}
