#!/usr/bin/env bash
# h5py_reads.sh — an h5py NeXus loader (h5py_reads.py: keys, `in`, visititems, attrs get and
# iteration, dataset shape/dtype/chunks/compression, whole and partial reads, string attributes and
# datasets as h5py writes them) and a LoadMD-like one (datasets by path, attributes by name, never
# listed) see the same under stock HDF5 and under h5turbo, and on the second
# open, from the sidecar, HDF5 hardly reads the data file: a few reads (superblock, root group, and
# what the index cannot answer) where stock makes hundreds (bench/common's read counter). A reader
# that takes every frame through new handles of its datasets (MDAnalysis' H5MD reader) reads the
# data file no more than stock's, plus a few reads of each dataset's header and chunk index: before
# the index kept what a program opens again and again, each frame read them again. A program
# reading ten members of a dense group of 3,000 links by name reads the data file on its first open
# no more than stock's and 5: before the index counted such a group's links, its first look-up
# read 64 of them from the group's fractal heap to learn that it was large (71 reads, stock 58).
# h5py's visititems and visit of the whole file read each object's header once on a first open, as
# stock's do (each was read again before: by the visit's adapter asking its header details, and by
# the callback's open); a visititems that stops at the first dataset reads what stock's reads
# (the whole tree was loaded first, then each group's members' headers as the visit entered it:
# 56 reads against stock's 23; now each member's as the visit reaches it). Mantid's descriptor
# walk (each member's type by index, then the member groups opened) and napi5's (each entry's info
# by name, then the entry opened), through h5py's low-level calls, read each header once on a
# first open, as stock does (the index had let go of what it read for the first call before the
# second came: twice as many reads); on a second open napi5's walk reads no more than the others
# (the by-name info made each group real before: 201 reads).
source "$(dirname "$0")/../integration/lib.sh"
venv_python
: "${TB_IO_COUNT:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
f="$tmp/nexus.h5"
stock "$py" "$TB_SRC/tests/index/h5py_reads.py" make "$f" || fail "make"
stock "$py" "$TB_SRC/tests/index/h5py_reads.py" make-frames "$tmp/frames.h5" || fail "make-frames"
stock "$py" "$TB_SRC/tests/index/h5py_reads.py" make-wide "$tmp/wide.h5" || fail "make-wide"
settle # old enough to be persisted
view() { # LOADER MODE OUT: the loader's output in OUT, its reads of the data file on stdout
  local loader=$1 mode=$2 out=$3
  local f=$f
  [ "$loader" != frames ] || f=$tmp/frames.h5
  [ "$loader" != wide ] || f=$tmp/wide.h5
  local envs=(LD_PRELOAD="$TB_IO_COUNT" TB_IO_COUNT_FILE="$f" TB_IO_COUNT_OUT=/dev/null)
  if [ "$mode" = stock ]; then
    stock env "${envs[@]}" "$py" "$TB_SRC/tests/index/h5py_reads.py" "$loader" "$f" > "$out" 2> "$out.err" || { cat "$out.err" >&2; fail "stock $loader"; }
  else
    H5TURBO_INDEX=persistent turbo env "${envs[@]}" "$py" "$TB_SRC/tests/index/h5py_reads.py" "$loader" "$f" > "$out" 2> "$out.err" \
      || { cat "$out.err" >&2; fail "h5turbo $loader ($mode)"; }
  fi
  sed -n 's/^reads //p' "$out.err"
}
# Each loader from a cache of its own: what its first open recorded is what its second open has.
for loader in view units frames wide walk search descriptor entries; do
  export XDG_CACHE_HOME="$tmp/cache-$loader"
  r0=$(view $loader stock "$tmp/stock.txt")
  r1=$(view $loader first "$tmp/first.txt")
  r2=$(view $loader second "$tmp/second.txt")
  for m in first second; do
    diff -u "$tmp/stock.txt" "$tmp/$m.txt" | head -40
    cmp -s "$tmp/stock.txt" "$tmp/$m.txt" || fail "h5py ($loader) sees something else under h5turbo ($m open)"
  done
  echo "$loader: reads of the data file: stock $r0, h5turbo first open $r1, second open $r2"
  least=100; [ $loader != wide ] || least=40; [ $loader != search ] || least=5
  [ "$r0" -gt $least ] || fail "the stock $loader read the file only $r0 times: the counter is not counting"
  if [ $loader = frames ]; then
    # (4 datasets: each header and chunk index read again at most a few times)
    for r in "$r1" "$r2"; do
      [ "$r" -le $((r0 + 40)) ] || fail "frames: h5turbo read the data file $r times, stock $r0 (at most 40 more expected)"
    done
  else
    [ $loader != wide ] || [ "$r1" -le $((r0 + 5)) ] \
      || fail "wide: the first open read the data file $r1 times, stock $r0 (at most 5 more expected)"
    case $loader in walk | search | descriptor | entries)
      [ "$r1" -le $((r0 + 5)) ] || fail "$loader: the first open read the data file $r1 times, stock $r0 (at most 5 more expected)" ;;
    esac
    [ "$r2" -le 40 ] || fail "$loader: the second open read the data file $r2 times (at most 40 expected: superblock, root and a few objects)"
  fi
done
echo "ok: h5py's loaders see the same under h5turbo; second opens read the data file at most 40 times, a frame reader no more than stock's and 40, a wide group's few members, a whole visit, a search stopped early and the descriptor's and napi5's walks on a first open no more than stock's and 5"
