# tb_hypothesis.py — a pytest plugin (loaded with `-p tb_hypothesis`) that caps every hypothesis
# test at $TB_HYPOTHESIS_MAX_EXAMPLES examples and derandomizes it, so that a suite asking for
# 10,000 examples a test fits in CI, and the native and h5turbo runs draw the same examples.
import os

_cap = int(os.environ.get("TB_HYPOTHESIS_MAX_EXAMPLES", "0") or 0)


def pytest_collection_modifyitems(session, config, items):
    if _cap <= 0:
        return
    import hypothesis

    for item in items:
        fn = getattr(item, "obj", None)
        fn = getattr(fn, "__func__", fn)  # a method's function carries the settings
        # @given's wrapper keeps its settings here and reads them when the test runs.
        current = getattr(fn, "_hypothesis_internal_use_settings", None)
        if current is None:
            continue
        fn._hypothesis_internal_use_settings = hypothesis.settings(
            current, max_examples=min(current.max_examples, _cap), derandomize=True, database=None)
