#!/usr/bin/env python3
"""Access policies (masks, row filters, deny) proved with real queries on a real Trino (stdlib only).

One table, demo_warehouse.hr.employees, with known rows; a snapshot whose policies mask and filter
it; and, per user, the exact rows Trino must answer. The expectations are computed here, from the
rows and the policies as MODEL.md section 4 states them (hash = lower-case SHA-256 hex of the UTF-8
value, partial = '****' + the last N characters or '****' when the value is that short, null =
NULL, full = '****', row filters ANDed, a value the column cannot hold = no rows, deny wins) --
never from tagwarden's output.

    policy_checks.py setup-sql                 the statements creating the table (one per line)
    policy_checks.py snapshot OUT.json         the snapshot to compile (profile trino_main of examples/demo)
    policy_checks.py mutate masks|filters IN OUT   a rules document with every mask / filter removed
    policy_checks.py check --server URL [--quiet]  run the checks; last line `policy-checks: N passed, M failed`

Exit status of check: 0 when nothing failed.
"""

import argparse
import datetime as dt
import hashlib
import json
import os
import re
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trino_client  # noqa: E402

TABLE = "demo_warehouse.hr.employees"
COLUMNS = [("id", "bigint"), ("name", "varchar"), ("region", "varchar"), ("email", "varchar"),
           ("ssn", "varchar"), ("salary", "bigint"), ("birth", "date"), ("hired", "timestamp(3)"),
           ("bonus", "decimal(8,2)")]
HOSTILE_REGION = "x' OR 1=1 --"

# id, name, region, email, ssn, salary, birth, hired, bonus
ROWS = [
    (1, "Ann", "EU", "ann@example.com", "123-45-6789", 50000, dt.date(1980, 1, 15),
     dt.datetime(2019, 3, 1, 9, 0), Decimal("500.00")),
    (2, "Bob", "US", "bob@example.com", "987-65-4321", 60000, dt.date(1975, 6, 30),
     dt.datetime(2021, 7, 15, 8, 30), Decimal("1200.00")),
    (3, "Cyd", "US", "cyd@example.com", "222-33-4444", 90000, dt.date(1970, 2, 2),
     dt.datetime(2018, 1, 1, 0, 0), Decimal("2000.75")),
    (4, "Dan", "US", "dan@example.com", "333-44-5555", 95000, dt.date(1972, 5, 5),
     dt.datetime(2017, 5, 5, 12, 0), Decimal("1000.50")),
    (5, "Eli", "US", "eli@example.com", "444-55-6666", 99000, dt.date(1990, 9, 9),
     dt.datetime(2015, 1, 1, 0, 0), Decimal("10.00")),
    (6, "O'Brien", "O'Hare", "o'brien@example.com", "12", 70000, dt.date(1985, 3, 3),
     dt.datetime(2020, 2, 29, 23, 59, 59, 123000), Decimal("0.00")),
    (7, "Zoë", "EU", "zoë@例え.jp", None, 65000, None, dt.datetime(2022, 1, 1, 0, 0), Decimal("99.99")),
    (8, "Mallory", HOSTILE_REGION, "m@evil.test", "back\\slash'", 1, dt.date(2000, 1, 1),
     dt.datetime(2023, 1, 1, 0, 0), Decimal("1.00")),
    (9, "Hank", "US", "hank@example.com", "777-88-9999", 100000, dt.date(1960, 1, 1),
     dt.datetime(2021, 6, 1, 0, 0), Decimal("0.00")),
]

BONUS_FLOOR = "1000.50"     # a decimal as a string attribute
BORN_AFTER = "1988-01-01"   # a date as a string attribute
HIRED_AFTER = "2021-06-01 00:00:00"

# Users: name -> (roles, attributes). Engine user = name.
USERS = {
    "hr-admin": (["staff"], {}),
    "ann.eu": (["staff"], {"region": "EU"}),
    "mgr.us": (["staff", "manager"], {"region": "US", "bonus_floor": BONUS_FLOOR, "born_after": BORN_AFTER}),
    "d'arcy": (["staff", "contractor"], {"region": "O'Hare"}),
    "mallory.(x)+": (["staff"], {"region": HOSTILE_REGION}),
    "bad.type": (["staff"], {"region": 42}),
    "no.region": (["staff"], {}),
    "bad.date": (["staff", "manager"], {"region": "US", "bonus_floor": BONUS_FLOOR, "born_after": "1988-02-30"}),
    "bad.floor": (["staff", "manager"], {"region": "US", "bonus_floor": "1000,50", "born_after": BORN_AFTER}),
    "denied.user": (["staff"], {"region": "EU"}),
    "intern": (["staff", "intern"], {"region": "EU"}),
}

