#!/usr/bin/env bash
# coll_write.sh NP — issue #16's deadlock as a regression test: a collective, chunked
# shuffle+DEFLATE+fletcher32 write through the MPI-IO driver on NP ranks under h5turbo. With the
# pipeline running on MPI-IO files it hung in H5Fclose (rank 0 in MPI_File_set_size, rank 1 in the
# metadata-flush barrier); now it must finish in time, every rank's H5TURBO_DEBUG must say why the
# pipeline and (for writing, and for collective metadata reads) the index are off, and the file
# must hold what stock HDF5 writes (serial h5dump, whose zlib decodes the streams h5turbo's engines
# wrote in native's filter pipeline on every rank).
source "$(dirname "$0")/mpi_lib.sh"
np=$1
: "${TB_MPI_PROG:?}"
mpi_workdir

# Independent metadata I/O, then collective metadata reads and writes; then 256 KiB chunks on 4
# threads per rank, which the deflate filter codes in pieces of byte planes (after our shuffle).
for md in 0 1 threads; do
  export TB_CHUNK_ROWS=16 H5TURBO_THREADS=1
  [ $md = threads ] && { md=0; export TB_CHUNK_ROWS=64 H5TURBO_THREADS=4; }
  rc=0; TB_COLL_MD=$md mpi_stock "$np" "$TB_MPI_PROG" write native.h5 > native.out 2>&1 || rc=$?
  [ $rc -eq 0 ] || { cat native.out; fail "the collective write fails natively (coll-md $md, exit $rc)"; }
  rc=0
  rm -f stats.log
  TB_STATS_LOG=$PWD/stats.log TB_COLL_MD=$md H5TURBO_DEBUG=1 mpi_turbo "$np" "$TB_MPI_PROG" write turbo.h5 \
    > turbo.out 2> turbo.err || rc=$?
  [ $rc -ne 124 ] || { cat turbo.out turbo.err; fail "the collective DEFLATE write hung under h5turbo (coll-md $md; killed after ${TB_MPI_TIMEOUT} s)"; }
  [ $rc -eq 0 ] || { cat turbo.out turbo.err; fail "the collective write failed under h5turbo (coll-md $md, exit $rc)"; }
  grep -q "^ok: write on $np ranks" turbo.out || { cat turbo.out; fail "no ok line under h5turbo"; }
  # Two opens per rank (the create and the read-back): each says the pipeline is off; the index is
  # off for the create (open for writing), and for the read-only read-back only with collective
  # metadata reads, which find no sidecar of a file just written and build no index of it (with
  # independent ones every rank's index answers for itself).
  say() { # COUNT MESSAGE
    local n; n=$(grep -c -F -x "h5turbo: turbo.h5: $2" turbo.err || true)
    [ "$n" -eq "$1" ] || { cat turbo.err; fail "coll-md $md: H5TURBO_DEBUG said '$2' $n times, expected $1"; }
  }
  say $((2 * np)) "pipeline off (the file driver does MPI I/O)"
  say "$np" "index off (the file driver does MPI I/O, and the file is open for writing)"
  say $((md * np)) "index off (the file driver does MPI I/O, metadata reads are collective, and rank 0 neither found a sidecar nor built an index: rank 0's debug messages say why)"
  # Native filters each rank's chunks there: on h5turbo's engines, on every rank.
  n=$(grep -c "^h5turbo: HDF5's deflate, shuffle and fletcher32 filters now run on h5turbo's engines" turbo.err || true)
  [ "$n" -eq "$np" ] || { cat turbo.err; fail "the fast filters were installed on $n ranks, expected $np"; }
  n=$(grep -c "native_filtered=[1-9][0-9]* native_unfiltered=[1-9]" stats.log || true)
  [ "$n" -eq "$np" ] || { cat stats.log; fail "$n ranks filtered and unfiltered chunks on h5turbo's engines, expected $np"; }
  if [ "$H5TURBO_THREADS" -gt 1 ]; then
    n=$(grep -c "native_pieced=[1-9]" stats.log || true)
    [ "$n" -eq "$np" ] || { cat stats.log; fail "$n ranks coded chunks in pieces on several threads, expected $np"; }
  fi
  stock h5dump -d /data native.h5 | sed 1d > native.dump
  stock h5dump -d /data turbo.h5 | sed 1d > turbo.dump
  cmp -s native.dump turbo.dump || { diff native.dump turbo.dump | head; fail "the file written under h5turbo differs from stock's"; }
  echo "ok: coll-md $md, $TB_CHUNK_ROWS-row chunks, $H5TURBO_THREADS threads: collective DEFLATE write at np $np under h5turbo finished, data as stock's, debug says why"
done
