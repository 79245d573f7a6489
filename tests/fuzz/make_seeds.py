#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora. tests/fuzz/corpus/: small valid .safetensors files (F32, F16
and BF16, with and without __metadata__) and near-valid ones that each break one header rule, so the
fuzzer starts next to every check in cpp/src/io/safetensors.cpp. tests/fuzz/npy_corpus/: small
.npy files of every dtype the reader accepts, version 1.0 and 2.0 headers, 0-d and empty
arrays, and near-valid ones (a huge axis beside a zero one, truncated data, Fortran order,
big-endian, a float64 beyond float32). tests/fuzz/config_corpus/: GPT-2's and Pythia's config.json
as Hugging Face publishes them, Pythia with each rope_scaling (both spellings of its type), and
near-valid ones that each break one rule of cpp/src/models/gpt2_config.cpp or gpt_neox_config.cpp.
Standard library only; rerun after changing it: python3 tests/fuzz/make_seeds.py"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
FORMATS = {"F32": "<f", "F16": "<e"}
SIZES = {"F32": 4, "F16": 2, "BF16": 2}


def pack(dtype, value):
    """One element's bytes; BF16 is float32's high half (exact for the seeds' values)."""
    if dtype == "BF16":
        return struct.pack("<f", value)[2:]
    return struct.pack(FORMATS[dtype], value)


def file_bytes(header, buffer, pad=True, length=None):
    """8-byte little-endian header length, JSON header (space-padded to 8 bytes), buffer."""
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text) if length is None else length) + text + buffer


def tensors(specs, metadata=None):
    """specs: [(name, dtype, shape)] laid out back to back; values 0.5, 1.5, 2.5, ..."""
    header = {"__metadata__": metadata} if metadata is not None else {}
    buffer = b""
    for name, dtype, shape in specs:
        numel = 1
        for d in shape:
            numel *= d
        begin = len(buffer)
        buffer += b"".join(pack(dtype, i + 0.5) for i in range(numel))
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [begin, len(buffer)]}
    return header, buffer


def seeds():
    yield "f32.safetensors", file_bytes(*tensors([("w", "F32", [2, 3])]))
    yield "f16.safetensors", file_bytes(*tensors([("w", "F16", [3, 2])]))
    yield "bf16.safetensors", file_bytes(*tensors([("w", "BF16", [3, 2])]))
    yield "mixed_dtypes.safetensors", file_bytes(
        *tensors([("a", "BF16", [3]), ("b", "F32", [2]), ("c", "F16", [1]), ("d", "BF16", [2, 2])]))
    yield "f32_metadata.safetensors", file_bytes(
        *tensors([("wte.weight", "F32", [4, 2]), ("b", "F32", [2])], {"format": "pt"}))
    yield "f16_metadata.safetensors", file_bytes(
        *tensors([("a", "F16", [2, 2]), ("b", "F16", [3])], {"format": "pt", "note": "seed"}))
    yield "scalar_and_empty.safetensors", file_bytes(
        *tensors([("s", "F32", []), ("z", "F16", [0, 4]), ("h", "F16", [1])]), pad=False)
    yield "empty_header.safetensors", file_bytes({}, b"")
    # The tiny GPT-2 the harness also loads (V 4, P 4, E 4, one block), F16 to stay small.
    E = 4
    gpt2 = [("wte.weight", [4, E]), ("wpe.weight", [4, E])]
    for name, shape in [("ln_1.weight", [E]), ("ln_1.bias", [E]), ("attn.c_attn.weight", [E, 3 * E]),
                        ("attn.c_attn.bias", [3 * E]), ("attn.c_proj.weight", [E, E]),
                        ("attn.c_proj.bias", [E]), ("ln_2.weight", [E]), ("ln_2.bias", [E]),
                        ("mlp.c_fc.weight", [E, 4 * E]), ("mlp.c_fc.bias", [4 * E]),
                        ("mlp.c_proj.weight", [4 * E, E]), ("mlp.c_proj.bias", [E])]:
        gpt2.append(("h.0." + name, shape))
    gpt2 += [("ln_f.weight", [E]), ("ln_f.bias", [E])]
    yield "gpt2_tiny.safetensors", file_bytes(*tensors([(n, "F16", s) for n, s in gpt2]))
    # The same in BF16: the streaming loader widens it to F32, chunk edges inside elements.
    yield "gpt2_tiny_bf16.safetensors", file_bytes(*tensors([(n, "BF16", s) for n, s in gpt2]))

    # Near-valid: one rule broken each.
    header, buffer = tensors([("w", "F32", [2, 2])])
    yield "bad_truncated.safetensors", file_bytes(header, buffer[:-4])
    header, buffer = tensors([("a", "F16", [2]), ("b", "F16", [2])])
    header["b"]["data_offsets"] = [2, 6]
    yield "bad_overlap.safetensors", file_bytes(header, buffer)
    header, buffer = tensors([("w", "F32", [4])])
    header["w"]["dtype"] = "F64"  # sized right, but a dtype PosLab does not load
    header["w"]["shape"] = [2]
    yield "bad_dtype.safetensors", file_bytes(header, buffer)
    header, buffer = tensors([("w", "F32", [2])])
    header["w"]["dtype"] = "BF16"  # F32's bytes relabelled: twice what BF16 needs
    yield "bad_bf16_length.safetensors", file_bytes(header, buffer)
    header, buffer = tensors([("w", "F32", [2, 2])])
    header["w"]["shape"] = [2, 3]
    yield "bad_shape.safetensors", file_bytes(header, buffer)
    header, buffer = tensors([("w", "F16", [2])], {"format": 1})
    yield "bad_metadata.safetensors", file_bytes(header, buffer)
    header, buffer = tensors([("w", "F32", [1])])
    yield "bad_length.safetensors", file_bytes(header, buffer, length=1 << 40)


