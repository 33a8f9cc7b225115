package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
)

// Fig. 1 of the ABCDP paper: the flip probability G_b(|ρ − ε_abc|) (Prop.
// 4.2) for 100 distances ρ ~ U[0, 1], ε_abc = 0.2, against ε_total, for
// N ∈ {10, 1000} (the authors' script also draws N = 100) and
// c ∈ {10, 100, 1000}, with the noise scale of RESAMPLE = true,
// b = 2cΔρ/ε_total, and Δρ = 1/N as in the authors' script (Lemma 4.1's MMD
// bound is 2/N).

// flipEps are the ε_total values of the authors' script.
var flipEps = []float64{0.01, 0.1, 0.5, 1, 5, 10, 50, 100}

// FlipRow summarises the 100 flip probabilities at one (N, c, ε_total): the
// quartiles and extremes the paper's box plots show, and a Monte Carlo
// estimate of the flip rate of ABCDP's own decision (Select on one
// distance) at the median ρ, with its standard error if the rate is G_b
// (the estimate's own standard error understates it for rare flips).
type FlipRow struct {
	N, C                   int
	EpsTotal, B            float64
	Min, Q1, Med, Q3, Max  float64
	RhoMed, MC, MCSE, GMed float64
}

// flipTable evaluates Fig. 1. mcReps decisions are simulated per row for
// the Monte Carlo check (0 skips it).
func flipTable(seed uint64, mcReps int) ([]FlipRow, error) {
	r := rand.New(rand.NewPCG(seed, 0xf11b))
	rho := make([]float64, 100)
	for i := range rho {
		rho[i] = r.Float64()
	}
	const epsABC = 0.2
	// The ρ whose flip probability is the median one: the median of |ρ − ε_abc|.
	gap := make([]float64, len(rho))
	for i, v := range rho {
		gap[i] = math.Abs(v - epsABC)
	}
	sorted := slices.Clone(gap)
	slices.Sort(sorted)
	medGap := sorted[len(sorted)/2]
	rhoMed := epsABC + medGap
	var rows []FlipRow
	for _, n := range []int{10, 100, 1000} {
		for _, c := range []int{10, 100, 1000} {
			for _, e := range flipEps {
				b, err := abc.NoiseScale(e, 1/float64(n), c, true)
				if err != nil {
					return nil, err
				}
				p := make([]float64, len(rho))
				for i, g := range gap {
					p[i] = abc.FlipProbability(g, b)
				}
				slices.Sort(p)
				fr := FlipRow{N: n, C: c, EpsTotal: e, B: b, Min: p[0], Q1: quantile(p, 0.25), Med: quantile(p, 0.5), Q3: quantile(p, 0.75), Max: p[len(p)-1],
					RhoMed: rhoMed, GMed: abc.FlipProbability(medGap, b), MC: math.NaN(), MCSE: math.NaN()}
				if mcReps > 0 {
					fr.MC, _, err = mcFlip(r, e, 1/float64(n), c, epsABC, rhoMed, mcReps)
					if err != nil {
						return nil, err
					}
					fr.MCSE = math.Sqrt(fr.GMed * (1 - fr.GMed) / float64(mcReps))
				}
				rows = append(rows, fr)
			}
		}
	}
	return rows, nil
}

// mcFlip is the rate at which ABCDP (RESAMPLE = true, the calibration of
// Fig. 1) decides differently from rejection ABC on the single distance
// rho, over reps runs with fresh noise.
func mcFlip(r *rand.Rand, eps, sens float64, c int, epsABC, rho float64, reps int) (float64, float64, error) {
	// Seeded noise (Reproducible): a simulation of the decisions, not a
	// release.
	a, err := abc.NewABCDPSelector(abc.ABCDPConfig{EpsTotal: eps, EpsABC: epsABC, C: c, Resample: true, Sensitivity: sens, Reproducible: true})
	if err != nil {
		return 0, 0, err
	}
	abcSays := rho <= epsABC
	d := []float64{rho}
	flips := 0
	for range reps {
		sel, err := a.Select(r, d)
		if err != nil {
			return 0, 0, err
		}
		if sel.Indicators[0] != abcSays {
			flips++
		}
	}
	p := float64(flips) / float64(reps)
	return p, math.Sqrt(math.Max(p*(1-p), 1/float64(reps)) / float64(reps)), nil
}

