#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus (tests/fuzz/corpus/): small valid .safetensors files (F32 and
F16, with and without __metadata__) and near-valid ones that each break one header rule, so the
fuzzer starts next to every check in cpp/src/safetensors.cpp. Standard library only; rerun
after changing it: python3 tests/fuzz/make_seeds.py"""
import json
import os
import struct

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
FORMATS = {"F32": "<f", "F16": "<e"}
SIZES = {"F32": 4, "F16": 2}


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
        buffer += b"".join(struct.pack(FORMATS[dtype], i + 0.5) for i in range(numel))
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [begin, len(buffer)]}
    return header, buffer


def seeds():
    yield "f32.safetensors", file_bytes(*tensors([("w", "F32", [2, 3])]))
    yield "f16.safetensors", file_bytes(*tensors([("w", "F16", [3, 2])]))
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

    # Near-valid: one rule broken each.
    header, buffer = tensors([("w", "F32", [2, 2])])
    yield "bad_truncated.safetensors", file_bytes(header, buffer[:-4])
    header, buffer = tensors([("a", "F16", [2]), ("b", "F16", [2])])
    header["b"]["data_offsets"] = [2, 6]
    yield "bad_overlap.safetensors", file_bytes(header, buffer)
    header, buffer = tensors([("w", "F32", [2])])
    header["w"]["dtype"] = "BF16"
    yield "bad_dtype.safetensors", file_bytes(header, buffer)
    header, buffer = tensors([("w", "F32", [2, 2])])
    header["w"]["shape"] = [2, 3]
    yield "bad_shape.safetensors", file_bytes(header, buffer)
    header, buffer = tensors([("w", "F16", [2])], {"format": 1})
    yield "bad_metadata.safetensors", file_bytes(header, buffer)
    header, buffer = tensors([("w", "F32", [1])])
    yield "bad_length.safetensors", file_bytes(header, buffer, length=1 << 40)


def main():
    os.makedirs(CORPUS, exist_ok=True)
    for name, data in seeds():
        with open(os.path.join(CORPUS, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
