#!/usr/bin/env python3
"""PyTorch peers for poslab-bench-cuda, on the shapes it sweeps, in the same JSON schema so the
two plot side by side:
  rope       an eager Hugging Face-style RoPE (x·cos + rotate_half(x)·sin, cos/sin cached)
  attention  F.scaled_dot_product_attention, flash and math backends
  position   at B = 4, H = 16, d = 128, fp16, L = 4096 and 8192, what a PyTorch user has for
             position inside attention: SDPA with a materialised float bias (ALiBi, T5; the
             backend SDPA picked is recorded), FlexAttention with the same score_mod (where
             this torch has it), flash-attn's alibi_slopes (where installed: the device has
             no network, so "not installed" is recorded), and RoPE as a separate pass before
             SDPA's flash backend.
Every row's output is validated against PosLab's CPU core (the `poslab` CLI, through
core_reference.py) on batch B - 1, heads 0 and H - 1, query rows [0, 64) and [L - 64, L), with
the tolerance policy of poslab-bench-cuda; the slopes and T5 buckets the peers use come from
the core too.

    python3 bench/cuda/torch_baseline.py --poslab build/device-bin/poslab --out FILE.json
    python3 bench/cuda/torch_baseline.py --quick --only position

Timing: median of CUDA-event times per call after 3 warm-up calls, at least 10 repeats and
up to 200 ms, and the time per call of a batch of back-to-back calls, as poslab-bench-cuda.
Byte and FLOP counts are those of poslab-bench-cuda.
"""

import argparse
import datetime
import json
import os
import re
import statistics
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

import core_reference as ref

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
CLI_CANDIDATES = ("build/device-bin/poslab", "build/device/cpp/poslab", "build/release/cpp/poslab")


def time_calls(fn, warmup=3, min_repeats=10, max_repeats=100, budget_ms=200.0):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    while len(samples) < max_repeats and (len(samples) < min_repeats or sum(samples) < budget_ms):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    median = statistics.median(samples)
    # Back-to-back calls between one event pair: no launch gaps (as poslab-bench-cuda).
    batch = max(5, min(100, int(50.0 / max(median, 1e-3))))
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(batch):
        fn()
    stop.record()
    stop.synchronize()
    return {"median_ms": median, "min_ms": min(samples), "repeats": len(samples),
            "batched_ms": start.elapsed_time(stop) / batch, "batch": batch}


def driver_version():
    """The kernel module's version ("580.159.04") from /proc/driver/nvidia/version."""
    try:
        with open("/proc/driver/nvidia/version") as f:
            match = re.search(r"\b\d+\.\d+(\.\d+)?\b", f.readline())
        if match:
            return match.group(0)
    except OSError:
        pass
    return "CUDA driver of torch " + str(torch.version.cuda)


def device_info():
    p = torch.cuda.get_device_properties(0)
    clock_khz = getattr(p, "memory_clock_rate", 0)
    bus_bits = getattr(p, "memory_bus_width", 0)
    peak_gbs = 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9 if clock_khz and bus_bits else None
    sxm = "H100" in p.name and ("HBM3" in p.name or "SXM" in p.name)
    peak_tflops = 989.4 if sxm or "H200" in p.name else None
    return {
        "name": p.name,
        "driver": driver_version(),
        "torch": torch.__version__,
        "torch_cuda": torch.version.cuda,
        "compute_capability": f"{p.major}.{p.minor}",
        "multiprocessors": p.multi_processor_count,
        "memory_clock_khz": clock_khz,
        "memory_bus_bits": bus_bits,
        "peak_bandwidth_gbs": peak_gbs,
        "peak_bandwidth_source": "2 x memory clock x bus width / 8 (torch device properties)",
        "peak_tensor_tflops": peak_tflops,
        "peak_tensor_source": "NVIDIA H100/H200 SXM datasheet: 989 TFLOP/s dense fp16/bf16 "
                              "tensor (no sparsity)" if peak_tflops else "unknown board",
    }