// quantile is the linearly interpolated quantile of sorted x (numpy's
// default, as in the paper's box plots).
func quantile(x []float64, q float64) float64 {
	h := q * float64(len(x)-1)
	i := int(h)
	if i+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// printFlip prints the median flip probabilities (rows N, c; columns
// ε_total) and the Monte Carlo check.
func printFlip(w io.Writer, rows []FlipRow) {
	fmt.Fprintf(w, "Fig. 1: flip probability G_b(|ρ − 0.2|) over 100 ρ ~ U[0,1]; b = 2cΔρ/ε_total, Δρ = 1/N; median [upper quartile]\n%6s %6s", "N", "c")
	for _, e := range flipEps {
		fmt.Fprintf(w, " %15g", e)
	}
	fmt.Fprintln(w)
	for i := 0; i < len(rows); i += len(flipEps) {
		fmt.Fprintf(w, "%6d %6d", rows[i].N, rows[i].C)
		for _, r := range rows[i : i+len(flipEps)] {
			fmt.Fprintf(w, " %15s", fmt.Sprintf("%.3g [%.3g]", r.Med, r.Q3))
		}
		fmt.Fprintln(w)
	}
	worst := 0.0
	for _, r := range rows {
		if !math.IsNaN(r.MC) {
			worst = math.Max(worst, math.Abs(r.MC-r.GMed)/r.MCSE)
		}
	}
	if !math.IsNaN(rows[0].MC) {
		fmt.Fprintf(w, "Monte Carlo check at ρ = %.3f: ABCDP's decisions (Select) flip at G_b within %.1f standard errors in all %d settings\n", rows[0].RhoMed, worst, len(rows))
	}
}

// flipVerdict checks the statements of §4.1 and Fig. 1: the flip
// probability falls as ε_total grows and as N grows, rises with c; at N = 10
// and c = 10 even ε_total = 100 leaves a flip probability above zero for ρ
// near ε_abc; and ABCDP's simulated decisions flip at the rate G_b.
func flipVerdict(w io.Writer, rows []FlipRow) {
	at := func(n, c int, e float64) FlipRow {
		for _, r := range rows {
			if r.N == n && r.C == c && r.EpsTotal == e {
				return r
			}
		}
		return FlipRow{Med: math.NaN()}
	}
	var failed []string
	for _, n := range []int{10, 100, 1000} {
		for _, c := range []int{10, 100, 1000} {
			for k := 1; k < len(flipEps); k++ {
				if !(at(n, c, flipEps[k]).Med <= at(n, c, flipEps[k-1]).Med) {
					failed = append(failed, fmt.Sprintf("N = %d, c = %d: median rises from ε = %g to %g", n, c, flipEps[k-1], flipEps[k]))
				}
			}
		}
	}
	for _, e := range flipEps {
		for _, c := range []int{10, 100, 1000} {
			if !(at(1000, c, e).Med <= at(10, c, e).Med) {
				failed = append(failed, fmt.Sprintf("c = %d, ε = %g: N = 1000 not below N = 10", c, e))
			}
		}
		for _, n := range []int{10, 1000} {
			if !(at(n, 10, e).Med <= at(n, 1000, e).Med) {
				failed = append(failed, fmt.Sprintf("N = %d, ε = %g: c = 10 not below c = 1000", n, e))
			}
		}
	}
	small := at(10, 10, 100)
	if !(small.Max > 0.1) {
		failed = append(failed, fmt.Sprintf("N = 10, c = 10, ε = 100: largest flip probability %.3g", small.Max))
	}
	mcOK := 0
	for _, r := range rows {
		if math.IsNaN(r.MC) || math.Abs(r.MC-r.GMed) <= 4*r.MCSE {
			mcOK++
		}
	}
	if mcOK < len(rows) {
		failed = append(failed, fmt.Sprintf("simulated flip rates match G_b in only %d of %d settings", mcOK, len(rows)))
	}
	big := at(1000, 10, 1)
	what := "ABCDP Fig. 1 (flip probability)"
	reason := fmt.Sprintf("the median flip probability falls with ε_total and N and rises with c in all settings; at N = 10, c = 10, ε_total = 100 the median is %.2g but ρ near ε_abc still flips with probability up to %.2f; at N = 1000, c = 10, ε_total = 1 the median is %.2g; ABCDP's simulated decisions flip at G_b (the figure itself has no printed numbers)",
		small.Med, small.Max, big.Med)
	if len(failed) == 0 {
		cli.PrintVerdict(w, cli.Reproduced, what, reason)
	} else {
		cli.PrintVerdict(w, cli.Differs, what, strings.Join(failed, "; "))
	}
}

// writeFlip writes the Fig. 1 CSV and one chart per N: the median flip
// probability against ε_total with the interquartile band, one curve per c.
func writeFlip(c *cli.Common, rows []FlipRow) ([]string, error) {
	var csvRows [][]string
	for _, r := range rows {
		csvRows = append(csvRows, append([]string{strconv.Itoa(r.N), strconv.Itoa(r.C)},
			cli.FloatRow(r.EpsTotal, r.B, r.Min, r.Q1, r.Med, r.Q3, r.Max, r.RhoMed, r.GMed, r.MC, r.MCSE)...))
	}
	f, err := c.WriteCSV("flip_probability.csv", []string{"N", "c", "eps_total", "b", "min", "q1", "median", "q3", "max", "rho_check", "G_b_check", "mc_flip_rate", "mc_se"}, csvRows)
	if err != nil {
		return nil, err
	}
	files := []string{f}
	for _, n := range []int{10, 100, 1000} {
		var series []plot.Series
		for _, cc := range []int{10, 100, 1000} {
			s := plot.Series{Name: fmt.Sprintf("c = %d", cc)}
			for _, r := range rows {
				if r.N == n && r.C == cc {
					s.X = append(s.X, r.EpsTotal)
					s.Y = append(s.Y, r.Med)
					s.Lo = append(s.Lo, r.Q1)
					s.Hi = append(s.Hi, r.Q3)
				}
			}
			series = append(series, s)
		}
		cv, err := plot.LineChart{Title: fmt.Sprintf("Flip probability, N = %d (median and quartiles over 100 ρ; cf. ABCDP paper Fig. 1)", n),
			XLabel: "ε_total", YLabel: "P(ABCDP ≠ ABC)", LogX: true, Series: series}.Draw()
		if err != nil {
			return nil, err
		}
		fs, err := c.WritePlot(fmt.Sprintf("flip_probability_N%d", n), cv)
		if err != nil {
			return nil, err
		}
		files = append(files, fs...)
	}
	return files, nil
}
