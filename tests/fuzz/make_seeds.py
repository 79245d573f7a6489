#!/usr/bin/env python3
"""Writes the fuzzers' seed corpora. tests/fuzz/corpus/: small valid .safetensors files (F32 and
F16, with and without __metadata__) and near-valid ones that each break one header rule, so the
fuzzer starts next to every check in cpp/src/safetensors.cpp. tests/fuzz/npy_corpus/: small
.npy files of every dtype the reader accepts, version 1.0 and 2.0 headers, 0-d and empty
arrays, and near-valid ones (a huge axis beside a zero one, truncated data, Fortran order,
big-endian, a float64 beyond float32). Standard library only; rerun after changing it:
python3 tests/fuzz/make_seeds.py"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
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


def main():
    for folder, files in (("corpus", seeds()), ("npy_corpus", npy_seeds())):
        os.makedirs(os.path.join(HERE, folder), exist_ok=True)
        for name, data in files:
            with open(os.path.join(HERE, folder, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
