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


def partial(col, n, fully_masked_through=None):
    through = fully_masked_through or n
    return f"CASE WHEN length(\"{col}\") <= {through} THEN '****' ELSE concat('****', substr(\"{col}\", -{n})) END"


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


TRINO_PROFILE = {"name": "tr", "engine": "trino", "catalogs": ["c"]}


class Scenario:
    def __init__(self, name, snap, profile=None):
        self.name, self.snap, self.checks = name, snap, []
        self.profile = profile or TRINO_PROFILE

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

    def allowed(self, obj, op, expected, **query):
        """{user: allow} for one of the oracle's yes/no ops (insert, delete, ownership, update ...)."""
        for user, allow in expected.items():
            self.checks.append(({"op": op, **query}, user, obj, {"allow": allow}))
        return self

    def listed(self, obj, names, expected):
        """{user: [listed table names]} among `names`, tables of obj's schema (filterTables)."""
        schema = obj.split(".")[1]
        for user, tables in expected.items():
            self.checks.append(({"op": "filter_tables", "tables": [[schema, n] for n in names]}, user, obj,
                                {"tables": [[schema, n] for n in tables]}))
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
    # Two partial masks: the fewer characters shown, and values partial 6 hides whole stay hidden.
    pairs = [("p2p6", [("partial", 2), ("partial", 6)], partial("p2p6", 2, 6)),
             ("p6p2", [("partial", 6), ("partial", 2)], partial("p6p2", 2, 6)),
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
    # a literal null value refuses the snapshot (seed 004): tests/unit/test_load_policies_null.cpp
    F("a number with a zero fraction on a bigint is the integer", {"column": "amt", "op": "eq", "value": 5.0},
      (["\"amt\" = 5"], {}))
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
    out.extend(traceability_scenarios())
    return out


def traceability_scenarios():
    """Statements of MODEL.md sections 3-4 and seeds 000/001/004 the scenarios above left open
    (the traceability audit): each would fail if its statement were violated."""
    out = []
    S = lambda name, objs, pols, **kw: out.append(  # noqa: E731
        Scenario(name, snapshot(kw.get("users", PEOPLE), objs, pols, kw.get("ras", PEOPLE_ROLES),
                                kw.get("cls", ())), kw.get("profile")))
    t = table("c.s.t", V("a", "b"))

    # MODEL §3 user_map, semantics.md: policies name platform users; the rules match engine names.
    # alice is renamed "al"; carol is renamed to "alice", which Trino must now treat as carol.
    mapped = dict(TRINO_PROFILE, user_map={"alice": "al", "carol": "alice"})
    users = [{"name": "alice", "attributes": {"region": "EU"}}, {"name": "bob", "engine_user": "bobby"},
             {"name": "carol", "groups": ["g1"]}]
    S("user_map: applies_to, exempt and $user name are platform names; rules match engine names",
      [table("c.s.t", V("a", "b", "region", "owner"))],
      [{"name": "m", "type": "column_mask", "mask": "full", "scope": {"column": "c.s.t.a"},
        "applies_to": {"users": ["alice", "bob"]}},
       {"name": "d", "type": "deny", "scope": {"column": "c.s.t.b"}, "applies_to": {"roles": ["analyst"]}},
       {"name": "f", "type": "row_filter", "scope": {"object": "c.s.t"},
        "condition": {"column": "owner", "op": "eq", "value": {"$user": "name"}}, "exempt": {"roles": ["steward"]}}],
      users=users, ras=[{"role": "analyst", "user": "alice"}, {"role": "steward", "user": "bob"},
                        {"role": "analyst", "group": "g1"}], profile=mapped)
    out[-1].mask("c.s.t", "a", {"al": FULL, "bobby": FULL, "alice": None, "bob": None})
    out[-1].visible("c.s.t", ["a", "b"], {"al": ["a"], "alice": ["a"], "bobby": ["a", "b"], "bob": [], "carol": []})
    out[-1].filters("c.s.t", {"al": ["\"owner\" = 'alice'"], "alice": ["\"owner\" = 'carol'"], "bobby": []})

    # §4 combining through scopes: two tags (one on the column, one on the object) and a level
    # reach one column; the strictest of the masks that reach it wins.
    cls = [{"name": "T1"}, {"name": "T2"}, {"name": "L", "level": 4}]
    S("two masks reaching one column through two tags: the strictest wins",
      [table("c.s.o", [{"name": "a", "type": "varchar", "tags": ["T1"]},
                       {"name": "b", "type": "varchar", "tags": ["L"]}, {"name": "x", "type": "varchar"}],
             tags=["T2"])],
      [{"name": "m1", "type": "column_mask", "mask": "partial", "visible_chars": 4, "scope": {"tag": "T1"}},
       {"name": "m2", "type": "column_mask", "mask": "hash", "scope": {"tag": "T2"}},
       {"name": "m3", "type": "column_mask", "mask": "full", "scope": {"level_at_least": 3},
        "applies_to": {"users": ["alice"]}}], cls=cls)
    out[-1].mask("c.s.o", "a", {"alice": hashed("a"), "erin": hashed("a")})
    out[-1].mask("c.s.o", "b", {"alice": FULL, "erin": hashed("b")}).mask("c.s.o", "x", {"alice": hashed("x")})

    # applies_to / exempt at their boundaries: an expired or group-held role exempts nobody; a user
    # exempted by name is exempt though a role reaches them; a role whose only holder expired
    # reaches nobody.
    ras = PEOPLE_ROLES + [{"role": "steward", "user": "alice", "expires_at": "2026-11-30T12:00:00Z"}]
    S("exempt: an expired or group role does not exempt, a named user does; an expired role reaches nobody", [t],
      [{"name": "m", "type": "column_mask", "mask": "null", "scope": {"column": "c.s.t.a"},
        "applies_to": {"roles": ["analyst"]}, "exempt": {"roles": ["steward"], "users": ["carol"]}},
       {"name": "d", "type": "deny", "scope": {"column": "c.s.t.b"}, "applies_to": {"roles": ["steward"]},
        "exempt": {"users": ["bob"]}}], ras=ras)
    out[-1].mask("c.s.t", "a", by_user((null(), {"bob": None, "carol": None, "dave": None, "erin": None})))
    # applies_to counts a role held through a group (ivan holds steward through gs): he is denied b.
    out[-1].visible("c.s.t", ["a", "b"], by_user((["a", "b"], {"ivan": ["a"]})))

    # After clearances: a column refused by a clearance is not read at all, so it gets no mask; the
    # cleared (steward held directly: bob) read it masked.
    S("a column refused by a clearance gets no mask; the cleared read it masked",
      [table("c.s.g", [{"name": "a", "type": "varchar", "tags": ["PII"]}, {"name": "b", "type": "varchar"}])],
      [{"name": "m", "type": "column_mask", "mask": "full", "scope": {"tag": "PII"}}],
      cls=[{"name": "PII", "clearance": [{"type": "role", "name": "steward"}]}])
    out[-1].mask("c.s.g", "a", by_user((None, {"bob": FULL})))
    out[-1].visible("c.s.g", ["a", "b"], by_user((["b"], {"bob": ["a", "b"]})))

    # A tag reaching only a column still filters the object: a row filter has no column scope.
    S("a tag-scoped row filter reaching only a column filters the whole object",
      [table("c.s.o", [{"name": "a", "type": "varchar", "tags": ["T1"]}, {"name": "b", "type": "varchar"}]),
       table("c.s.p", V("a"))],
      [{"name": "f", "type": "row_filter", "scope": {"tag": "T1"}, "applies_to": {"users": ["alice"]},
        "condition": {"column": "b", "op": "eq", "value": "x"}}], cls=cls)
    out[-1].filters("c.s.o", {"alice": ["\"b\" = 'x'"], "erin": []}).filters("c.s.p", {"alice": []})

    # Seed 000: a denied asset is hidden: no read, no write, no ownership, not listed.
    S("a deny of the object takes every privilege and hides it from listings", [t],
      [{"name": "d", "type": "deny", "scope": {"object": "c.s.t"}, "applies_to": {"users": ["alice"]}}])
    sc = out[-1]
    sc.snap["grants"] = [{"principal": {"user": u["name"]}, "object": "*.*.*",
                          "privileges": ["SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"]} for u in sc.snap["users"]]
    for op, query in [("insert", {}), ("delete", {}), ("update", {"columns": ["a"]}), ("ownership", {}),
                      ("show_columns", {})]:
        sc.allowed("c.s.t", op, {"alice": False, "erin": True}, **query)
    sc.listed("c.s.t", ["t", "unlisted"], {"alice": ["unlisted"], "erin": ["t", "unlisted"]})

    # §4 conditions: values outside the grammar ({"true": true} only) are no rows. A key outside it
    # (seed 004: "There is no not"), or true/false/and/or with another key, refuses the snapshot
    # (MODEL §1: unknown keys inside an entry are an error): tests/unit/test_policy_validation.cpp; so
    # does a literal null in a comparison (seed 004): tests/unit/test_load_policies_null.cpp.
    r = table("c.r.t", [{"name": "region", "type": "varchar"}, {"name": "n", "type": "bigint"}])
    fusers = [{"name": "eu", "attributes": {"region": "EU", "lst": ["EU"], "email": "e@x"}}]
    for name, cond in [("true: false", {"true": False}), ("false: false", {"false": False}),
                       ("in with a single value", {"column": "region", "op": "in", "value": "EU"}),
                       ("eq with values", {"column": "region", "op": "eq", "values": ["EU"]}),
                       ("eq without a value", {"column": "region", "op": "eq"}),
                       ("is_null with a value", {"column": "region", "op": "is_null", "value": "EU"}),
                       ("$user key not in the contract", {"column": "region", "op": "eq", "value": {"$user": "email"}}),
                       ("$identity instead of $user", {"column": "region", "op": "eq", "value": {"$identity": "email"}}),
                       ("ne a list attribute", {"column": "region", "op": "ne", "value": {"$user": "attributes.lst"}}),
                       ("an operator in upper case", {"column": "region", "op": "EQ", "value": "EU"}),
                       ("an empty condition", {})]:
        S(f"malformed condition is no rows: {name}", [r],
          [{"name": "f", "type": "row_filter", "scope": {"object": "c.r.t"}, "condition": cond}], users=fusers, ras=())
        out[-1].filters("c.r.t", {"eu": ["1 = 0"]})

    # A row filter scoped to a view binds the view's own column; a materialized view over that
    # view gets no rows (no column lineage), and the base table is untouched.
    base = table("c.v.t", V("region", "a"))
    view = {"name": "c.v.v", "kind": "view", "owner": "own", "view_security": "invoker", "depends_on": ["c.v.t"],
            "columns": V("region", "a")}
    mv = {"name": "c.v.mv", "kind": "materialized_view", "owner": "own", "depends_on": ["c.v.v"],
          "columns": V("region")}
    S("a row filter on a view binds the view's column; a materialized view over it gets no rows", [base, view, mv],
      [{"name": "f", "type": "row_filter", "scope": {"object": "c.v.v"}, "applies_to": {"users": ["eu"]},
        "condition": {"column": "region", "op": "eq", "value": {"$user": "attributes.region"}}}],
      users=fusers, ras=())
    out[-1].filters("c.v.v", {"eu": ["\"region\" = 'EU'"], "own": []})
    out[-1].filters("c.v.mv", {"eu": ["1 = 0"], "own": []}).filters("c.v.t", {"eu": []})

    # Hostile column names enter masks and filters only as quoted identifiers.
    cols = [{"name": 'a"b', "type": "varchar"}, {"name": "Région", "type": "varchar"}, {"name": "x`y", "type": "bigint"}]
    S("hostile column names are quoted identifiers in masks and filters", [table("c.s.h", cols)],
      [{"name": "m", "type": "column_mask", "mask": "partial", "visible_chars": 2, "scope": {"column": 'c.s.h.a"b'}},
       {"name": "k", "type": "column_mask", "mask": "hash", "scope": {"column": "c.s.h.Région"}},
       {"name": "f", "type": "row_filter", "scope": {"object": "c.s.h"},
        "condition": {"and": [{"column": 'a"b', "op": "eq", "value": "E\"U'\\"},
                              {"column": "x`y", "op": "gt", "value": 3}]}}], users=fusers, ras=())
    out[-1].mask("c.s.h", 'a"b', {"eu": partial('a""b', 2)}).mask("c.s.h", "région", {"eu": hashed("région")})
    out[-1].filters("c.s.h", {"eu": ["(\"a\"\"b\" = 'E\"U''\\') AND (\"x`y\" > 3)"]})
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
                        json.dump({"profiles": [sc.profile]}, f)
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
