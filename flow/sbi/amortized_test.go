package sbi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/privinfer/privinfer/internal/parallel"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestAmortizedWithoutObservation checks that one-round SPPE trains without
// Problem.Observed; that the posterior is then unconditioned (no draws, a
// NaN density, ErrNoObservation from every sampler) until At conditions
// it; and that it is then the posterior a run with the observation trains,
// bit for bit (round 1 does not use the observation).
func TestAmortizedWithoutObservation(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ctx := t.Context()
	p := testProblem()
	p.Names = []string{"mu"}
	cfg := quickConfig()
	with, err := SPPE(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	p.Observed = nil
	res, err := SPPE(ctx, p, cfg)
	if err != nil {
		t.Fatalf("amortized SPPE without an observation: %v", err)
	}
	q := res.Posterior
	if res.Draws != nil || q.Observed() != nil || !math.IsNaN(q.InSupport()) || !math.IsNaN(q.LogDensity([]float64{0})) || !q.Amortized() {
		t.Errorf("unconditioned posterior: draws %v, observed %v, in support %v, log density %v, amortized %v",
			res.Draws, q.Observed(), q.InSupport(), q.LogDensity([]float64{0}), q.Amortized())
	}
	if !slices.Equal(q.Flow().Params(), with.Posterior.Flow().Params()) {
		t.Fatal("the flow trained without the observation differs from the one trained with it")
	}
	if _, err := q.Draws(ctx, 10, 1); !errors.Is(err, ErrNoObservation) || !errors.Is(err, ErrInvalid) {
		t.Errorf("Draws unconditioned: %v, want ErrNoObservation", err)
	}
	if _, _, err := q.DrawsMCMC(ctx, 10, 1); !errors.Is(err, ErrNoObservation) {
		t.Errorf("DrawsMCMC unconditioned: %v, want ErrNoObservation", err)
	}
	if err := q.Sample(parallel.Stream(1, 1), 10, make([]float64, 10)); !errors.Is(err, ErrNoObservation) {
		t.Errorf("Sample unconditioned: %v, want ErrNoObservation", err)
	}
	at, err := q.At([]float64{testObs})
	if err != nil {
		t.Fatal(err)
	}
	a, err := at.Draws(ctx, 300, 5)
	if err != nil {
		t.Fatal(err)
	}
	b, err := with.Posterior.Draws(ctx, 300, 5)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Theta, b.Theta) || !slices.Equal(a.Names, []string{"mu"}) || a.Dim != 1 || a.Len() != 300 || a.Chains != 0 {
		t.Errorf("At(observation).Draws: names %v, dim %d, %d draws, chains %d, equal to the observed run's: %v",
			a.Names, a.Dim, a.Len(), a.Chains, slices.Equal(a.Theta, b.Theta))
	}
	if at.InSupport() != with.Posterior.InSupport() {
		t.Errorf("in-support fraction %v at the observation, %v in the observed run", at.InSupport(), with.Posterior.InSupport())
	}

	// Saved and loaded unconditioned: still unconditioned, same names,
	// the same draws once conditioned.
	file, got := reloaded(t, q)
	lq := got.(*Posterior)
	if lq.Observed() != nil || !slices.Equal(lq.Names(), []string{"mu"}) {
		t.Errorf("reloaded: observed %v, names %v", lq.Observed(), lq.Names())
	}
	if again, _ := reloaded(t, lq); !bytes.Equal(file, again) {
		t.Error("the reloaded posterior saves a different file")
	}
	lat, err := lq.At([]float64{testObs})
	if err != nil {
		t.Fatal(err)
	}
	c, err := lat.Draws(ctx, 300, 5)
	if err != nil || !slices.Equal(c.Theta, a.Theta) || !slices.Equal(c.Names, a.Names) {
		t.Errorf("reloaded, conditioned draws differ (%v)", err)
	}
}

