#!/usr/bin/env python3
"""Writes the small .npy seed files of the npy fuzz target (fuzz/seeds/npy/) without
NumPy: the header layout follows the .npy format description (versions 1.0 and 2.0).
Run again only to change the seeds; the files are checked in."""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "npy")


def npy(descr, shape, payload, version=1, fortran=False):
    shape_text = "(" + "".join(f"{d}, " for d in shape).rstrip(" ")
    if len(shape) > 1:
        shape_text = shape_text.rstrip(",")
    shape_text += ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_text)
    prefix = 10 if version == 1 else 12
    pad = (64 - (prefix + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    head = b"\x93NUMPY" + bytes([version, 0])
    head += struct.pack("<H" if version == 1 else "<I", len(header))
    return head + header.encode("latin1") + payload


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "f32_3x4.npy": npy("<f4", (3, 4), struct.pack("<12f", *[i * 0.5 for i in range(12)])),
        "i32_5.npy": npy("<i4", (5,), struct.pack("<5i", 0, -1, 2, 2**31 - 1, -2**31)),
        "bool_2x2.npy": npy("|b1", (2, 2), bytes([1, 0, 0, 1])),
        "f64_scalar.npy": npy("<f8", (), struct.pack("<d", 3.25)),
        "u8_empty.npy": npy("|u1", (0,), b""),
        "i64_v2_2x1x2.npy": npy("<i8", (2, 1, 2), struct.pack("<4q", 1, 2, 3, 4), version=2),
        "u16_fortran.npy": npy("<u2", (2, 2), struct.pack("<4H", 1, 2, 3, 4), fortran=True),
        "f32_big_endian.npy": npy(">f4", (2,), struct.pack(">2f", 1.0, 2.0)),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
