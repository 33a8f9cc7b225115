// Command visits releases per-day visit counts and mean spend from a
// synthetic web-shop log of about -rows rows (10⁶ by default) whose days
// are not known in advance, under one budget, on Beam's prism runner, and
// then computes the noise-aware posterior of one day's mean spend with
// abc.KernelIS from the released value and its noise model.
//
//	go run ./example/visits -rows=1000000 -day=2026-11-10
//
// Each user visits one or two days, one to three times a day (so bounding
// at L0 = 2, L∞ = 3 keeps every record), and spends a Gamma(4) amount
// whose mean on day d of November is 14 + d. The noise is drawn from the
// operating system's generator, so every run releases other values.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
	privbeam "github.com/privinfer/privinfer/mechanism/beam"
	"github.com/privinfer/privinfer/simulate"
)

// Visit is one row of the log.
type Visit struct {
	User  int64
	Day   string
	Spend float64
}

func visitUser(v Visit) int64                 { return v.User }
func visitDaySpend(v Visit) (string, float64) { return v.Day, v.Spend }

// genFn generates the visits of the users of one shard.
type genFn struct {
	Users, Shards int64
}

func (f *genFn) ProcessElement(shard int64, emit func(Visit)) error {
	r := rand.New(rand.NewPCG(2026, uint64(shard)))
	for u := shard; u < f.Users; u += f.Shards {
		first := r.IntN(30)
		for d := range 1 + r.IntN(2) {
			day := 1 + (first+d)%30
			g, err := simulate.NewGamma(simulate.GammaConfig{Shape: 4, Scale: trueMean(day) / 4})
			if err != nil {
				return err
			}
			for range 1 + r.IntN(3) {
				emit(Visit{User: u, Day: fmt.Sprintf("2026-11-%02d", day), Spend: math.Round(100*g.Sample(r)) / 100})
			}
		}
	}
	return nil
}

// trueMean is the mean spend of day d of November.
func trueMean(d int) float64 { return 14 + float64(d) }

// sink keeps what the pipeline released (prism runs the workers in this
// process); a production pipeline writes to files or a table instead.
var sink sync.Map

type keepFn struct{ Name string }

func (f *keepFn) ProcessElement(day string, r aggregate.Result) { sink.Store(f.Name+"/"+day, r) }

func init() {
	register.Function1x1(visitUser)
	register.Function1x2(visitDaySpend)
	register.DoFn2x1[int64, func(Visit), error](&genFn{})
	register.Emitter1[Visit]()
	register.DoFn2x0[string, aggregate.Result](&keepFn{})
	beam.RegisterType(reflect.TypeOf(Visit{}))
}

// daySimulator simulates one day's bounded statistic (n, Σ x̃) for
// θ = (λ, m): n ~ Poisson(λ) visits spending Gamma(4, m/4) each, clamped
// and rounded as the release did.
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

func main() {
	rows := flag.Int64("rows", 1_000_000, "approximate number of rows (3 per user on average)")
	day := flag.String("day", "2026-11-10", "the day whose mean spend gets a posterior")
	flag.Parse()
	beam.Init()
	ctx := context.Background()

	p, s := beam.NewPipelineWithRoot()
	budget, err := privbeam.NewBudget(mechanism.Budget{Epsilon: 1, Delta: 1e-6})
	if err != nil {
		log.Fatal(err)
	}
	const shards = 32
	idx := make([]int64, shards)
	for i := range idx {
		idx[i] = int64(i)
	}
	visits := beam.ParDo(s, &genFn{Users: max(*rows/3, 1), Shards: shards}, beam.CreateList(s, idx))
	pc, err := privbeam.MakePrivate(s, visits, visitUser, budget)
	if err != nil {
		log.Fatal(err)
	}
	days, err := privbeam.ByKey(s, pc, visitDaySpend)
	if err != nil {
		log.Fatal(err)
	}
	selected, err := privbeam.SelectPartitions(s, days, privbeam.Params{
		Name: "days", MaxPartitionsContributed: 2, SelectionEpsilon: 0.2, SelectionDelta: 1e-6,
	})
	if err != nil {
		log.Fatal(err)
	}
	counts, err := privbeam.CountPerKey(s, days, privbeam.Params{
		Name: "visits", Epsilon: 0.3, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 3,
		PublicPartitions: selected,
	})
	if err != nil {
		log.Fatal(err)
	}
	spend := privbeam.Params{
		Name: "mean spend", Epsilon: 0.5, Lo: 0, Hi: 100, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 3,
		PublicPartitions: selected,
	}
	means, err := privbeam.MeanPerKey(s, days, spend)
	if err != nil {
		log.Fatal(err)
	}
	beam.ParDo0(s, &keepFn{Name: "count"}, counts)
	beam.ParDo0(s, &keepFn{Name: "mean"}, means)

	acct, err := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1, Delta: 1e-6})
	if err != nil {
		log.Fatal(err)
	}
	err = privbeam.Run(ctx, p, budget, acct, func(ctx context.Context, p *beam.Pipeline) error {
		_, err := beam.Run(ctx, "prism", p)
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	var keys []string
	sink.Range(func(k, _ any) bool { keys = append(keys, k.(string)); return true })
	sort.Strings(keys)
	fmt.Printf("released %d values under (ε, δ) = %v; the accountant has %v left\n", len(keys), budget.Guarantee(), acct.Remaining())
	for _, k := range keys {
		r, _ := sink.Load(k)
		fmt.Printf("  %-18s %12.2f\n", k, r.(aggregate.Result).Value)
	}

	v, ok := sink.Load("mean/" + *day)
	if !ok {
		log.Fatalf("day %s was not released", *day)
	}
	res := v.(aggregate.Result)
	mech, err := res.Mechanism()
	if err != nil {
		log.Fatal(err)
	}
	rate, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 0, Hi: 1e6})
	mu, _ := simulate.NewUniform(simulate.UniformConfig{Lo: 1, Hi: 99})
	prior, err := simulate.NewIndependent(rate, mu)
	if err != nil {
		log.Fatal(err)
	}
	prob := privinfer.Problem{
		Prior:     prior,
		Simulator: daySimulator{p: aggregate.Params{Lo: spend.Lo, Hi: spend.Hi}},
		Mechanism: mech,
		Observed:  res.Observed(),
		Names:     []string{"lambda", "m"},
	}
	n := math.Max(res.Releases[0], 1)
	post, err := abc.KernelIS(ctx, prob, abc.KernelISConfig{
		Simulations: 4000, Stages: 3, Seed: 1,
		Mean: []float64{n, res.Value},
		Cov:  []float64{4 * (n + 100), 0, 0, 4},
	})
	if err != nil {
		log.Fatal(err)
	}
	var d int
	fmt.Sscanf(*day, "2026-11-%d", &d)
	lo, hi := post.Draws.Interval(1, 0.9)
	fmt.Printf("%s: released mean %.3f from (ñ, centred sum) = %v with noise %+v\n", *day, res.Value, res.Releases, res.Noise)
	fmt.Printf("noise-aware posterior of the mean spend: mean %.3f, 90%% interval [%.3f, %.3f]; true mean %.0f\n", post.Draws.Mean()[1], lo, hi, trueMean(d))
	fmt.Print(post.Draws.Summary())
}
