package privinfer

import (
	"math"
	"strconv"
	"strings"
)

// DefaultHDIProb is the probability of the highest-density interval in a
// Summary, ArviZ's default (hence the columns hdi_3% and hdi_97%).
const DefaultHDIProb = 0.94

// SummaryRow is one parameter's line of a Summary. Entries that are not
// defined for the draws (the chain diagnostics of weighted draws) or that
// could not be estimated are NaN.
type SummaryRow struct {
	// Name is the parameter name.
	Name string
	// Mean and SD are the (weighted) posterior mean and standard
	// deviation (Draws.Mean, Draws.SD).
	Mean, SD float64
	// HDILow and HDIHigh bound the highest-density interval of
	// probability Summary.HDIProb (Draws.HDI).
	HDILow, HDIHigh float64
	// Quantiles are the quantiles at Summary.QuantileProbs
	// (Draws.Quantiles).
	Quantiles []float64
	// Below are the posterior probabilities P(θ_j ≤ q) at each
	// q in Summary.Thresholds (Draws.CDF); nil without thresholds.
	Below []float64
	// MCSEMean and MCSESD are the Monte Carlo standard errors of Mean
	// and SD (Draws.MCSEMean, Draws.MCSESD).
	MCSEMean, MCSESD float64
	// ESSBulk and ESSTail are the bulk and tail effective sample sizes
	// (Draws.ESSBulk, Draws.ESSTail).
	ESSBulk, ESSTail float64
	// RHat is the rank-normalised split R̂ (Draws.RHat).
	RHat float64
}

// Summary is the table of posterior summaries and diagnostics of Draws,
// one row per parameter, as ArviZ's az.summary. Its String method prints
// the table; its fields are there for programs to test.
type Summary struct {
	// HDIProb is the probability of the HDI columns.
	HDIProb float64
	// QuantileProbs are the probabilities of the quantile columns: 0.05,
	// 0.5 and 0.95 unless SummaryConfig.QuantileProbs chose others.
	QuantileProbs []float64
	// Thresholds are the values q of the columns P(θ_j ≤ q)
	// (SummaryConfig.Thresholds); nil for none.
	Thresholds []float64
	// Weighted reports importance-weighted draws: the table then has the
	// columns mean, sd, hdi, mcse_mean and ess (Kish's ESS of the
	// weights, the same for every parameter), and MCSESD, ESSBulk,
	// ESSTail and RHat are NaN.
	Weighted bool
	// ESS is Kish's effective sample size of the weights (Draws.ESS).
	ESS float64
	// Draws and Chains are the number of draws and of chains (0 when not
	// chained).
	Draws, Chains int
	// Rows holds one row per parameter, in coordinate order.
	Rows []SummaryRow
	// Reason explains the first diagnostic that could not be estimated,
	// or is empty.
	Reason string
}

// Summary returns the table of posterior summaries and diagnostics of the
// draws with the DefaultHDIProb interval, or nil if the draws do not
// Validate or are empty.
func (d *Draws) Summary() *Summary { return d.SummaryHDI(DefaultHDIProb) }

// SummaryHDI is Summary with HDI columns of probability prob (0 < prob <
// 1); it returns nil for an invalid prob.
func (d *Draws) SummaryHDI(prob float64) *Summary {
	if !(prob > 0 && prob < 1) {
		return nil
	}
	s, err := d.SummaryWith(SummaryConfig{HDIProb: prob})
	if err != nil {
		return nil
	}
	return s
}

// SummaryConfig chooses the columns of Draws.SummaryWith. The zero value
// gives Summary's table.
type SummaryConfig struct {
	// HDIProb is the probability of the HDI columns, in (0, 1); zero
	// selects DefaultHDIProb.
	HDIProb float64
	// QuantileProbs are the probabilities of the quantile columns, each
	// in [0, 1], at most 64 of them; nil (or empty) selects 0.05, 0.5 and
	// 0.95.
	QuantileProbs []float64
	// Thresholds are values q, each finite, at most 64 of them: the table
	// gets a column P(θ_j ≤ q) for each (the posterior probability that
	// the parameter is at most q, Draws.CDF; P(≤0) for a sign). Nil adds
	// none.
	Thresholds []float64
}

// maxSummaryColumns bounds the quantile and threshold columns.
const maxSummaryColumns = 64

// Validate reports whether c is usable, with an error wrapping
// ErrInvalid that names the offending field.
func (c SummaryConfig) Validate() error {
	if c.HDIProb != 0 && !(c.HDIProb > 0 && c.HDIProb < 1) {
		return invalidf("SummaryConfig.HDIProb must be 0 (default) or in (0, 1), got %v", c.HDIProb)
	}
	if len(c.QuantileProbs) > maxSummaryColumns {
		return invalidf("SummaryConfig.QuantileProbs must hold at most %d probabilities, got %d", maxSummaryColumns, len(c.QuantileProbs))
	}
	if len(c.Thresholds) > maxSummaryColumns {
		return invalidf("SummaryConfig.Thresholds must hold at most %d values, got %d", maxSummaryColumns, len(c.Thresholds))
	}
	for k, p := range c.QuantileProbs {
		if !(p >= 0 && p <= 1) {
			return invalidf("SummaryConfig.QuantileProbs[%d] must be in [0, 1], got %v", k, p)
		}
	}
	for k, q := range c.Thresholds {
		if math.IsNaN(q) || math.IsInf(q, 0) {
			return invalidf("SummaryConfig.Thresholds[%d] must be finite, got %v", k, q)
		}
	}
	return nil
}