def rates(record, device):
    for suffix, ms in (("", record["median_ms"]), ("_batched", record["batched_ms"])):
        seconds = ms * 1e-3
        if record.get("bytes"):
            gbs = record["bytes"] / seconds / 1e9
            record["gbs" + suffix] = gbs
            if device["peak_bandwidth_gbs"]:
                record["pct_peak_bandwidth" + suffix] = 100 * gbs / device["peak_bandwidth_gbs"]
        if record.get("flops"):
            tflops = record["flops"] / seconds / 1e12
            record["tflops" + suffix] = tflops
            if device["peak_tensor_tflops"]:
                record["pct_peak_tensor" + suffix] = 100 * tflops / device["peak_tensor_tflops"]
    return record


def log(record):
    rate = (f"{record['gbs']:8.1f} GB/s" if "gbs" in record else
            f"{record['tflops']:8.1f} TFLOP/s" if "tflops" in record else "")
    print(f"{record['kernel']:10} {record['variant']:12} {record['dtype']:4} "
          f"{json.dumps(record['shape']):44} {json.dumps(record['params']):34} "
          f"{record.get('median_ms', float('nan')):9.4f} ms {rate} {record.get('skipped', '')}",
          file=sys.stderr, flush=True)


def round_to(x, dtype):
    """float32 numpy values rounded to a torch storage type, as float32."""
    return torch.from_numpy(np.ascontiguousarray(x)).to(DTYPES[dtype]).float().numpy()


def checked_rows(length):
    return [(0, length)] if length <= 128 else [(0, 64), (length - 64, length)]


def validate_attention(core, out, q, k, v, dtype, mask="none", bias_rows=None, rope=None):
    """Checks out (B, H, L, d) against the core on batch B - 1, heads 0 and H - 1, the first and
    last 64 query rows. bias_rows(heads, rows) gives the (heads, R, L) bias; rope = "neox"
    rotates q and k first (rounded to the storage type, as a RoPE pass stores them)."""
    B, H, L, _ = q.shape
    heads = [0, H - 1] if H > 1 else [0]
    host = lambda t: t[B - 1, heads].float().cpu().numpy()  # noqa: E731
    qh, kh, vh, oh = host(q), host(k), host(v), host(out)
    if rope:
        kh = round_to(core.rope(kh, 0, rope), dtype)
    got, want = [], []
    for r0, r1 in checked_rows(L):
        rows = np.arange(r0, r1)
        qr = round_to(core.rope(qh[:, r0:r1], r0, rope), dtype) if rope else qh[:, r0:r1]
        bias = bias_rows(heads, rows) if bias_rows else None
        want.append(core.attention(qr, kh, vh, mask=mask, offset=r0, bias=bias))
        got.append(oh[:, r0:r1])
    result = ref.compare(np.concatenate(got, axis=1), np.concatenate(want, axis=1), dtype)
    spans = " and ".join(f"[{a}, {b})" for a, b in checked_rows(L))
    result["validated_on"] = f"batch {B - 1}, heads {heads}, rows {spans}"
    return result


def sdpa_backend(call):
    """The backend SDPA picked for a call, from the aten op the profiler saw."""
    from torch.profiler import ProfilerActivity, profile
    try:
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            call()
            torch.cuda.synchronize()
    except Exception as e:  # measure() then records the same error
        return f"unknown ({type(e).__name__})"
    names = " ".join(e.key for e in prof.key_averages())
    for op, backend in (("_scaled_dot_product_cudnn_attention", "cudnn"),
                        ("_scaled_dot_product_flash_attention", "flash"),
                        ("_scaled_dot_product_efficient_attention", "efficient"),
                        ("_scaled_dot_product_attention_math", "math")):
        if op in names:
            return backend
    return "unknown"


def measure(record, call, device, validate):
    """Validates call's output, then times it; a row that fails its check keeps no time (a
    wrong answer has no speed). A call that raises is recorded under "skipped" with the error,
    and the run goes on."""
    try:
        out = call()
        torch.cuda.synchronize()
        check = validate(out)
        del out
        record.update({k: check[k] for k in ("max_abs_error", "max_abs_reference", "tolerance",
                                             "validated", "validated_on")})
        if check["validated"]:
            record.update(time_calls(call))
            rates(record, device)
    except torch.OutOfMemoryError:
        record["skipped"] = "out of GPU memory"
    except Exception as e:  # a peer that cannot run here (a compile error, a missing kernel)
        record["skipped"] = f"{type(e).__name__}: {e}"[:400]
    torch.cuda.empty_cache()
    log(record)
    return record


