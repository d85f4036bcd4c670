# Writes or inspects .npy files without numpy, for the tilec-run tests.
#   npy.py write FILE DESCR SHAPE V0 V1 ...   (SHAPE like 2,3; ints or floats)
#   npy.py header FILE                        prints the header dict and
#                                             whether the data is 64-aligned
#   npy.py custom FILE VERSION HEADER         a header as given, no data
#   npy.py bf16 IN OUT                        an f16 file ('<f2') as bf16
#                                             ('<u2'), rounded to nearest even
import struct
import sys

if sys.argv[1] == "write":
    path, descr, shape = sys.argv[2], sys.argv[3], sys.argv[4]
    values = sys.argv[5:]
    dims = ", ".join(shape.split(",")) + ("," if "," not in shape else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, dims)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    fmt = {"<i4": "i", "<f4": "f", "<f8": "d", "|i1": "b"}[descr]
    data = struct.pack("<%d%s" % (len(values), fmt),
                       *[float(v) if fmt in "fd" else int(v) for v in values])
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode() + data)
elif sys.argv[1] == "bf16":
    data = open(sys.argv[2], "rb").read()
    length = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + length].decode()
    assert "'<f2'" in header, header
    halves = struct.unpack("<%de" % ((len(data) - 10 - length) // 2),
                           data[10 + length:])
    out = []
    for h in halves:
        bits = struct.unpack("<I", struct.pack("<f", h))[0]
        bits += 0x7FFF + ((bits >> 16) & 1)
        out.append(bits >> 16)
    with open(sys.argv[3], "wb") as f:
        f.write(data[:10] + header.replace("'<f2'", "'<u2'").encode())
        f.write(struct.pack("<%dH" % len(out), *out))
elif sys.argv[1] == "custom":
    path, version, header = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY" + bytes([version, 0]))
        f.write(struct.pack("<H", len(header)) + header.encode())
else:
    data = open(sys.argv[2], "rb").read()
    length = struct.unpack("<H", data[8:10])[0]
    print(data[10:10 + length].decode().strip())
    print("aligned" if (10 + length) % 64 == 0 else "unaligned")
