#!/usr/bin/env python3
"""PyTorch baseline for poslab-bench-cuda: times F.scaled_dot_product_attention (flash and
math backends) and an eager Hugging Face-style RoPE (x·cos + rotate_half(x)·sin, cos/sin
cached) on the shapes poslab-bench-cuda sweeps, and writes the same JSON schema, so the two
can be plotted side by side.

    python3 bench/cuda/torch_baseline.py --out public/bench/torch-h100-2026-11-23.json
    python3 bench/cuda/torch_baseline.py --quick

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

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


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


def attention_records(device, quick):
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
                                  "flops": 4.0 * d * pairs * batch * heads,
                                  "max_abs_error": None, "validated": None}

                        def call():
                            with sdpa_kernel(backend):
                                F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        try:
                            record.update(time_calls(call))
                            rates(record, device)
                        except torch.OutOfMemoryError:
                            record["skipped"] = "out of GPU memory"
                        torch.cuda.empty_cache()
                        log(record)
                        out.append(record)
                    del q, k, v
    return out


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_records(device, quick):
    lengths = [4096] if quick else [1024, 4096, 16384]
    heads, dim, base = 32, 128, 10000.0
    out = []
    for length in lengths:
        for dtype in ("fp32", "fp16", "bf16"):
            t = DTYPES[dtype]
            x = torch.rand(1, heads, length, dim, device="cuda", dtype=t) * 2 - 1
            inv_freq = base ** (-torch.arange(0, dim, 2, device="cuda", dtype=torch.float64) / dim)
            angles = torch.outer(torch.arange(length, device="cuda", dtype=torch.float64), inv_freq)
            emb = torch.cat((angles, angles), dim=-1)
            cos, sin = emb.cos().to(t), emb.sin().to(t)  # cached, as Hugging Face does
            record = {"kernel": "rope", "variant": "torch-eager", "dtype": dtype,
                      "shape": {"B": 1, "H": heads, "L": length, "D": dim},
                      "params": {"style": "neox", "scaling": "none"},
                      "bytes": 2.0 * x.numel() * x.element_size(),
                      "max_abs_error": None, "validated": None}
            record.update(time_calls(lambda: x * cos + rotate_half(x) * sin))
            log(rates(record, device))
            out.append(record)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="JSON file to write (default: stdout)")
    parser.add_argument("--quick", action="store_true", help="a few shapes only")
    parser.add_argument("--only", choices=["rope", "attention"], action="append")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_baseline.py: error: no CUDA device")
    device = device_info()
    results = []
    if not args.only or "rope" in args.only:
        results += rope_records(device, args.quick)
    if not args.only or "attention" in args.only:
        results += attention_records(device, args.quick)
    now = datetime.datetime.now(datetime.timezone.utc)
    doc = {"schema": "poslab-bench/1", "source": "pytorch", "date": now.strftime("%Y-%m-%d"),
           "time_utc": now.strftime("%Y-%m-%dT%H:%M:%SZ"), "device": device,
           "timing": "median_ms: median of CUDA-event times per call after 3 warm-up calls, at "
                     "least 10 repeats, up to 200 ms; batched_ms: one event pair around `batch` "
                     "back-to-back calls, divided by batch",
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
