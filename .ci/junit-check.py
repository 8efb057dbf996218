# Reads a JUnit XML file with a real JUnit consumer (junitparser) and checks it
# against the fbeval JSON report it was rendered from. A toolcall report: tests =
# rows and gates, errors = rows with a provider error or no response, failures =
# the other rows that did not finally succeed and the gates that failed. A CogLang result: tests = its cases (its
# failure cases when it lists only those), errors = cases whose only failure
# category is provider_error, failures = the other cases with a category. Each
# suite's own tests, failures and errors attributes must count its test cases.
# Usage: junit-check.py REPORT.json JUNIT.xml
import json, sys
from junitparser import JUnitXml, Failure, Error
report = json.load(open(sys.argv[1]))
xml = JUnitXml.fromfile(sys.argv[2])
tests = failures = errors = 0
ok = True
for suite in xml:
    s_tests = s_failures = s_errors = 0
    for case in suite:
        s_tests += 1
        kinds = [type(r) for r in case.result]
        if Error in kinds:
            s_errors += 1
        elif Failure in kinds:
            s_failures += 1
    if (suite.tests, suite.failures, suite.errors) != (s_tests, s_failures, s_errors):
        print(f"junit: suite {suite.name} says {suite.tests} tests, {suite.failures} failures, {suite.errors} errors; holds {s_tests}, {s_failures}, {s_errors}")
        ok = False
    tests, failures, errors = tests + s_tests, failures + s_failures, errors + s_errors
if "rows" in report:
    rows = report["rows"]
    want_errors = sum(1 for r in rows if r["provider_error"] or r["missing"])
    want_failures = sum(1 for r in rows if not r["final_success"] and not (r["provider_error"] or r["missing"]))
    gates = report.get("gates") or []
    # one test case a gate, a failed gate a failure
    want = (len(rows) + len(gates), want_failures + sum(1 for g in gates if not g["passed"]), want_errors)
    noun = "rows and gates"
else:
    cases = report.get("cases") or []
    listed = cases if len(cases) == report["case_count"] else report["failure_cases"]
    cats = [c["failure_categories"] for c in listed]
    want_errors = sum(1 for c in cats if c == ["provider_error"])
    want_failures = sum(1 for c in cats if c and c != ["provider_error"])
    want = (len(listed), want_failures, want_errors)
    noun = "cases"
got = (tests, failures, errors)
print(f"junit: {tests} tests, {failures} failures, {errors} errors; report: {want[0]} {noun}, {want[1]} failed, {want[2]} errors")
sys.exit(0 if ok and got == want else 1)
