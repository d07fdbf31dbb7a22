"""cg_share.py — reads a callgrind output file and prints "TOTAL HDF5 SHARE": all instructions
collected, the part of them spent inside libhdf5 and the h5turbo plugins (inclusive: with the libc,
zlib... they call, without the Python callbacks they make), and that part's share. For the h5py
loaders' "HDF5 share of CPU" column in bench/index/run.sh.
Method: the inclusive cost of every call edge from the application's objects (python, libpython,
anything under site-packages: h5py, numpy, scipp) into libhdf5/libh5turbo*, minus the inclusive
cost of every edge from libhdf5/libh5turbo* back into the application's objects (the callbacks of
H5Ovisit/H5Literate that h5py turns into Python calls). Nested calls telescope: an H5Ovisit
entered from h5py counts fully, its Python callbacks are taken out, and the HDF5 calls those
callbacks make are counted again as their own edges. Usage: python3 cg_share.py CALLGRIND_OUT"""
import os
import re
import sys

POS_RE = re.compile(r"^[+\-*]?(0x[0-9a-fA-F]+|\d+)?$")


def is_hdf5(ob):
    b = os.path.basename(ob)
    return b.startswith("libhdf5") or b.startswith("libh5turbo")


def is_app(ob):
    return "python" in ob or "site-packages" in ob or "lib-dynload" in ob or "libffi" in ob


def parse(path):
    names = {"ob": {}, "fn": {}, "fl": {}}

    def name(space, value):
        value = value.strip()
        m = re.match(r"^\((\d+)\)\s*(.*)$", value)
        if not m:
            return value
        ident, rest = m.group(1), m.group(2)
        if rest:
            names[space][ident] = rest
            return rest
        return names[space].get(ident, "(" + ident + ")")

    npos = 1
    total = None
    cur_ob = cur_fn = None
    call_ob = call_fn = None
    pending_call = False
    fn_ob = {}  # a function's object, from its fn= block
    edges = []  # (caller object, callee object or None, callee function, inclusive cost)
    self_sum = 0
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                parts = line.split()
                costs = parts[npos:]
                cost = int(costs[0]) if costs else 0
                if pending_call:
                    edges.append((cur_ob, call_ob, call_fn, cost))
                    pending_call = False
                    call_ob = call_fn = None
                else:
                    self_sum += cost
                continue
            key, _, value = line.partition("=")
            if line.startswith("positions:"):
                npos = len(line.split(":", 1)[1].split())
            elif line.startswith("totals:") or line.startswith("summary:"):
                vals = line.split(":", 1)[1].split()
                if vals and (total is None or line.startswith("totals:")):
                    total = int(vals[0])
            elif key == "ob":
                cur_ob = name("ob", value)
            elif key == "fn":
                cur_fn = name("fn", value)
                fn_ob.setdefault(cur_fn, cur_ob)
            elif key in ("fl", "fi", "fe", "cfi", "cfl", "jfi"):
                name("fl", value)
            elif key == "cob":
                call_ob = name("ob", value)
            elif key in ("cfn", "jfn"):
                v = name("fn", value)
                if key == "cfn":
                    call_fn = v
            elif key == "calls":
                pending_call = True
    if total is None:
        total = self_sum
    return total, edges, fn_ob


def main():
    total, edges, fn_ob = parse(sys.argv[1])
    inside = 0
    for caller, callee, fn, cost in edges:
        if callee is None:
            callee = fn_ob.get(fn, caller)
        if caller is None or callee is None:
            continue
        if is_app(caller) and is_hdf5(callee):
            inside += cost
        elif is_hdf5(caller) and is_app(callee):
            inside -= cost
    share = inside / total if total else 0.0
    print(f"{total} {inside} {share:.3f}")


if __name__ == "__main__":
    main()
