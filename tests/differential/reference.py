"""Independent reference semantics for tagwarden's Trino clearances.

Written from /work/shared/spec/MODEL.md sections 1-2 and the differential
test's brief, never from the compiler's code. Everything here is a pure
function of (snapshot, config, now).

Vocabulary:
  platform name   the user's `name`, the object's `name` in the snapshot
  engine name     what Trino sees: user_map / engine_user / name for users,
                  catalog_map(catalog).schema.table lowercased for objects
  engine-gated    a classification with at least one clearance row of type role
"""

from __future__ import annotations

from gen_model import parse_time

PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP")
WRITES = frozenset({"INSERT", "UPDATE", "DELETE", "OWNERSHIP"})


def pattern_matches(pattern_parts, name_parts) -> bool:
    """Each of the three parts is '*' or equal."""
    return len(pattern_parts) == 3 and len(name_parts) == 3 and all(
        p == "*" or p == n for p, n in zip(pattern_parts, name_parts))


class Profile:
    def __init__(self, raw: dict):
        self.raw = raw
        self.name = raw["name"]
        self.catalogs = list(raw.get("catalogs", []))
        self.catalog_map = dict(raw.get("catalog_map") or {})
        self.user_map = dict(raw.get("user_map") or {})
        self.withhold_writes = raw.get("withhold_writes", True)
        self.restrict_mv = raw.get("restrict_materialized_views", True)

    def engine_catalog(self, platform_catalog: str) -> str:
        return self.catalog_map.get(platform_catalog, platform_catalog).lower()

    def platform_catalog(self, engine_catalog: str):
        """The visible platform catalog Trino's `engine_catalog` stands for, or None."""
        for c in self.catalogs:
            if self.engine_catalog(c) == engine_catalog:
                return c
        return None


class Reference:
    def __init__(self, snapshot: dict, now: str | None = None):
        self.snap = snapshot
        self.now = parse_time(now or snapshot["generated_at"])
        self.users = {u["name"]: u for u in snapshot["users"]}
        self.objects = {o["name"]: o for o in snapshot["objects"]}
        self.classes = {c["name"]: c for c in snapshot["classifications"]}
        # engine-gated tags and the roles that clear them
        self.gate_roles = {}
        for c in snapshot["classifications"]:
            rr = {row["name"] for row in c.get("clearance") or [] if row.get("type") == "role"}
            if rr:
                self.gate_roles[c["name"]] = rr
        # roles held directly and unexpired, per user (groups never count)
        self.held = {n: set() for n in self.users}
        for a in snapshot["role_assignments"]:
            if "user" not in a or a["user"] not in self.held:
                continue
            exp = a.get("expires_at")
            if exp is None or self.now < parse_time(exp):
                self.held[a["user"]].add(a["role"])
        self._eff = {}

    # ---- users -----------------------------------------------------------
    def engine_user(self, uname: str, prof: Profile) -> str:
        if uname in prof.user_map:
            return prof.user_map[uname]
        u = self.users[uname]
        return u["engine_user"] if "engine_user" in u else uname

    def engine_users(self, prof: Profile) -> dict:
        """engine name -> platform name for every snapshot user."""
        return {self.engine_user(n, prof): n for n in self.users}

    def cleared(self, uname: str, tag: str) -> bool:
        roles = self.gate_roles.get(tag)
        if roles is None:
            return True  # not engine-gated: gates nothing in an engine
        return bool(roles & self.held.get(uname, set()))

    # ---- objects ---------------------------------------------------------
    def visible(self, o: dict, prof: Profile) -> bool:
        return o["name"].split(".")[0] in prof.catalogs

    def engine_object_name(self, o: dict, prof: Profile) -> str:
        c, s, t = o["name"].split(".")
        return f"{prof.engine_catalog(c)}.{s.lower()}.{t.lower()}"

    def columns(self, o: dict):
        return [c["name"].lower() for c in o["columns"]]

    def effective_tags(self, oname: str) -> frozenset:
        """Own tags plus, for views and MVs, every tag on base objects and their columns."""
        if oname in self._eff:
            return self._eff[oname]
        self._eff[oname] = frozenset()  # the generator never makes cycles; be safe anyway
        o = self.objects[oname]
        tags = set(o.get("tags") or [])
        if o["kind"] in ("view", "materialized_view"):
            for d in o.get("depends_on") or []:
                tags |= self.effective_tags(d)
                for c in self.objects[d]["columns"]:
                    tags |= set(c.get("tags") or [])
        self._eff[oname] = frozenset(tags)
        return self._eff[oname]

    def g_obj(self, o: dict) -> set:
        return {t for t in self.effective_tags(o["name"]) if t in self.gate_roles}

    def g_col(self, o: dict, col: dict) -> set:
        return {t for t in col.get("tags") or [] if t in self.gate_roles}

    # ---- access ----------------------------------------------------------
    def principal_applies(self, uname: str, principal: dict) -> bool:
        if "user" in principal:
            return principal["user"] == uname
        if "role" in principal:
            return principal["role"] in self.held.get(uname, set())
        return False

    def grant_privileges(self, uname: str, platform_name: str) -> set:
        parts = platform_name.split(".")
        privs = set()
        for g in self.snap["grants"]:
            if self.principal_applies(uname, g["principal"]) and pattern_matches(g["object"].split("."), parts):
                privs |= set(g["privileges"])
        return privs

    def access(self, uname: str, o: dict, prof: Profile):
        """(privileges: set, denied_columns: sorted list of lowercased names)."""
        privs = self.grant_privileges(uname, o["name"])
        gobj = self.g_obj(o)
        if not all(self.cleared(uname, t) for t in gobj):
            privs.discard("SELECT")
        denied = []
        all_gated = set(gobj)
        for c in o["columns"]:
            gc = self.g_col(o, c)
            all_gated |= gc
            if any(not self.cleared(uname, t) for t in gc):
                denied.append(c["name"].lower())
        if prof.withhold_writes and any(not self.cleared(uname, t) for t in all_gated):
            privs -= WRITES
        if "SELECT" not in privs:
            denied = []
        return privs, sorted(denied)

    def gated_tags_on_profile(self, prof: Profile) -> set:
        tags = set()
        for o in self.snap["objects"]:
            if self.visible(o, prof):
                tags |= self.g_obj(o)
                for c in o["columns"]:
                    tags |= self.g_col(o, c)
        return tags

    def create_restricted(self, prof: Profile) -> set:
        """Platform names of the users who may not create tables / MVs on the profile."""
        if not prof.restrict_mv:
            return set()
        tags = self.gated_tags_on_profile(prof)
        return {n for n in self.users if not all(self.cleared(n, t) for t in tags)}

    def unlisted(self, uname: str, platform_name: str, prof: Profile, restricted=None) -> set:
        if restricted is None:
            restricted = self.create_restricted(prof)
        privs = self.grant_privileges(uname, platform_name)
        if uname in restricted:
            privs.discard("OWNERSHIP")
        return privs

    # ---- explanation for reports -----------------------------------------
    def explain(self, uname: str, o: dict | None, prof: Profile) -> str:
        held = sorted(self.held.get(uname, set()))
        out = [f"user {uname!r} holds directly+unexpired {held}"]
        u = self.users.get(uname, {})
        groups = set(u.get("groups") or [])
        other = sorted({(a["role"], "expired") for a in self.snap["role_assignments"]
                        if a.get("user") == uname and a["role"] not in self.held.get(uname, set())}
                       | {(a["role"], "via group " + a["group"]) for a in self.snap["role_assignments"]
                          if a.get("group") in groups})
        if other:
            out.append(f"not counted: {other}")
        if o is not None:
            gobj = sorted(self.g_obj(o))
            out.append(f"grants->{sorted(self.grant_privileges(uname, o['name']))}")
            out.append(f"G_obj={gobj} uncleared={[t for t in gobj if not self.cleared(uname, t)]}")
            gcols = {c['name']: sorted(self.g_col(o, c)) for c in o['columns'] if self.g_col(o, c)}
            if gcols:
                out.append(f"G_col={gcols}")
            out.append(f"withhold_writes={prof.withhold_writes}")
        return "; ".join(out)


