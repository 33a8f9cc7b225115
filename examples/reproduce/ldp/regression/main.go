// Command regression reproduces the regression experiments of the LDP
// paper (Kulkarni, Jälkö, Kaski and Honkela §4.6) on the paper's real data,
// with its private baseline LDP-SGD (package mechanism/ldp/sgd):
//
//   - Fig. 4: linear regression on Wine (Cortez et al. 2009, 6,497 wines,
//     12 inputs, embedded): test RMSE over repeated 80/20 splits of the
//     sufficient-statistics model (§3.1.1, Corollary 3.1 sensitivity with
//     R = 1, R_y = 2) against LDP-SGD, with a non-private least-squares
//     fit for reference.
//   - Fig. 5: logistic regression on Adult (UCI, 45,222 complete records;
//     read from the shared data folder or -data): test AUC over repeated
//     splits of the sufficient-statistics model (§3.1.2, Corollary 13.1,
//     NUTS on θ and Σ), the input-perturbation model (§3.2.3, 10,000
//     records, budget split c = 0.5 between x and y) and LDP-SGD on the
//     same 10,000 records, with a non-private logistic fit.
//   - Coverage of the regression posteriors over data sets drawn from the
//     prior predictive (as the paper's Fig. 1 does for its Gaussian model):
//     the sufficient-statistics linear and logistic models and the
//     input-perturbation linear model.
//
// Preprocessing follows §4.1–4.2: inputs standardised, reduced by PCA to d
// components, scaled so that 95% of the training norms are ≤ 1 and clipped
// to norm 1 (R = 1); outcomes centred (and, for the linear model, clipped
// to |y| ≤ R_y = 2, while the test outcomes are not). The preprocessing
// uses the training data outside the privacy accounting, as the paper's
// does. The releases are simulated on these public data sets through the
// mechanisms' simulation path (mechanism.Simulate, the law of the secure
// release) and the seeded LDP-SGD; a deployment releases through
// mechanism.Gaussian.Release and sgd.Train without Config.Reproducible.
//
// The paper prints its results only as plots; the example compares with
// the findings its text states and prints our numbers.
//
//	go run ./examples/reproduce/ldp/regression -quick
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/ldp/ldpdata"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/ldp"
	"github.com/privinfer/privinfer/mechanism"
	mldp "github.com/privinfer/privinfer/mechanism/ldp"
	"github.com/privinfer/privinfer/mechanism/ldp/sgd"
	"github.com/privinfer/privinfer/simulate"
)

type config struct {
	repeats    int
	epsLin     []float64
	epsLog     []float64
	delta      float64
	dWine      int
	dAdult     int
	inputN     int
	warmup     int
	draws      int
	chains     int
	covReps    int
	covN       int
	dataDir    string
	seed       uint64
	out        string
	skipAdult  bool
	skipWine   bool
	skipCover  bool
	adultLimit int // use at most this many Adult records (0: all)
	sgdRate    float64
	// chainProgress receives the NUTS runs' progress (set by run).
	chainProgress privinfer.ProgressFunc
}

func main() {
	fs := flag.NewFlagSet("regression", flag.ContinueOnError)
	cli.Main("regression", cli.FlagUsage(fs), func(args []string, stdout, stderr io.Writer) error {
		cfg, err := parse(fs, args)
		if err != nil {
			return err
		}
		return run(context.Background(), cfg, stdout, stderr)
	})
}

