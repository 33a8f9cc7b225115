package ldp

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mcmc"
)

// drawsFingerprint is the SHA-256 of the names, chain count and the bits
// of every value of d, in order.
func drawsFingerprint(d *privinfer.Draws) string {
	h := sha256.New()
	for _, n := range d.Names {
		h.Write([]byte(n))
		h.Write([]byte{0})
	}
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(d.Chains))
	h.Write(b[:])
	for _, v := range d.Theta {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// foldPosteriors are the posteriors of TestSampleDefaultsFingerprint: a
// gradient target (NUTS by default) and one without a gradient (slice
// sampling by default).
func foldPosteriors(t *testing.T) (grad, plain Posterior) {
	t.Helper()
	m, err := NewClippedGaussian(ClippedGaussianConfig{A: -5, B: 5, Epsilon: 2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGaussianPosterior(m, gaussianReports(t, m, 60, 1, 1.5, 21), GaussianPrior{Mu0: 0, Sd0: 2, Shape: 2, Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	z := make([]float64, SuffStatDim(2))
	for i := range z {
		z[i] = 0.1 * float64(i+1)
	}
	model, err := NewSuffStatLinReg(SuffStatLinRegConfig{Z: z, Dim: 2, N: 40, Sigma1: 1, Sigma2: 1, Sigma3: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSuffStatPosterior(model, SuffStatPosteriorConfig{SigmaX: []float64{1, 0, 0, 1}, SDTheta: 1, Shape: 2, Rate: 1})
	if err != nil {
		t.Fatal(err)
	}
	return g, s
}

// TestSampleDefaultsFingerprint: Sample's draws with default and with
// explicit settings are bit for bit those of the Sample that took its
// own ldp.Config (Chains, Warmup, Draws, Thin, Seed, Method, InitFunc,
// Progress) before it took an mcmc.Method and an mcmc.Config: the
// fingerprints were computed with that Sample, at the same settings, on
// amd64 (where the compiler fuses no floating-point operations; other
// architectures may round differently, and TestSampleIsRunWithDefaults
// checks the mapping there).
func TestSampleDefaultsFingerprint(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the fingerprints are of amd64 arithmetic")
	}
	testutil.SkipHeavyUnderRace(t)
	grad, plain := foldPosteriors(t)
	for _, c := range []struct {
		name string
		p    Posterior
		m    mcmc.Method
		cfg  mcmc.Config
		want string
	}{
		{"gradient, defaults", grad, nil, mcmc.Config{Chains: 2, Draws: 50, Seed: 17}, "ef23c1591254f2a0d576ccb8014e3ee80b23f16718466654f8632e843c82a665"},
		{"no gradient, defaults", plain, nil, mcmc.Config{Chains: 2, Draws: 50, Seed: 17}, "11e3e272598dd4eb78c8bcb1a1f3c90beca01e632cbd6b7e981fef08b726c9ac"},
		{"explicit", grad, mcmc.Slice{}, mcmc.Config{Chains: 3, Warmup: 20, Draws: 30, Thin: 2, Seed: 4}, "bcc59f1eec2f084a2f19bd2dcb6fdd7f5bb6ecdb671c27d649c51decff3c9e58"},
	} {
		d, err := Sample(t.Context(), c.p, c.m, c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := drawsFingerprint(d); got != c.want {
			t.Errorf("%s: draws fingerprint %s, want %s", c.name, got, c.want)
		}
	}
}

// TestSampleIsRunWithDefaults: Sample with zero Warmup, Init and InitFunc
// and a nil method gives the bits of mcmc.Run with those defaults written
// out (NUTS, 1000 warm-up iterations, starts 0.1·N(0, 1)), mapped to the
// natural parameters; non-nil Names rename the natural parameters.
func TestSampleIsRunWithDefaults(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	grad, _ := foldPosteriors(t)
	cfg := mcmc.Config{Chains: 2, Draws: 40, Seed: 9}
	got, err := Sample(t.Context(), grad, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	full := cfg
	full.Warmup = 1000
	full.InitFunc = func(_ int, r *rand.Rand, x []float64) error {
		for j := range x {
			x[j] = 0.1 * r.NormFloat64()
		}
		return nil
	}
	res, err := mcmc.Run(t.Context(), grad, mcmc.NUTS{}, full)
	if err != nil {
		t.Fatal(err)
	}
	want, err := res.Draws.Map(grad.ParamNames(), grad.Natural)
	if err != nil {
		t.Fatal(err)
	}
	if drawsFingerprint(got) != drawsFingerprint(want) {
		t.Error("Sample's draws differ from mcmc.Run's with the defaults written out")
	}
	cfg.Names = []string{"m", "s"}
	named, err := Sample(t.Context(), grad, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(named.Names, cfg.Names) || !slices.Equal(named.Theta, got.Theta) {
		t.Errorf("Names %v: got names %v and other draws", cfg.Names, named.Names)
	}
}
