"""Unit tests of the reference semantics and the generator (stdlib unittest).

Run: python3 -m unittest discover -s tests/differential -p 'test_*.py'
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gen_model  # noqa: E402
from reference import EngineView, Profile, Reference, sql_filter, sql_mask  # noqa: E402

NOW = "2026-11-30T12:00:00Z"


def snap(**kw):
    s = {
        "version": 1,
        "generated_at": NOW,
        "users": [],
        "roles": ["steward", "analyst"],
        "role_assignments": [],
        "classifications": [
            {"name": "PII", "clearance": [{"type": "role", "name": "steward"}]},
            {"name": "GroupOnly", "clearance": [{"type": "group", "name": "auditors"}]},
            {"name": "Label"},
            {"name": "Mixed", "clearance": [{"type": "group", "name": "auditors"},
                                            {"type": "role", "name": "analyst"}]},
        ],
        "objects": [],
        "grants": [],
        "policies": [],
    }
    s.update(kw)
    return s


def table(name, tags=None, cols=None, kind="table", deps=None):
    o = {"name": name, "kind": kind, "owner": "owner",
         "columns": cols or [{"name": "id", "type": "bigint"}]}
    if tags:
        o["tags"] = tags
    if deps:
        o["depends_on"] = deps
    return o


PROF = {"name": "trino_a", "engine": "trino", "catalogs": ["c"]}


def users(*names, **extra):
    out = [{"name": "owner"}]
    for n in names:
        u = {"name": n}
        u.update(extra.get(n, {}))
        out.append(u)
    return out


class ClearanceTests(unittest.TestCase):
    def model(self):
        return snap(
            users=users("direct", "viagroup", "expired", "future", "atnow", "admin", "none",
                        viagroup={"groups": ["auditors"]},
                        admin={"platform_admin": True, "groups": ["auditors"]}),
            role_assignments=[
                {"role": "steward", "user": "direct"},
                {"role": "steward", "group": "auditors"},
                {"role": "steward", "user": "expired", "expires_at": "2026-11-30T11:59:59Z"},
                {"role": "steward", "user": "future", "expires_at": "2026-11-30T12:00:01Z"},
                {"role": "steward", "user": "atnow", "expires_at": NOW},
            ],
            objects=[table("c.s.t", tags=["PII"])],
            grants=[{"principal": {"user": u}, "object": "c.s.*", "privileges": ["SELECT", "INSERT"]}
                    for u in ("direct", "viagroup", "expired", "future", "atnow", "admin", "none")],
        )

    def test_direct_group_expired(self):
        ref = Reference(self.model())
        p = Profile(PROF)
        o = ref.objects["c.s.t"]
        got = {u: ref.access(u, o, p)[0] for u in ("direct", "viagroup", "expired", "future",
                                                   "atnow", "admin", "none")}
        self.assertEqual(got["direct"], {"SELECT", "INSERT"})
        self.assertEqual(got["future"], {"SELECT", "INSERT"})
        for u in ("viagroup", "expired", "atnow", "admin", "none"):
            self.assertEqual(got[u], set(), u)  # SELECT gated, INSERT withheld

    def test_now_override(self):
        ref = Reference(self.model(), now="2026-11-30T11:00:00Z")
        o = ref.objects["c.s.t"]
        self.assertIn("SELECT", ref.access("expired", o, Profile(PROF))[0])
        ref = Reference(self.model(), now="2026-12-01T00:00:00Z")
        self.assertNotIn("SELECT", ref.access("future", o, Profile(PROF))[0])

    def test_withhold_writes_off(self):
        ref = Reference(self.model())
        p = Profile(dict(PROF, withhold_writes=False))
        self.assertEqual(ref.access("none", ref.objects["c.s.t"], p)[0], {"INSERT"})

    def test_group_only_and_label_gate_nothing_mixed_counts_role_row_only(self):
        s = self.model()
        s["objects"] = [table("c.s.t", tags=["GroupOnly", "Label"]), table("c.s.m", tags=["Mixed"])]
        s["role_assignments"].append({"role": "analyst", "group": "auditors"})
        s["role_assignments"].append({"role": "analyst", "user": "none"})
        ref = Reference(s)
        p = Profile(PROF)
        self.assertEqual(ref.access("expired", ref.objects["c.s.t"], p)[0], {"SELECT", "INSERT"})
        # Mixed: the group row never counts, the analyst role row does (directly held only)
        self.assertEqual(ref.access("viagroup", ref.objects["c.s.m"], p)[0], set())
        self.assertEqual(ref.access("none", ref.objects["c.s.m"], p)[0], {"SELECT", "INSERT"})

    def test_grant_to_role_needs_direct_unexpired(self):
        s = snap(users=users("g", "d", "x", g={"groups": ["eng"]}),
                 role_assignments=[{"role": "analyst", "group": "eng"},
                                   {"role": "analyst", "user": "d"},
                                   {"role": "analyst", "user": "x", "expires_at": "2026-01-01T00:00:00Z"}],
                 objects=[table("c.s.t")],
                 grants=[{"principal": {"role": "analyst"}, "object": "c.*.t", "privileges": ["SELECT"]}])
        ref = Reference(s)
        p = Profile(PROF)
        o = ref.objects["c.s.t"]
        self.assertEqual(ref.access("d", o, p)[0], {"SELECT"})
        self.assertEqual(ref.access("g", o, p)[0], set())
        self.assertEqual(ref.access("x", o, p)[0], set())


class ColumnAndViewTests(unittest.TestCase):
    def test_column_gate(self):
        s = snap(users=users("u", "s"),
                 role_assignments=[{"role": "steward", "user": "s"}],
                 objects=[table("c.s.t", cols=[{"name": "id", "type": "bigint"},
                                               {"name": "iban", "type": "varchar", "tags": ["PII"]}])],
                 grants=[{"principal": {"user": "u"}, "object": "*.*.*", "privileges": ["SELECT"]},
                         {"principal": {"user": "s"}, "object": "*.*.*", "privileges": ["SELECT"]}])
        ref = Reference(s)
        ev = EngineView(ref, Profile(PROF))
        q = dict(user="u", catalog="c", schema="s", table="t")
        self.assertEqual(ev.decide(dict(q, op="select", columns=[])), {"allow": True})
        self.assertEqual(ev.decide(dict(q, op="select", columns=["id"])), {"allow": True})
        self.assertEqual(ev.decide(dict(q, op="select", columns=["id", "iban"])), {"allow": False})
        self.assertEqual(ev.decide(dict(q, op="filter_columns", columns=["id", "iban"])), {"columns": ["id"]})
        self.assertEqual(ev.decide(dict(q, user="s", op="select", columns=["iban"])), {"allow": True})
        self.assertEqual(ref.access("u", ref.objects["c.s.t"], ev.prof), ({"SELECT"}, ["iban"]))

    def test_column_gate_without_select_has_no_denied_columns_and_filter_shows_all(self):
        s = snap(users=users("u"),
                 objects=[table("c.s.t", cols=[{"name": "id", "type": "bigint"},
                                               {"name": "iban", "type": "varchar", "tags": ["PII"]}])],
                 grants=[{"principal": {"user": "u"}, "object": "c.s.t", "privileges": ["SELECT", "DELETE"]}])
        ref = Reference(s)
        o = ref.objects["c.s.t"]
        p = Profile(dict(PROF, withhold_writes=False))
        self.assertEqual(ref.access("u", o, p), ({"SELECT", "DELETE"}, ["iban"]))
        ev = EngineView(ref, p)
        q = dict(user="u", catalog="c", schema="s", table="t", op="filter_columns", columns=["iban", "id"])
        self.assertEqual(ev.decide(q), {"columns": ["iban", "id"]})  # privilege besides SELECT: all
        s["grants"][0]["privileges"] = ["DELETE"]
        ref = Reference(s)
        self.assertEqual(ref.access("u", o, p), ({"DELETE"}, []))
        p2 = Profile(PROF)
        self.assertEqual(Reference(s).access("u", o, p2), (set(), []))
        self.assertEqual(EngineView(Reference(s), p2).decide(q), {"columns": []})

    def test_view_inheritance_two_levels(self):
        s = snap(users=users("u", "s"),
                 role_assignments=[{"role": "steward", "user": "s"}],
                 objects=[
                     table("c.s.v2", kind="materialized_view", deps=["c.s.v1"]),
                     table("c.s.v1", kind="view", deps=["c.s.base"]),
                     table("c.s.base", cols=[{"name": "iban", "type": "varchar", "tags": ["PII"]}]),
                     table("c.s.other", cols=[{"name": "x", "type": "varchar", "tags": ["PII"]}]),
                 ],
                 grants=[{"principal": {"user": "u"}, "object": "c.s.*", "privileges": ["SELECT", "UPDATE"]},
                         {"principal": {"user": "s"}, "object": "c.s.*", "privileges": ["SELECT", "UPDATE"]}])
        ref = Reference(s)
        p = Profile(PROF)
        self.assertEqual(ref.effective_tags("c.s.v2"), {"PII"})
        self.assertEqual(ref.effective_tags("c.s.base"), frozenset())  # column tag stays a column tag
        self.assertEqual(ref.access("u", ref.objects["c.s.v2"], p), (set(), []))
        self.assertEqual(ref.access("u", ref.objects["c.s.v1"], p), (set(), []))
        self.assertEqual(ref.access("u", ref.objects["c.s.base"], p), ({"SELECT"}, ["iban"]))
        self.assertEqual(ref.access("s", ref.objects["c.s.v2"], p)[0], {"SELECT", "UPDATE"})

    def test_view_tags_from_invisible_catalog_still_count(self):
        s = snap(users=users("u"),
                 objects=[table("c.s.v", kind="view", deps=["hidden.s.base"]),
                          table("hidden.s.base", tags=["PII"])],
                 grants=[{"principal": {"user": "u"}, "object": "*.*.*", "privileges": ["SELECT"]}])
        ref = Reference(s)
        p = Profile(PROF)
        self.assertEqual(ref.access("u", ref.objects["c.s.v"], p), (set(), []))
        ev = EngineView(ref, p)
        self.assertEqual(ev.decide(dict(op="select", user="u", catalog="hidden", schema="s",
                                        table="base", columns=[])), {"allow": False})


class ProfileTests(unittest.TestCase):
    def model(self):
        return snap(
            users=users("ann", "anna", "ann.e", "clr",
                        anna={"engine_user": "anna_e"}),
            role_assignments=[{"role": "steward", "user": "clr"}],
            objects=[table("c.s.t", tags=["PII"]), table("c.s.open"), table("d.s.t")],
            grants=[{"principal": {"user": u}, "object": "*.*.*", "privileges": ["SELECT", "OWNERSHIP"]}
                    for u in ("ann", "anna", "ann.e", "clr")],
        )

    def test_restrict_materialized_views(self):
        ref = Reference(self.model())
        p = Profile(PROF)
        self.assertEqual(ref.create_restricted(p), {"ann", "anna", "ann.e", "owner"})
        self.assertEqual(ref.unlisted("ann", "c.s.new", p), {"SELECT"})
        self.assertEqual(ref.unlisted("clr", "c.s.new", p), {"SELECT", "OWNERSHIP"})
        p_off = Profile(dict(PROF, restrict_materialized_views=False))
        self.assertEqual(ref.create_restricted(p_off), set())
        self.assertEqual(ref.unlisted("ann", "c.s.new", p_off), {"SELECT", "OWNERSHIP"})
        # the gated table lives only in catalog d: a profile on c alone has no gated tag
        s = self.model()
        s["objects"][0]["name"] = "d.s.gated"
        self.assertEqual(Reference(s).create_restricted(p), set())

    def test_prefix_names_and_maps(self):
        ref = Reference(self.model())
        p = Profile(dict(PROF, catalogs=["c", "d"], catalog_map={"c": "cee"}, user_map={"ann": "ann2"}))
        ev = EngineView(ref, p)
        q = dict(op="select", catalog="cee", schema="s", table="open", columns=[])
        self.assertEqual(ev.decide(dict(q, user="ann2")), {"allow": True})
        self.assertEqual(ev.decide(dict(q, user="ann")), {"allow": False})      # mapped away
        self.assertEqual(ev.decide(dict(q, user="anna")), {"allow": False})     # engine_user anna_e
        self.assertEqual(ev.decide(dict(q, user="anna_e")), {"allow": True})
        self.assertEqual(ev.decide(dict(q, user="ann.e")), {"allow": True})
        self.assertEqual(ev.decide(dict(q, user="annxe")), {"allow": False})
        self.assertEqual(ev.decide(dict(q, user="ann2", catalog="c")), {"allow": False})  # renamed away
        self.assertEqual(ev.decide(dict(q, user="ann2", catalog="d", table="t")), {"allow": True})
        ev2 = EngineView(ref, Profile(PROF))
        self.assertEqual(ev2.decide(dict(q, user="ann", catalog="d", table="t")), {"allow": False})
        # create on an unlisted name: restricted users lose OWNERSHIP there, and of listed objects
        # too (on Trino: they could drop one and create a materialized view in its place)
        c = dict(op="create_table", catalog="cee", schema="s", table="brand_new", columns=[])
        self.assertEqual(ev.decide(dict(c, user="ann2")), {"allow": False})
        self.assertEqual(ev.decide(dict(c, user="clr")), {"allow": True})
        self.assertEqual(ev.decide(dict(c, user="clr", catalog="zz")), {"allow": False})
        own = dict(op="ownership", catalog="cee", schema="s", table="open", columns=[])
        self.assertEqual(ev.decide(dict(own, user="ann2")), {"allow": False})
        self.assertEqual(ev.decide(dict(own, user="clr")), {"allow": True})
        ev_off = EngineView(ref, Profile(dict(p.raw, restrict_materialized_views=False)))
        self.assertEqual(ev_off.decide(dict(own, user="ann2")), {"allow": True})


class GeneratorTests(unittest.TestCase):
    def test_invariants_and_determinism(self):
        for seed in range(300):
            for size in ("small", "tiny", "large"):
                s, c = gen_model.generate(seed, size)
                gen_model.check_model(s, c)
        self.assertEqual(json.dumps(gen_model.generate(42)), json.dumps(gen_model.generate(42)))
        self.assertNotEqual(json.dumps(gen_model.generate(42)), json.dumps(gen_model.generate(43)))

    def test_coverage_of_hostile_features(self):
        seen = set()
        for seed in range(200):
            s, c = gen_model.generate(seed)
            kinds = {o["kind"] for o in s["objects"]}
            seen |= {"kind:" + k for k in kinds}
            for u in s["users"]:
                if any(ch in u["name"] for ch in ".|()[]^$\\+?*"):
                    seen.add("regex-user")
                if any(ord(ch) > 0xFFFF for ch in u["name"]):
                    seen.add("emoji-user")
                if "engine_user" in u:
                    seen.add("engine_user")
            names = [u["name"] for u in s["users"]]
            if any(a != b and b.startswith(a) for a in names for b in names):
                seen.add("prefix-names")
            for a in s["role_assignments"]:
                seen.add("group-assignment" if "group" in a else "direct-assignment")
                if "expires_at" in a:
                    seen.add("expires")
            for cl in s["classifications"]:
                t = {r["type"] for r in cl.get("clearance", [])}
                seen.add("clearance:" + "+".join(sorted(t)))
            for p in c["profiles"]:
                if p.get("catalog_map"):
                    seen.add("catalog_map")
                if p.get("user_map"):
                    seen.add("user_map")
            if any(len(o.get("depends_on", [])) and any(
                    d["kind"] != "table" for d in s["objects"] if d["name"] in o["depends_on"])
                   for o in s["objects"]):
                seen.add("nested-view")
        want = {"kind:table", "kind:view", "kind:materialized_view", "regex-user", "emoji-user",
                "engine_user", "prefix-names", "group-assignment", "direct-assignment", "expires",
                "clearance:", "clearance:role", "clearance:group", "clearance:group+role",
                "catalog_map", "user_map", "nested-view"}
        self.assertEqual(want - seen, set())


class HarnessTests(unittest.TestCase):
    """The runner end to end against the Python fakes in fakes/ (no C++, no Java)."""

    def run_diff(self, *extra):
        fakes = os.path.join(HERE, "fakes")
        cmd = [sys.executable, os.path.join(HERE, "run_differential.py"), "--models", "3", "--seed", "11",
               "--tagwarden", os.path.join(fakes, "fake_tagwarden.py"),
               "--oracle", os.path.join(fakes, "fake_oracle.py"), "--jobs", "2", *extra]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=600)

    def test_fakes_agree(self):
        r = self.run_diff()
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        last = r.stdout.strip().splitlines()[-1]
        self.assertRegex(last, r"^differential: [1-9][0-9]* passed, 0 failed$")

    def test_one_oracle_per_rules_file_agrees_too(self):
        r = self.run_diff("--oracle-mode", "file")
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        self.assertRegex(r.stdout.strip().splitlines()[-1], r"^differential: [1-9][0-9]* passed, 0 failed$")

    def test_self_check_detects_mutations(self):
        r = self.run_diff("--self-check")
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr[-3000:])
        self.assertIn("self-check: passed", r.stdout)

    def test_a_buggy_compiler_fails(self):
        with tempfile.TemporaryDirectory() as d:
            env = dict(os.environ, FAKE_TAGWARDEN_BUG="group_roles_count")
            fakes = os.path.join(HERE, "fakes")
            cmd = [sys.executable, os.path.join(HERE, "run_differential.py"), "--models", "8", "--seed", "3",
                   "--tagwarden", os.path.join(fakes, "fake_tagwarden.py"),
                   "--oracle", os.path.join(fakes, "fake_oracle.py"), "--keep", d]
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
            self.assertEqual(r.returncode, 1, r.stdout[-3000:] + r.stderr[-3000:])
            self.assertRegex(r.stdout.strip().splitlines()[-1], r"^differential: \d+ passed, [1-9]\d* failed$")


class PolicyTests(unittest.TestCase):
    """MODEL.md section 4, worked by hand."""

    def model(self, policies, **kw):
        return snap(
            users=users("ann", "bob", "grp",
                        ann={"attributes": {"region": "O'Brien", "lvl": 3, "regs": ["EU", "a'b"]}},
                        grp={"groups": ["auditors"]}),
            role_assignments=[{"role": "analyst", "user": "ann"}, {"role": "analyst", "group": "auditors"},
                              {"role": "steward", "user": "bob", "expires_at": "2026-11-30T11:00:00Z"}],
            objects=[table("c.s.t", cols=[{"name": "id", "type": "bigint"},
                                          {"name": "name", "type": "varchar", "tags": ["Label"]},
                                          {"name": "d", "type": "date"}])],
            grants=[{"principal": {"user": u}, "object": "c.s.t", "privileges": ["SELECT", "INSERT"]}
                    for u in ("ann", "bob", "grp")],
            policies=policies, **kw)

    def pa(self, s, user):
        return Reference(s).policy_access(user, s["objects"][0], Profile(PROF))

    def test_strictest_mask_and_sql(self):
        s = self.model([
            {"name": "a", "type": "column_mask", "mask": "partial", "visible_chars": 4, "scope": {"tag": "Label"}},
            {"name": "b", "type": "column_mask", "mask": "partial", "visible_chars": 2,
             "scope": {"column": "c.s.t.name"}},
            {"name": "c", "type": "column_mask", "mask": "hash", "scope": {"object": "c.s.t"},
             "applies_to": {"roles": ["analyst"]}, "exempt": {"users": ["bob"]}},
            {"name": "off", "type": "column_mask", "mask": "null", "scope": {"object": "c.s.t"}, "enabled": False},
        ])
        _, _, masks, rf = self.pa(s, "ann")
        self.assertEqual(masks["name"]["mask"], "hash")
        self.assertEqual(masks["id"], {"column": "id", "mask": "hash", "type": "bigint"})
        self.assertIsNone(rf)
        _, _, masks, _ = self.pa(s, "bob")  # not an analyst
        # partial 4 and partial 2: two characters shown, and nothing of a value partial 4 hides whole.
        self.assertEqual(masks, {"name": {"column": "name", "mask": "partial", "type": "varchar",
                                          "visible_chars": 2, "fully_masked_through": 4}})
        self.assertEqual(sql_mask(masks["name"]),
                         "CASE WHEN length(\"name\") <= 4 THEN '****' ELSE concat('****', substr(\"name\", -2)) END")
        _, _, masks, _ = self.pa(s, "grp")  # analyst through a group: applies_to counts it
        self.assertEqual(masks["d"]["mask"], "hash")
        self.assertEqual(sql_mask(masks["d"]), "CAST(NULL AS date)")

    def test_char_masks_read_the_value_without_padding(self):
        # Trino pads char(n) to n characters: length() is n, the last characters are spaces.
        m = {"column": "ch", "mask": "partial", "visible_chars": 8, "type": "char(10)"}
        self.assertEqual(sql_mask(m), "CAST(CASE WHEN length(CAST(\"ch\" AS varchar)) <= 8 THEN '****' "
                                      "ELSE concat('****', substr(CAST(\"ch\" AS varchar), -8)) END AS char(10))")
        m = {"column": "ch", "mask": "hash", "type": "char(10)"}
        self.assertEqual(sql_mask(m), "CAST(lower(to_hex(sha256(to_utf8(CAST(\"ch\" AS varchar))))) AS char(10))")

    def test_group_roles_do_not_exempt_and_deny(self):
        s = self.model([
            {"name": "m", "type": "column_mask", "mask": "full", "scope": {"object": "c.s.t"},
             "exempt": {"roles": ["analyst"]}},
            {"name": "dc", "type": "deny", "scope": {"column": "c.s.t.id"}},
            {"name": "dall", "type": "deny", "scope": {"object": "c.s.t"}, "applies_to": {"users": ["bob"]}},
        ])
        self.assertEqual(self.pa(s, "ann"), ({"SELECT", "INSERT"}, ["id"], {}, None))
        p, d, masks, _ = self.pa(s, "grp")
        self.assertEqual(d, ["id"])
        self.assertEqual(sorted(masks), ["d", "name"])  # no mask on a denied column
        self.assertEqual(sql_mask(masks["name"]), "'****'")
        self.assertEqual(self.pa(s, "bob"), (set(), [], {}, None))

    def test_row_filters_bind_and_fail_closed(self):
        cond = {"and": [{"column": "name", "op": "eq", "value": {"$user": "attributes.region"}},
                        {"column": "id", "op": "in", "value": {"$user": "attributes.regs"}}]}
        s = self.model([
            {"name": "f", "type": "row_filter", "scope": {"tag": "Label"},
             "condition": {"column": "name", "op": "in", "values": [{"$user": "name"}, "x\\y"]}},
            {"name": "g", "type": "row_filter", "scope": {"object": "c.s.t"}, "condition": cond,
             "applies_to": {"users": ["ann"]}},
        ])
        _, _, _, rf = self.pa(s, "bob")
        self.assertEqual(rf, {"column": "name", "op": "in", "type": "varchar", "values": ["bob", "x\\y"]})
        self.assertEqual(sql_filter(rf), "\"name\" IN ('bob', 'x\\y')")
        _, _, _, rf = self.pa(s, "ann")  # a string in a list against bigint: no rows at all
        self.assertEqual(rf, {"false": True})
        cond["and"][1] = {"column": "id", "op": "gte", "value": {"$user": "attributes.lvl"}}
        _, _, _, rf = self.pa(s, "ann")
        self.assertEqual(sql_filter(rf), "(\"name\" IN ('ann', 'x\\y')) AND "
                                         "((\"name\" = 'O''Brien') AND (\"id\" >= 3))")
        for bad in ({"column": "name", "op": "eq", "value": {"$user": "attributes.nope"}},
                    {"column": "nope", "op": "is_null"},
                    {"column": "NAME", "op": "is_null"},  # matched exactly, including case (seed 004)
                    {"column": "name", "op": "like", "value": "x"},
                    {"column": "id", "op": "eq", "value": "1"},
                    {"column": "name", "op": "eq", "value": 1},
                    {"column": "name", "op": "eq", "value": {"$user": "roles"}},
                    {"column": "name", "op": "in", "value": "x"},
                    {"or": [{"true": True}]}):
            s["policies"][1]["condition"] = bad
            self.assertEqual(self.pa(s, "ann")[3], {"false": True}, bad)
        s["policies"][1]["condition"] = {"column": "name", "op": "not_in", "value": {"$user": "roles"}}
        self.assertEqual(sql_filter(self.pa(s, "ann")[3]), "(\"name\" IN ('ann', 'x\\y')) AND "
                                                           "(\"name\" NOT IN ('analyst'))")
        # no SELECT: no filter, no mask
        s["grants"] = [{"principal": {"user": "ann"}, "object": "c.s.t", "privileges": ["INSERT"]}]
        self.assertEqual(self.pa(s, "ann"), ({"INSERT"}, [], {}, None))


if __name__ == "__main__":
    unittest.main()
