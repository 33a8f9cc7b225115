package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/plot"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/ldp"
	"github.com/privinfer/privinfer/mechanism"
	mldp "github.com/privinfer/privinfer/mechanism/ldp"
)

// covLevels are the central posterior intervals of the coverage study
// (those of the paper's Figs 1, 10 and 11).
var covLevels = []float64{0.5, 0.7, 0.9, 0.95}

// coverageModel simulates one prior-predictive data set and its release
// and returns the posterior draws of θ (first d columns) with the true θ.
type coverageModel struct {
	name string
	fit  func(ctx context.Context, r *rand.Rand) (draws *privinfer.Draws, theta []float64, err error)
}

// The coverage study's settings: d = 2 inputs, ε = 1, R_y = 2.
const covD, covEps, covRy = 2, 1.0, 2.0

// coverageModels returns the three models of the coverage study, each
// drawing a prior-predictive data set, its release and the posterior.
func coverageModels(c config) ([]coverageModel, error) {
	const d, eps, ry = covD, covEps, covRy
	n := c.covN
	prior := ldp.ScaledLKJ{Eta: 2, Scale: 2.5}
	drawTheta := func(r *rand.Rand) []float64 {
		th := make([]float64, d)
		for j := range th {
			th[j] = math.Sqrt(5) * r.NormFloat64()
		}
		return th
	}
	drawX := func(r *rand.Rand, sigma []float64) []float64 {
		l := []float64{math.Sqrt(sigma[0]), 0, sigma[2] / math.Sqrt(sigma[0]), 0}
		l[3] = math.Sqrt(math.Max(sigma[3]-l[2]*l[2], 0))
		x := make([]float64, n*d)
		for i := range n {
			u0, u1 := r.NormFloat64(), r.NormFloat64()
			x[i*d], x[i*d+1] = l[0]*u0, l[2]*u0+l[3]*u1
		}
		return x
	}
	gammaDraw := func(r *rand.Rand) float64 { return (r.ExpFloat64() + r.ExpFloat64()) / 2 } // Gamma(2, rate 2)
	nutsCfg := func(r *rand.Rand, start []float64) mcmc.Config {
		return mcmc.Config{Chains: c.chains, Warmup: c.warmup, Draws: c.draws, Seed: r.Uint64(), InitFunc: initNear(start, 0.05), Progress: c.chainProgress}
	}
	sensLin, err := mldp.LinRegSensitivityEqual(ry)
	if err != nil {
		return nil, err
	}
	models := []coverageModel{
		{"sufficient statistics, linear", func(ctx context.Context, r *rand.Rand) (*privinfer.Draws, []float64, error) {
			theta := drawTheta(r)
			sg := gammaDraw(r)
			sigma := make([]float64, d*d)
			if err := prior.Sample(r, d, sigma); err != nil {
				return nil, nil, err
			}
			x := drawX(r, sigma)
			m := ldp.SuffStatDim(d)
			g, err := mechanism.NewAnalyticGaussian(mechanism.GaussianConfig{Epsilon: eps, Delta: c.delta, Sensitivity: sensLin, Dim: m})
			if err != nil {
				return nil, nil, err
			}
			z, err := releaseSum(r, g, n, m, func(i int, dst []float64) error {
				xi := x[i*d : (i+1)*d]
				return ldp.SuffStats(xi, theta[0]*xi[0]+theta[1]*xi[1]+sg*r.NormFloat64(), dst)
			})
			if err != nil {
				return nil, nil, err
			}
			s := g.NoiseSigma()
			model, err := ldp.NewSuffStatLinReg(ldp.SuffStatLinRegConfig{Z: z, Dim: d, N: n, Sigma1: s, Sigma2: s, Sigma3: s})
			if err != nil {
				return nil, nil, err
			}
			post, err := ldp.NewSuffStatCovPosterior(model, ldp.SuffStatCovPosteriorConfig{SDTheta: math.Sqrt(5), Shape: 2, Rate: 2, Cov: prior})
			if err != nil {
				return nil, nil, err
			}
			start, err := suffStatStart(z, d, n, prior)
			if err != nil {
				return nil, nil, err
			}
			res, err := ldp.Sample(ctx, post, mcmc.NUTS{}, nutsCfg(r, start))
			return res, theta, err
		}},
		{"sufficient statistics, logistic", func(ctx context.Context, r *rand.Rand) (*privinfer.Draws, []float64, error) {
			theta := drawTheta(r)
			sigma := make([]float64, d*d)
			if err := prior.Sample(r, d, sigma); err != nil {
				return nil, nil, err
			}
			x := drawX(r, sigma)
			m := ldp.LogRegStatDim(d)
			g, err := mechanism.NewAnalyticGaussian(mechanism.GaussianConfig{Epsilon: eps, Delta: c.delta, Sensitivity: mldp.LogRegSensitivityEqual(), Dim: m})
			if err != nil {
				return nil, nil, err
			}
			z, err := releaseSum(r, g, n, m, func(i int, dst []float64) error {
				xi := x[i*d : (i+1)*d]
				y := -1.0
				if r.Float64() < 1/(1+math.Exp(-(theta[0]*xi[0]+theta[1]*xi[1]))) {
					y = 1
				}
				return ldp.LogRegStats(xi, y, dst)
			})
			if err != nil {
				return nil, nil, err
			}
			model, err := ldp.NewSuffStatLogReg(ldp.SuffStatLogRegConfig{Z: z, Dim: d, N: n, Sigma1: g.NoiseSigma(), Sigma2: g.NoiseSigma()})
			if err != nil {
				return nil, nil, err
			}
			post, err := ldp.NewSuffStatLogRegCovPosterior(model, ldp.SuffStatLogRegCovPosteriorConfig{SDTheta: math.Sqrt(5), Cov: prior})
			if err != nil {
				return nil, nil, err
			}
			res, err := ldp.Sample(ctx, post, mcmc.NUTS{}, mcmc.Config{Chains: c.chains, Warmup: c.warmup, Draws: c.draws, Seed: r.Uint64(), InitFunc: initNear(make([]float64, post.Dim()), 0.1), Progress: c.chainProgress})
			return res, theta, err
		}},
		{"input perturbation, linear (eq. 41)", func(ctx context.Context, r *rand.Rand) (*privinfer.Draws, []float64, error) {
			theta := drawTheta(r)
			sg := gammaDraw(r)
			sigma := make([]float64, d*d)
			if err := prior.Sample(r, d, sigma); err != nil {
				return nil, nil, err
			}
			x := drawX(r, sigma)
			gx, err := mechanism.NewAnalyticGaussian(mechanism.GaussianConfig{Epsilon: eps / 2, Delta: c.delta / 2, Sensitivity: 2, Dim: d})
			if err != nil {
				return nil, nil, err
			}
			gy, err := mechanism.NewAnalyticGaussian(mechanism.GaussianConfig{Epsilon: eps / 2, Delta: c.delta / 2, Sensitivity: 2 * ry, Dim: 1})
			if err != nil {
				return nil, nil, err
			}
			zx := make([]float64, n*d)
			zy := make([]float64, n)
			for i := range n {
				xi := x[i*d : (i+1)*d]
				y := []float64{theta[0]*xi[0] + theta[1]*xi[1] + sg*r.NormFloat64()}
				if err := mechanism.Simulate(gx, r, xi, zx[i*d:(i+1)*d]); err != nil {
					return nil, nil, err
				}
				if err := mechanism.Simulate(gy, r, y, zy[i:i+1]); err != nil {
					return nil, nil, err
				}
			}
			sx := gx.NoiseSigma()
			data, err := ldp.NewLinRegData(ldp.LinRegDataConfig{ZX: zx, ZY: zy, Dim: d, SX: []float64{sx, sx}})
			if err != nil {
				return nil, nil, err
			}
			post, err := ldp.NewLinRegCovPosterior(data, ldp.LinRegCovPosteriorConfig{SY: gy.NoiseSigma(), SDTheta: math.Sqrt(5), Shape: 2, Rate: 2, Cov: prior})
			if err != nil {
				return nil, nil, err
			}
			start, err := inputStart(zx, zy, d, sx, gy.NoiseSigma(), prior)
			if err != nil {
				return nil, nil, err
			}
			res, err := ldp.Sample(ctx, post, mcmc.NUTS{}, nutsCfg(r, start))
			return res, theta, err
		}},
	}
	return models, nil
}

