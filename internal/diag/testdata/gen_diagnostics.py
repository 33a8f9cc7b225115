#!/usr/bin/env python3
"""Reference values for mcmc's R-hat / ESS / MCSE diagnostics.

Implements the published formulas of Vehtari, Gelman, Simpson, Carpenter and
Buerkner (2021), "Rank-normalization, folding, and localization: an improved
R-hat for assessing convergence of MCMC", Bayesian Analysis 16(2), in pure
Python (no numpy), independently of the Go code: autocovariances by direct
summation (the Go code uses an FFT), ranks by sorting, normal quantiles from
statistics.NormalDist.

Writes diag_chains.csv (case,chain,iter,value), diag_reference.csv
(case,rhat,rhat_basic,ess_bulk,ess_tail,ess_mean,mcse_mean) and
diag_mcse_sd.csv (case,mcse_sd; ArviZ's delta-method formula).
Run: python3 gen_diagnostics.py   (deterministic: fixed seeds)
"""
import math
import random
from statistics import NormalDist

ND = NormalDist()


def mean(x):
    return sum(x) / len(x)


def var(x):  # n-1 denominator
    m = mean(x)
    return sum((v - m) ** 2 for v in x) / (len(x) - 1)


def quantile7(sorted_x, p):
    n = len(sorted_x)
    h = (n - 1) * p
    lo = int(math.floor(h))
    if lo >= n - 1:
        return sorted_x[-1]
    return sorted_x[lo] + (h - lo) * (sorted_x[lo + 1] - sorted_x[lo])


def split(chains):
    n = len(chains[0])
    h = n // 2
    out = []
    for c in chains:
        out.append(c[:h])
        out.append(c[n - h:])
    return out


def rank_normalize(chains):
    pooled = sorted((v, ci, i) for ci, c in enumerate(chains) for i, v in enumerate(c))
    S = len(pooled)
    out = [[0.0] * len(c) for c in chains]
    a = 0
    while a < S:
        b = a
        while b + 1 < S and pooled[b + 1][0] == pooled[a][0]:
            b += 1
        r = (a + b) / 2 + 1  # average rank
        z = ND.inv_cdf((r - 3 / 8) / (S + 1 / 4))
        for k in range(a, b + 1):
            _, ci, i = pooled[k]
            out[ci][i] = z
        a = b + 1
    return out


def rhat_basic(chains):
    n = len(chains[0])
    m = len(chains)
    means = [mean(c) for c in chains]
    W = mean([var(c) for c in chains])
    B = n * var(means) if m > 1 else 0.0
    return math.sqrt((B / W + n - 1) / n)


def rhat(chains):
    sp = split(chains)
    bulk = rhat_basic(rank_normalize(sp))
    pooled = sorted(v for c in sp for v in c)
    med = quantile7(pooled, 0.5)
    fold = [[abs(v - med) for v in c] for c in sp]
    tail = rhat_basic(rank_normalize(fold))
    return max(bulk, tail)


def ess(chains):
    """Vehtari et al. (2021) eqs. 10-13 with Geyer's initial monotone sequence."""
    m = len(chains)
    n = len(chains[0])
    mus = [mean(c) for c in chains]
    cache = {}

    def acov(c, t):  # biased autocovariance at lag t, direct sum
        key = (c, t)
        if key not in cache:
            x, mu = chains[c], mus[c]
            cache[key] = sum((x[i] - mu) * (x[i + t] - mu) for i in range(n - t)) / n
        return cache[key]

    def mean_acov(t):
        return sum(acov(c, t) for c in range(m)) / m

    mean_var = mean_acov(0) * n / (n - 1)
    var_plus = mean_var * (n - 1) / n
    if m > 1:
        var_plus += var(mus)
    rho = [0.0] * n
    rho_even = 1.0
    rho_odd = 1 - (mean_var - mean_acov(1)) / var_plus
    rho[0], rho[1] = rho_even, rho_odd
    t = 1
    while t < n - 4 and rho_even + rho_odd > 0:
        rho_even = 1 - (mean_var - mean_acov(t + 1)) / var_plus
        rho_odd = 1 - (mean_var - mean_acov(t + 2)) / var_plus
        if rho_even + rho_odd >= 0:
            rho[t + 1], rho[t + 2] = rho_even, rho_odd
        t += 2
    max_t = t
    if rho_even > 0:
        rho[max_t + 1] = rho_even
    t = 1
    while t <= max_t - 3:
        if rho[t + 1] + rho[t + 2] > rho[t - 1] + rho[t]:
            rho[t + 1] = (rho[t - 1] + rho[t]) / 2
            rho[t + 2] = rho[t + 1]
        t += 2
    S = m * n
    tau = -1 + 2 * sum(rho[0:max(1, max_t)]) + rho[max_t + 1]
    tau = max(tau, 1 / math.log10(S))
    return S / tau


def ess_bulk(chains):
    return ess(rank_normalize(split(chains)))


def ess_quantile(chains, p):
    sp = split(chains)
    q = quantile7(sorted(v for c in sp for v in c), p)
    return ess([[1.0 if v <= q else 0.0 for v in c] for c in sp])


def ess_tail(chains):
    return min(ess_quantile(chains, 0.05), ess_quantile(chains, 0.95))


def ess_mean(chains):
    return ess(split(chains))


def mcse_mean(chains):
    pooled = [v for c in chains for v in c]
    return math.sqrt(var(pooled) / ess_mean(chains))


