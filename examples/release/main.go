// Release is the curator's side: it releases a count and a mean of
// confidential records under a total budget ε = 1 kept by a
// mechanism.Accountant, with noise from the operating system's secure
// generator, and writes the releases as JSON. Each release carries the
// exact law of its noise (aggregate.Result.Noise), from which an analyst
// builds the noise-aware model (Result.Mechanism, Result.Observed). A
// third release that would exceed the budget is refused. It runs in a
// fraction of a second.
//
//	go run ./examples/release
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/mechanism/aggregate"
)

// Release is what the curator publishes.
type Release struct {
	Count     aggregate.Result `json:"count"`     // number of records, ε = 0.25
	Mean      aggregate.Result `json:"mean"`      // mean visit length in [0, 60] minutes, ε = 0.5
	Remaining float64          `json:"remaining"` // ε left in the budget
}

func main() {
	r := rand.New(rand.NewPCG(1, 2)) // simulates the confidential records only
	minutes := make([]float64, 1000)
	for i := range minutes {
		minutes[i] = r.ExpFloat64() * 12
	}
	if _, err := run(os.Stdout, minutes); err != nil {
		log.Fatal(err)
	}
}

// run releases the count and the mean of the records x, tries one release
// too many, and writes the release as JSON to w.
func run(w io.Writer, x []float64) (Release, error) {
	acct, err := mechanism.NewAccountant(mechanism.Budget{Epsilon: 1})
	if err != nil {
		return Release{}, err
	}
	var rel Release
	// Adding or removing a person changes the count by one.
	count := aggregate.Config{Epsilon: 0.25, Neighbour: aggregate.AddRemove, Accountant: acct}
	if rel.Count, err = aggregate.Count(nil, len(x), count); err != nil {
		return rel, err
	}
	// The mean of a data set of public size (substituting one record).
	mean := aggregate.Config{Epsilon: 0.5, Neighbour: aggregate.Substitute, Lo: 0, Hi: 60, Accountant: acct}
	if rel.Mean, err = aggregate.BoundedMean(nil, x, mean); err != nil {
		return rel, err
	}
	// 0.25 is left: a release at ε = 0.5 is refused, and nothing is
	// released.
	if _, err := aggregate.BoundedMean(nil, x, mean); err == nil {
		return rel, fmt.Errorf("the accountant let the budget be exceeded")
	}
	rel.Remaining = acct.Remaining().Epsilon
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return rel, enc.Encode(rel)
}
