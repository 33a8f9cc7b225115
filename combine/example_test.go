package combine_test

import (
	"fmt"

	"github.com/privinfer/privinfer/combine"
)

// Pooling the sample proportions estimated from m = 5 differentially
// private synthetic datasets of size n = 200 with the DP-synthesis rule.
func ExamplePool() {
	n := 200.0
	phat := []float64{0.42, 0.47, 0.39, 0.45, 0.51}
	v := make([]float64, len(phat))
	for j, p := range phat {
		v[j] = p * (1 - p) / n // within-set variance of each estimate
	}
	r, err := combine.Pool(combine.DPSynthesis, phat, v, combine.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi, _ := r.Interval(0.95)
	fmt.Printf("estimate %.3f, W̄ %.5f, B %.5f, T %.5f, df %.1f\n", r.Mean, r.Within, r.Between, r.Var, r.DF)
	fmt.Printf("95%% interval [%.3f, %.3f]\n", lo, hi)
	// Output:
	// estimate 0.448, W̄ 0.00123, B 0.00212, T 0.00165, df 60.7
	// 95% interval [0.367, 0.529]
}

// The four rules side by side on the same analyses.
func ExampleRule() {
	q := []float64{1, 2, 3}
	u := []float64{0.2, 0.3, 0.4}
	for _, rule := range []combine.Rule{combine.DPSynthesis, combine.Rubin, combine.FullySynthetic, combine.Raab} {
		r, _ := combine.Pool(rule, q, u, combine.Options{})
		fmt.Printf("%-15s T=%.4f df=%.3f\n", rule, r.Var, r.DF)
	}
	// Output:
	// dp-synthesis    T=0.6333 df=7.220
	// rubin           T=1.6333 df=3.001
	// fully-synthetic T=1.0333 df=1.201
	// raab            T=0.5000 df=+Inf
}

// Pooling nested synthetic data: m = 3 sanitized posteriors with t = 2
// synthetic sets each. The between-set variance splits into the
// sanitization and synthesis components.
func ExamplePoolNested() {
	q := []float64{0.41, 0.44, 0.52, 0.49, 0.45, 0.47} // nest i, set k at i·2 + k
	u := []float64{0.0012, 0.0012, 0.0012, 0.0012, 0.0012, 0.0012}
	r, err := combine.PoolNested(2, q, u, combine.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	lo, hi, _ := r.Interval(0.95)
	fmt.Printf("estimate %.3f, sanitization %.5f, synthesis %.5f, T %.5f, df %.1f\n", r.Mean, r.Sanitization, r.Synthesis, r.Var, r.DF)
	fmt.Printf("95%% interval [%.3f, %.3f]\n", lo, hi)
	// Output:
	// estimate 0.463, sanitization 0.00143, synthesis 0.00037, T 0.00174, df 21.0
	// 95% interval [0.377, 0.550]
}
