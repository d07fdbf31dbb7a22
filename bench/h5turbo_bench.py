"""h5turbo_bench.py — the benchmark suite behind `h5turbo bench`: runs each workload stock and with
h5turbo in the same run, interleaving repetitions, and reports min/median/max and ratios; writes
results.json and PNG plots (throughput vs threads; load time vs experiments). Suites are the
programs in bench/*/ built by CMake; each prints its own timing on stdout."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


class Progress:
    """A one-line progress bar on a terminal; silent otherwise."""

    def __init__(self, total):
        self.total, self.done, self.tty = max(total, 1), 0, sys.stderr.isatty()

    def step(self, label):
        self.done += 1
        if self.tty:
            width = 30
            fill = int(width * self.done / self.total)
            sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} {label[:40]:<40}")
            sys.stderr.flush()

    def finish(self):
        if self.tty:
            sys.stderr.write("\n")


def env_for(mode, build, extra=None):
    """The environment of one run: stock (no plugins at all) or h5turbo with a connector string."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HDF5_VOL_CONNECTOR", "HDF5_PLUGIN_PATH", "H5TURBO_"))}
    hdf5 = env.get("HDF5_DIR", os.path.expanduser("~/.cache/h5turbo/deps/hdf5-1.14.5"))
    env["LD_LIBRARY_PATH"] = os.path.join(hdf5, "lib") + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    if mode != "stock":
        env["HDF5_PLUGIN_PATH"] = os.path.join(build, "plugins")
        env["HDF5_VOL_CONNECTOR"] = mode
    if extra:
        env.update(extra)
    return env


def first_number(out):
    """The default parser: the first token of the program's output, in seconds."""
    return float(out.split()[0])


def run_value(cmd, env, parse):
    """Runs cmd and parses the value it reports (seconds by default; the wall time if it prints
    nothing parsable)."""
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t0
    try:
        return parse(out)
    except (ValueError, IndexError, KeyError):
        return wall


def summarize(times):
    return {"times": times, "min": min(times), "median": statistics.median(times), "max": max(times)}


class Suite:
    """A named set of cases; each case has modes (stock first) whose runs are interleaved."""

    def __init__(self, name, title):
        self.name, self.title, self.cases = name, title, []

    def add(self, case, modes, prepare=None, params=None, parse=first_number, unit="s", higher_better=False):
        """modes: list of (label, cmd, env), the stock/baseline first. parse maps a run's stdout
        to its value in `unit`; higher_better says whether that value is a speed or a time."""
        self.cases.append({"case": case, "modes": modes, "prepare": prepare, "params": params or {},
                           "parse": parse, "unit": unit, "higher_better": higher_better})


def run_suite(suite, reps, progress):
    results = []
    for c in suite.cases:
        if c["prepare"]:
            c["prepare"]()
        times = {label: [] for label, _, _ in c["modes"]}
        for _ in range(reps):
            for label, cmd, env in c["modes"]:
                times[label].append(run_value(cmd, env, c["parse"]))
                progress.step(f"{suite.name}: {c['case']} {label}")
        base_t = times[c["modes"][0][0]]
        for label, _, _ in c["modes"]:
            t = times[label]
            s = summarize(t)
            # speedup > 1: faster than the baseline; min/max pair the extreme repetitions.
            if c["higher_better"]:
                sp = (s["median"] / statistics.median(base_t), s["min"] / max(base_t), s["max"] / min(base_t))
            else:
                sp = (statistics.median(base_t) / s["median"], min(base_t) / s["max"], max(base_t) / s["min"])
            s["speedup_median"], s["speedup_min"], s["speedup_max"] = sp
            s["unit"] = c["unit"]
            results.append({"suite": suite.name, "case": c["case"], "mode": label, **c["params"], **s})
    return results


def overhead_suite(build, tmp, quick):
    """Per-call overhead of the pass-through (issue: VOL pass-through)."""
    s = Suite("overhead", "pass-through per-call overhead, get-info + open + close per object")
    exe = os.path.join(build, "bench", "overhead", "tb_meta_bench")
    ngroups, per = ("100", "99") if quick else ("1000", "99")
    path = os.path.join(tmp, "meta.h5")

    def prepare():
        subprocess.run([exe, "gen", path, ngroups, per], env=env_for("stock", build), check=True)

    args = [exe, "walk", path, ngroups, per]
    s.add(f"{int(ngroups) * (int(per) + 1)} objects", [
        ("stock", args, env_for("stock", build)),
        ("h5turbo index=off", args, env_for("h5turbo index=off", build)),
        ("h5turbo", args, env_for("h5turbo", build)),
    ], prepare)
    return s


SUITES = {"overhead": overhead_suite}