func parseList(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 1) {
			return nil, fmt.Errorf("bad ε %q", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func parse(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	fs.IntVar(&c.repeats, "repeats", 30, "repeated train/test splits and releases per ε (the paper: 30)")
	epsLin := fs.String("eps-lin", "0.5,1,2,4,8", "ε values of Fig. 4 (Wine)")
	epsLog := fs.String("eps-log", "0.2,0.4,0.8,1.6,3.2", "ε values of Fig. 5 (Adult)")
	fs.Float64Var(&c.delta, "delta", 1e-5, "δ of every Gaussian release")
	fs.IntVar(&c.dWine, "d-wine", 5, "principal components kept for Wine")
	fs.IntVar(&c.dAdult, "d-adult", 5, "principal components kept for Adult")
	fs.IntVar(&c.inputN, "input-n", 10000, "records of the input-perturbation model and of LDP-SGD in Fig. 5 (the paper: 10,000)")
	fs.IntVar(&c.warmup, "warmup", 1000, "NUTS warm-up iterations per chain")
	fs.IntVar(&c.draws, "draws", 1000, "NUTS draws retained per chain")
	fs.IntVar(&c.chains, "chains", 4, "chains per posterior (the paper: 4)")
	fs.IntVar(&c.covReps, "coverage-reps", 200, "prior-predictive data sets per model in the coverage study")
	fs.IntVar(&c.covN, "coverage-n", 2000, "people per data set in the coverage study")
	fs.StringVar(&c.dataDir, "data", "", "folder holding adult/adult.data and adult/adult.test (default: the shared data folder)")
	fs.IntVar(&c.adultLimit, "adult-limit", 0, "use a random subset of at most this many Adult records (0: all)")
	fs.Float64Var(&c.sgdRate, "sgd-rate", 0.3, "LDP-SGD step size η0 (steps η0/√t)")
	fs.BoolVar(&c.skipWine, "skip-wine", false, "skip Fig. 4")
	fs.BoolVar(&c.skipAdult, "skip-adult", false, "skip Fig. 5")
	fs.BoolVar(&c.skipCover, "skip-coverage", false, "skip the coverage study")
	common := cli.Register(fs, 1)
	if err := cli.Parse(fs, args); err != nil {
		return c, err
	}
	if err := cli.QuickDefaults(fs, common.Quick, map[string]string{
		"repeats": "2", "eps-lin": "0.5,8", "eps-log": "0.4,3.2", "warmup": "150", "draws": "150", "chains": "2",
		"coverage-reps": "20",
	}); err != nil {
		return c, err
	}
	c.seed, c.out = common.Seed, common.Out
	var err error
	if c.epsLin, err = parseList(*epsLin); err != nil {
		return c, cli.Usagef("-eps-lin: %v", err)
	}
	if c.epsLog, err = parseList(*epsLog); err != nil {
		return c, cli.Usagef("-eps-log: %v", err)
	}
	if !(c.sgdRate > 0) || math.IsInf(c.sgdRate, 1) {
		return c, cli.Usagef("-sgd-rate must be finite and > 0, got %v", c.sgdRate)
	}
	if !(c.delta > 0 && c.delta < 1) {
		return c, cli.Usagef("-delta must be in (0, 1), got %v", c.delta)
	}
	for _, e := range []error{
		cli.AtLeast("repeats", c.repeats, 1), cli.AtLeast("d-wine", c.dWine, 1), cli.AtLeast("d-adult", c.dAdult, 1),
		cli.AtLeast("input-n", c.inputN, 100), cli.AtLeast("warmup", c.warmup, 10), cli.AtLeast("draws", c.draws, 10),
		cli.AtLeast("chains", c.chains, 1), cli.AtLeast("coverage-reps", c.covReps, 2), cli.AtLeast("coverage-n", c.covN, 10),
		cli.AtLeast("adult-limit", c.adultLimit, 0),
	} {
		if e != nil {
			return c, e
		}
	}
	if c.dWine > ldpdata.WineFeatures || c.dWine > 8 || c.dAdult > 8 {
		return c, cli.Usagef("-d-wine must be ≤ %d and both d ≤ 8", ldpdata.WineFeatures)
	}
	return c, nil
}

func run(ctx context.Context, c config, w, errw io.Writer) error {
	prog := cli.NewProgress(errw)
	c.chainProgress = prog.Every(3*time.Second, "NUTS")
	common := cli.Common{Out: c.out}
	if err := common.Prepare(); err != nil {
		return err
	}
	if !c.skipWine {
		if err := fig4(ctx, c, w, prog, &common); err != nil {
			return err
		}
	}
	if !c.skipAdult {
		if err := fig5(ctx, c, w, prog, &common); err != nil {
			return err
		}
	}
	if !c.skipCover {
		if err := coverage(ctx, c, w, prog, &common); err != nil {
			return err
		}
	}
	return nil
}

// summary holds the mean and standard deviation of a metric over repeats.
type summary struct{ vals []float64 }

func (s *summary) add(v float64) { s.vals = append(s.vals, v) }
func (s summary) mean() float64 {
	m := 0.0
	for _, v := range s.vals {
		m += v / float64(len(s.vals))
	}
	return m
}
func (s summary) sd() float64 {
	if len(s.vals) < 2 {
		return 0
	}
	m, v := s.mean(), 0.0
	for _, x := range s.vals {
		v += (x - m) * (x - m) / float64(len(s.vals)-1)
	}
	return math.Sqrt(v)
}
func (s summary) se() float64 { return s.sd() / math.Sqrt(float64(len(s.vals))) }
func (s summary) String() string {
	return fmt.Sprintf("%s ± %s", cli.F(s.mean(), 3), cli.F(s.sd(), 3))
}

// pairedDiff returns the mean and standard error of a − b over repeats.
func pairedDiff(a, b summary) (mean, se float64) {
	var d summary
	for i := range a.vals {
		d.add(a.vals[i] - b.vals[i])
	}
	return d.mean(), d.se()
}

func initNear(mean []float64, jitter float64) func(int, *rand.Rand, []float64) error {
	return func(_ int, r *rand.Rand, x []float64) error {
		for i := range x {
			x[i] = mean[i] + jitter*r.NormFloat64()
		}
		return nil
	}
}

// maxRHat returns the largest R̂ over the first k parameters.
func maxRHat(draws *privinfer.Draws, k int) float64 {
	m := 0.0
	for j := range k {
		if rh, err := draws.RHat(j); err == nil {
			m = math.Max(m, rh)
		}
	}
	return m
}

// releaseSum simulates n people each releasing stats(i) through g and
// returns the sum of the releases.
func releaseSum(r *rand.Rand, g *mechanism.Gaussian, n, m int, stats func(i int, dst []float64) error) ([]float64, error) {
	z := make([]float64, m)
	t := make([]float64, m)
	rel := make([]float64, m)
	for i := range n {
		if err := stats(i, t); err != nil {
			return nil, err
		}
		if err := mechanism.Simulate(g, r, t, rel); err != nil {
			return nil, err
		}
		for k, v := range rel {
			z[k] += v
		}
	}
	return z, nil
}

// covInit returns the ScaledLKJ coordinates of the diagonal covariance
// with the empirical variances of x (row-major n×d): a public starting
// point for the chains' Σ (any point in the support would do).
func covInit(d int, sd float64) []float64 {
	x := make([]float64, ldp.CovParams(d))
	for j := range d {
		x[j] = math.Log(sd)
	}
	return x
}

// fig4 is Fig. 4: Wine linear regression.
func fig4(ctx context.Context, c config, w io.Writer, prog *cli.Progress, common *cli.Common) error {
	fmt.Fprintf(w, "### Fig. 4: linear regression on Wine, test RMSE\n\n")
	x, y, err := ldpdata.Wine()
	if err != nil {
		return err
	}
	p := ldpdata.WineFeatures
	d := c.dWine
	const ry = 2.0
	fmt.Fprintf(w, "Wine: %d wines, %d inputs → %d principal components, ‖x‖ ≤ 1, quality centred and clipped to |y| ≤ R_y = %g for training (test outcomes unclipped); %d random 80/20 splits per ε, δ = %g. Sufficient statistics: every person releases t(x, y) + N(0, s²I) with s from the analytic Gaussian mechanism at sensitivity √(3R_y⁴/2 + 2R_y² + 2) = %.3f (Corollary 3.1), posterior of (θ, σ, Σ) with θ ~ N(0, 5I), σ ~ Gamma(2, rate 2), Σ ~ scaled LKJ(2) with half-normal(2.5) scales (the paper's priors), NUTS (%d chains × %d draws after %d warm-up, started at moment estimates read off the release); prediction with the posterior mean of θ. LDP-SGD: squared loss on the same training inputs (centred outcomes, unclipped), every person releases one gradient clipped to norm 1 (Δ2 = 2) at (ε, δ), default groups G = ⌈d ln(d+1)/ε²⌉, step %g/√t, final iterate (one step size for every ε, not tuned per ε: on one split, η0 from 0.1 to 1 moves the LDP-SGD RMSE at ε = 0.5 from 0.88 to 1.5). Non-private: least squares on the same training inputs.\n\n",
		len(y), p, d, ry, c.repeats, c.delta, math.Sqrt(1.5*ry*ry*ry*ry+2*ry*ry+2), c.chains, c.draws, c.warmup, c.sgdRate)
	sens, err := mldp.LinRegSensitivityEqual(ry)
	if err != nil {
		return err
	}
	m := ldp.SuffStatDim(d)
	ss := make([]summary, len(c.epsLin))
	sg := make([]summary, len(c.epsLin))
	var np summary
	worstR := 0.0
	for rep := range c.repeats {
		r := rand.New(rand.NewPCG(c.seed, 4000+uint64(rep)))
		train, test := ldpdata.Split(r, len(y), 0.8)
		xtr, xte := ldpdata.Rows(x, p, train), ldpdata.Rows(x, p, test)
		proj, err := ldpdata.FitProjection(xtr, p, d, 0.95)
		if err != nil {
			return err
		}
		ztr, zte := proj.Apply(xtr, true), proj.Apply(xte, true)
		ytr, yte := ldpdata.Pick(y, train), ldpdata.Pick(y, test)
		ybar := 0.0
		for _, v := range ytr {
			ybar += v / float64(len(ytr))
		}
		yc := make([]float64, len(ytr))    // centred, unclipped
		yclip := make([]float64, len(ytr)) // centred, clipped to ±R_y
		for i, v := range ytr {
			yc[i] = v - ybar
			yclip[i] = mechanism.Clamp(v-ybar, -ry, ry)
		}
		ytc := make([]float64, len(yte))
		for i, v := range yte {
			ytc[i] = v - ybar
		}
		pred := func(theta []float64) []float64 {
			out := make([]float64, len(yte))
			for i := range out {
				for j := range d {
					out[i] += zte[i*d+j] * theta[j]
				}
			}
			return out
		}
		np.add(ldpdata.RMSE(pred(leastSquares(ztr, yclip, d)), ytc))
		n := len(ytr)
		for ei, eps := range c.epsLin {
			prog.Printf("Fig. 4: repeat %d/%d, ε = %g", rep+1, c.repeats, eps)
			g, err := mechanism.NewAnalyticGaussian(mechanism.GaussianConfig{Epsilon: eps, Delta: c.delta, Sensitivity: sens, Dim: m})
			if err != nil {
				return err
			}
			z, err := releaseSum(r, g, n, m, func(i int, dst []float64) error { return ldp.SuffStats(ztr[i*d:(i+1)*d], yclip[i], dst) })
			if err != nil {
				return err
			}
			s := g.NoiseSigma()
			model, err := ldp.NewSuffStatLinReg(ldp.SuffStatLinRegConfig{Z: z, Dim: d, N: n, Sigma1: s, Sigma2: s, Sigma3: s})
			if err != nil {
				return err
			}
			post, err := ldp.NewSuffStatCovPosterior(model, ldp.SuffStatCovPosteriorConfig{SDTheta: math.Sqrt(5), Shape: 2, Rate: 2, Cov: ldp.ScaledLKJ{Eta: 2, Scale: 2.5}})
			if err != nil {
				return err
			}
			start, err := suffStatStart(z, d, n, ldp.ScaledLKJ{Eta: 2, Scale: 2.5})
			if err != nil {
				return err
			}
			res, err := ldp.Sample(ctx, post, mcmc.NUTS{}, mcmc.Config{Chains: c.chains, Warmup: c.warmup, Draws: c.draws, Seed: r.Uint64(), InitFunc: initNear(start, 0.05), Progress: c.chainProgress})
			if err != nil {
				return err
			}
			worstR = math.Max(worstR, maxRHat(res, d))
			ss[ei].add(ldpdata.RMSE(pred(res.Mean()[:d]), ytc))
			sr, err := sgd.Train(ctx, ztr, yc, d, sgd.Config{Loss: sgd.Squared, Epsilon: eps, Delta: c.delta, LearningRate: c.sgdRate, Seed: r.Uint64(), Reproducible: true})
			if err != nil {
				return err
			}
			sg[ei].add(ldpdata.RMSE(pred(sr.Theta), ytc))
		}
	}
	tab := cli.Table{Header: []string{"ε", "sufficient statistics RMSE", "LDP-SGD RMSE", "difference (suff. − SGD) ± s.e.", "non-private RMSE"}}
	var xs, ys1, ys2, lo1, hi1, lo2, hi2 []float64
	for ei, eps := range c.epsLin {
		dm, dse := pairedDiff(ss[ei], sg[ei])
		tab.Add(cli.F(eps, 2), ss[ei].String(), sg[ei].String(), fmt.Sprintf("%s ± %s", cli.F(dm, 3), cli.F(dse, 3)), np.String())
		xs = append(xs, eps)
		ys1, lo1, hi1 = append(ys1, ss[ei].mean()), append(lo1, ss[ei].mean()-ss[ei].sd()), append(hi1, ss[ei].mean()+ss[ei].sd())
		ys2, lo2, hi2 = append(ys2, sg[ei].mean()), append(lo2, sg[ei].mean()-sg[ei].sd()), append(hi2, sg[ei].mean()+sg[ei].sd())
	}
	tab.Markdown(w)
	fmt.Fprintf(w, "Means ± standard deviations over %d repeats; largest R̂ of θ over all fits %.3f (the paper requires < 1.1).\n", c.repeats, worstR)
	// The paper's findings: the sufficient-statistics model is better at
	// small ε, LDP-SGD at large ε.
	d0, s0 := pairedDiff(ss[0], sg[0])
	d1, s1 := pairedDiff(ss[len(ss)-1], sg[len(sg)-1])
	small := d0+2*s0 < 0
	large := d1-2*s1 > 0
	reason := fmt.Sprintf("paper: the sufficient-statistics model beats LDP-SGD at small ε and LDP-SGD wins as ε grows; ours: RMSE difference (suff. − SGD) %.3f ± %.3f at ε = %g and %.3f ± %.3f at ε = %g (significant at 2 s.e.: %v, %v)",
		d0, s0, c.epsLin[0], d1, s1, c.epsLin[len(c.epsLin)-1], small, large)
	switch {
	case small && large:
		cli.PrintVerdict(w, cli.Reproduced, "LDP Fig. 4 (Wine linear regression vs LDP-SGD)", reason)
	case small || large:
		cli.PrintVerdict(w, cli.Partial, "LDP Fig. 4 (Wine linear regression vs LDP-SGD)", reason)
	default:
		cli.PrintVerdict(w, cli.Differs, "LDP Fig. 4 (Wine linear regression vs LDP-SGD)", reason)
	}
	fmt.Fprintln(w)
	if c.out != "" {
		npl := []float64{np.mean(), np.mean()}
		cv, err := plot.LineChart{Title: "Wine linear regression: test RMSE (LDP Fig. 4)", XLabel: "ε", YLabel: "test RMSE", LogX: true,
			Series: []plot.Series{{Name: "sufficient statistics", X: xs, Y: ys1, Lo: lo1, Hi: hi1}, {Name: "LDP-SGD", X: xs, Y: ys2, Lo: lo2, Hi: hi2},
				{Name: "non-private", X: []float64{xs[0], xs[len(xs)-1]}, Y: npl, Dashed: true}}}.Draw()
		if err != nil {
			return err
		}
		if _, err := common.WritePlot("ldp_fig4_wine_rmse", cv); err != nil {
			return err
		}
		rows := [][]string{}
		for ei, eps := range c.epsLin {
			for k := range ss[ei].vals {
				rows = append(rows, cli.FloatRow(eps, float64(k), ss[ei].vals[k], sg[ei].vals[k], np.vals[k]))
			}
		}
		if _, err := common.WriteCSV("ldp_fig4_wine_rmse.csv", []string{"eps", "repeat", "rmse_suffstat", "rmse_ldpsgd", "rmse_nonprivate"}, rows); err != nil {
			return err
		}
	}
	return nil
}

// leastSquares returns the least-squares coefficients of y on x (n×d).
func leastSquares(x, y []float64, d int) []float64 {
	a := make([]float64, d*d)
	b := make([]float64, d)
	for i := range y {
		for j := range d {
			b[j] += x[i*d+j] * y[i]
			for k := range d {
				a[j*d+k] += x[i*d+j] * x[i*d+k]
			}
		}
	}
	return solve(a, b, d)
}

// solve solves the d×d system a·v = b by Gaussian elimination with partial
// pivoting.
func solve(a, b []float64, d int) []float64 {
	m := append([]float64(nil), a...)
	v := append([]float64(nil), b...)
	for c := range d {
		p := c
		for r := c + 1; r < d; r++ {
			if math.Abs(m[r*d+c]) > math.Abs(m[p*d+c]) {
				p = r
			}
		}
		for k := range d {
			m[c*d+k], m[p*d+k] = m[p*d+k], m[c*d+k]
		}
		v[c], v[p] = v[p], v[c]
		for r := c + 1; r < d; r++ {
			f := m[r*d+c] / m[c*d+c]
			for k := c; k < d; k++ {
				m[r*d+k] -= f * m[c*d+k]
			}
			v[r] -= f * v[c]
		}
	}
	for c := d - 1; c >= 0; c-- {
		for k := c + 1; k < d; k++ {
			v[c] -= m[c*d+k] * v[k]
		}
		v[c] /= m[c*d+c]
	}
	return v
}

// logisticMLE fits logistic regression without intercept by Newton's
// method.
func logisticMLE(x, y []float64, d int) []float64 {
	theta := make([]float64, d)
	for range 50 {
		h := make([]float64, d*d)
		g := make([]float64, d)
		for i := range y {
			u := 0.0
			for j := range d {
				u += x[i*d+j] * theta[j]
			}
			pr := 1 / (1 + math.Exp(-u))
			for j := range d {
				g[j] += (y[i] - pr) * x[i*d+j]
				for k := range d {
					h[j*d+k] += pr * (1 - pr) * x[i*d+j] * x[i*d+k]
				}
			}
		}
		step := solve(h, g, d)
		mx := 0.0
		for j := range d {
			theta[j] += step[j]
			mx = math.Max(mx, math.Abs(step[j]))
		}
		if mx < 1e-10 {
			break
		}
	}
	return theta
}

// fig5 is Fig. 5: Adult logistic regression.
func fig5(ctx context.Context, c config, w io.Writer, prog *cli.Progress, common *cli.Common) error {
	fmt.Fprintf(w, "### Fig. 5: logistic regression on Adult, test AUC\n\n")
	dir := c.dataDir
	if dir == "" {
		path, ok := cli.SharedFile("data/adult/adult.data")
		if !ok {
			fmt.Fprintf(w, "Adult is not present (looked for adult/adult.data in the shared data folder; pass -data DIR with DIR/adult/adult.data and DIR/adult/adult.test, from the UCI Machine Learning Repository, DOI 10.24432/C5XW20). Fig. 5 skipped.\n\n")
			return nil
		}
		dir = filepath.Dir(path)
	} else {
		dir = filepath.Join(dir, "adult")
	}
	x, y, p, err := ldpdata.Adult(dir)
	if err != nil {
		return err
	}
	if c.adultLimit > 0 && c.adultLimit < len(y) {
		r := rand.New(rand.NewPCG(c.seed, 77))
		idx := r.Perm(len(y))[:c.adultLimit]
		x, y = ldpdata.Rows(x, p, idx), ldpdata.Pick(y, idx)
	}
	d := c.dAdult
	cheb, err := ldp.ChebyshevSigmoid(-3, 3)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Adult: %d complete records (income >50K), %d inputs (6 continuous, one-hot categories) → %d principal components, ‖x‖ ≤ 1; %d random 80/20 splits per ε, δ = %g. Sufficient statistics (all training records): every person releases [y·x, t2(x)] (y = ±1) + N(0, s²I), s from the analytic Gaussian mechanism at sensitivity √4.5 (Corollary 13.1); posterior of (θ, Σ), θ ~ N(0, 5I), Σ ~ scaled LKJ(2) with half-normal(2.5) scales, exact logistic link in the moments, NUTS (%d chains × %d draws after %d warm-up). Input perturbation (%d random training records): x released with the analytic Gaussian mechanism at (ε/2, δ), sensitivity 2R = 2, y by randomized response at ε/2 (c = 0.5); likelihood of §12.2 with the second-order Chebyshev expansion on [−3, 3], Σ fixed at the released inputs' covariance minus the noise, θ ~ N(0, 5I), NUTS. LDP-SGD: logistic loss on the same %d records, gradients clipped to norm 1, step %g/√t, final iterate. Non-private: logistic maximum likelihood (no intercept, like the models) on all training records. Scores xᵀθ with the posterior mean of θ (or the SGD model).\n\n",
		len(y), p, d, c.repeats, c.delta, c.chains, c.draws, c.warmup, c.inputN, c.inputN, c.sgdRate)
	m := ldp.LogRegStatDim(d)
	suff := make([]summary, len(c.epsLog))
	inp := make([]summary, len(c.epsLog))
	sg := make([]summary, len(c.epsLog))
	var np summary
	worstR := 0.0
	for rep := range c.repeats {
		r := rand.New(rand.NewPCG(c.seed, 5000+uint64(rep)))
		train, test := ldpdata.Split(r, len(y), 0.8)
		xtr, xte := ldpdata.Rows(x, p, train), ldpdata.Rows(x, p, test)
		proj, err := ldpdata.FitProjection(xtr, p, d, 0.95)
		if err != nil {
			return err
		}
		ztr, zte := proj.Apply(xtr, true), proj.Apply(xte, true)
		ytr, yte := ldpdata.Pick(y, train), ldpdata.Pick(y, test)
		auc := func(theta []float64) float64 {
			s := make([]float64, len(yte))
			for i := range s {
				for j := range d {
					s[i] += zte[i*d+j] * theta[j]
				}
			}
			return ldpdata.AUC(s, yte)
		}
		np.add(auc(logisticMLE(ztr, ytr, d)))
		n := len(ytr)
		sub := r.Perm(n)[:min(c.inputN, n)]
		xs, ys := ldpdata.Rows(ztr, d, sub), ldpdata.Pick(ytr, sub)
		var sdx float64 // public-scale start for τ: the inputs' typical coordinate scale
		for _, v := range ztr {
			sdx += v * v / float64(len(ztr))
		}
		sdx = math.Sqrt(sdx)
		for ei, eps := range c.epsLog {
			prog.Printf("Fig. 5: repeat %d/%d, ε = %g", rep+1, c.repeats, eps)
			// Sufficient statistics.
			g, err := mechanism.NewAnalyticGaussian(mechanism.GaussianConfig{Epsilon: eps, Delta: c.delta, Sensitivity: mldp.LogRegSensitivityEqual(), Dim: m})
			if err != nil {
				return err
			}
			z, err := releaseSum(r, g, n, m, func(i int, dst []float64) error {
				return ldp.LogRegStats(ztr[i*d:(i+1)*d], 2*ytr[i]-1, dst)
			})
			if err != nil {
				return err
			}
			model, err := ldp.NewSuffStatLogReg(ldp.SuffStatLogRegConfig{Z: z, Dim: d, N: n, Sigma1: g.NoiseSigma(), Sigma2: g.NoiseSigma()})
			if err != nil {
				return err
			}
			post, err := ldp.NewSuffStatLogRegCovPosterior(model, ldp.SuffStatLogRegCovPosteriorConfig{SDTheta: math.Sqrt(5), Cov: ldp.ScaledLKJ{Eta: 2, Scale: 2.5}})
			if err != nil {
				return err
			}
			start := make([]float64, post.Dim())
			copy(start[d:], covInit(d, sdx))
			res, err := ldp.Sample(ctx, post, mcmc.NUTS{}, mcmc.Config{Chains: c.chains, Warmup: c.warmup, Draws: c.draws, Seed: r.Uint64(), InitFunc: initNear(start, 0.1), Progress: c.chainProgress})
			if err != nil {
				return err
			}
			worstR = math.Max(worstR, maxRHat(res, d))
			suff[ei].add(auc(res.Mean()[:d]))
			// Input perturbation with budget split c = 0.5.
			gx, err := mechanism.NewAnalyticGaussian(mechanism.GaussianConfig{Epsilon: eps / 2, Delta: c.delta, Sensitivity: 2, Dim: d})
			if err != nil {
				return err
			}
			rr, err := mechanism.NewRandomizedResponse(mechanism.LocalConfig{Epsilon: eps / 2, Dim: 1})
			if err != nil {
				return err
			}
			zx := make([]float64, len(xs))
			zy := make([]float64, len(ys))
			for i := range ys {
				if err := mechanism.Simulate(gx, r, xs[i*d:(i+1)*d], zx[i*d:(i+1)*d]); err != nil {
					return err
				}
				if err := mechanism.Simulate(rr, r, ys[i:i+1], zy[i:i+1]); err != nil {
					return err
				}
			}
			sx := gx.NoiseSigma()
			sxs := make([]float64, d)
			for j := range sxs {
				sxs[j] = sx
			}
			data, err := ldp.NewLogRegData(ldp.LogRegDataConfig{ZX: zx, ZY: zy, Dim: d, SX: sxs, EpsilonY: eps / 2})
			if err != nil {
				return err
			}
			fixed, err := data.FixCov(inputCov(zx, d, sx), cheb)
			if err != nil {
				return err
			}
			ipost, err := ldp.NewLogRegPosterior(fixed, ldp.LogRegPosteriorConfig{SDTheta: math.Sqrt(5)})
			if err != nil {
				return err
			}
			ires, err := ldp.Sample(ctx, ipost, mcmc.NUTS{}, mcmc.Config{Chains: c.chains, Warmup: c.warmup, Draws: c.draws, Seed: r.Uint64(), InitFunc: initNear(make([]float64, d), 0.1), Progress: c.chainProgress})
			if err != nil {
				return err
			}
			worstR = math.Max(worstR, maxRHat(ires, d))
			inp[ei].add(auc(ires.Mean()))
			// LDP-SGD on the same records.
			sr, err := sgd.Train(ctx, xs, ys, d, sgd.Config{Loss: sgd.Logistic, Epsilon: eps, Delta: c.delta, LearningRate: c.sgdRate, Seed: r.Uint64(), Reproducible: true})
			if err != nil {
				return err
			}
			sg[ei].add(auc(sr.Theta))
		}
	}
	tab := cli.Table{Header: []string{"ε", "sufficient statistics AUC", "input perturbation AUC", "LDP-SGD AUC", "suff. − SGD ± s.e.", "non-private AUC"}}
	var xsP, y1, y2, y3 []float64
	for ei, eps := range c.epsLog {
		dm, dse := pairedDiff(suff[ei], sg[ei])
		tab.Add(cli.F(eps, 2), suff[ei].String(), inp[ei].String(), sg[ei].String(), fmt.Sprintf("%s ± %s", cli.F(dm, 3), cli.F(dse, 3)), np.String())
		xsP = append(xsP, eps)
		y1, y2, y3 = append(y1, suff[ei].mean()), append(y2, inp[ei].mean()), append(y3, sg[ei].mean())
	}
	tab.Markdown(w)
	fmt.Fprintf(w, "Means ± standard deviations over %d repeats; largest R̂ of θ over all fits %.3f (the paper requires < 1.1).\n", c.repeats, worstR)
	// Findings of §4.6: (a) suff. beats LDP-SGD for ε ≤ 0.8; (b) the input
	// model is clearly worse than the suff. model; (c) at the largest ε
	// suff. nearly matches LDP-SGD (within 0.02 AUC).
	var okA, totA int
	for ei, eps := range c.epsLog {
		if eps <= 0.8 {
			totA++
			if dm, dse := pairedDiff(suff[ei], sg[ei]); dm-2*dse > 0 {
				okA++
			}
		}
	}
	okB := true
	for ei := range c.epsLog {
		if !(inp[ei].mean() < suff[ei].mean()) {
			okB = false
		}
	}
	last := len(c.epsLog) - 1
	gap := suff[last].mean() - sg[last].mean()
	okC := math.Abs(gap) <= 0.02
	nOK := 0
	for _, b := range []bool{okA == totA && totA > 0, okB, okC} {
		if b {
			nOK++
		}
	}
	reason := fmt.Sprintf("paper: the sufficient-statistics model beats LDP-SGD for ε ≤ 0.8, nearly matches it at large ε, and the input-perturbation model stays clearly below; ours: suff. above SGD (2 s.e.) at %d of %d ε ≤ 0.8, input model below suff. at every ε: %v, suff. − SGD at ε = %g: %.3f (nearly equal means within 0.02 AUC)",
		okA, totA, okB, c.epsLog[last], gap)
	if gap > 0.02 {
		reason += "; our LDP-SGD stays below the sufficient-statistics model at the largest ε, weaker than the paper's"
	}
	switch nOK {
	case 3:
		cli.PrintVerdict(w, cli.Reproduced, "LDP Fig. 5 (Adult logistic regression vs LDP-SGD)", reason)
	case 0:
		cli.PrintVerdict(w, cli.Differs, "LDP Fig. 5 (Adult logistic regression vs LDP-SGD)", reason)
	default:
		cli.PrintVerdict(w, cli.Partial, "LDP Fig. 5 (Adult logistic regression vs LDP-SGD)", reason)
	}
	fmt.Fprintln(w)
	if c.out != "" {
		npl := []float64{np.mean(), np.mean()}
		cv, err := plot.LineChart{Title: "Adult logistic regression: test AUC (LDP Fig. 5)", XLabel: "ε", YLabel: "test AUC", LogX: true,
			Series: []plot.Series{{Name: "sufficient statistics", X: xsP, Y: y1}, {Name: "input perturbation", X: xsP, Y: y2}, {Name: "LDP-SGD", X: xsP, Y: y3},
				{Name: "non-private", X: []float64{xsP[0], xsP[last]}, Y: npl, Dashed: true}}}.Draw()
		if err != nil {
			return err
		}
		if _, err := common.WritePlot("ldp_fig5_adult_auc", cv); err != nil {
			return err
		}
		rows := [][]string{}
		for ei, eps := range c.epsLog {
			for k := range suff[ei].vals {
				rows = append(rows, cli.FloatRow(eps, float64(k), suff[ei].vals[k], inp[ei].vals[k], sg[ei].vals[k], np.vals[k]))
			}
		}
		if _, err := common.WriteCSV("ldp_fig5_adult_auc.csv", []string{"eps", "repeat", "auc_suffstat", "auc_input", "auc_ldpsgd", "auc_nonprivate"}, rows); err != nil {
			return err
		}
	}
	return nil
}

// inputCov returns the empirical covariance of the released inputs
// (n×d, mean zero by design) minus the noise variance, with its
// eigenvalues floored at 1e-3 of the largest so that it stays positive
// definite: a plug-in Σ for the input-perturbation model.
func inputCov(zx []float64, d int, sx float64) []float64 {
	n := len(zx) / d
	c := make([]float64, d*d)
	for i := range n {
		for j := range d {
			for k := range d {
				c[j*d+k] += zx[i*d+j] * zx[i*d+k] / float64(n)
			}
		}
	}
	for j := range d {
		c[j*d+j] -= sx * sx
	}
	return floorEigen(c, d, 1e-3)
}

// floorEigen returns a with its eigenvalues floored at frac times the
// largest (by Jacobi rotations).
func floorEigen(a []float64, d int, frac float64) []float64 {
	m := append([]float64(nil), a...)
	v := make([]float64, d*d)
	for i := range d {
		v[i*d+i] = 1
	}
	for range 100 {
		off := 0.0
		for i := range d {
			for j := i + 1; j < d; j++ {
				off += m[i*d+j] * m[i*d+j]
			}
		}
		if off < 1e-30 {
			break
		}
		for i := range d {
			for j := i + 1; j < d; j++ {
				if m[i*d+j] == 0 {
					continue
				}
				th := (m[j*d+j] - m[i*d+i]) / (2 * m[i*d+j])
				t := math.Copysign(1, th) / (math.Abs(th) + math.Sqrt(th*th+1))
				cs := 1 / math.Sqrt(t*t+1)
				sn := t * cs
				for k := range d {
					a1, a2 := m[k*d+i], m[k*d+j]
					m[k*d+i], m[k*d+j] = cs*a1-sn*a2, sn*a1+cs*a2
				}
				for k := range d {
					a1, a2 := m[i*d+k], m[j*d+k]
					m[i*d+k], m[j*d+k] = cs*a1-sn*a2, sn*a1+cs*a2
				}
				for k := range d {
					a1, a2 := v[k*d+i], v[k*d+j]
					v[k*d+i], v[k*d+j] = cs*a1-sn*a2, sn*a1+cs*a2
				}
			}
		}
	}
	top := 0.0
	for i := range d {
		top = math.Max(top, m[i*d+i])
	}
	if top <= 0 {
		top = 1
	}
	out := make([]float64, d*d)
	for e := range d {
		lam := math.Max(m[e*d+e], frac*top)
		for j := range d {
			for k := range d {
				out[j*d+k] += lam * v[j*d+e] * v[k*d+e]
			}
		}
	}
	return out
}

// clopperPearson is the exact two-sided 1−alpha interval of a binomial
// proportion with k successes in n trials.
func clopperPearson(k, n int, alpha float64) (lo, hi float64) {
	lo, hi = 0, 1
	if k > 0 {
		if b, err := simulate.NewBeta(simulate.BetaConfig{Alpha: float64(k), Beta: float64(n - k + 1)}); err == nil {
			lo = b.Quantile(alpha / 2)
		}
	}
	if k < n {
		if b, err := simulate.NewBeta(simulate.BetaConfig{Alpha: float64(k + 1), Beta: float64(n - k)}); err == nil {
			hi = b.Quantile(1 - alpha/2)
		}
	}
	return lo, hi
}
