package qmc

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchPoints is the number of points per benchmark operation.
const benchPoints = 1024

func benchFill(b *testing.B, seq Sequence, reset func()) {
	d := seq.Dim()
	buf := make([]float64, benchPoints*d)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := seq.Fill(buf, benchPoints); err != nil {
			reset()
			if err := seq.Fill(buf, benchPoints); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.StopTimer()
	sec := b.Elapsed().Seconds()
	if sec > 0 {
		b.ReportMetric(float64(b.N)*benchPoints/sec, "points/s")
		b.ReportMetric(sec*1e9/(float64(b.N)*benchPoints), "ns/point")
	}
}

// BenchmarkSobol measures point generation for d = 2, 10, 100,
// unscrambled and under each scramble (1024 points per op).
func BenchmarkSobol(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{2, 10, 100} {
		for _, sc := range []Scramble{NoScramble, DigitalShift, LinearMatrixShift, Owen, OwenTree} {
			b.Run(fmt.Sprintf("d=%d/%v", d, sc), func(b *testing.B) {
				s, err := NewSobol(SobolConfig{Dim: d, Scramble: sc, Bits: 64}, r)
				if err != nil {
					b.Fatal(err)
				}
				benchFill(b, s, s.Reset)
			})
		}
	}
}

// BenchmarkOther measures the Halton, rotation and Monte Carlo sources.
func BenchmarkOther(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{2, 10, 100} {
		b.Run(fmt.Sprintf("d=%d/halton", d), func(b *testing.B) {
			h, _ := NewHalton(HaltonConfig{Dim: d, Scrambled: false}, nil)
			benchFill(b, h, h.Reset)
		})
		b.Run(fmt.Sprintf("d=%d/halton-perm", d), func(b *testing.B) {
			h, _ := NewHalton(HaltonConfig{Dim: d, Scrambled: true}, r)
			benchFill(b, h, h.Reset)
		})
		b.Run(fmt.Sprintf("d=%d/sobol-rotation", d), func(b *testing.B) {
			s, _ := NewSobol(SobolConfig{Dim: d, Bits: 64}, nil)
			c, _ := NewRotation(s, r)
			benchFill(b, c, c.Reset)
		})
		b.Run(fmt.Sprintf("d=%d/monte-carlo", d), func(b *testing.B) {
			m, _ := NewMonteCarlo(d, r)
			benchFill(b, m, m.Reset)
		})
	}
}

// BenchmarkRandomize measures drawing a new randomization (d = 10).
func BenchmarkRandomize(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, sc := range []Scramble{DigitalShift, LinearMatrixShift, Owen, OwenTree} {
		b.Run(sc.String(), func(b *testing.B) {
			s, _ := NewSobol(SobolConfig{Dim: 10, Scramble: sc}, r)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s.Randomize(r)
			}
		})
	}
}
