#!/usr/bin/env python3
"""Agreement check: `tagwarden explain` vs Trino's evaluator on the compiled rules.

docs/semantics.md calls `explain` the simulator: per user and object, what is
refused, withheld, masked and filtered, exactly as Trino will evaluate it. This
test holds it to that. For each generated model (gen_model.py; model i uses
seed S+i) it runs `tagwarden compile`, then `tagwarden explain --output json
--user U` for every user, and asks Trino's own evaluator (tests/trino-oracle)
about the compiled rules.json of every profile. Per (profile, user, listed
object) explain's claims must hold in Trino:

  privileges   with an `access_policies` entry, `effective.privileges` is what
               Trino allows (select / insert / update / delete / ownership);
               without one, what the grants give less every refusal's
               `withheld` (the grants are read from the snapshot: base access
               comes only from grants, MODEL.md section 2);
  has_grant    a refusal's `has_grant` is whether any grant reaches the user;
  columns      a column is readable exactly when SELECT is held and no refusal
               or `denied_columns` names it (a whole-object refusal names all);
  masks        `engine_expressions.trino_masks` is Trino's mask of each column
               (none where absent), and each mask's kind is what the expression
               is (`null` <=> a typed NULL);
  row filter   `engine_expressions.trino_filter` is Trino's row filter (none
               where absent), and `row_filter` {"false": true} <=> `1 = 0`;
  views        Trino reads a DEFINER view (and a materialized view) as its
               owner whenever anyone else queries it, an INVOKER view as the
               reader: reading the whole view fails ("no"), fails for some
               columns ("partial") or works ("ok"); explain must say which,
               through a refusal (whole or some columns) or by its silence;
  creation     `creation_restricted: true` means Trino refuses CREATE TABLE /
               MATERIALIZED VIEW / VIEW of a new name; false means the
               grants' OWNERSHIP on that name decides.
               `may_create_tables_views_mvs` is true exactly when Trino allows
               them for some new name.

Prints every disagreement (the first 20 in detail) and, last,
`explain-check: N passed, M failed` (one check per claim compared). Exit 0
when M == 0, 1 otherwise, 2 on a usage error.

--mutate KIND alters every explain answer before comparing (drop_refusal,
drop_mask, flip_privilege, drop_filter, flip_create): the run must then fail,
which shows the comparison can catch a wrong claim.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gen_model  # noqa: E402
import run_differential as rd  # noqa: E402  (compile and oracle plumbing)
from reference import PRIVILEGES, Profile, Reference  # noqa: E402

DETAIL = 20
OPS = {"SELECT": "select", "INSERT": "insert", "UPDATE": "update", "DELETE": "delete", "OWNERSHIP": "ownership"}
MUTATIONS = ("drop_refusal", "drop_mask", "flip_privilege", "drop_filter", "flip_create")


class Result:
    def __init__(self, seed):
        self.seed = seed
        self.passed = 0
        self.failed = 0
        self.fails = []

    def check(self, ok, summary, *detail):
        if ok:
            self.passed += 1
        else:
            self.fail(summary, *detail)

    def fail(self, summary, *detail):
        self.failed += 1
        self.fails.append((f"[seed={self.seed}] {summary}", [d for d in detail if d]))


def jdump(x):
    return json.dumps(x, ensure_ascii=False, sort_keys=True)


# --------------------------------------------------------------------------
# explain

def run_explain(opts, workdir, uname):
    cmd = rd.tool_cmd(opts.tagwarden) + ["explain", "--snapshot", os.path.join(workdir, "snapshot.json"),
                                         "--config", os.path.join(workdir, "config.yaml"),
                                         "--user", uname, "--output", "json"]
    p = subprocess.run(cmd, capture_output=True, timeout=120, env=rd.child_env())
    if p.returncode != 0:
        raise RuntimeError(f"explain --user {uname!r} exited {p.returncode}: "
                           + p.stderr.decode("utf-8", "replace")[-800:])
    return json.loads(p.stdout)


def mutate(kind, ex, rng):
    """Change one claim of an explanation (for --mutate); -> description or None."""
    profs = [p for p in ex.get("profiles", []) if p.get("status") == "ok"]
    if kind == "drop_refusal":
        cands = [(p, r) for p in profs for r in p["refused"] if r.get("has_grant")]
        if cands:
            p, r = rng.choice(cands)
            p["refused"].remove(r)
            return f"dropped the refusal of {r['object']}"
    if kind == "drop_mask":
        cands = [(o, c) for p in profs for o in p["access_policies"]
                 for c in (o.get("engine_expressions") or {}).get("trino_masks", {})]
        if cands:
            o, c = rng.choice(cands)
            del o["engine_expressions"]["trino_masks"][c]
            o["effective"]["masks"] = [m for m in o["effective"]["masks"] if m["column"] != c]
            return f"dropped the mask of {o['object']}.{c}"
    if kind == "flip_privilege":
        cands = [o for p in profs for o in p["access_policies"]]
        if cands:
            o = rng.choice(cands)
            privs = o["effective"]["privileges"]
            p = rng.choice(PRIVILEGES)
            if p in privs:
                privs.remove(p)
            else:
                privs.append(p)
            return f"flipped {p} on {o['object']}"
    if kind == "drop_filter":
        cands = [o for p in profs for o in p["access_policies"]
                 if (o.get("engine_expressions") or {}).get("trino_filter")]
        if cands:
            o = rng.choice(cands)
            o["engine_expressions"]["trino_filter"] = None
            o["effective"]["row_filter"] = None
            return f"dropped the row filter of {o['object']}"
    if kind == "flip_create":
        if profs:
            p = rng.choice(profs)
            key = rng.choice(["creation_restricted", "may_create_tables_views_mvs"])
            p[key] = not p[key]
            return f"flipped may_create on {p['profile']}"
    return None


# --------------------------------------------------------------------------
# Trino's answers for one profile

class Trino:
    """Every question this check may ask about one profile, asked in one oracle batch."""

    def __init__(self, opts, workdir, prof, rules_path, objects, users, unlisted, outside=None):
        self.queries, self.index = [], {}
        # bases of listed views in catalogs the profile does not cover: Trino still reads them
        self.outside = outside or {}

        def add(key, q):
            self.index[key] = len(self.queries)
            self.queries.append(q)

        for e in users:
            for ename, o in objects.items():
                c, s, t = ename.split(".")
                base = {"user": e, "catalog": c, "schema": s, "table": t}
                cols = [col["name"].lower() for col in o["columns"]]
                for mode in ("select", "view_owner_select"):
                    add((mode, e, ename, ()), {**base, "op": mode, "columns": []})
                    add((mode, e, ename, tuple(cols)), {**base, "op": mode, "columns": cols})
                for col in cols:
                    add(("select", e, ename, (col,)), {**base, "op": "select", "columns": [col]})
                for op in ("insert", "delete", "ownership"):
                    add((op, e, ename), {**base, "op": op, "columns": []})
                add(("update", e, ename), {**base, "op": "update", "columns": cols})
                for col in o["columns"]:
                    add(("column_mask", e, ename, col["name"].lower()),
                        {**base, "op": "column_mask", "column": col["name"].lower(), "type": col["type"]})
                add(("row_filters", e, ename), {**base, "op": "row_filters"})
            for ename in self.outside.values():
                c, s, t = ename.split(".")
                for mode in ("select", "view_owner_select"):
                    add((mode, e, ename, ()), {"user": e, "catalog": c, "schema": s, "table": t, "op": mode,
                                               "columns": []})
            for (c, s, t) in unlisted:
                for op in ("create_table", "create_mv", "create_view"):
                    add((op, e, f"{c}.{s}.{t}"), {"op": op, "user": e, "catalog": c, "schema": s, "table": t,
                                                  "columns": []})
        qpath = os.path.join(workdir, f"explain_queries_{prof.name}.jsonl")
        with open(qpath, "w", encoding="utf-8") as f:
            for q in self.queries:
                f.write(json.dumps(q, ensure_ascii=False) + "\n")
        self.answers, self.error = rd.run_oracle(opts, rules_path, qpath, qpath + ".answers")
        if self.answers is not None and len(self.answers) != len(self.queries):
            self.error = f"oracle gave {len(self.answers)} answers to {len(self.queries)} queries"

    def ask(self, *key):
        a = self.answers[self.index[key]]
        if not isinstance(a, dict) or "error" in a:
            raise RuntimeError(f"oracle error for {key!r}: {a!r}")
        return a

    def allow(self, *key):
        return bool(self.ask(*key)["allow"])


# --------------------------------------------------------------------------
# what Trino does when a user reads a whole view

def reads_view(trino, ref, prof, ename_of, objects, ident, mode, ename, seen=(), path=None):
    """"ok", "partial" or "no": `ident` (the session user of this level) reading every column of
    `ename` under `mode` (select: checkCanSelectFromColumns; view_owner_select: what
    ViewAccessControl asks instead), with Trino expanding views as StatementAnalyzer.analyzeView
    does: a view with an owner (DEFINER, or a materialized view) runs as its owner, under
    ViewAccessControl unless the owner is the session user; an INVOKER view runs as the session
    user under the same access control."""
    o = objects[ename]
    cols = tuple(c["name"].lower() for c in o["columns"])
    if path is None:
        path = []
    if not trino.allow(mode, ident, ename, ()):
        lacks = mode == "view_owner_select" and trino.allow("select", ident, ename, ())
        path.append(f"{mode} by {ident!r} on {ename} refused" + (" (SELECT held, no GRANT_SELECT)" if lacks else ""))
        return "no"
    out = "ok"
    if not trino.allow(mode, ident, ename, cols):
        path.append(f"{mode} by {ident!r} of every column of {ename} refused")
        out = "partial"
    if o["kind"] == "table" or ename in seen:
        return out
    if o["kind"] == "materialized_view" or o.get("view_security", "definer") == "definer":
        owner = ref.engine_user(o["owner"], prof)
        ident2, mode2 = owner, (mode if owner == ident else "view_owner_select")
    else:
        ident2, mode2 = ident, mode
    for d in o.get("depends_on") or []:
        de = ename_of.get(d)
        if de is None:  # outside the profile's catalogs: Trino reads it all the same, under its rules
            oe = trino.outside[d]
            if not trino.allow(mode2, ident2, oe, ()):
                path.append(f"{mode2} by {ident2!r} on {oe} (outside the profile) refused")
                return "no"
            continue
        r = reads_view(trino, ref, prof, ename_of, objects, ident2, mode2, de, seen + (ename,), path)
        if r == "no":
            return "no"
        if r == "partial":
            out = "partial"
    return out


# --------------------------------------------------------------------------
# one profile of one model

def check_profile(ref, prof, trino, explanations, objects, ename_of, unlisted, res):
    tag = prof.name
    for uname, ex in explanations.items():
        pe = next((p for p in ex.get("profiles", []) if p.get("profile") == prof.name), None)
        if pe is None or pe.get("status") != "ok":
            res.check(False, f"{tag}: explain of {uname!r} has no ok entry for the profile")
            continue
        e = pe["engine_user"]
        res.check(e == ref.engine_user(uname, prof),
                  f"{tag}: explain says {uname!r} is engine user {e!r}, expected {ref.engine_user(uname, prof)!r}")
        refusals = {}
        for r in pe["refused"]:
            refusals.setdefault(r["object"], []).append(r)
        policies = {o["object"]: o for o in pe["access_policies"]}
        for ename in sorted(set(refusals) | set(policies)):
            res.check(ename in objects, f"{tag} user {uname!r}: explain names {ename!r}, no listed object of it")
        for ename, o in objects.items():
            check_object(ref, prof, trino, uname, e, ename, o, refusals.get(ename, []), policies.get(ename),
                         objects, ename_of, res)
        # creation of names the snapshot does not list
        may = not pe["creation_restricted"]
        somewhere = False
        for (c, s, t) in unlisted:
            ename = f"{c}.{s}.{t}"
            owns = "OWNERSHIP" in ref.grant_privileges(uname, f"{prof.platform_catalog(c)}.{s}.{t}")
            for op in ("create_table", "create_mv", "create_view"):
                got = trino.allow(op, e, ename)
                somewhere = somewhere or got
                res.check(got == (may and owns),
                          f"{tag} user {uname!r} ({e!r}) {op} {ename}: Trino allow={got}, explain "
                          f"creation_restricted={not may} and the grants {'give' if owns else 'do not give'} "
                          "OWNERSHIP there")
        if somewhere:  # the names asked about are a sample: only a creation seen is proof
            res.check(pe["may_create_tables_views_mvs"],
                      f"{tag} user {uname!r} ({e!r}): Trino allows creating a new name, explain says "
                      "may_create_tables_views_mvs=false")


def check_object(ref, prof, trino, uname, e, ename, o, refusals, pol, objects, ename_of, res):
    where = f"{prof.name} user {uname!r} ({e!r}) {ename}"
    detail = [f"explain refusals {jdump(refusals)[:600]}" if refusals else "explain: no refusal",
              f"explain access_policies {jdump(pol)[:900]}" if pol else "explain: no access_policies entry"]
    cols = [c["name"].lower() for c in o["columns"]]
    granted = ref.grant_privileges(uname, o["name"])
    clearance = [r for r in refusals
                 if r.get("kind", "clearance") in ("clearance", "starrocks_coarsened", "creation_restricted")]
    definer = [r for r in refusals if r.get("kind") in ("definer_view_owner", "view_read")]
    for r in refusals:
        res.check(r.get("has_grant") == bool(granted),
                  f"{where}: refusal ({r.get('kind')}) says has_grant={r.get('has_grant')}, the grants give "
                  f"{sorted(granted)}", *detail)
    # privileges
    withheld = set()
    for r in clearance:
        withheld |= set(r.get("withheld") or [])
    if pol is not None:
        claimed = set(pol["effective"]["privileges"])
        if clearance:
            res.check(withheld == granted - claimed,
                      f"{where}: refusal withholds {sorted(withheld)}, but granted {sorted(granted)} less "
                      f"effective {sorted(claimed)} is {sorted(granted - claimed)}", *detail)
    else:
        claimed = granted - withheld
    whole = any(r.get("whole_object") for r in clearance)
    if whole:
        res.check("SELECT" not in claimed, f"{where}: refused whole but effective privileges hold SELECT", *detail)
    for p in PRIVILEGES:
        op = OPS[p]
        got = trino.allow(op, e, ename, ()) if op == "select" else trino.allow(op, e, ename)
        res.check(got == (p in claimed),
                  f"{where}: {op}: Trino allow={got}, explain claims {'held' if p in claimed else 'not held'}",
                  f"granted {sorted(granted)}", *detail)
    # columns
    refused = set()
    for r in clearance:
        refused |= set(cols) if r.get("whole_object") else set(r.get("columns") or [])
    if pol is not None:
        denied = set(pol["effective"]["denied_columns"])
        if "SELECT" in claimed:
            gated = set()
            for r in clearance:
                if not r.get("whole_object"):
                    gated |= set(r.get("columns") or [])
            res.check(gated <= denied, f"{where}: refused columns {sorted(gated - denied)} are not in "
                      f"effective denied_columns {sorted(denied)}", *detail)
        refused |= denied
    for col in cols:
        want = "SELECT" in claimed and col not in refused
        got = trino.allow("select", e, ename, (col,))
        res.check(got == want, f"{where}: select {col!r}: Trino allow={got}, explain claims "
                  f"{'readable' if want else 'refused'}", *detail)
    # masks and row filter
    exprs = (pol or {}).get("engine_expressions") or {}
    masks = exprs.get("trino_masks") or {}
    kinds = {m["column"]: m for m in ((pol or {}).get("effective") or {}).get("masks", [])}
    res.check(set(kinds) == set(masks), f"{where}: effective masks on {sorted(kinds)} but engine masks on "
              f"{sorted(masks)}", *detail)
    for col in cols:
        got = trino.ask("column_mask", e, ename, col).get("mask")
        res.check(got == masks.get(col), f"{where}: mask of {col!r}: Trino {got!r}, explain {masks.get(col)!r}",
                  *detail)
        if col in kinds and col in masks:
            is_null = masks[col].startswith("CAST(NULL AS ")
            res.check((kinds[col]["mask"] == "null") == is_null,
                      f"{where}: mask of {col!r} claimed {kinds[col]['mask']!r} but enforced as {masks[col]!r}",
                      *detail)
    want_filter = exprs.get("trino_filter")
    got = trino.ask("row_filters", e, ename).get("filters")
    res.check(got == ([want_filter] if want_filter else []),
              f"{where}: row filters: Trino {got!r}, explain {want_filter!r}", *detail)
    if pol is not None:
        no_rows = pol["effective"]["row_filter"] == {"false": True}
        res.check(no_rows == (want_filter == "1 = 0"),
                  f"{where}: row_filter {jdump(pol['effective']['row_filter'])} but the engine filter is "
                  f"{want_filter!r}", *detail)
    # reading the whole object, views expanded as Trino does
    if "SELECT" in claimed:
        if any(r.get("whole_object") for r in definer):
            want = "no"
        elif definer or (refused & set(cols)):
            want = "partial"
        else:
            want = "ok"
        path = []
        got = reads_view(trino, ref, prof, ename_of, objects, e, "select", ename, path=path)
        res.check(got == want, f"{where}: reading every column: Trino {got}, explain claims {want}",
                  "Trino: " + "; ".join(path), *detail)
    else:
        res.check(not definer, f"{where}: a refusal of a read through the view for a user who holds no SELECT",
                  *detail)


# --------------------------------------------------------------------------
# one model

def unlisted_names(snapshot, prof, objects):
    """Engine names the snapshot does not list: a fresh one per catalog, and one inside every
    grant pattern with OWNERSHIP (its `*` parts filled in), where creation is up to may_create."""
    out = [(prof.engine_catalog(c), "zz_fresh_schema", "zz_new_table") for c in prof.catalogs]
    for g in snapshot["grants"]:
        if "OWNERSHIP" not in g["privileges"]:
            continue
        c, s, t = g["object"].split(".")
        for pc in (prof.catalogs if c == "*" else [c] if c in prof.catalogs else []):
            name = (prof.engine_catalog(pc), "zz_fresh_schema" if s == "*" else s.lower(),
                    "zz_new_table" if t == "*" else t.lower())
            if ".".join(name) not in objects and name not in out:
                out.append(name)
    return out


def run_model(seed, opts):
    return rd.in_model_workdir(seed, opts, "tw-explain", lambda workdir: Result(seed),
                               lambda workdir, res: _run_model(seed, opts, workdir, res))


def _run_model(seed, opts, workdir, res):
    snapshot, config = rd.write_model(seed, opts.size, workdir)
    copts = types.SimpleNamespace(tagwarden=opts.tagwarden, now=None)
    scratch = rd.Result(seed, workdir)
    out = rd.run_compile(copts, workdir, scratch)
    if out is None:
        res.check(False, "compile failed", *[d for _, ds in scratch.fails for d in ds])
        return
    explanations = {u["name"]: run_explain(opts, workdir, u["name"]) for u in snapshot["users"]}
    if opts.mutate:
        rng = random.Random(seed)
        changed = [mutate(opts.mutate, ex, rng) for ex in explanations.values()]
        if not any(changed):
            print(f"  model seed={seed}: nothing to mutate ({opts.mutate})", file=sys.stderr)
    ref = Reference(snapshot)
    for raw in config["profiles"]:
        prof = Profile(raw)
        objects, ename_of = {}, {}
        for o in snapshot["objects"]:
            if ref.visible(o, prof):
                ename = ref.engine_object_name(o, prof)
                objects[ename] = o
                ename_of[o["name"]] = ename
        unlisted = unlisted_names(snapshot, prof, objects)
        users = sorted({ref.engine_user(n, prof) for n in ref.users})
        outside = {}
        by_name = {o["name"]: o for o in snapshot["objects"]}
        for o in objects.values():
            for d in o.get("depends_on") or []:
                if d not in ename_of:
                    outside[d] = ref.engine_object_name(by_name[d], prof)
        trino = Trino(opts, workdir, prof, os.path.join(out, prof.name, "rules.json"), objects, users, unlisted,
                      outside)
        if trino.error:
            res.check(False, f"trino {prof.name}: {trino.error}")
            continue
        check_profile(ref, prof, trino, explanations, objects, ename_of, unlisted, res)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, default=5)
    ap.add_argument("--seed", type=int, default=20261284)
    ap.add_argument("--size", default="small", choices=sorted(gen_model.SIZES))
    ap.add_argument("--tagwarden", required=True, help="path to the tagwarden binary")
    ap.add_argument("--oracle", required=True, help="path to tests/trino-oracle/run.sh")
    ap.add_argument("--keep", help="keep every model's files under this directory")
    ap.add_argument("--mutate", choices=MUTATIONS, help="alter explain's answers: the run must fail")
    opts = ap.parse_args(argv)
    for what, path in (("--tagwarden", opts.tagwarden), ("--oracle", opts.oracle)):
        if not os.path.isfile(path):
            print(f"explain_check: {what} {path}: no such file", file=sys.stderr)
            return 2
    opts.tagwarden = os.path.abspath(opts.tagwarden)
    opts.oracle = os.path.abspath(opts.oracle)
    opts.oracle_mode = "auto"
    if opts.keep:
        opts.keep = os.path.abspath(opts.keep)
        os.makedirs(opts.keep, exist_ok=True)
    t0 = time.time()
    results = []
    for i in range(opts.models):
        r = run_model(opts.seed + i, opts)
        results.append(r)
        print(f"  model seed={r.seed}: {r.passed} passed, {r.failed} failed", file=sys.stderr, flush=True)
    rd._close_multi()
    shown = 0
    for r in results:
        for summary, detail in r.fails:
            shown += 1
            print(("FAIL " if shown <= DETAIL else "fail ") + summary)
            if shown <= DETAIL:
                for d in detail:
                    print("    " + d)
    passed = sum(r.passed for r in results)
    failed = sum(r.failed for r in results)
    print(f"({opts.models} models, seeds {opts.seed}..{opts.seed + opts.models - 1}, {time.time() - t0:.1f}s)")
    print(f"explain-check: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
