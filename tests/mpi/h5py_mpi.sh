#!/usr/bin/env bash
# h5py_mpi.sh NP — parallel h5py (.venv-mpi: h5py built with MPI against scripts/setup-mpi's HDF5)
# on NP ranks, stock and under h5turbo in the same test:
#  1. h5py's own suite with pytest-mpi's --with-mpi (its MPI-IO tests included) on every rank,
#     compared test by test and rank by rank: no test may fail only under h5turbo;
#  2. h5py_callers.py: a parallel writer (collective filtered writes, independent writes, a resize),
#     then the readers (MPI-IO, sec2 on every rank, MDAnalysis' H5MD reader with driver="mpio"),
#     each run twice under h5turbo (first run: sidecars built; second: answered from them); every
#     rank's transcript must equal stock's, the file h5turbo wrote must read back under stock as
#     stock's own does, every rank's filtered chunks must have gone through h5turbo's filters, and
#     every rank of each second run must have loaded a sidecar.
source "$(dirname "$0")/mpi_lib.sh"
np=$1
here=$(cd "$(dirname "$0")" && pwd)
py="$TB_SRC/.venv-mpi/bin/python"
[ -x "$py" ] || fail "no $TB_SRC/.venv-mpi (scripts/setup builds parallel h5py there with the clients)"
"$py" -c "import h5py; assert h5py.get_config().mpi" || fail "h5py in .venv-mpi is not built with MPI"
mpi_workdir
export XDG_CACHE_HOME="$tmp/cache" PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$TB_SRC/tests/clients"
mkdir -m 700 "$XDG_CACHE_HOME"
export TB_MPI_TIMEOUT=300

# ---- 1. h5py's suite on every rank
suite=$("$py" -c 'import h5py, os; print(os.path.join(os.path.dirname(h5py.__file__), "tests"))')
per_rank_outcomes=(bash -c 'TB_OUTCOMES=$0.${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-x}} exec "$@"')
suite_run() { # MODE NAME
  local rc=0
  mkdir -p "$tmp/$2" && cd "$tmp/$2"
  "mpi_$1" "$np" "${per_rank_outcomes[@]}" "$tmp/$2.tsv" "$py" -m pytest -p tb_outcomes -p no:cacheprovider \
    -q --color=no --with-mpi "$suite" > "$tmp/$2.log" 2>&1 || rc=$?
  cd "$tmp"
  [ "$rc" -ne 124 ] && [ "$rc" -ne 97 ] || { tail -30 "$tmp/$2.log"; fail "h5py's suite, $2 run: exit $rc"; }
  echo "h5py's suite, $2 run (exit $rc): $(grep -a -E '[0-9]+ passed' "$tmp/$2.log" | tail -1)"
}
suite_run stock native
suite_run turbo turbo
for ((r = 0; r < np; r++)); do
  [ -s "$tmp/native.tsv.$r" ] || fail "no outcomes from rank $r of the native run"
  "$py" "$TB_SRC/tests/clients/compare.py" final "$tmp/native.tsv.$r" "$tmp/turbo.tsv.$r" \
    --report "$tmp/report.$r.txt" || { cat "$tmp/report.$r.txt"; fail "h5py's suite: tests failing only under h5turbo on rank $r"; }
done
echo "ok: h5py's suite on $np ranks: no test fails only under h5turbo"

# ---- 2. MPI callers: stock in s/, h5turbo in t/ (the reads twice), stock reading h5turbo's file in x/
mkdir -p s t x
callers() { # MODE DIR PHASE
  local rc=0
  "mpi_$1" "$np" "$py" "$here/h5py_callers.py" "$3" "$2" > "$2/$3.out" 2>&1 || rc=$?
  [ $rc -eq 0 ] || { cat "$2/$3.out"; fail "h5py_callers.py $3 failed ($1, exit $rc)"; }
}
same() { # PHASE DIR — every rank's transcript equal to stock's
  local r
  for ((r = 0; r < np; r++)); do
    cmp -s "s/$1.$r.txt" "$2/$1.$r.txt" || { diff "s/$1.$r.txt" "$2/$1.$r.txt" | head -20; fail "$1 on rank $r: $2 differs from stock"; }
  done
}
for phase in write read sec2 mda; do callers stock s $phase; done
rm -f stats.log
TB_STATS_LOG=$PWD/stats.log callers turbo t write
same write t
# (the collective filtered write ran its chunks through h5turbo's DEFLATE/shuffle/Fletcher-32 on each rank)
n=$(grep -c "native_filtered=[1-9]" stats.log || true)
[ "$n" -eq "$np" ] || { cat stats.log; fail "write: h5turbo's filters ran on $n of $np ranks"; }
cp t/xfel.h5 x/xfel.h5
callers stock x read
same read x
settle
for phase in read sec2 mda; do
  rm -rf "${XDG_CACHE_HOME:?}"/*   # each phase's first run builds its sidecars
  for run in first second; do
    rm -f stats.log
    TB_STATS_LOG=$PWD/stats.log callers turbo t $phase
    same $phase t
    n=$(grep -c "sidecars loaded=1 " stats.log || true)
    if [ $run = second ] && [ "$n" -ne "$np" ]; then
      cat stats.log; fail "$phase, second run: $n of $np ranks loaded a sidecar"
    fi
    echo "ok: $phase, $run run: every rank's transcript equals stock's; $n ranks loaded a sidecar"
  done
done
echo "ok: parallel h5py callers on $np ranks: writes read back as stock's, reads equal stock's, second runs from sidecars"
