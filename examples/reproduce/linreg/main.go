// Command linreg runs SPPE and SPLE on the SBI paper's privatized Bayesian
// linear regression (§4.2, App. E.2): n = 100 records, predictors
// N((0.9, −1.17), I₂), σ² = 2, prior β ~ N(0, I₃), the nine clamped
// sufficient statistics released with Laplace noise of scale (13/100)/ε, and
// the paper's observed releases at ε = 10, 1 and 0.1.
//
// For every ε it prints the posterior mean and 95% interval of β for SPPE,
// SPLE, RNPE (with -methods rnpe), an asymptotically exact DA-MCMC reference (SOMA data augmentation,
// read from mcmc/testdata when present, otherwise run here), the authors'
// published SMC-ABC reference sample (if -authors points at it), the naive
// plug-in posterior, Bernstein and Sheldon's Gibbs-SS (mcmc/gibbsss) with
// the predictors' law known as in the paper and with their default
// normal-inverse-Wishart prior on it (-gibbs-iters iterations per chain),
// the abc package's SMC-ABC with the paper's geometric tolerance schedule
// (-abc-sims simulations, -abc-particles particles; -abc-sims 0 leaves it
// out) and the paper's Tables 2 and 4; then C2ST (sbibm protocol), MMD,
// marginal KS statistics and the largest posterior-mean difference against
// DA-MCMC, NLOG at the true β, LMD, and wall times (for SPPE and SPLE split
// into simulation, training and proposal sampling). At ε = 10 a second
// verdict line says whether our Gibbs-SS shows the bias the paper reports
// for it (β1 mean −0.50 against DA-MCMC's −2.72) and why.
//
// The paper's budget of 10 rounds × 1000 simulations, with the flow and
// loss settings validated against DA-MCMC (a 4-layer flow of 32-unit
// blocks, M = 4 RQMC inner points, 5 atoms, at most 40 epochs per round
// with patience 8; 20 and 4 suffice at ε = 10 and 0.1, while at ε = 1
// they left SPPE's largest mean difference at 0.16; 10–30 minutes per ε
// and method on two cores):
//
//	go run ./examples/reproduce/linreg -rounds 10 -sims 1000 -M 4 -atoms 5 -epochs 40 -patience 8
//
// The paper's own flow (8 layers × 2 residual blocks of 50 units with
// context gating, M = 16, 10 atoms) is selected with -layers 8 -hidden 50
// -blocks 2 -gating -M 16 -atoms 10; an SPPE epoch then costs about fifty
// times as much (six times per row, four times the inner points, twice the
// atoms).
//
// Method rnpe (-methods rnpe, alone or beside sppe and sple) is the
// paper's sixth method, robust neural posterior estimation (sbi.RNPE, Ward
// et al. 2022): amortized NPE and a marginal flow of the releases, both
// with the flow flags, trained on -rnpe-sims simulations (0: -rounds ×
// -sims, SPPE's budget), Ward et al.'s spike-and-slab error model and 4
// denoising chains. It prints the RNPE row and its plain NPE's beside the
// paper's RNPE row, the summaries' misspecification probabilities, both
// in the accuracy table (KS against DA-MCMC as in Figs. 3 and 12), and a
// verdict on whether our RNPE departs from DA-MCMC as the paper's does.
// With the paper's budget at ε = 10 (RNPE itself took 2 minutes on a
// shared two-core machine, most of it the NPE's training; SPPE beside it,
// for the KS comparison, 10–30 minutes):
//
//	go run ./examples/reproduce/linreg -eps 10 -methods rnpe,sppe -rounds 10 -sims 1000 -M 4 -atoms 5 -epochs 40 -patience 8 -abc-sims 0
//
// Mode -sweep 0.1,0.3,1,3,10,30,100 is the paper's Fig. 11: releases of
// the same confidential statistic s̃ at every budget (the paper's releases
// at ε = 10, 1 and 0.1, a Laplace draw from s̃ at the others), SPPE and
// SPLE at each, their posterior means and 95% intervals against ε beside
// the confidential-data posterior means and the prior mean, one chart per
// coefficient (SVG and PNG), and a verdict on the paper's trends. With
// -draws DIR every posterior is saved and reused when present, so the sweep
// can be run one budget at a time and then put together.
//
// Mode -trials N is the paper's Fig. 9: N independent trials of SPPE and
// SPLE on the first -eps release (trial k uses a seed derived from -seed;
// trial 1 repeats the plain run), the per-round mean and quartiles of C2ST,
// MMD and the largest posterior-mean difference against DA-MCMC, NLOG at
// the true β and LMD, their CSV and charts (linreg_trials_epsE_c2st, _mmd,
// _dmean, _nlog, _lmd), and a verdict. With
// -trials-dir DIR every finished trial is saved and reused, and
// -trial-range a-b trains only those trials, so the trials can be run a few
// at a time and then put together.
//
// Mode -depths 5,8,10 is the paper's Fig. 15 C, D: every method is trained
// on the first -eps release with flows of each depth (the other flow flags
// unchanged), with the same per-round accuracy, CSV and charts
// (linreg_depth_epsE_*) and a verdict; -trials-dir saves and reuses the
// runs, so one depth can be run at a time and then compared.
//
// The defaults are a reduced configuration that runs in minutes on two cores;
// -quick reduces it further (ε = 10 and 0.1, 2 rounds × 300 simulations,
// 5000 Gibbs-SS iterations per chain, SMC-ABC on 30,000 simulations of 300
// particles). Each ε ends with a verdict line comparing SPPE, SPLE and
// SMC-ABC with DA-MCMC (C2ST ≤ 0.6 and posterior means within 0.15); -out DIR writes the
// posterior draws as CSV and a corner plot beside DA-MCMC (SVG and PNG).
//
// Run it from the repository root: the reference files are read from paths
// relative to it (see the -authors and -damcmc flags).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/abc"
	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
	"github.com/privinfer/privinfer/examples/reproduce/support/sbiflags"
	"github.com/privinfer/privinfer/flow/metrics"
	"github.com/privinfer/privinfer/flow/sbi"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/gibbsss"
	"github.com/privinfer/privinfer/mcmc/linregda"
	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
	"github.com/privinfer/privinfer/simulate/linreg"
)

