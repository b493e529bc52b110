"""Seeded generator of random governance models with hostile names.

generate(seed, size) -> (snapshot_dict, config_dict)

The snapshot follows /work/shared/spec/MODEL.md section 1 exactly; the config
holds one or two Trino profiles. Same seed, same model (random.Random(seed)
is the only source of randomness). check_model() asserts the invariants the
generator promises (every reference resolves, no dependency cycle, unique
names, no control characters); the unit tests run it over many seeds.
"""

from __future__ import annotations

import datetime as _dt
import random
import unicodedata

PRIVILEGES = ["SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"]

# User names (and engine names): regex metacharacters, quotes, spaces,
# unicode, and names that are prefixes of each other.
HOSTILE_USERS = [
    "ann", "anna", "ann.e", "ann2x", "a.b", "axb", "x|y", "x", "y", "(", ")", "[", "]",
    "^$", "\\", "\\\\", "+", "?", "*", ".*", "a+b", "aab", "a?b", "(?i)ann", "ANN",
    "{1,2}", "$x", "a]b", "a[b", "o'brien", 'say "hi"', "jo smith", "élodie",
    "名前", "🦆duck", "farid.haddad", "farid", "a\\.b", "u-1", "user@example.com",
    "%", "_", "a_b", "a%b", "x)y(", "tab-less", "Ünïcode", "a|", "|b", "-", "null",
    "true", "0", "ann e", "emoji🙂", "q'\"q", "back\\slash", "#hash", "a,b", "a/b",
]

# Names that one unescaped or unanchored regex would confuse with another.
USER_FAMILIES = [
    ["ann", "anna", "ann.e"], ["a.b", "axb"], ["x|y", "x", "y"], ["a+b", "aab"],
    [".*", "ann"], ["farid.haddad", "farid"], ["(?i)ann", "ANN", "ann"],
    ["a\\.b", "a.b"], ["a?b", "a"], ["名前", "名"],
]

# Object, schema and column name parts: lowercase letters, digits, _ $ -
# quotes and unicode. Never '.', '*', uppercase or control characters.
HOSTILE_PARTS = [
    "orders", "orders2", "order", "ord", "invoices", "raw", "raw_v", "a$b", "x-y",
    "_tmp", "123", "o'hare", 'say"x', "naïve", "données", "表", "データ", "🦆",
    "iban", "id", "pii", "t", "tt", "t_t", "t-t", "$", "-", "_", "a'b\"c",
    "straße", "é", "ee", "e", "mv_sales", "v1", "v10", "sum$", "ünï", "q\"",
    "名前", "x$y-z",
]

CATALOG_PARTS = [
    "demo_warehouse", "lake", "lake2", "la", "cat-1", "c$", "données", "hive",
    "ice_berg", "wh'q", "目录", "c2",
]

SCHEMA_PARTS = [
    "finance", "fin", "sales", "s", "s-1", "s$", "schéma", "スキーマ", "raw",
    "hr", "hr2", "q'uote", 'dq"s', "x_y",
]

ROLE_NAMES = [
    "data_steward", "analyst", "analyst2", "role with space", "rôle", "ロール",
    "r.*", "r|x", "admin", "etl", "a'b", "owner-role",
]

GROUP_NAMES = [
    "finance-stewards", "auditors", "eng", "grp é", "グループ", "g.*", "g|h",
    "auditors2", "g'q",
]

TAG_NAMES = [
    "PII", "Confidential", "Top Secret", "é-tag", "tag.with.dots", "*", "Secret",
    "Secret2", "機密", "GDPR|HIPAA", "level[3]", "Internal",
]

COLUMN_TYPES = ["bigint", "varchar", "date", "timestamp", "double", "boolean"]

SIZES = {
    # users, roles, classifications, catalogs, schemas, objects, columns, grants
    "small": dict(users=(3, 12), roles=(1, 6), classes=(2, 8), catalogs=(1, 3),
                  schemas=(1, 4), objects=(2, 15), columns=(1, 6), grants=(3, 16)),
    "tiny": dict(users=(3, 5), roles=(1, 3), classes=(2, 3), catalogs=(1, 2),
                 schemas=(1, 2), objects=(2, 5), columns=(1, 3), grants=(3, 6)),
    # Enough users that the largest group outgrows 1 KiB of names and takes an
    # object's last rule, which names nobody.
    "crowd": dict(users=(220, 320), hold=0.85, roles=(2, 6), classes=(2, 6), catalogs=(1, 2),
                  schemas=(1, 3), objects=(2, 8), columns=(1, 4), grants=(3, 10)),
    "large": dict(users=(10, 12), roles=(4, 6), classes=(5, 8), catalogs=(2, 3),
                  schemas=(3, 4), objects=(10, 15), columns=(3, 6), grants=(10, 24)),
}

