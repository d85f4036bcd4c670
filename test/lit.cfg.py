# lit configuration of the tilec test suite.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILEC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".tile", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")
config.excludes = ["Inputs", "Unit", "GPU", "lib", "corpus", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "README.md"]

# FileCheck variables are local to a CHECK-LABEL block unless $-prefixed.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"
# The runtime compiles PTX with ptxas when one is installed; the stand-in
# driver takes only its own "cubins" (PTX), so tests use the driver's linker
# unless they ask for ptxas (test/Unit/Runtime/FakeDriverTest.cpp does).
config.environment["TILEC_RUNTIME_PTXAS"] = "off"

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%examples", os.path.join(config.tilec_src_root,
                                                       "examples")))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# `not` and `count` at the start of a RUN line are found through PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.tilec_tools_dir, config.llvm_tools_dir]
tools = ["tile-opt", "tilec", "tilec-aot", "tilec-run", "tilec-gpu-run",
         "tilec-examples", "tilec-analyze", "tilec-profile", "tilec-gpu-tests",
         "tilec-bench", "tilec-tune", "tilec-fuzz-pipeline",
         "tilec-fuzz-driver-selftest", "not"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The stand-in libcuda of test/lib/FakeCuda (TILEC_LIBCUDA=%fakecuda), for
# tools that run kernels on the GPU; with TILEC_FAKE_CUDA_SIMULATE=1 it runs
# kernels in its PTX simulator. The build folder, for scripts that take it.
config.substitutions.append(("%fakecuda", os.path.join(
    config.tilec_obj_root, "lib", "libtilec_fake_cuda.so")))
config.substitutions.append(("%{obj_root}", config.tilec_obj_root))
config.substitutions.append(("%{src_root}", config.tilec_src_root))
# cuda.h's folder, for programs a test compiles against the runtime.
config.substitutions.append(("%{cuda_include}", config.tilec_cuda_include))

# ptxas is optional: tests that assemble PTX say REQUIRES: ptxas.
ptxas = shutil.which("ptxas") or os.path.join(config.cuda_root, "bin", "ptxas")
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
else:
    lit_config.note("ptxas not found: tests that assemble PTX are unsupported")

# pkg-config is optional: the test that builds against the installed
# runtime with it says REQUIRES: pkg-config.
if shutil.which("pkg-config"):
    config.available_features.add("pkg-config")
else:
    lit_config.note("pkg-config not found: the install test is unsupported")

# script(1) (util-linux) gives a command a terminal, for the test that tilec
# refuses to write a cubin to one.
if shutil.which("script"):
    config.available_features.add("script")

# libdevice is optional too: kernels calling CUDA math functions (cos, erf)
# need it; tilec finds it in /usr/local/cuda when CUDA_HOME is unset.
libdevice = os.path.join(config.cuda_root, "nvvm", "libdevice",
                         "libdevice.10.bc")
if os.path.exists(libdevice):
    config.available_features.add("libdevice")
else:
    lit_config.note("libdevice not found: tests of kernels that call CUDA "
                    "math functions are unsupported")

# A C++ compiler for tests that compile generated sources (test/AOT/torch.test
# against a stand-in of PyTorch's headers), and cuda.h's folder.
cxx = shutil.which("c++") or shutil.which("g++")
if cxx:
    config.available_features.add("cxx")
    config.substitutions.append(("%cxx", cxx))
config.substitutions.append(("%cuda_include",
                             os.path.join(config.cuda_root, "include")))
config.substitutions.append(("%tilec_include",
                             os.path.join(config.tilec_src_root, "include")))