// SummaryWith returns the table of posterior summaries and diagnostics of
// the draws with the columns cfg chooses: Summary's, with other HDI and
// quantile probabilities, and the probabilities P(θ_j ≤ q) of
// cfg.Thresholds. It returns an error wrapping ErrInvalid for a cfg that
// does not Validate or draws that do not Validate or are empty.
func (d *Draws) SummaryWith(cfg SummaryConfig) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	if d.Len() == 0 {
		return nil, invalidf("Draws: no draws to summarise")
	}
	prob := cfg.HDIProb
	if prob == 0 {
		prob = DefaultHDIProb
	}
	qp := []float64{0.05, 0.5, 0.95}
	if len(cfg.QuantileProbs) > 0 {
		qp = append([]float64(nil), cfg.QuantileProbs...)
	}
	var th []float64
	if len(cfg.Thresholds) > 0 {
		th = append([]float64(nil), cfg.Thresholds...)
	}
	s := &Summary{HDIProb: prob, QuantileProbs: qp, Thresholds: th, Weighted: d.Weighted(), ESS: d.ESS(), Draws: d.Len(), Chains: d.Chains}
	mean, sd := d.Mean(), d.SD()
	names := d.ParamNames()
	nan := math.NaN()
	note := func(err error) {
		if err != nil && s.Reason == "" {
			s.Reason = err.Error()
		}
	}
	for j := range d.Dim {
		row := SummaryRow{Name: names[j], Mean: mean[j], SD: nan, MCSESD: nan, ESSBulk: nan, ESSTail: nan, RHat: nan}
		if sd != nil {
			row.SD = sd[j]
		}
		row.HDILow, row.HDIHigh = d.HDI(j, prob)
		row.Quantiles = d.Quantiles(j, s.QuantileProbs...)
		if th != nil {
			row.Below = make([]float64, len(th))
			for k, q := range th {
				row.Below[k] = d.CDF(j, q)
			}
		}
		var err error
		row.MCSEMean, err = d.MCSEMean(j)
		note(err)
		if !s.Weighted {
			row.MCSESD, err = d.MCSESD(j)
			note(err)
			row.ESSBulk, err = d.ESSBulk(j)
			note(err)
			row.ESSTail, err = d.ESSTail(j)
			note(err)
			row.RHat, err = d.RHat(j)
			note(err)
		}
		s.Rows = append(s.Rows, row)
	}
	return s, nil
}

// Row returns the row of the parameter called name.
func (s *Summary) Row(name string) (SummaryRow, bool) {
	if s != nil {
		for _, r := range s.Rows {
			if r.Name == name {
				return r, true
			}
		}
	}
	return SummaryRow{}, false
}

// percent formats a probability as a percentage, rounded to six decimals
// and without trailing zeros.
func percent(p float64) string {
	return strconv.FormatFloat(math.Round(100*p*1e6)/1e6, 'f', -1, 64)
}

// String prints the table like ArviZ's az.summary: a header line and one
// line per parameter with mean, sd, hdi_L%, hdi_H%, the quantiles (5%,
// 50%, 95% by default), the probabilities P(≤q) of the thresholds if
// any, mcse_mean, mcse_sd, ess_bulk, ess_tail and r_hat (weighted draws:
// mean, sd, hdi_L%, hdi_H%, the quantiles, the probabilities, mcse_mean
// and ess). Means, deviations, bounds, probabilities and standard errors
// have three decimals, effective sample sizes none and R̂ two.
func (s *Summary) String() string {
	if s == nil {
		return "<no summary: invalid or empty draws>"
	}
	lo, hi := "hdi_"+percent((1-s.HDIProb)/2)+"%", "hdi_"+percent((1+s.HDIProb)/2)+"%"
	f3 := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	f0 := func(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	header := []string{"", "mean", "sd", lo, hi}
	for _, p := range s.QuantileProbs {
		header = append(header, percent(p)+"%")
	}
	for _, q := range s.Thresholds {
		header = append(header, "P(≤"+strconv.FormatFloat(q, 'g', 6, 64)+")")
	}
	header = append(header, "mcse_mean")
	if s.Weighted {
		header = append(header, "ess")
	} else {
		header = append(header, "mcse_sd", "ess_bulk", "ess_tail", "r_hat")
	}
	cells := [][]string{header}
	for _, r := range s.Rows {
		line := []string{r.Name, f3(r.Mean), f3(r.SD), f3(r.HDILow), f3(r.HDIHigh)}
		for k := range s.QuantileProbs {
			v := math.NaN()
			if k < len(r.Quantiles) {
				v = r.Quantiles[k]
			}
			line = append(line, f3(v))
		}
		for k := range s.Thresholds {
			v := math.NaN()
			if k < len(r.Below) {
				v = r.Below[k]
			}
			line = append(line, f3(v))
		}
		line = append(line, f3(r.MCSEMean))
		if s.Weighted {
			line = append(line, f0(s.ESS))
		} else {
			line = append(line, f3(r.MCSESD), f0(r.ESSBulk), f0(r.ESSTail), f2(r.RHat))
		}
		cells = append(cells, line)
	}
	width := make([]int, len(header))
	for _, line := range cells {
		for k, c := range line {
			width[k] = max(width[k], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, line := range cells {
		for k, c := range line {
			pad := strings.Repeat(" ", width[k]-len([]rune(c)))
			if k == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}
