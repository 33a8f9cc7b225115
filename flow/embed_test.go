package flow

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/ad"
	"github.com/privinfer/privinfer/internal/testutil"
)

// TestLogDensityGradContext checks the context gradient of LogDensityGradContext
// (through the standardisation, the conditioners and the gates, and the
// embedding network when there is one) against five-point central
// differences in every context coordinate, with the same kink handling
// and tolerance as TestLogDensityGradient: relative error below 10⁻⁶ with
// floor 10⁻⁴, a stencil that straddles a kink recomputed at steps 10⁻⁵
// and 2·10⁻⁵, skips (finite differences that disagree among themselves)
// below 3%. The parameter gradient must equal LogDensityGrad's.
func TestLogDensityGradContext(t *testing.T) {
	for ci, tc := range gradCases {
		cfg := tc.cfg()
		C := cfg.ContextDim
		if C == 0 {
			continue
		}
		f := randomFlow(t, cfg, uint64(ci+1), 0.3)
		r := rand.New(rand.NewPCG(uint64(ci), 8))
		n := 5
		y := randData(r, n, cfg.Dim, 1.5)
		z := randData(r, n, C, 1)
		wts := randData(r, n, 1, 1)
		logq := make([]float64, n)
		loss := func() float64 {
			if err := f.LogDensityBatch(y, z, n, logq); err != nil {
				t.Fatal(err)
			}
			s := 0.0
			for i := range logq {
				s += wts[i] * logq[i]
			}
			return s
		}
		grad, want := make([]float64, f.NumParams()), make([]float64, f.NumParams())
		dz := make([]float64, n*C)
		if err := f.LogDensityGradContext(y, z, n, wts, grad, dz, nil); err != nil {
			t.Fatal(err)
		}
		if err := f.LogDensityGrad(y, z, n, wts, want, nil); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if grad[i] != want[i] {
				t.Fatalf("%s: parameter gradient %d: %v with the context gradient, %v without", tc.name, i, grad[i], want[i])
			}
		}
		// Without a parameter gradient buffer the context gradient is the same.
		dz2 := make([]float64, n*C)
		if err := f.LogDensityGradContext(y, z, n, wts, nil, dz2, nil); err != nil {
			t.Fatal(err)
		}
		for i := range dz {
			if dz2[i] != dz[i] {
				t.Fatalf("%s: context gradient %d: %v with grad nil, %v with grad", tc.name, i, dz2[i], dz[i])
			}
		}
		rel := func(a, b float64) float64 {
			return math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-4)
		}
		worst, skipped := 0.0, 0
		for i := range z {
			e := rel(testutil.FD5(loss, z, i, 1e-4), dz[i])
			if e > 1e-6 {
				n1, n2 := testutil.FD5(loss, z, i, 1e-5), testutil.FD5(loss, z, i, 2e-5)
				if rel(n1, n2) >= 1e-6 {
					skipped++
					continue
				}
				e = math.Max(rel(n1, dz[i]), rel(n2, dz[i]))
			}
			worst = math.Max(worst, e)
		}
		t.Logf("%s: worst relative error of the context gradient %.2g, %d of %d skipped", tc.name, worst, skipped, len(z))
		if worst > 1e-6 {
			t.Errorf("%s: worst relative context gradient error %.3g", tc.name, worst)
		}
		if skipped > len(z)*3/100 {
			t.Errorf("%s: %d context coordinates skipped as non-differentiable", tc.name, skipped)
		}
	}
}

// embeddingConfig is a small flow whose 12-dimensional context passes
// through a CNN embedding.
func embeddingConfig() Config {
	c := smallConfig(2, 12)
	e := ad.Net{In: 12, Conv: []ad.ConvLayer{{Filters: 3, Kernel: 3, Stride: 2, Pad: 1, Pool: 2}}, Hidden: []int{5}, Out: 3}
	c.Embedding = &e
	return c
}

