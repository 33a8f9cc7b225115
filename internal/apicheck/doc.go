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
//   - an exported name (func, method, type, field, interface method, var,
//     const) contains "Seeded": the seeded-noise opt-out is named
//     Reproducible;
//   - an exported function or method is named LogProb…: the library's name
//     is LogDensity;
//   - an exported name contains "Paper" outside the model packages
//     (simulate/<model>, mcmc/linregda; examples/ is not checked).
//
// The conventions it enforces are stated in the root package's
// documentation (section "One dialect").
package apicheck
