"""Black-box scenarios of MODEL.md section 4 (access policies), judged by Trino's evaluator.

Each scenario is a small snapshot and the answers Trino must give per user, written from the
contract (MODEL.md section 4, seeds 000, 001 and 004, docs/semantics.md where they are silent),
not from reference.py. The compiled rules.json is loaded by the trino-oracle (Trino's own
FileBasedSystemAccessControl).

Run: TAGWARDEN_BIN=build/tagwarden TRINO_ORACLE=/abs/tests/trino-oracle/run.sh \\
     python3 -m unittest discover -s tests/differential -p 'test_policy_scenarios.py'
Skipped unless both variables name executables. About 60 scenarios, one oracle start each
(a few minutes on a loaded 2-core machine).
"""

import json
import os
import subprocess
import tempfile
import unittest

TW = os.environ.get("TAGWARDEN_BIN", "")
ORACLE = os.environ.get("TRINO_ORACLE", "")
ENABLED = all(p and os.access(p, os.X_OK) for p in (TW, ORACLE))

FULL = "'****'"


def partial(col, n):
    return f"CASE WHEN length(\"{col}\") <= {n} THEN '****' ELSE concat('****', substr(\"{col}\", -{n})) END"


def hashed(col):
    return f'lower(to_hex(sha256(to_utf8("{col}"))))'


def null(t="varchar"):
    return f"CAST(NULL AS {t})"


def V(*names):
    return [{"name": n, "type": "varchar"} for n in names]


def table(name, columns, **kw):
    return {"name": name, "kind": "table", "owner": "own", "columns": columns, **kw}


def snapshot(users, objects, policies, role_assignments=(), classifications=()):
    users = [{"name": "own"}] + list(users)
    return {
        "version": 1, "generated_at": "2026-11-30T12:00:00Z", "users": users,
        "roles": ["analyst", "steward"], "role_assignments": list(role_assignments),
        "classifications": list(classifications), "objects": list(objects),
        # Every user may read everything: only the policies under test take anything away.
        "grants": [{"principal": {"user": u["name"]}, "object": "*.*.*", "privileges": ["SELECT"]} for u in users],
        "policies": list(policies),
    }


# The users most scenarios share: how each holds analyst and steward.
PEOPLE = [
    {"name": "alice"},                       # analyst, directly
    {"name": "bob"},                         # analyst and steward, directly
    {"name": "carol", "groups": ["g1"]},     # analyst through group g1
    {"name": "dave"},                        # analyst, expired
    {"name": "erin"},                        # no role
    {"name": "ivan", "groups": ["gs"]},      # analyst directly, steward through group gs
    {"name": "adm", "platform_admin": True},  # analyst; admins are exempt from nothing
]
PEOPLE_ROLES = [
    {"role": "analyst", "user": "alice"}, {"role": "analyst", "user": "bob"}, {"role": "steward", "user": "bob"},
    {"role": "analyst", "group": "g1"},
    {"role": "analyst", "user": "dave", "expires_at": "2026-11-01T00:00:00Z"},
    {"role": "analyst", "user": "ivan"}, {"role": "steward", "group": "gs"}, {"role": "analyst", "user": "adm"},
]
EVERYONE = [u["name"] for u in PEOPLE]


def by_user(expected, users=EVERYONE):
    """{user: answer} from a default and exceptions: by_user((default, {user: other}))."""
    default, exceptions = expected
    return {u: exceptions.get(u, default) for u in users}


class Scenario:
    def __init__(self, name, snap):
        self.name, self.snap, self.checks = name, snap, []

    def mask(self, obj, column, expected, type_="varchar"):
        for user, sql in expected.items():
            self.checks.append(({"op": "column_mask", "column": column, "type": type_}, user, obj, {"mask": sql}))
        return self

    def filters(self, obj, expected):
        for user, f in expected.items():
            self.checks.append(({"op": "row_filters"}, user, obj, {"filters": f}))
        return self

    def select(self, obj, columns, expected):
        for user, allow in expected.items():
            self.checks.append(({"op": "select", "columns": columns}, user, obj, {"allow": allow}))
        return self

    def visible(self, obj, columns, expected):
        for user, cols in expected.items():
            self.checks.append(({"op": "filter_columns", "columns": columns}, user, obj, {"columns": cols}))
        return self


