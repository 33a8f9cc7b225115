package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/mcmc/gibbsss"
	"github.com/privinfer/privinfer/simulate/linreg"
)

// gibbsVariant is a prior on the predictors' law for Gibbs-SS.
type gibbsVariant struct {
	name string
	niw  bool
}

// The Gibbs-SS rows: the paper's setting (predictors' law N((0.9, −1.17),
// I) known, as for DA-MCMC), and Bernstein and Sheldon's model with their
// code's default normal-inverse-Wishart prior on that law (κ = 1, Ψ = I,
// ν = 50 on the [−1, 1]-scaled predictors).
var gibbsVariants = []gibbsVariant{{"gibbs-ss", false}, {"gibbs-ss-niw", true}}

// gibbsSS runs Gibbs-SS (mcmc/gibbsss) on the paper's problem p at ε:
// σ² = 2, β ~ N(0, I), the predictors' law and the clamping bound 10 read
// off the record model, the Laplace noise off the mechanism, 4 chains.
func gibbsSS(c config, v gibbsVariant, p privinfer.Problem) (*gibbsss.Result, error) {
	cfg := gibbsss.Config{Chains: 4, Warmup: c.gibbsIters / 5, Draws: c.gibbsIters / 5, Thin: 4, Seed: c.Seed + 11,
		Progress: c.prog.Func()}
	if v.niw {
		cfg.PredictorPrior = &gibbsss.NIW{Kappa: 1, Scale: []float64{100, 0, 0, 100}, DF: 50}
	}
	return gibbsss.Run(context.Background(), p, cfg)
}

// smcABC runs the abc package's SMC-ABC on the problem with the SBI paper's
// style of tolerance schedule, ε_t = A·0.7^t (App. E.1 uses A = 0.5 for
// the SIR model), A = 0.5 scaled up with the Laplace noise of budgets
// below ε = 10 so that the first rounds do not reject everything, until
// the simulation budget -abc-sims is spent.
func smcABC(c config, eps float64, p privinfer.Problem) (*abc.SMCResult, error) {
	a := 0.5 * math.Max(1, 10/eps)
	return abc.SMC(context.Background(), p, abc.SMCConfig{
		Distance: abc.Euclidean{}, Particles: c.abcParticles,
		Schedule:       abc.Geometric{A: a, R: 0.7, Rounds: 1000},
		MaxSimulations: c.abcSims, MinAcceptance: 0.002,
		Progress: c.prog.Func(), Seed: c.Seed + 13,
	})
}

// The Gibbs-SS finding of the paper's Table 2 (ε = 10): posterior mean of
// β1 −0.50 against DA-MCMC's −2.72.
const (
	paperGibbsBeta1 = -0.50
	paperDABeta1    = -2.72
)

// gibbsVerdict says whether our Gibbs-SS reproduces the paper's finding
// that Gibbs-SS is biased for β1 at ε = 10: reproduced when our β1 mean
// lies at least half the paper's gap (1.1) above DA-MCMC's, towards the
// paper's −0.50. known and niw are our two variants' β1 means, da is
// DA-MCMC's, outside the known variant's pooled fraction of iterations
// that kept the statistic and clampedY the fraction of responses beyond
// ±10 in records simulated at DA-MCMC draws.
func gibbsVerdict(w io.Writer, known, niw, da float64, accKnown methodAccuracy, outside, clampedY float64) {
	what := "SBI paper Table 2 Gibbs-SS row (ε = 10): β1 biased towards 0 (mean −0.50 vs DA-MCMC −2.72)"
	gap := paperGibbsBeta1 - paperDABeta1
	detail := fmt.Sprintf("our Gibbs-SS β1 mean %.2f with the predictors' law known (C2ST %.3f, max |Δ mean| %.2f against DA-MCMC), %.2f with Bernstein and Sheldon's default normal-inverse-Wishart prior on it; DA-MCMC (ours) %.2f",
		known, accKnown.c2st, accKnown.dm, niw, da)
	why := fmt.Sprintf("What separates Gibbs-SS from DA-MCMC is the normal (CLT) approximation of the statistic given the parameters, which also ignores the clamping, and on this release it costs little: "+
		"the predictors are Gaussian, as Gibbs-SS assumes, clamping at ±10 essentially never binds for them (|x_j| > 10 has probability below 1e-18 under N(0.9, 1) and N(−1.17, 1)) "+
		"and it binds for %.1f%% of responses in records simulated at DA-MCMC draws; the approximation's statistic left the admissible set in %.2f%% of iterations. "+
		"The paper does not state the priors or settings of its Gibbs-SS run, so the source of its row cannot be traced from it", 100*clampedY, 100*outside)
	switch {
	case known-da >= gap/2 && niw-da >= gap/2:
		cli.PrintVerdict(w, cli.Reproduced, what, detail+". Both variants are biased towards 0 as the paper reports")
	case known-da >= gap/2 || niw-da >= gap/2:
		cli.PrintVerdict(w, cli.Partial, what, detail+". One variant is biased towards 0 as the paper reports. "+why)
	default:
		cli.PrintVerdict(w, cli.Differs, what, detail+". Neither variant shows the paper's bias. "+why)
	}
}

// methodLabel is a method's row label.
func methodLabel(name string) string {
	switch name {
	case "gibbs-ss":
		return "Gibbs-SS (ours)"
	case "gibbs-ss-niw":
		return "Gibbs-SS NIW (ours)"
	case "smc-abc":
		return "SMC-ABC (ours)"
	}
	return strings.ToUpper(name)
}

// elapsed formats a duration for the accuracy table.
func elapsed(d time.Duration) string { return d.Round(100 * time.Millisecond).String() }

// maxRHat returns the largest split R̂ over the coordinates of chained
// draws (NaN when it cannot be computed).
func maxRHat(d *privinfer.Draws) float64 {
	m := math.NaN()
	for j := range d.Dim {
		if r, err := d.RHat(j); err == nil && !(r <= m) {
			m = r
		}
	}
	return m
}

// clampedResponses returns the fraction of responses outside [−10, 10]
// in linreg.PaperN records simulated at each of (at most) 500 draws of d,
// with a fixed seed.
func clampedResponses(d *privinfer.Draws) float64 {
	model := linreg.Paper()
	r := rand.New(rand.NewPCG(17, 17))
	rec := make([]float64, model.RecordDim())
	var out, all int
	for i := range min(500, d.Len()) {
		theta := d.Theta[i*d.Dim : (i+1)*d.Dim]
		for range linreg.PaperN {
			model.SampleRecord(r, theta, rec)
			if math.Abs(rec[model.P()]) > 10 {
				out++
			}
			all++
		}
	}
	return float64(out) / float64(max(all, 1))
}
