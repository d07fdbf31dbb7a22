#!/usr/bin/env bash
# mda_run.sh [BUILD] — issue #16's seed pattern with the real client: MDAnalysis' ChainReader over M
# H5MD files on N ranks (mda_chain.py, parallel h5py from .venv-mpi), stock HDF5 against h5turbo's
# first run (sidecar cache emptied) and second run, modes taking turns, median of REPS of the
# slowest rank's seconds; every run's checksum must equal stock's. Environment: FILES (32), FRAMES
# (64), ATOMS (1000), RANKS ("1 2"), DRIVERS ("sec2 mpio"), REPS (5), WORK=<folder> (keep the
# files), PLUGINS=<folder> (default BUILD/plugins).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
py=$root/.venv-mpi/bin/python
[ -x "$py" ] || { echo "no $root/.venv-mpi (scripts/setup makes it with the parallel HDF5)" >&2; exit 2; }
plugins=${PLUGINS:-$build/plugins}
m=${FILES:-32}; frames=${FRAMES:-64}; atoms=${ATOMS:-1000}; reps=${REPS:-5}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
trap '[ -z "${WORK:-}" ] && rm -rf "$work"' EXIT
mpi=(mpiexec --allow-run-as-root --oversubscribe --mca fbtl_posix_read_datasieving 0 --mca mpi_yield_when_idle 1)
unset HDF5_VOL_CONNECTOR HDF5_PLUGIN_PATH
export OPENBLAS_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE=1
files=$work/m$m-f$frames-a$atoms
if [ ! -f "$files/chain-$(printf %03d $((m - 1))).h5md" ]; then
  "$py" "$here/mda_chain.py" gen "$files" "$m" "$frames" "$atoms"
  sleep 2.1 # h5turbo neither trusts nor writes sidecars of files changed in the last 2 s
fi

one() { # MODE N DRIVER — prints "SECONDS CHECKSUM-LINE"
  local env=(XDG_CACHE_HOME="$work/cache")
  case $1 in
    stock) ;;
    first) rm -rf "$work/cache"; env+=(HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo) ;;
    second) env+=(HDF5_PLUGIN_PATH="$plugins" HDF5_VOL_CONNECTOR=h5turbo) ;;
  esac
  local out; out=$(env "${env[@]}" "${mpi[@]}" -n "$2" "$py" "$here/mda_chain.py" read "$files" "$3" 2>/dev/null) \
    || { echo "mda_chain.py read failed ($1, $2 ranks, $3)" >&2; exit 1; }
  echo "$(echo "$out" | sed -n 's/^time: slowest=\([0-9.]*\).*/\1/p') $(echo "$out" | grep '^result:')"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

printf '%-6s %-6s %10s %10s %10s %8s %8s\n' ranks driver stock_s first_s second_s first_x second_x
for n in ${RANKS:-1 2}; do
  for drv in ${DRIVERS:-sec2 mpio}; do
    declare -A t=()
    want=""
    for ((r = 0; r < reps; r++)); do
      for mode in stock first second; do
        res=$(one $mode "$n" "$drv")
        sum=${res#* }
        [ -n "$want" ] || want=$sum
        [ "$sum" = "$want" ] || { echo "results differ ($mode, $n ranks, $drv): '$sum' against stock's '$want'" >&2; exit 1; }
        t[$mode]+="${res%% *} "
      done
    done
    s=$(tr ' ' '\n' <<< "${t[stock]}" | grep . | median)
    f=$(tr ' ' '\n' <<< "${t[first]}" | grep . | median)
    c=$(tr ' ' '\n' <<< "${t[second]}" | grep . | median)
    printf '%-6s %-6s %10s %10s %10s %7.2fx %7.2fx\n' "$n" "$drv" "$s" "$f" "$c" "$(echo "$s / $f" | bc -l)" "$(echo "$s / $c" | bc -l)"
    unset t
  done
done
echo "($m files of $frames frames x $atoms atoms, MDAnalysis' H5MDWriter; slowest rank, median of $reps; x = stock / h5turbo)"
