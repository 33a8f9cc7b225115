package ad_test

import (
	"math/rand/v2"
	"testing"

	"github.com/privinfer/privinfer/flow/ad"
)

// embeddingStep records a network on a reset tape for a batch, seeds the
// gradient of its output and back-propagates into the parameter gradient:
// one training step of an embedding network.
type embeddingStep struct {
	net     ad.Net
	tp      *ad.Tape
	p, g, x []float64
	dy      []float64
	rows    int
}

func newEmbeddingStep(net ad.Net, rows int) *embeddingStep {
	r := rand.New(rand.NewPCG(8, 18))
	s := &embeddingStep{net: net, tp: ad.NewTape(), rows: rows}
	s.p = make([]float64, net.NumParams())
	if err := net.Init(s.p, r); err != nil {
		panic(err)
	}
	s.g = make([]float64, len(s.p))
	s.x = randSlice(r, rows*net.In)
	s.dy = randSlice(r, rows*net.Out)
	return s
}

func (s *embeddingStep) run() error {
	s.tp.Reset()
	x := s.tp.Const(s.x, s.rows, s.net.In)
	y := s.net.Apply(s.tp, s.p, s.g, x)
	return s.tp.Backward(y, s.dy)
}

var (
	benchMLP = ad.Net{In: 100, Hidden: []int{64, 64}, Out: 8}
	benchCNN = ad.Net{In: 100, Conv: []ad.ConvLayer{
		{Filters: 8, Kernel: 5, Stride: 2, Pad: 2},
		{Filters: 16, Kernel: 5, Stride: 2, Pad: 2},
	}, Hidden: []int{64}, Out: 8}
)

// TestStepAllocatesNothing checks that a training step recorded again on a
// reset tape allocates nothing once the tape has grown.
func TestStepAllocatesNothing(t *testing.T) {
	for _, net := range []ad.Net{benchMLP, benchCNN} {
		s := newEmbeddingStep(net, 50)
		for i := 0; i < 2; i++ {
			if err := s.run(); err != nil {
				t.Fatal(err)
			}
		}
		if a := testing.AllocsPerRun(5, func() { _ = s.run() }); a != 0 {
			t.Errorf("%+v: %v allocations per step, want 0", net, a)
		}
	}
}

func BenchmarkMLPStep(b *testing.B) { benchStep(b, benchMLP) }
func BenchmarkCNNStep(b *testing.B) { benchStep(b, benchCNN) }
func benchStep(b *testing.B, net ad.Net) {
	s := newEmbeddingStep(net, 100)
	if err := s.run(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.run(); err != nil {
			b.Fatal(err)
		}
	}
}
