#!/usr/bin/env bash
# mpi_calls.sh NP — h5turbo's file opens cost no MPI collective that stock HDF5 does not make: the
# MPI_Comm_dup and collective calls of each rank (counted by the count_mpi_calls.c shim) for a
# collective write and for repeated read-only opens, with independent and with collective metadata
# I/O, must be the same stock and under h5turbo. (A copy of the application's access list per
# open, as h5turbo made before, duplicates the MPI-IO communicator: one MPI_Comm_dup per open.)
source "$(dirname "$0")/mpi_lib.sh"
np=$1
: "${TB_MPI_PROG:?}" "${TB_COUNT_MPI_CALLS:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export TB_MPI_TIMEOUT=${TB_MPI_TIMEOUT:-60}
opens=5
calls() { grep '^tb_mpi_calls ' "$1" | sort; }
# Each write goes to a file of its own: the MPI-IO driver truncating an existing file costs a
# barrier that creating a new one does not.
for md in 0 1; do
  for cmd in write reopen; do
    if [ $cmd = write ]; then nargs=(write n$md.h5); targs=(write t$md.h5); else nargs=(reopen n$md.h5 $opens); targs=("${nargs[@]}"); fi
    rc=0; TB_COLL_MD=$md mpi_stock "$np" env LD_PRELOAD="$TB_COUNT_MPI_CALLS" "$TB_MPI_PROG" "${nargs[@]}" > n.out 2> n.err || rc=$?
    [ $rc -eq 0 ] || { cat n.out n.err; fail "$cmd fails natively (exit $rc)"; }
    rc=0; TB_COLL_MD=$md mpi_turbo "$np" env LD_PRELOAD="$TB_COUNT_MPI_CALLS" "$TB_MPI_PROG" "${targs[@]}" > t.out 2> t.err || rc=$?
    [ $rc -eq 0 ] || { cat t.out t.err; fail "$cmd fails under h5turbo (exit $rc)"; }
    [ "$(calls n.err | wc -l)" -eq "$np" ] || { cat n.err; fail "the shim counted no calls (not preloaded?)"; }
    echo "coll-md $md, ${nargs[*]}: stock:   $(calls n.err | head -1)"
    echo "coll-md $md, ${targs[*]}: h5turbo: $(calls t.err | head -1)"
    [ "$(calls n.err)" = "$(calls t.err)" ] || { diff <(calls n.err) <(calls t.err); fail "MPI calls differ under h5turbo (coll-md $md, $cmd)"; }
  done
done
echo "ok: h5turbo adds no MPI_Comm_dup and no collective to a write or to $opens read-only opens at np $np"
