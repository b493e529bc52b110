#!/usr/bin/env python3
"""tests/trino-e2e/policy_checks.py's checks, against a Trino whose access control is OPA (stdlib only).

The check list is policy_checks.expectations() itself (imported, unchanged): the same users,
statements and expected rows or errors. Only the wording of one refusal differs, because Trino's
OPA plugin words it differently from Trino's file-based access control for the same decision:

    file-based  Access Denied: Cannot select from table T
    OPA         Access Denied: Cannot select from columns [c, ...] in table or view T

(OpaAccessControl.checkCanSelectFromColumns calls AccessDeniedException.denySelectColumns, the
file-based one denySelectTable.) A refusal in the OPA wording counts as the expected refusal when
it is PERMISSION_DENIED and names the same table; the rows of every allowed query must be exactly
the expected ones. Every other message must be the expected one.

    opa_checks.py check --server URL [--quiet] [--known-differences FILE [--skip-known]]
                        [--stop-at-first-failure]
        last line `policy-checks: N passed, M failed` (M counts known differences too, unless
        --skip-known leaves them out; --stop-at-first-failure, for self-checks, stops at the first
        failure and prints it as `first failure: ...` before the summary)
    opa_checks.py same-refusal EXPECTED_LINE ACTUAL_LINE
        exit 0 when ACTUAL_LINE (trino_client.py's one-line answer) is EXPECTED_LINE in the OPA
        wording (for run.sh's checks)

--known-differences: a JSON list of {"name", "user", "sql", "note"}: checks known to fail because
the daemon's OPA answer differs from the file-based decision. They still run and still count as
FAIL, printed as `FAIL (known difference: NOTE)`.
"""

import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "trino-e2e"))
import policy_checks  # noqa: E402
import trino_client  # noqa: E402

_FILE_SELECT = re.compile(r"Access Denied: Cannot select from table (\S+)")
_OPA_SELECT = re.compile(r"Access Denied: Cannot select from columns \[[^\]]*\] in table or view (\S+)")


def same_refusal(expected, actual, prefix=False):
    """True when `actual` is the OPA plugin's wording of the refusal `expected` (file-based
    wording; `prefix`: expected is a prefix of the message, as in policy_checks.py)."""
    if (actual.startswith(expected) if prefix else actual == expected):
        return True
    m = _FILE_SELECT.fullmatch(expected)
    n = _OPA_SELECT.fullmatch(actual)
    return bool(m and n and m.group(1) == n.group(1))


def check(server, quiet, known, skip_known=False, stop_at_first_failure=False):
    passed = failed = reworded = 0
    for name, user, sql, expected in policy_checks.expectations():
        if skip_known and (name, user, sql) in known:
            continue
        kind, want = expected[0], expected[-1]
        r = trino_client.run_query(server, user, sql, timeout=60)
        note = None
        if kind == "rows":
            ok = r["ok"] and r["rows"] == want
            got = json.dumps(r["rows"], ensure_ascii=False) if r["ok"] else "%s %s %s" % (
                r["error_name"], r["error"], r["transport_error"] or "")
            shown = json.dumps(want, ensure_ascii=False)
            detail = shown if len(shown) <= 60 else "%d rows, exact" % len(want)
        else:
            error_name = "PERMISSION_DENIED" if kind == "denied" else expected[1]
            message = r["error"] or ""
            ok = (not r["ok"]) and r["error_name"] == error_name and (
                message.startswith(want) or (kind == "denied" and same_refusal(want, message, prefix=True)))
            if ok and not message.startswith(want):
                reworded += 1
                note = "OPA wording: " + message
            got = "%s %s" % (r["error_name"], r["error"]) if not r["ok"] else "OK " + json.dumps(r["rows"])
            detail = "denied" if kind == "denied" else error_name + ": " + want
        k = known.get((name, user, sql))
        if ok:
            passed += 1
            if not quiet:
                print("PASS policies: %s [%s] -> %s%s" % (name, user, detail, " (%s)" % note if note else ""))
        else:
            failed += 1
            if not quiet:
                print("FAIL%s policies: %s [%s] %s\n       expected %s\n       got      %s"
                      % (" (known difference: %s)" % k if k else "", name, user, sql,
                         json.dumps(want, ensure_ascii=False), got))
            if stop_at_first_failure:
                print("first failure: %s [%s] %s -> %s" % (name, user, sql, got[:200]))
                break
    if not quiet:
        print("INFO policies: %d refusals matched in the OPA plugin's wording (Cannot select from columns [...] in table or view T)"
              % reworded)
    print("policy-checks: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--server", required=True)
    c.add_argument("--quiet", action="store_true", help="print only the summary line")
    c.add_argument("--known-differences")
    c.add_argument("--skip-known", action="store_true", help="do not run the known differences")
    c.add_argument("--stop-at-first-failure", action="store_true", help="for self-checks: one failure is enough")
    s = sub.add_parser("same-refusal")
    s.add_argument("expected")
    s.add_argument("actual")
    a = ap.parse_args(argv)
    if a.cmd == "same-refusal":
        pre = "ERROR PERMISSION_DENIED: "
        ok = a.expected.startswith(pre) and a.actual.startswith(pre) and \
            same_refusal(a.expected[len(pre):], a.actual[len(pre):])
        return 0 if ok else 1
    known = {}
    if a.known_differences:
        for k in json.load(open(a.known_differences, encoding="utf-8")):
            known[(k["name"], k["user"], k["sql"])] = k["note"]
    return check(a.server, a.quiet, known, a.skip_known, a.stop_at_first_failure)


if __name__ == "__main__":
    sys.exit(main())
