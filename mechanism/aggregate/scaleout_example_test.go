package aggregate_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
)

// The accumulator path of a scaled-out pipeline, in one process: the
// driver declares the aggregation's share in a Plan and charges the
// accountant once; each worker fills an accumulator from its shard and
// ships it as bytes; the driver merges them (in any order: the state is
// exact integers) and releases. Reproducible makes the example reproducible; a
// pipeline releasing confidential data must refuse it.
func ExampleSumAccumulator() {
	acct, _ := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1})
	p := aggregate.Params{Epsilon: 0.5, Lo: 0, Hi: 100, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1, Reproducible: true}
	plan, _ := aggregate.NewPlan(mechanism.Budget{Epsilon: 1})
	if err := plan.AddParams("total spend", p); err != nil {
		fmt.Println(err)
		return
	}
	if err := plan.Commit(acct); err != nil {
		fmt.Println(err)
		return
	}

	shards := [][]float64{{12.5, 40, 250}, {7.25, 99}, {63, -5, 18}}
	var wire [][]byte
	for _, shard := range shards { // on the workers: p is all they get
		acc, _ := aggregate.NewSumAccumulator(p)
		for _, v := range shard {
			acc.Add(v) // 250 is clamped to 100, −5 to 0
		}
		b, _ := acc.MarshalBinary()
		wire = append(wire, b)
	}

	total, _ := aggregate.NewSumAccumulator(p)
	for _, b := range wire { // on the driver
		var part aggregate.SumAccumulator
		if err := part.UnmarshalBinary(b); err != nil {
			fmt.Println(err)
			return
		}
		_ = total.Merge(&part)
	}
	res, _ := total.Release(rand.New(rand.NewPCG(1, 2)))
	fmt.Printf("sum %.2f (noise scale %.0f on a grid of 2^-14), spent %v\n", res.Value, res.Scale, acct.Spent())
	// Output:
	// sum 288.40 (noise scale 200 on a grid of 2^-14), spent ε=0.5
}

// Partition selection for keys not known in advance: each of 60 users'
// visits are bounded to at most L0 = 2 pages, the number of distinct
// users per page is counted, and only pages the selector keeps are
// released, with noisy counts. A page visited by one user alone is kept
// with probability at most δ/L0.
func ExamplePartitionSelector() {
	r := rand.New(rand.NewPCG(3, 4))
	users := map[string]int64{}
	for u := range 60 {
		pages := []string{"home"}
		if u%2 == 0 {
			pages = append(pages, "news")
		}
		if u == 7 {
			pages = append(pages, "secret", "sport")
		}
		kept, _ := aggregate.BoundPartitions(pages, 2, r)
		for _, page := range kept {
			users[page]++
		}
	}
	sel, _ := aggregate.NewPartitionSelector(aggregate.SelectionParams{Epsilon: 2, Delta: 1e-3, MaxPartitionsContributed: 2, Reproducible: true})
	p := aggregate.Params{Epsilon: 1, MaxPartitionsContributed: 2, MaxContributionsPerPartition: 1, Reproducible: true}
	fmt.Println("rule:", sel.Rule(), "budget:", sel.Budget())
	for _, page := range []string{"home", "news", "secret", "sport"} {
		if !sel.Keep(r, users[page]) {
			fmt.Printf("%-6s not released (P(keep) = %.2g)\n", page, sel.KeepProbability(users[page]))
			continue
		}
		acc, _ := aggregate.NewCountAccumulator(p)
		for range users[page] {
			acc.Add(0)
		}
		res, _ := acc.Release(r)
		fmt.Printf("%-6s %v users\n", page, res.Value)
	}
	// Output:
	// rule: optimal budget: (ε=2, δ=0.001)
	// home   60 users
	// news   28 users
	// secret not released (P(keep) = 0)
	// sport  not released (P(keep) = 0.0005)
}

// A released aggregate carries the exact law of its noise: the analyst
// builds a noise-aware posterior's Problem from Result.Mechanism (the
// discrete lattice law, with a density and a uniform transform) and
// Result.Observed.
func ExampleResult_Mechanism() {
	p := aggregate.Params{Epsilon: 1, MaxPartitionsContributed: 1, MaxContributionsPerPartition: 1, Reproducible: true}
	acc, _ := aggregate.NewCountAccumulator(p)
	for range 40 {
		acc.Add(0)
	}
	res, _ := acc.Release(rand.New(rand.NewPCG(5, 6)))
	m, _ := res.Mechanism()
	dens := m.(mechanism.Density)
	y := res.Observed()
	fmt.Println("observed", y, "noise", res.Noise[0].Kind, "scale", res.Scale)
	for _, n := range []float64{38, 40, 42} {
		fmt.Printf("P(release | n = %v) = %.4f\n", n, math.Exp(dens.LogDensity(y, []float64{n})))
	}
	// Output:
	// observed [40] noise discrete Laplace scale 1
	// P(release | n = 38) = 0.0625
	// P(release | n = 40) = 0.4621
	// P(release | n = 42) = 0.0625
}