TIME_FMT = "%Y-%m-%dT%H:%M:%SZ"


def fmt_time(t: _dt.datetime) -> str:
    return t.strftime(TIME_FMT)


def parse_time(s: str) -> _dt.datetime:
    """Parse the RFC 3339 UTC timestamps this generator writes (and offsets)."""
    s = s.strip()
    if s.endswith("Z") or s.endswith("z"):
        s = s[:-1] + "+00:00"
    t = _dt.datetime.fromisoformat(s)
    if t.tzinfo is None:
        t = t.replace(tzinfo=_dt.timezone.utc)
    return t


class _Names:
    """Draws unique names: from a hostile pool first, then synthesized."""

    def __init__(self, rng: random.Random, pool, prefix: str, used=None):
        self.rng = rng
        self.pool = list(pool)
        rng.shuffle(self.pool)
        self.prefix = prefix
        self.used = used if used is not None else set()

    def take(self) -> str:
        while self.pool:
            n = self.pool.pop()
            if n not in self.used:
                self.used.add(n)
                return n
        i = 0
        while True:
            i += 1
            n = f"{self.prefix}{self.rng.randrange(1000)}_{i}"
            if n not in self.used:
                self.used.add(n)
                return n


def _between(rng, bounds):
    lo, hi = bounds
    return rng.randint(lo, hi)


