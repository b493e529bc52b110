#!/usr/bin/env python3
"""Naive Trino rendering of a PolicySet: one table rule per user per object.

  bench/naive_rules.py --policyset OUT/P/policyset.json --rules OUT/P/rules.json --out naive.json

The baseline tagwarden's rules are compared with: the same decisions, without merging users
into classes. Built from the PolicySet (`tagwarden compile --emit-policyset`):

  tables, in order:
    for each object, for each user whose decision holds privileges: one rule naming only that
      user (^name$) and that object, with the user's privileges, `allow: false` for each of
      the user's refused columns, the masks and the row filter;
    then the object's catch-all deny (as in the real document);
    for each pattern of names the snapshot does not list (PolicySet `unlisted`), one rule per
      user with that user's privileges;
    then the real document's fixed table rules (system.jdbc, the final deny).
  every other section (catalogs, schemas, queries, impersonation, system_information) is
  copied from the real rules.json.

Mask and filter expressions are the real renderer's text: each user's expression is taken from
the real rule that names that user on that object (or the object's last rule, which names no
user and carries its largest group), so the SQL is byte-identical; privileges
and refused columns come from the PolicySet and are checked against that rule (mismatches are
counted and reported in the summary line, they should be 0).

--max-rules N (default 3,000,000) refuses to write a document larger than that: it prints the
projected count and exits 4, so a benchmark can report "not built" instead of exhausting memory.
Prints one JSON summary line on stdout.
"""
import argparse
import json
import re
import sys

_UNESC = re.compile(r"\\(.)")
_PART = re.compile(r"(?:\\.|[^|\\])+")


def unanchor(rx):
    """'^abc$' or '^(?:a|b)$' -> list of literal names (the compiler escapes each name)."""
    if rx is None:
        return None
    body = rx[1:-1] if rx.startswith("^") and rx.endswith("$") else rx
    if body.startswith("(?:") and body.endswith(")"):
        body = body[3:-1]
    # split on unescaped '|' (an escape is a backslash and the next character)
    parts = _PART.findall(body) or [""]
    return [_UNESC.sub(r"\1", p) for p in parts]


def esc(name):
    return re.escape(name)


def keys_of(rule):
    """Every (catalog, schema, table) a rule names (the compiler may merge tables into one alternation)."""
    parts = [unanchor(rule[k]) if rule.get(k) is not None else [None] for k in ("catalog", "schema", "table")]
    return [(c, s, t) for c in parts[0] for s in parts[1] for t in parts[2]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policyset", required=True)
    ap.add_argument("--rules", required=True, help="the real rules.json of the same profile")
    ap.add_argument("--out", required=True)
    ap.add_argument("--max-rules", type=int, default=3_000_000)
    args = ap.parse_args()

    with open(args.policyset) as f:
        ps = json.load(f)
    with open(args.rules) as f:
        real = json.load(f)

    engine_user = {u["name"]: u.get("engine_user", u["name"]) for u in ps.get("users", [])}

    def eu(name):
        return engine_user.get(name, name)

    # projected size first
    projected = 0
    for o in ps["objects"]:
        projected += sum(1 for d in o["decisions"] if d.get("privileges")) + 1
    for p in ps.get("unlisted", []):
        projected += sum(len(a["users"]) for a in p["access"])
    if projected > args.max_rules:
        print(json.dumps({"status": "too_large", "projected_rules": projected, "max_rules": args.max_rules}))
        return 4

    # real object rules: (catalog, schema, table) -> {engine user -> rule}
    per_object = {}
    fallback = {}  # an object's last rule naming no user (its largest group, or a plain deny)
    fixed_tail = []
    for r in real["tables"]:
        if "user" not in r and "table" not in r:
            fixed_tail.append(r)
            continue
        if "table" not in r:
            continue
        if "user" not in r:
            for key in keys_of(r):
                fallback.setdefault(key, r)
            continue
        users = unanchor(r["user"])
        for key in keys_of(r):
            m = per_object.setdefault(key, {})
            for u in users:
                m.setdefault(u, r)

    tables = []
    mismatches = 0
    per_user_rules = 0
    for o in ps["objects"]:
        cat, schema, table = o["engine_name"].split(".", 2)
        where = {"catalog": f"^{esc(cat)}$", "schema": f"^{esc(schema)}$", "table": f"^{esc(table)}$"}
        classes = per_object.get((cat, schema, table), {})
        default = fallback.get((cat, schema, table))
        for d in o["decisions"]:
            privs = d.get("privileges") or []
            if not privs:
                continue
            if d.get("grant_select"):  # a view owner: Trino asks for GRANT_SELECT when others read the view
                privs = privs + ["GRANT_SELECT"]
            user = eu(d["user"])
            rule = {"user": f"^{esc(user)}$", **where, "privileges": privs}
            denied = d.get("denied_columns") or []
            src = classes.get(user, default)
            real_cols = {c["name"]: c for c in (src or {}).get("columns", [])}
            cols = [{"name": c, "allow": False} for c in denied]
            for m in d.get("masks") or []:
                rc = real_cols.get(m["column"])
                if rc is None or "mask" not in rc:
                    mismatches += 1
                    continue
                cols.append({"name": m["column"], "mask": rc["mask"]})
            if cols:
                rule["columns"] = cols
            if d.get("row_filter") is not None:
                if src is None or "filter" not in src:
                    mismatches += 1
                else:
                    rule["filter"] = src["filter"]
            if src is not None:
                real_denied = sorted(c["name"] for c in src.get("columns", []) if c.get("allow") is False)
                if sorted(src.get("privileges", [])) != sorted(privs) or real_denied != sorted(denied):
                    mismatches += 1
            tables.append(rule)
            per_user_rules += 1
        tables.append({**where, "privileges": []})
    for p in ps.get("unlisted", []):
        parts = p["pattern"].split(".", 2)
        where = {k: f"^{esc(v)}$" for k, v in zip(("catalog", "schema", "table"), parts) if v != "*"}
        for a in p["access"]:
            for u in a["users"]:
                tables.append({"user": f"^{esc(eu(u))}$", **where, "privileges": a["privileges"]})
                per_user_rules += 1
    tables.extend(fixed_tail)

    doc = {k: v for k, v in real.items() if k != "tables"}
    doc["tables"] = tables
    with open(args.out, "w") as f:
        # one rule per line, as the real document
        f.write("{\n")
        keys = sorted(doc)
        for i, k in enumerate(keys):
            f.write(f"{json.dumps(k)}: [\n")
            items = doc[k]
            for j, item in enumerate(items):
                f.write(json.dumps(item, sort_keys=True, separators=(",", ":")) + (",\n" if j + 1 < len(items) else "\n"))
            f.write("]" + (",\n" if i + 1 < len(keys) else "\n"))
        f.write("}\n")
    print(json.dumps({"status": "ok", "table_rules": len(tables), "per_user_rules": per_user_rules,
                      "real_table_rules": len(real["tables"]), "mismatches": mismatches, "out": args.out}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