class EngineView:
    """Trino's expected decisions for one profile, from the reference.

    decide() answers oracle queries: engine user, engine catalog/schema/table.
    """

    def __init__(self, ref: Reference, prof: Profile):
        self.ref = ref
        self.prof = prof
        self.by_engine_user = ref.engine_users(prof)
        self.by_engine_object = {}
        for o in ref.snap["objects"]:
            if ref.visible(o, prof):
                self.by_engine_object[ref.engine_object_name(o, prof)] = o
        self.restricted = ref.create_restricted(prof)
        self._cache = {}

    def resolve(self, user: str, catalog: str, schema: str, table: str):
        """(platform user or None, object or None, platform name for unlisted or None)."""
        uname = self.by_engine_user.get(user)
        ename = f"{catalog}.{schema}.{table}"
        o = self.by_engine_object.get(ename)
        if o is not None:
            return uname, o, None
        pc = self.prof.platform_catalog(catalog)
        if pc is None:
            return uname, None, None
        return uname, None, f"{pc}.{schema}.{table}"

    def privileges(self, user, catalog, schema, table):
        """(privs, denied, object or None) as Trino should see them."""
        key = (user, catalog, schema, table)
        if key in self._cache:
            return self._cache[key]
        uname, o, unl = self.resolve(user, catalog, schema, table)
        if uname is None:
            res = (set(), [], o)
        elif o is not None:
            p, d = self.ref.access(uname, o, self.prof)
            res = (p, d, o)
        elif unl is not None:
            res = (self.ref.unlisted(uname, unl, self.prof, self.restricted), [], None)
        else:
            res = (set(), [], None)
        self._cache[key] = res
        return res

    def decide(self, q: dict) -> dict:
        privs, denied, _ = self.privileges(q["user"], q["catalog"], q["schema"], q["table"])
        op = q["op"]
        cols = q.get("columns") or []
        if op == "select":
            return {"allow": "SELECT" in privs and not any(c in denied for c in cols)}
        if op in ("insert", "delete", "update", "ownership"):
            return {"allow": op.upper() in privs}
        if op in ("create_table", "create_mv"):
            return {"allow": "OWNERSHIP" in privs}
        if op == "filter_columns":
            if not privs:
                return {"columns": []}
            if privs - {"SELECT"}:
                return {"columns": sorted(cols)}
            return {"columns": sorted(c for c in cols if c not in denied)}
        raise ValueError("unknown op " + op)
