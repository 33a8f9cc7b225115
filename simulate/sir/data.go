package sir

import (
	"fmt"
	"math"

	"github.com/privinfer/privinfer/mechanism"
	"github.com/privinfer/privinfer/simulate"
)

// Prior returns the SBI paper's prior on θ = (log β, log γ) for the
// synthetic experiment: independent normals with means log 0.4 and
// log 0.125 and VARIANCES 0.5 and 0.2 (App. E.1.1 writes N(log 0.4, 0.5);
// the second argument is a variance, as in the authors' code, so the
// standard deviations are 0.707 and 0.447).
func Prior() *simulate.MVNormal {
	p, err := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{math.Log(0.4), math.Log(0.125)}, Variances: []float64{0.5, 0.2}})
	if err != nil {
		panic(err) // constants: cannot fail
	}
	return p
}

// OutbreakPrior returns the prior the authors' code uses for the real
// outbreaks: N((−2, −3), I) on (log β, log γ).
func OutbreakPrior() *simulate.MVNormal {
	p, err := simulate.NewDiagNormal(simulate.DiagNormalConfig{Mean: []float64{-2, -3}, Variances: []float64{1, 1}})
	if err != nil {
		panic(err)
	}
	return p
}

// SyntheticTheta returns the SBI paper's data-generating θ* =
// (log β, log γ) = (−0.5, −3), i.e. β = e^−0.5 ≈ 0.607, γ = e^−3 ≈ 0.0498,
// R0 = e^2.5 ≈ 12.2 (a measles-like outbreak).
func SyntheticTheta() []float64 { return []float64{-0.5, -3} }

// Settings of the SBI paper's synthetic SIR experiment (App. E.1.1): the
// record times are PaperTimes() and the infection-trajectory mechanism
// uses n trials and m = n·L/ε (SyntheticM).
const (
	// SyntheticK is the population size K = 1e6.
	SyntheticK = 1_000_000
	// SyntheticN is the mechanism's number of binomial trials n = 1000.
	SyntheticN = 1000
	// SyntheticL is the number of record times L = 10.
	SyntheticL = 10
)

// SyntheticM returns the mechanism parameter m = n·L/ε of the synthetic
// experiment for ε ∈ {10, 1, 0.1} (m = 1e3, 1e4, 1e5).
func SyntheticM(eps float64) (int64, error) {
	switch eps {
	case 10:
		return 1000, nil
	case 1:
		return 10000, nil
	case 0.1:
		return 100000, nil
	}
	return 0, fmt.Errorf("%w: the paper's synthetic SIR release exists for epsilon 10, 1, 0.1, got %v", simulate.ErrInvalid, eps)
}

// SyntheticSimulator returns the SBI paper's synthetic private
// simulator at ε ∈ {10, 1, 0.1}: the exact SIR simulator with K = 1e6,
// θ = (log β, log γ), record times PaperTimes(), composed with the
// infection-trajectory mechanism (n = 1000, m = nL/ε). Its releases are
// comparable with SyntheticRelease(eps).
func SyntheticSimulator(eps float64) (*simulate.PrivateSimulator, error) {
	m, err := SyntheticM(eps)
	if err != nil {
		return nil, err
	}
	sir, err := New(Config{K: SyntheticK})
	if err != nil {
		return nil, err
	}
	mech, err := mechanism.NewInfectionTrajectory(mechanism.TrajectoryConfig{Trials: SyntheticN, Inflation: m, Population: SyntheticK, Times: SyntheticL})
	if err != nil {
		return nil, err
	}
	return simulate.NewPrivate(sir, mech)
}

// SyntheticRelease returns the SBI paper's observed private infection
// trajectory s_dp = (s_1/n, …, s_10/n) for the synthetic experiment at
// ε ∈ {10, 1, 0.1} (App. E.1.1 prints ε = 10; the ε = 1 and 0.1 vectors
// come from the project's reference file paper-values.json). Entries are proportions on the lattice of
// multiples of 1/n, n = 1000. A fresh slice is returned.
func SyntheticRelease(eps float64) ([]float64, error) {
	switch eps {
	case 10:
		return []float64{0.001, 0.031, 0.614, 0.263, 0.123, 0.047, 0.018, 0.009, 0.005, 0.003}, nil
	case 1:
		return []float64{0.012, 0.015, 0.702, 0.313, 0.138, 0.053, 0.037, 0.012, 0.016, 0.013}, nil
	case 0.1:
		return []float64{0.075, 0.085, 0.682, 0.312, 0.224, 0.113, 0.112, 0.093, 0.081, 0.086}, nil
	}
	return nil, fmt.Errorf("%w: the paper's synthetic SIR release exists for epsilon 10, 1, 0.1, got %v", simulate.ErrInvalid, eps)
}

