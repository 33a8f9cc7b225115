package privinfer

import (
	"encoding/json"
)

// summaryRowJSON is the JSON form of SummaryRow.
type summaryRowJSON struct {
	Name      string      `json:"name"`
	Mean      jsonFloat   `json:"mean"`
	SD        jsonFloat   `json:"sd"`
	HDILow    jsonFloat   `json:"hdi_low"`
	HDIHigh   jsonFloat   `json:"hdi_high"`
	Quantiles []jsonFloat `json:"quantiles"`
	Below     []jsonFloat `json:"below,omitempty"`
	MCSEMean  jsonFloat   `json:"mcse_mean"`
	MCSESD    jsonFloat   `json:"mcse_sd"`
	ESSBulk   jsonFloat   `json:"ess_bulk"`
	ESSTail   jsonFloat   `json:"ess_tail"`
	RHat      jsonFloat   `json:"r_hat"`
}

// summaryJSON is the JSON form of Summary.
type summaryJSON struct {
	HDIProb       jsonFloat        `json:"hdi_prob"`
	QuantileProbs []jsonFloat      `json:"quantile_probs"`
	Thresholds    []jsonFloat      `json:"thresholds,omitempty"`
	Weighted      bool             `json:"weighted"`
	ESS           jsonFloat        `json:"ess"`
	Draws         int              `json:"draws"`
	Chains        int              `json:"chains"`
	Rows          []summaryRowJSON `json:"rows"`
	Reason        string           `json:"reason,omitempty"`
}

func toJSONFloats(v []float64) []jsonFloat {
	if v == nil {
		return nil
	}
	out := make([]jsonFloat, len(v))
	for i, x := range v {
		out[i] = jsonFloat(x)
	}
	return out
}

func fromJSONFloats(v []jsonFloat) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// MarshalJSON writes the summary as an object with the fields of Summary
// and of each SummaryRow in snake case ("hdi_prob", "quantile_probs",
// "thresholds" when there are any, "rows": [{"name", "mean", "sd",
// "hdi_low", "hdi_high", "quantiles", "below" (with thresholds),
// "mcse_mean", "mcse_sd", "ess_bulk", "ess_tail", "r_hat"}], …). The
// entries that are NaN (the chain diagnostics of weighted draws, a
// diagnostic that could not be estimated) and any ±Inf are written as the
// strings "NaN", "+Inf" and "-Inf", as Draws.MarshalJSON writes them, and
// read back by UnmarshalJSON. A nil Summary is null.
func (s *Summary) MarshalJSON() ([]byte, error) {
	if s == nil {
		return []byte("null"), nil
	}
	j := summaryJSON{HDIProb: jsonFloat(s.HDIProb), QuantileProbs: toJSONFloats(s.QuantileProbs), Thresholds: toJSONFloats(s.Thresholds), Weighted: s.Weighted,
		ESS: jsonFloat(s.ESS), Draws: s.Draws, Chains: s.Chains, Reason: s.Reason, Rows: make([]summaryRowJSON, len(s.Rows))}
	for i, r := range s.Rows {
		j.Rows[i] = summaryRowJSON{Name: r.Name, Mean: jsonFloat(r.Mean), SD: jsonFloat(r.SD), HDILow: jsonFloat(r.HDILow),
			HDIHigh: jsonFloat(r.HDIHigh), Quantiles: toJSONFloats(r.Quantiles), Below: toJSONFloats(r.Below), MCSEMean: jsonFloat(r.MCSEMean),
			MCSESD: jsonFloat(r.MCSESD), ESSBulk: jsonFloat(r.ESSBulk), ESSTail: jsonFloat(r.ESSTail), RHat: jsonFloat(r.RHat)}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the form written by MarshalJSON; errors wrap
// ErrInvalid.
func (s *Summary) UnmarshalJSON(b []byte) error {
	if s == nil {
		return invalidf("UnmarshalJSON into a nil Summary")
	}
	var j summaryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return invalidf("summary JSON: %v", err)
	}
	out := Summary{HDIProb: float64(j.HDIProb), QuantileProbs: fromJSONFloats(j.QuantileProbs), Thresholds: fromJSONFloats(j.Thresholds), Weighted: j.Weighted,
		ESS: float64(j.ESS), Draws: j.Draws, Chains: j.Chains, Reason: j.Reason}
	for _, r := range j.Rows {
		out.Rows = append(out.Rows, SummaryRow{Name: r.Name, Mean: float64(r.Mean), SD: float64(r.SD), HDILow: float64(r.HDILow),
			HDIHigh: float64(r.HDIHigh), Quantiles: fromJSONFloats(r.Quantiles), Below: fromJSONFloats(r.Below), MCSEMean: float64(r.MCSEMean),
			MCSESD: float64(r.MCSESD), ESSBulk: float64(r.ESSBulk), ESSTail: float64(r.ESSTail), RHat: float64(r.RHat)})
	}
	*s = out
	return nil
}