// TestUnobservedRefused checks the clear errors for a nil observation
// where one is needed: sequential SPPE (explicit or default rounds) and
// SPLE.
func TestUnobservedRefused(t *testing.T) {
	p := testProblem()
	p.Observed = nil
	for _, c := range []struct {
		name   string
		rounds int
		sple   bool
		want   string
	}{
		{"SPPE 2 rounds", 2, false, "Config.Rounds = 2"},
		{"SPPE default rounds", 0, false, "Config.Rounds = 4"},
		{"SPLE", 1, true, "SPLE samples its posterior"},
	} {
		cfg := quickConfig()
		cfg.Rounds = c.rounds
		var err error
		if c.sple {
			_, err = SPLE(t.Context(), p, cfg)
		} else {
			_, err = SPPE(t.Context(), p, cfg)
		}
		if !errors.Is(err, ErrInvalid) || err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Problem.Observed") {
			t.Errorf("%s: error %v, want ErrInvalid naming Problem.Observed and %q", c.name, err, c.want)
		}
	}
	// An empty, non-nil observation is a wrong length, not a missing one.
	p.Observed = []float64{}
	if _, err := SPPE(t.Context(), p, quickConfig()); !errors.Is(err, ErrInvalid) {
		t.Errorf("empty observation: %v", err)
	}
}

// TestDrawsMethods checks the Draws methods of both posteriors: names from
// the problem, the seed alone fixing the draws (equal to Sample's from the
// same stream), chain structure for MCMC draws, and bad arguments.
func TestDrawsMethods(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ctx := t.Context()
	p := testProblem()
	p.Names = []string{"mu"}
	cfg := quickConfig()
	sp, err := SPPE(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	q := sp.Posterior
	d1, err := q.Draws(ctx, 256, 3)
	if err != nil {
		t.Fatal(err)
	}
	d2, _ := q.Draws(ctx, 256, 3)
	d3, _ := q.Draws(ctx, 256, 4)
	x := make([]float64, 256)
	if err := q.Sample(parallel.Stream(3, tagDraws), 256, x); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d1.Theta, d2.Theta) || slices.Equal(d1.Theta, d3.Theta) || !slices.Equal(d1.Theta, x) {
		t.Error("Posterior.Draws: not fixed by the seed, or not Sample's draws")
	}
	if d1.Validate() != nil || !slices.Equal(d1.Names, []string{"mu"}) || d1.Chains != 0 {
		t.Errorf("Posterior.Draws: %v, names %v, chains %d", d1.Validate(), d1.Names, d1.Chains)
	}
	if !slices.Equal(sp.Draws.Names, []string{"mu"}) {
		t.Errorf("Result.Draws names %v", sp.Draws.Names)
	}
	n := 10 * cfg.Chains
	if n == 0 {
		n = 10 * q.chains
	}
	md, diag, err := q.DrawsMCMC(ctx, n, 9)
	if err != nil {
		t.Fatal(err)
	}
	if md.Chains != q.chains || md.Len() != n || len(diag.RHat) != 1 || !slices.Equal(md.Names, []string{"mu"}) {
		t.Errorf("DrawsMCMC: %d chains (want %d), %d draws, R̂ %v, names %v", md.Chains, q.chains, md.Len(), diag.RHat, md.Names)
	}

	sl, err := SPLE(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lq := sl.Posterior
	chains := lq.cfg.Chains
	l1, err := lq.Draws(ctx, 20*chains, 3)
	if err != nil {
		t.Fatal(err)
	}
	l2, _ := lq.Draws(ctx, 20*chains, 3)
	y := make([]float64, 20*chains)
	if err := lq.Sample(fixedUint64(3), 20*chains, y); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l1.Theta, l2.Theta) || !slices.Equal(l1.Theta, y) || l1.Chains != chains || !slices.Equal(l1.Names, []string{"mu"}) {
		t.Errorf("LikelihoodPosterior.Draws: repeatable %v, Sample's %v, chains %d (want %d), names %v",
			slices.Equal(l1.Theta, l2.Theta), slices.Equal(l1.Theta, y), l1.Chains, chains, l1.Names)
	}
	if odd, err := lq.Draws(ctx, 20*chains+1, 3); err != nil || odd.Chains != 0 || odd.Validate() != nil {
		t.Errorf("Draws of a number of draws not a multiple of the chains: chains %d, %v", odd.Chains, err)
	}
	_, got := reloaded(t, lq)
	if names := got.(*LikelihoodPosterior).Names(); !slices.Equal(names, []string{"mu"}) {
		t.Errorf("reloaded SPLE posterior names %v", names)
	}

	for _, bad := range []int{0, -1, maxSims + 1} {
		if _, err := q.Draws(ctx, bad, 1); !errors.Is(err, ErrInvalid) {
			t.Errorf("Posterior.Draws(n = %d): %v", bad, err)
		}
		if _, err := lq.Draws(ctx, bad, 1); !errors.Is(err, ErrInvalid) {
			t.Errorf("LikelihoodPosterior.Draws(n = %d): %v", bad, err)
		}
	}
	var zero Posterior
	if _, err := zero.Draws(ctx, 1, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero Posterior Draws: %v", err)
	}
	var zl LikelihoodPosterior
	if _, err := zl.Draws(ctx, 1, 1); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero LikelihoodPosterior Draws: %v", err)
	}
}

