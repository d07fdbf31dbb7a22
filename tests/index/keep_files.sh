#!/usr/bin/env bash
# keep_files.sh — read-only files kept open below after the application's close (file_kept.c):
# keep_files.py's transcript (the file changed between opens by another process, which must get
# HDF5's lock, and by this one; replaced, removed and made again; a dataset left open after its
# file's close; other access lists; a writer elsewhere refused while the file is open again; a
# metadata cache configuration set on an open file; 300 tables read one per open) the same under
# h5turbo as under stock, with files kept and reused, a kept file's metadata cache emptied when
# half full, every wrapper released at the end; and with keep_files off (H5TURBO_KEEP_FILES=0)
# none kept.
source "$(dirname "$0")/../integration/lib.sh"
venv_python
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME="$tmp/cache"
mkdir "$tmp/s" "$tmp/t" "$tmp/o"
stock "$py" "$TB_SRC/tests/index/keep_files.py" "$tmp/s" > "$tmp/stock.txt" || fail "stock run"
grep -q "a writer while it is open: refused" "$tmp/stock.txt" || fail "stock: the writer was not refused: $(cat "$tmp/stock.txt")"
TB_STATS_LOG="$tmp/stats" turbo "$py" "$TB_SRC/tests/index/keep_files.py" "$tmp/t" > "$tmp/turbo.txt" \
  || fail "h5turbo run"
diff -u "$tmp/stock.txt" "$tmp/turbo.txt" || fail "keep_files.py sees something else under h5turbo"
reused=$(sed -n 's/.*files kept=[0-9]* reused=\([0-9]*\).*/\1/p' "$tmp/stats")
[ "${reused:-0}" -ge 5 ] || fail "files kept open were not reused (reused=${reused:-none}): $(cat "$tmp/stats")"
grep -q 'contexts live=0;' "$tmp/stats" || fail "wrappers left at the end: $(cat "$tmp/stats")"
trimmed=$(sed -n 's/.*files kept=[0-9]* reused=[0-9]* trimmed=\([0-9]*\).*/\1/p' "$tmp/stats")
[ "${trimmed:-0}" -ge 1 ] || fail "no kept file's metadata cache was emptied (300 tables): $(cat "$tmp/stats")"
rm -f "$tmp/stats"
H5TURBO_KEEP_FILES=0 TB_STATS_LOG="$tmp/stats" turbo "$py" "$TB_SRC/tests/index/keep_files.py" "$tmp/o" > "$tmp/off.txt" \
  || fail "h5turbo run, keep_files off"
diff -u "$tmp/stock.txt" "$tmp/off.txt" || fail "keep_files off: keep_files.py sees something else"
grep -q 'files kept=0 reused=0 trimmed=0' "$tmp/stats" || fail "keep_files off, yet: $(cat "$tmp/stats")"
echo "ok: $(wc -l < "$tmp/stock.txt") lines as stock's; $reused opens shared a kept file, its cache emptied $trimmed times; none with keep_files off"
