package sbi

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkEpoch measures one training epoch (400 simulated pairs, batches
// of 50) of the nested losses with M inner points, with the small test flow.
func BenchmarkEpoch(b *testing.B) {
	for _, kind := range []lossKind{lossNPE, lossAtomic, lossPLE} {
		for _, m := range []int{8, 16} {
			b.Run(fmt.Sprintf("%s-M%d", [...]string{"NPE", "atomic", "PLE"}[kind], m), func(b *testing.B) {
				o := smallConfig()
				o.InnerPoints = m
				o.Train.MaxEpochs = 1
				o.Train.ValidationFraction = 0
				role := PosteriorFlow
				if kind == lossPLE {
					role = LikelihoodFlow
				}
				e, err := newEngine(testProblem(), &o, role)
				if err != nil {
					b.Fatal(err)
				}
				th, _ := e.priorDraws(400, 1)
				if err := e.simulate(context.Background(), 1, th); err != nil {
					b.Fatal(err)
				}
				if err := e.standardize(); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					var rr RoundResult
					if err := e.train(context.Background(), 1, kind, &rr); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
