package tb_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/simulate/tb"
)

// Simulate one outbreak at the ABCDP paper's true θ and compare it with the
// San Francisco data by the weighted distance of the authors' code.
func Example() {
	o, err := tb.NewOutbreak(tb.Config{})
	if err != nil {
		panic(err)
	}
	s := make([]float64, tb.NumStats)
	if err := o.Simulate(rand.New(rand.NewPCG(1, 2)), tb.PaperTheta(), s); err != nil {
		panic(err)
	}
	rt, _ := o.Rates(tb.PaperTheta())
	_, _, perYear := tb.BalanceMeans(rt, tb.DefaultPCompliance, tb.DefaultPObserved)
	sf := tb.SanFrancisco()
	fmt.Printf("San Francisco: %v cases in %v clusters, H = %.4f\n", sf[tb.StatObserved], sf[tb.StatClusters], sf[tb.StatDiversity])
	fmt.Printf("balance mean over two years: %.0f observed cases\n", 2*perYear)
	fmt.Printf("a simulated outbreak is at distance %.0f of the San Francisco data\n", tb.OutbreakDistance(s, sf))
	// Output:
	// San Francisco: 473 cases in 326 clusters, H = 0.9892
	// balance mean over two years: 495 observed cases
	// a simulated outbreak is at distance 124 of the San Francisco data
}
