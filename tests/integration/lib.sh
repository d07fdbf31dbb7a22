# lib.sh — helpers shared by the integration scripts: run a command stock (no plugins at all) or
# with h5turbo active, and prove the connector really loaded (HDF5 falls back silently).
set -euo pipefail
: "${TB_BUILD:?run through ctest}"
export PATH="$TB_HDF5_BIN:$PATH"

# Stock HDF5: no connector, no plugin path.
stock() { env -u HDF5_VOL_CONNECTOR -u HDF5_PLUGIN_PATH -u H5TURBO_STATS "$@"; }

# h5turbo active, with the pool counters printed at library close as proof of activation. They go
# to a file of their own (H5TURBO_STATS=FILE), never to the program's stderr, where suites compare
# what their subprocesses print; every process of the command appends its lines there, and they
# are appended to the file named by $TB_STATS_LOG when set. Output of the command goes to stdout,
# its stderr to stderr.
turbo() {
  local conn=${TB_CONNECTOR:-h5turbo}
  local log; log=$(mktemp)
  local stats; stats=$(mktemp)
  local rc=0
  local preload=${TB_SANITIZE_PRELOAD:-}
  # Sanitizer builds: leak checking is off for these runs because the HDF5 tools and Python,
  # which we do not build, keep allocations at exit (our own unit tests keep leak checking).
  LD_PRELOAD="${preload}${LD_PRELOAD:+:$LD_PRELOAD}" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  HDF5_PLUGIN_PATH="$TB_PLUGIN_DIR" HDF5_VOL_CONNECTOR="$conn" H5TURBO_STATS="$stats" "$@" 2>"$log" || rc=$?
  cat "$log" >&2
  if [ -n "${TB_STATS_LOG:-}" ]; then cat "$stats" >> "$TB_STATS_LOG"; fi
  if grep -q -E 'ERROR: AddressSanitizer|runtime error:' "$log"; then
    echo "FAIL: sanitizer report under h5turbo for: $*" >&2; rm -f "$log" "$stats"; return 98
  fi
  if ! grep -q '^h5turbo stats: wrappers malloc=[1-9]' "$stats"; then
    echo "FAIL: h5turbo was not active for: $* (HDF5 fell back to native?)" >&2
    rm -f "$log" "$stats"; return 97
  fi
  rm -f "$log" "$stats"
  return $rc
}

fail() { echo "FAIL: $*" >&2; exit 1; }

# $py: the .venv's python (h5py built against this HDF5), which scripts/setup makes: a test that
# needs it fails without it rather than passing unrun.
venv_python() {
  py="$TB_SRC/.venv/bin/python"
  [ -x "$py" ] || fail "no $py (run scripts/setup)"
}

# The h5turbo command of this build.
TB_CLI="$TB_BUILD/bin/h5turbo"
# FILE's sidecar in the per-user cache ($XDG_CACHE_HOME/h5turbo), which names it by device and inode.
cache_sidecar() { printf '%s/h5turbo/%016x-%016x.h5turbo-index' "${XDG_CACHE_HOME:?}" $(stat -L -c '%d %i' "$1"); }
# Sidecars are neither used nor written for a file changed within the last 2 s (mtime or ctime, and
# `touch` sets ctime): a test that has just written or touched its files waits that long, once.
settle() { sleep 2.1; }
