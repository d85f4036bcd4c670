# Prints a kernel with N i64 parameters (8 bytes each): 512 fill the 4 KiB
# PTX parameter space exactly, 513 overflow it.
import sys

n = int(sys.argv[1])
params = ", ".join(f"%p{i}: i64" for i in range(n))
print(f"func.func @many({params}) attributes {{tile.kernel}} {{")
print("  return")
print("}")
