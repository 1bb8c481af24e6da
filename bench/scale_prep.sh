#!/usr/bin/env bash
# Stage what bench/scale_run.sh needs on a bare GPU machine into build-scale/ (carried by
# the device call, under 64 MiB): czk and czkd from a CUDA Release build, stripped, the GPU
# tests and benchmarks named in EXTRA, and every shared library they load except the C
# runtime's (libc, libm, libstdc++, libgcc_s, which the GPU image has).
#   BUILD=build-lead bash bench/scale_prep.sh
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-lead}
EXTRA=${EXTRA:-"test_gpu_setup test_gpu_prove bench_synth test_engine test_engine_fil"}
[ -f "$BUILD/CMakeCache.txt" ] ||
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCZK_CUDA=ON > /dev/null
cmake --build "$BUILD" -j"$(nproc)" --target czk czkd $EXTRA > /dev/null
# bin and lib only: build-scale/params-real is real_path_run's parameter cache.
rm -rf build-scale/bin build-scale/lib
mkdir -p build-scale/bin build-scale/lib
for b in czk czkd $EXTRA; do
  [ -x "$BUILD/bin/$b" ] && cp "$BUILD/bin/$b" build-scale/bin/ && strip build-scale/bin/$b
done
for b in build-scale/bin/*; do ldd "$b"; done | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt)\.so' |
  while read -r lib; do cp -L "$lib" build-scale/lib/; done
du -sh build-scale/bin build-scale/lib
