package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/flow/sbi"
)

// tailRef is what the γ-tail check needs of the best reference sample,
// computed from the whole weighted sample (the thinned copy that the other
// metrics use holds 1000 draws, too few for a 99.9% quantile).
type tailRef struct {
	q999           float64 // 99.9% quantile of log γ
	natMean, natSD float64 // mean and sd of γ
	logMean, logSD float64 // mean and sd of log γ
}

// newTailRef summarises a reference sample of (log β, log γ).
func newTailRef(d *privinfer.Draws) *tailRef {
	nat := natural(d)
	return &tailRef{q999: d.Quantile(1, 0.999), natMean: nat.Mean()[1], natSD: nat.SD()[1], logMean: d.Mean()[1], logSD: d.SD()[1]}
}

// tailDraws is the number of posterior-flow draws of SPPE that the γ-tail
// check uses: the fraction beyond a 99.9% quantile then has a standard
// error of 10⁻⁴ for a calibrated posterior.
const tailDraws = 100_000

// gammaTail is the right tail of a posterior sample's γ marginal against
// the reference: the fraction of draws beyond the reference's 99.9%
// quantile (0.001 for draws of the reference posterior itself) and the
// differences of the means of γ and of log γ in reference sds, with the
// ratio of γ's sds. A heavy right tail moves the natural-scale mean and
// sd while the log-scale mean stays put.
type gammaTail struct {
	n                int
	beyond           float64
	natMean, logMean float64
	natSD            float64
}

// measureTail returns the γ tail of est at its observation: from tailDraws
// draws of SPPE's posterior flow, or from the draws d otherwise (SPLE's
// draws are MCMC chains, too costly to multiply).
func measureTail(est sbi.Estimate, d *privinfer.Draws, ref *tailRef) (gammaTail, error) {
	theta := d.Theta
	if post, ok := est.(*sbi.Posterior); ok {
		theta = make([]float64, 2*tailDraws)
		if err := post.Sample(rand.New(rand.NewPCG(17, 17)), tailDraws, theta); err != nil {
			return gammaTail{}, err
		}
	}
	n := len(theta) / 2
	var beyond int
	var sg, sg2, sl float64
	for i := range n {
		lg := theta[2*i+1]
		if lg > ref.q999 {
			beyond++
		}
		g := math.Exp(lg)
		sg += g
		sg2 += g * g
		sl += lg
	}
	m := sg / float64(n)
	sd := math.Sqrt(math.Max(sg2/float64(n)-m*m, 0))
	return gammaTail{n: n, beyond: float64(beyond) / float64(n), natMean: (m - ref.natMean) / ref.natSD,
		logMean: (sl/float64(n) - ref.logMean) / ref.logSD, natSD: sd / ref.natSD}, nil
}

// printTail prints a final γ tail against the reference named refName.
func printTail(w io.Writer, refName string, t gammaTail) {
	fmt.Fprintf(w, "    γ tail against %s (%d draws): %.4f beyond its 99.9%% quantile of γ (0.001 if calibrated); mean of γ %+.2f reference sds, of log γ %+.2f; sd of γ ×%.2f\n",
		refName, t.n, t.beyond, t.natMean, t.logMean, t.natSD)
}