type config struct {
	cli.Common
	sbiflags.Settings
	authors, mcmcData string
	perRound          bool
	sweep             []float64     // -sweep: the budgets of the Fig. 11 mode (nil: not that mode)
	drawsDir          string        // -draws: saved posteriors of the Fig. 11 mode
	gibbsIters        int           // -gibbs-iters: Gibbs-SS iterations per chain
	abcSims           int64         // -abc-sims: SMC-ABC simulation budget (0: no SMC-ABC row)
	abcParticles      int           // -abc-particles: SMC-ABC population size
	trials            int           // -trials: independent trials of the Fig. 9 mode (0: not that mode)
	trialLo, trialHi  int           // -trial-range: the trials this run trains, 1-based inclusive
	trialsDir         string        // -trials-dir: per-run accuracy of the Fig. 9 and 15 modes, reused when present
	depths            []int         // -depths: flow depths of the Fig. 15 mode (nil: not that mode)
	rnpeSims          int           // -rnpe-sims: RNPE's simulations (0: -rounds × -sims)
	w                 io.Writer     // results (stdout)
	prog              *cli.Progress // progress (stderr)
}

// names are the parameters.
var names = []string{"beta0", "beta1", "beta2"}

func main() { cli.Program("linreg", parse, runAll) }

// parse reads the flags; bad flags and values are usage errors. -quick
// (the examples' common flag) lowers the defaults of flags not given.
func parse(fs *flag.FlagSet, args []string) (config, error) {
	var c config
	common := cli.Register(fs, 1)
	set := sbiflags.Register(fs, sbiflags.Settings{EpsList: "10,1,0.1", MethodList: "sppe,sple", Rounds: 4, Sims: 500, M: 8, Atoms: 5, Layers: 4, Hidden: 32, Blocks: 1, Epochs: 40, Patience: 6, Batch: 100, LR: 1e-3, NPost: 2000},
		map[string]string{"eps": "10,0.1", "rounds": "2", "sims": "300", "epochs": "25", "gibbs-iters": "5000", "abc-sims": "30000", "abc-particles": "300"})
	fs.StringVar(&c.authors, "authors", "../shared/"+cli.AuthorsDir, "folder of the authors' reference CSVs (skipped if absent)")
	fs.StringVar(&c.mcmcData, "damcmc", "mcmc/testdata", "folder with linreg_eps*_damcmc.csv DA-MCMC draws (run here if absent)")
	fs.BoolVar(&c.perRound, "per-round", false, "print C2ST against DA-MCMC after every round")
	fs.IntVar(&c.gibbsIters, "gibbs-iters", 25000, "Gibbs-SS iterations per chain (4 chains; a fifth warm-up, the rest thinned by 4)")
	fs.Int64Var(&c.abcSims, "abc-sims", 300000, "SMC-ABC simulation budget; 0 leaves out the SMC-ABC (ours) row")
	fs.IntVar(&c.abcParticles, "abc-particles", 1000, "SMC-ABC population size")
	sweep := fs.String("sweep", "", "Fig. 11 mode: privacy budgets, comma separated (the paper: 0.1,0.3,1,3,10,30,100), releases of the same confidential data")
	fs.StringVar(&c.drawsDir, "draws", "", "with -sweep: folder where each budget's and method's posterior is saved and reused when present (keyed by the settings)")
	fs.IntVar(&c.trials, "trials", 0, "Fig. 9 mode: independent trials of every method on the first -eps release, per-round accuracy against DA-MCMC (mean and quartiles)")
	trialRange := fs.String("trial-range", "", "with -trials: the trials this run trains, a-b (the others are only read from -trials-dir)")
	fs.StringVar(&c.trialsDir, "trials-dir", "", "with -trials or -depths: folder where each run's per-round accuracy is saved and reused when present (keyed by the settings)")
	depths := fs.String("depths", "", "Fig. 15 C, D mode: flow depths (layers) to compare on the first -eps release, comma separated (the paper: 5,8,10)")
	fs.IntVar(&c.rnpeSims, "rnpe-sims", 0, "RNPE's simulations for its amortized NPE and marginal flow (0: -rounds × -sims, SPPE's budget)")
	var methodList string
	wrapMethods(fs, &methodList)
	err := set.Parse(fs, args, common, func(eps float64) error { _, err := linreg.Release(eps); return err })
	c.Common, c.Settings = *common, *set
	if err == nil && c.rnpeSims != 0 {
		err = cli.AtLeast("rnpe-sims", c.rnpeSims, 2)
	}
	if err == nil {
		c.sweep, err = parseSweep(*sweep, c.drawsDir)
	}
	if err == nil {
		err = cli.AtLeast("gibbs-iters", c.gibbsIters, 50)
	}
	if err == nil {
		err = parseFigureModes(&c, *trialRange, *depths)
	}
	if err == nil {
		err = restoreMethods(&c, methodList)
	}
	if err == nil && c.abcSims != 0 {
		err = cli.AtLeast("abc-particles", c.abcParticles, 2)
		if err == nil && c.abcSims < int64(c.abcParticles) {
			err = cli.Usagef("-abc-sims must be 0 or at least -abc-particles (%d), got %d", c.abcParticles, c.abcSims)
		}
	}
	return c, err
}

