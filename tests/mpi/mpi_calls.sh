#!/usr/bin/env bash
# mpi_calls.sh NP — h5turbo's file opens cost no MPI call that stock HDF5 does not make, beyond the
# index's own sidecar step: the MPI_Comm_dup and collective calls of each rank (counted by the
# count_mpi_calls.c shim) for a collective write and for repeated read-only opens, with independent
# and with collective metadata I/O, must be the same stock and under h5turbo. (A copy of the
# application's access list per open, as h5turbo made before, duplicates the MPI-IO communicator:
# one MPI_Comm_dup per open.) On its own communicator (made once per group of ranks, with one
# MPI_Allreduce), the MPI add-on makes one or two MPI_Bcast per read-only open (the sidecar's
# length, then its bytes when rank 0 found one), and nothing else. (With collective metadata reads
# rank 0 finds no sidecar here, none being published while the index is off: the index's steps
# before the broadcast read independently, the flags are then put back, and HDF5's own calls must
# still be stock's.)
source "$(dirname "$0")/mpi_lib.sh"
np=$1
: "${TB_MPI_PROG:?}" "${TB_COUNT_MPI_CALLS:?}"
mpi_workdir
opens=5
calls() { grep '^tb_mpi_calls ' "$1" | sort; }
# own FILE FIELD — the field of the add-on's line of every rank, one per line.
own() { grep '^tb_mpi_own ' "$1" | sed -n "s/.* $2=\([0-9]*\).*/\1/p"; }
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
    grep '^tb_mpi_own ' t.err | head -1
    # Read-only opens: the write's read-back, or the reopens (with collective metadata reads too:
    # the sidecar step decides whether the index serves them).
    if [ $cmd = write ]; then ro=1; else ro=$opens; fi
    for r in $(own n.err Comm_create_group) $(own n.err Bcast) $(own n.err Allreduce); do
      [ "$r" = 0 ] || fail "stock HDF5 made calls on a communicator of MPI_Comm_create_group"
    done
    for r in $(own t.err Comm_create_group); do [ "$r" = $((ro > 0)) ] || fail "$cmd, coll-md $md: $r communicators made, expected $((ro > 0))"; done
    for r in $(own t.err Allreduce); do [ "$r" = $((ro > 0)) ] || fail "$cmd, coll-md $md: $r MPI_Allreduce on h5turbo's communicator, expected $((ro > 0))"; done
    for r in $(own t.err Bcast); do
      [ "$r" -ge $ro ] && [ "$r" -le $((2 * ro)) ] || fail "$cmd, coll-md $md: $r MPI_Bcast for $ro read-only opens"
    done
  done
done
echo "ok: at np $np h5turbo adds no MPI_Comm_dup and no collective of HDF5's to a write or to $opens read-only opens; its own sidecar step makes one communicator and 1-2 broadcasts per read-only open"
