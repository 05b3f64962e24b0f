"""The one reader of CTest's JUnit files, for the grader and for ./course gpu-report."""
import collections
import xml.etree.ElementTree as ET

Case = collections.namedtuple("Case", "name status seconds output")
Case.__doc__ = """One test: status passed, failed or notrun (skipped or disabled), its seconds and
what it printed."""


def read(path):
    """The cases of CTest JUnit file @p path, in its order."""
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        if case.find("failure") is not None or case.get("status") == "fail":
            status = "failed"
        elif case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            status = "notrun"
        else:
            status = "passed"
        try:
            seconds = float(case.get("time", "0") or 0)
        except ValueError:
            seconds = 0.0
        cases.append(Case(case.get("name"), status, seconds, case.findtext("system-out") or ""))
    return cases


def by_name(path):
    """{test name: Case} of @p path."""
    return {c.name: c for c in read(path)}
