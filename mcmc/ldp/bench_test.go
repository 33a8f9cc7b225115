package ldp

import (
	"math/rand/v2"
	"testing"
)

func gaussReports(b *testing.B, eps float64, n int) (*ClippedGaussian, []float64) {
	m, err := NewClippedGaussian(ClippedGaussianConfig{A: -5, B: 5, Epsilon: eps})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, n)
	for i := range z {
		z[i], _ = simReport(m, r, 0.5+1.2*r.NormFloat64())
	}
	return m, z
}

func BenchmarkGaussianLogDensitySum1000(b *testing.B) {
	for _, eps := range []float64{0.1, 1, 10} {
		m, z := gaussReports(b, eps, 1000)
		b.Run(epsName(eps), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m.LogDensitySum(z, 0.3, 1.1)
			}
		})
	}
}

func BenchmarkGaussianLogDensitySumGrad1000(b *testing.B) {
	m, z := gaussReports(b, 1, 1000)
	b.ReportAllocs()
	for b.Loop() {
		m.LogDensitySumGrad(z, 0.3, 1.1)
	}
}

func BenchmarkExponentialLogDensitySumGrad1000(b *testing.B) {
	m, _ := NewClippedExponential(ClippedExponentialConfig{B: 5, Epsilon: 1})
	r := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, 1000)
	for i := range z {
		z[i], _ = simReport(m, r, r.ExpFloat64())
	}
	b.ReportAllocs()
	for b.Loop() {
		m.LogDensitySumGrad(z, 0.8)
	}
}

func BenchmarkOUELogDensity(b *testing.B) {
	m, _ := NewOUEModel(OUEModelConfig{Epsilon: 0.5, Dim: 8})
	r := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, 10000*8)
	for i := range z {
		z[i] = float64(r.IntN(2))
	}
	data, _ := m.NewData(z)
	theta := []float64{0.3, 0.2, 0.1, 0.1, 0.1, 0.1, 0.05, 0.05}
	grad := make([]float64, 8)
	b.ReportAllocs()
	for b.Loop() {
		data.LogDensityGrad(theta, grad)
	}
}

func BenchmarkLinRegLogDensity(b *testing.B) {
	d, n := 3, 1000
	r := rand.New(rand.NewPCG(1, 2))
	zx := make([]float64, n*d)
	zy := make([]float64, n)
	for i := range zx {
		zx[i] = r.NormFloat64()
	}
	for i := range zy {
		zy[i] = r.NormFloat64()
	}
	ld, _ := NewLinRegData(LinRegDataConfig{ZX: zx, ZY: zy, Dim: d, SX: []float64{1, 1, 1}})
	sig := []float64{1, 0.2, 0, 0.2, 1, 0.1, 0, 0.1, 1}
	theta := []float64{0.5, -0.3, 0.2}
	ld.LogDensity(theta, 0.5, 0.7, sig)
	b.ReportAllocs()
	for b.Loop() {
		ld.LogDensity(theta, 0.5, 0.7, sig)
	}
}

func BenchmarkLogRegLogDensityGrad1000(b *testing.B) {
	d, n := 3, 1000
	r := rand.New(rand.NewPCG(1, 2))
	zx := make([]float64, n*d)
	zy := make([]float64, n)
	for i := range zx {
		zx[i] = r.NormFloat64()
	}
	for i := range zy {
		zy[i] = float64(r.IntN(2))
	}
	ld, _ := NewLogRegData(LogRegDataConfig{ZX: zx, ZY: zy, Dim: d, SX: []float64{1, 1, 1}, EpsilonY: 1})
	cb, _ := ChebyshevSigmoid(-4, 4)
	fc, _ := ld.FixCov([]float64{1, 0.2, 0, 0.2, 1, 0.1, 0, 0.1, 1}, cb)
	theta := []float64{0.5, -0.3, 0.2}
	grad := make([]float64, d)
	b.ReportAllocs()
	for b.Loop() {
		fc.LogDensityGrad(theta, grad)
	}
}

func BenchmarkSuffStatLogDensity(b *testing.B) {
	d := 3
	ss, _ := NewSuffStatLinReg(SuffStatLinRegConfig{Z: make([]float64, SuffStatDim(d)), Dim: d, N: 1000, Sigma1: 1, Sigma2: 1, Sigma3: 1})
	sig := []float64{1, 0.2, 0, 0.2, 1, 0.1, 0, 0.1, 1}
	theta := []float64{0.5, -0.3, 0.2}
	ss.LogDensity(theta, 0.5, sig)
	b.ReportAllocs()
	for b.Loop() {
		ss.LogDensity(theta, 0.5, sig)
	}
}

func BenchmarkPolyExpQuadLogMarginal(b *testing.B) {
	p, _ := NewPolyExpQuad(PolyExpQuadConfig{G: []float64{1, 0.5, 0.2, 0.1}, H0: 0, H1: 0.3, H2: -0.5, A: -1, B: 4})
	b.ReportAllocs()
	for b.Loop() {
		p.LogMarginal(0.7, 0.8)
	}
}

func epsName(eps float64) string {
	switch eps {
	case 0.1:
		return "eps=0.1"
	case 1:
		return "eps=1"
	}
	return "eps=10"
}

// BenchmarkSuffStatLogReg evaluates the sufficient-statistics logistic
// log density at d = 5 (20 statistics) with and without its gradient.
func BenchmarkSuffStatLogReg(b *testing.B) {
	const d = 5
	m := LogRegStatDim(d)
	z := make([]float64, m)
	for i := range z {
		z[i] = float64(i%4) - 1
	}
	s, err := NewSuffStatLogReg(SuffStatLogRegConfig{Z: z, Dim: d, N: 1000, Sigma1: 1, Sigma2: 1})
	if err != nil {
		b.Fatal(err)
	}
	theta := []float64{0.5, -1, 0.3, 2, -0.7}
	sigma := make([]float64, d*d)
	for j := range d {
		for k := range d {
			sigma[j*d+k] = 0.05
		}
		sigma[j*d+j] = 0.3
	}
	gt := make([]float64, d)
	gs := make([]float64, d*d)
	b.Run("value", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.LogDensity(theta, sigma)
		}
	})
	b.Run("gradient", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.LogDensityGrad(theta, sigma, gt, gs)
		}
	})
}