// runAll runs every ε and prints one verdict line per paper table.
func runAll(_ context.Context, c config, stdout, stderr io.Writer) error {
	c.w, c.prog = stdout, cli.NewProgress(stderr)
	if err := c.Prepare(); err != nil {
		return err
	}
	if c.sweep != nil {
		return runSweep(c)
	}
	if c.trials > 0 {
		return runTrials(c)
	}
	if c.depths != nil {
		return runDepths(c)
	}
	for _, e := range c.Eps {
		v, err := runEps(c, e)
		if err != nil {
			return err
		}
		if len(v) == 0 {
			// Only RNPE (and the Gibbs-SS rows, judged apart) ran.
			fmt.Fprintf(c.w, "  (no table verdict at ε = %s: neither SPPE, SPLE nor SMC-ABC ran)\n", epsName(e))
			continue
		}
		verdict(c.w, e, v)
	}
	return nil
}

// methodAccuracy is a method's C2ST and largest posterior-mean difference
// against the DA-MCMC reference.
type methodAccuracy struct {
	name     string
	c2st, dm float64
}

// A posterior matches the DA-MCMC reference when its C2ST is at most c2stOK
// (0.5: indistinguishable) and every posterior mean is within meanOK of the
// reference's.
const (
	c2stOK = 0.6
	meanOK = 0.15
)

