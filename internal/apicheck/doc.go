// Package apicheck holds the test that keeps the library's exported API in
// one dialect; it has no exported API of its own.
//
// The test parses every non-internal package of the core module (the
// example programs and the nested modules excluded) and fails when
//
//   - an exported name has no doc comment beginning with its name (a type
//     may start with "A" or "An"; a name declared in a documented
//     const or var group may rely on the group's comment);
//   - a package declares an exported error sentinel (a package-level Err…
//     variable) other than ErrInvalid and the documented non-argument
//     errors listed in the test's allowlist with their reasons;
//   - an exported constructor (a function named New…) takes more than one
//     positional numeric parameter (int…, uint…, float…): such settings
//     belong in a Config struct with named fields, documented zero values
//     and Validate, and a dimension is a field named Dim;
//   - an exported constructor NewT takes a T or *T: a type is not its own
//     configuration (the configuration is TConfig, with Validate, and the
//     built value keeps its fields unexported);
//   - an exported function or method of mechanism/** takes two or more
//     positional parameters of one numeric type (bounds lo, hi float64
//     that swap unnoticed), unless the test's allowlist gives the reason
//     its order cannot be confused (clamp(x, lo, hi), a fraction num/den,
//     a conversion's published argument order);
//   - an exported name (func, method, type, field, interface method, var,
//     const) contains "Seeded": the seeded-noise opt-out is named
//     Reproducible;
//   - an exported function or method is named LogProb…: the library's name
//     is LogDensity;
//   - an exported name contains "Paper" outside the model packages
//     (simulate/<model>, mcmc/linregda; examples/ is not checked).
//
// A second test reads every comment of the core module's non-test files,
// internal packages included, and fails on a line that looks like a
// measurement: a markdown table row or separator, an evaluation metric
// (C2ST, MMD, NLOG, LMD, KS, ESS, R̂) followed by a figure with two or
// more decimals, or a "mean ± sd" figure. Doc comments state decisions and
// point to where the measurements live (benchmarks, RESULTS.md and
// BENCHMARKS.md files, the reproduction report); a flagged line that is
// not a measurement goes on the test's allowlist with its reason.
//
// Each rule has a self-test that feeds it violating and allowed snippets,
// so a rule that stops reporting fails the build.
//
// The conventions it enforces are stated in the root package's
// documentation (section "One dialect").
package apicheck
