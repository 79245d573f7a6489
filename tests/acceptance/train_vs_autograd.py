#!/usr/bin/env python3
"""Accepts the trainer (`poslab train`) against an independent float64 autograd.

For every position method (and randomised positions, a non-default embedding scale, the
addition task, sinks, NoPE layers) `poslab train --steps 0 --dump DIR` writes the model's
config, weights, one batch, its loss and every gradient (`--steps 300`: at the weights training
reached, for a method whose parameters start where part of it is idle, as CoPE's zero
embeddings). This script rebuilds the model from the issue's
specification on a small reverse-mode autograd over NumPy float64 arrays written here (it
never reads the C++), and requires: the loss within 1e-5 relative, each gradient within 1e-3
of its tensor's largest |entry|. The autograd itself is first checked against central finite
differences (`--self-test` runs only that).

Usage: train_vs_autograd.py POSLAB_BINARY | --self-test
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

from alibi_reference import alibi_slopes


# ---------------------------------------------------------------- a small reverse-mode autograd
class Var:
    """An array and the closure that sends its gradient to its parents."""

    def __init__(self, value, parents=(), backward=None):
        self.value = np.asarray(value, dtype=np.float64)
        self.parents = parents
        self.backward_fn = backward
        self.grad = None

    def __add__(self, other):
        other = lift(other)
        return Var(self.value + other.value, (self, other),
                   lambda g: (unbroadcast(g, self.value.shape), unbroadcast(g, other.value.shape)))

    def __sub__(self, other):
        return self + lift(other) * -1.0

    def __mul__(self, other):
        other = lift(other)
        return Var(self.value * other.value, (self, other),
                   lambda g: (unbroadcast(g * other.value, self.value.shape),
                              unbroadcast(g * self.value, other.value.shape)))

    def __matmul__(self, other):
        return Var(self.value @ other.value, (self, other),
                   lambda g: (unbroadcast(g @ np.swapaxes(other.value, -1, -2), self.value.shape),
                              unbroadcast(np.swapaxes(self.value, -1, -2) @ g, other.value.shape)))


def lift(x):
    return x if isinstance(x, Var) else Var(x)


def unbroadcast(g, shape):
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for axis, n in enumerate(shape):
        if n == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return g


def unary(x, value, local_grad):
    return Var(value, (x,), lambda g: (g * local_grad,))


def tanh(x):
    t = np.tanh(x.value)
    return unary(x, t, 1 - t * t)


def exp(x):
    e = np.exp(x.value)
    return unary(x, e, e)


def rsqrt(x):
    r = 1 / np.sqrt(x.value)
    return unary(x, r, -0.5 * r ** 3)


def reciprocal(x):
    r = 1 / x.value
    return unary(x, r, -r * r)


def log(x):
    return unary(x, np.log(x.value), 1 / x.value)


def sigmoid(x):
    """σ(x), stable at both ends (σ(−1e30) = 0: a hidden key's gate)."""
    e = np.exp(-np.abs(x.value))
    s = np.where(x.value >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
    return unary(x, s, s * (1.0 - s))


def minimum_const(x, const):
    """min(x, const): x gets the gradient where x <= const (PyTorch's clamp(max=...))."""
    return Var(np.minimum(x.value, const), (x,), lambda g: (g * (x.value <= const),))


def gather_last(x, index):
    """x[..., index] along the last axis (torch.gather(x, -1, index)); x and index agree on
    every other axis."""
    def back(g):
        out = np.zeros_like(x.value).reshape(-1, x.value.shape[-1])
        rows = np.arange(out.shape[0])[:, None]
        np.add.at(out, (rows, index.reshape(out.shape[0], -1)), g.reshape(out.shape[0], -1))
        return (out.reshape(x.value.shape),)
    return Var(np.take_along_axis(x.value, index, axis=-1), (x,), back)


def log_sigmoid(x):
    """log σ(x) = −log(1 + e^(−x)); its derivative σ(−x)."""
    return unary(x, -np.logaddexp(0.0, -x.value), 1.0 / (1.0 + np.exp(x.value)))


def absolute(x):
    return unary(x, np.abs(x.value), np.sign(x.value))


def relu(x):
    return unary(x, np.maximum(x.value, 0.0), (x.value > 0).astype(np.float64))


def maximum_const(x, const):
    """max(x, const) for a Var x broadcast against a constant array: x gets the gradient
    where it is the larger."""
    return Var(np.maximum(x.value, const), (x,),
               lambda g: (unbroadcast(g * (x.value > const), x.value.shape),))


def sum_(x, axis, keepdims=True):
    shape = x.value.shape
    return Var(x.value.sum(axis=axis, keepdims=keepdims), (x,),
               lambda g: (np.broadcast_to(g if keepdims else np.expand_dims(g, axis), shape).copy(),))


def reshape(x, shape):
    old = x.value.shape
    return Var(x.value.reshape(shape), (x,), lambda g: (g.reshape(old),))


def transpose(x, axes):
    inverse = np.argsort(axes)
    return Var(x.value.transpose(axes), (x,), lambda g: (g.transpose(inverse),))


def take_rows(table, index):
    """table[index] for an integer array `index` (embedding lookup)."""
    def back(g):
        out = np.zeros_like(table.value)
        np.add.at(out, index, g)
        return (out,)
    return Var(table.value[index], (table,), back)


def slice_last(x, start, stop):
    def back(g):
        out = np.zeros_like(x.value)
        out[..., start:stop] = g
        return (out,)
    return Var(x.value[..., start:stop], (x,), back)


def concat_last(parts):
    sizes = [p.value.shape[-1] for p in parts]
    edges = np.cumsum([0] + sizes)
    return Var(np.concatenate([p.value for p in parts], axis=-1), tuple(parts),
               lambda g: tuple(g[..., edges[i]:edges[i + 1]] for i in range(len(parts))))


def backward(loss):
    order, seen = [], set()

    def visit(v):
        if id(v) in seen:
            return
        seen.add(id(v))
        for p in v.parents:
            visit(p)
        order.append(v)

    visit(loss)
    loss.grad = np.ones_like(loss.value)
    for v in reversed(order):
        if v.backward_fn is None or v.grad is None:
            continue
        for p, g in zip(v.parents, v.backward_fn(v.grad)):
            p.grad = g if p.grad is None else p.grad + g


# ---------------------------------------------------------------- the lab's model, from the issue
def layer_norm(x, w, b, eps):
    mean = sum_(x, -1) * (1.0 / x.value.shape[-1])
    centred = x - mean
    var = sum_(centred * centred, -1) * (1.0 / x.value.shape[-1])
    return centred * rsqrt(var + eps) * w + b


def gelu_tanh(x):
    k = math.sqrt(2 / math.pi)
    return x * 0.5 * (tanh((x + x * x * x * 0.044715) * k) + 1.0)


def t5_bucket(relative, num_buckets, max_distance):
    """Hugging Face T5's _relative_position_bucket, bidirectional=False, in float32."""
    n = np.maximum(-relative, 0)
    max_exact = num_buckets // 2
    is_small = n < max_exact
    with np.errstate(divide="ignore", invalid="ignore"):
        large = max_exact + (
            np.log(n.astype(np.float32) / np.float32(max_exact))
            / np.float32(math.log(max_distance / max_exact))
            * np.float32(num_buckets - max_exact)
        ).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return np.where(is_small, n, large)


def rope(x, pos, base, keep=1.0):
    """neox pairs (x[i], x[i + d/2]) of every head rotated by pos·base^(-2i/d). x (B, H, T, d).
    p-RoPE (Barbero et al. 2025): only the floor(keep·d/2) highest frequencies kept, the rest 0."""
    d = x.value.shape[-1]
    theta = base ** (-2.0 * np.arange(d // 2) / d)
    theta[int(np.floor(keep * (d // 2))):] = 0.0
    angle = pos[:, None, :, None] * theta  # (B, 1, T, d/2)
    cos, sin = np.cos(angle), np.sin(angle)
    x1, x2 = slice_last(x, 0, d // 2), slice_last(x, d // 2, d)
    return concat_last([x1 * cos - x2 * sin, x2 * cos + x1 * sin])


def xpos(x, pos, base, key):
    """xPos as torchscale's XPOS.forward (xpos_relative_position.py): x·cos·scale +
    rotate_every_two(x)·sin·scale, gptj pairs (x[2i], x[2i+1]), angles pos·base^(-2i/d), scale
    ζ_i^e with ζ_i = (2i + 0.4·d)/(1.4·d) and e = (pos + (-total)//2)/512, keys 1/scale
    (downscale). Each row indexes a sequence of total = its last position + 1. x (B, H, T, d)."""
    d = x.value.shape[-1]
    theta = base ** (-2.0 * np.arange(d // 2) / d)
    angle = pos[:, None, :, None] * theta  # (B, 1, T, d/2)
    total = pos[:, -1:] + 1  # (B, 1)
    e = (pos + np.floor_divide(-total, 2)) / 512.0  # (B, T)
    zeta = (np.arange(0, d, 2) + 0.4 * d) / (1.4 * d)
    scale = zeta ** e[:, None, :, None]
    if key:
        scale = 1.0 / scale
    interleave = lambda t: np.repeat(t, 2, axis=-1)  # torchscale's duplicate_interleave
    cos, sin = interleave(np.cos(angle) * scale), interleave(np.sin(angle) * scale)
    rotate_every_two = np.zeros((d, d))  # x @ it = (-x[1], x[0], -x[3], x[2], ...)
    for i in range(d // 2):
        rotate_every_two[2 * i + 1, 2 * i] = -1.0
        rotate_every_two[2 * i, 2 * i + 1] = 1.0
    return x * cos + (x @ Var(rotate_every_two)) * sin


def fire_bias(w, layer, positions):
    """FIRE (Li et al. 2024) as the issue states it: bias(i, j) = f(ψ(i − j) / ψ(max(L, i + 1)))
    with the paper's ψ(x) = log(|c|·x + 1), its 1e-6 added to the normaliser, and its threshold
    L = |s|·512 (init_L 512 times a learned multiplier s); f = ReLU(u·fc1 + b1)·fc2, one output
    per head (no output bias: the softmax ignores a per-head constant). Queries and keys at the
    batch's positions. Returns (B, H, T, T)."""
    p = lambda name: w[f"h.{layer}.attn.fire.{name}"]
    B, T = positions.shape
    pos = positions.astype(np.float64)
    c = absolute(p("c"))
    threshold = absolute(p("threshold_scale")) * 512.0
    distance = np.abs(pos[:, :, None] - pos[:, None, :])  # (B, Tq, Tk)
    num = log(c * distance + 1.0)
    den = log(c * maximum_const(threshold, pos[:, :, None] + 1.0) + 1.0) + 1e-6  # (B, Tq, 1)
    u = reshape(num * reciprocal(den), (B, T, T, 1))
    out = relu(u @ p("fc1.weight") + p("fc1.bias")) @ p("fc2.weight")  # (B, Tq, Tk, H)
    return transpose(out, (0, 3, 1, 2))


def kerple_bias(w, layer, positions):
    """KERPLE, log variant (Chi et al. 2022; the authors' ParallelKerpleLog):
    -r1_h·log(1 + r2_h·|p_i - p_j|) with the layer's learned r1, r2 (H,). Returns (B, H, T, T)."""
    pos = positions.astype(np.float64)
    distance = np.abs(pos[:, :, None] - pos[:, None, :])[:, None, :, :]  # (B, 1, T, T)
    r1 = reshape(w[f"h.{layer}.attn.kerple_r1"], (1, -1, 1, 1))
    r2 = reshape(w[f"h.{layer}.attn.kerple_r2"], (1, -1, 1, 1))
    return r1 * log(r2 * distance + 1.0) * -1.0


def cope_term(w, layer, q, scores, npos_max):
    """CoPE (Golovneva et al. 2024), as the authors' CoPE.forward(query, attn_logits): gates
    σ(attn_logits) of the scaled, masked scores (B, H, T, T), positions summed from each key to
    the query (gates.flip(-1).cumsum(-1).flip(-1)) clamped at npos_max − 1, and
    logits_int = q @ pos_emb (q unscaled, (B, H, T, d); pos_emb (d, npos_max)) interpolated
    between floor and ceil of each position. Returns the term (B, H, T, T)."""
    T = scores.value.shape[-1]
    gates = sigmoid(scores)
    suffix = Var(np.triu(np.ones((T, T))).T)  # [t, j] = 1 for t >= j: Σ_{t>=j} gates_t
    pos = minimum_const(gates @ suffix, npos_max - 1.0)
    floor, ceil = np.floor(pos.value).astype(np.int64), np.ceil(pos.value).astype(np.int64)
    logits_int = q @ w[f"h.{layer}.attn.cope_pos_emb"]
    weight = pos - floor
    return gather_last(logits_int, ceil) * weight + gather_last(logits_int, floor) * (weight * -1.0 + 1.0)


def fox_bias(w, layer, h):
    """FoX (Lin et al. 2025, the Forgetting Transformer): per head a forget gate
    f_t = σ(w_h·x_t + b_h) of the layer's normalised input x (B, T, E), and the bias
    D_ij = Σ_{t=j+1..i} log f_t on the scores. Returns (B, H, T, T)."""
    B, T, _ = h.value.shape
    logits = h @ transpose(w[f"h.{layer}.attn.fox_w"], (1, 0)) + w[f"h.{layer}.attn.fox_b"]
    log_f = transpose(log_sigmoid(logits), (0, 2, 1))  # (B, H, T)
    H = log_f.value.shape[1]
    # D_ij as Σ_t M_ijt·log f_t with M_ijt = 1 for j < t ≤ i: no cumulative sum involved.
    between = np.zeros((T, T, T))
    for i in range(T):
        for j in range(i + 1):
            between[i, j, j + 1:i + 1] = 1.0
    return reshape(reshape(log_f, (B, H, 1, T)) @ Var(between.reshape(T * T, T).T), (B, H, T, T))


def model_loss(cfg, w, tokens, targets, positions, mask):
    B, T = tokens.shape
    E, H = cfg["n_embd"], cfg["n_head"]
    d = E // H
    method = cfg["position"]
    x = take_rows(w["wte.weight"], tokens) * cfg["embed_scale"]
    if method in ("learned", "abacus"):
        x = x + take_rows(w["wpe.weight"], positions)
    elif method == "sinusoidal":
        freq = cfg["base"] ** (-2.0 * np.arange(E // 2) / E)
        table = np.zeros((B, T, E))
        table[..., 0::2] = np.sin(positions[..., None] * freq)
        table[..., 1::2] = np.cos(positions[..., None] * freq)
        x = x + table
    causal = np.tril(np.ones((T, T), dtype=bool))
    bias = None
    if method == "alibi":
        slopes = np.array(alibi_slopes(H))
        dist = np.abs(positions[:, :, None] - positions[:, None, :])  # (B, T, T)
        bias = Var(-slopes[None, :, None, None] * dist[:, None, :, :])
    elif method == "t5":
        rel = positions[:, None, :] - positions[:, :, None]  # key - query, (B, Tq, Tk)
        buckets = t5_bucket(rel, cfg["t5_num_buckets"], cfg["t5_max_distance"])
        table = take_rows(w["rel_bias.weight"], buckets)  # (B, Tq, Tk, H)
        bias = transpose(table, (0, 3, 1, 2))
    eps = cfg["layer_norm_epsilon"]
    hidden_mask = np.where(causal, 0.0, -1e30)
    for layer in range(cfg["n_layer"]):
        p = lambda name: w[f"h.{layer}.{name}"]
        h = layer_norm(x, p("ln_1.weight"), p("ln_1.bias"), eps)
        qkv = h @ p("attn.c_attn.weight") + p("attn.c_attn.bias")
        def heads(part):
            s = slice_last(qkv, part * E, (part + 1) * E)
            return transpose(reshape(s, (B, T, H, d)), (0, 2, 1, 3))
        q, k, v = heads(0), heads(1), heads(2)
        # NoPE layers (SmolLM3, Llama 4): layers K, 2K, ... (1-based) of a rotation do not rotate.
        every = cfg.get("nope_every", 0)
        nope = every > 0 and (layer + 1) % every == 0
        if method == "rope" and not nope:
            q, k = rope(q, positions, cfg["base"]), rope(k, positions, cfg["base"])
        if method == "p-rope" and not nope:
            keep = cfg["keep_fraction"]
            q, k = rope(q, positions, cfg["base"], keep), rope(k, positions, cfg["base"], keep)
        if method == "xpos" and not nope:
            q, k = xpos(q, positions, cfg["base"], False), xpos(k, positions, cfg["base"], True)
        if nope and cfg.get("attn_floor_scale", 0) > 0:
            # Llama 4's attention temperature (Hugging Face's Llama4TextAttention): queries of a
            # NoPE layer times log1p(floor((p + 1) / floor_scale)) * attn_scale + 1.
            scale = np.log1p(np.floor((positions + 1.0) / cfg["attn_floor_scale"])) \
                * cfg["attn_scale"] + 1.0
            q = q * scale[:, None, :, None]
        scores = (q @ transpose(k, (0, 1, 3, 2))) * (1 / math.sqrt(d))
        if bias is not None:
            scores = scores + bias
        if method == "fire":
            scores = scores + fire_bias(w, layer, positions)
        if method == "kerple":
            scores = scores + kerple_bias(w, layer, positions)
        if method == "fox":
            scores = scores + fox_bias(w, layer, h)
        scores = scores + hidden_mask
        if method == "cope":
            scores = scores + cope_term(w, layer, q, scores, cfg["cope_npos_max"])
        if cfg.get("sinks"):
            # gpt-oss's sinks: one logit per head joins each row's softmax as an extra column,
            # dropped after it (a_ij = exp(s_ij) / (exp(σ_h) + Σ_k exp(s_ik))).
            sink = reshape(p("attn.sinks"), (1, H, 1, 1)) + np.zeros((B, H, T, 1))
            scores = concat_last([scores, sink])
        shifted = scores - scores.value.max(axis=-1, keepdims=True)
        e = exp(shifted)
        att = slice_last(e * reciprocal(sum_(e, -1)), 0, T)
        out = transpose(att @ v, (0, 2, 1, 3))
        x = x + reshape(out, (B, T, E)) @ p("attn.c_proj.weight") + p("attn.c_proj.bias")
        h = layer_norm(x, p("ln_2.weight"), p("ln_2.bias"), eps)
        x = x + gelu_tanh(h @ p("mlp.c_fc.weight") + p("mlp.c_fc.bias")) @ p("mlp.c_proj.weight") \
            + p("mlp.c_proj.bias")
    x = layer_norm(x, w["ln_f.weight"], w["ln_f.bias"], eps)
    logits = x @ transpose(w["wte.weight"], (1, 0))  # (B, T, V)
    shifted = logits - logits.value.max(axis=-1, keepdims=True)
    log_probs = shifted - log(sum_(exp(shifted), -1))
    onehot = np.zeros(logits.value.shape)
    np.put_along_axis(onehot, targets[..., None].astype(np.int64), 1.0, axis=-1)
    picked = sum_(log_probs * onehot, -1, keepdims=False)  # (B, T)
    total = mask.sum()
    return sum_(sum_(picked * (mask * (-1.0 / total)), -1, keepdims=False), -1, keepdims=False)


# ---------------------------------------------------------------- files
def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        assert entry["dtype"] == "F32", f"{path}: {name} is {entry['dtype']}"
        lo, hi = entry["data_offsets"]
        out[name] = np.frombuffer(data[8 + n + lo : 8 + n + hi], dtype="<f4").reshape(entry["shape"])
    return out


def expected_shapes(cfg):
    E, I, V, H = cfg["n_embd"], cfg["n_inner"], cfg["vocab_size"], cfg["n_head"]
    shapes = {"wte.weight": (V, E), "ln_f.weight": (E,), "ln_f.bias": (E,)}
    if cfg["position"] in ("learned", "abacus"):
        shapes["wpe.weight"] = (cfg["n_positions"], E)
    if cfg["position"] == "t5":
        shapes["rel_bias.weight"] = (cfg["t5_num_buckets"], H)
    for l in range(cfg["n_layer"]):
        for name, shape in [("ln_1.weight", (E,)), ("ln_1.bias", (E,)),
                            ("attn.c_attn.weight", (E, 3 * E)), ("attn.c_attn.bias", (3 * E,)),
                            ("attn.c_proj.weight", (E, E)), ("attn.c_proj.bias", (E,)),
                            ("ln_2.weight", (E,)), ("ln_2.bias", (E,)),
                            ("mlp.c_fc.weight", (E, I)), ("mlp.c_fc.bias", (I,)),
                            ("mlp.c_proj.weight", (I, E)), ("mlp.c_proj.bias", (E,))]:
            shapes[f"h.{l}.{name}"] = shape
        if cfg["position"] == "fire":
            for name, shape in [("c", (1,)), ("threshold_scale", (1,)), ("fc1.weight", (1, 32)),
                                ("fc1.bias", (32,)), ("fc2.weight", (32, H))]:
                shapes[f"h.{l}.attn.fire.{name}"] = shape
        if cfg["position"] == "kerple":
            shapes[f"h.{l}.attn.kerple_r1"] = (H,)
            shapes[f"h.{l}.attn.kerple_r2"] = (H,)
        if cfg["position"] == "cope":
            shapes[f"h.{l}.attn.cope_pos_emb"] = (E // H, cfg["cope_npos_max"])
        if cfg["position"] == "fox":
            shapes[f"h.{l}.attn.fox_w"] = (H, E)
            shapes[f"h.{l}.attn.fox_b"] = (H,)
        if cfg.get("sinks"):
            shapes[f"h.{l}.attn.sinks"] = (H,)
    return shapes


def loss_and_grads(cfg, weights, tokens, targets, positions, mask):
    w = {name: Var(value.astype(np.float64)) for name, value in weights.items()}
    loss = model_loss(cfg, w, tokens, targets, positions.astype(np.float64)
                      if cfg["position"] in ("sinusoidal", "rope", "p-rope", "xpos") else positions,
                      mask)
    backward(loss)
    return float(loss.value), {name: (v.grad if v.grad is not None else np.zeros_like(v.value))
                               for name, v in w.items()}


# ---------------------------------------------------------------- checks
def self_test():
    """The autograd against central finite differences on a tiny random model, every method."""
    rng = np.random.default_rng(0)
    failures = 0
    for method, extra in [("none", {}), ("learned", {}), ("sinusoidal", {}), ("rope", {}),
                          ("p-rope", {}), ("xpos", {}), ("alibi", {}), ("t5", {}), ("kerple", {}),
                          ("fire", {}), ("none", {"sinks": True}), ("rope", {"sinks": True}),
                          ("rope", {"nope_every": 2}), ("fox", {}), ("fox", {"sinks": True}),
                          ("cope", {"cope_npos_max": 64}), ("cope", {"cope_npos_max": 3}),
                          ("cope", {"cope_npos_max": 4, "sinks": True}),
                          ("xpos", {"nope_every": 2, "attn_floor_scale": 4.0, "attn_scale": 0.5})]:
        cfg = dict(n_layer=2, n_embd=8, n_head=2, n_inner=32, vocab_size=7, n_positions=40,
                   layer_norm_epsilon=1e-5, position=method, base=10000.0, embed_scale=1.5,
                   t5_num_buckets=32, t5_max_distance=128, keep_fraction=0.5, **extra)
        weights = {n: rng.normal(0, 0.4, s) + (1.0 if "ln_" in n and n.endswith("weight") else 0)
                   for n, s in expected_shapes(cfg).items()}
        for n in weights:  # KERPLE's r1, r2 are kept positive
            if "kerple" in n:
                weights[n] = np.abs(weights[n]) + 0.1
        tokens = rng.integers(0, 7, (2, 5))
        targets = rng.integers(0, 7, (2, 5))
        positions = np.sort(rng.choice(40, (2, 5), replace=True), axis=1)
        mask = (rng.random((2, 5)) < 0.7).astype(np.float64)
        mask[0, 0] = 1.0
        _, grads = loss_and_grads(cfg, weights, tokens, targets, positions, mask)
        worst = 0.0
        for name in weights:
            flat = weights[name].reshape(-1)
            for i in rng.choice(flat.size, min(flat.size, 3), replace=False):
                keep = flat[i]
                flat[i] = keep + 1e-6
                up, _ = loss_and_grads(cfg, weights, tokens, targets, positions, mask)
                flat[i] = keep - 1e-6
                down, _ = loss_and_grads(cfg, weights, tokens, targets, positions, mask)
                flat[i] = keep
                fd = (up - down) / 2e-6
                worst = max(worst, abs(grads[name].reshape(-1)[i] - fd) / (1e-6 + 1e-5 * abs(fd)))
        ok = worst <= 1.0
        failures += not ok
        label = method + "".join(f", {k} {v}" for k, v in extra.items())
        print(f"self-test {label:42s} autograd vs finite differences: worst {worst:.3f} of the "
              f"bound 1e-6 + 1e-5·|fd|  {'ok' if ok else 'FAIL'}")
    return failures


CASES = [
    ("none", ["--position", "none"]),
    ("learned", ["--position", "learned"]),
    ("sinusoidal", ["--position", "sinusoidal"]),
    ("rope", ["--position", "rope"]),
    ("alibi", ["--position", "alibi"]),
    ("t5", ["--position", "t5"]),
    ("learned, randomised", ["--position", "learned", "--randomized-positions", "64"]),
    ("rope, randomised", ["--position", "rope", "--randomized-positions", "64"]),
    ("alibi, randomised", ["--position", "alibi", "--randomized-positions", "64"]),
    ("t5, randomised", ["--position", "t5", "--randomized-positions", "200"]),
    ("sinusoidal, embed scale 8", ["--position", "sinusoidal", "--embed-scale", "8"]),
    ("rope, addition", ["--position", "rope", "--task", "addition"]),
    ("xpos", ["--position", "xpos"]),
    # Positions up to 2000: ζ^(±e) reaches e ≈ ±2, so a scale on the wrong side would show.
    ("xpos, randomised", ["--position", "xpos", "--randomized-positions", "2000"]),
    ("fire", ["--position", "fire"]),
    ("kerple", ["--position", "kerple"]),
    ("kerple, randomised", ["--position", "kerple", "--randomized-positions", "200"]),
    ("p-rope", ["--position", "p-rope"]),
    ("p-rope 0.25, randomised", ["--position", "p-rope", "--keep-fraction", "0.25",
                                 "--randomized-positions", "64"]),
    ("p-rope 0, coupled addition", ["--position", "p-rope", "--keep-fraction", "0", "--task",
                                    "addition", "--coupled-positions", "30"]),
    # Positions up to 2000: past the threshold's 512, so both sides of max(L, i + 1) occur.
    ("fire, randomised", ["--position", "fire", "--randomized-positions", "2000"]),
    ("t5, reverse, 3 heads", ["--position", "t5", "--task", "reverse", "--heads", "3",
                              "--width", "24"]),
    # Attention sinks (gpt-oss), an option every method takes.
    ("none, sinks", ["--position", "none", "--sinks"]),
    ("rope, sinks, randomised", ["--position", "rope", "--sinks", "--randomized-positions", "64"]),
    ("alibi, sinks, 3 heads", ["--position", "alibi", "--sinks", "--heads", "3", "--width", "24"]),
    # NoPE layers of a rotation (SmolLM3, Llama 4), and Llama 4's temperature on them; a floor
    # of 4 with randomised positions up to 64 gives the queries scales from 1 to 1 + 0.5·log 17.
    ("rope, NoPE every 2", ["--position", "rope", "--nope-every", "2"]),
    ("p-rope, NoPE every 2 of 3", ["--position", "p-rope", "--nope-every", "2", "--layers", "3"]),
    ("xpos, NoPE every 1", ["--position", "xpos", "--nope-every", "1"]),
    ("rope, NoPE 2, temperature", ["--position", "rope", "--nope-every", "2",
                                   "--attn-temperature", "4,0.5", "--randomized-positions", "64"]),
    # Abacus: a table indexed by each digit's place in its number, offset in training.
    ("abacus, addition", ["--position", "abacus", "--task", "addition"]),
    ("abacus, sort, offset 3", ["--position", "abacus", "--task", "sort", "--abacus-max-offset",
                                "3"]),
    # FoX's forget gates on a NoPE model (no positions), with 3 heads, and with sinks.
    ("fox", ["--position", "fox"]),
    ("fox, reverse, 3 heads", ["--position", "fox", "--task", "reverse", "--heads", "3",
                               "--width", "24"]),
    ("fox, sinks, addition", ["--position", "fox", "--sinks", "--task", "addition"]),
    # CoPE's contextual positions: npos_max 64 (never clipped here) and 4 (clipped past 3).
    # Its embeddings start at 0, where the gates' path carries no gradient: the runs check the
    # weights 300 steps of training reached.
    ("cope", ["--position", "cope"]),
    ("cope, 300 steps", ["--position", "cope", "--steps", "300"]),
    ("cope, npos_max 4, 300 steps", ["--position", "cope", "--npos-max", "4", "--steps", "300"]),
    ("cope, sinks, reverse, 300 st", ["--position", "cope", "--sinks", "--task", "reverse",
                                      "--steps", "300"]),
    ("fox, sinks, 300 steps", ["--position", "fox", "--sinks", "--steps", "300"]),
    # Addition's formats: operands zero-padded to N digits (Lee et al. 2023), and index hints
    # before every digit (Zhou et al. 2024) with FIRE on randomised positions, their recipe.
    ("learned, padded addition", ["--position", "learned", "--task", "addition",
                                  "--pad-operands"]),
    ("fire, index hints, randomised", ["--position", "fire", "--task", "addition",
                                       "--index-hints", "30", "--randomized-positions", "256"]),
]

# The options of CASES that take no value.
FLAGS = {"--sinks", "--pad-operands"}


def check_addition(tokens, cfg):
    """Addition's rows decoded from their tokens alone (least-significant digit first): the sum
    after SEP is a + b; padded, every operand has N digits; with K hints, each digit follows the
    hint symbol 11 + start + i of its place i, one start per row, the last below K."""
    hints = cfg.get("index_hints", 0)
    sep, eos = cfg["sep_token_id"], cfg["eos_token_id"]
    for row in tokens.tolist():
        body = row[1:row.index(eos)]
        x, y = body[:body.index(sep)], body[body.index(sep) + 1:]
        a, b = x[:x.index(10)], x[x.index(10) + 1:]
        starts = set()
        numbers = []
        for number in (a, b, y):
            if hints:
                tags, digits = number[0::2], number[1::2]
                assert all(11 <= t < 11 + hints for t in tags), "a hint is not a hint symbol"
                starts |= {t - 11 - i for i, t in enumerate(tags)}
                number = digits
            assert all(0 <= d < 10 for d in number), "a digit is not a digit"
            numbers.append(sum(d * 10 ** i for i, d in enumerate(number)))
        assert numbers[0] + numbers[1] == numbers[2], "the sum is not a + b"
        if hints:
            assert len(starts) == 1, "a row's hints do not share one start"
        if cfg.get("pad_operands"):
            assert len(a) == len(b) == (2 if hints else 1) * cfg["train_len"], "not padded to N"


def check_abacus_places(tokens, positions, max_offset):
    """Abacus's positions (McLeish et al. 2024), rebuilt from the tokens: 0 off digits (the
    symbols 0..9), else k + the digit's place in its run of digits, one k in [0, max_offset] per
    row."""
    for row_tokens, row in zip(tokens, positions):
        places, run = [], 0
        for t in row_tokens:
            run = run + 1 if 0 <= t < 10 else 0
            places.append(run)
        places = np.array(places)
        digits = places > 0
        assert (row[~digits] == 0).all(), "abacus: a non-digit token has a place"
        offsets = set((row[digits] - places[digits]).tolist())
        assert len(offsets) == 1 and 0 <= offsets.pop() <= max_offset, "abacus: offsets differ"


def check_binary(poslab):
    failures = 0
    for label, extra in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            options = {"--task": "copy", "--train-len": "6", "--layers": "2", "--width": "16",
                       "--heads": "2", "--batch": "4", "--seed": "3", "--steps": "0"}
            valued = [e for e in extra if e not in FLAGS]
            options.update(zip(valued[0::2], valued[1::2]))
            args = [item for pair in options.items() for item in pair]
            args += [e for e in extra if e in FLAGS]
            subprocess.run([poslab, "train", *args, "-q", "--dump", tmp], check=True)
            cfg = json.load(open(os.path.join(tmp, "config.json")))
            weights = read_safetensors(os.path.join(tmp, "weights.safetensors"))
            grads = read_safetensors(os.path.join(tmp, "grads.safetensors"))
            batch = {n: np.load(os.path.join(tmp, n + ".npy"))
                     for n in ["tokens", "targets", "positions", "loss_mask"]}
            shapes = expected_shapes(cfg)
            assert {n: tuple(v.shape) for n, v in weights.items()} == shapes, label
            assert set(grads) == set(shapes), label
            for n in ["tokens", "targets", "positions"]:
                assert batch[n].dtype == np.int32, f"{n}.npy is {batch[n].dtype}"
            assert batch["loss_mask"].dtype == np.float32
            if cfg["position"] == "abacus":
                check_abacus_places(batch["tokens"], batch["positions"], cfg["abacus_max_offset"])
            if cfg["task"] == "addition":
                check_addition(batch["tokens"], cfg)
            loss, ref = loss_and_grads(cfg, weights, batch["tokens"], batch["targets"],
                                       batch["positions"], batch["loss_mask"].astype(np.float64))
            their_loss = json.load(open(os.path.join(tmp, "loss.json")))["loss"]
            loss_err = abs(their_loss - loss) / abs(loss)
            worst, worst_name = 0.0, ""
            for name, g in ref.items():
                peak = np.abs(g).max()
                err = np.abs(grads[name] - g).max() / peak if peak > 0 else np.abs(grads[name]).max()
                if err > worst:
                    worst, worst_name = err, name
            ok = loss_err <= 1e-5 and worst <= 1e-3
            failures += not ok
            print(f"{label:28s} loss {loss:.6f}  |Δloss|/loss {loss_err:.1e}  worst gradient "
                  f"{worst:.1e} of its max ({worst_name})  {'ok' if ok else 'FAIL'}")
    return failures


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    failures = self_test()
    if sys.argv[1] != "--self-test":
        failures += check_binary(sys.argv[1])
    print("all checks passed" if failures == 0 else f"{failures} checks failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
