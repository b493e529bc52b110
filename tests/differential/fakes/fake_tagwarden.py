#!/usr/bin/env python3
"""A Python stand-in for `tagwarden compile`, for testing run_differential.py alone.

It renders the reference's own decisions, so agreeing with the reference
proves nothing about tagwarden; it exists so the runner, the query builder and
the self-check mutations can be exercised before (or without) the C++ build.
FAKE_TAGWARDEN_BUG=group_roles_count makes it count roles held through groups,
so the tests can see a wrong compiler fail.

  fake_tagwarden.py compile --snapshot S --config C --out DIR --emit-policyset [--now T]
"""
import argparse
import itertools
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from reference import Profile, Reference, sql_filter, sql_mask  # noqa: E402

ORDER = ["SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"]


def classes(pairs):
    """[(engine user, privs, denied[, masks, row_filter[, grant_select]])] -> access classes, users grouped by decision."""
    groups = {}
    for eu, privs, denied, *pol in pairs:
        if privs:
            key = (tuple(p for p in ORDER if p in privs), tuple(denied), json.dumps(pol, sort_keys=True))
            groups.setdefault(key, []).append(eu)
    out = []
    for k, us in sorted(groups.items()):
        c = {"users": sorted(us), "privileges": list(k[0]), "denied_columns": list(k[1])}
        pol = json.loads(k[2])
        if pol and pol[0]:
            c["masks"] = [pol[0][col] for col in sorted(pol[0])]
        if pol and pol[1] is not None:
            c["row_filter"] = pol[1]
        if len(pol) > 2 and pol[2]:
            c["grant_select"] = True
        out.append(c)
    return out


def user_regex(users):
    return "|".join(re.escape(u) for u in users)


def compile_profile(ref, prof):
    eng = {n: ref.engine_user(n, prof) for n in ref.users}
    restricted = ref.create_restricted(prof)
    objects, unlisted = [], []
    for o in ref.snap["objects"]:
        if not ref.visible(o, prof):
            continue
        owners = ref.view_owners(o)  # they pass o on through their views: GRANT_SELECT with SELECT
        pairs = []
        for n in ref.users:
            decision = ref.policy_access(n, o, prof)
            pairs.append((eng[n],) + decision + (n in owners and "SELECT" in decision[0],))
        objects.append({"name": o["name"], "engine_name": ref.engine_object_name(o, prof),
                        "kind": o["kind"], "columns": ref.columns(o), "access": classes(pairs)})
    # unlisted names: every combination of the literals grants use, most specific first
    lits = [set(), set(), set()]
    for g in ref.snap["grants"]:
        for i, p in enumerate(g["object"].split(".")):
            if p != "*":
                lits[i].add(p)
    cats = [c for c in prof.catalogs]
    combos = []
    for c, s, t in itertools.product(cats, sorted(lits[1]) + ["*"], sorted(lits[2]) + ["*"]):
        combos.append((c, s, t))
    combos.sort(key=lambda p: -sum(x != "*" for x in p))
    for c, s, t in combos:
        pairs = []
        for n in ref.users:
            # a representative platform name matching exactly this pattern
            name = f"{c}.{s if s != '*' else chr(0)}.{t if t != '*' else chr(0)}"
            pairs.append((eng[n], ref.unlisted(n, name, prof, restricted), []))
        acc = [{"users": a["users"], "privileges": a["privileges"]} for a in classes(pairs)]
        unlisted.append({"pattern": f"{prof.engine_catalog(c)}.{s}.{t}", "access": acc})
    ps = {"profile": prof.name, "engine": "trino", "generated_at": ref.snap["generated_at"],
          "users": [{"name": n, "engine_user": eng[n]} for n in ref.users],
          "create_restricted_users": sorted(eng[n] for n in restricted),
          "objects": objects, "unlisted": unlisted}
    tables = []
    for o in objects:
        c, s, t = o["engine_name"].split(".")
        where = {"catalog": re.escape(c), "schema": re.escape(s), "table": re.escape(t)}
        for a in o["access"]:
            r = {"user": user_regex(a["users"]), **where,
                 "privileges": a["privileges"] + (["GRANT_SELECT"] if a.get("grant_select") else [])}
            cols = [{"name": col, "allow": False} for col in a["denied_columns"]]
            cols += [{"name": m["column"], "mask": sql_mask(m)} for m in a.get("masks", [])]
            if cols:
                r["columns"] = cols
            if "row_filter" in a:
                r["filter"] = sql_filter(a["row_filter"])
            tables.append(r)
        tables.append({**where, "privileges": []})
    for u in unlisted:
        parts = u["pattern"].split(".")
        where = {k: re.escape(v) for k, v in zip(("catalog", "schema", "table"), parts) if v != "*"}
        for a in u["access"]:
            tables.append({"user": user_regex(a["users"]), **where, "privileges": a["privileges"]})
        tables.append({**where, "privileges": []})
    tables.append({"privileges": []})
    cat_rules = [{"catalog": re.escape(prof.engine_catalog(c)), "allow": "all"} for c in prof.catalogs]
    cat_rules.append({"allow": "none"})
    return ps, {"catalogs": cat_rules, "tables": tables}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd")
    ap.add_argument("--snapshot", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--emit-policyset", action="store_true")
    ap.add_argument("--now")
    a = ap.parse_args()
    with open(a.snapshot, encoding="utf-8") as f:
        snap = json.load(f)
    with open(a.config, encoding="utf-8") as f:
        conf = json.load(f)
    if os.environ.get("FAKE_TAGWARDEN_BUG") == "group_roles_count":
        members = {}
        for u in snap["users"]:
            for g in u.get("groups", []):
                members.setdefault(g, []).append(u["name"])
        extra = [{"role": x["role"], "user": m} for x in snap["role_assignments"] if "group" in x
                 for m in members.get(x["group"], [])]
        snap["role_assignments"] = extra + snap["role_assignments"]
    ref = Reference(snap, a.now)
    for raw in conf["profiles"]:
        ps, rules = compile_profile(ref, Profile(raw))
        d = os.path.join(a.out, raw["name"])
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "rules.json"), "w", encoding="utf-8") as f:
            json.dump(rules, f, indent=1)
        if a.emit_policyset:
            with open(os.path.join(d, "policyset.json"), "w", encoding="utf-8") as f:
                json.dump(ps, f, indent=1)
    findings = []
    for c in snap["classifications"]:
        rows = c.get("clearance") or []
        if rows and all(r["type"] == "group" for r in rows):
            findings.append({"severity": "warning",
                             "message": f"clearance on {c['name']} names only groups: not enforced in any engine"})
    for o in snap["objects"]:
        if o["kind"] != "table" and o.get("view_security") != "invoker":
            if [t for t in ref.g_obj(o) if not ref.cleared(o["owner"], t)]:
                what = "materialized view" if o["kind"] == "materialized_view" else "DEFINER view"
                findings.append({"severity": "warning", "message":
                                 f"{what} {o['name']} is owned by {o['owner']}, who is not cleared"})
    none = [c["name"] for c in snap["classifications"] if not c.get("clearance")]
    if none:
        findings.append({"severity": "info", "message":
                         f"{len(none)} classifications have no clearance: they gate nothing", "tags": none})
    with open(os.path.join(a.out, "findings.json"), "w", encoding="utf-8") as f:
        json.dump({"findings": findings}, f)


if __name__ == "__main__":
    main()
