#!/usr/bin/env bash
# security.sh [GROUP...] — sidecars where other people's files live, tried with two real local
# users: a victim (who owns and reads the data) and an attacker (who may create files in the same
# shared folders). Each group of checks compares what the victim's program reads under h5turbo with
# what stock HDF5 reads, and what is on disk afterwards with what must be there:
#   private    a private file leaks nothing (cache 0700, sidecars no wider than the file's read
#              bits and in its group, nothing added to the data folder)
#   planted    a sidecar built for a forged copy and retargeted at the victim's file is not
#              trusted, beside the file or in a shared index folder (and would have been: the
#              same sidecar planted by the victim is used, so the check can fail)
#   symlinks   symlinks sprayed over temp, lock and sidecar names change nothing outside the folder
#   dos        a FIFO, a huge sparse file and held locks cost the reader less than a second
#   stale      a same-size, same-mtime replacement (tar extraction, cp + touch -r) is detected
#   litter     a dead writer's temp file is swept; `index drop` reports what it cannot remove
# Needs root (it creates and removes the two users); exits 77 (skipped) otherwise.
source "$(dirname "$0")/../integration/lib.sh"
: "${TB_INDEX_OPEN:?}"
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: the security tests create two throwaway local users and must run as root (CI runs them as root)"
  exit 77
fi
for t in useradd userdel groupadd groupdel setpriv /usr/bin/time flock mkfifo tar; do
  command -v "$t" > /dev/null || { echo "SKIP: $t is missing (scripts/setup installs it)"; exit 77; }
done
groups=${*:-private planted symlinks dos stale litter}

