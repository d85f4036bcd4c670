# Sourced by scripts/gpu-{test,bench,profile}.sh: on the GPU machine, which
# has no package registry, the libraries that scripts/gpu-deps.sh unpacked
# into $GPU_DEPS (default: <repo>/.gpu-deps) are found by CMake and the
# loader. Where the system has them, nothing changes.
gpu_deps=${GPU_DEPS:-$root/.gpu-deps}
if [ -d "$gpu_deps/usr" ]; then
  export CMAKE_PREFIX_PATH="$gpu_deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$gpu_deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