def scenarios():
    out = []
    S = lambda name, objs, pols, **kw: out.append(  # noqa: E731
        Scenario(name, snapshot(kw.get("users", PEOPLE), objs, pols, kw.get("ras", PEOPLE_ROLES),
                                kw.get("cls", ()))))
    t = table("c.s.t", V("a", "b"))

    # --- masks: kinds ---
    S("full mask", [t], [{"name": "m", "type": "column_mask", "mask": "full", "scope": {"column": "c.s.t.a"}}])
    out[-1].mask("c.s.t", "a", by_user((FULL, {}))).mask("c.s.t", "b", by_user((None, {})))
    for n in (1, 4, 8):
        S(f"partial mask {n}", [t], [{"name": "m", "type": "column_mask", "mask": "partial", "visible_chars": n,
                                      "scope": {"column": "c.s.t.a"}}])
        out[-1].mask("c.s.t", "a", by_user((partial("a", n), {})))
    S("hash mask", [t], [{"name": "m", "type": "column_mask", "mask": "hash", "scope": {"column": "c.s.t.a"}}])
    out[-1].mask("c.s.t", "a", by_user((hashed("a"), {})))
    S("null mask", [t], [{"name": "m", "type": "column_mask", "mask": "null", "scope": {"column": "c.s.t.a"}}])
    out[-1].mask("c.s.t", "a", by_user((null(), {})))
    S("partial and hash masks of a char(n) column read the value, not its padding",
      [table("c.s.c", [{"name": "ch", "type": "char(10)"}])],
      [{"name": "m", "type": "column_mask", "mask": "partial", "visible_chars": 8, "scope": {"column": "c.s.c.ch"},
        "applies_to": {"users": ["alice"]}},
       {"name": "h", "type": "column_mask", "mask": "hash", "scope": {"column": "c.s.c.ch"},
        "applies_to": {"users": ["erin"]}}])
    out[-1].mask("c.s.c", "ch", {
        "alice": "CAST(CASE WHEN length(CAST(\"ch\" AS varchar)) <= 8 THEN '****' "
                 "ELSE concat('****', substr(CAST(\"ch\" AS varchar), -8)) END AS char(10))",
        "erin": "CAST(lower(to_hex(sha256(to_utf8(CAST(\"ch\" AS varchar))))) AS char(10))", "bob": None}, "char(10)")
    typed = table("c.s.typed", [{"name": "d", "type": "date"}, {"name": "ts", "type": "timestamp(3)"},
                                {"name": "n", "type": "bigint"}, {"name": "x", "type": "decimal(10,2)"},
                                {"name": "f", "type": "boolean"}])
    for kind in ("full", "partial", "hash"):
        pol = {"name": "m", "type": "column_mask", "mask": kind, "scope": {"object": "c.s.typed"}}
        if kind == "partial":
            pol["visible_chars"] = 3
        S(f"{kind} mask of non-text columns is a typed NULL", [typed], [pol])
        for col, typ in [("d", "date"), ("ts", "timestamp(3)"), ("n", "bigint"), ("x", "decimal(10,2)"),
                         ("f", "boolean")]:
            out[-1].mask("c.s.typed", col, {"alice": null(typ)}, typ)

    # --- applies_to / exempt ---
    S("applies_to a role (direct or group, not expired), exempt a direct role", [t],
      [{"name": "m", "type": "column_mask", "mask": "full", "scope": {"column": "c.s.t.a"},
        "applies_to": {"roles": ["analyst"]}, "exempt": {"roles": ["steward"]}}])
    out[-1].mask("c.s.t", "a", by_user((FULL, {"bob": None, "dave": None, "erin": None})))
    S("applies_to and exempt by user", [t],
      [{"name": "m", "type": "column_mask", "mask": "null", "scope": {"column": "c.s.t.a"},
        "applies_to": {"users": ["alice", "erin"]}, "exempt": {"users": ["erin"]}}])
    out[-1].mask("c.s.t", "a", by_user((None, {"alice": null()})))
    S("empty applies_to is everyone", [t],
      [{"name": "m", "type": "column_mask", "mask": "full", "scope": {"column": "c.s.t.a"},
        "applies_to": {"roles": [], "users": []}, "exempt": {"roles": [], "users": []}}])
    out[-1].mask("c.s.t", "a", by_user((FULL, {})))

    # --- scopes ---
    tags = [{"name": "T"}, {"name": "L2", "level": 2}, {"name": "L3", "level": 3}, {"name": "L5", "level": 5}]
    S("tag on the object masks every column", [table("c.s.o", V("a", "b"), tags=["T"])],
      [{"name": "m", "type": "column_mask", "mask": "hash", "scope": {"tag": "T"}}], cls=tags)
    out[-1].mask("c.s.o", "a", {"alice": hashed("a")}).mask("c.s.o", "b", {"alice": hashed("b")})
    S("tag on a column masks that column", [table("c.s.o", [{"name": "a", "type": "varchar", "tags": ["T"]},
                                                            {"name": "b", "type": "varchar"}])],
      [{"name": "m", "type": "column_mask", "mask": "hash", "scope": {"tag": "T"}}], cls=tags)
    out[-1].mask("c.s.o", "a", {"alice": hashed("a")}).mask("c.s.o", "b", {"alice": None})
    doms = [table("c.d.fin", V("a"), domain="fin"), table("c.d.finx", V("a"), domain="fin/x"),
            table("c.d.finance", V("a"), domain="finance"), table("c.d.none", V("a"))]
    S("domain scope: sub-domains yes, a string prefix no", doms,
      [{"name": "d", "type": "deny", "scope": {"domain": "fin"}}])
    for o, allow in [("c.d.fin", False), ("c.d.finx", False), ("c.d.finance", True), ("c.d.none", True)]:
        out[-1].select(o, ["a"], {"alice": allow})
    lv = [table("c.l.t2", V("a"), tags=["L2"]), table("c.l.t3", V("a"), tags=["L3"]),
          table("c.l.col", [{"name": "a", "type": "varchar", "tags": ["L5"]}, {"name": "b", "type": "varchar",
                                                                              "tags": ["L2"]}]),
          {"name": "c.l.v3", "kind": "view", "owner": "own", "view_security": "invoker", "depends_on": ["c.l.t3"],
           "columns": V("a")}]
    S("level_at_least: own, column and inherited tags", lv,
      [{"name": "m", "type": "column_mask", "mask": "null", "scope": {"level_at_least": 3}}], cls=tags)
    out[-1].mask("c.l.t2", "a", {"alice": None}).mask("c.l.t3", "a", {"alice": null()})
    out[-1].mask("c.l.col", "a", {"alice": null()}).mask("c.l.col", "b", {"alice": None})
    out[-1].mask("c.l.v3", "a", {"alice": null()})

    # --- combining ---
    pairs = [("p2p6", [("partial", 2), ("partial", 6)], partial("p2p6", 2)),
             ("p2full", [("partial", 2), ("full", None)], FULL),
             ("hashpart", [("hash", None), ("partial", 1)], hashed("hashpart")),
             ("nullfull", [("null", None), ("full", None)], null()),
             ("hashfull", [("hash", None), ("full", None)], FULL)]
    for col, masks, want in pairs:
        pols = []
        for i, (kind, n) in enumerate(masks):
            p = {"name": f"m{i}", "type": "column_mask", "mask": kind, "scope": {"column": f"c.s.t.a"}}
            if n:
                p["visible_chars"] = n
            pols.append(p)
        S(f"strictest mask wins: {col}", [t], pols)
        out[-1].mask("c.s.t", "a", {"alice": want.replace(f'"{col}"', '"a"')})
    S("disabled policies count for nothing", [t],
      [{"name": "d", "type": "deny", "enabled": False, "scope": {"object": "c.s.t"}},
       {"name": "m", "type": "column_mask", "mask": "null", "enabled": False, "scope": {"object": "c.s.t"}},
       {"name": "f", "type": "row_filter", "enabled": False, "scope": {"object": "c.s.t"},
        "condition": {"false": True}}])
    out[-1].select("c.s.t", ["a", "b"], {"alice": True}).mask("c.s.t", "a", {"alice": None})
    out[-1].filters("c.s.t", {"alice": []})
    S("deny of a column refuses it and drops its mask", [t],
      [{"name": "d", "type": "deny", "scope": {"column": "c.s.t.a"}, "applies_to": {"users": ["alice"]}},
       {"name": "m", "type": "column_mask", "mask": "full", "scope": {"object": "c.s.t"}}])
    out[-1].visible("c.s.t", ["a", "b"], {"alice": ["b"], "erin": ["a", "b"]})
    out[-1].mask("c.s.t", "b", {"alice": FULL}).mask("c.s.t", "a", {"erin": FULL})
    S("deny of the object wins over masks and filters", [t],
      [{"name": "d", "type": "deny", "scope": {"object": "c.s.t"}, "applies_to": {"roles": ["analyst"]},
        "exempt": {"roles": ["steward"]}},
       {"name": "f", "type": "row_filter", "scope": {"object": "c.s.t"}, "condition": {"true": True}}])
    out[-1].select("c.s.t", [], by_user((False, {"bob": True, "dave": True, "erin": True})))
    S("deny by a tag on a column refuses the column only",
      [table("c.s.o", [{"name": "a", "type": "varchar", "tags": ["T"]}, {"name": "b", "type": "varchar"}])],
      [{"name": "d", "type": "deny", "scope": {"tag": "T"}}], cls=tags)
    out[-1].visible("c.s.o", ["a", "b"], {"alice": ["b"]})
    S("deny by a tag on the object refuses the object", [table("c.s.o", V("a"), tags=["T"])],
      [{"name": "d", "type": "deny", "scope": {"tag": "T"}}], cls=tags)
    out[-1].select("c.s.o", [], {"alice": False})

    # --- row filters ---
    r = table("c.r.t", [{"name": "region", "type": "varchar"}, {"name": "amt", "type": "bigint"},
                        {"name": "day", "type": "date"}, {"name": "flag", "type": "boolean"},
                        {"name": "price", "type": "decimal(10,2)"}, {"name": "owner", "type": "varchar"}])
    hostile = "EU' OR 1=1 --\\ é日 .*[a]$ %_"
    fusers = [{"name": "eu", "attributes": {"region": "EU", "regions": ["EU", "US"], "n": 5}},
              {"name": "none"}, {"name": "lst", "attributes": {"region": ["EU"]}},
              {"name": "num", "attributes": {"region": 5, "n": "5"}}, {"name": "empty", "attributes": {"region": "",
                                                                                                       "regions": []}},
              {"name": "o'brien", "attributes": {"region": hostile, "regions": ["a'b", "c\\d"]}}]
    fras = [{"role": "analyst", "user": "eu"}, {"role": "steward", "user": "eu"},
            {"role": "analyst", "user": "o'brien"}, {"role": "steward", "user": "o'brien",
                                                    "expires_at": "2026-11-01T00:00:00Z"}]
    fnames = [u["name"] for u in fusers]

    def F(name, cond, expected):
        S(name, [r], [{"name": "f", "type": "row_filter", "scope": {"object": "c.r.t"}, "condition": cond}],
          users=fusers, ras=fras)
        out[-1].filters("c.r.t", by_user(expected, fnames))

    F("eq a literal", {"column": "region", "op": "eq", "value": "EU"}, (["\"region\" = 'EU'"], {}))
    F("ne", {"column": "region", "op": "ne", "value": "EU"}, (["\"region\" <> 'EU'"], {}))
    F("gt", {"column": "amt", "op": "gt", "value": 100}, (["\"amt\" > 100"], {}))
    F("gte decimal", {"column": "price", "op": "gte", "value": 1.5}, (["\"price\" >= DECIMAL '1.5'"], {}))
    F("lt date", {"column": "day", "op": "lt", "value": "2026-01-01"}, (["\"day\" < DATE '2026-01-01'"], {}))
    F("lte negative", {"column": "amt", "op": "lte", "value": -3}, (["\"amt\" <= -3"], {}))
    F("eq boolean", {"column": "flag", "op": "eq", "value": True}, (["\"flag\" = TRUE"], {}))
    F("in literals, quoted", {"column": "region", "op": "in", "values": ["EU", "U'S"]},
      (["\"region\" IN ('EU', 'U''S')"], {}))
    F("not_in", {"column": "region", "op": "not_in", "values": ["EU"]}, (["\"region\" NOT IN ('EU')"], {}))
    F("in [] is no rows", {"column": "region", "op": "in", "values": []}, (["1 = 0"], {}))
    F("is_null", {"column": "day", "op": "is_null"}, (["\"day\" IS NULL"], {}))
    F("is_not_null", {"column": "day", "op": "is_not_null"}, (["\"day\" IS NOT NULL"], {}))
    F("and of two", {"and": [{"column": "region", "op": "eq", "value": "EU"},
                             {"column": "amt", "op": "gt", "value": 1}]},
      (["(\"region\" = 'EU') AND (\"amt\" > 1)"], {}))
    F("or of three", {"or": [{"column": "region", "op": "eq", "value": "EU"}, {"column": "amt", "op": "gt", "value": 1},
                             {"column": "flag", "op": "eq", "value": False}]},
      (["(\"region\" = 'EU') OR (\"amt\" > 1) OR (\"flag\" = FALSE)"], {}))
    F("and of one is no rows", {"and": [{"column": "region", "op": "eq", "value": "EU"}]}, (["1 = 0"], {}))
    F("true", {"true": True}, (["true"], {}))
    F("false", {"false": True}, (["1 = 0"], {}))
    F("$user attributes: missing, empty, list or number is no rows",
      {"column": "region", "op": "eq", "value": {"$user": "attributes.region"}},
      (["1 = 0"], {"eu": ["\"region\" = 'EU'"], "o'brien": ["\"region\" = 'EU'' OR 1=1 --\\ é日 .*[a]$ %_'"]}))
    F("$user attribute number on a bigint", {"column": "amt", "op": "eq", "value": {"$user": "attributes.n"}},
      (["1 = 0"], {"eu": ["\"amt\" = 5"]}))
    F("$user attribute list for in; empty list is no rows",
      {"column": "region", "op": "in", "values": {"$user": "attributes.regions"}},
      (["1 = 0"], {"eu": ["\"region\" IN ('EU', 'US')"], "o'brien": ["\"region\" IN ('a''b', 'c\\d')"]}))
    F("$user name, quoted", {"column": "owner", "op": "eq", "value": {"$user": "name"}},
      ([], {u: [f"\"owner\" = '{u.replace(chr(39), chr(39) * 2)}'"] for u in fnames}))
    F("$user roles: direct and unexpired; none is no rows, under not_in too",
      {"column": "region", "op": "not_in", "value": {"$user": "roles"}},
      (["1 = 0"], {"eu": ["\"region\" NOT IN ('analyst', 'steward')"], "o'brien": ["\"region\" NOT IN ('analyst')"]}))
    F("unknown operator is no rows", {"column": "region", "op": "like", "value": "E%"}, (["1 = 0"], {}))
    F("unknown column is no rows", {"column": "nope", "op": "eq", "value": "x"}, (["1 = 0"], {}))
    F("column names match exactly, case included", {"column": "Region", "op": "eq", "value": "EU"}, (["1 = 0"], {}))
    F("a null value is no rows", {"column": "region", "op": "eq", "value": None}, (["1 = 0"], {}))
    F("a value of the wrong type is no rows", {"column": "amt", "op": "eq", "value": "abc"}, (["1 = 0"], {}))
    F("an unsatisfiable branch of an or is no rows",
      {"or": [{"column": "region", "op": "eq", "value": {"$user": "attributes.region"}}, {"true": True}]},
      (["1 = 0"], {"eu": ["(\"region\" = 'EU') OR (true)"],
                   "o'brien": ["(\"region\" = 'EU'' OR 1=1 --\\ é日 .*[a]$ %_') OR (true)"]}))
    F("hostile literal stays one literal", {"column": "region", "op": "eq", "value": "x'); DROP TABLE t; --\\'"},
      (["\"region\" = 'x''); DROP TABLE t; --\\'''"], {}))
    S("row filters are ANDed; applies_to narrows one", [r],
      [{"name": "f1", "type": "row_filter", "scope": {"object": "c.r.t"},
        "condition": {"column": "region", "op": "eq", "value": "EU"}},
       {"name": "f2", "type": "row_filter", "scope": {"object": "c.r.t"},
        "condition": {"column": "amt", "op": "gt", "value": 10}, "applies_to": {"roles": ["analyst"]}}])
    out[-1].filters("c.r.t", by_user((["(\"region\" = 'EU') AND (\"amt\" > 10)"],
                                      {"erin": ["\"region\" = 'EU'"], "dave": ["\"region\" = 'EU'"]})))
    S("a row filter exempts direct unexpired roles only", [r],
      [{"name": "f", "type": "row_filter", "scope": {"object": "c.r.t"}, "condition": {"false": True},
        "exempt": {"roles": ["steward"]}}])
    out[-1].filters("c.r.t", by_user((["1 = 0"], {"bob": []})))
    return out


