"""Acceptance check: every CLI output against an independent float64 NumPy reference.

Usage: python3 cli_vs_numpy.py PATH/TO/poslab
The formulas below are written from the papers and docs/ARCHITECTURE.md section 4 (formula
conventions), not from the C++ core, and the .npy files are read with NumPy itself, so this
also checks the files are NumPy's.
Tolerance: |got - ref| <= 1e-5 (absolute) for float outputs; integer outputs exactly.
"""

import math
import sys

import numpy as np

from alibi_reference import alibi_slopes
from cli_runner import ScratchCli

TOL = 1e-5
CLI = ScratchCli(sys.argv[1], "poslab-accept-")
path, run = CLI.path, CLI.run
rng = np.random.default_rng(7)
results = {"passed": 0, "failed": 0}


def save(name, array):
    np.save(path(name), array)
    return path(name)


def check(label, got, ref, exact=False):
    ok = got.shape == ref.shape and (
        np.array_equal(got, ref) if exact else np.max(np.abs(got - ref), initial=0.0) <= TOL
    )
    if ok:
        results["passed"] += 1
    else:
        results["failed"] += 1
        detail = (
            f"shape {got.shape} vs {ref.shape}"
            if got.shape != ref.shape
            else f"max |err| {np.max(np.abs(got.astype(np.float64) - ref)):.3g}"
        )
        print(f"FAIL {label}: {detail}")


# ---- references -------------------------------------------------------------------------