EMP = TABLE
# A DEFINER view over the table, created during setup by the bootstrap admin, who is therefore
# its owner in Trino and in the snapshot. Others read it as the owner: Trino asks the owner for
# GRANT_SELECT on the table (ViewAccessControl), which only view owners get.
VIEW = "demo_warehouse.hr.directory"
VIEW_OWNER = "tagwarden-e2e-admin"


def snapshot():
    col = lambda c: EMP + "." + c  # noqa: E731
    everyone_but_admin = {"users": ["hr-admin", VIEW_OWNER]}
    return {
        "version": 1,
        "generated_at": "2026-11-30T12:00:00Z",
        "users": [{"name": n, **({"attributes": a} if a else {})} for n, (_, a) in USERS.items()]
        + [{"name": VIEW_OWNER}],
        "roles": ["staff", "manager", "contractor", "intern"],
        "role_assignments": [{"role": r, "user": n} for n, (roles, _) in USERS.items() for r in roles],
        "classifications": [],
        "objects": [{"name": EMP, "kind": "table", "owner": "hr-admin",
                     "columns": [{"name": c, "type": t} for c, t in COLUMNS]},
                    {"name": VIEW, "kind": "view", "owner": VIEW_OWNER, "view_security": "definer",
                     "depends_on": [EMP], "columns": [{"name": "id", "type": "bigint"},
                                                      {"name": "name", "type": "varchar"}]}],
        "grants": [{"principal": {"role": "staff"}, "object": EMP, "privileges": ["SELECT"]},
                   {"principal": {"user": VIEW_OWNER}, "object": EMP, "privileges": ["SELECT"]},
                   {"principal": {"role": "staff"}, "object": VIEW, "privileges": ["SELECT"]}],
        "policies": [
            {"name": "ssn_partial", "type": "column_mask", "mask": "partial", "visible_chars": 4,
             "scope": {"column": col("ssn")}, "exempt": everyone_but_admin},
            {"name": "email_hash", "type": "column_mask", "mask": "hash",
             "scope": {"column": col("email")}, "exempt": everyone_but_admin},
            {"name": "email_full_for_contractors", "type": "column_mask", "mask": "full",
             "scope": {"column": col("email")}, "applies_to": {"roles": ["contractor"]}},
            {"name": "birth_null", "type": "column_mask", "mask": "null",
             "scope": {"column": col("birth")}, "exempt": everyone_but_admin},
            {"name": "disabled_full_mask", "enabled": False, "type": "column_mask", "mask": "full",
             "scope": {"object": EMP}},
            {"name": "own_region", "type": "row_filter", "scope": {"object": EMP},
             "condition": {"column": "region", "op": "eq", "value": {"$user": "attributes.region"}},
             "exempt": everyone_but_admin},
            {"name": "pay_band", "type": "row_filter", "scope": {"object": EMP},
             "applies_to": {"roles": ["manager"]},
             "condition": {"or": [
                 {"column": "salary", "op": "lte", "value": 60000},
                 {"column": "birth", "op": "gte", "value": {"$user": "attributes.born_after"}},
                 {"column": "hired", "op": "gte", "value": HIRED_AFTER},
                 {"column": "bonus", "op": "gt", "value": {"$user": "attributes.bonus_floor"}},
             ]}},
            {"name": "deny_one_user", "type": "deny", "scope": {"object": EMP},
             "applies_to": {"users": ["denied.user"]}},
            {"name": "no_ssn_for_interns", "type": "deny", "scope": {"column": col("ssn")},
             "applies_to": {"roles": ["intern"]}},
        ],
    }


# ---------------------------------------------------------------------------------------------
# the expectations, from the rows and the policies as MODEL.md states them


def sha256_hex(v):
    return None if v is None else hashlib.sha256(v.encode("utf-8")).hexdigest()


def partial(v, n):
    if v is None:
        return None
    return "****" if len(v) <= n else "****" + v[-n:]


def full(v):
    return "****"  # a constant: NULL too


