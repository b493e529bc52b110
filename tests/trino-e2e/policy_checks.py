#!/usr/bin/env python3
"""Access policies (masks, row filters, deny) and clearances proved with real queries on a real Trino
(stdlib only).

Tables with known rows (demo_warehouse.hr.employees, payroll, badges, odd_names), views over them
(DEFINER and INVOKER), an empty schema for creation; a snapshot whose policies mask, filter and
deny them and whose clearance gates a column; and, per user, the exact rows or error Trino must
answer (listings, SELECT *, writes and creation included). The expectations are computed here, from the
rows and the policies as MODEL.md section 4 states them (hash = lower-case SHA-256 hex of the UTF-8
value, partial = '****' + the last N characters or '****' when the value is that short, null =
NULL, full = '****', row filters ANDed, a value the column cannot hold = no rows, deny wins) --
never from tagwarden's output.

    policy_checks.py setup-sql                 the statements creating the table (one per line)
    policy_checks.py snapshot OUT.json         the snapshot to compile (profile trino_main of examples/demo)
    policy_checks.py mutate masks|filters|grant_select IN OUT   a rules document with every mask /
                                               filter / GRANT_SELECT removed
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
    # Expiry (seed 003): at generated_at the first no longer holds staff, the second still does.
    "expired.staff": (["staff"], {"region": "EU"}),
    "expiring.staff": (["staff"], {"region": "EU"}),
    # $user.name with a quote in it, and a list attribute, in the probe_ops filter (exempt from
    # own_region so that every operator of probe_ops has rows to remove).
    "O'Brien": (["staff", "probe"], {"region": "O'Hare", "regions": ["O'Hare", "EU", HOSTILE_REGION]}),
}
# when a role assignment expires (others never do); generated_at is 2026-11-30T12:00:00Z
EXPIRES = {("expired.staff", "staff"): "2026-11-30T12:00:00Z", ("expiring.staff", "staff"): "2026-11-30T12:00:01Z"}

EMP = TABLE
# A DEFINER view over the table, created during setup by the bootstrap admin, who is therefore
# its owner in Trino and in the snapshot. Others read it as the owner: Trino asks the owner for
# GRANT_SELECT on the table (ViewAccessControl), which only view owners get.
VIEW = "demo_warehouse.hr.directory"
VIEW_OWNER = "tagwarden-e2e-admin"
# The same view as INVOKER: Trino reads the table as the reader, with the reader's grants.
VIEW_INVOKER = "demo_warehouse.hr.directory_invoker"

# A clearance on a column (seed 003) with writers, and DEFINER views whose owner is not cleared.
PAY = "demo_warehouse.hr.payroll"
PAY_COLUMNS = [("id", "bigint"), ("name", "varchar"), ("amount", "bigint")]
PAY_ROWS = [(1, "Ann", 5000), (2, "Bob", 6000)]
PAY_NAMES = "demo_warehouse.hr.payroll_names"      # reads no gated column
PAY_AMOUNTS = "demo_warehouse.hr.payroll_amounts"  # reads the gated column

# Masks on non-string and bounded columns, and the strictest of several (MODEL.md section 4).
BADGES = "demo_warehouse.hr.badges"
BADGE_COLUMNS = [("id", "bigint"), ("badge", "varchar(6)"), ("code", "varchar(5)"),
                 ("started", "timestamp(3)"), ("bonus", "decimal(8,2)"), ("level", "bigint"),
                 ("active", "boolean"), ("note", "varchar")]
BADGE_ROWS = [
    (1, "B-0001", "ABCDE", dt.datetime(2020, 1, 1, 8, 0), Decimal("12.50"), 3, True, "hello"),
    (2, None, "XY", None, None, None, None, None),
    (3, "Ω-ü", "AB", dt.datetime(2021, 5, 6, 7, 8, 9, 10000), Decimal("0.00"), 0, False, "xyz"),
]
BADGE_VIEW = "demo_warehouse.hr.badge_view"  # DEFINER, SELECT id, note: every base mask reaches it

# Column names that must be quoted (a keyword, a space, a double quote, upper case, a single quote)
# in masks and filters, with values holding quotes: Trino parses the expressions, so only a real
# server shows a quoting mistake (the oracle never parses them).
ODD = "demo_warehouse.hr.odd_names"
ODD_COLUMNS = [("select", "varchar"), ("a b", "varchar"), ('we"ird', "varchar"), ("Mixed", "varchar"),
               ("x'y", "varchar")]
ODD_ROWS = [("v'1", "v 2", 'v"3', "V4", "x'y"), ("zz", "zz", "zz", "zz", "zz")]

# A row filter on a table its users may write: Trino's TRUNCATE TABLE needs only DELETE and ignores
# row filters, so tagwarden withholds DELETE from them (docs/semantics.md).
REGIONS = "demo_warehouse.hr.regions"
REGION_COLUMNS = [("id", "bigint"), ("region", "varchar")]
REGION_ROWS = [(1, "EU"), (2, "US")]

# Creation targets (CREATE TABLE / CTAS / CREATE VIEW / CREATE MATERIALIZED VIEW): an empty schema
# the snapshot lists nothing in.
SCRATCH = "demo_warehouse.scratch"

# Users of the other tables: name -> (roles, attributes).
OTHER_USERS = {
    "viewer.only": (["viewer"], {}),                       # a grant on the views only
    "writer.cleared": (["payroll_writer", "payroll"], {}),
    "writer.uncleared": (["payroll_writer"], {}),
    "auditor.a": (["auditor"], {}),
    "auditor.b": (["auditor", "auditor_strict"], {}),
    "builder.cleared": (["builder", "payroll"], {}),
    "builder.uncleared": (["builder"], {}),
    "eu.writer": (["regions_writer"], {"region": "EU"}),
    # refused the column its row filter reads: the filter runs as the table's owner
    "eu.blind": (["regions_writer"], {"region": "EU"}),
    "odd.masked": (["odd"], {}),
    "odd.filtered": (["odd"], {}),
}


def snapshot():
    col = lambda c: EMP + "." + c  # noqa: E731
    everyone_but_admin = {"users": ["hr-admin", VIEW_OWNER, "viewer.only"]}
    everyone_but_admin_and_probe = {"users": ["hr-admin", VIEW_OWNER, "viewer.only", "O'Brien"]}
    users = dict(USERS, **OTHER_USERS)
    cols = lambda cs, tags={}: [dict({"name": c, "type": t}, **({"tags": tags[c]} if c in tags else {}))  # noqa: E731
                                for c, t in cs]
    assignment = lambda n, r: dict({"role": r, "user": n},  # noqa: E731
                                   **({"expires_at": EXPIRES[(n, r)]} if (n, r) in EXPIRES else {}))
    bmask = lambda name, column, mask, role, **kw: dict({  # noqa: E731
        "name": name, "type": "column_mask", "mask": mask, "scope": {"column": BADGES + "." + column},
        "applies_to": {"roles": [role]}}, **kw)
    return {
        "version": 1,
        "generated_at": "2026-11-30T12:00:00Z",
        "users": [{"name": n, **({"attributes": a} if a else {})} for n, (_, a) in users.items()]
        + [{"name": VIEW_OWNER}],
        "roles": ["staff", "manager", "contractor", "intern", "probe", "viewer", "payroll_writer",
                  "payroll", "auditor", "auditor_strict", "builder", "odd", "regions_writer"],
        "role_assignments": [assignment(n, r) for n, (roles, _) in users.items() for r in roles],
        "classifications": [{"name": "Payroll", "level": 2, "clearance": [{"type": "role", "name": "payroll"}]}],
        "objects": [{"name": EMP, "kind": "table", "owner": "hr-admin", "columns": cols(COLUMNS)},
                    {"name": VIEW, "kind": "view", "owner": VIEW_OWNER, "view_security": "definer",
                     "depends_on": [EMP], "columns": cols(COLUMNS[:2])},
                    {"name": VIEW_INVOKER, "kind": "view", "owner": VIEW_OWNER, "view_security": "invoker",
                     "depends_on": [EMP], "columns": cols(COLUMNS[:2])},
                    {"name": PAY, "kind": "table", "owner": "hr-admin",
                     "columns": cols(PAY_COLUMNS, {"amount": ["Payroll"]})},
                    {"name": PAY_NAMES, "kind": "view", "owner": VIEW_OWNER, "view_security": "definer",
                     "depends_on": [PAY], "columns": cols(PAY_COLUMNS[:2])},
                    {"name": PAY_AMOUNTS, "kind": "view", "owner": VIEW_OWNER, "view_security": "definer",
                     "depends_on": [PAY], "columns": cols([PAY_COLUMNS[0], PAY_COLUMNS[2]])},
                    {"name": BADGES, "kind": "table", "owner": "hr-admin", "columns": cols(BADGE_COLUMNS)},
                    {"name": BADGE_VIEW, "kind": "view", "owner": VIEW_OWNER, "view_security": "definer",
                     "depends_on": [BADGES], "columns": cols([BADGE_COLUMNS[0], BADGE_COLUMNS[7]])},
                    {"name": ODD, "kind": "table", "owner": "hr-admin", "columns": cols(ODD_COLUMNS)},
                    {"name": REGIONS, "kind": "table", "owner": VIEW_OWNER, "columns": cols(REGION_COLUMNS)}],
        "grants": [{"principal": {"role": "staff"}, "object": EMP, "privileges": ["SELECT"]},
                   {"principal": {"user": VIEW_OWNER}, "object": EMP, "privileges": ["SELECT"]},
                   {"principal": {"role": "staff"}, "object": VIEW, "privileges": ["SELECT"]},
                   {"principal": {"role": "staff"}, "object": VIEW_INVOKER, "privileges": ["SELECT"]},
                   {"principal": {"role": "viewer"}, "object": VIEW, "privileges": ["SELECT"]},
                   {"principal": {"role": "viewer"}, "object": VIEW_INVOKER, "privileges": ["SELECT"]},
                   {"principal": {"role": "payroll_writer"}, "object": PAY,
                    "privileges": ["SELECT", "INSERT", "UPDATE", "DELETE"]},
                   {"principal": {"user": VIEW_OWNER}, "object": REGIONS, "privileges": ["SELECT"]},
                   {"principal": {"role": "payroll_writer"}, "object": PAY_NAMES, "privileges": ["SELECT"]},
                   {"principal": {"role": "payroll_writer"}, "object": PAY_AMOUNTS, "privileges": ["SELECT"]},
                   {"principal": {"user": VIEW_OWNER}, "object": PAY, "privileges": ["SELECT"]},
                   {"principal": {"role": "auditor"}, "object": BADGES, "privileges": ["SELECT"]},
                   {"principal": {"role": "auditor"}, "object": BADGE_VIEW, "privileges": ["SELECT"]},
                   {"principal": {"user": VIEW_OWNER}, "object": BADGES, "privileges": ["SELECT"]},
                   {"principal": {"role": "odd"}, "object": ODD, "privileges": ["SELECT"]},
                   {"principal": {"role": "regions_writer"}, "object": REGIONS,
                    "privileges": ["SELECT", "INSERT", "UPDATE", "DELETE"]},
                   {"principal": {"role": "builder"}, "object": SCRATCH + ".*",
                    "privileges": ["SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"]}],
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
             "exempt": everyone_but_admin_and_probe},
            {"name": "pay_band", "type": "row_filter", "scope": {"object": EMP},
             "applies_to": {"roles": ["manager"]},
             "condition": {"or": [
                 {"column": "salary", "op": "lte", "value": 60000},
                 {"column": "birth", "op": "gte", "value": {"$user": "attributes.born_after"}},
                 {"column": "hired", "op": "gte", "value": HIRED_AFTER},
                 {"column": "bonus", "op": "gt", "value": {"$user": "attributes.bonus_floor"}},
             ]}},
            # every operator but the ones above, with a quoted name and a list attribute
            {"name": "probe_ops", "type": "row_filter", "scope": {"object": EMP},
             "applies_to": {"roles": ["probe"]},
             "condition": {"and": [
                 {"column": "region", "op": "in", "value": {"$user": "attributes.regions"}},
                 {"column": "ssn", "op": "is_not_null"},
                 {"column": "id", "op": "not_in", "values": [8]},
                 {"column": "name", "op": "ne", "value": "Zoë"},
                 {"or": [{"column": "name", "op": "eq", "value": {"$user": "name"}},
                         {"column": "salary", "op": "lt", "value": 60000},
                         {"column": "birth", "op": "is_null"}]},
             ]}},
            {"name": "deny_one_user", "type": "deny", "scope": {"object": EMP},
             "applies_to": {"users": ["denied.user"]}},
            {"name": "no_ssn_for_interns", "type": "deny", "scope": {"column": col("ssn")},
             "applies_to": {"roles": ["intern"]}},
            bmask("badge_hash", "badge", "hash", "auditor"),
            bmask("badge_null_strict", "badge", "null", "auditor_strict"),
            bmask("code_partial", "code", "partial", "auditor", visible_chars=4),
            bmask("started_full", "started", "full", "auditor"),
            bmask("bonus_hash", "bonus", "hash", "auditor"),
            bmask("level_partial", "level", "partial", "auditor", visible_chars=2),
            bmask("active_full", "active", "full", "auditor"),
            bmask("note_partial4", "note", "partial", "auditor", visible_chars=4),
            bmask("note_partial2_strict", "note", "partial", "auditor_strict", visible_chars=2),
        ] + [{"name": "odd_mask_%d" % i, "type": "column_mask", "mask": "partial", "visible_chars": 2,
              "scope": {"column": ODD + "." + c}, "applies_to": {"users": ["odd.masked"]}}
             for i, (c, _) in enumerate(ODD_COLUMNS)]
          + [{"name": "regions_own", "type": "row_filter", "scope": {"object": REGIONS},
              "applies_to": {"roles": ["regions_writer"]},
              "condition": {"column": "region", "op": "eq", "value": {"$user": "attributes.region"}}},
             {"name": "regions_blind", "type": "deny", "scope": {"column": REGIONS + ".region"},
              "applies_to": {"users": ["eu.blind"]}}]
          + [{"name": "odd_filter", "type": "row_filter", "scope": {"object": ODD}, "applies_to": {"users": ["odd.filtered"]},
              "condition": {"and": [{"column": c, "op": "eq", "value": v} for (c, _), v in zip(ODD_COLUMNS, ODD_ROWS[0])]}}],
    }


# ---------------------------------------------------------------------------------------------
# the expectations, from the rows and the policies as MODEL.md states them


def sha256_hex(v):
    return None if v is None else hashlib.sha256(v.encode("utf-8")).hexdigest()


def partial(v, n, fully_masked_through=0):
    if v is None:
        return None
    return "****" if len(v) <= max(n, fully_masked_through) else "****" + v[-n:]


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
    if user not in ("hr-admin", "O'Brien"):  # own_region, exempt: hr-admin, O'Brien
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
    if "probe" in roles:  # probe_ops: every operator, $user.name, a list attribute
        regions = attrs["regions"]
        preds.append(lambda r: r[2] in regions and r[4] is not None and r[0] not in (8,) and r[1] != "Zoë"
                     and (r[1] == user or (r[5] is not None and r[5] < 60000) or r[6] is None))
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
    """[(name, user, sql, ("rows", rows) | ("denied", message prefix) | ("error", error name, message prefix))]"""
    out = []
    for user in USERS:
        if user == "expired.staff":
            # the assignment expired at generated_at, "now" for the CLI: no grant, no rows
            out.append(("an expired role assignment grants nothing", user, "SELECT count(*) FROM " + TABLE,
                        ("denied", "Access Denied: Cannot select from table " + TABLE)))
            continue
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
            out.append(("SELECT * names the denied column", user, "SELECT * FROM " + TABLE,
                        ("denied", "Access Denied: Cannot select from table " + TABLE)))
            out.append(("a denied column is not listed", user, "SHOW COLUMNS FROM " + TABLE,
                        ("rows", [[c, t, "", ""] for c, t in COLUMNS if c != "ssn"])))
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
    out += more_expectations()
    return out


def as_rows(rows):
    return [as_trino(r) for r in rows]


def more_expectations():
    """The real server's other paths: listings, SELECT *, INVOKER views, clearances on columns with
    writes, masks on non-string and bounded columns, creation of tables and views."""
    out = []
    denied = lambda what, obj: ("denied", "Access Denied: Cannot %s %s" % (what, obj))  # noqa: E731
    show_tables = "SHOW TABLES FROM demo_warehouse.hr"
    emp_cols = ", ".join(c for c, _ in COLUMNS)

    # SELECT * is the same read as naming every column: the masks and the filter apply.
    out.append(("SELECT * is masked and filtered", "ann.eu", "SELECT * FROM " + TABLE + " ORDER BY id",
                ("rows", [as_trino(masked("ann.eu", r)) for r in visible_rows("ann.eu")])))
    # Listings (SHOW TABLES, information_schema) show what the user may read, nothing more.
    out.append(("SHOW TABLES lists what the user may read", "ann.eu", show_tables,
                ("rows", [["directory"], ["directory_invoker"], ["employees"]])))
    # A schema where the user may read nothing is not listed at all (Trino's checkCanShowTables).
    out.append(("a deny hides the table and the views over it", "denied.user", show_tables,
                denied("show tables of schema", "demo_warehouse.hr")))
    out.append(("information_schema lists what the user may read", "writer.uncleared",
                "SELECT table_name, column_name FROM demo_warehouse.information_schema.columns"
                " WHERE table_schema = 'hr' ORDER BY 1, ordinal_position",
                ("rows", [["payroll", "id"], ["payroll", "name"]])))
    out.append(("information_schema lists what the user may read", "writer.cleared",
                "SELECT table_name FROM demo_warehouse.information_schema.tables WHERE table_schema = 'hr'"
                " ORDER BY 1", ("rows", [["payroll"], ["payroll_amounts"], ["payroll_names"]])))
    out.append(("a schema without a grant is not listed", "ann.eu", "SHOW TABLES FROM " + SCRATCH,
                denied("show tables of schema", SCRATCH)))

    # Expiry: one second before it, the assignment still counts.
    out.append(("a role assignment counts until it expires", "expiring.staff",
                "SELECT count(*) FROM " + TABLE, ("rows", [[len(visible_rows("expiring.staff"))]])))

    # DEFINER vs INVOKER: viewer.only holds SELECT on both views and nothing on the table, and no
    # policy reaches them. The DEFINER view reads the table as its owner; the INVOKER view as them.
    out.append(("a DEFINER view needs no grant on its base", "viewer.only",
                "SELECT id, name FROM " + VIEW + " ORDER BY id", ("rows", [[r[0], r[1]] for r in ROWS])))
    out.append(("an INVOKER view needs the reader's grant on its base", "viewer.only",
                "SELECT count(*) FROM " + VIEW_INVOKER, denied("select from table", TABLE)))
    out.append(("an INVOKER view, reader holds the base grant", "hr-admin",
                "SELECT id, name FROM " + VIEW_INVOKER + " ORDER BY id", ("rows", [[r[0], r[1]] for r in ROWS])))
    out.append(("a row filter on the base reaches the INVOKER view", "ann.eu",
                "SELECT count(*) FROM " + VIEW_INVOKER, ("rows", [[0]])))
    out.append(("a column deny on the base hides the INVOKER view", "intern",
                "SELECT count(*) FROM " + VIEW_INVOKER, ("denied", "Access Denied: Cannot select from")))
    out.append(("a view is not a way around a deny", "denied.user",
                "SELECT count(*) FROM " + VIEW, ("denied", "Access Denied: Cannot select from")))

    # probe_ops: in / not_in / ne / is_null / is_not_null / lt, $user.name with a quote, a list.
    rows = [as_trino(masked("O'Brien", r)) for r in visible_rows("O'Brien")]
    out.append(("every operator, a quoted $user.name and a list attribute", "O'Brien",
                "SELECT " + emp_cols + " FROM " + TABLE + " ORDER BY id", ("rows", rows)))

    # A clearance on a column (Payroll on payroll.amount) with withhold_writes: the uncleared
    # writer keeps SELECT on the other columns and loses every write.
    pay = "SELECT id, name, amount FROM " + PAY + " ORDER BY id"
    out.append(("a column clearance refuses the column", "writer.uncleared", pay,
                denied("select from table", PAY)))
    out.append(("a column clearance refuses SELECT *", "writer.uncleared", "SELECT * FROM " + PAY,
                denied("select from table", PAY)))
    out.append(("a column clearance keeps the other columns", "writer.uncleared",
                "SELECT id, name FROM " + PAY + " ORDER BY id", ("rows", [[i, n] for i, n, _ in PAY_ROWS])))
    out.append(("a column clearance hides the column from listings", "writer.uncleared",
                "SHOW COLUMNS FROM " + PAY, ("rows", [["id", "bigint", "", ""], ["name", "varchar", "", ""]])))
    out.append(("withhold_writes: no INSERT for the uncleared", "writer.uncleared",
                "INSERT INTO " + PAY + " SELECT 9, 'x', 1 WHERE false", denied("insert into table", PAY)))
    out.append(("withhold_writes: no DELETE for the uncleared", "writer.uncleared",
                "DELETE FROM " + PAY + " WHERE false", denied("delete from table", PAY)))
    out.append(("withhold_writes: no UPDATE for the uncleared", "writer.uncleared",
                "UPDATE " + PAY + " SET name = 'x' WHERE false", denied("update columns [name] in table", PAY)))
    out.append(("a cleared reader reads the column", "writer.cleared", pay, ("rows", [list(r) for r in PAY_ROWS])))
    out.append(("a cleared writer may insert", "writer.cleared",
                "INSERT INTO " + PAY + " SELECT 9, 'x', 1 WHERE false", ("rows", [[0]])))
    # The memory connector cannot delete: the access check passed, the connector refuses.
    out.append(("a cleared writer may delete (the connector cannot)", "writer.cleared",
                "DELETE FROM " + PAY + " WHERE false",
                ("error", "NOT_SUPPORTED", "This connector does not support modifying table rows")))
    # DEFINER views whose owner is not cleared for Payroll: the one that reads the gated column
    # fails for everybody, the cleared included; the other is read by the cleared only.
    out.append(("a DEFINER view reading what its owner may not fails for the cleared", "writer.cleared",
                "SELECT count(*) FROM " + PAY_AMOUNTS, ("denied", "Access Denied: View owner does not have "
                                                       "sufficient privileges")))
    out.append(("a DEFINER view of ungated columns of a gated base, cleared reader", "writer.cleared",
                "SELECT id, name FROM " + PAY_NAMES + " ORDER BY id", ("rows", [[i, n] for i, n, _ in PAY_ROWS])))
    out.append(("a view carries its base's column tag", "writer.uncleared",
                "SELECT count(*) FROM " + PAY_NAMES, denied("select from table", PAY_NAMES)))

    # Masks: typed NULL on non-string columns, cut to a bounded varchar, the strictest of several.
    def badge_masked(row, strict):
        i, badge, code, _started, _bonus, _level, _active, note = row
        return [i, None if strict else (sha256_hex(badge) or "")[:6] or None,
                None if code is None else partial(code, 4)[:5], None, None, None, None,
                partial(note, 2, 4) if strict else partial(note, 4)]
    badges = "SELECT " + ", ".join(c for c, _ in BADGE_COLUMNS) + " FROM " + BADGES + " ORDER BY id"
    out.append(("masks: typed NULL, bounded varchar, hash, partial", "auditor.a", badges,
                ("rows", [badge_masked(r, False) for r in BADGE_ROWS])))
    # note: partial 4 and partial 2 show two characters, and 'xyz', which partial 4 hides, stays hidden.
    out.append(("masks: the strictest wins (null > hash, fewer characters)", "auditor.b", badges,
                ("rows", [badge_masked(r, True) for r in BADGE_ROWS])))
    # No column lineage: the strictest base mask masks every view column (full: '****', typed
    # NULL where '****' cannot type-check; null: NULL).
    out.append(("a base mask masks every column of a DEFINER view", "auditor.a",
                "SELECT id, note FROM " + BADGE_VIEW + " ORDER BY id", ("rows", [[None, "****"]] * 3)))
    out.append(("a base mask masks every column of a DEFINER view", "auditor.b",
                "SELECT id, note FROM " + BADGE_VIEW + " ORDER BY id", ("rows", [[None, None]] * 3)))

    # Names that need quoting, in masks and in a filter (Trino lower-cases Mixed).
    odd = "SELECT * FROM " + ODD + " ORDER BY 1"
    out.append(("masks on columns whose names need quoting", "odd.masked", odd,
                ("rows", sorted([partial(v, 2) for v in r] for r in ODD_ROWS))))  # ordered by the masked value
    out.append(("a filter on columns whose names need quoting", "odd.filtered", odd,
                ("rows", [list(ODD_ROWS[0])])))

    # Writes under a row filter: INSERT honours it, TRUNCATE would not, so DELETE is withheld
    # (before that, eu.writer's TRUNCATE emptied the table, the US row included).
    out.append(("an INSERT outside the row filter", "eu.writer", "INSERT INTO %s VALUES (3, 'US')" % REGIONS,
                ("denied", "Access Denied: Cannot insert row that does not match a row filter")))
    out.append(("an INSERT inside the row filter", "eu.writer",
                "INSERT INTO %s SELECT 3, 'EU' WHERE false" % REGIONS, ("rows", [[0]])))
    out.append(("a row filter withholds DELETE (TRUNCATE ignores filters)", "eu.writer",
                "TRUNCATE TABLE " + REGIONS, denied("truncate table", REGIONS)))
    out.append(("a row filter withholds DELETE", "eu.writer", "DELETE FROM %s WHERE false" % REGIONS,
                denied("delete from table", REGIONS)))
    # (id 3 keeps a self-check pass without filters, which lets the first INSERT in, from
    # disturbing the later passes)
    out.append(("the rows outside the filter are still there", VIEW_OWNER,
                "SELECT count(*) FROM %s WHERE id IN (1, 2)" % REGIONS, ("rows", [[len(REGION_ROWS)]])))
    out.append(("the filtered writer's rows are still there", "eu.writer",
                "SELECT id, region FROM %s WHERE id IN (1, 2)" % REGIONS, ("rows", [[1, "EU"]])))
    # A row filter reading a column its reader is refused runs as the table's owner (who may read
    # it): the reader keeps the other columns of their rows (before, Trino checked the filter's
    # column as the reader and refused every read of the table).
    out.append(("a row filter reading a refused column runs as the owner", "eu.blind",
                "SELECT id FROM %s WHERE id IN (1, 2)" % REGIONS, ("rows", [[1]])))
    out.append(("a row filter run as the owner leaves the column refused", "eu.blind",
                "SELECT region FROM %s" % REGIONS,
                denied("select from table", REGIONS)))

    # Creation (MODEL.md section 2): with a gated tag on the profile, only users cleared for every
    # gated tag may create under a new name: tables, CTAS, views, materialized views.
    for user, ok in (("builder.cleared", True), ("builder.uncleared", False)):
        t = SCRATCH + ".t_" + user.split(".")[1]
        for what, sql, err in (
                ("CREATE TABLE", "CREATE TABLE %s (id bigint)" % t, "create table"),
                ("INSERT into it", "INSERT INTO %s VALUES (1)" % t, None),
                ("DROP it", "DROP TABLE %s" % t, None),
                ("CTAS", "CREATE TABLE %s AS SELECT 1 AS id" % t, "create table"),
                ("DROP it", "DROP TABLE %s" % t, None),
                ("CREATE VIEW", "CREATE VIEW %s_v AS SELECT 1 AS id" % t, "create view"),
                ("DROP VIEW", "DROP VIEW %s_v" % t, None),
                ("CREATE MATERIALIZED VIEW", "CREATE MATERIALIZED VIEW %s_mv AS SELECT 1 AS id" % t,
                 "create materialized view")):
            if ok:
                want = ("rows", [[1]] if what.startswith("INSERT") or what == "CTAS" else [])
                if what == "CREATE MATERIALIZED VIEW":  # the check passed; memory has no MVs
                    want = ("error", "NOT_SUPPORTED", "This connector does not support creating materialized views")
                out.append(("%s, cleared for every gated tag" % what, user, sql, want))
            elif err:
                suffix = {"create view": "_v", "create materialized view": "_mv"}.get(err, "")
                out.append(("%s, not cleared for every gated tag" % what, user, sql, denied(err, t + suffix)))
    # CALL: the rules have no procedures section, so only system.builtin procedures run; with OPA
    # every procedure was once allowed (found by the audit). kill_query would otherwise run.
    out.append(("a procedure outside system.builtin is refused", "ann.eu",
                "CALL system.runtime.kill_query(query_id => '20260101_000000_00000_aaaaa', message => 'x')",
                denied("execute procedure", "system.runtime.kill_query")))
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
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return sql_string(v)


def setup_sql():
    def table(name, columns, rows):
        values = ", ".join("(" + ", ".join(sql_value(v) for v in r) + ")" for r in rows)
        return ["CREATE TABLE %s (%s)" % (name, ", ".join("%s %s" % c for c in columns)),
                "INSERT INTO %s VALUES %s" % (name, values)]
    return (["CREATE SCHEMA demo_warehouse.hr", "CREATE SCHEMA " + SCRATCH]
            + table(TABLE, COLUMNS, ROWS) + table(PAY, PAY_COLUMNS, PAY_ROWS)
            + table(BADGES, BADGE_COLUMNS, BADGE_ROWS)
            + table(REGIONS, REGION_COLUMNS, REGION_ROWS)
            + table(ODD, [('"' + c.replace('"', '""') + '"', t) for c, t in ODD_COLUMNS], ODD_ROWS)
            + ["CREATE VIEW %s SECURITY DEFINER AS SELECT id, name FROM %s" % (VIEW, TABLE),
               "CREATE VIEW %s SECURITY INVOKER AS SELECT id, name FROM %s" % (VIEW_INVOKER, TABLE),
               "CREATE VIEW %s SECURITY DEFINER AS SELECT id, name FROM %s" % (PAY_NAMES, PAY),
               "CREATE VIEW %s SECURITY DEFINER AS SELECT id, amount FROM %s" % (PAY_AMOUNTS, PAY),
               "CREATE VIEW %s SECURITY DEFINER AS SELECT id, note FROM %s" % (BADGE_VIEW, BADGES)])


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
            rule.pop("filter_environment", None)
    if not removed:
        sys.exit("mutate: no %s in %s" % (what, src))
    tmp = dst + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    os.replace(tmp, dst)
    print("removed %d %s" % (removed, what))


def check(server, quiet):
    passed = failed = 0
    for name, user, sql, expected in expectations():
        kind, want = expected[0], expected[-1]
        r = trino_client.run_query(server, user, sql, timeout=60)
        if kind == "rows":
            ok = r["ok"] and r["rows"] == want
            got = json.dumps(r["rows"], ensure_ascii=False) if r["ok"] else "%s %s %s" % (
                r["error_name"], r["error"], r["transport_error"] or "")
            shown = json.dumps(want, ensure_ascii=False)
            detail = shown if len(shown) <= 60 else "%d rows, exact" % len(want)
        else:
            # "denied": PERMISSION_DENIED with this prefix; "error": another error name (the access
            # check passed and the connector refused)
            error_name = "PERMISSION_DENIED" if kind == "denied" else expected[1]
            ok = (not r["ok"]) and r["error_name"] == error_name and (r["error"] or "").startswith(want)
            got = "%s %s" % (r["error_name"], r["error"]) if not r["ok"] else "OK " + json.dumps(r["rows"])
            detail = "denied" if kind == "denied" else error_name + ": " + want
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
