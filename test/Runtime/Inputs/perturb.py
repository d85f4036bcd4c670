# Copies a 1-D '<f4' .npy file, multiplying element INDEX by FACTOR:
#   perturb.py IN OUT INDEX FACTOR
import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
start = 10 + struct.unpack("<H", data[8:10])[0] + 4 * int(sys.argv[3])
(value,) = struct.unpack("<f", data[start:start + 4])
data[start:start + 4] = struct.pack("<f", value * float(sys.argv[4]))
open(sys.argv[2], "wb").write(bytes(data))
