// SBI trains a neural posterior (sequential posterior estimation, SPPE,
// flow/sbi) for the rate λ of n = 50 visit counts x_i ~ Poisson(λ) capped
// at 30, given the Laplace-privatized mean of the counts (ε = 1,
// sensitivity 30/50) under a Gamma(2, scale 2) prior; it prints the
// posterior's summary, saves the trained posterior and loads it back. It
// trains in about four CPU-seconds.
//
//	go run ./examples/sbi [-seed 1]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

func main() {
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if _, _, err := run(os.Stdout, *seed, 3); err != nil {
		log.Fatal(err)
	}
}

// visits simulates the mean of n capped Poisson(λ) counts, θ = (λ).
type visits struct{ n int }

func (v visits) StatDim() int { return 1 }

func (v visits) Simulate(r *rand.Rand, theta, dst []float64) error {
	pois, err := simulate.NewPoisson(theta[0])
	if err != nil {
		return err
	}
	dst[0] = 0
	for range v.n {
		dst[0] += min(pois.Sample(r), 30) / float64(v.n)
	}
	return nil
}

// run trains SPPE for the given number of rounds of 1000 simulations on
// the released mean 4.1; it returns the trained posterior and the one
// saved and loaded back.
func run(w io.Writer, seed uint64, rounds int) (trained, loaded *sbi.Posterior, err error) {
	lap, err1 := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: 30.0 / 50, Epsilon: 1, Dim: 1})
	gamma, err2 := simulate.NewGamma(simulate.GammaConfig{Shape: 2, Scale: 2})
	if err := errors.Join(err1, err2); err != nil {
		return nil, nil, err
	}
	prior, _ := simulate.NewIndependent(gamma)
	problem := privinfer.Problem{Prior: prior, Simulator: visits{n: 50}, Mechanism: lap,
		Observed: []float64{4.1}, Names: []string{"lambda"}}
	arch := flow.DefaultConfig(1, 1) // a small flow is enough for one parameter
	arch.Layers, arch.Hidden, arch.Blocks = 3, 16, 1
	train := flow.DefaultTrainConfig()
	train.MaxEpochs = 40
	res, err := sbi.SPPE(context.Background(), problem, sbi.Config{Rounds: rounds, SimsPerRound: 1000,
		InnerPoints: 4, Atoms: 5, Flow: &arch, Train: &train, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	var file bytes.Buffer // a file in practice
	if err := res.Posterior.Save(&file); err != nil {
		return nil, nil, err
	}
	if loaded, err = sbi.LoadPosterior(&file, prior); err != nil {
		return nil, nil, err
	}
	draws, err := loaded.Draws(context.Background(), 2000, seed)
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(w, "released mean 4.1 (ε = 1); SPPE after %d rounds, saved and loaded:\n%v", rounds, draws.Summary())
	return res.Posterior, loaded, nil
}