// TestEmbeddingTrainer checks that the trainer's sharded gradient of a
// flow with an embedding equals LogDensityGrad's, and that a loss over groups
// of rows sharing one context (the embedding evaluated once per group)
// gives the gradient of the same loss on the expanded contexts.
func TestEmbeddingTrainer(t *testing.T) {
	cfg := embeddingConfig()
	r := rand.New(rand.NewPCG(9, 9))
	const G, na = 13, 3
	n := G * na
	y := randData(r, n, 2, 1)
	zg := randData(r, G, 12, 1)
	z := make([]float64, n*12)
	for i := 0; i < n; i++ {
		copy(z[i*12:(i+1)*12], zg[(i/na)*12:])
	}
	f := randomFlow(t, cfg, 5, 0.2)
	tc := DefaultTrainConfig()
	tc.ClipNorm, tc.BatchSize = 0, n
	want := make([]float64, f.NumParams())
	dl := make([]float64, n)
	for i := range dl {
		dl[i] = -1 / float64(n)
	}
	if err := f.LogDensityGrad(y, z, n, dl, want, nil); err != nil {
		t.Fatal(err)
	}
	nll := func(lo int, logq, dlogq []float64) float64 {
		s := 0.0
		for i, v := range logq {
			s -= v
			dlogq[i] = -1 / float64(n)
		}
		return s / float64(n)
	}
	for _, shared := range []bool{false, true} {
		g := f.Clone()
		tr, err := newTrainer(g, tc)
		if err != nil {
			t.Fatal(err)
		}
		if shared {
			_, err = tr.StepGroupLoss(y, zg, n, na, nll)
		} else {
			_, err = tr.Step(y, z, n)
		}
		tr.Close()
		if err != nil {
			t.Fatal(err)
		}
		got := tr.Gradient()
		worst := 0.0
		for i := range want {
			worst = math.Max(worst, math.Abs(got[i]-want[i])/math.Max(1, math.Abs(want[i])))
		}
		if worst > 1e-12 {
			t.Errorf("shared %v: trainer gradient differs from LogDensityGrad by %.3g", shared, worst)
		}
		emb := got[f.embOff:]
		if nz := slicesMaxAbs(emb); nz == 0 {
			t.Errorf("shared %v: the embedding's parameters receive no gradient", shared)
		}
	}
}

func slicesMaxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// TestEmbeddingSaveLoad checks that a flow with an embedding reloads with
// the same configuration, the same densities and the same samples, that a
// flow without one is still written as version 1, and that the
// configuration a flow returns is a copy.
func TestEmbeddingSaveLoad(t *testing.T) {
	f := randomFlow(t, embeddingConfig(), 6, 0.2)
	f.standardized = true
	var buf bytes.Buffer
	if err := f.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if v := buf.Bytes()[8]; v != 2 {
		t.Errorf("a flow with an embedding is saved as version %d, want 2", v)
	}
	g, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	ge, fe := g.Config().Embedding, f.Config().Embedding
	if ge == nil || ge.In != fe.In || ge.Out != fe.Out || len(ge.Conv) != 1 || ge.Conv[0] != fe.Conv[0] || len(ge.Hidden) != 1 || ge.Hidden[0] != fe.Hidden[0] {
		t.Fatalf("reloaded embedding %+v, saved %+v", ge, fe)
	}
	r := rand.New(rand.NewPCG(1, 1))
	y, z := randData(r, 20, 2, 1), randData(r, 20, 12, 1)
	a, b := make([]float64, 20), make([]float64, 20)
	if err := f.LogDensityBatch(y, z, 20, a); err != nil {
		t.Fatal(err)
	}
	if err := g.LogDensityBatch(y, z, 20, b); err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("log q %d: %v before saving, %v after loading", i, a[i], b[i])
		}
	}
	s1, s2 := make([]float64, 40), make([]float64, 40)
	_ = f.Sample(rand.New(rand.NewPCG(3, 3)), z[:12], 20, s1)
	_ = g.Sample(rand.New(rand.NewPCG(3, 3)), z[:12], 20, s2)
	for i := range s1 {
		if s1[i] != s2[i] {
			t.Fatalf("sample %d: %v before saving, %v after loading", i, s1[i], s2[i])
		}
	}
	// Corrupt the embedding record: the checksum catches it; with a valid
	// checksum the record's layout and the network are validated, and any
	// value of any of its fields gives an error or a valid flow, never a
	// panic.
	saved := buf.Bytes()
	data := append([]byte(nil), saved...)
	hdr := 8 + 4 + 6*4 + 1 + 4*8
	data[hdr+4] ^= 0xff // In
	if _, err := Load(bytes.NewReader(data)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupted embedding: %v", err)
	}
	le := binary.LittleEndian
	k := int(le.Uint32(saved[hdr:]))
	for field := -1; field < k; field++ {
		for _, v := range []int32{-1, 0, 1, 2, 12, 1 << 20, math.MaxInt32} {
			data := append([]byte(nil), saved...)
			le.PutUint32(data[hdr+4+4*field:], uint32(v))
			le.PutUint32(data[len(data)-4:], crc32.ChecksumIEEE(data[:len(data)-4]))
			g, err := Load(bytes.NewReader(data))
			if err == nil {
				if g.Config().Validate() != nil {
					t.Errorf("field %d = %d: Load returned an invalid flow", field, v)
				}
			} else if !errors.Is(err, ErrCorrupt) {
				t.Errorf("field %d = %d: error %v does not wrap ErrCorrupt", field, v, err)
			}
		}
	}
	// The returned configuration is a copy.
	c := f.Config()
	c.Embedding.Hidden[0] = 99
	if f.Config().Embedding.Hidden[0] == 99 {
		t.Error("modifying Config().Embedding changed the flow")
	}
	// Without an embedding: version 1.
	buf.Reset()
	if err := randomFlow(t, smallConfig(2, 3), 6, 0.2).Save(&buf); err != nil {
		t.Fatal(err)
	}
	if v := buf.Bytes()[8]; v != 1 {
		t.Errorf("a flow without an embedding is saved as version %d, want 1", v)
	}
}