// coverage runs the coverage study of the regression posteriors.
func coverage(ctx context.Context, c config, w io.Writer, prog *cli.Progress, common *cli.Common) error {
	const d, eps, ry = covD, covEps, covRy
	n := c.covN
	fmt.Fprintf(w, "### Coverage of the regression posteriors (prior predictive)\n\n")
	fmt.Fprintf(w, "For each model, %d data sets of N = %d people (d = %d) are drawn from the prior predictive — θ ~ N(0, 5I), Σ ~ scaled LKJ(2) with half-normal(2.5) scales, σ ~ Gamma(2, rate 2) for the linear models, x ~ N(0, Σ) unclipped — and released at ε = %g, δ = %g with the noise the paper's sensitivities give (R = 1, R_y = %g); the table gives the fraction of data sets whose true θ_j lies in the central posterior interval, with a 99.9%% Clopper–Pearson band around the nominal level for %d data sets. Models: the sufficient-statistics linear regression (§3.1.1, posterior of θ, σ, Σ), the sufficient-statistics logistic regression (§3.1.2, θ, Σ) and the input-perturbation linear regression (eq. 41, x and y released with half the budget each; θ, σ, Σ); NUTS with %d chains × %d draws after %d warm-up, the linear models' chains started at moment estimates read off the release. The paper shows this study only for its one-dimensional models (Figs 1, 10, 11).\n\n",
		c.covReps, n, d, eps, c.delta, ry, c.covReps, c.chains, c.draws, c.warmup)
	models, err := coverageModels(c)
	if err != nil {
		return err
	}
	tab := cli.Table{Header: []string{"model", "parameter", "50%", "70%", "90%", "95%", "within the 99.9% band", "max R̂"}}
	allOK, outside, cells := true, 0, 0
	var series []plot.Series
	for mi, mod := range models {
		hits := make([][]int, d)
		for j := range hits {
			hits[j] = make([]int, len(covLevels))
		}
		worstR := 0.0
		for rep := range c.covReps {
			prog.Printf("coverage: %s, data set %d/%d", mod.name, rep+1, c.covReps)
			r := rand.New(rand.NewPCG(c.seed, 9000+uint64(mi)*100000+uint64(rep)))
			res, theta, err := mod.fit(ctx, r)
			if err != nil {
				return err
			}
			worstR = math.Max(worstR, maxRHat(res, d))
			for j := range d {
				for li, lv := range covLevels {
					lo, hi := res.Interval(j, lv)
					if theta[j] >= lo && theta[j] <= hi {
						hits[j][li]++
					}
				}
			}
		}
		for j := range d {
			row := []string{mod.name, fmt.Sprintf("θ%d", j+1)}
			ok := true
			s := plot.Series{Name: fmt.Sprintf("%s, θ%d", mod.name, j+1), Dashed: j == 1}
			for li, lv := range covLevels {
				frac := float64(hits[j][li]) / float64(c.covReps)
				lo, hi := clopperPearson(hits[j][li], c.covReps, 1e-3)
				cells++
				if lv < lo || lv > hi {
					ok = false
					outside++
				}
				row = append(row, cli.F(frac, 3))
				s.X, s.Y = append(s.X, lv), append(s.Y, frac)
			}
			allOK = allOK && ok
			row = append(row, map[bool]string{true: "yes", false: "no"}[ok], cli.F(worstR, 3))
			tab.Add(row...)
			series = append(series, s)
		}
	}
	tab.Markdown(w)
	fmt.Fprintf(w, "Monte Carlo error: with %d data sets the standard error of a coverage near level q is √(q(1−q)/%d), %.3f at q = 0.9.\n", c.covReps, c.covReps, math.Sqrt(0.09/float64(c.covReps)))
	if allOK {
		cli.PrintVerdict(w, cli.Reproduced, "LDP regression posteriors, coverage (the paper's calibration study, Figs 1, 10, 11, applied to §3.1.1, §3.1.2 and eq. 41)", fmt.Sprintf("all %d coverages within the 99.9%% Clopper–Pearson band of the nominal level over %d prior-predictive data sets", cells, c.covReps))
	} else {
		cli.PrintVerdict(w, cli.Partial, "LDP regression posteriors, coverage (the paper's calibration study, Figs 1, 10, 11, applied to §3.1.1, §3.1.2 and eq. 41)", fmt.Sprintf("%d of %d coverages outside the 99.9%% Clopper–Pearson band of the nominal level over %d prior-predictive data sets (see table)", outside, cells, c.covReps))
	}
	fmt.Fprintln(w)
	if c.out != "" {
		series = append(series, plot.Series{Name: "nominal", X: covLevels, Y: covLevels, Dashed: true})
		cv, err := plot.LineChart{Title: "Coverage of the LDP regression posteriors", XLabel: "nominal level", YLabel: "empirical coverage", Series: series}.Draw()
		if err != nil {
			return err
		}
		if _, err := common.WritePlot("ldp_regression_coverage", cv); err != nil {
			return err
		}
	}
	return nil
}