// constSource is a random source that always returns v.
type constSource struct{ v uint64 }

func (c constSource) Uint64() uint64 { return c.v }

// fixedUint64 returns a generator whose first Uint64 is v (Sample seeds its
// chains from one draw of its generator).
func fixedUint64(v uint64) *rand.Rand { return rand.New(constSource{v}) }

// TestLegacyFilesLoad checks that files of versions 1 and 2 (written by
// the format before names were saved) still load, with no names, and
// sample as the posterior they were written from.
func TestLegacyFilesLoad(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	p := testProblem()
	p.Names = []string{"mu"}
	for _, shift := range []bool{false, true} {
		cfg := quickConfig()
		cfg.RegressionShift = shiftMode(shift)
		res, err := SPPE(t.Context(), p, cfg)
		if err != nil {
			t.Fatal(err)
		}
		q := res.Posterior
		var v3 bytes.Buffer
		if err := q.Save(&v3); err != nil {
			t.Fatal(err)
		}
		old := legacyFile(t, q)
		wantVersion := postVersion
		if shift {
			wantVersion = shiftVersion
		}
		if v := int(old[len(postMagic)]); v != wantVersion {
			t.Fatalf("legacy file of version %d, want %d", v, wantVersion)
		}
		got, err := LoadPosterior(bytes.NewReader(old), p.Prior)
		if err != nil {
			t.Fatalf("version %d file: %v", wantVersion, err)
		}
		if got.Names() != nil {
			t.Errorf("version %d file loaded with names %v, want none", wantVersion, got.Names())
		}
		if err := sameDraws(q, got); err != nil {
			t.Errorf("version %d file: %v", wantVersion, err)
		}
		d, err := got.Draws(t.Context(), 10, 1)
		if err != nil || d.Names != nil || d.ParamNames()[0] != "θ[0]" {
			t.Errorf("version %d file: draws names %v, %v", wantVersion, d.Names, err)
		}
		if bytes.Equal(old, v3.Bytes()) {
			t.Error("the legacy and current files are the same")
		}
		named, err := LoadPosterior(bytes.NewReader(v3.Bytes()), p.Prior)
		if err != nil || !slices.Equal(named.Names(), []string{"mu"}) {
			t.Errorf("version 3 file: names %v, %v", named.Names(), err)
		}
	}
}

// legacyFile writes q in the format of versions 1 (no shift) and 2 (a
// shift), as files were written before version 3.
func legacyFile(t *testing.T, q *Posterior) []byte {
	t.Helper()
	pts, lp, err := probePoints(q.prior, q.seed, func(r *rand.Rand, n int, dst []float64) error {
		return q.flowSample(r, q.obs, n, dst)
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	put := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString(postMagic)
	if q.shift != nil {
		put(uint32(shiftVersion))
	} else {
		put(uint32(postVersion))
	}
	put(uint8(kindPost))
	put(uint32(q.rounds))
	put(q.seed)
	put(uint32(q.f.Dim()))
	put(uint32(len(q.obs)))
	put(q.obs)
	put([]float64{q.inSupport, q.minIn})
	fb := uint8(0)
	if q.fallback {
		fb = 1
	}
	put(fb)
	put([]uint32{uint32(q.chains), uint32(q.warmup), uint32(q.thin)})
	if q.shift != nil {
		put(q.shift.a)
		put(q.shift.b)
	}
	put(uint32(len(lp)))
	put(pts)
	put(lp)
	put(uint32(0))
	var fl bytes.Buffer
	if err := q.f.Save(&fl); err != nil {
		t.Fatal(err)
	}
	put(uint64(fl.Len()))
	b.Write(fl.Bytes())
	put(crc32.ChecksumIEEE(b.Bytes()))
	return b.Bytes()
}
