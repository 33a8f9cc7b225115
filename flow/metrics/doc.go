// Package metrics measures how close an approximate posterior is to a
// reference: the two-sample discrepancies and predictive scores of the SBI
// paper's §4.1 — maximum mean discrepancy (MMD), the classifier two-sample
// test (C2ST) in the protocol of the sbibm benchmark, the negative log
// posterior density at the true parameter (NLOG), the log median distance of
// posterior-predictive releases to the observed one (LMD) — and marginal
// Kolmogorov–Smirnov statistics (the paper's Fig. 3).
//
// Samples are flat row-major slices: n points of dimension d are a []float64
// of length n·d with point i in x[i*d:(i+1)*d]. Every function validates its
// shapes and returns an error wrapping ErrInvalid for invalid arguments.
//
// Smaller is better for every metric except C2ST, whose ideal value is 0.5
// (the classifier cannot tell the samples apart) and whose worst is 1.
package metrics

import "errors"

// ErrInvalid is wrapped by every error about invalid arguments.
var ErrInvalid = errors.New("metrics: invalid argument")
