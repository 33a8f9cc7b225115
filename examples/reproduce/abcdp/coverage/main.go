// Command coverage checks the calibration of ABCDP's posterior (the ABCDP
// paper, Alg. 1) over repeated data sets, on a problem whose exact
// posterior is known: θ ~ Beta(2, 2), n = 20 confidential records
// x_i ~ Bernoulli(θ), summary the mean, distance |s − s*| (sensitivity
// 1/20), ε_abc = 0.5/n, c = 9 accepted draws out of T = 3000 public ones.
// Without privacy noise a draw is accepted exactly when its simulated mean
// equals the observed one, so rejection ABC returns exact posterior draws
// Beta(2 + k, 2 + n − k).
//
// Each setting draws θ from the prior and a data set from θ, runs ABCDP
// and ranks θ among the c released draws: for exact posterior draws the
// rank is uniform on {0, …, c}, and [min, max] of the draws covers θ with
// probability (c − 1)/(c + 1) = 0.8. The settings:
//
//   - ε_total = 10⁴: the noise scale is 5·10⁻⁵ and every decision lies at
//     least 500 scales from the threshold, so ABCDP's draws are rejection
//     ABC's, the limit of the paper's Prop. 4.2 (flip probability → 0)
//     and Thm 4.3. Run through privinfer.SBC, whose chi-square test must
//     not reject uniform ranks at level 10⁻³, and whose coverage must be
//     within 4 Monte Carlo standard errors of 0.8.
//   - the paper's budgets, ε_total = 20 and 1 (Figs 2 and 5), each with and
//     without RESAMPLE: the noise is comparable with the distances. Given
//     the threshold noise, ABCDP accepts with a probability that decreases
//     in the distance, so its draws come from the posterior of a model in
//     which the observed mean carries extra noise: wider than the exact
//     posterior, which makes intervals conservative. A run may stop at T
//     with c′ < c acceptances; the interval is then [min, max] of the c′ ≥
//     2 released draws, whose nominal coverage is (c′ − 1)/(c′ + 1), and
//     runs with c′ < 2 release no interval and are counted apart. The
//     ranks are those of the runs that released c draws.
//
// The paper has no coverage study: its findings are that ABCDP's
// decisions approach rejection ABC's as the noise vanishes and that the
// samples get poorer as it grows. The first verdict checks the limit (the
// exact setting's calibration); the second checks that at the paper's
// budgets ABCDP's intervals are not over-confident: coverage at least the
// nominal less 4 Monte Carlo standard errors in every setting (false-alarm
// rate below 3e-5 each). Calibration is not accuracy: the program also
// reports the mean sd of the released draws over the exact posterior's
// sd. At ε_total = 1 the draws are about as wide as the prior (the
// prior's sd is about 2.5 times the posterior's at n = 20), and prior
// draws are calibrated too, so the coverage there says little.
//
//	go run ./examples/reproduce/abcdp/coverage              # 2000 data sets per setting
//	go run ./examples/reproduce/abcdp/coverage -quick       # 300
//	go run ./examples/reproduce/abcdp/coverage -out /tmp/abcdp-coverage
//
// With -out DIR it writes coverage.csv, ranks.csv, the rank histograms
// (abcdp_ranks.svg/.png) and the coverages with ±2 Monte Carlo standard
// errors beside their nominal values (abcdp_coverage.svg/.png).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/simulate"
)

// The problem's sizes: records, accepted draws, public draws.
const (
	nRecords = 20
	cDraws   = 9
	tPublic  = 3000
)

func main() { cli.Program("coverage", parse, run) }

// parse reads the common flags and -datasets, the data sets per setting, into N.
var parse = cli.CountParser("datasets", 2000, 300, 10, "data sets per setting (-quick: 300)")

// bernoulliMean simulates the mean of n Bernoulli(θ) records.
type bernoulliMean struct{ n int }

func (s bernoulliMean) StatDim() int { return 1 }
func (s bernoulliMean) Simulate(r *rand.Rand, theta, dst []float64) error {
	if len(theta) != 1 || !(theta[0] >= 0 && theta[0] <= 1) {
		return fmt.Errorf("%w: θ = %v", simulate.ErrInvalidTheta, theta)
	}
	k := 0
	for range s.n {
		if r.Float64() < theta[0] {
			k++
		}
	}
	dst[0] = float64(k) / float64(s.n)
	return nil
}

