"""Reference values for ZCDPEpsilon (mechanism/zcdp.go).

For each (rho, delta) the tight conversion of Canonne, Kamath & Steinke
(2020, Cor. 13) from rho-zCDP to (eps, delta)-DP,

    eps(rho, delta) = inf_{a>1} a*rho + (a*log(1-1/a) - log(a-1) - log(delta))/(a-1),

is minimised over a with mpmath at 40 significant digits (root of the
derivative in t = log(a-1)). Columns: rho delta eps_tight eps_bun_steinke.
Run: python3 gen_zcdp.py > zcdp_epsilon.txt
"""
import mpmath as mp

mp.mp.dps = 40


def eps_at(rho, ld, t):
    a = 1 + mp.e ** t
    return a * rho + (a * mp.log1p(-1 / a) - mp.log(a - 1) - ld) / (a - 1)


def tight(rho, delta):
    rho, delta = mp.mpf(rho), mp.mpf(delta)
    ld = mp.log(delta)
    f = lambda t: eps_at(rho, ld, t)
    c = mp.mpf(0.5) * (mp.log(-ld) - mp.log(rho))
    lo, hi = c - 14, c + 14
    g = (mp.sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(400):
        if f1 <= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = f(x2)
    t = mp.findroot(lambda t: mp.diff(f, t), (x1 + x2) / 2)
    return f(t)


print("# rho delta eps_tight eps_bun_steinke (mpmath, 40 digits; see gen_zcdp.py)")
for rho in ["1e-6", "1e-4", "0.001", "0.01", "0.05", "0.125", "0.5", "1", "2", "10", "100"]:
    for delta in ["1e-12", "1e-9", "1e-6", "1e-5", "0.001", "0.1"]:
        r, d = mp.mpf(rho), mp.mpf(delta)
        bs = r + 2 * mp.sqrt(r * mp.log(1 / d))
        print(rho, delta, mp.nstr(tight(rho, delta), 25), mp.nstr(bs, 25))
