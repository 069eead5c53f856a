#!/usr/bin/env python3
"""Chebyshev series of the special functions aten_onnx/src/lower/special.cpp
writes out in ONNX (ONNX has no erfcx nor ndtri; the Bessel functions
use ATen's own Cephes tables, lower/bessel.cpp).

Each is a smooth function g on [-1, 1] of a variable s the lowering computes
from x; its series is interpolated at Chebyshev points from values mpmath
computes to 40 digits, so the coefficients are right to double precision:

  erfcx, x >= 0:   s = (2 - x) / (2 + x),  t = 2 / (2 + x),
                   g(s) = log(erfcx(x) / t)          (erfcx = t * exp(g))
  ndtri, |y - 1/2| <= 3/8:  u = y - 1/2, s = 2 u^2 / (3/8)^2 - 1,  g(s) = ndtri(y) / u
  ndtri, beyond:   p = min(y, 1 - y), z = sqrt(-2 log p), t = log z mapped
                   from [log z(1/8), log z(2^-1075)] to s,  g(s) = z + ndtri(p)

    python aten_onnx/tools/special_series.py     (needs numpy and mpmath)

prints the C++ arrays pasted into special.cpp and the largest error of the
series (in double) against mpmath on a dense grid.
"""
import mpmath as mp
import numpy as np

mp.mp.dps = 40
N = 48  # interpolation points; the series is cut after its last term above 1e-16


def erfcx_g(s):
    s = mp.mpf(s)
    t = (1 + s) / 2
    if t == 0:  # x -> inf: erfcx(x) ~ 1 / (sqrt(pi) x), x = 2 (1 - t) / t
        return mp.log(1 / (2 * mp.sqrt(mp.pi)))
    x = 2 * (1 - t) / t
    return mp.log(mp.exp(x * x) * mp.erfc(x) / t)


def ndtri(p):
    """The lower quantile of the normal law: the root of log ncdf(x) = log p."""
    p = mp.mpf(p)
    return mp.findroot(lambda x: mp.log(mp.ncdf(x)) - mp.log(p), -mp.sqrt(-2 * mp.log(p)))


NDTRI_C = mp.mpf(9) / 64  # (3/8)^2
NDTRI_T0 = mp.log(mp.sqrt(-2 * mp.log(mp.mpf(1) / 8)))
NDTRI_T1 = mp.log(mp.sqrt(-2 * mp.log(mp.mpf(2) ** -1075)))  # below the least double


def ndtri_central(s):
    u = mp.sqrt((mp.mpf(s) + 1) / 2 * NDTRI_C)
    if u == 0:
        return mp.sqrt(2 * mp.pi)
    return ndtri(mp.mpf(0.5) - u) / (-u)


def ndtri_tail(s):
    z = mp.exp(NDTRI_T0 + (mp.mpf(s) + 1) / 2 * (NDTRI_T1 - NDTRI_T0))
    return z + ndtri(mp.exp(-z * z / 2))


def series(g):
    k = np.arange(N)
    nodes = np.cos(np.pi * (k + 0.5) / N)
    vals = [g(float(s)) for s in nodes]
    coef = []
    for j in range(N):
        c = mp.fsum(v * mp.cos(mp.pi * j * (kk + mp.mpf(0.5)) / N) for kk, v in enumerate(vals)) * 2 / N
        coef.append(float(c))
    coef[0] /= 2
    while abs(coef[-1]) < 1e-16:  # below double rounding: noise of the interpolation
        coef.pop()
    return coef


def check(g, coef):
    s = np.linspace(-1, 1, 2001)
    approx = np.polynomial.chebyshev.chebval(s, coef)
    exact = np.array([float(g(v)) for v in s])
    return float(np.max(np.abs(approx - exact) / np.maximum(1, np.abs(exact))))


print(f"// ndtri's tail variable: t0 = {float(NDTRI_T0):.17g}, t1 = {float(NDTRI_T1):.17g}")
for name, g in (("kErfcxLog", erfcx_g), ("kNdtriCentral", ndtri_central), ("kNdtriTail", ndtri_tail)):
    c = series(g)
    print(f"// {len(c)} terms, max error {check(g, c):.1e}")
    print(f"constexpr double {name}[] = {{")
    for i in range(0, len(c), 3):
        print("    " + ", ".join(f"{v:.17g}" for v in c[i:i + 3]) + ",")
    print("};")
