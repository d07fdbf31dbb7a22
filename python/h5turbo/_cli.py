"""The pip package's `h5turbo` command: run a program with h5turbo active (`run`), print the
lines that activate it (`env`), and report and self-test it in this Python (`info`). The C build's
command (cli/h5turbo.c) has the same run/env/info plus index and bench."""
import os
import subprocess
import sys

import h5turbo

EXIT_USAGE = 2
EXIT_SETUP = 3  # plugins missing or failing the self-test

USAGE = """usage: h5turbo COMMAND ...
  run [--threads N] [--index MODE] [--write-behind] -- PROGRAM ARGS...
                          run PROGRAM with h5turbo active
  env [--shell sh|fish] [--threads N] [--index MODE] [--write-behind]
                          print the lines that activate h5turbo: eval "$(h5turbo env)"
  info [--python PY]      versions, plugin folder, the HDF5 the plugins bound to, and a
                          self-test through h5py in PY (default: this Python)
exit codes: 0 success; 2 bad usage; 3 plugins missing or failing the self-test;
  run: the program's status (127: it could not be started)
(the C build's h5turbo also has `index` and `bench`)"""


def _parse_opts(args, allow_shell=False):
    opts, shell, i = {}, "sh", 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return opts, shell, args[i + 1:]
        if a in ("--threads", "--index", "--shell") and (a != "--shell" or allow_shell):
            if i + 1 >= len(args):
                raise ValueError(f"{a} needs a value")
            val = args[i + 1]
            if a == "--threads":
                if not val.isdigit() or int(val) < 1:
                    raise ValueError(f"--threads takes a number >= 1, not '{val}'")
                opts["threads"] = int(val)
            elif a == "--index":
                opts["index"] = val
            else:
                if val not in ("sh", "fish"):
                    raise ValueError(f"--shell takes sh or fish, not '{val}'")
                shell = val
            i += 2
        elif a == "--write-behind":
            opts["write_behind"] = True
            i += 1
        elif a.startswith("-"):
            raise ValueError(f"unknown option '{a}'")
        else:
            return opts, shell, args[i:]
    return opts, shell, []


def _run(args):
    opts, _, prog = _parse_opts(args)
    if not prog:
        print("h5turbo run: no program given (usage: h5turbo run [OPTIONS] -- PROGRAM ARGS...)", file=sys.stderr)
        return EXIT_USAGE
    env = h5turbo.environ(**opts)
    try:
        os.execvpe(prog[0], prog, env)
    except OSError as e:
        print(f"h5turbo run: cannot start '{prog[0]}': {e.strerror}", file=sys.stderr)
        return 127


def _env(args):
    opts, shell, rest = _parse_opts(args, allow_shell=True)
    if rest:
        print(f"h5turbo env: unexpected argument '{rest[0]}'", file=sys.stderr)
        return EXIT_USAGE
    env = h5turbo.environ(**opts)
    for k in ("HDF5_PLUGIN_PATH", "HDF5_VOL_CONNECTOR"):
        print(f"set -gx {k} '{env[k]}';" if shell == "fish" else f"export {k}='{env[k]}'")
    return 0


# The self-test, run in a child Python with h5turbo active: a Blosc-filtered dataset written and read
# back through h5py, then what the process has mapped: the HDF5 library (the one h5py brings, which
# the plugins bind to) and the plugin builds the front chose for it.
SELF_TEST = r"""
import os, sys, tempfile
import numpy as np, h5py
plugins = sys.argv[1]
data = np.arange(65536, dtype="i4") * 7
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "selftest.h5")
    with h5py.File(path, "w") as f:
        f.create_dataset("blosc", data=data, chunks=(16384,), compression=32001,
                         compression_opts=(0, 0, 0, 0, 5, 1, 1))
    with h5py.File(path, "r") as f:
        ok = bool((f["blosc"][...] == data).all())
        avail = bool(h5py.h5z.filter_avail(32001))
libs, builds = [], []
for line in open("/proc/self/maps"):
    parts = line.split(None, 5)
    p = parts[5].strip() if len(parts) == 6 else ""
    b = os.path.basename(p)
    if b.startswith("libhdf5") and not b.startswith("libhdf5_hl") and ".so" in b and p not in libs:
        libs.append(p)
    if (p.startswith(plugins + "/hdf5-") or p.startswith(plugins + "/libs/")) and os.path.relpath(p, plugins) not in builds:
        builds.append(os.path.relpath(p, plugins))
print("h5py: %s" % h5py.__version__)
print("plugins bound to: HDF5 %s, %s (builds loaded: %s)" % (h5py.version.hdf5_version, ", ".join(libs) or "?",
                                                            ", ".join(sorted(b for b in builds if b.startswith("hdf5-"))) or "none"))
print("bundled libraries loaded: %s" % (", ".join(sorted(b for b in builds if b.startswith("libs/"))) or "none"))
print("self-test: Blosc filter 32001 ...... %s" % ("loads" if avail else "FAILED to load"))
print("self-test: write+read through both . %s" % ("ok" if ok else "FAILED"))
sys.stdout.flush()
"""


def _info(args):
    python = sys.executable
    if args and args[0] == "--python" and len(args) > 1:
        python = args[1]
    elif args:
        print(f"h5turbo info: unexpected argument '{args[0]}'", file=sys.stderr)
        return EXIT_USAGE
    print(f"h5turbo {h5turbo.__version__} (Python package)")
    try:
        d = h5turbo.plugin_dir()
    except FileNotFoundError as e:
        print(f"plugin folder: NOT FOUND ({e})")
        return EXIT_SETUP
    print(f"plugin folder: {d}")
    print("builds: " + ", ".join(sorted(x for x in os.listdir(d) if x.startswith("hdf5-"))))
    env = h5turbo.environ()
    env["H5TURBO_STATS"] = "1"
    r = subprocess.run([python, "-c", SELF_TEST, d], env=env, capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    stats = [l for l in r.stderr.splitlines() if l.startswith("h5turbo stats: wrappers malloc=")]
    active = any(not l.startswith("h5turbo stats: wrappers malloc=0 ") for l in stats)
    print("self-test: connector h5turbo ...... %s" % ("active" if active else "NOT active (HDF5 fell back to native)"))
    if r.returncode != 0 or not active or "FAILED" in r.stdout:
        others = [l for l in r.stderr.splitlines() if not l.startswith("h5turbo stats:")]
        if others:
            print("\n".join(others[-15:]), file=sys.stderr)
        if "No module named 'h5py'" in r.stderr:
            print(f"self-test needs h5py in {python} (pip install h5py)")
        print("self-test FAILED")
        return EXIT_SETUP
    print("self-test passed")
    return 0


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0 if args else EXIT_USAGE
    cmd, rest = args[0], args[1:]
    if rest[:1] == ["--help"]:
        print(USAGE)
        return 0
    try:
        if cmd == "run":
            return _run(rest)
        if cmd == "env":
            return _env(rest)
        if cmd == "info":
            return _info(rest)
    except ValueError as e:
        print(f"h5turbo: {e}", file=sys.stderr)
        return EXIT_USAGE
    if cmd in ("index", "bench"):
        print(f"h5turbo {cmd}: not in the pip package; use the C build's h5turbo (build/bin/h5turbo)", file=sys.stderr)
        return EXIT_USAGE
    print(f"h5turbo: unknown command '{cmd}'\n{USAGE}", file=sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