def as_trino(row):
    """A row as Trino's REST protocol returns it."""
    out = []
    for v in row:
        if isinstance(v, dt.datetime):
            out.append(v.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (v.microsecond // 1000))
        elif isinstance(v, dt.date):
            out.append(v.isoformat())
        elif isinstance(v, Decimal):
            out.append(str(v.quantize(Decimal("0.01"))))
        else:
            out.append(v)
    return out


def strict_date(text):
    """A real calendar date in YYYY-MM-DD, else None (the filter then fails closed)."""
    try:
        if len(text) != 10:
            return None
        return dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        return None


def strict_decimal(text):
    if not isinstance(text, str) or not re.fullmatch(r"[+-]?[0-9]+(\.[0-9]+)?", text):
        return None
    return Decimal(text)


def visible_rows(user):
    """The rows `user` may see, unmasked, or [] when a filter cannot be satisfied."""
    roles, attrs = USERS[user]
    preds = []
    if user != "hr-admin":  # own_region, exempt: hr-admin
        region = attrs.get("region")
        if not isinstance(region, str):
            return []  # missing, or not a string for a varchar column
        preds.append(lambda r, region=region: r[2] == region)
    if "manager" in roles:  # pay_band
        born_after = strict_date(attrs.get("born_after"))
        floor = strict_decimal(attrs.get("bonus_floor"))
        if born_after is None or floor is None:
            return []
        hired_after = dt.datetime(2021, 6, 1)
        preds.append(lambda r: (r[5] is not None and r[5] <= 60000)
                     or (r[6] is not None and r[6] >= born_after)
                     or (r[7] is not None and r[7] >= hired_after)
                     or (r[8] is not None and r[8] > floor))
    return [r for r in ROWS if all(p(r) for p in preds)]


def masked(user, row):
    roles, _ = USERS[user]
    r = list(row)
    if user == "hr-admin":
        return r
    r[4] = partial(r[4], 4)
    r[3] = full(r[3]) if "contractor" in roles else sha256_hex(r[3])  # full beats hash
    r[6] = None
    return r


ALL = "SELECT " + ", ".join(c for c, _ in COLUMNS) + " FROM " + TABLE + " ORDER BY id"


def expectations():
    """[(name, user, sql, ("rows", rows) | ("denied", message))]"""
    out = []
    for user in USERS:
        if user == "denied.user":
            out.append(("deny policy on the table", user, ALL,
                        ("denied", "Access Denied: Cannot select from table " + TABLE)))
            out.append(("deny policy on the table", user, "SELECT count(*) FROM " + TABLE,
                        ("denied", "Access Denied: Cannot select from table " + TABLE)))
            continue
        if user == "intern":
            out.append(("column deny", user, "SELECT ssn FROM " + TABLE,
                        ("denied", "Access Denied: Cannot select from table " + TABLE)))
            rows = [[r[0], r[2], masked(user, r)[3]] for r in visible_rows(user)]
            out.append(("column deny keeps the other columns", user,
                        "SELECT id, region, email FROM " + TABLE + " ORDER BY id", ("rows", rows)))
            continue
        rows = [as_trino(masked(user, r)) for r in visible_rows(user)]
        out.append(("masks and filters", user, ALL, ("rows", rows)))
        out.append(("row count", user, "SELECT count(*) FROM " + TABLE, ("rows", [[len(rows)]])))
    # The filter is applied before the masks: a predicate on a masked column sees masked values.
    out.append(("a query predicate sees the masked value", "ann.eu",
                "SELECT id FROM " + TABLE + " WHERE email = '" + sha256_hex("ann@example.com") + "'",
                ("rows", [[1]])))
    out.append(("a query predicate cannot probe the raw value", "ann.eu",
                "SELECT count(*) FROM " + TABLE + " WHERE ssn = '123-45-6789'", ("rows", [[0]])))
    # The view is read as its owner (GRANT_SELECT on the table): hr-admin, whom no policy on the
    # table reaches, reads every row through it though only the owner holds a grant on the table.
    out.append(("a DEFINER view is read as its owner", "hr-admin",
                "SELECT id, name FROM " + VIEW + " ORDER BY id", ("rows", [[r[0], r[1]] for r in ROWS])))
    # A policy on the table reaches the view over it (no column lineage): own_region filters by
    # `region`, which the view lacks, so no rows; the intern's column deny hides the whole view.
    out.append(("a row filter on the base reaches the view", "ann.eu",
                "SELECT count(*) FROM " + VIEW, ("rows", [[0]])))
    out.append(("a column deny on the base hides the view", "intern",
                "SELECT count(*) FROM " + VIEW, ("denied", "Access Denied: Cannot select from")))
    out.append(("a query cannot widen the filter", "ann.eu",
                "SELECT count(*) FROM " + TABLE + " WHERE region <> 'EU' OR 1 = 1", ("rows", [[2]])))
    return out


# ---------------------------------------------------------------------------------------------
# commands


def sql_string(v):
    return "'" + v.replace("'", "''") + "'"


def sql_value(v):
    if v is None:
        return "NULL"
    if isinstance(v, dt.datetime):
        return "TIMESTAMP " + sql_string(as_trino([v])[0])
    if isinstance(v, dt.date):
        return "DATE " + sql_string(v.isoformat())
    if isinstance(v, Decimal):
        return "DECIMAL " + sql_string(str(v))
    if isinstance(v, int):
        return str(v)
    return sql_string(v)


def setup_sql():
    cols = ", ".join("%s %s" % c for c in COLUMNS)
    values = ", ".join("(" + ", ".join(sql_value(v) for v in r) + ")" for r in ROWS)
    return ["CREATE SCHEMA demo_warehouse.hr",
            "CREATE TABLE %s (%s)" % (TABLE, cols),
            "INSERT INTO %s VALUES %s" % (TABLE, values),
            "CREATE VIEW %s SECURITY DEFINER AS SELECT id, name FROM %s" % (VIEW, TABLE)]


def mutate(what, src, dst):
    doc = json.load(open(src, encoding="utf-8"))
    removed = 0
    for rule in doc.get("tables", []):
        if what == "grant_select":
            if "GRANT_SELECT" in rule.get("privileges", []):
                removed += 1
                rule["privileges"] = [p for p in rule["privileges"] if p != "GRANT_SELECT"]
        elif what == "masks":
            kept = []
            for c in rule.get("columns", []):
                if "mask" in c:
                    removed += 1
                    c = {k: v for k, v in c.items() if k != "mask"}
                    if set(c) == {"name"}:
                        continue
                kept.append(c)
            if "columns" in rule:
                if kept:
                    rule["columns"] = kept
                else:
                    del rule["columns"]
        elif "filter" in rule:
            removed += 1
            del rule["filter"]
    if not removed:
        sys.exit("mutate: no %s in %s" % (what, src))
    tmp = dst + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(tmp, dst)
    print("removed %d %s" % (removed, what))


def check(server, quiet):
    passed = failed = 0
    for name, user, sql, (kind, want) in expectations():
        r = trino_client.run_query(server, user, sql, timeout=60)
        if kind == "rows":
            ok = r["ok"] and r["rows"] == want
            got = json.dumps(r["rows"], ensure_ascii=False) if r["ok"] else "%s %s %s" % (
                r["error_name"], r["error"], r["transport_error"] or "")
            shown = json.dumps(want, ensure_ascii=False)
            detail = shown if len(shown) <= 60 else "%d rows, exact" % len(want)
        else:
            ok = (not r["ok"]) and r["error_name"] == "PERMISSION_DENIED" and (r["error"] or "").startswith(want)
            got = "%s %s" % (r["error_name"], r["error"]) if not r["ok"] else "OK " + json.dumps(r["rows"])
            detail = "denied"
        if ok:
            passed += 1
            if not quiet:
                print("PASS policies: %s [%s] -> %s" % (name, user, detail))
        else:
            failed += 1
            if not quiet:
                print("FAIL policies: %s [%s] %s\n       expected %s\n       got      %s"
                      % (name, user, sql, json.dumps(want, ensure_ascii=False), got))
    print("policy-checks: %d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("setup-sql")
    s = sub.add_parser("snapshot")
    s.add_argument("out")
    m = sub.add_parser("mutate")
    m.add_argument("what", choices=["masks", "filters", "grant_select"])
    m.add_argument("src")
    m.add_argument("dst")
    c = sub.add_parser("check")
    c.add_argument("--server", required=True)
    c.add_argument("--quiet", action="store_true", help="print only the summary line")
    a = ap.parse_args(argv)
    if a.cmd == "setup-sql":
        print("\n".join(setup_sql()))
    elif a.cmd == "snapshot":
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(snapshot(), f, ensure_ascii=False, indent=1)
    elif a.cmd == "mutate":
        mutate(a.what, a.src, a.dst)
    else:
        return check(a.server, a.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
