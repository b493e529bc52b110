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

import datetime as _dt
import json
import re

from gen_model import parse_time

PRIVILEGES = ("SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP")
WRITES = frozenset({"INSERT", "UPDATE", "DELETE", "OWNERSHIP"})


def instant(s: str, round_up: bool = False):
    """An RFC 3339 time as (epoch seconds, nanoseconds): exact to the nanosecond, which datetime
    (microseconds) is not. A finer fraction rounds an expiry down and a now (round_up) up."""
    m = re.fullmatch(r"([^.]*?:[0-9]{2})(?:\.([0-9]+))?([Zz]|[+-][0-9]{2}:[0-9]{2})", s.strip())
    whole = int(parse_time(m.group(1) + m.group(3)).timestamp())
    digits = m.group(2) or ""
    nanos = int((digits[:9]).ljust(9, "0"))
    if round_up and digits[9:].strip("0"):
        nanos += 1
    return (whole + nanos // 1_000_000_000, nanos % 1_000_000_000)


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
        self.engine = raw.get("engine", "trino")

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
        self.now = instant(now or snapshot["generated_at"], round_up=True)
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
            if exp is None or self.now < instant(exp):
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
    def view_owners(self, o: dict) -> set:
        """Owners of the listed DEFINER views and materialized views that read o. When anyone
        else queries such a view, Trino reads o as the view's owner and asks the owner for
        SELECT with GRANT_SELECT there; only these owners may pass o on through a view."""
        owners = set()
        for v in self.snap["objects"]:
            if v["kind"] == "table" or "owner" not in v or v.get("view_security") == "invoker":
                continue
            if o["name"] in self.read_as_owner(v):
                owners.add(v["owner"])
        return owners

    def read_as_owner(self, v: dict) -> set:
        """Names of what a DEFINER view or MV reads as its owner: its depends_on, and through an
        INVOKER view among them what that view reads (Trino keeps the identity and the check for
        a view without owner)."""
        out, todo = set(), list(v.get("depends_on") or [])
        while todo:
            d = todo.pop()
            if d in out:
                continue
            out.add(d)
            b = self.objects[d]
            if b["kind"] == "view" and b.get("view_security") == "invoker":
                todo.extend(b.get("depends_on") or [])
        return out

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

    def bases(self, oname: str) -> list:
        """Every object a view or MV reads through depends_on, transitively (names)."""
        out, todo = [], list(self.objects[oname].get("depends_on") or [])
        while todo:
            d = todo.pop()
            if d in out:
                continue
            out.append(d)
            todo.extend(self.objects[d].get("depends_on") or [])
        return out

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
        if any(not self.cleared(uname, t) for t in all_gated):
            # OWNERSHIP would let them rename what the gate names: withheld, withhold_writes or not.
            privs -= WRITES if prof.withhold_writes else {"OWNERSHIP"}
        if prof.engine == "trino" and uname in self.create_restricted(prof):
            # On Trino OWNERSHIP of a listed name lets them drop it and create a materialized view
            # under that name (MODEL §2: they may create none on the profile).
            privs.discard("OWNERSHIP")
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
        cache = self.__dict__.setdefault("_create_restricted", {})
        key = json.dumps(prof.raw, sort_keys=True, default=str)
        if key not in cache:
            tags = self.gated_tags_on_profile(prof)
            cache[key] = {n for n in self.users if not all(self.cleared(n, t) for t in tags)}
        return cache[key]

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
        if op == "view_owner_select":
            uname, o, _ = self.resolve(q["user"], q["catalog"], q["schema"], q["table"])
            owner = o is not None and uname in self.ref.view_owners(o)
            return {"allow": owner and "SELECT" in privs and not any(c in denied for c in cols)}
        if op == "filter_columns":
            if not privs:
                return {"columns": []}
            if privs - {"SELECT"}:
                return {"columns": sorted(cols)}
            return {"columns": sorted(c for c in cols if c not in denied)}
        raise ValueError("unknown op " + op)


# ==========================================================================
# Access policies (MODEL.md section 4), written from the spec and the test's
# brief. Reference.policy_access() is the full per-(user, object) decision;
# Reference.access() above folds deny policies into privileges/denied columns.

MASK_RANK = {"partial": 1, "hash": 2, "full": 3, "null": 4}  # higher = stricter
NO_ROWS = {"false": True}
NUMERIC_PREFIXES = ("tinyint", "smallint", "int", "integer", "bigint", "largeint", "real", "float",
                    "double", "decimal", "numeric")


class Unsatisfiable(Exception):
    pass


def ascii_lower(s: str) -> str:
    """Identifiers are case-insensitive (Trino lowercases them); only ASCII folds here."""
    return "".join(ch.lower() if "A" <= ch <= "Z" else ch for ch in s)


def is_numeric_type(t: str) -> bool:
    return ascii_lower(t).startswith(NUMERIC_PREFIXES)


def _is_json_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _column_type(ctype: str):
    """-> (kind, info) as tagwarden types row-filter literals (access_policies.cpp column_type_of)."""
    t = ascii_lower(ctype)
    m = re.fullmatch(r"([a-z0-9_]+) ?(?:\( ?([0-9]+)(?: ?, ?([0-9]+))? ?\))?( with(?:out)? time zone)?", t)
    if not m:
        return "none", None
    name, p, s, zone = m.group(1), m.group(2), m.group(3), m.group(4)
    with_zone = zone == " with time zone"
    if name in ("timestamp", "datetime"):
        return ("timestamptz" if with_zone else "timestamp"), None
    if name == "time":
        return ("none" if with_zone else "time"), None
    if zone:
        return "none", None
    if name in ("varchar", "char", "string", "text"):
        return "string", None
    if name in ("boolean", "bool"):
        return "boolean", None
    bits = {"tinyint": 8, "smallint": 16, "int": 32, "integer": 32, "bigint": 64, "largeint": 64}.get(name)
    if bits:
        return "integer", (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    if name in ("decimal", "numeric"):
        p = int(p) if p is not None else 38
        s = int(s) if s is not None else 0
        return ("decimal", (p, s)) if 1 <= p <= 38 and s <= p else ("none", None)
    if name in ("double", "real", "float"):
        return "double", name
    if name == "date":
        return "date", None
    return "none", None


def _valid_date(s) -> bool:
    if not isinstance(s, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", s):
        return False
    try:
        return _dt.date(int(s[:4]), int(s[5:7]), int(s[8:10])) is not None
    except ValueError:
        return False


def _valid_time(s) -> bool:
    m = re.fullmatch(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.[0-9]{1,12})?)?", s)
    return bool(m) and int(m.group(1)) <= 23 and int(m.group(2)) <= 59 and int(m.group(3) or 0) <= 59


def _timestamp(s: str, with_zone: bool):
    if len(s) < 10 or not _valid_date(s[:10]):
        return None
    if len(s) == 10:
        return None if with_zone else s
    if s[10] not in " T":
        return None
    rest, zone = s[11:], ""
    if with_zone:
        m = re.fullmatch(r"(.*?) ?(Z|UTC|[+-]([0-9]{2}):([0-9]{2}))", rest)
        if not m:
            return None
        if m.group(3) is not None and (int(m.group(3)) > 14 or int(m.group(4)) > 59):
            return None
        rest, zone = m.group(1), "UTC" if m.group(2) in ("Z", "UTC") else m.group(2)
    if not _valid_time(rest):
        return None
    return s[:10] + " " + rest + (" " + zone if zone else "")


def _plain_decimal(text: str, allow_exponent: bool, p: int, s: int):
    pat = r"([+-]?)([0-9]+)(?:\.([0-9]+))?" + (r"(?:[eE]([+-]?[0-9]{1,4}))?" if allow_exponent else "")
    m = re.fullmatch(pat, text)
    if not m:
        raise Unsatisfiable("a string that is not a decimal number")
    digits, point = m.group(2) + (m.group(3) or ""), len(m.group(2)) + int((m.group(4) if allow_exponent else None) or 0)
    if point < 0:
        digits, point = "0" * -point + digits, 0
    digits += "0" * max(0, point - len(digits))
    whole, frac = digits[:point].lstrip("0"), digits[point:].rstrip("0")
    if len(whole) > p - s or len(frac) > s:
        raise Unsatisfiable("a number decimal(p,s) cannot hold")
    neg = m.group(1) == "-" and (whole or frac)
    return ("-" if neg else "") + (whole or "0") + ("." + frac if frac else "")


def _typed_value(v, ctype: str):
    """A bound comparison value as the column holds it (normalized), else Unsatisfiable."""
    kind, info = _column_type(ctype)
    if kind == "string" and isinstance(v, str):
        return v
    if kind == "boolean" and isinstance(v, bool):
        return v
    if kind == "integer" and isinstance(v, float) and v == v and v not in (float("inf"), float("-inf")) \
            and v == int(v):
        # 5.0 or 1e3: the integer the column holds exactly (beyond 2^53 such a number names none)
        if abs(v) > 2 ** 53:
            raise Unsatisfiable("an integer beyond 2^53 written as a float")
        v = int(v)
    if kind == "integer" and isinstance(v, int) and not isinstance(v, bool):
        if not info[0] <= v <= info[1]:
            raise Unsatisfiable("integer out of range")
        return v
    if kind == "double" and _is_json_number(v):
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            raise Unsatisfiable("not finite")
        if isinstance(v, float) and info != "double" and abs(v) > 3.4028234663852886e38:
            raise Unsatisfiable("out of range for real")
        return v
    if kind == "decimal" and (isinstance(v, str) or _is_json_number(v)):
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            raise Unsatisfiable("not finite")
        text = v if isinstance(v, str) else json.dumps(v)  # NOTE: must match nlohmann's dump of floats
        return _plain_decimal(text, not isinstance(v, str), *info)
    if kind == "date" and isinstance(v, str):
        if not _valid_date(v):
            raise Unsatisfiable("not a date")
        return v
    if kind == "time" and isinstance(v, str):
        if not _valid_time(v):
            raise Unsatisfiable("not a time")
        return v
    if kind in ("timestamp", "timestamptz") and isinstance(v, str):
        t = _timestamp(v, kind == "timestamptz")
        if t is None:
            raise Unsatisfiable("not a timestamp")
        return t
    raise Unsatisfiable("value of the wrong type for a " + ascii_lower(ctype) + " column")


def _policy_scope_reach(ref, p: dict, o: dict):
    """-> (whole_object, columns, only through the bases: not by o's own name, domain, tags or columns)."""
    sc = p["scope"]
    # A view has no column lineage: a policy on a base, one of its columns or its domain reaches
    # the whole view (as the base's tags do).
    bases = [ref.objects[b] for b in ref.bases(o["name"])]

    def in_domain(x):
        d = x.get("domain")
        return d is not None and (d == sc["domain"] or d.startswith(sc["domain"] + "/"))

    if "object" in sc:
        if sc["object"] == o["name"]:
            return True, [], False
        inherited = any(b["name"] == sc["object"] for b in bases)
        return inherited, [], inherited
    if "column" in sc:
        # split after the third dot: object parts hold no dot, a column name may ("c.1")
        parts = sc["column"].split(".", 3)
        oname, col = ".".join(parts[:3]), parts[3]
        if oname != o["name"]:
            inherited = any(b["name"] == oname for b in bases)
            return inherited, [], inherited
        return False, [c["name"].lower() for c in o["columns"] if c["name"] == col], False
    if "domain" in sc:
        if in_domain(o):
            return True, [], False
        inherited = any(in_domain(b) for b in bases)
        return inherited, [], inherited
    if "tag" in sc:
        tags = {sc["tag"]}
    else:
        n = sc["level_at_least"]
        tags = {c["name"] for c in ref.snap["classifications"] if "level" in c and c["level"] >= n}
    own = bool(set(o.get("tags") or []) & tags) or any(set(c.get("tags") or []) & tags for c in o["columns"])
    if ref.effective_tags(o["name"]) & tags:
        return True, [], not own
    return False, [c["name"].lower() for c in o["columns"] if set(c.get("tags") or []) & tags], False


class PolicyDecision:
    def __init__(self, policy, whole, columns, applies, why, condition=None, unsat=None):
        self.policy, self.whole, self.columns = policy, whole, columns
        self.applies, self.why = applies, why
        self.condition, self.unsat = condition, unsat


def _ref_init_policies(self):
    # roles held directly or through a group, unexpired (applies_to only)
    self.any_roles = {n: set(r) for n, r in self.held.items()}
    members = {}
    for u in self.snap["users"]:
        for g in u.get("groups") or []:
            members.setdefault(g, []).append(u["name"])
    for a in self.snap["role_assignments"]:
        if "group" not in a:
            continue
        exp = a.get("expires_at")
        if exp is not None and not self.now < instant(exp):
            continue
        for n in members.get(a["group"], []):
            self.any_roles[n].add(a["role"])
    self.policies = [p for p in self.snap.get("policies") or [] if p.get("enabled", True)]
    self._pcache = {}


def _principals_hold(self, uname, ps, via_groups):
    if uname in (ps.get("users") or []):
        return True
    roles = self.any_roles[uname] if via_groups else self.held[uname]
    return any(r in roles for r in ps.get("roles") or [])


def _policy_applies(self, uname, p):
    at = p.get("applies_to") or {}
    if (at.get("roles") or at.get("users")) and not self._principals_hold(uname, at, True):
        return False, "not in applies_to"
    ex = p.get("exempt") or {}
    if (ex.get("roles") or ex.get("users")) and self._principals_hold(uname, ex, False):
        return False, "exempt"
    return True, "applies"


def _user_value(self, uname, ref_):
    if not isinstance(ref_, str):
        raise Unsatisfiable("$user must be a string")
    if ref_ == "name":
        return uname
    if ref_ == "roles":
        if not self.held[uname]:
            raise Unsatisfiable("no role held directly")  # an empty list is no rows (seed 001), not_in too
        return sorted(self.held[uname])
    if ref_.startswith("attributes."):
        attrs = self.users[uname].get("attributes") or {}
        key = ref_[len("attributes."):]
        if key not in attrs:
            raise Unsatisfiable("missing attribute " + key)
        v = attrs[key]
        if v == "" or (isinstance(v, list) and "" in v):
            raise Unsatisfiable("empty attribute " + key)  # an empty claim is no claim
        if isinstance(v, list) and not v:
            raise Unsatisfiable("empty list attribute " + key)  # no rows (seed 001), not_in too
        return v
    raise Unsatisfiable("unknown $user reference " + ref_)


def _bind(self, uname, o, node):
    """The condition with the user's values bound; raises Unsatisfiable."""
    if not isinstance(node, dict):
        raise Unsatisfiable("not a mapping")
    if node == {"true": True} and node["true"] is True:
        return {"true": True}
    if node == {"false": True} and node["false"] is True:
        return dict(NO_ROWS)
    for j in ("and", "or"):
        if j in node:
            parts = node[j]
            if len(node) != 1 or not isinstance(parts, list) or len(parts) < 2:
                raise Unsatisfiable("bad " + j)
            return {j: [self._bind(uname, o, x) for x in parts]}
    if set(node) - {"column", "op", "value", "values"}:
        raise Unsatisfiable("unknown key")
    col, op = node.get("column"), node.get("op")
    if not isinstance(col, str) or not isinstance(op, str):
        raise Unsatisfiable("column and op needed")
    # Matched exactly, including case (seed 004); then in Trino's spelling.
    types = {c["name"]: c["type"] for c in o["columns"]}
    if col not in types:
        raise Unsatisfiable("unknown column " + col)
    ctype = types[col]
    lc = col.lower()

    def bind(v):
        if isinstance(v, dict):
            if list(v) != ["$user"]:
                raise Unsatisfiable("value mapping must be $user")
            return self._user_value(uname, v["$user"])
        return v

    if op in ("is_null", "is_not_null"):
        if "value" in node or "values" in node:
            raise Unsatisfiable(op + " takes no value")
        return {"column": lc, "op": op}
    if op in ("eq", "ne", "gt", "gte", "lt", "lte"):
        if "value" not in node or "values" in node:
            raise Unsatisfiable(op + " needs one value")
        v = _typed_value(bind(node["value"]), ctype)
        return {"column": lc, "op": op, "type": ascii_lower(ctype), "value": v}
    if op in ("in", "not_in"):
        if "values" in node and "value" not in node:
            if isinstance(node["values"], dict):  # {"values": {"$user": "roles"}}, as seed 004 writes it
                vals = bind(node["values"])
                if not isinstance(vals, list):
                    raise Unsatisfiable(op + " needs a list")
            elif not isinstance(node["values"], list):
                raise Unsatisfiable("values must be a list")
            else:
                vals = [bind(v) for v in node["values"]]
        elif "value" in node and "values" not in node:
            vals = bind(node["value"])
            if not isinstance(vals, list):
                raise Unsatisfiable(op + " needs a list")
        else:
            raise Unsatisfiable(op + " needs values")
        vals = [_typed_value(v, ctype) for v in vals]
        return {"column": lc, "op": op, "type": ascii_lower(ctype), "values": vals}
    raise Unsatisfiable("unknown operator " + op)


def _policy_decisions(self, uname, o):
    """Every enabled policy whose scope reaches o, with whether it applies to uname."""
    key = (uname, o["name"])
    if key in self._pcache:
        return self._pcache[key]
    out = []
    for p in self.policies:
        whole, cols, through_bases = _policy_scope_reach(self, p, o)
        if not whole and not cols:
            continue
        if p["type"] == "column_mask" and whole:
            cols = [c["name"].lower() for c in o["columns"]]
        if p["type"] == "row_filter":
            whole = True  # a column carrying the tag still filters the object's rows
        ok, why = self._policy_applies(uname, p)
        d = PolicyDecision(p, whole, cols, ok, why)
        if ok and p["type"] == "row_filter":
            try:
                if through_bases:  # the condition names a base column; a view has no column lineage
                    raise Unsatisfiable("reaches the view only through its bases")
                d.condition = self._bind(uname, o, p["condition"])
            except Unsatisfiable as e:
                d.condition, d.unsat = dict(NO_ROWS), str(e)
        out.append(d)
    self._pcache[key] = out
    return out


def _policy_access(self, uname, o, prof):
    """-> (privs, denied, masks {col: mask dict as in policyset.json}, row_filter JSON or None)."""
    privs, denied = self._clearance_access(uname, o, prof)
    denied = set(denied)
    decs = [d for d in self._policy_decisions(uname, o) if d.applies]
    if any(d.policy["type"] == "deny" and d.whole for d in decs):
        return set(), [], {}, None
    if decs:
        privs = privs - {"OWNERSHIP"}  # an owner could rename what the policy names
    if any(d.policy["type"] == "row_filter" and d.condition != {"true": True} for d in decs):
        privs = privs - {"DELETE"}  # Trino's TRUNCATE TABLE needs only DELETE and ignores row filters
    if "SELECT" not in privs:
        return privs, [], {}, None
    for d in decs:
        if d.policy["type"] == "deny":
            denied |= set(d.columns)
    types = {c["name"].lower(): c["type"] for c in o["columns"]}
    masks = {}
    for d in decs:
        p = d.policy
        if p["type"] != "column_mask":
            continue
        for c in d.columns:
            if c in denied:
                continue
            m = {"column": c, "mask": p["mask"], "type": types[c]}
            if p["mask"] == "partial":
                m["visible_chars"] = p["visible_chars"]
            cur = masks.get(c)
            if cur is None or MASK_RANK[m["mask"]] > MASK_RANK[cur["mask"]]:
                masks[c] = m
            elif m["mask"] == cur["mask"] == "partial":
                # No value shows more than either partial mask alone would show.
                # fully_masked_through is given, as in the PolicySet, only where it is above visible_chars.
                through = max(cur.get("fully_masked_through", cur["visible_chars"]), m["visible_chars"])
                cur["visible_chars"] = min(cur["visible_chars"], m["visible_chars"])
                if through > cur["visible_chars"]:
                    cur["fully_masked_through"] = through
    filters = [d.condition for d in decs if d.policy["type"] == "row_filter"]
    if not filters:
        rf = None
    elif any(f == NO_ROWS and f["false"] is True for f in filters):
        rf = dict(NO_ROWS)
    else:
        rf = filters[0] if len(filters) == 1 else {"and": filters}
    return privs, sorted(denied), masks, rf


def _explain_policies(self, uname, o):
    out = []
    for d in self._policy_decisions(uname, o):
        p = d.policy
        s = f"policy {p['name']!r} {p['type']} scope={p['scope']} reach={'object' if d.whole else d.columns}: {d.why}"
        if d.unsat:
            s += f" (unsatisfiable: {d.unsat})"
        elif d.condition is not None:
            s += f" filter={d.condition}"
        out.append(s)
    return out


_clearance_access = Reference.access


def _access(self, uname, o, prof):
    p, d, _, _ = self.policy_access(uname, o, prof)
    return p, d


_orig_init = Reference.__init__
_orig_explain = Reference.explain


def _init(self, snapshot, now=None):
    _orig_init(self, snapshot, now)
    _ref_init_policies(self)


def _explain(self, uname, o, prof):
    s = _orig_explain(self, uname, o, prof)
    if o is not None and uname in self.users:
        extra = _explain_policies(self, uname, o)
        if extra:
            s += "; " + "; ".join(extra)
    return s


Reference.__init__ = _init
Reference.explain = _explain
Reference._clearance_access = _clearance_access
Reference.access = _access
Reference.policy_access = _policy_access
Reference._principals_hold = _principals_hold
Reference._policy_applies = _policy_applies
Reference._user_value = _user_value
Reference._bind = _bind
Reference._policy_decisions = _policy_decisions


# --------------------------------------------------------------------------
# Trino SQL: the string shapes of src/engines/trino/expressions.cpp

def sql_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def sql_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def sql_literal(v, ctype=None) -> str:
    kind = _column_type(ctype)[0] if ctype is not None else None
    if kind == "decimal":
        return "DECIMAL " + sql_string(v)
    if kind == "date":
        return "DATE " + sql_string(v)
    if kind == "time":
        return "TIME " + sql_string(v)
    if kind in ("timestamp", "timestamptz"):
        return "TIMESTAMP " + sql_string(v)
    if kind == "double" and isinstance(v, float) and _column_type(ctype)[1] != "double":
        return "REAL '" + repr(v) + "'"
    return _untyped_sql_literal(v)


def _untyped_sql_literal(v) -> str:
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return sql_string(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "DOUBLE '" + repr(v) + "'"
    raise ValueError(f"no SQL literal for {v!r}")


def sql_filter(c: dict) -> str:
    if "true" in c:
        return "true"
    if "false" in c:
        return "1 = 0"
    for j, sep in (("and", " AND "), ("or", " OR ")):
        if j in c:
            return sep.join("(" + sql_filter(x) + ")" for x in c[j])
    col = sql_identifier(c["column"])
    op = c["op"]
    if op == "is_null":
        return col + " IS NULL"
    if op == "is_not_null":
        return col + " IS NOT NULL"
    cmp = {"eq": " = ", "ne": " <> ", "gt": " > ", "gte": " >= ", "lt": " < ", "lte": " <= "}
    if op in cmp:
        return col + cmp[op] + sql_literal(c["value"], c.get("type"))
    vals = c["values"]
    if not vals:
        return "1 = 0" if op == "in" else "true"
    return col + (" IN (" if op == "in" else " NOT IN (") + ", ".join(sql_literal(v, c.get("type")) for v in vals) + ")"


def trino_type(t: str) -> str:
    t = ascii_lower(t)
    return {"string": "varchar", "text": "varchar", "int": "integer", "float": "real",
            "datetime": "timestamp"}.get(t, t)


def sql_mask(m: dict) -> str:
    t = trino_type(m["type"])
    col = sql_identifier(m["column"])
    is_str = t == "varchar" or t.startswith("varchar(") or t.startswith("char")
    if m["mask"] == "null" or not is_str:
        return f"CAST(NULL AS {t})"
    # A char(n) value is padded to n characters; masks read it without the padding.
    val = f"CAST({col} AS varchar)" if t.startswith("char") else col
    if m["mask"] == "full":
        e = "'****'"
    elif m["mask"] == "partial":
        n = m["visible_chars"]
        through = m.get("fully_masked_through", n)
        e = f"CASE WHEN length({val}) <= {through} THEN '****' ELSE concat('****', substr({val}, -{n})) END"
    else:
        e = f"lower(to_hex(sha256(to_utf8({val}))))"
    if t != "varchar":
        e = f"CAST({e} AS {t})"
    return e


def _ev_policy(self, user, catalog, schema, table):
    """(masks, row_filter) Trino should apply for an engine user on an engine table."""
    uname, o, _ = self.resolve(user, catalog, schema, table)
    if uname is None or o is None:
        return {}, None
    _, _, masks, rf = self.ref.policy_access(uname, o, self.prof)
    return masks, rf


def _ev_decide(self, q):
    op = q["op"]
    if op == "column_mask":
        masks, _ = self.policy(q["user"], q["catalog"], q["schema"], q["table"])
        m = masks.get(q["column"])
        return {"mask": sql_mask(m) if m else None}
    if op == "row_filters":
        _, rf = self.policy(q["user"], q["catalog"], q["schema"], q["table"])
        return {"filters": [sql_filter(rf)] if rf is not None else []}
    return _orig_decide(self, q)


_orig_decide = EngineView.decide
EngineView.policy = _ev_policy
EngineView.decide = _ev_decide
