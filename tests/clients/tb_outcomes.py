# tb_outcomes.py — a pytest plugin (loaded with `-p tb_outcomes`) for the clients suites: appends
# one line per test and phase to $TB_OUTCOMES ("OUTCOME<TAB>node id"), flushed at once, so that
# two runs can be compared test by test and a run that crashes still says where it stopped.
import os

_path = os.environ.get("TB_OUTCOMES")
_fh = None
_outcome = {}


def _write(kind, nodeid):
    if _fh is not None:
        _fh.write(f"{kind}\t{nodeid}\n")
        _fh.flush()


def pytest_configure(config):
    global _fh
    if _path:
        _fh = open(_path, "a", encoding="utf-8")
        # Node ids are relative to the rootdir: the rerun turns them back into paths with this.
        _write("rootdir", str(config.rootpath))


def pytest_collection_modifyitems(session, config, items):
    # Every collected test, so that a test that never ran (the run died first) is seen as such.
    for item in items:
        _write("collected", item.nodeid)


def pytest_deselected(items):
    # Left out on purpose (-m, --deselect): not tests of this run, whatever hook order collected them.
    for item in items:
        _write("deselected", item.nodeid)


def pytest_runtest_logstart(nodeid, location):
    # Still "running" at the end of the file: the process died inside this test.
    _write("running", nodeid)


def _timed_out(report):
    text = getattr(report, "longreprtext", "") or ""
    return "Timeout (>" in text or "Timeout >" in text


def pytest_runtest_logreport(report):
    nid = report.nodeid
    prev = _outcome.get(nid)
    xfail = hasattr(report, "wasxfail")
    if report.when == "setup":
        if report.failed:
            kind = "timeout" if _timed_out(report) else "error"
        elif report.skipped:
            kind = "xfailed" if xfail else "skipped"
        else:
            return
    elif report.when == "call":
        if report.failed:
            kind = "timeout" if _timed_out(report) else "failed"
        elif report.skipped:
            kind = "xfailed" if xfail else "skipped"
        else:
            kind = "xpassed" if xfail else "passed"
    else:
        # An error in teardown spoils a test that had passed; an earlier failure stays the reason.
        if not report.failed or prev in ("failed", "error", "timeout"):
            if prev is not None:
                _write(prev, nid)
            return
        kind = "timeout" if _timed_out(report) else "error"
    _outcome[nid] = kind
    # A pass is final only after teardown, which writes it (above); anything else is written now.
    if kind != "passed":
        _write(kind, nid)


def pytest_unconfigure(config):
    if _fh is not None:
        _fh.close()