def generate(seed: int, size: str = "small"):
    rng = random.Random(seed)
    lim = SIZES[size]

    base = _dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=_dt.timezone.utc)
    now = base + _dt.timedelta(seconds=rng.randrange(-86400 * 30, 86400 * 30))

    # ---- users: platform names and engine names come from one pool, so
    # no engine name equals any other user's platform or engine name.
    user_pool = _Names(rng, HOSTILE_USERS, "user")
    # usually seed one family of names that a careless regex would confuse
    if rng.random() < 0.7:
        fam = rng.choice(USER_FAMILIES)
        user_pool.pool = [n for n in user_pool.pool if n not in fam] + list(reversed(fam))
    n_users = _between(rng, lim["users"])
    gpool = _Names(rng, GROUP_NAMES, "group")
    group_names = [gpool.take() for _ in range(rng.randint(1, 4))]

    users = []
    for _ in range(n_users):
        u = {"name": user_pool.take()}
        if rng.random() < 0.35:
            u["engine_user"] = user_pool.take()
        if rng.random() < 0.25:
            u["platform_admin"] = True
        elif rng.random() < 0.3:
            u["platform_admin"] = False
        if rng.random() < 0.7:
            u["groups"] = rng.sample(group_names, rng.randint(0, min(2, len(group_names))))
        if rng.random() < 0.3:
            u["attributes"] = {"region": rng.choice(["EU", "US", "APAC"])}
        users.append(u)
    # sometimes one user's engine name is another user's platform name (who
    # is known to the engine by a third name): platform and engine names must
    # never be confused
    if rng.random() < 0.3:
        a, b = rng.sample(users, 2)
        b["engine_user"] = user_pool.take()
        a["engine_user"] = b["name"]
    # every group a clearance or assignment names is held by somebody
    held_groups = sorted({g for u in users for g in u.get("groups", [])})
    if not held_groups:
        users[0]["groups"] = [group_names[0]]
        held_groups = [group_names[0]]
    user_names = [u["name"] for u in users]

    # ---- roles and assignments
    rpool = _Names(rng, ROLE_NAMES, "role")
    roles = [rpool.take() for _ in range(_between(rng, lim["roles"]))]

    def expiry():
        r = rng.random()
        if r < 0.45:
            return None
        if r < 0.7:
            return fmt_time(now + _dt.timedelta(seconds=rng.randrange(1, 86400 * 60)))
        if r < 0.92:
            return fmt_time(now - _dt.timedelta(seconds=rng.randrange(1, 86400 * 60)))
        # boundary: exactly now (already expired: now < expires_at is false)
        # or one second either side, every other one a millisecond either side instead (a
        # fraction counts: MODEL §2), drawn without another random number so models stay alike
        delta = rng.choice([-1, 0, 0, 1])
        if delta and len(assignments) % 2:
            return (now + _dt.timedelta(milliseconds=delta)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return fmt_time(now + _dt.timedelta(seconds=delta))

    assignments = []
    for un in user_names:
        for r in roles:
            if rng.random() < lim.get("hold", 0.35):
                a = {"role": r, "user": un}
                e = expiry()
                if e is not None:
                    a["expires_at"] = e
                assignments.append(a)
    for g in held_groups:
        for r in roles:
            if rng.random() < 0.3:
                a = {"role": r, "group": g}
                if rng.random() < 0.2:
                    a["expires_at"] = fmt_time(now + _dt.timedelta(days=rng.randint(-5, 5), seconds=7))
                assignments.append(a)
    rng.shuffle(assignments)

    # ---- classifications
    tpool = _Names(rng, TAG_NAMES, "tag")
    classifications = []
    for _ in range(_between(rng, lim["classes"])):
        c = {"name": tpool.take()}
        if rng.random() < 0.5:
            c["level"] = rng.randint(0, 5)
        kind = rng.choices(["none", "empty", "role", "group", "mixed"], [2, 1, 5, 2, 3])[0]
        rows = []
        if kind in ("role", "mixed"):
            for r in rng.sample(roles, rng.randint(1, min(2, len(roles)))):
                rows.append({"type": "role", "name": r})
        if kind in ("group", "mixed"):
            for g in rng.sample(held_groups, rng.randint(1, min(2, len(held_groups)))):
                rows.append({"type": "group", "name": g})
        rng.shuffle(rows)
        if kind == "empty":
            c["clearance"] = []
        elif rows:
            c["clearance"] = rows
        classifications.append(c)
    tag_names = [c["name"] for c in classifications]

    # ---- catalogs, schemas, objects
    cpool = _Names(rng, CATALOG_PARTS, "cat")
    catalogs = [cpool.take() for _ in range(_between(rng, lim["catalogs"]))]
    spool = _Names(rng, SCHEMA_PARTS, "sch")
    schemas = [spool.take() for _ in range(_between(rng, lim["schemas"]))]
    tpart_pool = list(HOSTILE_PARTS)

    def tags_sample(p_any, k):
        if rng.random() >= p_any:
            return None
        return rng.sample(tag_names, rng.randint(1, min(k, len(tag_names))))

    objects = []
    seen_obj = set()
    n_objects = _between(rng, lim["objects"])
    attempts = 0
    while len(objects) < n_objects and attempts < n_objects * 20:
        attempts += 1
        cat, sch = rng.choice(catalogs), rng.choice(schemas)
        tbl = rng.choice(tpart_pool) if rng.random() < 0.8 else f"t{rng.randrange(100)}"
        full = f"{cat}.{sch}.{tbl}"
        if full in seen_obj:
            continue
        seen_obj.add(full)
        if not objects:
            kind = "table"
        else:
            kind = rng.choices(["table", "view", "materialized_view"], [5, 3, 2])[0]
        o = {"name": full, "kind": kind, "owner": rng.choice(user_names)}
        if rng.random() < 0.2:
            o["domain"] = rng.choice(["finance", "finance/payables", "sales", "hr/people"])
        if kind == "view" and rng.random() < 0.8:
            o["view_security"] = rng.choice(["definer", "invoker"])
        if kind != "table":
            # depends only on earlier objects: a DAG by construction
            k = rng.randint(1, min(3, len(objects)))
            o["depends_on"] = [d["name"] for d in rng.sample(objects, k)]
        t = tags_sample(0.35, 2)
        if t:
            o["tags"] = t
        cols = []
        cnames = list(HOSTILE_PARTS) + ["c%d" % i for i in range(10)]
        rng.shuffle(cnames)
        for cn in cnames[: _between(rng, lim["columns"])]:
            col = {"name": cn, "type": rng.choice(COLUMN_TYPES)}
            ct = tags_sample(0.3, 2)
            if ct:
                col["tags"] = ct
            cols.append(col)
        o["columns"] = cols
        objects.append(o)
    rng.shuffle(objects)  # file order is not dependency order
    catalogs = sorted({o["name"].split(".")[0] for o in objects})  # each holds an object

    # ---- grants: patterns made from an existing object by starring parts,
    # so every literal part names something that exists.
    grants = []
    seen_grants = set()
    for _ in range(_between(rng, lim["grants"])):
        o = rng.choice(objects)
        parts = o["name"].split(".")
        r = rng.random()
        if r < 0.08:
            parts = ["*", "*", "*"]
        elif r < 0.55:
            parts = [p if rng.random() < 0.6 else "*" for p in parts]
        pattern = ".".join(parts)
        if rng.random() < 0.6:
            principal = {"role": rng.choice(roles)}
        else:
            principal = {"user": rng.choice(user_names)}
        key = (tuple(sorted(principal.items())), pattern)
        if key in seen_grants:
            continue
        seen_grants.add(key)
        privs = ["SELECT"] if rng.random() < 0.4 else []
        for p in PRIVILEGES:
            if p not in privs and rng.random() < 0.3:
                privs.append(p)
        if not privs:
            privs = [rng.choice(PRIVILEGES)]
        rng.shuffle(privs)
        grants.append({"principal": principal, "object": pattern, "privileges": privs})

    snapshot = {
        "version": 1,
        "generated_at": fmt_time(now),
        "users": users,
        "roles": roles,
        "role_assignments": assignments,
        "classifications": classifications,
        "objects": objects,
        "grants": grants,
        "policies": [],
    }

    # ---- config: 1-2 Trino profiles
    used_engine = set(user_pool.used)
    profiles = []
    for pname in ["trino_a", "trino_b"][: rng.randint(1, 2)]:
        if rng.random() < 0.5:
            pcats = list(catalogs)
        else:
            pcats = rng.sample(catalogs, rng.randint(1, len(catalogs)))
        p = {"name": pname, "engine": "trino", "catalogs": pcats}
        cmap = {}
        if rng.random() < 0.4:
            c = rng.choice(pcats)
            cmap[c] = cpool.take()  # fresh: never another platform catalog
        if cmap or rng.random() < 0.5:
            p["catalog_map"] = cmap
        umap = {}
        if rng.random() < 0.45:
            for un in rng.sample(user_names, rng.randint(1, min(2, len(user_names)))):
                fresh = _Names(rng, HOSTILE_USERS, "mapped", used_engine).take()
                umap[un] = fresh
        if rng.random() < 0.3:
            # map somebody to the platform name of a user the engine knows otherwise
            def eng(u):
                return umap.get(u["name"], u.get("engine_user", u["name"]))
            taken = {eng(u) for u in users}
            free = [u["name"] for u in users if u["name"] not in taken]
            if free:
                y = rng.choice(free)
                x = rng.choice([u["name"] for u in users if u["name"] != y])
                umap[x] = y
        if umap or rng.random() < 0.5:
            p["user_map"] = umap
        if rng.random() < 0.8:
            p["withhold_writes"] = rng.random() < 0.6
        if rng.random() < 0.8:
            p["restrict_materialized_views"] = rng.random() < 0.6
        profiles.append(p)
    config = {"profiles": profiles}
    # policies draw from their own stream: models without policies stay
    # exactly what they were before policies were generated
    add_policies(snapshot, random.Random(seed * 1000003 + 7))
    return snapshot, config


# ---- access policies (MODEL.md section 4) ---------------------------------

POLICY_SHARE = 0.4   # share of models that carry policies

POLICY_NAMES = [
    "mask_pii", "eu_rows", "deny-raw", "p'q", 'p"dq', "pölicy", "策略", "mask pii 2",
    "filter|x", "deny.*", "rows (1)", "n\\b",
]

# string literals a careless renderer would break: quotes, backslashes,
# SQL comment/termination, unicode, empty
HOSTILE_STRINGS = [
    "EU", "US", "O'Brien", "back\\slash", "\\'", "''", "'; DROP TABLE t; --", 'say "hi"',
    "ünï 名前", "🦆", "", "a%_b", "x\\", "end'",
]

ATTR_VALUES = {
    "dept": HOSTILE_STRINGS,
    "level": [0, 3, 7, -2, 2.5, 100],
    "regions": [["EU", "US"], ["O'Brien"], [], ["back\\slash", "ü"], ["EU", ""]],
    "active": [True, False],
}

SQL_DOUBLES = [2.5, -0.125, 100.75, 3.0, 0.5, -7.25]
DATES = ["2026-01-01", "2026-11-30", "1999-12-31"]


def add_policies(snapshot, rng):
    """Give some models 1-5 valid policies (every reference resolves)."""
    if rng.random() >= POLICY_SHARE:
        return
    users, objects = snapshot["users"], snapshot["objects"]
    roles = snapshot["roles"]
    user_names = [u["name"] for u in users]
    # more user attributes: hostile strings, numbers, lists, booleans
    for u in users:
        if rng.random() < 0.6:
            attrs = u.setdefault("attributes", {})
            for k, vals in ATTR_VALUES.items():
                if rng.random() < 0.5:
                    attrs[k] = rng.choice(vals)
            if rng.random() < 0.3 and "region" not in attrs:
                attrs["region"] = rng.choice(["EU", "US", "O'Brien", ""])
    # policies only show where SELECT is held: widen reading for a few principals
    seen = {(tuple(sorted(g["principal"].items())), g["object"]) for g in snapshot["grants"]}
    for _ in range(rng.randint(2, 5)):
        principal = {"role": rng.choice(roles)} if rng.random() < 0.5 else {"user": rng.choice(user_names)}
        key = (tuple(sorted(principal.items())), "*.*.*")
        if key not in seen:
            seen.add(key)
            snapshot["grants"].append({"principal": principal, "object": "*.*.*",
                                       "privileges": ["SELECT"] + (["INSERT"] if rng.random() < 0.3 else [])})
    tags = [c["name"] for c in snapshot["classifications"]]
    used_tags = sorted({t for o in objects for t in (o.get("tags") or [])}
                       | {t for o in objects for c in o["columns"] for t in (c.get("tags") or [])})
    levels = sorted({c["level"] for c in snapshot["classifications"] if "level" in c}) or [3]
    domains = sorted({o["domain"] for o in objects if "domain" in o})
    names = _Names(rng, POLICY_NAMES, "policy")
    policies = []
    for _ in range(rng.randint(1, 5)):
        ptype = rng.choices(["column_mask", "row_filter", "deny"], [4, 4, 2])[0]
        p = {"name": names.take()}
        r = rng.random()
        if r < 0.15:
            p["enabled"] = False
        elif r < 0.4:
            p["enabled"] = True
        p["type"] = ptype
        if ptype == "column_mask":
            p["mask"] = rng.choice(["full", "partial", "partial", "hash", "null"])
            if p["mask"] == "partial":
                p["visible_chars"] = rng.randint(1, 8)
        kinds = ["object", "tag", "tag", "domain", "level_at_least"]
        if ptype != "row_filter":
            kinds += ["column", "column"]
        kind = rng.choice(kinds)
        target = rng.choice(objects)
        if kind == "object":
            scope = {"object": target["name"]}
        elif kind == "column":
            scope = {"column": target["name"] + "." + rng.choice(target["columns"])["name"]}
        elif kind == "tag":
            scope = {"tag": rng.choice(used_tags if used_tags and rng.random() < 0.8 else tags)}
        elif kind == "domain":
            # Only domains some object carries (itself or through a sub-domain): others are refused.
            carried = sorted({"/".join(d.split("/")[:i + 1]) for d in domains for i in range(d.count("/") + 1)})
            if not carried:
                continue
            scope = {"domain": rng.choice(carried)}
        else:
            scope = {"level_at_least": rng.choice(levels + [0, 6])}
        p["scope"] = scope
        for key, share in (("applies_to", 0.4), ("exempt", 0.3)):
            if rng.random() < share:
                ps = {}
                if rng.random() < 0.7:
                    ps["roles"] = rng.sample(roles, rng.randint(0, min(2, len(roles))))
                if rng.random() < 0.5:
                    ps["users"] = rng.sample(user_names, rng.randint(0, min(2, len(user_names))))
                p[key] = ps
        if ptype == "row_filter":
            in_scope = [o for o in objects if _reaches(snapshot, scope, o)] or objects
            p["condition"] = _condition(rng, in_scope, 2)
        policies.append(p)
    snapshot["policies"] = policies


def _reaches(snapshot, scope, o):
    """Roughly whether the scope reaches o (only to pick sensible condition columns)."""
    if "object" in scope:
        return scope["object"] == o["name"]
    if "domain" in scope:
        d = o.get("domain") or ""
        return d == scope["domain"] or d.startswith(scope["domain"] + "/")
    if "tag" in scope:
        tags = {scope["tag"]}
    else:
        tags = {c["name"] for c in snapshot["classifications"] if c.get("level", -99) >= scope["level_at_least"]}
    return bool(tags & (set(o.get("tags") or []) | {t for c in o["columns"] for t in c.get("tags") or []}))


def _value_for(rng, ctype):
    """A literal or $user reference, usually of the column's type, sometimes not."""
    r = rng.random()
    if r < 0.2:
        return {"$user": rng.choice(["name", "attributes.region", "attributes.dept", "attributes.level",
                                     "attributes.active", "attributes.missing", "roles", "bogus"])}
    if r < 0.27:  # wrong type on purpose
        return rng.choice([rng.choice(HOSTILE_STRINGS), rng.randint(-3, 50), rng.choice(SQL_DOUBLES),
                           rng.choice([True, False]), "2026-01-01"])  # a literal null refuses the snapshot
    if ctype == "varchar":
        return rng.choice(HOSTILE_STRINGS)
    if ctype == "bigint":
        return rng.randint(-100, 100000)
    if ctype == "double":
        return rng.choice(SQL_DOUBLES + [rng.randint(-5, 5)])
    if ctype == "boolean":
        return rng.choice([True, False])
    return rng.choice(DATES)


def _condition(rng, objs, depth):
    r = rng.random()
    if depth > 0 and r < 0.25:
        n = rng.choice([2, 2, 3, 1]) if rng.random() < 0.9 else 1  # one part: unsatisfiable
        return {rng.choice(["and", "or"]): [_condition(rng, objs, depth - 1) for _ in range(n)]}
    if r < 0.3:
        return rng.choice([{"true": True}, {"false": True}])
    o = rng.choice(objs)
    col = rng.choice(o["columns"])
    cname, ctype = col["name"], col["type"]
    if rng.random() < 0.06:
        cname = "zz_no_such_column"
    elif rng.random() < 0.15 and cname.isascii():
        cname = cname.upper()
    op = rng.choices(["eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "is_null", "is_not_null", "like"],
                     [6, 2, 1, 1, 1, 1, 4, 2, 1, 1, 0.4])[0]
    node = {"column": cname, "op": op}
    if op in ("is_null", "is_not_null"):
        if rng.random() < 0.1:
            node["value"] = 1  # a value where none belongs: unsatisfiable
        return node
    if op in ("in", "not_in"):
        r = rng.random()
        if r < 0.25:
            # the reader's list, under "value" or, as seed 004 writes it, "values"
            node["value" if r < 0.12 else "values"] = {"$user": rng.choice(["roles", "attributes.regions",
                                                                          "attributes.region"])}
        elif r < 0.3:
            node["value"] = _value_for(rng, ctype)  # a scalar: unsatisfiable
        else:
            node["values"] = [_value_for(rng, ctype) for _ in range(rng.randint(0, 3))]
        return node
    if rng.random() < 0.05:
        node["value"] = [_value_for(rng, ctype)]  # a list for eq: unsatisfiable
    else:
        node["value"] = _value_for(rng, ctype)
    return node


def _has_control(s: str) -> bool:
    return any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") and ch not in "\u200d\ufe0f"
               for ch in s)


def check_model(snapshot, config):
    """Assert the generator's promises; raises AssertionError naming the breach."""
    keys = {"version", "generated_at", "users", "roles", "role_assignments",
            "classifications", "objects", "grants", "policies"}
    assert set(snapshot) == keys, set(snapshot) ^ keys
    users = snapshot["users"]
    names = [u["name"] for u in users]
    assert len(set(names)) == len(names), "duplicate user"
    assert 3 <= len(users) <= 12
    roles = snapshot["roles"]
    assert 1 <= len(roles) <= 6 and len(set(roles)) == len(roles)
    groups = {g for u in users for g in u.get("groups", [])}
    pairs = set()
    for a in snapshot["role_assignments"]:
        assert a["role"] in roles
        assert ("user" in a) != ("group" in a)
        if "user" in a:
            assert a["user"] in names
        else:
            assert a["group"] in groups
        k = (a["role"], a.get("user"), a.get("group"))
        assert k not in pairs, k
        pairs.add(k)
    tags = [c["name"] for c in snapshot["classifications"]]
    assert 2 <= len(tags) <= 8 and len(set(tags)) == len(tags)
    for c in snapshot["classifications"]:
        for row in c.get("clearance", []):
            assert row["type"] in ("role", "group")
            assert row["name"] in (roles if row["type"] == "role" else groups)
    objs = {o["name"]: o for o in snapshot["objects"]}
    assert len(objs) == len(snapshot["objects"]) and 2 <= len(objs) <= 15
    cats = {n.split(".")[0] for n in objs}
    assert 1 <= len(cats) <= 3
    for o in snapshot["objects"]:
        parts = o["name"].split(".")
        assert len(parts) == 3 and all(parts) and not any("*" in p for p in parts)
        assert all(p == p.lower() for p in parts)
        assert o["kind"] in ("table", "view", "materialized_view")
        assert o["owner"] in names
        if "view_security" in o:
            assert o["kind"] == "view"
        if o["kind"] == "table":
            assert "depends_on" not in o
        for d in o.get("depends_on", []):
            assert d in objs
        for t in o.get("tags", []):
            assert t in tags
        cn = [c["name"] for c in o["columns"]]
        assert 1 <= len(cn) <= 6 and len(set(cn)) == len(cn)
        for c in o["columns"]:
            assert c["name"] == c["name"].lower() and "." not in c["name"] and "*" not in c["name"]
            for t in c.get("tags", []):
                assert t in tags
    # DAG
    state = {}

    def visit(n):
        st = state.get(n)
        assert st != 1, "dependency cycle at " + n
        if st == 2:
            return
        state[n] = 1
        for d in objs[n].get("depends_on", []):
            visit(d)
        state[n] = 2

    for n in objs:
        visit(n)
    seen = set()
    for g in snapshot["grants"]:
        pr = g["principal"]
        assert len(pr) == 1
        if "user" in pr:
            assert pr["user"] in names
        else:
            assert pr["role"] in roles
        parts = g["object"].split(".")
        assert len(parts) == 3
        if "*" not in parts:
            assert g["object"] in objs
        assert g["privileges"] and set(g["privileges"]) <= set(PRIVILEGES)
        k = (tuple(sorted(pr.items())), g["object"])
        assert k not in seen
        seen.add(k)
    # policies: every reference resolves (an invalid policy refuses the snapshot)
    pnames = [p["name"] for p in snapshot["policies"]]
    assert len(set(pnames)) == len(pnames), "duplicate policy"
    for p in snapshot["policies"]:
        assert p["type"] in ("column_mask", "row_filter", "deny")
        assert ("mask" in p) == (p["type"] == "column_mask")
        assert ("visible_chars" in p) == (p.get("mask") == "partial")
        assert 1 <= p.get("visible_chars", 1) <= 8
        assert ("condition" in p) == (p["type"] == "row_filter")
        assert len(p["scope"]) == 1
        sc = p["scope"]
        if "object" in sc:
            assert sc["object"] in objs
        if "column" in sc:
            assert p["type"] != "row_filter"
            parts = sc["column"].split(".", 3)
            on, cn = ".".join(parts[:3]), parts[3]
            assert cn in [c["name"] for c in objs[on]["columns"]]
        if "tag" in sc:
            assert sc["tag"] in tags
        for key in ("applies_to", "exempt"):
            assert set(p.get(key, {}).get("roles", [])) <= set(roles)
            assert set(p.get(key, {}).get("users", [])) <= set(names)
    strings = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                strings.append(k)
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            strings.append(x)

    walk(snapshot)
    walk(config)
    for s in strings:
        assert not _has_control(s), repr(s)
    profs = config["profiles"]
    assert 1 <= len(profs) <= 2 and len({p["name"] for p in profs}) == len(profs)
    for p in profs:
        assert p["engine"] == "trino" and p["catalogs"]
        assert set(p["catalogs"]) <= cats
        cm = p.get("catalog_map", {})
        engine_cats = [cm.get(c, c) for c in p["catalogs"]]
        assert len(set(engine_cats)) == len(engine_cats)
        um = p.get("user_map", {})
        assert set(um) <= set(names)
        eng = [um.get(u["name"], u.get("engine_user", u["name"])) for u in users]
        assert len(set(eng)) == len(eng), "engine names collide"


if __name__ == "__main__":
    import json
    import sys

    s = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    snap, conf = generate(s, sys.argv[2] if len(sys.argv) > 2 else "small")
    check_model(snap, conf)
    json.dump({"snapshot": snap, "config": conf}, sys.stdout, indent=2, ensure_ascii=False)
    print()
