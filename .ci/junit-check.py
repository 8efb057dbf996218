# Reads a JUnit XML file with a real JUnit consumer (junitparser) and checks its
# counts against the fbeval JSON report it was rendered from: tests = rows,
# errors = rows with a provider error or no response, failures = the other rows
# that did not finally succeed. Usage: junit-check.py REPORT.json JUNIT.xml
import json, sys
from junitparser import JUnitXml, Failure, Error
report = json.load(open(sys.argv[1]))
xml = JUnitXml.fromfile(sys.argv[2])
tests = failures = errors = 0
for suite in xml:
    for case in suite:
        tests += 1
        kinds = [type(r) for r in case.result]
        if Error in kinds:
            errors += 1
        elif Failure in kinds:
            failures += 1
rows = report["rows"]
want_errors = sum(1 for r in rows if r["provider_error"] or r["missing"])
want_failures = sum(1 for r in rows if not r["final_success"] and not (r["provider_error"] or r["missing"]))
got = (tests, failures, errors)
want = (len(rows), want_failures, want_errors)
print(f"junit: {tests} tests, {failures} failures, {errors} errors; report: {want[0]} rows, {want[1]} failed, {want[2]} errors")
sys.exit(0 if got == want else 1)
