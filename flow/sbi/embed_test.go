package sbi

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/simulate"
)

// seriesSim releases 12 noisy copies of θ: s_j = θ + ε_j, ε_j ~ N(0, 1).
type seriesSim struct{}

func (seriesSim) StatDim() int { return 12 }

func (seriesSim) Simulate(r *rand.Rand, theta, dst []float64) error {
	for j := range dst[:12] {
		dst[j] = theta[0] + r.NormFloat64()
	}
	return nil
}

// TestEmbedding runs SPPE (two rounds, so the atomic loss with shared
// releases is exercised) with an MLP embedding of a 12-dimensional
// release, checks that the posterior reloads bit-identically with its
// embedding, and that SPLE and mismatched networks are refused.
func TestEmbedding(t *testing.T) {
	prior, _ := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{0}, Variances: []float64{1}})
	obs := make([]float64, 12)
	for j := range obs {
		obs[j] = 0.5
	}
	p := privinfer.Problem{Prior: prior, Simulator: seriesSim{}, Observed: obs}
	cfg := quickConfig()
	cfg.Rounds = 2
	emb := ad.Net{In: 12, Hidden: []int{8}, Out: 2}
	cfg.Embedding = &emb
	res, err := SPPE(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if e := res.Posterior.Flow().Config().Embedding; e == nil || e.In != 12 || e.Out != 2 {
		t.Fatalf("the posterior flow's embedding is %+v", e)
	}
	var b bytes.Buffer
	if err := res.Posterior.Save(&b); err != nil {
		t.Fatal(err)
	}
	got, err := LoadPosterior(bytes.NewReader(b.Bytes()), prior)
	if err != nil {
		t.Fatal(err)
	}
	x, y := make([]float64, 200), make([]float64, 200)
	if err := res.Posterior.Sample(rand.New(rand.NewPCG(1, 2)), 200, x); err != nil {
		t.Fatal(err)
	}
	if err := got.Sample(rand.New(rand.NewPCG(1, 2)), 200, y); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x, y) {
		t.Error("the reloaded posterior with an embedding draws differently")
	}

	if _, err := SPLE(context.Background(), p, cfg); !errors.Is(err, ErrInvalid) {
		t.Errorf("SPLE with an embedding: %v", err)
	}
	wrong := ad.Net{In: 11, Out: 2}
	cfg.Embedding = &wrong
	if _, err := SPPE(context.Background(), p, cfg); !errors.Is(err, ErrInvalid) {
		t.Errorf("embedding of 11 inputs for a release of 12: %v", err)
	}
	cfg.Embedding = &ad.Net{In: 12}
	if err := cfg.Validate(); !errors.Is(err, ErrInvalid) || !errors.Is(err, ad.ErrInvalid) {
		t.Errorf("invalid embedding network: %v", err)
	}
}
