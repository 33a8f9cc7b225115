package linregda_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"github.com/privinfer/privinfer/simulate/linreg"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/privinfer/privinfer"
	"github.com/privinfer/privinfer/internal/stats"
	"github.com/privinfer/privinfer/internal/testutil"
	"github.com/privinfer/privinfer/mcmc"
	"github.com/privinfer/privinfer/mcmc/linregda"
)

// The committed DA-MCMC reference draws of the SBI paper's releases live
// with the rest of package mcmc's test data.
const testdata = "../testdata/"

// paperLinReg returns the SBI paper's privatized linear regression at ε
// and its exact θ-step.
func paperLinReg(t testing.TB, eps float64) (privinfer.Problem, *linreg.Conjugate) {
	p, th, err := linregda.SBIPaper(eps)
	if err != nil {
		t.Fatal(err)
	}
	return p, th
}

// farInits are four starting points far apart in the tails of the N(0, I) prior.
var farInits = [][]float64{{4, 4, 4}, {-4, -4, -4}, {4, -4, 4}, {-4, 4, -4}}

// summary holds the standard posterior summaries of one coordinate of a
// run, computed by privinfer.Draws.
type summary struct {
	Mean, Q2_5, Q97_5, RHat, ESSBulk, ESSTail, MCSEMean float64
}

// summarize returns the summary of coordinate j of res (NaN fields for
// estimates the draws cannot support).
func summarize(res *mcmc.Result, j int) summary {
	d := res.Draws
	q := d.Quantiles(j, 0.025, 0.975)
	s := summary{Mean: d.Mean()[j], Q2_5: q[0], Q97_5: q[1]}
	or := func(v float64, err error) float64 {
		if err != nil {
			return math.NaN()
		}
		return v
	}
	s.RHat = or(d.RHat(j))
	s.ESSBulk = or(d.ESSBulk(j))
	s.ESSTail = or(d.ESSTail(j))
	s.MCSEMean = or(d.MCSEMean(j))
	return s
}

// pooled returns coordinate j of every draw of res, chain after chain.
func pooled(res *mcmc.Result, j int) []float64 { return res.Draws.Column(j) }

// paperTable holds the SBI paper's DA-MCMC rows (Table 2: ε = 10; Table 4:
// ε = 0.1) as (mean, lo, hi) per coefficient; Table 3 (ε = 1) is not
// legible in the source and is omitted.
var paperTable = map[float64][3][3]float64{
	10:  {{-0.62, -2.50, 0.99}, {-2.72, -3.74, -0.96}, {0.54, -1.06, 2.46}},
	0.1: {{-0.12, -1.98, 1.77}, {-0.13, -2.13, 1.88}, {0.13, -1.91, 2.12}},
}

// paperSMCABC holds Table 2/4's SMC-ABC rows, the method of the authors'
// reference CSVs.
var paperSMCABC = map[float64][3][3]float64{
	10:  {{-0.59, -2.28, 0.93}, {-2.44, -3.67, -0.38}, {0.85, -0.88, 2.77}},
	0.1: {{-0.09, -1.97, 1.93}, {-0.10, -2.09, 1.95}, {0.11, -1.90, 2.22}},
}

func epsName(eps float64) string { return strconv.FormatFloat(eps, 'g', -1, 64) }

// readBetaCSV reads a CSV of β draws: a header, then rows whose columns
// beta0, beta1 and beta2 (by name, as written by privinfer.Draws.WriteCSV)
// or else whose last three columns are β_0, β_1, β_2.
func readBetaCSV(path string) ([3][]float64, error) {
	var out [3][]float64
	f, err := os.Open(path)
	if err != nil {
		return out, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return out, err
	}
	col := [3]int{-3, -2, -1}
	for j := range 3 {
		if k := slices.Index(rows[0], "beta"+strconv.Itoa(j)); k >= 0 {
			col[j] = k
		} else {
			col[j] += len(rows[0])
		}
	}
	for _, r := range rows[1:] {
		for j := range 3 {
			v, err := strconv.ParseFloat(r[col[j]], 64)
			if err != nil {
				return out, err
			}
			out[j] = append(out[j], v)
		}
	}
	return out, nil
}

func summary3(x []float64) [3]float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return [3]float64{stats.Mean(s), stats.Quantile(s, 0.025), stats.Quantile(s, 0.975)}
}

// thinTo returns every k-th element of x so that about m remain.
func thinTo(x []float64, m float64) []float64 {
	k := int(math.Ceil(float64(len(x)) / math.Max(m, 1)))
	var out []float64
	for i := 0; i < len(x); i += k {
		out = append(out, x[i])
	}
	return out
}

