#!/usr/bin/env python3
# compare.py — per-test comparison of a client's suite run natively and under h5turbo, from the
# outcome files that tb_outcomes.py writes. `rerun` lists the test ids to run again (those that did
# not pass in either run); `final` judges, with the reruns, and fails on any h5turbo-only failure;
# `junit` turns CTest's JUnit report (HDF5's tools tests) into the same outcome file.
import argparse
import sys

GOOD = ("passed", "skipped", "xfailed", "xpassed")
SHOWN = ("passed", "failed", "error", "timeout", "skipped", "xfailed", "xpassed", "crashed", "notrun")


def load(path):
    """Outcome per node id (the last line for a test wins), plus the run's rootdir."""
    outcome, rootdir = {}, None
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except FileNotFoundError:
        return outcome, rootdir
    for line in lines:
        kind, _, nid = line.partition("\t")
        if kind == "rootdir":
            rootdir = rootdir or nid
        elif kind == "collected":
            outcome.setdefault(nid, "notrun")
        elif kind == "deselected":
            outcome.pop(nid, None)
        elif kind == "running":
            # Replaced by the test's outcome unless the process died inside it.
            outcome[nid] = "crashed"
        else:
            outcome[nid] = kind
    return outcome, rootdir


def counts(outcome):
    c = {k: 0 for k in SHOWN}
    for v in outcome.values():
        c[v] = c.get(v, 0) + 1
    return " ".join(f"{k}={c[k]}" for k in SHOWN if c[k] or k in ("passed", "failed", "skipped"))


def not_passing(outcome, other):
    """Ids that did not pass here while they did not merely skip in both runs."""
    bad = set()
    for nid, v in outcome.items():
        if v == "passed":
            continue
        if v in ("skipped", "xfailed", "xpassed") and other.get(nid) in ("skipped", "xfailed", "xpassed", None):
            continue
        bad.add(nid)
    return bad


def cmd_rerun(args):
    native, nroot = load(args.native)
    turbo, _ = load(args.turbo)
    ids = sorted(not_passing(native, turbo) | not_passing(turbo, native))
    if len(ids) > args.max:
        print(f"{len(ids)} tests did not pass in one of the runs: more than {args.max}, no reruns", file=sys.stderr)
        return 0
    root = nroot or "."
    for nid in ids:
        # A node id is relative to the rootdir; a rerun started elsewhere needs the full path.
        print(nid if args.bare or nid.startswith("/") else f"{root}/{nid}")
    return 0


def cmd_junit(args):
    import xml.etree.ElementTree as ET
    with open(args.out, "w", encoding="utf-8") as out:
        for case in ET.parse(args.xml).getroot().iter("testcase"):
            status = case.get("status", "run")
            if status in ("notrun", "disabled"):
                kind = "skipped"
            elif case.find("failure") is not None or case.find("error") is not None or status == "fail":
                kind = "failed"
            else:
                kind = "passed"
            out.write(f"{kind}\t{case.get('name')}\n")
    return 0