// linearStart returns the chains' starting point (θ, log σ, the prior's
// coordinates of Σ) for moment estimates of Σ, Σθ and E[y²] computed from
// the released data (post-processing, no further privacy cost).
func linearStart(sigmaHat, c []float64, ey2 float64, d int, prior ldp.ScaledLKJ) ([]float64, error) {
	sh := floorEigen(sigmaHat, d, 1e-2)
	theta := solve(sh, c, d)
	v := ey2
	for j := range d {
		for k := range d {
			v -= theta[j] * sh[j*d+k] * theta[k]
		}
	}
	v = math.Max(v, 0.01*math.Max(ey2, 1e-6))
	start := make([]float64, d+1+ldp.CovParams(d))
	copy(start, theta)
	start[d] = 0.5 * math.Log(v)
	if err := prior.Params(sh, d, start[d+1:]); err != nil {
		return nil, err
	}
	return start, nil
}

// suffStatStart reads the moment estimates off the released sum Z of the
// sufficient statistics [t2(x), y·x, y²].
func suffStatStart(z []float64, d, n int, prior ldp.ScaledLKJ) ([]float64, error) {
	sh := make([]float64, d*d)
	k := d
	for j := range d {
		sh[j*d+j] = z[j] / float64(n)
	}
	for j := range d {
		for l := j + 1; l < d; l++ {
			sh[j*d+l] = z[k] / float64(n)
			sh[l*d+j] = sh[j*d+l]
			k++
		}
	}
	c := make([]float64, d)
	for j := range d {
		c[j] = z[k+j] / float64(n)
	}
	return linearStart(sh, c, z[len(z)-1]/float64(n), d, prior)
}

// inputStart computes the moment estimates from released inputs and
// outcomes: Σ̂ = cov(z_x) − sx² I, Σθ from E[z_x z_y] and E[y²] from
// E[z_y²] − sy².
func inputStart(zx, zy []float64, d int, sx, sy float64, prior ldp.ScaledLKJ) ([]float64, error) {
	n := len(zy)
	sh := make([]float64, d*d)
	c := make([]float64, d)
	ey2 := 0.0
	for i := range n {
		for j := range d {
			c[j] += zx[i*d+j] * zy[i] / float64(n)
			for k := range d {
				sh[j*d+k] += zx[i*d+j] * zx[i*d+k] / float64(n)
			}
		}
		ey2 += zy[i] * zy[i] / float64(n)
	}
	for j := range d {
		sh[j*d+j] -= sx * sx
	}
	return linearStart(sh, c, ey2-sy*sy, d, prior)
}
