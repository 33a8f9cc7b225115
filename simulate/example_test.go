package simulate_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
	"github.com/privinfer/privinfer/simulate/sir"
)

// Compose the exact SIR simulator with the infection-trajectory mechanism
// of SBI Prop. 4 (n = 1000, m = 1000, L = 10, so ε = 10) into a simulator of
// private releases, and draw one release at the paper's θ*.
func Example_privateSIR() {
	epi, err := sir.New(sir.Config{K: 1_000_000}) // records I(t) at 0, 17, …, 153
	if err != nil {
		panic(err)
	}
	mech, err := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: 1000, Inflation: 1000, Population: 1_000_000, Times: 10})
	if err != nil {
		panic(err)
	}
	private, err := simulate.Private(epi, mech)
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(1, 3))
	sdp := make([]float64, private.StatDim())
	if err := private.Simulate(r, sir.SyntheticTheta(), sdp); err != nil {
		panic(err)
	}
	fmt.Println("epsilon:", mech.Budget().Epsilon)
	fmt.Println("release length:", len(sdp))
	peak := 0
	for i, v := range sdp {
		if v > sdp[peak] {
			peak = i
		}
	}
	fmt.Println("peak at t =", 17*peak)
	// Output:
	// epsilon: 10
	// release length: 10
	// peak at t = 34
}

// Draw a linear regression statistic record by record, as data
// augmentation MCMC does, and check it against the summary-level simulator.
func ExampleMeanStat() {
	model := linreg.Paper()
	sim, _ := simulate.NewMeanStat(model, linreg.PaperN)
	theta := linreg.PaperTheta()

	s := make([]float64, sim.StatDim())
	_ = sim.Simulate(rand.New(rand.NewPCG(5, 5)), theta, s)

	r := rand.New(rand.NewPCG(5, 5))
	records := make([]float64, linreg.PaperN*model.RecordDim())
	for i := range linreg.PaperN {
		model.SampleRecord(r, theta, records[i*3:(i+1)*3])
	}
	s2 := make([]float64, model.ContribDim())
	_ = simulate.MeanContribution(model, records, s2)
	fmt.Println("statistic length:", len(s), "identical:", fmt.Sprint(s) == fmt.Sprint(s2))
	// Output: statistic length: 9 identical: true
}
