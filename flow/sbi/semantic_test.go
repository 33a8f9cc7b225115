package sbi

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"slices"
	"testing"
	"time"
)

// savedFiles returns the files of a trained SPPE posterior (with the
// regression shift) and SPLE posterior of the test problem.
func savedFiles(t testing.TB) (post, lik []byte) {
	t.Helper()
	ctx := context.Background()
	p := testProblem()
	cfg := quickConfig()
	pres, err := SPPE(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	lres, err := SPLE(ctx, p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := pres.Posterior.Save(&a); err != nil {
		t.Fatal(err)
	}
	if err := lres.Posterior.Save(&b); err != nil {
		t.Fatal(err)
	}
	return a.Bytes(), b.Bytes()
}

// TestLoadSemantic tampers with one field of a saved posterior at a time,
// writing the file again with a valid checksum: every tampered file is
// refused with an error wrapping ErrInvalid (ErrCorrupt, or
// ErrIncompatiblePrior for the probes), and the untouched file loads.
func TestLoadSemantic(t *testing.T) {
	post, lik := savedFiles(t)
	prior := testProblem().Prior
	load := func(kind uint8, b []byte) error {
		var err error
		if kind == kindPost {
			_, err = LoadPosterior(bytes.NewReader(b), prior)
		} else {
			_, err = LoadLikelihoodPosterior(bytes.NewReader(b), prior)
		}
		return err
	}
	for kind, file := range map[uint8][]byte{kindPost: post, kindLik: lik} {
		if err := load(kind, file); err != nil {
			t.Fatalf("kind %d: untouched file: %v", kind, err)
		}
	}
	cases := []struct {
		name   string
		kind   uint8
		tamper func(s *saved)
	}{
		{"in-support fraction 0", kindPost, func(s *saved) { s.inSupport = 0 }},
		{"in-support fraction 0.5", kindPost, func(s *saved) { s.inSupport = 0.5 }},
		{"in-support fraction 1.5", kindPost, func(s *saved) { s.inSupport = 1.5 }},
		{"minimum in-support NaN", kindPost, func(s *saved) { s.minIn = math.NaN() }},
		{"minimum in-support −0.1", kindPost, func(s *saved) { s.minIn = -0.1 }},
		{"rounds 0", kindPost, func(s *saved) { s.rounds = 0 }},
		{"rounds too many", kindPost, func(s *saved) { s.rounds = maxRounds + 1 }},
		{"chains 0", kindPost, func(s *saved) { s.chains = 0 }},
		{"chains too many", kindPost, func(s *saved) { s.chains = maxChains + 1 }},
		{"warm-up too long", kindPost, func(s *saved) { s.warmup = maxWarmup + 1 }},
		{"thinning 0", kindPost, func(s *saved) { s.thin = 0 }},
		{"observation NaN", kindPost, func(s *saved) { s.obs = []float64{math.NaN()} }},
		{"observation +Inf", kindPost, func(s *saved) { s.obs = []float64{math.Inf(1)} }},
		{"observation too long", kindPost, func(s *saved) { s.obs = []float64{1, 2} }},
		{"θ dimension 2", kindPost, func(s *saved) { s.dim = 2 }},
		{"θ dimension 0", kindPost, func(s *saved) { s.dim = 0 }},
		{"shift intercept NaN", kindPost, func(s *saved) { s.shift.a = []float64{math.NaN()} }},
		{"shift slope Inf", kindPost, func(s *saved) { s.shift.b = []float64{math.Inf(-1)} }},
		{"probe count 15", kindPost, func(s *saved) { s.probes, s.probeLP = s.probes[1:], s.probeLP[1:] }},
		{"probe NaN", kindPost, func(s *saved) { s.probes[3] = math.NaN() }},
		{"probe moved", kindPost, func(s *saved) { s.probes[3] += 0.5 }},
		{"probe log density changed", kindPost, func(s *saved) { s.probeLP[12] -= 1e-3 }},
		{"prior probe log density −Inf", kindPost, func(s *saved) { s.probeLP[0] = math.Inf(-1) }},
		{"probe log density +Inf", kindPost, func(s *saved) { s.probeLP[0] = math.Inf(1) }},
		{"chain starts in SPPE", kindPost, func(s *saved) { s.cand = []float64{0.1} }},
		{"kind changed", kindPost, func(s *saved) { s.kind = kindLik }},
		{"SPLE in-support fraction 0.5", kindLik, func(s *saved) { s.inSupport = 0.5 }},
		{"SPLE minimum in-support 0.1", kindLik, func(s *saved) { s.minIn = 0.1 }},
		{"SPLE fallback set", kindLik, func(s *saved) { s.fallback = true }},
		{"SPLE seed set", kindLik, func(s *saved) { s.seed = 7 }},
		{"SPLE regression shift", kindLik, func(s *saved) { s.shift = &linShift{a: []float64{0}, b: []float64{0}} }},
		{"SPLE no chain starts", kindLik, func(s *saved) { s.cand = nil }},
		{"SPLE chain start NaN", kindLik, func(s *saved) { s.cand[0] = math.NaN() }},
		{"SPLE chain start outside the support", kindLik, func(s *saved) { s.cand[0] = 1e300 }},
		{"SPLE thinning too large", kindLik, func(s *saved) { s.thin = maxThin + 1 }},
		{"SPLE observation NaN", kindLik, func(s *saved) { s.obs[0] = math.NaN() }},
	}
	for _, c := range cases {
		file := post
		if c.kind == kindLik {
			file = lik
		}
		s, err := read(bytes.NewReader(file), prior, c.kind)
		if err != nil {
			t.Fatal(err)
		}
		s.obs, s.probes, s.probeLP, s.cand = slices.Clone(s.obs), slices.Clone(s.probes), slices.Clone(s.probeLP), slices.Clone(s.cand)
		if s.shift != nil {
			s.shift = &linShift{a: slices.Clone(s.shift.a), b: slices.Clone(s.shift.b)}
		}
		c.tamper(s)
		var b bytes.Buffer
		if err := s.write(&b); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := load(c.kind, b.Bytes()); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want an error wrapping ErrInvalid", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	// The leakage fallback byte must be 0 or 1.
	for kind, file := range map[uint8][]byte{kindPost: post, kindLik: lik} {
		at := len(postMagic) + 4 + 1 + 4 + 8 + 4
		nobs := int(binary.LittleEndian.Uint32(file[at:]))
		at += 4 + 8*nobs + 16
		bad := slices.Clone(file)
		bad[at] = 2
		binary.LittleEndian.PutUint32(bad[len(bad)-4:], crc32.ChecksumIEEE(bad[:len(bad)-4]))
		if err := load(kind, bad); !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrInvalid) {
			t.Errorf("kind %d: fallback byte 2: err = %v, want ErrCorrupt wrapping ErrInvalid", kind, err)
		}
	}
}

// TestCheckpointSemantic tampers with one field of a checkpoint saved after
// round 1 of 2 at a time, writing it again with a valid checksum and the
// run's fingerprint: the run refuses every tampered file with an error
// wrapping ErrCorrupt and ErrInvalid, and continues from the untouched
// one.
func TestCheckpointSemantic(t *testing.T) {
	p := testProblem()
	cfg := quickConfig()
	cfg.Rounds = 2
	path := stoppedCheckpoint(t, p, cfg)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fp [32]byte
	copy(fp[:], orig[len(ckptMagic)+4:])
	cfg.Checkpoint = path
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name   string
		tamper func(st *ckptState)
	}{
		{"round 0", func(st *ckptState) { st.Round = 0 }},
		{"round 2 of 2", func(st *ckptState) { st.Round = 2 }},
		{"θ NaN", func(st *ckptState) { st.Theta[0] = nan }},
		{"θ moved (log prior disagrees)", func(st *ckptState) { st.Theta[0] += 0.25 }},
		{"summary Inf", func(st *ckptState) { st.Stat[0] = inf }},
		{"summary missing", func(st *ckptState) { st.Stat = st.Stat[1:] }},
		{"log prior changed", func(st *ckptState) { st.LogPrior[0] -= 1e-6 }},
		{"log prior −Inf", func(st *ckptState) { st.LogPrior[0] = math.Inf(-1) }},
		{"split repeats a simulation", func(st *ckptState) { st.Train[0] = st.Train[1] }},
		{"split out of range", func(st *ckptState) { st.Val[0] = len(st.LogPrior) }},
		{"split short", func(st *ckptState) { st.Train = st.Train[1:] }},
		{"flow empty", func(st *ckptState) { st.Flow = nil }},
		{"flow bit flipped", func(st *ckptState) { st.Flow[len(st.Flow)/2] ^= 1 }},
		{"regression shift dropped", func(st *ckptState) { st.HasShift = false }},
		{"regression shift NaN", func(st *ckptState) { st.ShiftA[0] = nan }},
		{"regression shift short", func(st *ckptState) { st.ShiftB = nil }},
		{"next θ NaN", func(st *ckptState) { st.Next[0] = nan }},
		{"next θ outside the support", func(st *ckptState) { st.Next[0] = 1e300 }},
		{"next θ short", func(st *ckptState) { st.Next = st.Next[1:] }},
		{"history params short", func(st *ckptState) { st.History[0].Params = st.History[0].Params[1:] }},
		{"history params Inf", func(st *ckptState) { st.History[0].Params[0] = inf }},
		{"history chains negative", func(st *ckptState) { st.History[0].Chains = -1 }},
		{"history missing", func(st *ckptState) { st.History = nil }},
		{"record round number", func(st *ckptState) { st.Rounds[0].Round = 2 }},
		{"record simulations", func(st *ckptState) { st.Rounds[0].Simulations++ }},
		{"record no epochs", func(st *ckptState) { st.Rounds[0].Epochs = 0 }},
		{"record best epoch past the last", func(st *ckptState) { st.Rounds[0].BestEpoch = st.Rounds[0].Epochs + 1 }},
		{"record losses missing", func(st *ckptState) { st.Rounds[0].TrainLoss = nil }},
		{"record validation losses missing", func(st *ckptState) { st.Rounds[0].ValidationLoss = nil }},
		{"record candidates without candidates", func(st *ckptState) { st.Rounds[0].Candidates = []float64{1, 2} }},
		{"record selected", func(st *ckptState) { st.Rounds[0].Selected = 1 }},
		{"record negative simulation time", func(st *ckptState) { st.Rounds[0].SimTime = -1 }},
		{"record negative training time", func(st *ckptState) { st.Rounds[0].TrainTime = -1 }},
		{"record negative proposal time", func(st *ckptState) { st.Rounds[0].ProposalTime = -1 }},
		{"record in-support fraction 2", func(st *ckptState) { st.Rounds[0].InSupport = 2 }},
		{"record R̂ of another dimension", func(st *ckptState) { st.Rounds[0].RHat = []float64{1, 1} }},
		{"record R̂ negative", func(st *ckptState) { st.Rounds[0].RHat = []float64{-1} }},
		{"record acceptance 1.5", func(st *ckptState) { st.Rounds[0].AcceptRate = 1.5 }},
		{"record ESS negative", func(st *ckptState) { st.Rounds[0].ESS = -1 }},
		{"record thinning negative", func(st *ckptState) { st.Rounds[0].Thin = -1 }},
		{"record chain groups negative", func(st *ckptState) { st.Rounds[0].ChainGroups = -1 }},
		{"elapsed negative", func(st *ckptState) { st.Elapsed = -time.Second }},
	}
	for _, c := range cases {
		st, err := decodeCheckpoint("ckpt", orig, fp)
		if err != nil {
			t.Fatal(err)
		}
		c.tamper(st)
		var g bytes.Buffer
		if err := gob.NewEncoder(&g).Encode(st); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, wrapState(fp, g.Bytes()), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = SPPE(context.Background(), p, cfg)
		if !errors.Is(err, ErrCorrupt) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrCorrupt wrapping ErrInvalid", c.name, err)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := SPPE(context.Background(), p, cfg); err != nil {
		t.Errorf("untouched checkpoint: %v", err)
	}
}

// FuzzLoadPosterior feeds arbitrary bytes (with the checksum fixed when
// fix is set) to LoadPosterior and LoadLikelihoodPosterior: each must
// refuse them with an error wrapping ErrInvalid, or return a posterior
// whose log density is never NaN or +Inf and whose in-support fraction
// lies in [0, 1] (or, for an amortized posterior saved without an
// observation, both NaN and sampling refused); neither may panic. The seed corpus holds both kinds of
// file and, in testdata/fuzz, files with one field tampered with.
func FuzzLoadPosterior(f *testing.F) {
	post, lik := savedFiles(f)
	f.Add(post, false)
	f.Add(lik, false)
	f.Add(post[:len(post)/2], true)
	f.Add([]byte(postMagic), false)
	unobserved := testProblem()
	unobserved.Observed = nil
	ures, err := SPPE(context.Background(), unobserved, quickConfig())
	if err != nil {
		f.Fatal(err)
	}
	var u bytes.Buffer
	if err := ures.Posterior.Save(&u); err != nil {
		f.Fatal(err)
	}
	f.Add(u.Bytes(), false)
	prior := testProblem().Prior
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix && len(data) >= 4 {
			data = slices.Clone(data)
			binary.LittleEndian.PutUint32(data[len(data)-4:], crc32.ChecksumIEEE(data[:len(data)-4]))
		}
		q, err := LoadPosterior(bytes.NewReader(data), prior)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("LoadPosterior: %v does not wrap ErrInvalid", err)
			}
		} else if q.Observed() == nil {
			// An amortized posterior saved without an observation: NaN
			// until conditioned, and refusing to sample.
			if !math.IsNaN(q.InSupport()) || !math.IsNaN(q.LogDensity([]float64{0})) || !q.Amortized() {
				t.Fatalf("unconditioned posterior: in support %v, log density %v, amortized %v", q.InSupport(), q.LogDensity([]float64{0}), q.Amortized())
			}
			if _, err := q.Draws(context.Background(), 1, 1); !errors.Is(err, ErrNoObservation) {
				t.Fatalf("unconditioned posterior Draws: %v", err)
			}
		} else {
			if s := q.InSupport(); !(s >= 0 && s <= 1) {
				t.Fatalf("in-support fraction %v", s)
			}
			for _, th := range []float64{-2, 0, 0.7} {
				if lp := q.LogDensity([]float64{th}); math.IsNaN(lp) || math.IsInf(lp, 1) {
					t.Fatalf("LogDensity(%v) = %v", th, lp)
				}
			}
		}
		l, err := LoadLikelihoodPosterior(bytes.NewReader(data), prior)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("LoadLikelihoodPosterior: %v does not wrap ErrInvalid", err)
			}
			return
		}
		for _, th := range []float64{-2, 0, 0.7} {
			if lp := l.LogDensity([]float64{th}); math.IsNaN(lp) || math.IsInf(lp, 1) {
				t.Fatalf("likelihood posterior LogDensity(%v) = %v", th, lp)
			}
		}
	})
}
