#!/usr/bin/env bash
# fuzz_blosc_with_cblosc_src.sh — fuzzes the Blosc decode path with c-blosc itself instrumented:
# builds c-blosc from Debian's source package (or a given source tree) with clang, ASan, UBSan
# and libFuzzer coverage, links it with our codec and the fuzz target, and runs it. Coverage then
# reaches into c-blosc's decoders, which the system library (uninstrumented) hides.
#   tests/filter/fuzz_blosc_with_cblosc_src.sh [SECONDS] [C_BLOSC_SRC_DIR]
# Crash reproducers land in $WORK/art; copy them into tests/filter/corpus to replay them in CTest.
set -euo pipefail
secs=${1:-600}
src=${2:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${WORK:-/tmp/h5t-blosc-fuzz}
mkdir -p "$WORK/obj" "$WORK/corpus" "$WORK/art"
if [ -z "$src" ]; then
  # Debian serves the upstream tarball even where the .dsc is missing, so apt-get may exit
  # non-zero with the tarball fetched; what matters is that it arrived.
  (cd "$WORK" && { ls c-blosc_*.orig.tar.* >/dev/null 2>&1 ||
                   apt-get source --download-only -q c-blosc >/dev/null 2>&1 || true; })
  tarball=$(ls "$WORK"/c-blosc_*.orig.tar.* | head -1)
  (cd "$WORK" && tar xf "$tarball")
  src=$(ls -d "$WORK"/c-blosc-*/ | head -1)
fi
b="$src/blosc"
fl=(-g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined,fuzzer-no-link)
for f in blosc blosclz shuffle shuffle-generic shuffle-sse2 bitshuffle-generic bitshuffle-sse2 fastcopy; do
  clang "${fl[@]}" -DHAVE_LZ4 -DHAVE_SNAPPY -DHAVE_ZLIB -DHAVE_ZSTD -DSHUFFLE_SSE2_ENABLED -msse2 -I"$b" \
    -c "$b/$f.c" -o "$WORK/obj/cblosc_$f.o"
done
for f in common/tb_threadpool.c common/tb_config.c common/tb_pool.c common/tb_status.c filter/tb_blosc_codec.c; do
  clang "${fl[@]}" -D_GNU_SOURCE -I"$repo/common" -I"$repo/filter" -I"$b" -c "$repo/$f" \
    -o "$WORK/obj/$(basename "$f" .c).o"
done
clang -g -O1 -fsanitize=address,undefined,fuzzer -I"$repo/filter" -I"$repo/common" \
  "$repo/tests/filter/fuzz_blosc_decode.c" "$WORK"/obj/*.o -llz4 -lsnappy -lz -lzstd -lpthread -o "$WORK/fuzz_blosc_src"
cp -n "$repo"/tests/filter/corpus/* "$WORK/corpus/" 2>/dev/null || true
"$WORK/fuzz_blosc_src" -max_total_time="$secs" -rss_limit_mb=3000 -artifact_prefix="$WORK/art/" \
  -print_final_stats=1 "$WORK/corpus"