def discover_extra_suites(build):
    """Suites contributed by bench/<part>/suite.py files (pipeline, blosc, index)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for d in sorted(os.listdir(here)):
        f = os.path.join(here, d, "suite.py")
        if os.path.isfile(f):
            ns = {"Suite": Suite, "env_for": env_for, "os": os, "subprocess": subprocess, "time": time}
            exec(compile(open(f).read(), f, "exec"), ns)
            if "make_suite" in ns:
                SUITES[d] = ns["make_suite"]


def print_table(results):
    print("| suite | case | mode | unit | min | median | max | speedup vs first mode (median [min..max]) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        sp = r["speedup_median"]
        rng = f"{sp:.2f}x [{r['speedup_min']:.2f}..{r['speedup_max']:.2f}]" if sp else "-"
        print(f"| {r['suite']} | {r['case']} | {r['mode']} | {r['unit']} | {r['min']:.4g} | {r['median']:.4g} | {r['max']:.4g} | {rng} |")


def plot(results, out):
    """PNG plots: one per suite with a 'threads' or 'experiments' parameter, else a bar chart."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    pngs = []
    by_suite = {}
    for r in results:
        by_suite.setdefault(r["suite"], []).append(r)
    for suite, rs in by_suite.items():
        fig, ax = plt.subplots(figsize=(7, 4.2))
        xkey = "threads" if any("threads" in r for r in rs) else ("experiments" if any("experiments" in r for r in rs) else None)
        if xkey:
            series = {}
            for r in rs:
                if xkey in r:
                    series.setdefault((r["case"].split(" @")[0], r["mode"]), []).append((r[xkey], r))
            # One colour per mode, one line style and marker per case, so that many series stay
            # readable (stock vs h5turbo is the comparison that matters).
            modes = sorted({m for _, m in series})
            cases = sorted({c for c, _ in series})
            styles = ["-", "--", ":", "-."]
            markers = ["o", "s", "^", "D", "v"]
            for (case, mode), pts in sorted(series.items()):
                pts.sort(key=lambda p: p[0])
                ci = cases.index(case)
                style = dict(color=f"C{modes.index(mode) % 10}", linestyle=styles[ci % len(styles)],
                             marker=markers[ci % len(markers)])
                if xkey == "threads" and all("mbytes" in p[1] for p in pts) and pts[0][1]["unit"] == "s":
                    ys = [p[1]["mbytes"] / p[1]["median"] for p in pts]
                    ax.set_ylabel("MB/s (median)")
                else:
                    ys = [p[1]["median"] for p in pts]
                    ax.set_ylabel(f"{pts[0][1]['unit']} (median)")
                ax.plot([p[0] for p in pts], ys, label=f"{case}: {mode}", **style)
            ax.set_xlabel(xkey)
            ax.legend(fontsize=7)
        else:
            # Grouped bars: one group per case, one colour per mode (stock first).
            cases = list(dict.fromkeys(r["case"] for r in rs))
            modes = list(dict.fromkeys(r["mode"] for r in rs))
            width = 0.8 / len(modes)
            for k, m in enumerate(modes):
                pts = [(cases.index(r["case"]), r) for r in rs if r["mode"] == m]
                ax.bar([i + k * width for i, _ in pts], [r["median"] for _, r in pts], width, label=m,
                       yerr=[[r["median"] - r["min"] for _, r in pts], [r["max"] - r["median"] for _, r in pts]])
            ax.set_xticks([i + 0.4 - width / 2 for i in range(len(cases))])
            ax.set_xticklabels(cases, fontsize=7, rotation=20, ha="right")
            ax.legend(fontsize=7)
            ax.set_ylabel(f"{rs[0]['unit']} (median, min..max)")
        ax.set_title(f"h5turbo bench: {suite}")
        fig.tight_layout()
        p = os.path.join(out, f"{suite}.png")
        fig.savefig(p, dpi=110)
        plt.close(fig)
        pngs.append(p)
    return pngs


def main():
    ap = argparse.ArgumentParser(prog="h5turbo bench", description=__doc__)
    ap.add_argument("--build", required=True, help="build folder (holds plugins/ and bench/)")
    ap.add_argument("--quick", action="store_true", help="small data, 3 repetitions")
    ap.add_argument("--out", default="bench-results", help="folder for results.json and PNGs")
    ap.add_argument("--reps", type=int, default=None)
    ap.add_argument("--only", default=None, help="comma-separated suite names")
    ap.add_argument("--from-json", default=None, help="print and plot results already measured (scripts/demo)")
    a = ap.parse_args()
    if a.from_json:
        os.makedirs(a.out, exist_ok=True)
        results = json.load(open(a.from_json))["results"]
        print_table(results)
        print(f"\nplots: {', '.join(plot(results, a.out))}")
        return
    build = os.path.abspath(a.build)
    reps = a.reps or (3 if a.quick else 5)
    os.makedirs(a.out, exist_ok=True)
    discover_extra_suites(build)
    names = a.only.split(",") if a.only else list(SUITES)
    unknown = [n for n in names if n not in SUITES]
    if unknown:
        sys.exit(f"h5turbo bench: unknown suite(s) {', '.join(unknown)}; have {', '.join(SUITES)}")
    with tempfile.TemporaryDirectory() as tmp:
        # Sidecars of the benchmarks' temporary files go to a cache of this run (every run's
        # environment is a copy of ours, env_for), never the user's: their files are gone after.
        os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "sidecar-cache")
        os.mkdir(os.environ["XDG_CACHE_HOME"], 0o700)
        suites = [SUITES[n](build, tmp, a.quick) for n in names]
        progress = Progress(sum(len(c["modes"]) * reps for s in suites for c in s.cases))
        results = []
        for s in suites:
            results += run_suite(s, reps, progress)
        progress.finish()
    meta = {"reps": reps, "quick": a.quick, "cpus": len(os.sched_getaffinity(0)), "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    print_table(results)
    pngs = plot(results, a.out)
    print(f"\nresults: {os.path.join(a.out, 'results.json')}; plots: {', '.join(pngs)}")


if __name__ == "__main__":
    main()