// verdict compares SPPE and SPLE with the asymptotically exact DA-MCMC
// posterior of the paper's release, which the paper's tables also report.
func verdict(w io.Writer, eps float64, acc []methodAccuracy) {
	table := map[float64]string{10: "Table 2", 1: "Table 3", 0.1: "Table 4"}[eps]
	what := fmt.Sprintf("SBI paper %s (linear regression, ε = %s)", table, epsName(eps))
	good := 0
	var parts []string
	for _, a := range acc {
		if a.c2st <= c2stOK && a.dm <= meanOK {
			good++
		}
		parts = append(parts, fmt.Sprintf("%s C2ST %.3f, max |Δ mean| %.2f", strings.ToUpper(a.name), a.c2st, a.dm))
	}
	detail := strings.Join(parts, "; ") + fmt.Sprintf(" against DA-MCMC (C2ST 0.5 = indistinguishable; thresholds C2ST ≤ %.2f, max |Δ mean| ≤ %.2f)", c2stOK, meanOK)
	switch {
	case len(acc) > 0 && good == len(acc):
		cli.PrintVerdict(w, cli.Reproduced, what, "every method matches the exact posterior: "+detail)
	case good > 0:
		cli.PrintVerdict(w, cli.Partial, what, "some methods match the exact posterior: "+detail)
	default:
		cli.PrintVerdict(w, cli.Differs, what, "no method matches the exact posterior at these settings: "+detail)
	}
}

// problem returns the paper's private linear regression at ε.
func problem(eps float64) (privinfer.Problem, error) {
	model := linreg.Paper()
	n := linreg.PaperN
	sim, err := simulate.NewMeanStat(model, n)
	if err != nil {
		return privinfer.Problem{}, err
	}
	sens, err := linreg.Sensitivity(model.P(), n)
	if err != nil {
		return privinfer.Problem{}, err
	}
	mech, err := mechanism.NewLaplace(mechanism.LaplaceConfig{Sensitivity: sens, Epsilon: eps, Dim: model.ContribDim()})
	if err != nil {
		return privinfer.Problem{}, err
	}
	prior, err := linreg.Prior(2)
	if err != nil {
		return privinfer.Problem{}, err
	}
	obs, err := linreg.Release(eps)
	if err != nil {
		return privinfer.Problem{}, err
	}
	return privinfer.Problem{Prior: prior, Simulator: sim, Mechanism: mech, Observed: obs, Names: names}, nil
}

func epsName(e float64) string { return strconv.FormatFloat(e, 'g', -1, 64) }

// daReference returns DA-MCMC draws of β given the release at ε.
func daReference(c config, eps float64) (*privinfer.Draws, string, error) {
	path := filepath.Join(c.mcmcData, "linreg_eps"+epsName(eps)+"_damcmc.csv")
	if d, err := cli.ReadDraws(path); err == nil && d.Dim == 3 {
		return d, path, nil
	}
	p, th, err := linregda.SBIPaper(eps)
	if err != nil {
		return nil, "", err
	}
	res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{ThetaStep: th, RecordStep: mcmc.SOMA,
		Chains: 4, Warmup: 1000, Draws: 1000, Thin: 2, Seed: 7,
		Init: [][]float64{{1, 1, 1}, {-1, -1, -1}, {1, -1, 1}, {-1, 1, -1}}})
	if err != nil {
		return nil, "", err
	}
	return res.Draws, "DA-MCMC (SOMA) run here: 4 chains × 1000 draws, thin 2", nil
}

// naive is the plug-in conjugate posterior treating s_dp as the clamped
// confidential statistic (Table 2's second row); ok is false when the
// implied XᵀX/σ² + I is not positive definite.
func naive(sdp []float64) (mean, half []float64, ok bool) {
	const n, C, sig2 = 100.0, 10.0, 2.0
	xy := []float64{n * C * sdp[0], n * C * C * sdp[1], n * C * C * sdp[2]}
	xx := []float64{n, n * C * sdp[4], n * C * sdp[5],
		n * C * sdp[4], n * C * C * sdp[6], n * C * C * sdp[7],
		n * C * sdp[5], n * C * C * sdp[7], n * C * C * sdp[8]}
	for i := range xx {
		xx[i] /= sig2
	}
	for i := 0; i < 3; i++ {
		xx[i*3+i]++
	}
	inv, ok := inv3(xx)
	if !ok {
		return nil, nil, false
	}
	mean, half = make([]float64, 3), make([]float64, 3)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			mean[i] += inv[i*3+j] * xy[j] / sig2
		}
		half[i] = 1.96 * math.Sqrt(inv[i*3+i])
	}
	return mean, half, true
}