func writeDraws(path string, res *mcmc.Result) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := res.Draws.WriteCSV(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// TestLinRegDAMCMCLong is the paper-scale validation of DA-MCMC on the SBI
// paper's linear-regression releases (ε = 10, 1, 0.1): four chains per
// kernel started far apart in the prior's tails reach R̂ < 1.01 on every
// coefficient; mcmc.SOMA and systematic-scan IMwG agree (two-sample KS per
// marginal on samples thinned to their bulk ESS, p > 0.01; about 1% false
// alarms per comparison if the samplers agree); posterior means and 95%
// intervals are logged beside Table 2/4 and the authors' reference CSVs.
// With MCMC_WRITE_TESTDATA=1 it rewrites mcmc/testdata/linreg_eps*_damcmc.csv
// from the Sys-IMwG run (4 chains × 250,000 sweeps, thinned by 250).
func TestLinRegDAMCMCLong(t *testing.T) {
	testutil.Long(t)
	shared := ""
	if _, err := os.Stat("../../../shared"); err == nil {
		shared = testutil.SharedDir(t, "mcmc/linregda")
	}
	for _, eps := range []float64{10, 1, 0.1} {
		p, th := paperLinReg(t, eps)
		runs := map[mcmc.RecordStep]*mcmc.Result{}
		for _, k := range []mcmc.RecordStep{mcmc.SystematicScanIMwG, mcmc.SOMA} {
			cfg := mcmc.DAConfig{ThetaStep: th, RecordStep: k, Chains: 4, Warmup: 2000, Draws: 1000, Thin: 250, Seed: 7, Init: farInits}
			if k == mcmc.SOMA {
				cfg = mcmc.DAConfig{ThetaStep: th, RecordStep: k, Chains: 4, Warmup: 2000, Draws: 2000, Thin: 30, Seed: 8, Init: farInits}
			}
			start := time.Now()
			res, err := mcmc.RunDA(context.Background(), p, cfg)
			if err != nil {
				t.Fatal(err)
			}
			el := time.Since(start).Seconds()
			runs[k] = res
			for j := range 3 {
				s := summarize(res, j)
				t.Logf("eps=%v %-8v β%d mean %.3f (%.3f, %.3f) R̂ %.4f ESS bulk %.0f tail %.0f MCSE %.4f | %.2f s, acc %.3f",
					eps, k, j, s.Mean, s.Q2_5, s.Q97_5, s.RHat, s.ESSBulk, s.ESSTail, s.MCSEMean, el, res.AcceptRate())
				if !(s.RHat < 1.01) {
					t.Errorf("eps=%v %v β%d: R̂ = %.4f, want < 1.01", eps, k, j, s.RHat)
				}
			}
		}
		for j := range 3 {
			var xs [2][]float64
			for i, k := range []mcmc.RecordStep{mcmc.SystematicScanIMwG, mcmc.SOMA} {
				s := summarize(runs[k], j)
				xs[i] = thinTo(pooled(runs[k], j), s.ESSBulk)
			}
			_, p := stats.KSTwoSample(xs[0], xs[1])
			t.Logf("eps=%v β%d KS Sys-IMwG vs mcmc.SOMA: n=%d,%d p=%.3f", eps, j, len(xs[0]), len(xs[1]), p)
			if !(p > 0.01) {
				t.Errorf("eps=%v β%d: mcmc.SOMA and IMwG disagree, KS p = %.3g", eps, j, p)
			}
		}
		ref := runs[mcmc.SystematicScanIMwG]
		for j := range 3 {
			ours := summary3(pooled(ref, j))
			line := fmt.Sprintf("eps=%v β%d ours %.2f (%.2f, %.2f)", eps, j, ours[0], ours[1], ours[2])
			if row, ok := paperTable[eps]; ok {
				line += fmt.Sprintf(" | paper DA-MCMC %.2f (%.2f, %.2f) SMC-ABC %.2f (%.2f, %.2f)",
					row[j][0], row[j][1], row[j][2], paperSMCABC[eps][j][0], paperSMCABC[eps][j][1], paperSMCABC[eps][j][2])
			}
			if shared != "" {
				b, err := readBetaCSV(filepath.Join(shared, "reference/authors-reference-posteriors/linreg_eps"+epsName(eps)+"_beta.csv"))
				if err != nil {
					t.Fatal(err)
				}
				cs := summary3(b[j])
				_, p := stats.KSTwoSample(thinTo(pooled(ref, j), summarize(ref, j).ESSBulk), b[j])
				line += fmt.Sprintf(" | authors' CSV %.2f (%.2f, %.2f) KS p=%.2g", cs[0], cs[1], cs[2], p)
			}
			t.Log(line)
		}
		if os.Getenv("MCMC_WRITE_TESTDATA") != "" {
			if err := writeDraws(testdata+"linreg_eps"+epsName(eps)+"_damcmc.csv", ref); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestCommittedReferenceVsPaper checks the committed DA-MCMC reference
// draws (mcmc/testdata/linreg_eps*_damcmc.csv, 4 chains × 1000 draws thinned
// from 250,000 systematic-scan IMwG sweeps, R̂ < 1.01) against the paper:
// at ε = 10 the posterior means agree with Table 2's DA-MCMC row within
// 0.15 and its 95% interval endpoints within 0.25, and at ε = 0.1 with
// Table 4's DA-MCMC row within 0.15 and 0.3 (the paper's own Monte Carlo
// error and rounding, not ours: our MCSE is about 0.015).
func TestCommittedReferenceVsPaper(t *testing.T) {
	for _, eps := range []float64{10, 0.1} {
		b, err := readBetaCSV(testdata + "linreg_eps" + epsName(eps) + "_damcmc.csv")
		if err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			s := summary3(b[j])
			row := paperTable[eps][j]
			t.Logf("eps=%v β%d ours %.2f (%.2f, %.2f) paper DA-MCMC %.2f (%.2f, %.2f)", eps, j, s[0], s[1], s[2], row[0], row[1], row[2])
			tolM, tolI := 0.15, 0.25
			if eps == 0.1 {
				tolI = 0.3
			}
			if math.Abs(s[0]-row[0]) > tolM || math.Abs(s[1]-row[1]) > tolI || math.Abs(s[2]-row[2]) > tolI {
				t.Errorf("eps=%v β%d: ours %.2f (%.2f, %.2f) vs Table %.2f (%.2f, %.2f)", eps, j, s[0], s[1], s[2], row[0], row[1], row[2])
			}
		}
	}
}

// TestAuthorsReferenceCSVs compares the authors' published SMC-ABC draws
// with the committed DA-MCMC reference (KS on all 2000 authors' draws vs
// 4000 reference draws, which are near-independent: bulk ESS ≈ 3600). It
// documents the ε = 10 inconsistency: the authors' ε = 10 CSV is not the
// posterior of the printed ε = 10 release (KS p < 1e-10 on β1, whose mean
// is −0.86 there against −2.64 here and −2.72 in Table 2).
func TestAuthorsReferenceCSVs(t *testing.T) {
	dir := testutil.SharedDir(t, "mcmc/linregda")
	ours := map[float64][3][]float64{}
	for _, eps := range []float64{10, 1, 0.1} {
		b, err := readBetaCSV(testdata + "linreg_eps" + epsName(eps) + "_damcmc.csv")
		if err != nil {
			t.Fatal(err)
		}
		ours[eps] = b
	}
	for _, eps := range []float64{10, 1, 0.1} {
		a, err := readBetaCSV(filepath.Join(dir, "reference/authors-reference-posteriors/linreg_eps"+epsName(eps)+"_beta.csv"))
		if err != nil {
			t.Fatal(err)
		}
		for j := range 3 {
			sa, so := summary3(a[j]), summary3(ours[eps][j])
			_, p := stats.KSTwoSample(a[j], ours[eps][j])
			t.Logf("authors' ε=%v β%d %.2f (%.2f, %.2f) | ours %.2f (%.2f, %.2f) | KS p=%s", eps, j, sa[0], sa[1], sa[2], so[0], so[1], so[2], formatP(p))
			if eps == 10 && j == 1 {
				if !(p < 1e-10) {
					t.Errorf("the ε = 10 CSV now agrees with the exact sampler (p = %v): update the documented finding", p)
				}
			}
		}
	}
}

func formatP(p float64) string {
	if p < 1e-3 {
		return "<1e-3"
	}
	return epsName(math.Round(p*1000) / 1000)
}

// TestDAAgainstCommittedReference runs a short systematic-scan DA chain on
// the ε = 1 release from far-apart starts and compares each β marginal
// with the committed long-run reference draws (KS on samples thinned to
// their ESS; p > 0.001, a 0.1% false-alarm rate per marginal).
func TestDAAgainstCommittedReference(t *testing.T) {
	testutil.SkipHeavyUnderRace(t)
	ref, err := readBetaCSV(testdata + "linreg_eps1_damcmc.csv")
	if err != nil {
		t.Skipf("reference draws not present: %v", err)
	}
	p, th := paperLinReg(t, 1)
	res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{ThetaStep: th, RecordStep: mcmc.SystematicScanIMwG, Chains: 4, Warmup: 500, Draws: 4000, Seed: 3, Init: farInits})
	if err != nil {
		t.Fatal(err)
	}
	for j := range 3 {
		s := summarize(res, j)
		x := thinTo(pooled(res, j), s.ESSBulk)
		_, p := stats.KSTwoSample(x, ref[j])
		t.Logf("β%d: mean %.3f R̂ %.3f ESS %.0f, reference mean %.3f, KS p=%.3f", j, s.Mean, s.RHat, s.ESSBulk, stats.Mean(ref[j]), p)
		if !(p > 1e-3) {
			t.Errorf("β%d: KS p = %v against the reference", j, p)
		}
		if !(s.RHat < 1.05) {
			t.Errorf("β%d: R̂ = %v after 4000 sweeps", j, s.RHat)
		}
	}
}

// TestRunDAMetropolisTheta runs data augmentation with the Metropolis
// θ-step (the Problem's prior, no conjugacy) and systematic-scan IMwG on
// the ε = 1 release, 4 chains × 10,000 sweeps from far-apart starts, and
// compares each β marginal with the committed reference draws of the
// exact sampler (KS on samples thinned to their bulk ESS, p > 0.001, a
// 0.1% false-alarm rate per marginal; R̂ < 1.05).
func TestRunDAMetropolisTheta(t *testing.T) {
	if testing.Short() {
		t.Skip("long DA run: skipped in -short mode")
	}
	ref, err := readBetaCSV(testdata + "linreg_eps1_damcmc.csv")
	if err != nil {
		t.Skipf("reference draws not present: %v", err)
	}
	p, _ := paperLinReg(t, 1)
	mt, err := mcmc.NewMetropolisTheta(p, []float64{0.12, 0.08, 0.08}, 10)
	if err != nil {
		t.Fatal(err)
	}
	res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{ThetaStep: mt, RecordStep: mcmc.SystematicScanIMwG, Chains: 4, Warmup: 1000, Draws: 10000, Seed: 5, Init: farInits})
	if err != nil {
		t.Fatal(err)
	}
	for j := range 3 {
		s := summarize(res, j)
		x := thinTo(pooled(res, j), s.ESSBulk)
		_, pv := stats.KSTwoSample(x, ref[j])
		t.Logf("β%d: mean %.3f R̂ %.3f ESS %.0f, reference mean %.3f, KS p=%.3f", j, s.Mean, s.RHat, s.ESSBulk, stats.Mean(ref[j]), pv)
		if !(pv > 1e-3) {
			t.Errorf("β%d: KS p = %v against the reference", j, pv)
		}
		if !(s.RHat < 1.05) {
			t.Errorf("β%d: R̂ = %v", j, s.RHat)
		}
	}
}

// BenchmarkDALinRegESS reports the bulk effective sample size per second
// (minimum over β0..β2, "ESS/s") and per 1000 sweeps of DA-MCMC on the
// SBI paper's ε = 10 linear-regression release for each record step: one
// benchmark op is one run of 2 chains (each sweep = n = 100 attempts and
// the θ-step).
func BenchmarkDALinRegESS(b *testing.B) {
	for _, k := range []mcmc.RecordStep{mcmc.SOMA, mcmc.RandomScanIMwG, mcmc.SystematicScanIMwG} {
		b.Run(k.String(), func(b *testing.B) {
			p, th := paperLinReg(b, 10)
			draws := 20000
			if k == mcmc.SOMA {
				draws = 2000
			}
			b.ReportAllocs()
			ess, sweeps := 0.0, 0
			for i := range b.N {
				res, err := mcmc.RunDA(context.Background(), p, mcmc.DAConfig{ThetaStep: th, RecordStep: k, Chains: 2, Warmup: 200, Draws: draws, Seed: uint64(i), Init: farInits[:2]})
				if err != nil {
					b.Fatal(err)
				}
				e := math.Inf(1)
				for j := range 3 {
					v, _ := res.Draws.ESSBulk(j)
					e = math.Min(e, v)
				}
				ess += e
				sweeps += 2 * (draws + 200)
			}
			b.ReportMetric(ess/b.Elapsed().Seconds(), "ESS/s")
			b.ReportMetric(1000*ess/float64(sweeps), "ESS/1000sweeps")
		})
	}
}