// Outbreak is one of the SBI paper's real-outbreak observed releases
// (App. E.1.2), all at ε = 10 with n = m = 100 and L = 10.
//
// The printed releases are real-valued (e.g. 0.0039), so they are NOT on
// the mechanism's lattice of multiples of 1/n, and their first entry is
// fixed at 0.0010: treat them as given observed vectors, not as draws of
// the infection-trajectory mechanism. The flu and COVID-19 releases are
// the confidential proportions themselves (rebuilt from raw counts, see
// Source and FluBoardingSchoolCases); the Ebola ones could not be rebuilt. The authors' code uses the prior
// OutbreakPrior and K = 1e5 for all of them (the paper states K = 763
// for the boarding-school flu, stored in K).
type Outbreak struct {
	// Name identifies the data set.
	Name string
	// K is the population the paper states.
	K int64
	// Interval describes the spacing of the 10 record times.
	Interval string
	// SDP is the observed release (proportions).
	SDP []float64
	// CodeLogTheta is the (log β, log γ) reference point in the authors'
	// code, for orientation only.
	CodeLogTheta []float64
	// Source says where the raw counts come from and whether SDP could be
	// rebuilt from them.
	Source string
}

// Provenance of the real-outbreak releases (see Outbreak.Source).
const (
	fluSource = "rebuilt: days 1–9 of FluBoardingSchoolCases (epimdr's flu data) / 763, rounded to 4 dp, equal SDP[1:] exactly; SDP[0] = 0.0010 is fixed, " +
		"so the release is the confidential proportion itself, without the mechanism's noise"
	ebolaSource = "not rebuilt: no normalisation of the CDC/WHO case series we tried reproduces it (at K = 1e5 the peak entries exceed the country's " +
		"total cases, e.g. Liberia 0.2579·1e5 = 25,790 > 10,678, and with 120-day spacing from 2014-03-31 the peaks fall after the epidemic ended)"
	covidSource = "rebuilt from the JHU CSSE Clark County series (a stand-in for the paper's USAFacts file): " +
		"(C(t) − C(t − 14 d))/1e5 at t = 2020-08-28 + 24k days, k = 1…9, equals SDP[1:] at the digits the authors' code gives for k ≠ 6, 8, " +
		"and with a 15-day difference for k = 6, 8; the stated start 2020-09-07 does not fit; SDP[0] = 0.0010 is fixed, so the release carries no mechanism noise"
)

// FluBoardingSchoolK is the population of the 1978 boarding-school
// influenza outbreak: 763 boys.
const FluBoardingSchoolK = 763

// FluBoardingSchoolCases returns the daily number of boys confined to bed
// in the 1978 English boarding-school influenza outbreak, days 1 to 14
// (22 January to 4 February 1978), the series the SBI paper cites (App.
// E.1.2). Divided by FluBoardingSchoolK and rounded to four decimals, days
// 1–9 are the paper's release entries 1–9 exactly.
//
// Source: R package epimdr 0.6-5 (Bjørnstad 2018, "Epidemics: Models and
// Data using R"; GPL-3), data set flu (data/flu.rda, CRAN mirror
// github.com/cran/epimdr commit 1c01406a). Original data: Anonymous (1978),
// "Influenza in a boarding school", British Medical Journal 1:587. The
// MIT-licensed 'outbreaks' package's influenza_england_1978_school
// digitises the same figure slightly differently (26 instead of 28 on day
// 3, so 0.0341 instead of the paper's 0.0367) and does not rebuild the
// release. A fresh slice is returned.
func FluBoardingSchoolCases() []int64 {
	return []int64{3, 8, 28, 76, 222, 293, 257, 237, 192, 126, 70, 28, 12, 5}
}

// Outbreaks returns the five real-outbreak releases in the order flu
// boarding school, Ebola Guinea, Ebola Liberia, Ebola Sierra Leone, COVID-19
// Clark County. The values are the unrounded releases of the authors'
// code (paper-values.json); the paper prints them to four decimals. Fresh
// slices are returned.
func Outbreaks() []Outbreak {
	return []Outbreak{
		{"flu_boarding_school", 763, "daily",
			[]float64{0.001, 0.0039, 0.0105, 0.0367, 0.0996, 0.291, 0.384, 0.3368, 0.3106, 0.2516}, []float64{-2.3, -3.66}, fluSource},
		{"ebola_guinea", 100000, "9 intervals of 120 days from 2014-03-31",
			[]float64{0.001, 0.01105, 0.00845, 0.0129, 0.05095, 0.052, 0.0224, 0.02115, 0.00835, 0.00225}, []float64{-1.46, -1.81}, ebolaSource},
		{"ebola_liberia", 100000, "9 intervals of 120 days from 2014-03-31",
			[]float64{0.001, 0.00065, 0.00185, 0.06635, 0.2579, 0.07415, 0.061, 0.0542, 0.0172, 0.0003}, []float64{-1.67, -2.46}, ebolaSource},
		{"ebola_sierra_leone", 100000, "9 intervals of 120 days from 2014-03-31",
			[]float64{0.001, 0.0079, 0.0434, 0.2156, 0.2054, 0.09275, 0.05485, 0.03655, 0.0237, 0.0232}, []float64{-1.58, -2.52}, ebolaSource},
		{"covid_clark_county", 100000, "9 intervals of 24 days from 2020-09-07",
			[]float64{0.001, 0.02812, 0.05655, 0.09776, 0.2108, 0.2443, 0.2574, 0.0864, 0.04337, 0.02629}, []float64{-1.94, -2.95}, covidSource},
	}
}

// OutbreakByName returns the named real-outbreak release.
func OutbreakByName(name string) (Outbreak, error) {
	for _, o := range Outbreaks() {
		if o.Name == name {
			return o, nil
		}
	}
	return Outbreak{}, fmt.Errorf("%w: unknown outbreak %q", simulate.ErrInvalid, name)
}