def attention_records(device, quick, core):
    lengths = [4096] if quick else [512, 1024, 2048, 4096, 8192, 16384]
    out = []
    for d in (64, 128):
        heads = 32 if d == 64 else 16
        for length in lengths:
            for causal in (False, True):
                dtypes = ["fp16", "bf16"] if length == 4096 else ["fp16"]
                for dtype in dtypes:
                    batch = 16384 // length
                    shape = {"B": batch, "H": heads, "Lq": length, "Lk": length, "d": d}
                    g = torch.Generator(device="cuda").manual_seed(1)
                    q, k, v = (torch.rand(batch, heads, length, d, device="cuda", generator=g,
                                          dtype=DTYPES[dtype]) * 2 - 1 for _ in range(3))
                    pairs = length * (length + 1) / 2 if causal else length * length
                    backends = [("torch-flash", SDPBackend.FLASH_ATTENTION)]
                    if dtype == "fp16":
                        backends.append(("torch-math", SDPBackend.MATH))
                    for variant, backend in backends:
                        record = {"kernel": "attention", "variant": variant, "dtype": dtype,
                                  "shape": shape,
                                  "params": {"mask": "causal" if causal else "none",
                                             "causal": causal},
                                  "flops": 4.0 * d * pairs * batch * heads}

                        def call(backend=backend, causal=causal):
                            with sdpa_kernel(backend):
                                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        mask = "causal" if causal else "none"
                        out.append(measure(record, call, device, lambda o, dtype=dtype, mask=mask:
                                           validate_attention(core, o, q, k, v, dtype, mask)))
    return out


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_cache(length, dim, dtype, base=10000.0):
    """cos and sin (L, D) in the storage type, as Hugging Face caches them (angles in double)."""
    inv_freq = base ** (-torch.arange(0, dim, 2, device="cuda", dtype=torch.float64) / dim)
    angles = torch.outer(torch.arange(length, device="cuda", dtype=torch.float64), inv_freq)
    emb = torch.cat((angles, angles), dim=-1)
    return emb.cos().to(DTYPES[dtype]), emb.sin().to(DTYPES[dtype])


def rope_records(device, quick, core):
    lengths = [4096] if quick else [1024, 4096, 16384]
    heads, dim = 32, 128
    out = []
    for length in lengths:
        for dtype in ("fp32", "fp16", "bf16"):
            x = torch.rand(1, heads, length, dim, device="cuda", dtype=DTYPES[dtype]) * 2 - 1
            cos, sin = rope_cache(length, dim, dtype)
            record = {"kernel": "rope", "variant": "torch-eager", "dtype": dtype,
                      "shape": {"B": 1, "H": heads, "L": length, "D": dim},
                      "params": {"style": "neox", "scaling": "none"},
                      "bytes": 2.0 * x.numel() * x.element_size()}

            def check(o, x=x, dtype=dtype):  # heads 0-1, every position, as poslab-bench-cuda
                want = core.rope(x[0, :2].float().cpu().numpy(), 0, "neox")
                result = ref.compare(o[0, :2].float().cpu().numpy(), want, dtype)
                result["validated_on"] = "heads 0-1, all positions"
                return result
            out.append(measure(record, lambda x=x, cos=cos, sin=sin: x * cos + rotate_half(x) * sin,
                               device, check))
    return out


def flex_attention_or_reason():
    """torch.compile'd flex_attention and create_block_mask, or why there are none."""
    try:
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    except ImportError as e:
        return None, None, f"not in torch {torch.__version__} ({e})"
    return torch.compile(flex_attention, dynamic=False), create_block_mask, None


