#!/usr/bin/env python3
"""A Python stand-in for the Trino oracle, for testing run_differential.py alone.

Usage: fake_oracle.py rules.json < queries.jsonl > answers.jsonl
Evaluates the catalogs and tables sections of Trino's file-based access
control rules the way FileBasedSystemAccessControl does (first matching rule
wins; no matching table rule denies; a missing section allows everything).
Regexes are Python's, so it understands only rules written with re.escape,
as fake_tagwarden.py writes them. The real check is tests/trino-oracle.
"""
import json
import re
import sys

ALL = ["SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"]


def matches(rule, user, **parts):
    if "role" in rule or "group" in rule:
        return False  # queries carry no roles or groups
    if "user" in rule and not re.fullmatch(rule["user"], user):
        return False
    for k, v in parts.items():
        if k in rule and not re.fullmatch(rule[k], v):
            return False
    return True


def catalog_level(rules, user, catalog):
    if "catalogs" not in rules:
        return "all"
    for r in rules["catalogs"]:
        if matches(r, user, catalog=catalog):
            a = r.get("allow", "all")
            return {True: "all", False: "none"}.get(a, a)
    return "none"


def table_rule(rules, user, catalog, schema, table):
    if "tables" not in rules:
        return {"privileges": ALL}
    for r in rules["tables"]:
        if matches(r, user, catalog=catalog, schema=schema, table=table):
            return r
    return None


def answer(rules, q):
    u, c, s, t = q["user"], q["catalog"], q["schema"], q["table"]
    level = catalog_level(rules, u, c)
    rule = table_rule(rules, u, c, s, t)
    privs = set(rule.get("privileges", [])) if rule else set()
    restricted = {col["name"] for col in (rule or {}).get("columns", []) if col.get("allow") is False}
    op = q["op"]
    cols = q.get("columns") or []
    if op == "select":
        return {"allow": level in ("all", "read-only") and "SELECT" in privs and not restricted & set(cols)}
    if op in ("insert", "delete", "update", "ownership"):
        return {"allow": level == "all" and op.upper() in privs}
    if op in ("create_table", "create_mv"):
        return {"allow": level == "all" and "OWNERSHIP" in privs}
    if op == "view_owner_select":  # checkCanCreateViewWithSelectFromColumns: SELECT with GRANT_SELECT
        return {"allow": level == "all" and {"SELECT", "GRANT_SELECT"} <= privs and not restricted & set(cols)}
    if op == "column_mask":
        m = [col.get("mask") for col in (rule or {}).get("columns", []) if col["name"] == q["column"]]
        return {"mask": m[0] if m else None}
    if op == "row_filters":
        return {"filters": [rule["filter"]] if rule and "filter" in rule else []}
    if op == "filter_columns":
        if level == "none" or not privs:
            return {"columns": []}
        if privs - {"SELECT", "GRANT_SELECT"}:
            return {"columns": sorted(cols)}
        return {"columns": sorted(c for c in cols if c not in restricted)}
    return {"error": "unknown op " + op}


def load(path):
    with open(path, encoding="utf-8") as f:
        rules = json.load(f)
    for r in rules.get("catalogs", []) + rules.get("tables", []):
        for k in ("user", "catalog", "schema", "table"):
            if k in r:
                re.compile(r[k])
    return rules


def multi():
    """--multi: {"op":"load","path":P} lines switch rules; like the real harness."""
    rules = None
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            q = json.loads(line)
            if q.get("op") == "load":
                try:
                    rules = load(q["path"])
                    a = {"loaded": True}
                except Exception as e:
                    rules, a = None, {"load_error": str(e)}
            elif rules is None:
                a = {"error": "no rules loaded"}
            else:
                a = answer(rules, q)
        except Exception as e:
            a = {"error": repr(e)}
        # like the real harness: the object is flushed before its newline
        sys.stdout.write(json.dumps(a))
        sys.stdout.flush()
        sys.stdout.write("\n")


def main():
    if sys.argv[1:] == ["--multi"]:
        return multi()
    try:
        rules = load(sys.argv[1])
    except Exception as e:  # any unreadable rules file is a load error
        print(json.dumps({"load_error": str(e)}))
        sys.exit(3)
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            out.write(json.dumps(answer(rules, json.loads(line))) + "\n")
        except Exception as e:
            out.write(json.dumps({"error": repr(e)}) + "\n")


if __name__ == "__main__":
    main()