func TestEmbeddingConfigErrors(t *testing.T) {
	mlp := func(in int) *ad.Net { e := ad.Net{In: in, Out: 2}; return &e }
	for _, c := range []Config{
		func() Config { c := smallConfig(2, 3); c.Embedding = mlp(4); return c }(),
		func() Config { c := smallConfig(2, 0); c.Embedding = mlp(1); return c }(),
		func() Config { c := smallConfig(2, 3); c.Embedding = &ad.Net{In: 3}; return c }(),
	} {
		if err := c.Validate(); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: Validate returned %v, want ErrInvalid", c.Embedding, err)
		}
		if _, err := New(c, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrInvalid) {
			t.Errorf("%+v: New returned %v, want ErrInvalid", c.Embedding, err)
		}
	}
}

func TestEmbeddingNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
	f := randomFlow(t, embeddingConfig(), 7, 0.2)
	r := rand.New(rand.NewPCG(2, 2))
	n := 64
	y, z := randData(r, n, 2, 1), randData(r, n, 12, 1)
	dst := make([]float64, n)
	_ = f.LogDensityBatch(y, z, n, dst)
	if a := testing.AllocsPerRun(5, func() { _ = f.LogDensityBatch(y, z, n, dst) }); a != 0 {
		t.Errorf("LogDensityBatch allocates %v times", a)
	}
	tc := DefaultTrainConfig()
	tc.BatchSize, tc.Workers = n, 1
	tr, err := newTrainer(f, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for i := 0; i < 2; i++ {
		if _, err := tr.Step(y, z, n); err != nil {
			t.Fatal(err)
		}
	}
	if a := testing.AllocsPerRun(5, func() { _, _ = tr.Step(y, z, n) }); a != 0 {
		t.Errorf("a training step allocates %v times", a)
	}
}

// TestFitEmbedding fits y = (z_1 + … + z_16)/4 + 0.1·ε, z ~ N(0, I₁₆),
// through an MLP embedding of z to two features. A flow that ignores the
// context has negative log-likelihood ½log(2πe·1.01) ≈ 1.42 nats; the
// true conditional ½log(2πe·0.01) ≈ −0.88. The fitted flow must reach
// below −0.5 on fresh data.
func TestFitEmbedding(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	cfg := DefaultConfig(1, 16)
	cfg.Layers, cfg.Hidden, cfg.Blocks = 2, 16, 1
	e := ad.Net{In: 16, Hidden: []int{16}, Out: 2}
	cfg.Embedding = &e
	r := rand.New(rand.NewPCG(11, 11))
	sim := func(n int) ([]float64, []float64) {
		y, z := make([]float64, n), randData(r, n, 16, 1)
		for i := range y {
			s := 0.0
			for _, v := range z[i*16 : (i+1)*16] {
				s += v
			}
			y[i] = s/4 + 0.1*r.NormFloat64()
		}
		return y, z
	}
	f, err := New(cfg, r)
	if err != nil {
		t.Fatal(err)
	}
	y, z := sim(2000)
	tc := DefaultTrainConfig()
	tc.LearningRate, tc.MaxEpochs, tc.BatchSize, tc.Seed = 3e-3, 60, 50, 1
	if _, err := f.Fit(context.Background(), y, z, 2000, tc); err != nil {
		t.Fatal(err)
	}
	yt, zt := sim(1000)
	lq := make([]float64, 1000)
	if err := f.LogDensityBatch(yt, zt, 1000, lq); err != nil {
		t.Fatal(err)
	}
	nll := -slicesMean(lq)
	t.Logf("test negative log-likelihood %.3f (context ignored 1.42, exact −0.88)", nll)
	if nll > -0.5 {
		t.Errorf("test negative log-likelihood %.3f, want below −0.5", nll)
	}
}

func slicesMean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
