package sbi

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// reloaded saves est (a *Posterior or *LikelihoodPosterior) and loads it
// back with the test problem's prior, returning the file and the loaded
// posterior.
func reloaded(t *testing.T, est Estimate) ([]byte, Estimate) {
	t.Helper()
	prior := testProblem().Prior
	var b bytes.Buffer
	switch q := est.(type) {
	case *Posterior:
		if err := q.Save(&b); err != nil {
			t.Fatal(err)
		}
		got, err := LoadPosterior(bytes.NewReader(b.Bytes()), prior)
		if err != nil {
			t.Fatal(err)
		}
		return b.Bytes(), got
	case *LikelihoodPosterior:
		if err := q.Save(&b); err != nil {
			t.Fatal(err)
		}
		got, err := LoadLikelihoodPosterior(bytes.NewReader(b.Bytes()), prior)
		if err != nil {
			t.Fatal(err)
		}
		return b.Bytes(), got
	}
	t.Fatalf("cannot save a %T", est)
	return nil, nil
}

// sameDraws reports whether a and b give bit-identical draws for the same
// seed (two seeds, 200 draws each) and the same log densities.
func sameDraws(a, b Estimate) error {
	for _, seed := range []uint64{1, 99} {
		x, y := make([]float64, 200), make([]float64, 200)
		if err := a.Sample(rand.New(rand.NewPCG(seed, 7)), 200, x); err != nil {
			return err
		}
		if err := b.Sample(rand.New(rand.NewPCG(seed, 7)), 200, y); err != nil {
			return err
		}
		if !slices.Equal(x, y) {
			return fmt.Errorf("draws of seed %d differ", seed)
		}
	}
	for _, th := range []float64{-2.5, -0.4, 0, 0.7, 1.9} {
		if u, v := a.LogDensity([]float64{th}), b.LogDensity([]float64{th}); u != v {
			return fmt.Errorf("LogDensity(%v) = %v and %v", th, u, v)
		}
	}
	return nil
}

// rounder is what both posteriors report about their training.
type rounder interface {
	Rounds() int
	Amortized() bool
	Observed() []float64
}

// TestSaveLoadRounds checks that one-round (amortized) and two-round
// (sequential) SPPE and SPLE posteriors reload bit-identically: the same
// draws for the same seed, the same log densities, the same file when
// saved again, the same number of rounds; a reloaded amortized posterior
// moved to another release with At samples exactly as the original moved
// there, and a reloaded sequential one still refuses another release with
// ErrSequential.
func TestSaveLoadRounds(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := testProblem()
	const other = -0.8
	for _, rounds := range []int{1, 2} {
		cfg := quickConfig()
		cfg.Rounds = rounds
		pres, err := SPPE(t.Context(), p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		lres, err := SPLE(t.Context(), p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for name, est := range map[string]Estimate{"SPPE": pres.Posterior, "SPLE": lres.Posterior} {
			file, got := reloaded(t, est)
			if err := sameDraws(est, got); err != nil {
				t.Errorf("%s, %d rounds, reloaded: %v", name, rounds, err)
			}
			again, _ := reloaded(t, got)
			if !bytes.Equal(file, again) {
				t.Errorf("%s, %d rounds: the reloaded posterior saves a different file", name, rounds)
			}
			a, b := est.(rounder), got.(rounder)
			if b.Rounds() != rounds || b.Amortized() != (rounds == 1) || !slices.Equal(a.Observed(), b.Observed()) {
				t.Errorf("%s, %d rounds: reloaded Rounds %d, Amortized %v, Observed %v", name, rounds, b.Rounds(), b.Amortized(), b.Observed())
			}
			at := func(e Estimate, sdp float64) (Estimate, error) {
				if q, ok := e.(*Posterior); ok {
					return q.At([]float64{sdp})
				}
				return e.(*LikelihoodPosterior).At([]float64{sdp})
			}
			ea, errA := at(est, other)
			eb, errB := at(got, other)
			if rounds > 1 {
				if !errors.Is(errA, ErrSequential) || !errors.Is(errB, ErrSequential) {
					t.Errorf("%s, %d rounds: At another release: %v before, %v after reload", name, rounds, errA, errB)
				}
				continue
			}
			if errA != nil || errB != nil {
				t.Fatalf("%s: At: %v, %v", name, errA, errB)
			}
			if err := sameDraws(ea, eb); err != nil {
				t.Errorf("%s, reloaded and moved to %v: %v", name, other, err)
			}
		}
	}
}