// inv3 inverts a symmetric 3×3 matrix by cofactors; ok is false unless it
// is positive definite (all leading principal minors positive).
func inv3(a []float64) (inv []float64, ok bool) {
	c00 := a[4]*a[8] - a[5]*a[7]
	c01 := a[5]*a[6] - a[3]*a[8]
	c02 := a[3]*a[7] - a[4]*a[6]
	det := a[0]*c00 + a[1]*c01 + a[2]*c02
	if !(a[0] > 0 && a[0]*a[4]-a[1]*a[3] > 0 && det > 0) {
		return nil, false
	}
	inv = []float64{
		c00, a[2]*a[7] - a[1]*a[8], a[1]*a[5] - a[2]*a[4],
		c01, a[0]*a[8] - a[2]*a[6], a[2]*a[3] - a[0]*a[5],
		c02, a[1]*a[6] - a[0]*a[7], a[0]*a[4] - a[1]*a[3],
	}
	for i := range inv {
		inv[i] /= det
	}
	return inv, true
}

var paperRows = map[float64][][2]any{
	10: {
		{"paper confidential", [][3]float64{{-2.15, -2.68, -1.61}, {-2.79, -3.08, -2.50}, {-0.83, -1.08, -0.58}}},
		{"paper naive", [][3]float64{{-4.63, -5.04, -4.22}, {-6.23, -6.57, -5.90}, {-5.10, -5.40, -4.79}}},
		{"paper DA-MCMC", [][3]float64{{-0.62, -2.50, 0.99}, {-2.72, -3.74, -0.96}, {0.54, -1.06, 2.46}}},
		{"paper SMC-ABC", [][3]float64{{-0.59, -2.28, 0.93}, {-2.44, -3.67, -0.38}, {0.85, -0.88, 2.77}}},
		{"paper SPPE", [][3]float64{{-0.51, -2.25, 1.07}, {-2.40, -3.61, -0.30}, {0.90, -0.89, 2.85}}},
		{"paper SPLE", [][3]float64{{-0.64, -2.31, 0.96}, {-2.61, -3.65, -0.98}, {0.64, -0.93, 2.48}}},
		{"paper Gibbs-SS", [][3]float64{{-0.46, -2.22, 1.39}, {-0.50, -2.08, 1.28}, {0.41, -1.68, 2.13}}},
		{"paper RNPE", [][3]float64{{-1.40, -3.59, 0.94}, {-2.15, -3.34, 0.51}, {0.29, -2.11, 2.97}}},
	},
	0.1: {
		{"paper DA-MCMC", [][3]float64{{-0.12, -1.98, 1.77}, {-0.13, -2.13, 1.88}, {0.13, -1.91, 2.12}}},
		{"paper SMC-ABC", [][3]float64{{-0.09, -1.97, 1.93}, {-0.10, -2.09, 1.95}, {0.11, -1.90, 2.22}}},
		{"paper SPPE", [][3]float64{{-0.12, -2.13, 1.73}, {-0.12, -2.11, 1.83}, {0.14, -1.81, 2.09}}},
		{"paper SPLE", [][3]float64{{-0.04, -2.01, 1.99}, {-0.06, -2.00, 1.85}, {0.12, -1.86, 2.09}}},
		{"paper Gibbs-SS", [][3]float64{{-0.05, -1.94, 1.95}, {-0.01, -1.95, 1.97}, {0.21, -1.62, 1.89}}},
		{"paper RNPE", [][3]float64{{-0.22, -3.56, 3.16}, {0.13, -3.12, 3.51}, {0.34, -3.12, 3.61}}},
	},
}

