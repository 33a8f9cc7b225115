package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/privinfer/privinfer/examples/reproduce/support/cli"
)

// damcmcTol is the agreement tolerance of a DA-MCMC posterior mean or
// interval end with the SBI paper's Tables 2 and 4: about a third of the
// posterior standard deviation of each β (0.5 to 1 at these budgets), far
// above our Monte Carlo error (about 0.02 at the sweeps of the full run)
// and the paper's two printed decimals.
const damcmcTol = 0.25

// damcmcVerdict judges our DA-MCMC posterior of β at budget eps (mean,
// 2.5% and 97.5% quantiles of β0, β1, β2) against the paper's row for
// that budget (the table): every number within damcmcTol. authors, when
// not nil, is the same summary of the authors' reference draws, quoted in
// the reason (it does not enter the verdict). ok is false when the paper
// has no DA-MCMC row at eps.
func damcmcVerdict(eps float64, ours [3][3]float64, authors *[3][3]float64) (v cli.Verdict, ok bool) {
	paper, ok := table[eps]
	if !ok {
		return cli.Verdict{}, false
	}
	tab := "Table 2"
	if eps < 1 {
		tab = "Table 4"
	}
	target := fmt.Sprintf("SBI paper %s DA-MCMC row (ε = %s)", tab, strconv.FormatFloat(eps, 'g', -1, 64))
	var cs []cli.Compared
	what := [3]string{"mean", "2.5%", "97.5%"}
	for j := range 3 {
		for k := range 3 {
			cs = append(cs, cli.Compared{Name: fmt.Sprintf("β%d %s", j, what[k]), Ours: ours[j][k], Paper: paper[j][k], Tol: damcmcTol})
		}
	}
	note := fmt.Sprintf("tolerance %.2f, about a third of each β's posterior sd", damcmcTol)
	if authors != nil {
		note += fmt.Sprintf("; the authors' reference draws give β1 mean %.2f (not part of the verdict)", authors[1][0])
	}
	return cli.AllWithin(target, cs, note), true
}

// rhatStep is the spacing of the checkpoints at which the n = 100 study
// measures R̂: a lead smaller than one checkpoint is no lead.
const rhatStep = 100

// The slides' n = 100 diagnostics: SOMA reaches R̂ < 1.05 after about
// 800 iterations, both IMwG scans after about 1,500.
const (
	slidesSOMAReach = 800
	slidesIMwGReach = 1500
)

// rhatVerdict judges the slides' n = 100 claim that SOMA converges
// faster than both IMwG scans, from the first checkpoints (iterations) at
// which every split R̂ of each kernel fell below 1.05 (a value ≤ 0 means
// not reached within the run): reproduced when SOMA gets there at least
// one checkpoint (rhatStep) before both scans, differs when it gets there
// at least one checkpoint after one of them (or not at all while a scan
// does), partial otherwise (within a checkpoint of the faster scan, or no
// kernel reached it).
func rhatVerdict(soma, ranIMwG, sysIMwG, iters int) cli.Verdict {
	const target = "slides n = 100 R̂ comparison (SOMA reaches R̂ < 1.05 before both IMwG scans)"
	reach := func(x int) float64 {
		if x <= 0 {
			return math.Inf(1)
		}
		return float64(x)
	}
	cell := func(x int) string {
		if x <= 0 {
			return fmt.Sprintf("not reached in %d", iters)
		}
		return strconv.Itoa(x)
	}
	s, scan := reach(soma), math.Min(reach(ranIMwG), reach(sysIMwG))
	ours := fmt.Sprintf("SOMA %s, Ran-IMwG %s, Sys-IMwG %s", cell(soma), cell(ranIMwG), cell(sysIMwG))
	v := cli.Verdict{Target: target, Ours: ours + " iterations",
		Paper: fmt.Sprintf("SOMA about %d, IMwG about %d iterations", slidesSOMAReach, slidesIMwGReach)}
	detail := fmt.Sprintf("iterations to R̂ < 1.05: %s (slides: SOMA about %d, both IMwG scans about %d; a lead counts when it is at least one checkpoint, %d iterations; the slides' release and ε are not stated, ours is a simulated ε = 30 release)",
		ours, slidesSOMAReach, slidesIMwGReach, rhatStep)
	switch {
	case math.IsInf(s, 1) && math.IsInf(scan, 1):
		v.Outcome, v.Reason = cli.Partial, "no kernel reached R̂ < 1.05 within the run, so the claim is not tested: "+detail
	case s+rhatStep <= scan:
		v.Outcome, v.Reason = cli.Reproduced, "SOMA reaches R̂ < 1.05 before both IMwG scans: "+detail
	case s >= scan+rhatStep:
		v.Outcome, v.Reason = cli.Differs, "SOMA reaches R̂ < 1.05 later than an IMwG scan, contrary to the slides: "+detail
	default:
		v.Outcome, v.Reason = cli.Partial, "SOMA and the faster IMwG scan reach R̂ < 1.05 within one checkpoint of each other: "+detail
	}
	return v
}

// n10AccTol is the agreement tolerance of an n = 10 acceptance rate with
// the slides' table, in percentage points: the slides print two decimals,
// and the rate of 8 chains × 10,000 iterations has a Monte Carlo error
// below 0.1 point.
const n10AccTol = 0.5

// coupleTol is the agreement tolerance of a mean coupling time with the
// slides' mean ref over the given number of pairs: 3 standard errors, the
// standard error of a mean of coupling times (whose sd is about their
// mean) being about ref/√pairs.
func coupleTol(ref float64, pairs int) float64 {
	return 3 * ref / math.Sqrt(float64(max(pairs, 1)))
}

// n10Verdicts judges the slides' n = 10 table: every acceptance rate (in
// percent) within n10AccTol of the slides', and every mean coupling time
// within its tolerance (coupleTol).
func n10Verdicts(acc, couple []cli.Compared) []cli.Verdict {
	return []cli.Verdict{
		cli.AllWithin("slides n=10 table, acceptance rates", acc, fmt.Sprintf("acceptance in percent, tolerance ±%.1f percentage point", n10AccTol)),
		cli.AllWithin("slides n=10 table, coupling times", couple, "mean coupling times, tolerance 3 standard errors of the mean (about 3 × mean/√pairs)"),
	}
}
