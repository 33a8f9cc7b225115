package mechanism

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/privinfer/privinfer/internal/testutil"
)

// moreCases covers the upper limits of the constructors (MaxDim and the
// Gaussian release range), the NaN and inverted-bound cases of the
// clamping helpers, typed-nil mechanisms, the exact samplers' documented
// panics and the remaining parameter functions.
func moreCases(t *testing.T) []testutil.BadInput {
	type B = testutil.BadInput
	var cs []B
	add := func(cat, name string, f func() error) { cs = append(cs, B{Category: cat, Name: name, Err: f}) }
	check := func(cat, name string, f func() error) { cs = append(cs, B{Category: cat, Name: name, Check: f}) }
	panics := func(cat, name string, f func()) { cs = append(cs, B{Category: cat, Name: name, Panics: f}) }
	err2 := func(_ any, err error) error { return err }

	// Dimensions above MaxDim: refused before anything is allocated (a
	// Laplace mechanism of Dim 2^31 used to end the process).
	add("huge", "NewLaplace Dim 2^20+1", func() error {
		return err2(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 1<<20 + 1}))
	})
	add("huge", "NewLaplaceScales 2^20+1 scales", func() error {
		sc := make([]float64, 1<<20+1)
		for i := range sc {
			sc[i] = 1
		}
		return err2(NewLaplaceScales(sc, Budget{Epsilon: 1}))
	})
	for _, d := range []int{MaxDim + 1, 1 << 31, math.MaxInt} {
		add("huge", fmt.Sprintf("NewLaplace Dim %d", d), func() error {
			return err2(NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: d}))
		})
		add("huge", fmt.Sprintf("LaplaceConfig.Validate Dim %d", d), LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: d}.Validate)
		for name, ctor := range map[string]func(GaussianConfig) (*Gaussian, error){
			"NewAnalyticGaussian": NewAnalyticGaussian, "NewClassicalGaussian": NewClassicalGaussian, "NewProbabilisticGaussian": NewProbabilisticGaussian,
		} {
			add("huge", fmt.Sprintf("%s Dim %d", name, d), func() error {
				return err2(ctor(GaussianConfig{Epsilon: 0.5, Delta: 1e-6, Sensitivity: 1, Dim: d}))
			})
		}
		add("huge", fmt.Sprintf("NewGaussian dim %d", d), func() error { return err2(NewGaussian(ScaleConfig{Sigma: 1, Dim: d})) })
		add("huge", fmt.Sprintf("NewRandomizedResponse dim %d", d), func() error { return err2(NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: d})) })
		add("huge", fmt.Sprintf("NewKaryRandomizedResponse Dim %d", d), func() error {
			return err2(NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: 3, Dim: d}))
		})
		add("huge", fmt.Sprintf("NewKaryRandomizedResponse K %d", d), func() error {
			return err2(NewKaryRandomizedResponse(KaryConfig{Epsilon: 1, K: d, Dim: 2}))
		})
		add("huge", fmt.Sprintf("NewOUE d %d", d), func() error { return err2(NewOUE(LocalConfig{Epsilon: 1, Dim: d})) })
		add("huge", fmt.Sprintf("NewInfectionTrajectory Times %d", d), func() error {
			return err2(NewInfectionTrajectory(TrajectoryConfig{Trials: 20, Inflation: 20, Population: 100, Times: d}))
		})
		add("huge", fmt.Sprintf("NewExponential Candidates %d", d), func() error {
			return err2(NewExponential(ExponentialConfig{Epsilon: 1, Sensitivity: 1, Candidates: d}))
		})
	}
	// Gaussian ε so large that the lattice cannot hold ordinary statistics
	// (ε = 8e300 gave a grid of 2^-525 and refused to release 0.5).
	for _, eps := range []float64{1e4, 1e6, 8e300, 1e308} {
		add("huge", fmt.Sprintf("NewAnalyticGaussian Epsilon %g", eps), func() error {
			return err2(NewAnalyticGaussian(GaussianConfig{Epsilon: eps, Delta: 1e-6, Sensitivity: 1, Dim: 2}))
		})
		add("huge", fmt.Sprintf("NewProbabilisticGaussian Epsilon %g", eps), func() error {
			return err2(NewProbabilisticGaussian(GaussianConfig{Epsilon: eps, Delta: 1e-6, Sensitivity: 1, Dim: 2}))
		})
	}
	// The largest accepted ε still releases a statistic of 2^16
	// sensitivities.
	check("huge", "NewAnalyticGaussian Epsilon 1000 releases 2^16·Sensitivity", func() error {
		g, err := NewAnalyticGaussian(GaussianConfig{Epsilon: 1000, Delta: 1e-6, Sensitivity: 1, Dim: 1})
		if err != nil {
			return err
		}
		dst := make([]float64, 1)
		if err := g.Release(nil, []float64{1 << 16}, dst); err != nil || math.Abs(dst[0]-(1<<16)) > 1 {
			return fmt.Errorf("release %v, %v", dst, err)
		}
		return nil
	})

	// Clamping helpers: NaN is an error, ±Inf maps to a bound.
	rr, _ := NewRandomizedResponse(LocalConfig{Epsilon: 1, Dim: 2})
	add("nan", "ClampSlice NaN entry", func() error { return ClampSlice(make([]float64, 2), []float64{0.5, bNaN}, 0, 1) })
	add("nan", "NormalizeSlice NaN entry", func() error { return NormalizeSlice(make([]float64, 2), []float64{0.5, bNaN}, 0, 1) })
	add("nan", "BITSlice NaN entry", func() error {
		return BITSlice(make([]float64, 2), []float64{0.5, bNaN}, []float64{0, 0}, []float64{1, 1})
	})
	add("nan", "BITSlice NaN bound", func() error {
		return BITSlice(make([]float64, 1), []float64{0.5}, []float64{bNaN}, []float64{1})
	})
	add("inf", "BITSlice infinite bound", func() error {
		return BITSlice(make([]float64, 1), []float64{0.5}, []float64{-bInf}, []float64{1})
	})
	add("mismatched", "BITSlice lo > hi", func() error {
		return BITSlice(make([]float64, 2), []float64{0.5, 0.5}, []float64{0, 2}, []float64{1, 1})
	})
	add("empty", "BITSlice empty bounds for one entry", func() error { return BITSlice(make([]float64, 1), []float64{1}, nil, nil) })
	check("nan", "ClampSlice NaN entry writes nothing", func() error {
		x := []float64{7, bNaN}
		if err := ClampSlice(x, x, 0, 1); err == nil || x[0] != 7 {
			return fmt.Errorf("x = %v, err %v", x, err)
		}
		return nil
	})
	check("inf", "ClampSlice ±Inf maps to the bounds", func() error {
		dst := make([]float64, 2)
		if err := ClampSlice(dst, []float64{bInf, -bInf}, -1, 2); err != nil || dst[0] != 2 || dst[1] != -1 {
			return fmt.Errorf("dst %v, %v", dst, err)
		}
		return nil
	})
	check("inf", "NormalizeSlice ±Inf maps to ±1", func() error {
		dst := make([]float64, 2)
		if err := NormalizeSlice(dst, []float64{bInf, -bInf}, -1, 2); err != nil || dst[0] != 1 || dst[1] != -1 {
			return fmt.Errorf("dst %v, %v", dst, err)
		}
		return nil
	})
	check("mismatched", "Clamp lo > hi is NaN", expectNaN(func() float64 { return Clamp(0.5, 1, 0) }))
	check("nan", "Clamp NaN bound is NaN", expectNaN(func() float64 { return Clamp(0.5, bNaN, 1) }))
	check("huge", "RandomizedResponse.EstimateMean is unbiased, in its documented range", func() error {
		p := rr.KeepProb()
		lo, err := rr.EstimateMean([]float64{0, 0, 0})
		if err != nil {
			return err
		}
		hi, err := rr.EstimateMean([]float64{1, 1, 1})
		if err != nil {
			return err
		}
		wlo, whi := -(1-p)/(2*p-1), p/(2*p-1)
		if math.Abs(lo-wlo) > 1e-12 || math.Abs(hi-whi) > 1e-12 {
			return fmt.Errorf("range [%v, %v], documented [%v, %v]", lo, hi, wlo, whi)
		}
		return nil
	})

	// Typed-nil mechanisms wherever a Mechanism is accepted.
	lap, err := NewLaplace(LaplaceConfig{Sensitivity: 1, Epsilon: 1, Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]Mechanism{"(*Laplace)(nil)": (*Laplace)(nil), "(*Gaussian)(nil)": (*Gaussian)(nil), "nil": nil} {
		add("typednil", "NewBounded inner "+name, func() error {
			return err2(NewBounded(m, []float64{0, 0}, []float64{1, 1}, BIT))
		})
		add("typednil", "Accountant.Release "+name, func() error {
			a, _ := NewAccountant(Budget{Epsilon: 10})
			return a.Release(m, nil, []float64{0, 0}, make([]float64, 2))
		})
		add("typednil", "Reproducible("+name+").Release", func() error {
			return Reproducible(m).Release(newRand(1), []float64{0, 0}, make([]float64, 2))
		})
		add("typednil", "Simulate "+name, func() error { return Simulate(m, newRand(1), []float64{0, 0}, make([]float64, 2)) })
	}
	add("nil", "Accountant.ReleaseZCDP nil", func() error {
		a, _ := NewAccountant(Budget{Epsilon: 10, Delta: 1e-6})
		return a.ReleaseZCDP(nil, nil, []float64{0, 0}, make([]float64, 2))
	})
	add("nil", "nil Accountant.Release", func() error {
		return (*Accountant)(nil).Release(lap, nil, []float64{0, 0}, make([]float64, 2))
	})
	add("nil", "nil Accountant.Spend", func() error { return (*Accountant)(nil).Spend(Budget{Epsilon: 1}) })

	// Exact samplers: documented programmer-error panics.
	panics("nonpositive", "SampleDiscreteLaplace num 0", func() { SampleDiscreteLaplace(newRand(1), 0, 1) })
	panics("nonpositive", "SampleDiscreteLaplace den 0", func() { SampleDiscreteLaplace(newRand(1), 1, 0) })
	panics("nil", "SampleDiscreteLaplace nil *rand.Rand", func() { SampleDiscreteLaplace(nil, 1, 1) })
	panics("nonpositive", "BernoulliExpNeg den 0", func() { BernoulliExpNeg(newRand(1), 1, 0) })
	panics("nil", "BernoulliExpNeg nil *rand.Rand", func() { BernoulliExpNeg(nil, 1, 1) })
	check("huge", "BernoulliExpNeg num MaxUint64 is false", func() error {
		if BernoulliExpNeg(newRand(1), math.MaxUint64, 1) {
			return errors.New("true for probability exp(-2^64)")
		}
		return nil
	})

	// Budget composition keeps invalid budgets invalid.
	check("nan", "Sequential with a NaN budget is invalid", func() error {
		if Sequential(Budget{Epsilon: 1}, Budget{Epsilon: bNaN}).Validate() == nil {
			return errors.New("valid")
		}
		return nil
	})
	check("nan", "Parallel with a NaN budget is invalid", func() error {
		if Parallel(Budget{Epsilon: 1}, Budget{Epsilon: bNaN}).Validate() == nil {
			return errors.New("valid")
		}
		return nil
	})
	check("empty", "Sequential() is the invalid zero budget", func() error {
		if Sequential().Validate() == nil {
			return errors.New("valid")
		}
		return nil
	})
	check("empty", "Parallel() is the invalid zero budget", func() error {
		if Parallel().Validate() == nil {
			return errors.New("valid")
		}
		return nil
	})
	for _, v := range []float64{bNaN, bInf, -1} {
		check(catOfValue(v), fmt.Sprintf("Budget.Scale(%v) is invalid", v), func() error {
			if (Budget{Epsilon: 1}).Scale(v).Validate() == nil {
				return errors.New("valid")
			}
			return nil
		})
	}
	return cs
}

// catOfValue names the category of a bad positive parameter.
func catOfValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 0):
		return "inf"
	case v <= 0:
		return "nonpositive"
	case v < minNormal:
		return "subnormal"
	}
	return "huge"
}