// row prints the posterior mean and 95% interval of every coordinate.
func row(w io.Writer, name string, d *privinfer.Draws) {
	fmt.Fprintf(w, "  %-22s", name)
	for k, m := range d.Mean() {
		lo, hi := d.Interval(k, 0.95)
		fmt.Fprintf(w, "  %6.2f (%5.2f, %5.2f)", m, lo, hi)
	}
	fmt.Fprintln(w)
}

// thin returns at most n equally weighted draws of d (systematic
// resampling, deterministic); C2ST compares samples of equal size (sbibm).
func thin(d *privinfer.Draws, n int) *privinfer.Draws {
	if !d.Weighted() && d.Len() <= n {
		return d
	}
	t, _ := d.Resample(rand.New(rand.NewPCG(3, 3)), n)
	return t
}

func runEps(c config, eps float64) ([]methodAccuracy, error) {
	p, err := problem(eps)
	if err != nil {
		return nil, err
	}
	ref, refName, err := daReference(c, eps)
	if err != nil {
		return nil, err
	}
	w := c.w
	fmt.Fprintf(w, "\n=== linear regression, ε = %s: s_dp° = %v\n", epsName(eps), p.Observed)
	fmt.Fprintf(w, "reference: %s (%d draws)\n", refName, ref.Len())
	fmt.Fprintf(w, "  %-22s  %-20s  %-20s  %-20s\n", "method", "β0 mean (95% CI)", "β1", "β2")
	for _, pr := range paperRows[eps] {
		v := pr[1].([][3]float64)
		fmt.Fprintf(w, "  %-22s", pr[0])
		for k := 0; k < 3; k++ {
			fmt.Fprintf(w, "  %6.2f (%5.2f, %5.2f)", v[k][0], v[k][1], v[k][2])
		}
		fmt.Fprintln(w)
	}
	if m, h, ok := naive(p.Observed); ok {
		fmt.Fprintf(w, "  %-22s", "naive plug-in (ours)")
		for k := 0; k < 3; k++ {
			fmt.Fprintf(w, "  %6.2f (%5.2f, %5.2f)", m[k], m[k]-h[k], m[k]+h[k])
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "  %-22s  not defined: XᵀX/σ² + I implied by s_dp is not positive definite\n", "naive plug-in (ours)")
	}
	row(w, "DA-MCMC (ours)", ref)
	refBeta1 := ref.Mean()[1]
	authors, err := cli.ReadDraws(filepath.Join(c.authors, "linreg_eps"+epsName(eps)+"_beta.csv"), names...)
	if err == nil {
		row(w, "authors' CSV", authors)
	}
	theta := linreg.PaperTheta()
	type result struct {
		name   string
		d      *privinfer.Draws
		nlog   float64
		sims   int64  // simulations (0: none)
		timing string // where the time went
	}
	var results []result
	var rnpeRes *sbi.RNPEResult
	for _, meth := range c.Methods {
		if meth == "rnpe" {
			start := time.Now()
			r, err := rnpeRun(c, p)
			if err != nil {
				return nil, err
			}
			rnpeRes = r
			fmt.Fprintf(w, "  [rnpe finished in %v]\n", time.Since(start).Round(time.Second))
			row(w, "RNPE (ours)", r.Draws)
			row(w, "NPE (ours, RNPE's flow)", r.NPEDraws)
			rnpeReport(w, r)
			nl, _ := metrics.NLOGSamples(r.Draws.Theta, 3, theta)
			nn, _ := metrics.NLOGSamples(r.NPEDraws.Theta, 3, theta)
			after := r.Elapsed - r.NPE.Elapsed
			results = append(results, result{"rnpe", r.Draws, nl, int64(r.NPE.Simulations), fmt.Sprintf("%v/%v/%v (simulation/NPE training/q(s_dp) training, chains and draws)",
				r.NPE.SimTime.Round(time.Millisecond), r.NPE.TrainTime.Round(time.Second), after.Round(time.Second))},
				result{"npe", r.NPEDraws, nn, int64(r.NPE.Simulations), "(RNPE's flow at s_dp°)"})
			continue
		}
		o := c.Config(3, 9, c.Seed)
		o.Checkpoint = c.CheckpointFile(meth, c.Seed, p.Observed)
		o.Progress = c.prog.Func()
		if c.perRound {
			o.OnRound = func(round int, _ sbi.Estimate, d *privinfer.Draws) {
				c2, _ := metrics.C2ST(d.Theta, thin(ref, d.Len()).Theta, 3, metrics.C2STOptions{Seed: 1, MaxEpochs: 300})
				mmd, _ := metrics.MMD(d.Theta, ref.Theta, 3, metrics.MMDOptions{})
				fmt.Fprintf(w, "    %s round %d: C2ST %.3f MMD %.4f\n", meth, round, c2, mmd)
			}
		}
		start := time.Now()
		var d *privinfer.Draws
		nlog := math.NaN()
		var res *sbi.Result
		switch strings.TrimSpace(meth) {
		case "sppe":
			var r *sbi.SPPEResult
			err := c.prog.While(3*time.Second, "SPPE", func() (err error) {
				r, err = sbi.SPPE(context.Background(), p, o)
				return err
			})
			if err != nil {
				return nil, err
			}
			res, d = &r.Result, r.Draws
			nlog = -r.Posterior.LogDensity(theta)
		case "sple":
			var r *sbi.SPLEResult
			err := c.prog.While(3*time.Second, "SPLE", func() (err error) {
				r, err = sbi.SPLE(context.Background(), p, o)
				return err
			})
			if err != nil {
				return nil, err
			}
			res, d = &r.Result, r.Draws
			nlog, _ = metrics.NLOGSamples(d.Theta, 3, theta)
		default:
			return nil, fmt.Errorf("unknown method %q", meth)
		}
		fmt.Fprintf(w, "  [%s finished in %v]\n", meth, time.Since(start).Round(time.Second))
		results = append(results, result{meth, d, nlog, int64(res.Simulations), fmt.Sprintf("%v/%v/%v",
			res.SimTime.Round(time.Millisecond), res.TrainTime.Round(time.Second), res.ProposalTime.Round(time.Second))})
		row(w, strings.ToUpper(meth)+" (ours, "+c.Integration().String()+")", d)
	}
	gibbsOutside := math.NaN()
	gibbsBeta1 := map[string]float64{}
	for _, v := range gibbsVariants {
		start := time.Now()
		var g *gibbsss.Result
		err := c.prog.While(3*time.Second, methodLabel(v.name), func() (err error) {
			g, err = gibbsSS(c, v, p)
			return err
		})
		if err != nil {
			return nil, err
		}
		if !v.niw {
			gibbsOutside = g.OutsideRate()
		}
		nl, _ := metrics.NLOGSamples(g.Draws.Theta, 3, theta)
		row(w, methodLabel(v.name), g.Draws)
		gibbsBeta1[v.name] = g.Draws.Mean()[1]
		results = append(results, result{v.name, thin(g.Draws, c.NPost), nl, 0, fmt.Sprintf("run %s; R̂ ≤ %.3f", elapsed(time.Since(start)), maxRHat(g.Draws))})
	}
	if c.abcSims > 0 {
		start := time.Now()
		var a *abc.SMCResult
		err := c.prog.While(3*time.Second, "SMC-ABC", func() (err error) {
			a, err = smcABC(c, eps, p)
			return err
		})
		if err != nil {
			return nil, err
		}
		if a.Draws == nil {
			return nil, fmt.Errorf("SMC-ABC completed no round within %d simulations", c.abcSims)
		}
		fin := a.Final()
		d := thin(a.Draws, c.NPost)
		nl, _ := metrics.NLOGSamples(d.Theta, 3, theta)
		results = append(results, result{"smc-abc", d, nl, a.Simulations,
			fmt.Sprintf("run %s; %d rounds, last tolerance %.3g, acceptance %.3f, stop: %v", elapsed(time.Since(start)), len(a.Rounds), fin.Tolerance, fin.Acceptance, a.Stop)})
		row(w, methodLabel("smc-abc"), d)
	}
	fmt.Fprintf(w, "\n  accuracy against DA-MCMC (ours)%s:\n", map[bool]string{true: " and the authors' CSV", false: ""}[authors != nil])
	fmt.Fprintf(w, "  %-12s %7s %8s %22s %9s %7s %7s %8s %s\n", "method", "C2ST", "MMD", "KS (β0, β1, β2)", "max|Δμ|", "NLOG", "LMD", "C2ST/au", "sims  time (SPPE/SPLE: simulation/training/proposal)")
	// C2ST compares samples of equal size: every sample is thinned to the
	// smallest.
	nEq := ref.Len()
	for _, r := range results {
		nEq = min(nEq, r.d.Len())
	}
	if authors != nil {
		nEq = min(nEq, authors.Len())
		authors = thin(authors, nEq)
	}
	ref = thin(ref, nEq)
	for i := range results {
		results[i].d = thin(results[i].d, nEq)
	}
	var acc []methodAccuracy
	gibbsAcc := map[string]methodAccuracy{}
	ksMax := map[string]float64{}
	for _, r := range results {
		if _, err := c.WriteFile("linreg_eps"+epsName(eps)+"_"+r.name+".csv", r.d.WriteCSV); err != nil {
			return nil, err
		}
		if _, err := c.WriteCorner("linreg_eps"+epsName(eps)+"_"+r.name, r.d, privinfer.CornerConfig{Title: "Linear regression ε = " + epsName(eps) + ": " + methodLabel(r.name) + " posterior of β; mark: true β",
			Label: methodLabel(r.name), Compare: []*privinfer.Draws{ref}, CompareLabels: []string{"DA-MCMC"}, Truth: theta}); err != nil {
			return nil, err
		}
		c.prog.Printf("ε = %s, %s: C2ST, MMD and predictive checks against DA-MCMC", epsName(eps), r.name)
		x := r.d.Theta
		c2, err := metrics.C2ST(x, ref.Theta, 3, metrics.C2STOptions{Seed: 1})
		if err != nil {
			return nil, err
		}
		mmd, _ := metrics.MMD(x, ref.Theta, 3, metrics.MMDOptions{})
		ks, _, _ := metrics.MarginalKS(x, ref.Theta, 3)
		dm := 0.0
		for k, m := range r.d.Mean() {
			dm = math.Max(dm, math.Abs(m-ref.Mean()[k]))
		}
		pred, err := sbi.PosteriorPredictive(context.Background(), p, x[:3*min(500, r.d.Len())], 5)
		if err != nil {
			return nil, err
		}
		lmd, _ := metrics.LMD(pred, 9, p.Observed)
		c2a := math.NaN()
		if authors != nil {
			c2a, _ = metrics.C2ST(x, authors.Theta, 3, metrics.C2STOptions{Seed: 1})
		}
		fmt.Fprintf(w, "  %-12s %7.3f %8.4f    (%.3f, %.3f, %.3f) %9.3f %7.3f %7.3f %8.3f %d  %s\n", r.name, c2, mmd, ks[0], ks[1], ks[2], dm, r.nlog, lmd, c2a,
			r.sims, r.timing)
		ksMax[r.name] = max(ks[0], ks[1], ks[2])
		switch {
		case r.name == "rnpe" || r.name == "npe":
		case strings.HasPrefix(r.name, "gibbs-ss"):
			gibbsAcc[r.name] = methodAccuracy{r.name, c2, dm}
		default:
			acc = append(acc, methodAccuracy{r.name, c2, dm})
		}
	}
	if authors != nil {
		c2, _ := metrics.C2ST(authors.Theta, ref.Theta, 3, metrics.C2STOptions{Seed: 1})
		fmt.Fprintf(w, "  authors' CSV vs DA-MCMC (ours): C2ST %.3f, means %.2f vs %.2f\n", c2, authors.Mean(), ref.Mean())
	}
	if rnpeRes != nil {
		s := rnpeStats{eps: eps, rnpe: statsOf(rnpeRes.Draws), npe: statsOf(rnpeRes.NPEDraws), da: statsOf(ref),
			ksRNPE: ksMax["rnpe"], ksNoise: ksMargin(nEq), ksOthers: map[string]float64{}, maxMisspecified: slices.Max(rnpeRes.Misspecified), minMisspecified: slices.Min(rnpeRes.Misspecified), priorZ: rnpeRes.Rho}
		for k, v := range ksMax {
			if paperAgrees(eps, k) {
				s.ksOthers[k] = v
			}
		}
		rnpeVerdict(w, s)
	}
	if eps == 10 {
		gibbsVerdict(w, gibbsBeta1["gibbs-ss"], gibbsBeta1["gibbs-ss-niw"], refBeta1, gibbsAcc["gibbs-ss"], gibbsOutside, clampedResponses(ref))
	}
	return acc, nil
}