def flash_attn_or_reason():
    try:
        from flash_attn import flash_attn_func
    except ImportError:
        return None, "not installed"
    return flash_attn_func, None


def position_records(device, quick, core, peers, with_sweep):
    """ALiBi (causal), T5 (bidirectional, no mask) and RoPE (causal) as a PyTorch user has them,
    at the shapes of poslab-bench-cuda's position cases, and SDPA flash without position where
    the attention sweep (with_sweep) has not timed that shape."""
    flex, block_mask_of, flex_missing = flex_attention_or_reason()
    flash_attn_func, flash_attn_missing = flash_attn_or_reason()
    peers["flex_attention"] = flex_missing or f"torch {torch.__version__}"
    peers["flash_attn"] = flash_attn_missing or "installed"
    lengths = [4096] if quick else [4096, 8192]
    B, H, d, dtype = 4, 16, 128, "fp16"
    out = []
    for L in lengths:
        shape = {"B": B, "H": H, "Lq": L, "Lk": L, "d": d}
        g = torch.Generator(device="cuda").manual_seed(2)
        q, k, v = (torch.rand(B, H, L, d, device="cuda", generator=g, dtype=torch.float16) * 2 - 1
                   for _ in range(3))
        q = q * 3  # scores spread, as poslab-bench-cuda's inputs
        causal_flops = 4.0 * d * L * (L + 1) / 2 * B * H
        full_flops = 4.0 * d * L * L * B * H
        i = torch.arange(L, device="cuda")
        future = i[None, :] > i[:, None]  # key j after query i

        def row(variant, label, position, flops, backend=None):
            params = {"mask": label, "causal": label != "t5", "position": position,
                      "in_kernel": variant not in ("torch-sdpa+bias", "torch-rope+flash")}
            if backend:
                params["backend"] = backend
            return {"kernel": "attention", "variant": variant, "dtype": dtype, "shape": shape,
                    "params": params, "flops": flops}

        # ALiBi, causal: slopes from the core.
        slopes_np = core.alibi_slopes(H)
        slopes = torch.tensor(slopes_np, device="cuda", dtype=torch.float32)
        alibi_check = lambda o: validate_attention(  # noqa: E731
            core, o, q, k, v, dtype, "causal",
            lambda heads, rows: ref.alibi_bias_rows(slopes_np[heads], rows, L))
        bias = (-slopes[:, None, None] * (i[:, None] - i[None, :]).abs().float())
        bias = bias.masked_fill(future, float("-inf")).to(torch.float16)[None]  # (1, H, L, L)
        sdpa = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=bias)  # noqa: E731
        out.append(measure(row("torch-sdpa+bias", "causal+alibi", "alibi", causal_flops,
                               sdpa_backend(sdpa)), sdpa, device, alibi_check))
        bias = None  # frees it before the next peer
        if flex:
            alibi_mod = lambda score, b, h, qi, kj: score - slopes[h] * (qi - kj).abs()  # noqa
            causal_mask = block_mask_of(lambda b, h, qi, kj: qi >= kj, None, None, L, L,
                                        device="cuda")
            out.append(measure(row("torch-flex", "causal+alibi", "alibi", causal_flops),
                               lambda: flex(q, k, v, score_mod=alibi_mod, block_mask=causal_mask),
                               device, alibi_check))
        if flash_attn_func:
            fa = lambda: flash_attn_func(  # noqa: E731
                q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=True,
                alibi_slopes=slopes).transpose(1, 2)
            out.append(measure(row("flash-attn", "causal+alibi", "alibi", causal_flops), fa,
                               device, alibi_check))

        # T5, bidirectional, no mask: buckets from the core, a seeded (buckets, H) table.
        by_distance = core.t5_bucket_of_distance(L)
        table_np = np.random.default_rng(0).standard_normal((32, H)).astype(np.float32)
        rel = torch.tensor(table_np[by_distance].T.copy(), device="cuda")  # (H, 2L - 1)
        t5_check = lambda o: validate_attention(  # noqa: E731
            core, o, q, k, v, dtype, "none",
            lambda heads, rows: ref.t5_bias_rows(table_np[:, heads], by_distance, rows, L))
        bias = rel[:, (i[None, :] - i[:, None]) + L - 1].to(torch.float16)[None]  # (1, H, L, L)
        sdpa = lambda: F.scaled_dot_product_attention(q, k, v, attn_mask=bias)  # noqa: E731
        out.append(measure(row("torch-sdpa+bias", "t5", "t5", full_flops, sdpa_backend(sdpa)),
                           sdpa, device, t5_check))
        bias = None  # frees it before the next peer
        if flex:
            t5_mod = lambda score, b, h, qi, kj: score + rel[h, kj - qi + L - 1]  # noqa: E731
            out.append(measure(row("torch-flex", "t5", "t5", full_flops),
                               lambda: flex(q, k, v, score_mod=t5_mod), device, t5_check))

        # RoPE (neox), causal: a separate rotation of q and k, then SDPA's flash backend.
        cos, sin = rope_cache(L, d, dtype)

        def rope_then_flash():
            qr, kr = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return F.scaled_dot_product_attention(qr, kr, v, is_causal=True)
        rope_row = row("torch-rope+flash", "causal+rope", "rope", causal_flops, "flash")
        rope_row["params"]["style"] = "neox"  # as poslab-bench-cuda's RoPE rows
        out.append(measure(rope_row, rope_then_flash, device,
                           lambda o: validate_attention(core, o, q, k, v, dtype, "causal",
                                                        rope="neox")))

        if with_sweep and 16384 // L == B:
            continue

        def flash():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
        plain = {"kernel": "attention", "variant": "torch-flash", "dtype": dtype, "shape": shape,
                 "params": {"mask": "causal", "causal": True}, "flops": causal_flops}
        out.append(measure(plain, flash, device,
                           lambda o: validate_attention(core, o, q, k, v, dtype, "causal")))
    torch.cuda.empty_cache()
    return out