def npy(descr, shape, data=b"", major=1, fortran="False"):
    """Magic, version, header length, numpy's dict padded to 64 bytes, data."""
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    text = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (descr, fortran, dims)
    width = 2 if major == 1 else 4
    prefix = 8 + width
    text += " " * (-(prefix + len(text) + 1) % 64) + "\n"
    length = struct.pack("<H" if major == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([major, 0]) + length + text.encode() + data


def npy_seeds():
    yield "f4.npy", npy("<f4", [2, 3], struct.pack("<6f", 0.5, -1, 2, float("-inf"), 3, 4))
    yield "f8.npy", npy("<f8", [3], struct.pack("<3d", 1.5, -2.5, 1e30))
    yield "i4.npy", npy("<i4", [2, 2], struct.pack("<4i", 1, -2, 3, 2**31 - 1))
    yield "i8.npy", npy("<i8", [2], struct.pack("<2q", -(2**62), 7))
    yield "u1.npy", npy("|u1", [4], bytes([0, 1, 2, 255]))
    yield "b1.npy", npy("|b1", [3], bytes([0, 1, 7]))
    yield "v2.npy", npy("<f4", [1, 1, 2], struct.pack("<2f", 1, 2), major=2)
    yield "scalar.npy", npy("<f4", [], struct.pack("<f", 7))
    yield "empty.npy", npy("<f4", [0, 5])
    yield "nan.npy", npy("<f4", [2], struct.pack("<2f", float("nan"), 1))
    # Near-valid: one rule broken each.
    yield "huge_axis.npy", npy("<f4", [0, 2**50, 2])
    yield "cap_plus_one.npy", npy("<f4", [2**28 + 1, 0])
    yield "truncated.npy", npy("<f4", [4], struct.pack("<2f", 1, 2))
    yield "fortran.npy", npy("<f4", [1, 2], struct.pack("<2f", 1, 2), fortran="True")
    yield "big_endian.npy", npy(">f4", [2], struct.pack(">2f", 1, 2))
    yield "f8_overflow.npy", npy("<f8", [2], struct.pack("<2d", 1e300, 1))


# openai-community/gpt2's config.json as published.
GPT2 = {
    "activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"], "attn_pdrop": 0.1,
    "bos_token_id": 50256, "embd_pdrop": 0.1, "eos_token_id": 50256, "initializer_range": 0.02,
    "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 768,
    "n_head": 12, "n_layer": 12, "n_positions": 1024, "resid_pdrop": 0.1,
    "summary_activation": None, "summary_first_dropout": 0.1, "summary_proj_to_labels": True,
    "summary_type": "cls_index", "summary_use_proj": True,
    "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
    "vocab_size": 50257}
# EleutherAI/pythia-70m's config.json as published.
PYTHIA = {
    "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0,
    "hidden_act": "gelu", "hidden_size": 512, "initializer_range": 0.02,
    "intermediate_size": 2048, "layer_norm_eps": 1e-05, "max_position_embeddings": 2048,
    "model_type": "gpt_neox", "num_attention_heads": 8, "num_hidden_layers": 6,
    "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": False,
    "torch_dtype": "float16", "transformers_version": "4.24.0", "use_cache": True,
    "use_parallel_residual": True, "vocab_size": 50304}