// absDistance is |x − y| for one-dimensional summaries.
type absDistance struct{}

func (absDistance) Distance(x, y []float64) float64 { return math.Abs(x[0] - y[0]) }

// setting is one privacy budget.
type setting struct {
	eps      float64
	resample bool
}

func (s setting) String() string {
	r := ""
	if s.resample {
		r = ", RESAMPLE"
	}
	return fmt.Sprintf("ε_total = %g%s", s.eps, r)
}

var noisy = []setting{{20, false}, {20, true}, {1, false}, {1, true}}

// result is the outcome of one setting.
type result struct {
	setting
	exact    bool
	datasets int     // data sets with an interval (c′ ≥ 2)
	short    int     // runs that released fewer than 2 draws
	partial  int     // runs that released 2 ≤ c′ < c draws
	cover    float64 // coverage of [min, max]
	nominal  float64 // mean (c′ − 1)/(c′ + 1) over the runs with an interval
	ranks    []int   // histogram of ranks 0..c over the runs with c draws
	pValue   float64 // SBC's chi-square p-value (exact setting), NaN otherwise
	width    float64 // mean sd of the released draws / the exact posterior sd
}

// exactSD is the sd of the exact posterior Beta(2 + k, 2 + n − k) given
// the observed mean s = k/n.
func exactSD(s float64) float64 {
	a := 2 + math.Round(s*nRecords)
	b := 2 + nRecords - (a - 2)
	return math.Sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)))
}

// sdRatio is the sample sd of the draws over the exact posterior sd given
// the observed mean s.
func sdRatio(draws []float64, s float64) float64 {
	m, v := 0.0, 0.0
	for _, x := range draws {
		m += x
	}
	m /= float64(len(draws))
	for _, x := range draws {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v/float64(len(draws)-1)) / exactSD(s)
}

func (r result) se() float64 { return math.Sqrt(r.nominal * (1 - r.nominal) / float64(r.datasets)) }

func (r result) ranked() int {
	s := 0
	for _, v := range r.ranks {
		s += v
	}
	return s
}

// extremes is the share of ranks 0 and c among the ranked runs: 2/(c + 1)
// for exact draws, more for over-confident ones, fewer for conservative.
func (r result) extremes() float64 {
	return float64(r.ranks[0]+r.ranks[cDraws]) / float64(r.ranked())
}

// priorRatio is the prior sd of Beta(2, 2) over the exact posterior sd,
// averaged over the prior predictive of the mean (a Beta-binomial).
func priorRatio() float64 {
	// P(k) ∝ C(n, k) B(2 + k, 2 + n − k).
	var tot, sum float64
	for k := range nRecords + 1 {
		lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
		w := math.Exp(lg(nRecords+1) - lg(float64(k)+1) - lg(float64(nRecords-k)+1) + lg(2+float64(k)) + lg(2+float64(nRecords-k)) - lg(4+nRecords))
		tot += w
		sum += w / exactSD(float64(k)/nRecords)
	}
	return math.Sqrt(1.0/20) * sum / tot
}

func problem() (privinfer.Problem, error) {
	beta, err := simulate.NewBeta(simulate.BetaConfig{Alpha: 2, Beta: 2})
	if err != nil {
		return privinfer.Problem{}, err
	}
	prior, err := simulate.NewIndependent(beta)
	if err != nil {
		return privinfer.Problem{}, err
	}
	return privinfer.Problem{Prior: prior, Simulator: bernoulliMean{nRecords}, Names: []string{"theta"}}, nil
}

func abcdpConfig(s setting) abc.ABCDPConfig {
	// Reproducible: the sparse vector's noise comes from Seed, so the
	// study depends on the seed only (not for real releases).
	return abc.ABCDPConfig{EpsTotal: s.eps, EpsABC: 0.5 / nRecords, C: cDraws, Resample: s.resample,
		Sensitivity: 1.0 / nRecords, Clip: 1, Distance: absDistance{}, Simulations: tPublic, Reproducible: true}
}