def find_cli(given):
    for path in ([given] if given else CLI_CANDIDATES):
        if path and os.access(path, os.X_OK):
            return path
    sys.exit("torch_baseline.py: error: the poslab CLI (the reference every row is checked "
             f"against) is not at {given or ' or '.join(CLI_CANDIDATES)}: build it or pass "
             "--poslab")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="JSON file to write (default: stdout)")
    parser.add_argument("--quick", action="store_true", help="a few shapes only")
    parser.add_argument("--only", choices=["rope", "attention", "position"], action="append")
    parser.add_argument("--poslab", help="the poslab CLI (default: the first of "
                                         + ", ".join(CLI_CANDIDATES) + ")")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_baseline.py: error: no CUDA device")
    core = ref.Core(find_cli(args.poslab))
    device = device_info()
    rows, peers = [], {}
    wanted = lambda name: not args.only or name in args.only  # noqa: E731
    if wanted("rope"):
        rows += rope_records(device, args.quick, core)
    if wanted("attention"):
        rows += attention_records(device, args.quick, core)
    if wanted("position"):
        rows += position_records(device, args.quick, core, peers, wanted("attention"))
    core.close()
    results = [r for r in rows if "skipped" not in r]
    now = datetime.datetime.now(datetime.timezone.utc)
    doc = {"schema": "poslab-bench/1", "source": "pytorch", "date": now.strftime("%Y-%m-%d"),
           "time_utc": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "device": device,
           "timing": "median_ms: median of CUDA-event times per call after 3 warm-up calls, at "
                     "least 10 repeats, up to 200 ms; batched_ms: one event pair around `batch` "
                     "back-to-back calls, divided by batch",
           "validation": "each row's output against PosLab's CPU core (the poslab CLI) on batch "
                         "B - 1, heads 0 and H - 1, query rows [0, 64) and [L - 64, L); a row "
                         "that fails keeps no time",
           "peers": peers,
           "skipped": [r for r in rows if "skipped" in r],
           "results": results}
    text = json.dumps(doc, indent=1)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text + "\n")
        print(f"wrote {len(results)} results to {args.out}", file=sys.stderr)
    else:
        print(text)


if __name__ == "__main__":
    main()