sfx=$$
V=h5tv$sfx A=h5ta$sfx G=h5tg$sfx
tmp=$(mktemp -d /tmp/h5t-security.XXXXXX)
chmod 755 "$tmp"
cleanup() {
  userdel "$V" 2> /dev/null || true
  userdel "$A" 2> /dev/null || true
  groupdel "$G" 2> /dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
groupadd "$G"
useradd -M -N -G "$G" -d "$tmp/hv" -s /bin/sh "$V"
useradd -M -N -d "$tmp/ha" -s /bin/sh "$A"
for u in "$V:hv" "$A:ha"; do mkdir -m 755 "$tmp/${u#*:}"; chown "${u%:*}" "$tmp/${u#*:}"; done

# Everything the two users run, where they can read it (a build tree or HDF5 under /root may not be).
rt=$tmp/rt
mkdir -p "$rt/bin" "$rt/lib" "$rt/plugins"
cp -L "$TB_HDF5_BIN/../lib/libhdf5.so.310" "$rt/lib/"
cp -r "$TB_PLUGIN_DIR"/. "$rt/plugins/"  # the front plugins and the builds beside them (hdf5-1/, hdf5-2/)
cp "$TB_INDEX_OPEN" "$rt/bin/index_open"
cp "$TB_CLI" "$rt/bin/h5turbo"
chmod -R a+rX "$rt"
mkdir -m 1777 "$tmp/times" # (what /usr/bin/time writes, as either user)
cd "$tmp"

# as USER [VAR=VALUE...] CMD...: runs CMD as USER with a clean environment.
as() {
  local u=$1; shift
  setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups \
    env -i PATH=/usr/bin:/bin HOME="$(getent passwd "$u" | cut -d: -f6)" LD_LIBRARY_PATH="$rt/lib" "$@"
}
# turbo_as USER [VAR=VALUE...] CMD...: the same with h5turbo active (debug and statistics on stderr).
turbo_as() {
  local u=$1; shift
  as "$u" HDF5_PLUGIN_PATH="$rt/plugins" HDF5_VOL_CONNECTOR=h5turbo H5TURBO_DEBUG=1 H5TURBO_STATS=1 "$@"
}
# read_as USER LABEL FILE [VAR=VALUE...]: the victim's reader on FILE under h5turbo; its output in
# LABEL.out, stderr in LABEL.err, wall seconds and peak RSS (KiB) in LABEL.time; h5turbo proven active.
read_as() {
  local u=$1 label=$2 f=$3; shift 3
  turbo_as "$u" "$@" /usr/bin/time -f '%e %M' -o "$tmp/times/$label" "$rt/bin/index_open" --values "$f" \
    > "$tmp/$label.out" 2> "$tmp/$label.err" || { cat "$tmp/$label.err"; fail "$label: the reader failed"; }
  grep -q '^h5turbo stats: wrappers malloc=[1-9]' "$tmp/$label.err" || fail "$label: h5turbo was not active"
}
# same LABEL WANT: the reader printed exactly what stock HDF5 prints.
same() { cmp -s "$tmp/$2" "$tmp/$1.out" || { diff "$tmp/$2" "$tmp/$1.out" | head; fail "$1: read something else than stock HDF5"; }; }
said() { grep -q -- "$2" "$tmp/$1.err" || { cat "$tmp/$1.err"; fail "$1: expected '$2' on stderr"; }; }
secs() { cut -d' ' -f1 "$tmp/times/$1"; }
kib() { cut -d' ' -f2 "$tmp/times/$1"; }
under_1s() { awk -v t="$(secs "$1")" 'BEGIN { exit !(t < 1.0) }' || fail "$1: took $(secs "$1") s (bound: 1 s)"; }
mk() { stock "$TB_INDEX_OPEN" --make "$1" "$2" || fail "cannot make $1"; }
want_of() { stock "$TB_INDEX_OPEN" --values "$1" > "$tmp/$2" || fail "stock reader on $1"; }

# A sticky world-writable folder (like /tmp) and a shared index folder of the same kind.
shared=$tmp/shared idx=$tmp/idx
mkdir -m 1777 "$shared" "$idx"
vcache=$tmp/hv/.cache/h5turbo acache=$tmp/ha/.cache/h5turbo

group_private() {
  mk "$shared/private.h5" 0; chown "$V" "$shared/private.h5"; chmod 600 "$shared/private.h5"
  want_of "$shared/private.h5" private.want
  settle
  local before; before=$(ls -A "$shared")
  read_as "$V" priv1 "$shared/private.h5"; same priv1 private.want; said priv1 "sidecar written"
  read_as "$V" priv2 "$shared/private.h5"; same priv2 private.want; said priv2 "sidecar loaded"
  [ "$(ls -A "$shared")" = "$before" ] || fail "private: files appeared in the data folder: $(ls -A "$shared")"
  [ "$(stat -c '%a %U' "$vcache")" = "700 $V" ] || fail "private: cache folder is $(stat -c '%a %U' "$vcache")"
  local sc; sc=$(ls "$vcache"/*.h5turbo-index)
  [ "$(stat -c '%a' "$sc")" = 600 ] || fail "private: cached sidecar has mode $(stat -c '%a' "$sc")"
  as "$A" cat "$sc" > /dev/null 2>&1 && fail "private: the attacker can read the victim's cached sidecar"
  as "$A" ls "$vcache" > /dev/null 2>&1 && fail "private: the attacker can list the victim's cache"
  # Beside the file (opt-in): a 0600 file gets a 0600 sidecar, a 0640 file of group G a 0640 one of G.
  rm -rf "$vcache" # (or the cache copy would serve, and nothing would be written)
  read_as "$V" priv3 "$shared/private.h5" H5TURBO_INDEX_DIR=beside; same priv3 private.want
  [ "$(stat -c '%a %U' "$shared/.private.h5.h5turbo-index")" = "600 $V" ] ||
    fail "private: beside sidecar is $(stat -c '%a %U' "$shared/.private.h5.h5turbo-index")"
  as "$A" cat "$shared/.private.h5.h5turbo-index" > /dev/null 2>&1 && fail "private: the attacker can read the beside sidecar"
  mk "$shared/team.h5" 0; chown "$V:$G" "$shared/team.h5"; chmod 640 "$shared/team.h5"; settle
  want_of "$shared/team.h5" team.want
  read_as "$V" team "$shared/team.h5" H5TURBO_INDEX_DIR=beside; same team team.want
  [ "$(stat -c '%a %G' "$shared/.team.h5.h5turbo-index")" = "640 $G" ] ||
    fail "private: a 0640 file of group $G got a sidecar $(stat -c '%a %G' "$shared/.team.h5.h5turbo-index")"
  as "$A" cat "$shared/.team.h5.h5turbo-index" > /dev/null 2>&1 && fail "private: the attacker (not in $G) can read the team sidecar"
  # A reader who does not own the file writes only to its own cache, never beside it.
  mk "$shared/public.h5" 0; chown "$V" "$shared/public.h5"; chmod 644 "$shared/public.h5"; settle
  want_of "$shared/public.h5" public.want
  read_as "$A" other "$shared/public.h5" H5TURBO_INDEX_DIR=beside; same other public.want
  [ ! -e "$shared/.public.h5.h5turbo-index" ] || fail "private: a non-owner wrote a sidecar beside someone else's file"
  ls "$acache"/*.h5turbo-index > /dev/null 2>&1 || fail "private: the non-owner's sidecar is not in its own cache"
  echo "ok: private: a 0600 file leaks nothing (cache 0700, sidecars 0600, nothing in the data folder); beside: 0600 and 0640/$G as the file; non-owners write to their own cache"
}

group_planted() {
  # The victim's file, world-readable (so the attacker learns its shape), and a forged copy of the
  # same size and layout with other values, built by the attacker.
  mk "$shared/pub.h5" 0; chown "$V" "$shared/pub.h5"; chmod 644 "$shared/pub.h5"
  mkdir -m 755 "$tmp/ha/work"; chown "$A" "$tmp/ha/work"
  as "$A" LD_LIBRARY_PATH="$rt/lib" "$rt/bin/index_open" --make "$tmp/ha/work/pub.h5" 1 || fail "forged copy"
  [ "$(stat -c %s "$shared/pub.h5")" = "$(stat -c %s "$tmp/ha/work/pub.h5")" ] || fail "planted: forged copy differs in size"
  want_of "$shared/pub.h5" pub.want
  want_of "$tmp/ha/work/pub.h5" forged.want
  cmp -s "$tmp/pub.want" "$tmp/forged.want" && fail "planted: the forged copy reads the same as the real file"
  settle
  as "$A" "$rt/bin/h5turbo" index build "$tmp/ha/work/pub.h5" > /dev/null || fail "planted: attacker's build"
  local forged; forged=$acache/$(printf '%016x-%016x.h5turbo-index' $(stat -c '%d %i' "$tmp/ha/work/pub.h5"))
  [ -f "$forged" ] || fail "planted: the attacker's build wrote no sidecar"
  local key; key=$(printf '%016x-%016x.h5turbo-index' $(stat -c '%d %i' "$shared/pub.h5"))
  # Planted beside the victim's file and in a shared index folder, retargeted at its identity.
  for dst in "$shared/.pub.h5.h5turbo-index" "$idx/$key"; do
    as "$A" cp "$forged" "$dst" || fail "planted: cannot plant $dst"
    as "$A" chmod 644 "$dst"
    as "$A" "$rt/bin/index_open" --retarget "$dst" "$shared/pub.h5" || fail "planted: retarget"
  done
  read_as "$V" plant_beside "$shared/pub.h5" H5TURBO_INDEX_DIR=beside
  same plant_beside pub.want; said plant_beside "owned by neither you nor the file's owner"
  said plant_beside "foreign_owner=1"
  read_as "$V" plant_dir "$shared/pub.h5" H5TURBO_INDEX_DIR="$idx"
  same plant_dir pub.want; said plant_dir "owned by neither you nor the file's owner"
  rm -rf "$vcache" # (the victim's own copy there would be valid)
  as "$V" H5TURBO_INDEX_DIR=beside "$rt/bin/h5turbo" index status "$shared/pub.h5" > "$tmp/st" 2>&1 && fail "planted: status calls the planted sidecar valid"
  grep -q "owned by neither" "$tmp/st" || fail "planted: status says: $(cat "$tmp/st")"
  # The check can fail: the same forged bytes owned by the victim (who could forge anyway) are
  # trusted and change what the victim reads.
  rm -f "$vcache"/*.h5turbo-index
  as "$A" cat "$shared/.pub.h5.h5turbo-index" > "$tmp/forged.sc"
  rm -f "$shared/.pub.h5.h5turbo-index"
  as "$V" cp "$tmp/forged.sc" "$shared/.pub.h5.h5turbo-index"
  as "$V" chmod 644 "$shared/.pub.h5.h5turbo-index"
  as "$V" "$rt/bin/index_open" --retarget "$shared/.pub.h5.h5turbo-index" "$shared/pub.h5"
  read_as "$V" plant_own "$shared/pub.h5" H5TURBO_INDEX_DIR=beside
  cmp -s "$tmp/plant_own.out" "$tmp/pub.want" && fail "planted: control failed: a trusted forged sidecar went unnoticed"
  said plant_own "sidecar loaded"
  # Writable by group: anyone in the group could have changed it, so it is not trusted either.
  as "$V" chmod 664 "$shared/.pub.h5.h5turbo-index"
  read_as "$V" plant_gw "$shared/pub.h5" H5TURBO_INDEX_DIR=beside
  same plant_gw pub.want; said plant_gw "writable by group or others"
  # The victim's own cache cannot be planted into.
  as "$A" cp "$forged" "$vcache/$key" 2> /dev/null && fail "planted: the attacker could write into the victim's cache"
  echo "ok: planted: forged sidecars (beside, shared folder) not trusted, status says why; group-writable rejected; the forgery would show if trusted"
}

group_symlinks() {
  mk "$shared/sym.h5" 0; chown "$V" "$shared/sym.h5"; chmod 644 "$shared/sym.h5"
  want_of "$shared/sym.h5" sym.want
  echo "my thesis" > "$tmp/hv/thesis.txt"; chown "$V" "$tmp/hv/thesis.txt"; chmod 600 "$tmp/hv/thesis.txt"
  local sum0; sum0=$(md5sum < "$tmp/hv/thesis.txt")
  local mt0; mt0=$(stat -c %Y "$tmp/hv/thesis.txt")
  # The attacker sprays symlinks at every name a writer might use: temp files of the next few
  # thousand pids (the old naming), the lock, and the sidecar itself; some point at the victim's
  # thesis, some nowhere (a created file would appear there).
  local base="$shared/.sym.h5.h5turbo-index" next; next=$(cat /proc/sys/kernel/ns_last_pid)
  as "$A" bash -c 'for p in $(seq "$2" "$3"); do ln -s "$1" "$4.tmp.$p"; done' _ "$tmp/hv/thesis.txt" "$next" \
    "$((next + 3000))" "$base" || fail "symlinks: spray"
  as "$A" ln -s "$tmp/hv/created_by_h5turbo.lock" "$base.lock"
  as "$A" ln -s "$tmp/hv/created_by_h5turbo" "$base"
  settle
  read_as "$V" sym1 "$shared/sym.h5" H5TURBO_INDEX_DIR=beside; same sym1 sym.want
  said sym1 "symbolic link"
  read_as "$V" sym2 "$shared/sym.h5" H5TURBO_INDEX_DIR=beside; same sym2 sym.want
  [ "$(md5sum < "$tmp/hv/thesis.txt")" = "$sum0" ] && [ "$(stat -c %Y "$tmp/hv/thesis.txt")" = "$mt0" ] ||
    fail "symlinks: the victim's thesis was written through a symlink"
  [ ! -e "$tmp/hv/created_by_h5turbo" ] && [ ! -e "$tmp/hv/created_by_h5turbo.lock" ] ||
    fail "symlinks: a file was created through a dangling symlink"
  [ -z "$(find "$shared" -newer "$tmp/hv/thesis.txt" -user "$V")" ] || fail "symlinks: the victim wrote into the folder: $(find "$shared" -newer "$tmp/hv/thesis.txt" -user "$V")"
  # A cache base someone else may write is not used; the victim's own ~/.cache is.
  local xdg=$tmp/xdg_shared; mkdir -m 1777 "$xdg"; as "$A" mkdir -m 777 "$xdg/h5turbo"
  rm -rf "$vcache"
  read_as "$V" sym3 "$shared/sym.h5" XDG_CACHE_HOME="$xdg"; same sym3 sym.want
  [ -z "$(ls -A "$xdg/h5turbo")" ] || fail "symlinks: sidecars written into a cache folder others can write"
  ls "$vcache"/*.h5turbo-index > /dev/null 2>&1 || fail "symlinks: no sidecar in the victim's own cache"
  # The cache folder itself replaced by a symlink to the attacker's folder: not used.
  rm -rf "$vcache"; as "$V" mkdir -p "$tmp/hv/.cache"; as "$A" mkdir -m 777 "$tmp/ha/trap"
  as "$V" ln -s "$tmp/ha/trap" "$vcache"
  read_as "$V" sym4 "$shared/sym.h5"; same sym4 sym.want
  [ -z "$(ls -A "$tmp/ha/trap")" ] || fail "symlinks: sidecars written through a symlinked cache folder"
  rm -f "$vcache"
  echo "ok: symlinks: a spray over $((3000 + 3)) temp/lock/sidecar names and symlinked cache folders changed nothing outside the folder"
}

group_dos() {
  mk "$shared/dos.h5" 0; chown "$V" "$shared/dos.h5"; chmod 644 "$shared/dos.h5"
  want_of "$shared/dos.h5" dos.want
  local sc="$shared/.dos.h5.h5turbo-index"
  settle
  read_as "$V" dos_base "$shared/dos.h5" H5TURBO_INDEX_DIR=beside; same dos_base dos.want
  local base_kib; base_kib=$(kib dos_base)
  rm -f "$sc" "$sc.lock"
  # A FIFO at the sidecar's name (stock reads fine; a blocking open would hang for ever).
  as "$A" mkfifo -m 666 "$sc"
  read_as "$V" dos_fifo "$shared/dos.h5" H5TURBO_INDEX_DIR=beside; same dos_fifo dos.want; under_1s dos_fifo
  said dos_fifo "not a regular file"
  as "$A" rm -f "$sc"
  # An 8 GB sparse file there: the attacker's, and the victim's own (larger than any sidecar of
  # this file can be).
  as "$A" truncate -s 8G "$sc"; as "$A" chmod 644 "$sc"
  read_as "$V" dos_big "$shared/dos.h5" H5TURBO_INDEX_DIR=beside; same dos_big dos.want; under_1s dos_big
  as "$A" rm -f "$sc"
  as "$V" truncate -s 8G "$sc"; as "$V" chmod 644 "$sc"
  read_as "$V" dos_own "$shared/dos.h5" H5TURBO_INDEX_DIR=beside; same dos_own dos.want; under_1s dos_own
  said dos_own "larger than a sidecar of this file can be"
  [ "$(kib dos_own)" -lt $((base_kib + 65536)) ] || fail "dos: the 8 GB sidecar cost $(kib dos_own) KiB (baseline $base_kib)"
  as "$V" rm -f "$sc"
  # A FIFO, and a lock held for ever by the attacker, at the lock's name (the victim's cache
  # emptied first, or the victim would load from it and have nothing to publish).
  rm -rf "$vcache"; rm -f "$sc" "$sc.lock"
  as "$A" mkfifo -m 666 "$sc.lock"
  read_as "$V" dos_lockfifo "$shared/dos.h5" H5TURBO_INDEX_DIR=beside; same dos_lockfifo dos.want; under_1s dos_lockfifo
  said dos_lockfifo "lock file is a symlink, not yours or not a regular file"
  as "$A" rm -f "$sc.lock"
  rm -rf "$vcache"; rm -f "$sc" "$sc.lock"
  as "$A" touch "$sc.lock"; as "$A" chmod 666 "$sc.lock"
  as "$A" flock "$sc.lock" sleep 30 & local holder=$!
  sleep 0.3
  read_as "$V" dos_lockheld "$shared/dos.h5" H5TURBO_INDEX_DIR=beside; same dos_lockheld dos.want; under_1s dos_lockheld
  kill "$holder" 2> /dev/null; wait "$holder" 2> /dev/null || true
  as "$A" rm -f "$sc.lock"
  # The victim's own lock held by another of the victim's processes: a bounded wait, then memory only.
  rm -rf "$vcache"
  read_as "$V" dos_mk "$shared/dos.h5"
  local key; key=$(printf '%016x-%016x.h5turbo-index' $(stat -c '%d %i' "$shared/dos.h5"))
  rm -f "$vcache/$key"
  as "$V" flock "$vcache/$key.lock" sleep 30 & holder=$!
  sleep 0.3
  read_as "$V" dos_ownlock "$shared/dos.h5"; same dos_ownlock dos.want; under_1s dos_ownlock
  said dos_ownlock "lock held by another process"; said dos_ownlock "lock_busy=1"
  kill "$holder" 2> /dev/null; wait "$holder" 2> /dev/null || true
  echo "ok: dos: FIFO $(secs dos_fifo) s; 8 GB sparse file $(secs dos_big) s (attacker's), $(secs dos_own) s and $(kib dos_own) KiB (own; baseline $base_kib KiB); FIFO lock $(secs dos_lockfifo) s; held locks $(secs dos_lockheld) s / $(secs dos_ownlock) s"
}

group_stale() {
  mkdir -m 755 "$tmp/hv/run"; chown "$V" "$tmp/hv/run"
  local f=$tmp/hv/run/data.h5
  as "$V" LD_LIBRARY_PATH="$rt/lib" "$rt/bin/index_open" --make "$f" 0
  as "$V" touch -d '2020-01-01 00:00' "$f"
  settle
  read_as "$V" st1 "$f"; said st1 "sidecar written"
  # A new version of the same size extracted over it from a tar archive with normalised mtimes.
  mkdir "$tmp/v2"; stock "$TB_INDEX_OPEN" --make "$tmp/v2/data.h5" 1
  [ "$(stat -c %s "$tmp/v2/data.h5")" = "$(stat -c %s "$f")" ] || fail "stale: versions differ in size"
  tar -C "$tmp/v2" --mtime='2020-01-01 00:00' --owner=0 --group=0 -cf "$tmp/v2.tar" data.h5
  chmod 644 "$tmp/v2.tar"
  as "$V" tar -C "$tmp/hv/run" -xf "$tmp/v2.tar"
  [ "$(stat -c '%s %Y' "$f")" = "$(stat -c '%s %Y' "$tmp/v2/data.h5" | cut -d' ' -f1) $(date -d '2020-01-01 00:00' +%s)" ] ||
    fail "stale: the extracted file does not have the old size and mtime"
  want_of "$f" v2.want
  settle
  read_as "$V" st2 "$f"; same st2 v2.want
  # The old content written back in place (same inode), mtime set back with touch -r.
  stock "$TB_INDEX_OPEN" --make "$tmp/v1.h5" 0; chmod 644 "$tmp/v1.h5"
  as "$V" cp "$f" "$tmp/hv/run/ref"
  as "$V" cp "$tmp/v1.h5" "$f"; as "$V" touch -r "$tmp/hv/run/ref" "$f"
  want_of "$f" v1.want
  cmp -s "$tmp/v1.want" "$tmp/v2.want" && fail "stale: the two versions read the same"
  settle
  as "$V" "$rt/bin/h5turbo" index status "$f" > "$tmp/st" 2>&1 && fail "stale: status calls the old sidecar valid"
  grep -q "stale" "$tmp/st" || fail "stale: status says: $(cat "$tmp/st")"
  read_as "$V" st3 "$f"; same st3 v1.want; said st3 "stale"
  echo "ok: stale: tar extraction with the same size and mtime, and cp + touch -r in place, both detected (ctime)"
}

group_litter() {
  mk "$shared/lit.h5" 0; chown "$V" "$shared/lit.h5"; chmod 644 "$shared/lit.h5"
  want_of "$shared/lit.h5" lit.want
  local key; key=$(printf '%016x-%016x.h5turbo-index' $(stat -c '%d %i' "$shared/lit.h5"))
  # A writer killed while publishing left its temp file, named in the lock file it held (writers
  # record the temp they write there); the next publisher sweeps it. A dead writer's temp not
  # named there (an older version's) goes at the next count of the cache: `index gc` here.
  sleep 0 & local dead=$!; wait "$dead"
  as "$V" mkdir -p "$vcache"; as "$V" chmod 700 "$vcache"
  local junk="$vcache/$key.tmp.$dead.0123456789abcdef" old="$vcache/$key.tmp.$dead.fedcba9876543210"
  as "$V" truncate -s 1M "$junk"; as "$V" touch -d '5 minutes ago' "$junk"
  as "$V" bash -c 'umask 077; printf %s "$1" > "$2"' _ "${junk##*/}" "$vcache/$key.lock"
  settle
  read_as "$V" lit1 "$shared/lit.h5"; same lit1 lit.want; said lit1 "sidecar written"
  [ ! -e "$junk" ] || fail "litter: a dead writer's temp file was not swept"
  [ ! -s "$vcache/$key.lock" ] || fail "litter: the lock file still names a temp after publishing"
  as "$V" truncate -s 1K "$old"; as "$V" touch -d '5 minutes ago' "$old"
  as "$V" "$rt/bin/h5turbo" index gc > /dev/null 2>&1 || fail "litter: index gc failed"
  [ ! -e "$old" ] || fail "litter: index gc left a dead writer's temp file"
  # `index drop` removes sidecars and dead writers' temp files and says what it could not remove.
  as "$V" truncate -s 1K "$junk"
  as "$V" "$rt/bin/h5turbo" index drop "$shared/lit.h5" > "$tmp/drop" 2>&1 || fail "litter: drop: $(cat "$tmp/drop")"
  [ ! -e "$junk" ] && [ ! -e "$vcache/$key" ] || fail "litter: drop left files behind"
  grep -q "removed $vcache/$key" "$tmp/drop" || fail "litter: drop did not report: $(cat "$tmp/drop")"
  read_as "$V" lit2 "$shared/lit.h5" H5TURBO_INDEX_DIR=beside
  as "$A" "$rt/bin/h5turbo" index drop "$shared/lit.h5" > "$tmp/drop" 2>&1 && fail "litter: the attacker's drop claims success"
  grep -q "cannot remove $shared/.lit.h5.h5turbo-index: Operation not permitted" "$tmp/drop" ||
    fail "litter: a failed drop says: $(cat "$tmp/drop")"
  grep -q "no sidecar" "$tmp/drop" && fail "litter: a failed drop says 'no sidecar'"
  [ -e "$shared/.lit.h5.h5turbo-index" ] || fail "litter: the attacker removed the victim's sidecar"
  echo "ok: litter: dead writer's temp swept by the next publisher; drop removes and reports; a drop that cannot remove says so (exit 1)"
}

for g in $groups; do "group_$g"; done
echo "ok: security: $groups"