// exactSBC runs privinfer.SBC of ABCDP at ε_total = 10⁴.
func exactSBC(ctx context.Context, datasets int, seed uint64, prog *cli.Progress) (result, error) {
	p, err := problem()
	if err != nil {
		return result{}, err
	}
	s := setting{eps: 1e4}
	// The fits run in parallel and finish in any order: widths keeps
	// each fit's sd ratio under its seed, summed in seed order afterwards
	// so that the printed mean depends on the seed only.
	var mu sync.Mutex
	widths := make(map[uint64]float64, datasets)
	fit := func(ctx context.Context, p privinfer.Problem, seed uint64) (*privinfer.Draws, error) {
		cfg := abcdpConfig(s)
		cfg.Seed = seed
		res, err := abc.ABCDP(ctx, p, cfg)
		if err != nil {
			return nil, err
		}
		if res.Draws.Len() < cDraws {
			return nil, fmt.Errorf("only %d of %d draws accepted", res.Draws.Len(), cDraws)
		}
		w := sdRatio(res.Draws.Column(0), p.Observed[0])
		mu.Lock()
		widths[seed] = w
		mu.Unlock()
		return res.Draws, nil
	}
	sbc, err := privinfer.SBC(ctx, p, fit, privinfer.SBCConfig{Datasets: datasets, Draws: cDraws, Bins: cDraws + 1, Seed: seed,
		Progress: prog.Every(5*time.Second, s.String())})
	if err != nil {
		return result{}, err
	}
	if len(widths) != sbc.Datasets {
		return result{}, fmt.Errorf("%d sd ratios for %d data sets (two fits shared a seed)", len(widths), sbc.Datasets)
	}
	var width float64
	for _, k := range slices.Sorted(maps.Keys(widths)) {
		width += widths[k]
	}
	out := result{setting: s, exact: true, datasets: sbc.Datasets, nominal: float64(cDraws-1) / float64(cDraws+1),
		ranks: make([]int, cDraws+1), pValue: sbc.OverallPValue(), width: width / float64(sbc.Datasets)}
	inside := 0
	for _, r := range sbc.Ranks {
		out.ranks[r]++
		if r > 0 && r < cDraws {
			inside++
		}
	}
	out.cover = float64(inside) / float64(sbc.Datasets)
	return out, nil
}

// noisyRuns runs ABCDP on datasets prior-predictive data sets at s.
func noisyRuns(ctx context.Context, s setting, datasets int, seed uint64, prog *cli.Progress) (result, error) {
	p, err := problem()
	if err != nil {
		return result{}, err
	}
	cfg := abcdpConfig(s)
	out := result{setting: s, ranks: make([]int, cDraws+1), pValue: math.NaN()}
	theta, obs := make([]float64, 1), make([]float64, 1)
	inside := 0
	var want float64
	last := time.Now()
	for k := range datasets {
		if time.Since(last) > 5*time.Second {
			prog.Printf("%v: data set %d of %d", s, k, datasets)
			last = time.Now()
		}
		r := rand.New(rand.NewPCG(seed, uint64(k)))
		p.Prior.Sample(r, theta)
		if err := p.Simulator.Simulate(r, theta, obs); err != nil {
			return result{}, err
		}
		cfg.Seed = r.Uint64()
		p.Observed = obs
		res, err := abc.ABCDP(ctx, p, cfg)
		if err != nil {
			return result{}, err
		}
		col := res.Draws.Column(0)
		cp := len(col)
		if cp < 2 {
			out.short++
			continue
		}
		if cp < cDraws {
			out.partial++
		}
		lo, hi, rank := math.Inf(1), math.Inf(-1), 0
		for _, v := range col {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if v < theta[0] {
				rank++
			}
		}
		if theta[0] > lo && theta[0] < hi {
			inside++
		}
		if cp == cDraws {
			out.ranks[rank]++
		}
		want += float64(cp-1) / float64(cp+1)
		out.width += sdRatio(col, obs[0])
		out.datasets++
	}
	if out.datasets == 0 {
		return result{}, errors.New("no run released two draws")
	}
	out.cover, out.nominal = float64(inside)/float64(out.datasets), want/float64(out.datasets)
	out.width /= float64(out.datasets)
	return out, nil
}