DROP = object()  # a change that removes the key (None writes null)


def config(base, **changes):
    """config.json text as transformers writes it (sorted keys, two-space indent)."""
    out = dict(base)
    for key, value in changes.items():
        if value is DROP:
            out.pop(key, None)
        else:
            out[key] = value
    return (json.dumps(out, indent=2, sort_keys=True) + "\n").encode()


def config_seeds():
    yield "gpt2.json", config(GPT2)
    yield "gpt2_medium.json", config(GPT2, n_embd=1024, n_head=16, n_layer=24, n_special=0,
                                     predict_special_tokens=True)
    yield "gpt2_minimal.json", b'{"n_embd": 32, "n_head": 4, "n_layer": 2, "n_positions": 16}'
    yield "pythia_70m.json", config(PYTHIA)
    yield "pythia_160m.json", config(PYTHIA, hidden_size=768, intermediate_size=3072,
                                     num_attention_heads=12, num_hidden_layers=12)
    # Newer transformers' spellings, and no rotation scaling spelled out.
    yield "pythia_new_keys.json", config(PYTHIA, rotary_pct=DROP, rotary_emb_base=DROP,
                                         partial_rotary_factor=0.25, rope_theta=10000,
                                         attention_bias=True)
    yield "pythia_rope_null.json", config(PYTHIA, rope_scaling=None)
    yield "pythia_sequential.json", config(PYTHIA, use_parallel_residual=False, rotary_pct=1.0)
    for name, scaling in [
            ("linear", {"type": "linear", "factor": 2.0}),
            ("dynamic", {"type": "dynamic", "factor": 4.0}),
            ("default", {"rope_type": "default"}),
            ("ntk", {"rope_type": "ntk", "factor": 2.0}),
            ("yarn", {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048,
                      "beta_fast": 32, "beta_slow": 1}),
            ("llama3", {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                        "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}),
            ("both_spellings", {"type": "linear", "rope_type": "linear", "factor": 1.5})]:
        yield "pythia_rope_%s.json" % name, config(PYTHIA, rope_scaling=scaling)

    # Near-valid: one rule broken each.
    yield "bad_gpt2_activation.json", config(GPT2, activation_function="relu")
    yield "bad_gpt2_heads.json", config(GPT2, n_head=5)
    yield "bad_gpt2_inverse_layer_idx.json", config(GPT2, scale_attn_by_inverse_layer_idx=True)
    yield "bad_gpt2_float_size.json", config(GPT2, n_layer=12.5)
    yield "bad_pythia_missing_vocab.json", config(PYTHIA, vocab_size=DROP)
    yield "bad_pythia_rotary_pct.json", config(PYTHIA, rotary_pct=0.2)
    yield "bad_pythia_tied.json", config(PYTHIA, tie_word_embeddings=True)
    yield "bad_pythia_model_type.json", config(PYTHIA, model_type="llama")
    yield "bad_pythia_huge.json", config(PYTHIA, hidden_size=65536, num_attention_heads=64,
                                         num_hidden_layers=100)
    # One head as wide as the element cap: refused for its parameter count, and must be so
    # before anything the size of a head (RoPE's frequencies) is allocated.
    yield "bad_pythia_wide.json", config(PYTHIA, hidden_size=2**28, num_attention_heads=1)
    yield "bad_pythia_rope_longrope.json", config(PYTHIA, rope_scaling={"type": "longrope",
                                                                        "factor": 2.0})
    yield "bad_pythia_rope_mscale.json", config(PYTHIA, rope_scaling={
        "rope_type": "yarn", "factor": 4.0, "mscale": 1.0, "original_max_position_embeddings": 2048})
    yield "bad_pythia_rope_disagree.json", config(PYTHIA, rope_scaling={"type": "linear",
                                                                        "rope_type": "dynamic",
                                                                        "factor": 2.0})
    yield "bad_pythia_llama3_order.json", config(PYTHIA, rope_scaling={
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0, "high_freq_factor": 1.0,
        "original_max_position_embeddings": 8192})
    yield "bad_pythia_factor.json", config(PYTHIA, rope_scaling={"type": "linear", "factor": 0.5})
    yield "bad_not_an_object.json", b'[{"vocab_size": 50304}]'


def main():
    for folder, files in (("corpus", seeds()), ("npy_corpus", npy_seeds()),
                          ("config_corpus", config_seeds())):
        os.makedirs(os.path.join(HERE, folder), exist_ok=True)
        for name, data in files:
            with open(os.path.join(HERE, folder, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