def sinusoidal_ref(length, dim, base=10000.0, layout="interleaved"):
    pos = np.arange(length, dtype=np.float64)[:, None]
    w = base ** (-2.0 * np.arange(dim // 2) / dim)
    s, c = np.sin(pos * w), np.cos(pos * w)
    if layout == "concat":
        return np.concatenate([s, c], axis=1)
    out = np.empty((length, dim))
    out[:, 0::2], out[:, 1::2] = s, c
    return out


def rope_inv_freq(dim, base, scaling, factor, n_orig, total, low=1.0, high=4.0, bfast=32, bslow=1):
    """Transcribed from the papers / the Hugging Face rope_type functions, in float64."""
    idx = np.arange(0, dim, 2, dtype=np.float64) / dim
    attn = 1.0
    if scaling == "ntk":
        base = base * factor ** (dim / (dim - 2))
    if scaling == "dynamic":
        s = max(total, n_orig)
        base = base * ((factor * s / n_orig) - (factor - 1)) ** (dim / (dim - 2))
    inv = 1.0 / base**idx
    if scaling == "linear":
        inv = inv / factor
    if scaling == "yarn":
        def corr(rot):
            return dim * math.log(n_orig / (rot * 2 * math.pi)) / (2 * math.log(base))
        lo, hi = max(math.floor(corr(bfast)), 0), min(math.ceil(corr(bslow)), dim - 1)
        if lo == hi:
            hi += 0.001
        ramp = np.clip((np.arange(dim // 2) - lo) / (hi - lo), 0, 1)
        extra = 1 - ramp
        inv = (inv / factor) * (1 - extra) + inv * extra
        attn = 0.1 * math.log(factor) + 1.0 if factor > 1 else 1.0
    if scaling == "llama3":
        wavelen = 2 * math.pi / inv
        lo_w, hi_w = n_orig / low, n_orig / high
        smooth = (n_orig / wavelen - low) / (high - low)
        mid = (1 - smooth) * inv / factor + smooth * inv
        inv = np.where(wavelen > lo_w, inv / factor, np.where(wavelen < hi_w, inv, mid))
    return inv, attn


def rope_ref(x, inv, attn, style, offset, rot):
    x = x.astype(np.float64)
    length = x.shape[-2]
    ang = (offset + np.arange(length, dtype=np.float64))[:, None] * inv
    c, s = np.cos(ang) * attn, np.sin(ang) * attn
    out = x.copy()
    if style == "neox":
        a, b = x[..., : rot // 2], x[..., rot // 2 : rot]
        out[..., : rot // 2], out[..., rot // 2 : rot] = a * c - b * s, a * s + b * c
    else:
        a, b = x[..., 0:rot:2], x[..., 1:rot:2]
        out[..., 0:rot:2], out[..., 1:rot:2] = a * c - b * s, a * s + b * c
    return out


def xpos_ref(x, offset, scale_base=512.0, base=10000.0, downscale=False):
    """torchscale's XPOS.forward (component/xpos_relative_position.py) in float64 NumPy."""
    x = x.astype(np.float64)
    length, head_dim = x.shape[-2], x.shape[-1]
    scale = (np.arange(0, head_dim, 2) + 0.4 * head_dim) / (1.4 * head_dim)
    min_pos = -(length + offset) // 2
    max_pos = length + offset + min_pos
    scale = scale ** (np.arange(min_pos, max_pos, 1, dtype=np.float64) / scale_base)[:, None]
    # fixed_pos_embedding(scale): seq_len = length + offset, dim = head_dim / 2
    dim = head_dim // 2
    inv_freq = 1.0 / (base ** (np.arange(0, dim) / dim))
    sinusoid = np.arange(0, length + offset, dtype=np.float64)[:, None] * inv_freq
    sin, cos = np.sin(sinusoid), np.cos(sinusoid)
    scale, sin, cos = scale[-length:], sin[-length:], cos[-length:]
    if downscale:
        scale = 1 / scale
    # apply_rotary_pos_emb: duplicate_interleave(t * scale); rotate_every_two
    sin, cos = np.repeat(sin * scale, 2, axis=-1), np.repeat(cos * scale, 2, axis=-1)
    rotated = np.stack((-x[..., 1::2], x[..., ::2]), axis=-1).reshape(x.shape)
    return x * cos + rotated * sin


def t5_ref(qlen, klen, bidirectional, num_buckets, max_distance):
    rel = np.arange(klen)[None, :] - np.arange(qlen)[:, None]
    ret = np.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        ret += (rel > 0) * num_buckets
        n = np.abs(rel)
    else:
        n = -np.minimum(rel, 0)
    max_exact = num_buckets // 2
    with np.errstate(divide="ignore"):
        large = max_exact + (
            np.log(n.astype(np.float32) / np.float32(max_exact))
            / np.float32(math.log(max_distance / max_exact))
            * np.float32(num_buckets - max_exact)
        ).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return (ret + np.where(n < max_exact, n, large)).astype(np.int32)


def attention_ref(q, k, v, mask="none", padding=None, bias=None, scale=None):
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    if bias is not None:
        s = s + bias
    i = np.arange(q.shape[-2])[:, None]
    j = np.arange(k.shape[-2])[None, :]
    hidden = np.zeros(s.shape[-2:], dtype=bool)
    if mask != "none":
        hidden |= j > i
    if mask.startswith("window:"):
        hidden |= i - j >= int(mask.split(":")[1])
    if padding is not None:
        hidden |= padding.astype(bool)[None, :]
    s = np.where(hidden, -np.inf, s)
    m = s.max(axis=-1, keepdims=True)
    e = np.where(hidden, 0.0, np.exp(s - np.where(np.isfinite(m), m, 0)))
    tot = e.sum(axis=-1, keepdims=True)
    w = np.where(tot > 0, e / np.where(tot > 0, tot, 1), 0)
    return w @ v, w


# ---- the checks ---------------------------------------------------------------------------

for layout in ("interleaved", "concat"):
    for length, dim, base in ((50, 512, 10000.0), (7, 6, 100.0)):
        run("sinusoidal", "--len", length, "--dim", dim, "--base", base, "--layout", layout,
            "-o", path("pe.npy"))
        check(f"sinusoidal {layout} {length}x{dim}", np.load(path("pe.npy")),
              sinusoidal_ref(length, dim, base, layout))
run("sinusoidal", "--len", 65537, "--dim", 64, "-o", path("pe_long.npy"))
check("sinusoidal up to position 65536", np.load(path("pe_long.npy"))[-4:],
      sinusoidal_ref(65537, 64)[-4:])

x2 = rng.standard_normal((33, 64)).astype(np.float32)
x3 = rng.standard_normal((3, 20, 16)).astype(np.float32)
cases = [
    ("none", {}),
    ("linear", {"factor": 4}),
    ("ntk", {"factor": 8}),
    ("dynamic", {"factor": 2, "original-len": 16}),
    ("yarn", {"factor": 16, "original-len": 32}),
    ("llama3", {"factor": 8, "original-len": 64}),
]
for x, tag in ((x2, "(L,D)"), (x3, "(H,L,D)")):
    save("x.npy", x)
    dim = x.shape[-1]
    for scaling, params in cases:
        for style in ("neox", "gptj"):
            for offset, fraction in ((0, 1.0), (1000, 0.5)):
                rot = int(dim * fraction)
                flags = [f"--{k}={v}" for k, v in params.items()]
                run("rope", "--in", path("x.npy"), "--style", style, "--offset", offset,
                    "--rotary-fraction", fraction, "--scaling", scaling, *flags,
                    "-o", path("xr.npy"))
                inv, attn = rope_inv_freq(rot, 10000.0, scaling, params.get("factor", 1.0),
                                          params.get("original-len", 0), offset + x.shape[-2])
                check(f"rope {tag} {scaling} {style} offset={offset} fraction={fraction}",
                      np.load(path("xr.npy")), rope_ref(x, inv, attn, style, offset, rot))

# p-RoPE (Barbero et al. 2025): RoPE's own theta_i for i < floor(p*R/2), 0 for the rest.
for dim, keep in ((16, 0.75), (16, 0.25), (10, 0.5), (16, 0.0), (16, 1.0)):
    run("rope-freqs", "--dim", dim, "--keep-fraction", keep, "-o", path("pf.npy"))
    want = 10000.0 ** (-2.0 * np.arange(dim // 2) / dim)
    want[int(np.floor(keep * (dim // 2))):] = 0.0
    check(f"p-rope frequencies D={dim} p={keep}", np.load(path("pf.npy")), want)
save("x.npy", x2)
for keep in (0.75, 0.25):
    run("rope", "--method", "p-rope", "--keep-fraction", keep, "--in", path("x.npy"), "--offset", 5,
        "-o", path("xp.npy"))
    dim = x2.shape[-1]
    inv = 10000.0 ** (-2.0 * np.arange(dim // 2) / dim)
    inv[int(np.floor(keep * (dim // 2))):] = 0.0
    check(f"rope --method p-rope p={keep}", np.load(path("xp.npy")),
          rope_ref(x2, inv, 1.0, "neox", 5, dim))
run("rope", "--method", "p-rope", "--in", path("x.npy"), "-o", path("xp.npy"))
inv = 10000.0 ** (-2.0 * np.arange(x2.shape[-1] // 2) / x2.shape[-1])
inv[int(np.floor(0.75 * (x2.shape[-1] // 2))):] = 0.0
check("rope --method p-rope at the table's default p = 0.75", np.load(path("xp.npy")),
      rope_ref(x2, inv, 1.0, "neox", 0, x2.shape[-1]))

for x, tag in ((x2, "(L,D)"), (x3, "(H,L,D)")):
    save("x.npy", x)
    for offset, scale_base, base in ((0, 512.0, 10000.0), (1000, 512.0, 10000.0), (3, 16.0, 500.0)):
        for key in (False, True):
            run("rope", "--method", "xpos", "--in", path("x.npy"), "--offset", offset, "--scale-base", scale_base,
                "--base", base, *(["--key"] if key else []), "-o", path("xx.npy"))
            check(f"xpos {tag} offset={offset} scale_base={scale_base} base={base} key={key}",
                  np.load(path("xx.npy")), xpos_ref(x, offset, scale_base, base, key))

for heads in (1, 3, 8, 12):
    run("alibi", "--heads", heads, "--len", 9, "-o", path("alibi.npy"))
    m = np.array(alibi_slopes(heads))[:, None, None]
    i = np.arange(9)
    check(f"alibi {heads} heads", np.load(path("alibi.npy")),
          -m * np.abs(i[:, None] - i[None, :])[None])

# KERPLE (Chi et al. 2022, log): -r1*log(1 + r2*|i + offset - j|) for given r1, r2; without them
# every head's r1, r2 are the seed's draws (checked positive, and the formula again per head).
for H, Lq, Lk, offset, r1, r2 in ((1, 9, 9, 0, 1.0, 1.0), (3, 5, 12, 7, 0.3, 2.5),
                                  (8, 12, 4, -2, 4.0, 0.01), (2, 1, 70, 1000, 1e-3, 1e3)):
    run("kerple", "--heads", H, "--qlen", Lq, "--klen", Lk, "--offset", offset, "--r1", r1,
        "--r2", r2, "-o", path("kerple.npy"))
    d = np.abs((np.arange(Lq) + offset)[:, None] - np.arange(Lk)[None, :]).astype(np.float64)
    check(f"kerple H={H} {Lq}x{Lk} offset={offset} r1={r1} r2={r2}", np.load(path("kerple.npy")),
          np.broadcast_to(-r1 * np.log1p(r2 * d), (H, Lq, Lk)))
run("kerple", "--heads", 4, "--len", 10, "--seed", 3, "-o", path("kerple.npy"))
got = np.load(path("kerple.npy")).astype(np.float64)
d = np.abs(np.arange(10)[:, None] - np.arange(10)[None, :]).astype(np.float64)
for h in range(4):
    # Two distances fix r1 and r2: b(1) = -r1 log(1 + r2), b(2) = -r1 log(1 + 2 r2).
    ratio = got[h, 2, 0] / got[h, 1, 0]  # log(1 + 2 r2) / log(1 + r2), decreasing in r2
    lo, hi = 1e-3, 1e3
    for _ in range(200):
        mid = np.sqrt(lo * hi)
        lo, hi = (mid, hi) if np.log1p(2 * mid) / np.log1p(mid) > ratio else (lo, mid)
    r2h = lo
    r1h = -got[h, 1, 0] / np.log1p(r2h)
    check(f"kerple seeded head {h}: r1 in [0.01, 2], r2 in [0.01, 1]",
          np.array([0.0099 <= r1h <= 2.0 and 0.0099 <= r2h <= 1.0], dtype=float), np.array([1.0]))
    check(f"kerple seeded head {h}: the formula at its r1, r2", got[h], -r1h * np.log1p(r2h * d))

for bidirectional in (False, True):
    for qlen, klen, buckets, dist in ((300, 300, 32, 128), (5, 700, 16, 64), (40, 9, 8, 20)):
        flags = ["--bidirectional"] if bidirectional else []
        run("t5-buckets", "--qlen", qlen, "--klen", klen, "--buckets", buckets,
            "--max-distance", dist, *flags, "-o", path("t5.npy"))
        got = np.load(path("t5.npy"))
        check(f"t5 {qlen}x{klen} bidirectional={bidirectional} dtype", np.array(got.dtype.str),
              np.array("<i4"), exact=True)
        check(f"t5 {qlen}x{klen} N={buckets} M={dist} bidirectional={bidirectional}", got,
              t5_ref(qlen, klen, bidirectional, buckets, dist), exact=True)

H, Lq, Lk, d, dv = 2, 6, 9, 8, 5
q = rng.standard_normal((H, Lq, d)).astype(np.float32)
k = rng.standard_normal((H, Lk, d)).astype(np.float32)
v = rng.standard_normal((H, Lk, dv)).astype(np.float32)
bias = rng.standard_normal((H, Lq, Lk)).astype(np.float32)
pad = np.array([0, 0, 1, 0, 0, 0, 1, 0, 0], dtype=np.bool_)
for name, arr in (("q", q), ("k", k), ("v", v), ("bias", bias), ("pad", pad)):
    save(f"{name}.npy", arr)
for mask in ("none", "causal", "window:3"):
    for extra in ([], ["--key-padding", path("pad.npy")], ["--bias", path("bias.npy")],
                  ["--scale", 0.5]):
        run("attention", "--q", path("q.npy"), "--k", path("k.npy"), "--v", path("v.npy"),
            "--mask", mask, *extra, "--weights", path("w.npy"), "-o", path("o.npy"))
        kw = {}
        if "--key-padding" in extra:
            kw["padding"] = pad
        if "--bias" in extra:
            kw["bias"] = bias
        if "--scale" in extra:
            kw["scale"] = 0.5
        out, w = attention_ref(q, k, v, mask, **kw)
        label = f"attention mask={mask} {' '.join(map(str, extra[:1]))}"
        check(label + " output", np.load(path("o.npy")), out)
        check(label + " weights", np.load(path("w.npy")), w)

x = (rng.standard_normal((4, 7, 32)) * 3 + 1).astype(np.float32)
gamma = rng.standard_normal(32).astype(np.float32)
beta = rng.standard_normal(32).astype(np.float32)
for name, arr in (("xn", x), ("gamma", gamma), ("beta", beta)):
    save(f"{name}.npy", arr)
xd = x.astype(np.float64)
run("norm", "--kind", "layernorm", "--in", path("xn.npy"), "--gamma", path("gamma.npy"),
    "--beta", path("beta.npy"), "-o", path("ln.npy"))
mu, var = xd.mean(-1, keepdims=True), xd.var(-1, keepdims=True)
check("layernorm", np.load(path("ln.npy")), (xd - mu) / np.sqrt(var + 1e-5) * gamma + beta)
run("norm", "--kind", "rmsnorm", "--in", path("xn.npy"), "--eps", 1e-6, "--gamma",
    path("gamma.npy"), "-o", path("rms.npy"))
check("rmsnorm", np.load(path("rms.npy")),
      xd / np.sqrt((xd**2).mean(-1, keepdims=True) + 1e-6) * gamma)

pe = sinusoidal_ref(40, 16)
save("pe16.npy", pe.astype(np.float32))
p32 = pe.astype(np.float32).astype(np.float64)
run("similarity", "--in", path("pe16.npy"), "--metric", "cosine", "-o", path("cos.npy"))
norms = np.linalg.norm(p32, axis=1)
check("cosine similarity", np.load(path("cos.npy")), p32 @ p32.T / np.outer(norms, norms))
run("similarity", "--in", path("pe16.npy"), "--metric", "dot", "-o", path("dot.npy"))
check("dot similarity", np.load(path("dot.npy")), p32 @ p32.T)

for kk in (1, 5, -3, 1000):
    run("offset-matrix", "--dim", 16, "--k", kk, "-o", path("m.npy"))
    M = np.load(path("m.npy")).astype(np.float64)
    table = sinusoidal_ref(1100, 16)
    p = 40
    check(f"offset matrix k={kk}: PE(p+k) = M_k PE(p)", M @ table[p], table[p + kk])

print(f"{results['passed']} passed, {results['failed']} failed")
sys.exit(1 if results["failed"] else 0)