def cmd_final(args):
    native, nroot = load(args.native)
    turbo, troot = load(args.turbo)
    if not native:
        print("FAIL: the native run recorded no test", file=sys.stderr)
        return 1
    nre, _ = load(args.native_rerun) if args.native_rerun else ({}, None)
    tre, _ = load(args.turbo_rerun) if args.turbo_rerun else ({}, None)
    pre, _ = load(args.pass_through_rerun) if args.pass_through_rerun else ({}, None)
    expected = {}
    if args.expected:
        for line in open(args.expected, encoding="utf-8"):
            if line.strip() and not line.startswith("#"):
                nid, _, why = line.rstrip("\n").partition("\t")
                expected[nid] = why

    def rerun_key(root, rr, nid):
        # Reruns were started with full paths; map them back to the first run's ids.
        full = nid if nid.startswith("/") else f"{root}/{nid}"
        for key in (nid, full):
            if key in rr:
                return rr[key]
        # pytest may shorten an id given by full path back to the rootdir-relative form.
        for k, v in rr.items():
            if k.endswith("/" + nid) or k == nid:
                return v
        return None

    h5turbo_only, flaky_turbo, flaky_native, both_fail, notes, known = [], [], [], [], [], []
    for nid in sorted(set(native) | set(turbo)):
        n1 = native.get(nid, "notrun")
        t1 = turbo.get(nid, "notrun")
        n2 = rerun_key(nroot, nre, nid)
        t2 = rerun_key(troot, tre, nid)
        native_passes = n1 == "passed" or n2 == "passed"
        if n1 != "passed" and n1 not in ("skipped", "xfailed", "xpassed"):
            if n2 == "passed":
                flaky_native.append(f"{nid}: native {n1}, then passed on rerun")
            elif n2 is not None:
                notes.append(f"{nid}: native {n1}, rerun {n2}")
        if t1 == "passed":
            continue
        if t1 in ("skipped", "xfailed", "xpassed") and not native_passes:
            continue
        if t2 == "passed":
            flaky_turbo.append(f"{nid}: h5turbo {t1}, then passed on rerun (native {n1}{'/' + n2 if n2 else ''})")
            continue
        if native_passes and nid in expected:
            known.append(f"{nid}: native {n1}{'/' + n2 if n2 else ''}, h5turbo {t1}{'/' + t2 if t2 else ''}: {expected[nid]}")
        elif native_passes and pre.get(nid) not in (None, "passed"):
            # HDF5's own pass-through connector fails it the same way: HDF5 refuses it to any
            # connector but native (reported, not counted against h5turbo).
            known.append(f"{nid}: native {n1}{'/' + n2 if n2 else ''}, h5turbo {t1}{'/' + t2 if t2 else ''}, "
                         f"HDF5's pass_through connector {pre[nid]} too")
        elif native_passes:
            h5turbo_only.append(f"{nid}: native {n1}{'/' + n2 if n2 else ''}, h5turbo {t1}{'/' + t2 if t2 else ''}")
        else:
            both_fail.append(f"{nid}: native {n1}{'/' + n2 if n2 else ''}, h5turbo {t1}{'/' + t2 if t2 else ''}")

    lines = [f"native:  {counts(native)}", f"h5turbo: {counts(turbo)}"]
    if nre or tre:
        lines.append(f"reruns: {len(nre)} native, {len(tre)} under h5turbo")
    for title, items in (("failing natively too (same failure, rerun)", both_fail),
                         ("native flaky (failed, passed on rerun)", flaky_native),
                         ("native rerun", notes),
                         ("FLAKY under h5turbo (failed once, passed on rerun)", flaky_turbo),
                         ("failing under any non-native connector (not h5turbo's doing)", known),
                         ("FAILING ONLY UNDER h5turbo", h5turbo_only)):
        if items:
            lines.append(f"{title}: {len(items)}")
            lines.extend("  " + s for s in items)
    text = "\n".join(lines)
    print(text)
    if args.report:
        with open(args.report, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    return 1 if h5turbo_only else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rerun")
    r.add_argument("native")
    r.add_argument("turbo")
    r.add_argument("--max", type=int, default=60)
    r.add_argument("--bare", action="store_true", help="ids as recorded, not as paths")
    j = sub.add_parser("junit")
    j.add_argument("xml")
    j.add_argument("out")
    f = sub.add_parser("final")
    f.add_argument("native")
    f.add_argument("turbo")
    f.add_argument("--native-rerun")
    f.add_argument("--turbo-rerun")
    f.add_argument("--pass-through-rerun", help="outcomes of the reruns under HDF5's pass_through")
    f.add_argument("--expected", help="ids that cannot pass under a plugin connector, TAB, why")
    f.add_argument("--report")
    args = ap.parse_args()
    return {"rerun": cmd_rerun, "final": cmd_final, "junit": cmd_junit}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