@unittest.skipUnless(ENABLED, "set TAGWARDEN_BIN and TRINO_ORACLE")
class PolicyScenarios(unittest.TestCase):
    def test_scenarios(self):
        all_scenarios = scenarios()
        self.assertGreaterEqual(len(all_scenarios), 40)
        with tempfile.TemporaryDirectory() as tmp:
            for i, sc in enumerate(all_scenarios):
                with self.subTest(sc.name):
                    d = os.path.join(tmp, str(i))
                    os.makedirs(d)
                    with open(os.path.join(d, "s.json"), "w") as f:
                        json.dump(sc.snap, f)
                    with open(os.path.join(d, "p.json"), "w") as f:
                        json.dump({"profiles": [{"name": "tr", "engine": "trino", "catalogs": ["c"]}]}, f)
                    r = subprocess.run([TW, "compile", "--snapshot", f"{d}/s.json", "--config", f"{d}/p.json",
                                        "--out", f"{d}/o"], capture_output=True, text=True)
                    self.assertEqual(r.returncode, 0, r.stderr)
                    queries = []
                    for q, user, obj, _ in sc.checks:
                        c, s, t = obj.split(".")
                        queries.append({**q, "user": user, "catalog": c, "schema": s, "table": t})
                    r = subprocess.run([ORACLE, f"{d}/o/tr/rules.json"], capture_output=True, text=True,
                                       input="".join(json.dumps(q) + "\n" for q in queries))
                    answers = [json.loads(line) for line in r.stdout.split("\n") if line.strip()]
                    self.assertEqual(len(answers), len(queries), r.stderr)
                    for (q, user, obj, want), got in zip(sc.checks, answers):
                        self.assertEqual(got, want, f"{sc.name}: {user} {q} on {obj}")


if __name__ == "__main__":
    unittest.main()
