#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the release that the npm package node-llama-cpp bundles, and caches it.
#
#   bench/providers/build-llama-server.sh        prints the cache directory (building first if needed)
#
# The cache holds bin/llama-server, gguf-py (llama.cpp's GGUF writer, for toy_model.py) and the chat templates.
# A build takes about 40 minutes on 2 cores; later runs reuse it. Needs npm, git, cmake, a C++ compiler.
set -euo pipefail

CACHE=${LOOPFLOW_BENCH_CACHE:-$HOME/.cache/loopflow-bench}
VERSION=${NODE_LLAMA_CPP_VERSION:-3.22.1}
SRC=$CACHE/src
mkdir -p "$SRC"

if [ ! -f "$SRC/node-llama-cpp-$VERSION.tgz" ]; then
  (cd "$SRC" && npm pack --silent "node-llama-cpp@$VERSION" >/dev/null)
fi
if [ ! -d "$SRC/llama.cpp/.git" ]; then
  (cd "$SRC" && tar xzf "node-llama-cpp-$VERSION.tgz" package/llama/gitRelease.bundle package/llama/llama.cpp.info.json \
    && git clone -q package/llama/gitRelease.bundle llama.cpp)
fi
# The release tag node-llama-cpp names (llama.cpp.info.json) keys the cache; the commit is printed with it.
TAG=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tag"])' "$SRC/package/llama/llama.cpp.info.json")
COMMIT=$(git -C "$SRC/llama.cpp" rev-parse --short HEAD)
OUT=$CACHE/llama-$TAG

if [ ! -x "$OUT/bin/llama-server" ]; then
  echo "building llama-server (llama.cpp $TAG, commit $COMMIT, from node-llama-cpp $VERSION); this takes a while" >&2
  cd "$SRC/llama.cpp"
  # LLAMA_CURL is deprecated in this release (LLAMA_OPENSSL replaced it) but older releases read it; both off: the
  # server never downloads anything. The libraries are found next to the binary ($ORIGIN), so the cached copy
  # keeps working when the source tree is removed.
  nice -n 15 cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_APP=OFF \
    -DGGML_NATIVE=ON -DCMAKE_BUILD_RPATH_USE_ORIGIN=ON >&2
  nice -n 15 cmake --build build --target llama-server -j2 >&2
  # The binary is copied last: its presence is what marks the cache complete.
  rm -rf "$OUT"
  mkdir -p "$OUT/bin"
  # the shared libraries it links, when the build made any
  find build/bin -maxdepth 1 -name '*.so*' -exec cp -a {} "$OUT/bin/" \;
  cp -r gguf-py "$OUT/gguf-py"
  cp -r models/templates "$OUT/templates"
  echo "llama.cpp $TAG commit $COMMIT from node-llama-cpp $VERSION" > "$OUT/release.txt"
  cp build/bin/llama-server "$OUT/bin/"
fi
echo "$OUT"
