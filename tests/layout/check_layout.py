#!/usr/bin/env python3
"""check_layout.py SRC — the architecture's rules, checked on the sources (CTest: layout.dependencies).

Each folder of the product is one part; a part may include headers only of the parts it is
allowed to depend on, may not include another part's private headers, may include HDF5 only
if it is an HDF5-facing part, and links (in its CMakeLists.txt) only the targets of the parts
it may depend on. Every VOL callback that reaches the connector below through an object goes
through tb_enter/TB_FORWARD (so the subsystems' duties run), or says why not.
Prints every violation and exits 1 when there is one."""
import os
import re
import sys

SRC = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))

# part: (folder, may include HDF5, parts it may include)
PARTS = {
    "common":          ("common", False, []),
    "common/hdf5":     ("common/hdf5", True, ["common"]),
    "common/bind":     ("common/bind", True, []),
    "filter/codec":    ("filter", False, ["common"]),
    "filter/plugin":   ("filter", True, ["common", "common/hdf5", "common/bind", "filter/codec"]),
    "vol/obj":         ("vol/obj", True, ["common", "common/hdf5"]),
    "vol/index/model": ("vol/index/model", False, ["common"]),
    "vol/index":       ("vol/index", True, ["common", "common/hdf5", "vol/obj", "vol/index/model", "vol/mpi"]),
    "vol/mpi":         ("vol/mpi", False, []),
    "vol/pipeline":    ("vol/pipeline", True, ["common", "common/hdf5", "vol/obj", "filter/codec"]),
    "vol/callbacks":   ("vol/callbacks", True, ["common", "common/hdf5", "common/bind", "vol/obj", "vol/index",
                                             "vol/pipeline"]),
    "cli":             ("cli", True, ["common", "common/hdf5", "vol/index/model"]),
}
# Files of filter/ that are the plugin (the rest is the HDF5-free codec library).
FILTER_PLUGIN = {"tb_blosc_plugin.c"}
# Headers only their own part (and the parts named here) may include.
PRIVATE = {
    "index_ctx.h": {"vol/index"},
    "index_model.h": {"vol/index", "vol/index/model"},
    "sidecar_format.h": {"vol/index/model"},
    "pipeline_int.h": {"vol/pipeline"},
    "tb_callbacks.h": {"vol/callbacks"},
}
# CMake targets of each part.
TARGETS = {
    "h5turbo_common": "common", "h5turbo::common": "common",
    "h5turbo_common_hdf5": "common/hdf5", "h5turbo::common_hdf5": "common/hdf5",
    "h5turbo_bind": "common/bind",
    "h5turbo_codecs": "filter/codec", "h5turbo::codecs": "filter/codec",
    "h5turbo_obj": "vol/obj", "h5turbo_index_model": "vol/index/model", "h5turbo_index": "vol/index",
    "h5turbo_pipeline": "vol/pipeline", "h5turbo_callbacks": "vol/callbacks",
}
HDF5_HEADER = re.compile(r"^(hdf5\w*\.h|H5\w*\.h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

problems = []


def part_of(relpath):
    d, base = os.path.split(relpath)
    if d == "filter":
        return "filter/plugin" if base in FILTER_PLUGIN else "filter/codec"
    best = None
    for name, (folder, _, _) in PARTS.items():
        if (d == folder or d.startswith(folder + "/")) and (best is None or len(folder) > len(PARTS[best][0])):
            best = name
    return best


# Where each of our headers lives (names are unique across the product).
headers = {}
for name, (folder, _, _) in PARTS.items():
    for root, _, files in os.walk(os.path.join(SRC, folder)):
        for f in files:
            if f.endswith(".h"):
                headers[f] = part_of(os.path.relpath(os.path.join(root, f), SRC))

sources = sorted({os.path.relpath(os.path.join(root, f), SRC)
                  for _, (folder, _, _) in PARTS.items()
                  for root, _, files in os.walk(os.path.join(SRC, folder))
                  for f in files if f.endswith((".c", ".h"))})
for rel in sources:
    part = part_of(rel)
    folder, hdf5_ok, allowed = PARTS[part]
    text = open(os.path.join(SRC, rel), encoding="utf-8").read()
    for kind, inc in INCLUDE.findall(text):
        base = os.path.basename(inc)
        if HDF5_HEADER.match(base):
            if not hdf5_ok:
                problems.append(f"{rel}: includes HDF5 ({inc}), but {part} is built without HDF5")
            continue
        if kind == "<" or base not in headers:
            continue  # system and third-party headers
        target = headers[base]
        if target != part and target not in allowed:
            problems.append(f"{rel}: includes {inc} of {target}; {part} may use only {', '.join(allowed) or 'itself'}")
        if base in PRIVATE and part not in PRIVATE[base]:
            problems.append(f"{rel}: includes {inc}, private to {', '.join(sorted(PRIVATE[base]))}")

# Link edges, from each part's CMakeLists.txt.
for name, (folder, _, allowed) in PARTS.items():
    cm = os.path.join(SRC, folder, "CMakeLists.txt")
    if name.startswith("filter/") or not os.path.exists(cm):
        continue
    for args in re.findall(r"target_link_libraries\(([^)]*)\)", open(cm).read()):
        for tok in args.split()[1:]:
            if tok in TARGETS and TARGETS[tok] != name and TARGETS[tok] not in allowed:
                problems.append(f"{folder}/CMakeLists.txt: links {tok} ({TARGETS[tok]}); {name} may use only "
                                f"{', '.join(allowed) or 'itself'}")

# Every callback that reaches the connector below through an object runs the hooks first.
FUNC = re.compile(r"^(?:static\s+)?[\w\s\*]+?\b(\w+)\s*\(([^)]*)\)\s*\{(.*?)^\}", re.M | re.S)
for rel in sources:
    if part_of(rel) != "vol/callbacks" or not rel.endswith(".c"):
        continue
    for fname, params, body in FUNC.findall(open(os.path.join(SRC, rel), encoding="utf-8").read()):
        reaches_below = re.search(r"\bH5VL\w+\s*\([^;]*->under\b", body, re.S) or "tb_under(" in body
        if not reaches_below or re.search(r"\btb_enter\s*\(|\bTB_FORWARD(_CLOSE|_THEN)?\s*\(|\bTB_NO_DUTIES\b", body):
            continue
        problems.append(f"{rel}: {fname}() calls the connector below without tb_enter/TB_FORWARD "
                        f"(or a TB_NO_DUTIES comment saying why none apply)")

for p in problems:
    print("FAIL:", p)
if problems:
    sys.exit(1)
print(f"ok: {len(sources)} files in {len(PARTS)} parts follow the dependency rules; every callback enters through the hooks")
