#!/usr/bin/env python3
"""Reference bits for the exact exp(-x) comparisons of the lattice samplers.

For each case "a b cn cd" computes, with 500-bit mpmath arithmetic,

    floor(exp(-a/b) * cn/cd * 2^256),

the first 256 bits of the binary expansion of exp(-a/b)*cn/cd (which is
in (0, 1]), and prints them as four 64-bit hex words. A value within
2^-400 of a multiple of 2^-256 would make the floor uncertain and aborts.
Output: one line "a b cn cd w0 w1 w2 w3" per case, written to
exp_neg_bits.txt next to this script.
"""
import os
from mpmath import mp, mpf, exp, floor

mp.prec = 500

CASES = [
    (1, 1, 1, 1),
    (1, 256, 1, 1),
    (255, 256, 1, 1),
    (8, 1, 1, 1),
    (2047, 256, 1, 1),
    (1, 2**40, 1, 1),
    (2**40 - 3, 2**40, 1, 1),
    (16777216, 16777226, 1, 1),
    (169, 2, 1, 1),
    (443, 10, 1, 1),
    (100, 1, 1, 1),
    (37, 10, 1, 1),
    (2**58, 643038818992142080, 1, 1),
    (5**2 * 2**52, 643038818992142080, 1, 1),
    (3, 7, 415852700851093632, 415857103192567304),
    (0, 1, 3, 7),
    (0, 1, 415852700851093632, 415857103192567304),
    (1, 3, 2, 3),
    (12345678901234567, 98765432109, 1, 1),
]


def main():
    out = []
    for a, b, cn, cd in CASES:
        v = exp(-mpf(a) / b) * cn / cd * mpf(2) ** 256
        f = floor(v)
        tol = v * mpf(2) ** -400
        if v != f and min(v - f, f + 1 - v) < tol:
            raise SystemExit("uncertain floor for %r" % ((a, b, cn, cd),))
        n = int(f)
        words = [(n >> (64 * (3 - i))) & (2**64 - 1) for i in range(4)]
        out.append("%d %d %d %d %s" % (a, b, cn, cd, " ".join("%016x" % w for w in words)))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exp_neg_bits.txt")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