def mcse_sd(chains):
    """ArviZ's mcse_sd: the delta-method standard error of the pooled sd, with
    the ESS of the squared centred draws on split chains (no rank normalisation)."""
    pooled = [v for c in chains for v in c]
    mu = mean(pooled)
    c2 = [[(v - mu) ** 2 for v in c] for c in chains]
    e = ess_mean(c2)
    flat = [v for c in c2 for v in c]
    evar = mean(flat)
    varvar = (mean([v * v for v in flat]) - evar ** 2) / e
    return math.sqrt(varvar / evar / 4)


def ar1(rng, n, phi, innov, start=0.0, shift=0.0):
    x, out = start, []
    for _ in range(n):
        x = phi * x + innov(rng)
        out.append(x + shift)
    return out


def cases():
    rng = random.Random(20260101)
    g = lambda r: r.gauss(0, 1)
    cauchy = lambda r: math.tan(math.pi * (r.random() - 0.5))
    out = {}
    out["ar1"] = [ar1(rng, 1000, 0.8, g, shift=0.05 * c) for c in range(4)]
    out["heavy"] = [ar1(rng, 300, 0.5, cauchy) for c in range(4)]
    out["ties"] = [[float(min(5, int(abs(v)))) for v in ar1(rng, 201, 0.6, g)] for c in range(3)]
    out["stuck"] = [ar1(rng, 500, 0.9, g, shift=(3.0 if c == 3 else 0.0)) for c in range(4)]
    out["antithetic"] = [ar1(rng, 100, -0.7, g) for c in range(2)]
    out["onechain"] = [ar1(rng, 400, 0.95, g)]
    return out


def rhat_bulk(chains):
    """The rank-normalised split R-hat alone (no folding)."""
    return rhat_basic(rank_normalize(split(chains)))


def rhat_tail(chains):
    """The folded rank-normalised split R-hat alone."""
    sp = split(chains)
    med = quantile7(sorted(v for c in sp for v in c), 0.5)
    return rhat_basic(rank_normalize([[abs(v - med) for v in c] for c in sp]))


def nonconverged_cases():
    """Chains that have not converged, and well-mixed chains for contrast
    (own seed, so the cases above are unchanged)."""
    rng = random.Random(20261207)
    g = lambda r: r.gauss(0, 1)
    n = 400
    out = {}
    # Two chains stuck in each mode of a bimodal target (modes at -3 and +3).
    out["bimodal"] = [ar1(rng, n, 0.5, lambda r: 0.5 * g(r), shift=(-3.0 if c < 2 else 3.0)) for c in range(4)]
    # Equal means, different scales: only the folded R-hat sees it.
    out["scales"] = [ar1(rng, n, 0.3, (lambda r: g(r)) if c < 2 else (lambda r: 3 * g(r))) for c in range(4)]
    # Three mixing chains and one stuck at its start (every proposal rejected).
    out["stuck_one"] = [ar1(rng, n, 0.5, g) for c in range(3)] + [[1.5] * n]
    # Chains that still drift (the same trend in every chain).
    out["trending"] = [[v + 4.0 * i / (n - 1) - 2.0 for i, v in enumerate(ar1(rng, n, 0.3, g))] for c in range(4)]
    # Well-mixed chains: independent draws.
    out["mixed"] = [[g(rng) for _ in range(n)] for c in range(4)]
    return out


def rhat_classic(chains):
    """The original Gelman-Rubin R-hat: whole chains, no ranks, no folding."""
    return rhat_basic(chains)


def main():
    cs = cases()
    with open("diag_chains.csv", "w") as f:
        f.write("case,chain,iter,value\n")
        for name, chains in cs.items():
            for ci, c in enumerate(chains):
                for i, v in enumerate(c):
                    f.write("%s,%d,%d,%r\n" % (name, ci, i, v))
    with open("diag_reference.csv", "w") as f:
        f.write("case,rhat,rhat_basic,ess_bulk,ess_tail,ess_mean,mcse_mean\n")
        for name, chains in cs.items():
            vals = [rhat(chains), rhat_basic(split(chains)), ess_bulk(chains), ess_tail(chains),
                    ess_mean(chains), mcse_mean(chains)]
            f.write(name + "," + ",".join("%r" % v for v in vals) + "\n")
    with open("diag_mcse_sd.csv", "w") as f:
        f.write("case,mcse_sd\n")
        for name, chains in cs.items():
            f.write("%s,%r\n" % (name, mcse_sd(chains)))

    nc = nonconverged_cases()
    with open("diag_nonconverged_chains.csv", "w") as f:
        f.write("case,chain,iter,value\n")
        for name, chains in nc.items():
            for ci, c in enumerate(chains):
                for i, v in enumerate(c):
                    f.write("%s,%d,%d,%r\n" % (name, ci, i, v))
    with open("diag_nonconverged_reference.csv", "w") as f:
        f.write("case,rhat_classic,rhat_basic,rhat_bulk,rhat_tail,rhat,ess_bulk,ess_tail\n")
        for name, chains in nc.items():
            vals = [rhat_classic(chains), rhat_basic(split(chains)), rhat_bulk(chains), rhat_tail(chains),
                    rhat(chains), ess_bulk(chains), ess_tail(chains)]
            f.write(name + "," + ",".join("%r" % v for v in vals) + "\n")


if __name__ == "__main__":
    main()