func run(ctx context.Context, cfg cli.Count, stdout, stderr io.Writer) error {
	if err := cfg.Prepare(); err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	prog.Printf("ε_total = 10⁴ (exact limit): SBC over %d data sets", cfg.N)
	ex, err := exactSBC(ctx, cfg.N, cfg.Seed, prog)
	if err != nil {
		return err
	}
	rows := []result{ex}
	for k, s := range noisy {
		prog.Printf("%v: %d data sets", s, cfg.N)
		res, err := noisyRuns(ctx, s, cfg.N, cfg.Seed*1000+uint64(k+1), prog)
		if err != nil {
			return err
		}
		rows = append(rows, res)
	}
	prog.Printf("done")

	fmt.Fprintf(stdout, "ABCDP posterior over repeated data sets: θ ~ Beta(2, 2), n = %d Bernoulli(θ) records, summary the mean, ε_abc = 0.5/n,\n"+
		"c = %d of T = %d public draws; %d data sets per setting (seed %d). Exact posterior draws: ranks uniform on 0..%d,\n"+
		"[min, max] covers with probability %.1f, ranks 0 or %d with probability %.1f.\n\n",
		nRecords, cDraws, tPublic, cfg.N, cfg.Seed, cDraws, float64(cDraws-1)/float64(cDraws+1), cDraws, 2/float64(cDraws+1))
	var t cli.Table
	t.Header = []string{"setting", "coverage of [min, max]", "nominal", "z", "ranks 0 or c", "SBC p", "sd / exact sd", "runs c′ < c", "no interval", "rank histogram 0..c"}
	var csvRows, rankRows [][]string
	var under []string
	for _, r := range rows {
		z := (r.cover - r.nominal) / r.se()
		p := "—"
		if !math.IsNaN(r.pValue) {
			p = fmt.Sprintf("%.3g", r.pValue)
		}
		name := r.String()
		if r.exact {
			name += " (exact limit)"
		}
		t.Add(name, fmt.Sprintf("%.4f ± %.4f", r.cover, r.se()), fmt.Sprintf("%.4f", r.nominal), fmt.Sprintf("%+.1f", z),
			fmt.Sprintf("%.3f", r.extremes()), p, fmt.Sprintf("%.2f", r.width), strconv.Itoa(r.partial), strconv.Itoa(r.short), fmt.Sprint(r.ranks))
		if !r.exact && z < -4 {
			under = append(under, fmt.Sprintf("%v: %.4f against %.4f (z = %+.1f)", r.setting, r.cover, r.nominal, z))
		}
		csvRows = append(csvRows, append([]string{strconv.FormatFloat(r.eps, 'g', -1, 64), strconv.FormatBool(r.resample),
			strconv.Itoa(r.datasets), strconv.Itoa(r.partial), strconv.Itoa(r.short)}, cli.FloatRow(r.cover, r.nominal, r.se(), r.extremes(), r.pValue, r.width)...))
		for k, v := range r.ranks {
			rankRows = append(rankRows, []string{strconv.FormatFloat(r.eps, 'g', -1, 64), strconv.FormatBool(r.resample), strconv.Itoa(k), strconv.Itoa(v)})
		}
	}
	t.Markdown(stdout)
	fmt.Fprintf(stdout, "\n± is the Monte Carlo standard error; z = (coverage − nominal)/se. \"ranks 0 or c\" below %.1f means the draws are wider\n"+
		"than the exact posterior (conservative), above it narrower (over-confident). \"sd / exact sd\" is the mean sample sd of the\n"+
		"released draws over the exact posterior's sd given the confidential data (about 0.97 for %d exact draws, whose sample sd\n"+
		"is biased low; the prior's sd is about %.1f times the posterior's at n = %d): calibration is not accuracy, and draws from\n"+
		"the prior itself would be calibrated too.\n", 2/float64(cDraws+1), cDraws, priorRatio(), nRecords)

	zEx := (ex.cover - ex.nominal) / ex.se()
	what := "ABCDP paper Prop. 4.2 and Thm 4.3 (as the noise vanishes ABCDP's draws are rejection ABC's: exact posterior here)"
	if ex.pValue >= 1e-3 && math.Abs(zEx) <= 4 {
		cli.PrintVerdict(stdout, cli.Reproduced, what, fmt.Sprintf("at ε_total = 10⁴ the SBC ranks over %d data sets are uniform (p = %.3g ≥ 10⁻³) and [min, max] of the %d draws covers %.4f against 0.8 (z = %+.1f)",
			ex.datasets, ex.pValue, cDraws, ex.cover, zEx))
	} else {
		cli.PrintVerdict(stdout, cli.Differs, what, fmt.Sprintf("at ε_total = 10⁴ the SBC p-value is %.3g and the coverage %.4f against 0.8 (z = %+.1f)", ex.pValue, ex.cover, zEx))
	}
	what = "ABCDP at the paper's budgets (ε_total = 20 and 1, with and without RESAMPLE): posterior intervals not over-confident"
	if len(under) == 0 {
		var parts []string
		for _, r := range rows[1:] {
			parts = append(parts, fmt.Sprintf("%v: %.3f (nominal %.3f; draws' sd %.2f × the exact posterior's)", r.setting, r.cover, r.nominal, r.width))
		}
		cli.PrintVerdict(stdout, cli.Reproduced, what, fmt.Sprintf("coverage of [min, max] at least nominal less 4 Monte Carlo se (%.3f) in every setting: %s; at ε_total = 1 the draws are about as wide as the prior (%.1f × the posterior's sd)", rows[1].se(), strings.Join(parts, "; "), priorRatio()))
	} else {
		cli.PrintVerdict(stdout, cli.Differs, what, "over-confident: "+strings.Join(under, "; "))
	}

	f, err := cfg.WriteCSV("coverage.csv", []string{"eps_total", "resample", "datasets_with_interval", "runs_fewer_than_c", "runs_no_interval",
		"coverage", "nominal", "mc_se", "share_ranks_0_or_c", "sbc_p_value", "mean_sd_over_exact_sd"}, csvRows)
	if err != nil || f == "" {
		return err
	}
	f2, err := cfg.WriteCSV("ranks.csv", []string{"eps_total", "resample", "rank", "count"}, rankRows)
	if err != nil {
		return err
	}
	var ss []plot.Series
	var iv []plot.Interval
	for _, r := range rows {
		name := r.String()
		if r.exact {
			name += " (exact)"
		}
		s := plot.Series{Name: name}
		n := float64(r.ranked())
		for k, v := range r.ranks {
			s.X, s.Y = append(s.X, float64(k)), append(s.Y, float64(v)/n)
		}
		ss = append(ss, s)
		iv = append(iv, plot.Interval{Label: name, Group: "coverage of [min, max]", Lo: r.cover - 2*r.se(), Mid: r.cover, Hi: r.cover + 2*r.se()})
		iv = append(iv, plot.Interval{Label: name, Group: "nominal for exact draws", Lo: r.nominal, Mid: r.nominal, Hi: r.nominal})
	}
	written := []string{f, f2}
	for _, c := range []struct {
		name string
		draw func() (*plot.Canvas, error)
	}{
		{"abcdp_ranks", plot.LineChart{Title: fmt.Sprintf("ABCDP: SBC rank of θ among the %d draws (share of data sets; dashed: uniform)", cDraws),
			XLabel: "rank", YLabel: "share", Series: ss, HLines: []float64{1 / float64(cDraws+1)}, Width: 900, Height: 520}.Draw},
		{"abcdp_coverage", plot.Intervals{Title: "ABCDP: coverage of [min, max] of the released draws, ±2 MC se", XLabel: "coverage",
			Rows: iv, Width: 900}.Draw},
	} {
		cv, err := c.draw()
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		p, err := cfg.WritePlot(c.name, cv)
		if err != nil {
			return err
		}
		written = append(written, p...)
	}
	fmt.Fprintf(stdout, "wrote %s\n", strings.Join(written, ", "))
	return nil
}
