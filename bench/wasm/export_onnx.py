#!/usr/bin/env python3
"""Exports a .safetensors checkpoint to ONNX for the onnxruntime-web benchmarks.

Usage: export_onnx.py CHECKPOINT.safetensors OUT.onnx [--n-head H] [--eps E]     (GPT-2)
       export_onnx.py CHECKPOINT.safetensors OUT.onnx --config config.json     (Llama)

The benchmarks (bench/wasm/ort_gpt2.mjs, ort_llama.mjs) write the checkpoint (seeded random
weights, the ones PosLab loads) and run this script; they are its only users, never the tests.
Debian's torch has no transformers library, so each model is written out by hand in torch:
- GPT-2 as Hugging Face's GPT2LMHeadModel computes it (Conv1D weights stored (in, out), tanh
  GELU, pre-LayerNorm blocks, lm_head tied to wte);
- the Llama family's plain `llama` (SmolLM2) as modeling_llama.py does: RMSNorm, RoPE on
  rotate-half pairs with inv_freq = theta^(-2i/d), grouped-query attention, SwiGLU, lm_head
  tied or not as the checkpoint has it.
Exported with torch.onnx.export at opset 14, FP32, standard ops only (no contrib fused ops):
input `input_ids` (1, T) int64, output `logits` (1, T, V), T a dynamic axis. Installs Debian's
python3-torch (which brings numpy) when torch is missing.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time


def ensure_torch():
    """Imports torch, or installs Debian's python3-torch and runs this script again under
    Debian's python (a pyenv or venv python first on PATH does not see apt's packages)."""
    try:
        import torch  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if not have_system_torch(system):
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            sys.exit("export_onnx.py: torch is missing: install Debian's python3-torch "
                     "(apt-get install -y python3-torch) and run again")
        print("export_onnx.py: installing python3-torch with apt-get", flush=True)
        subprocess.run(["apt-get", "install", "-y", "python3-torch"], check=True,
                       stdout=subprocess.DEVNULL)
    if os.path.realpath(sys.executable) != os.path.realpath(system):
        os.execv(system, [system, *sys.argv])
    import torch  # noqa: F401,F811


def have_system_torch(python):
    return os.path.exists(python) and subprocess.run(
        [python, "-c", "import torch"], capture_output=True).returncode == 0


def read_safetensors(path):
    """name -> numpy array (float32), parsed by hand: u64 header length, JSON, raw data."""
    import numpy as np

    dtypes = {"F32": np.float32, "F16": np.float16}
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    base = 8 + n
    out = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        array = np.frombuffer(data, dtype=dtypes[entry["dtype"]], count=(end - begin) //
                              np.dtype(dtypes[entry["dtype"]]).itemsize, offset=base + begin)
        out[name.removeprefix("transformer.")] = array.reshape(entry["shape"]).astype(np.float32)
    return out


def causal_attention(q, k, v):
    """softmax(q·kᵀ/√d, keys j <= i) · v for q, k, v (1, H, T, d), as both models compute it."""
    import torch

    T, d = q.shape[2], q.shape[3]
    causal = torch.ones(T, T, dtype=torch.bool).tril()
    scores = (q @ k.transpose(-1, -2)) / math.sqrt(d)  # (1, H, T, T)
    scores = scores.masked_fill(~causal, torch.finfo(torch.float32).min)
    return torch.softmax(scores, dim=-1) @ v


def build_model(weights, n_head, eps):
    import torch
    from torch import nn

    V, E = weights["wte.weight"].shape
    P = weights["wpe.weight"].shape[0]
    N = 1 + max(int(k.split(".")[1]) for k in weights if k.startswith("h."))
    t = lambda name: nn.Parameter(torch.from_numpy(weights[name].copy()), requires_grad=False)

    def gelu_tanh(x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))

    class Block(nn.Module):
        def __init__(self, l):
            super().__init__()
            p = f"h.{l}."
            self.ln_1 = nn.LayerNorm(E, eps=eps)
            self.ln_1.weight, self.ln_1.bias = t(p + "ln_1.weight"), t(p + "ln_1.bias")
            self.ln_2 = nn.LayerNorm(E, eps=eps)
            self.ln_2.weight, self.ln_2.bias = t(p + "ln_2.weight"), t(p + "ln_2.bias")
            # Conv1D: y = x·W + b with W stored (in, out).
            self.c_attn_w, self.c_attn_b = t(p + "attn.c_attn.weight"), t(p + "attn.c_attn.bias")
            self.c_proj_w, self.c_proj_b = t(p + "attn.c_proj.weight"), t(p + "attn.c_proj.bias")
            self.fc_w, self.fc_b = t(p + "mlp.c_fc.weight"), t(p + "mlp.c_fc.bias")
            self.proj_w, self.proj_b = t(p + "mlp.c_proj.weight"), t(p + "mlp.c_proj.bias")

        def forward(self, x):  # x (1, T, E)
            T = x.shape[1]
            d = E // n_head
            qkv = self.ln_1(x) @ self.c_attn_w + self.c_attn_b  # (1, T, 3E)
            q, k, v = qkv.split(E, dim=2)
            heads = lambda y: y.view(1, T, n_head, d).transpose(1, 2)  # (1, H, T, d)
            q, k, v = heads(q), heads(k), heads(v)
            y = causal_attention(q, k, v).transpose(1, 2).reshape(1, T, E)
            h = x + (y @ self.c_proj_w + self.c_proj_b)
            m = gelu_tanh(self.ln_2(h) @ self.fc_w + self.fc_b) @ self.proj_w + self.proj_b
            return h + m

    class Gpt2(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(V, E)
            self.wte.weight = t("wte.weight")
            self.wpe = nn.Embedding(P, E)
            self.wpe.weight = t("wpe.weight")
            self.h = nn.ModuleList(Block(l) for l in range(N))
            self.ln_f = nn.LayerNorm(E, eps=eps)
            self.ln_f.weight, self.ln_f.bias = t("ln_f.weight"), t("ln_f.bias")

        def forward(self, input_ids):  # (1, T) int64 → logits (1, T, V)
            positions = torch.arange(input_ids.shape[1], dtype=torch.long)
            x = self.wte(input_ids) + self.wpe(positions).unsqueeze(0)
            for block in self.h:
                x = block(x)
            return self.ln_f(x) @ self.wte.weight.t()  # lm_head tied to wte

    return Gpt2().eval(), V


def build_llama(weights, config):
    import torch
    from torch import nn

    V, E = weights["model.embed_tokens.weight"].shape
    N = config["num_hidden_layers"]
    H = config["num_attention_heads"]
    K = config.get("num_key_value_heads", H)
    d = config.get("head_dim") or E // H
    eps = config.get("rms_norm_eps", 1e-6)
    theta = config.get("rope_theta", 10000.0)
    P = config.get("max_position_embeddings", 2048)
    t = lambda name: nn.Parameter(torch.from_numpy(weights[name].copy()), requires_grad=False)

    def rms_norm(x, w):
        return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))

    def rotate_half(x):
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

    inv_freq = 1.0 / (theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
    angles = torch.outer(torch.arange(P, dtype=torch.float64), inv_freq)
    angles = torch.cat((angles, angles), dim=-1)  # (P, d): pair i is (i, i + d/2)

    class Block(nn.Module):
        def __init__(self, l):
            super().__init__()
            p = f"model.layers.{l}."
            self.ln_1, self.ln_2 = t(p + "input_layernorm.weight"), t(p + "post_attention_layernorm.weight")
            # nn.Linear: y = x·Wᵀ with W stored (out, in).
            self.q, self.k, self.v, self.o = (t(p + f"self_attn.{n}_proj.weight") for n in "qkvo")
            self.gate, self.up, self.down = (t(p + f"mlp.{n}_proj.weight") for n in ("gate", "up", "down"))

        def forward(self, x, cos, sin):  # x (1, T, E); cos, sin (T, d)
            T = x.shape[1]
            h = rms_norm(x, self.ln_1)
            q = (h @ self.q.t()).view(1, T, H, d).transpose(1, 2)  # (1, H, T, d)
            k = (h @ self.k.t()).view(1, T, K, d).transpose(1, 2)  # (1, K, T, d)
            v = (h @ self.v.t()).view(1, T, K, d).transpose(1, 2)
            q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            # repeat_kv: query head h reads key/value head h // (H / K) (expand + reshape: torch
            # 1.13 exports repeat_interleave with a fixed T).
            kv = lambda y: y[:, :, None].expand(1, K, H // K, T, d).reshape(1, H, T, d)
            k, v = kv(k), kv(v)
            y = causal_attention(q, k, v).transpose(1, 2).reshape(1, T, H * d)
            x = x + y @ self.o.t()
            h = rms_norm(x, self.ln_2)
            m = (torch.nn.functional.silu(h @ self.gate.t()) * (h @ self.up.t())) @ self.down.t()
            return x + m

    class Llama(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(V, E)
            self.embed.weight = t("model.embed_tokens.weight")
            self.layers = nn.ModuleList(Block(l) for l in range(N))
            self.norm = t("model.norm.weight")
            self.head = t("lm_head.weight") if "lm_head.weight" in weights else self.embed.weight
            # One copy of the rotation tables for every layer.
            self.register_buffer("cos", angles.cos().float(), persistent=False)
            self.register_buffer("sin", angles.sin().float(), persistent=False)

        def forward(self, input_ids):  # (1, T) int64 → logits (1, T, V)
            T = input_ids.shape[1]
            x = self.embed(input_ids)
            cos, sin = self.cos[:T], self.sin[:T]
            for layer in self.layers:
                x = layer(x, cos, sin)
            return rms_norm(x, self.norm) @ self.head.t()

    return Llama().eval(), V


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("out")
    parser.add_argument("--n-head", type=int, default=None,
                        help="heads (default n_embd/64, as every released GPT-2)")
    parser.add_argument("--eps", type=float, default=1e-5)
    parser.add_argument("--config", default=None,
                        help="a Llama-family config.json (model_type llama): export that model")
    args = parser.parse_args()

    ensure_torch()
    import torch

    torch.set_num_threads(1)
    t0 = time.time()
    weights = read_safetensors(args.checkpoint)
    if args.config:
        with open(args.config) as f:
            config = json.load(f)
        if config.get("model_type") != "llama":
            sys.exit(f"export_onnx.py: {args.config}: model_type {config.get('model_type')!r} "
                     "is not written here (llama only)")
        model, V = build_llama(weights, config)
    else:
        E = weights["wte.weight"].shape[1]
        model, V = build_model(weights, args.n_head or E // 64, args.eps)
    ids = torch.zeros(1, 8, dtype=torch.long)
    with torch.no_grad():
        check = model(ids)
    assert check.shape == (1, 8, V), check.shape
    tmp = args.out + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model, (ids,), tmp, opset_version=14, input_names=["input_ids"],
                          output_names=["logits"],
                          dynamic_axes={"input_ids": {1: "T"}, "logits": {1: "T"}},
                          do_constant_folding=True)
    os.replace(tmp, args.out)
    print(f"export_onnx.py: wrote {args.out} ({os.path.getsize(args.out) / 1e6:.0f} MB) "
          f"in {time.time() - t0:.0f} s (torch {torch.__version__})", flush=True)


if __name__ == "__main__":
    main()
