#!/usr/bin/env python3
"""Seeded generator of governance snapshots at named scales, with realistic skew.

  bench/gen.py --scale S|M|L [--seed 1] --out DIR     writes DIR/snapshot.json and DIR/profiles.yaml

Scale  tables  columns    users   roles  assignments  tags  gated
S          50      1,000     200      20        1,000    50     12
M       5,000    100,000   5,000     500       25,000   500    125
L      50,000  1,000,000  20,000   2,000      100,000  2,000   500

Four profiles: trino_a and starrocks_a over the first half of the catalogs, trino_b and
starrocks_b over the second half. StarRocks profiles set max_policies_per_tag to 1,000,000
(tags like pii_email sit on thousands of columns; at the default of 500 they would fail by
design, and `--sr-limit N` restores a lower limit to see that failure reported), and
max_roles_per_user to 1,000,000, as for a StarRocks whose FE privilege_max_total_roles_per_user
is raised as far: at StarRocks' default of 64, users of M and L need more roles than that, and
their atom roles inherit through bundle roles (docs/starrocks.md, Compact roles); `--sr-roles 64`
(here and in bench/run) generates profiles for a StarRocks left at its default.

Skew, as in a real warehouse:
  * column names repeat across tables (id, email, phone, ssn, created_at, ...): the sensitive
    ones always carry their tag (email -> pii_email, gated), so one decision covers the same
    column in thousands of tables; the other columns are drawn from a Zipf-weighted vocabulary;
  * table widths vary (3 to 60 columns, 20 on average; the total is exact);
  * catalogs and schemas are uneven (Zipf); a few tags sit on very many columns;
  * role membership is Zipf: a few roles (analysts) hold thousands of users, most hold a handful;
    every user holds about assignments/users roles;
  * most grants are role -> catalog.schema.*, a few are per table or per user;
  * tables are owned by a handful of service accounts; views (2% of tables) depend on tables;
  * a few access policies: a partial mask, a hash mask, a row filter on a user attribute and a
    deny of one object. Kept few on purpose.
The same --scale and --seed give the same bytes.
"""
import argparse
import json
import os
import random

SCALES = {
    "S": dict(tables=50, columns=1_000, users=200, roles=20, assignments=1_000, tags=50, gated=12, catalogs=2),
    "M": dict(tables=5_000, columns=100_000, users=5_000, roles=500, assignments=25_000, tags=500, gated=125,
              catalogs=4),
    "L": dict(tables=50_000, columns=1_000_000, users=20_000, roles=2_000, assignments=100_000, tags=2_000,
              gated=500, catalogs=4),
}

# Sensitive column names: (name, type, tag, gated, share of tables that have the column)
SENSITIVE = [
    ("email", "varchar", "pii_email", True, 0.30),
    ("phone", "varchar", "pii_phone", True, 0.20),
    ("ssn", "varchar", "pii_ssn", True, 0.04),
    ("date_of_birth", "date", "pii_dob", True, 0.06),
    ("home_address", "varchar", "pii_address", True, 0.08),
    ("ip_address", "varchar", "pii_ip", True, 0.10),
    ("credit_card_number", "varchar", "pci_card", True, 0.02),
    ("iban", "varchar", "pci_iban", True, 0.03),
    ("salary", "decimal(12,2)", "hr_salary", True, 0.01),
    ("first_name", "varchar", "pii_name", False, 0.15),
    ("last_name", "varchar", "pii_name", False, 0.15),
]
COMMON = [  # every table has the first; the rest by Zipf weight
    ("id", "bigint"), ("created_at", "timestamp"), ("updated_at", "timestamp"), ("customer_id", "bigint"),
    ("order_id", "bigint"), ("account_id", "bigint"), ("status", "varchar"), ("amount", "decimal(18,2)"),
    ("currency", "varchar"), ("country", "varchar"), ("region", "varchar"), ("product_id", "bigint"),
    ("quantity", "integer"), ("price", "decimal(18,2)"), ("description", "varchar"), ("name", "varchar"),
    ("source", "varchar"), ("event_type", "varchar"), ("event_time", "timestamp"), ("session_id", "varchar"),
    ("user_agent", "varchar"), ("is_active", "boolean"), ("score", "double"), ("category", "varchar"),
    ("sku", "varchar"), ("warehouse_id", "bigint"), ("invoice_id", "bigint"), ("tax", "decimal(18,2)"),
    ("discount", "double"), ("notes", "varchar"), ("load_date", "date"), ("batch_id", "bigint"),
]
FIRST = ["ana", "ben", "carla", "dev", "emma", "farid", "grace", "hugo", "ines", "jo", "kenji", "lena", "marco",
         "nora", "omar", "priya", "quinn", "rosa", "sam", "tariq", "uma", "victor", "wen", "xavier", "yara", "zoe"]
LAST = ["garcia", "smith", "kim", "haddad", "lee", "novak", "rossi", "mueller", "silva", "tanaka", "okafor",
        "dubois", "jensen", "kowalski", "nguyen", "patel", "ivanova", "cohen", "moreau", "svensson", "ali",
        "costa", "fischer", "hansen", "larsen", "murphy", "oconnor", "petrov", "reyes", "schmidt"]
DOMAINS = ["sales", "finance", "marketing", "hr", "ops", "product", "support", "logistics", "risk", "web"]
SERVICE_USERS = ["etl_svc", "ingest_svc", "dbt_svc", "airflow_svc", "reverse_etl_svc"]
REGIONS = ["EU", "US", "APAC", "LATAM"]


def zipf_index(rng, n, s=1.1):
    """Index in [0, n) with a heavy head (Pareto-distributed rank)."""
    return min(n - 1, int(rng.paretovariate(s)) - 1)


def zipf_weights(n, s=1.0):
    return [1.0 / (i + 1) ** s for i in range(n)]


def table_widths(rng, tables, columns):
    """Widths between 3 and 60, skewed (many narrow, a few wide), summing exactly to `columns`."""
    lo, hi = 3, 60
    w = [max(lo, min(hi, int(rng.lognormvariate(2.8, 0.55)))) for _ in range(tables)]
    diff = columns - sum(w)
    while diff:
        i = rng.randrange(tables)
        if diff > 0 and w[i] < hi:
            step = min(diff, hi - w[i], 5)
            w[i] += step
            diff -= step
        elif diff < 0 and w[i] > lo:
            step = min(-diff, w[i] - lo, 5)
            w[i] -= step
            diff += step
    return w


DEFAULT_SR_ROLES = 1_000_000


def generate(scale, seed, sr_limit=1_000_000, sr_roles=DEFAULT_SR_ROLES):
    cfg = SCALES[scale]
    rng = random.Random(f"{scale}:{seed}")

    # --- users: realistic names, unique; a few service accounts; attributes for the row filter
    users, seen_names = [], set()
    for s in SERVICE_USERS:
        users.append({"name": s})
        seen_names.add(s)
    i = 0
    while len(users) < cfg["users"]:
        base = f"{FIRST[rng.randrange(len(FIRST))]}.{LAST[rng.randrange(len(LAST))]}"
        name = base if base not in seen_names else f"{base}{i}"
        i += 1
        if name in seen_names:
            continue
        seen_names.add(name)
        u = {"name": name, "attributes": {"region": REGIONS[zipf_index(rng, len(REGIONS), 1.5)]}}
        if rng.random() < 0.05:
            u["groups"] = [f"{DOMAINS[rng.randrange(len(DOMAINS))]}-team"]
        users.append(u)
    humans = [u["name"] for u in users[len(SERVICE_USERS):]]

    # --- roles and Zipf memberships (role rank 0 is the biggest)
    roles = [f"{DOMAINS[r % len(DOMAINS)]}_{['analyst', 'engineer', 'reader', 'steward', 'admin'][r // len(DOMAINS) % 5]}_{r:04d}"
             for r in range(cfg["roles"])]
    assignments, pairs = [], set()
    while len(assignments) < cfg["assignments"]:
        r = roles[zipf_index(rng, len(roles), 0.9)]
        u = humans[rng.randrange(len(humans))]
        if (r, u) in pairs:
            continue
        pairs.add((r, u))
        a = {"role": r, "user": u}
        if rng.random() < 0.03:
            a["expires_at"] = f"2026-12-{rng.randrange(1, 29):02d}T00:00:00Z"  # after generated_at
        elif rng.random() < 0.01:
            a["expires_at"] = f"2026-{rng.randrange(1, 11):02d}-01T00:00:00Z"  # already expired
        assignments.append(a)
    for s in SERVICE_USERS:  # service accounts hold the top role
        assignments.append({"role": roles[0], "user": s})

    # --- classifications: the sensitive ones first (gated unless marked), then generated ones
    tags, seen_tags = [], set()
    gated_names = []
    for _, _, t, gated, _ in SENSITIVE:
        if t in seen_tags:
            continue
        seen_tags.add(t)
        tags.append({"name": t, "level": 3 if gated else 2, "_gated": gated})
    n_extra_gated = cfg["gated"] - sum(1 for t in tags if t["_gated"])
    for k in range(n_extra_gated):
        tags.append({"name": f"restricted_{DOMAINS[k % len(DOMAINS)]}_{k:04d}", "level": 3 + k % 2, "_gated": True})
    k = 0
    while len(tags) < cfg["tags"]:
        tags.append({"name": f"label_{DOMAINS[k % len(DOMAINS)]}_{k:04d}", "level": k % 3, "_gated": False})
        k += 1
    # clearance roles: a mid-sized role (realistic: stewards hold it, not everybody)
    for t in tags:
        if t.pop("_gated"):
            t["clearance"] = [{"type": "role", "name": roles[min(len(roles) - 1, 1 + zipf_index(rng, len(roles), 0.7))]}]
            gated_names.append(t["name"])
    extra_gated = [t["name"] for t in tags if t["name"].startswith("restricted_")]
    labels = [t["name"] for t in tags if t["name"].startswith("label_")]

    # --- objects
    catalogs = [f"{name}" for name in ["lake", "warehouse", "crm", "events"][: cfg["catalogs"]]]
    cat_w = zipf_weights(len(catalogs), 0.5)
    n_schemas = max(2, min(200, cfg["tables"] // 25))
    schemas = [f"{DOMAINS[s % len(DOMAINS)]}_{s:03d}" for s in range(n_schemas)]
    schema_w = zipf_weights(n_schemas, 0.8)
    widths = table_widths(rng, cfg["tables"], cfg["columns"])
    common_w = zipf_weights(len(COMMON) - 1, 0.6)
    objects = []
    used_names = set()
    for ti, width in enumerate(widths):
        cat = rng.choices(catalogs, cat_w)[0]
        schema = rng.choices(schemas, schema_w)[0]
        name = f"{cat}.{schema}.t{ti:06d}"
        used_names.add(name)
        domain = schema.split("_")[0]
        col_names = {"id"}
        cols = [{"name": "id", "type": "bigint"}]
        for cname, ctype, tag, _, share in SENSITIVE:
            if len(cols) < width and rng.random() < share and cname not in col_names:
                col_names.add(cname)
                cols.append({"name": cname, "type": ctype, "tags": [tag]})
        tries = 0
        while len(cols) < width and tries < 200:
            tries += 1
            cname, ctype = COMMON[1 + rng.choices(range(len(COMMON) - 1), common_w)[0]]
            if cname in col_names:
                continue
            col_names.add(cname)
            cols.append({"name": cname, "type": ctype})
        a = 0
        while len(cols) < width:  # wide tables: metric_NN / attr_NN, repeating across tables too
            cname = f"{'metric' if a % 2 else 'attr'}_{a // 2:02d}"
            a += 1
            if cname in col_names:
                continue
            col_names.add(cname)
            cols.append({"name": cname, "type": "double" if cname.startswith("metric") else "varchar"})
        # extra tags: domain-restricted (gated, Zipf: a few very common) and labels (ungated)
        for c in cols[1:]:
            r = rng.random()
            if r < 0.03 and extra_gated:
                c.setdefault("tags", []).append(extra_gated[zipf_index(rng, len(extra_gated), 0.8)])
            elif r < 0.10:
                c.setdefault("tags", []).append(labels[zipf_index(rng, len(labels), 0.8)])
        o = {"name": name, "kind": "table", "owner": SERVICE_USERS[zipf_index(rng, len(SERVICE_USERS), 1.5)],
             "domain": domain, "columns": cols}
        r = rng.random()
        if r < 0.01 and extra_gated:  # a whole table gated
            o["tags"] = [extra_gated[rng.randrange(len(extra_gated))]]
        elif r < 0.10:
            o["tags"] = [labels[zipf_index(rng, len(labels), 0.8)]]
        objects.append(o)
    tables = list(objects)
    for vi in range(max(1, cfg["tables"] // 50)):
        base = tables[rng.randrange(len(tables))]
        cat, schema, _ = base["name"].split(".")
        cols = [{"name": c["name"], "type": c["type"]} for c in base["columns"][: max(2, len(base["columns"]) // 2)]]
        objects.append({"name": f"{cat}.{schema}.v{vi:06d}", "kind": "view", "owner": "dbt_svc",
                        "domain": base["domain"], "view_security": "invoker" if rng.random() < 0.8 else "definer",
                        "depends_on": [base["name"]], "columns": cols})

    # --- grants: role -> schema (most), role -> catalog, role -> table, a few users direct
    grants, gseen = [], set()

    def grant(principal, obj, privs):
        key = (json.dumps(principal, sort_keys=True), obj)
        if key in gseen:
            return
        gseen.add(key)
        grants.append({"principal": principal, "object": obj, "privileges": privs})

    for s in SERVICE_USERS:
        for cat in catalogs:
            grant({"user": s}, f"{cat}.*.*", ["SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"])
    for ri, r in enumerate(roles):
        kind = r.split("_")[1]
        writes = ["INSERT", "UPDATE", "DELETE"] if kind in ("engineer", "admin") else []
        n = 1 + (rng.random() < 0.5) + (rng.random() < 0.2)
        for _ in range(n):
            x = rng.random()
            cat = rng.choices(catalogs, cat_w)[0]
            if ri < 3 or x < 0.05:
                grant({"role": r}, f"{cat}.*.*", ["SELECT"] + writes)
            elif x < 0.80:
                grant({"role": r}, f"{cat}.{rng.choices(schemas, schema_w)[0]}.*", ["SELECT"] + writes)
            else:
                t = tables[rng.randrange(len(tables))]["name"]
                grant({"role": r}, t, ["SELECT"] + writes)
    for _ in range(max(2, cfg["users"] // 100)):
        t = tables[rng.randrange(len(tables))]["name"]
        grant({"user": humans[rng.randrange(len(humans))]}, t, ["SELECT"])

    # --- a few access policies
    def pick_table_with(col):
        for _ in range(10_000):
            t = tables[rng.randrange(len(tables))]
            if any(c["name"] == col for c in t["columns"]):
                return t
        return tables[0]

    steward = roles[1]
    filtered = [tables[rng.randrange(len(tables))]["name"] for _ in range(2)]
    policies = [
        {"name": "mask_phone_partial", "type": "column_mask", "mask": "partial", "visible_chars": 4,
         "scope": {"tag": "pii_phone"}, "exempt": {"roles": [steward]}},
        {"name": "mask_card_hash", "type": "column_mask", "mask": "hash",
         "scope": {"column": pick_table_with("credit_card_number")["name"] + ".credit_card_number"}},
        {"name": "rows_by_region", "type": "row_filter", "scope": {"object": filtered[0]},
         "condition": {"column": "region", "op": "eq", "value": {"$user": "attributes.region"}},
         "exempt": {"roles": [steward]}},
        {"name": "rows_by_region_2", "type": "row_filter", "scope": {"object": filtered[1]},
         "condition": {"column": "region", "op": "in", "values": ["EU", "US"]}},
        {"name": "deny_raw_hr", "type": "deny", "scope": {"object": pick_table_with("salary")["name"]},
         "applies_to": {"roles": [roles[min(len(roles) - 1, 5)]]}},
    ]
    # make sure the filtered tables have the filter column (the filter fails closed otherwise)
    by_name = {o["name"]: o for o in tables}
    for n in filtered:
        if not any(c["name"] == "region" for c in by_name[n]["columns"]):
            by_name[n]["columns"].append({"name": "region", "type": "varchar"})

    snapshot = {"version": 1, "generated_at": "2026-11-30T12:00:00Z", "users": users, "roles": roles,
                "role_assignments": assignments, "classifications": tags, "objects": objects, "grants": grants,
                "policies": policies}
    half = max(1, len(catalogs) // 2)
    first, second = catalogs[:half], catalogs[half:] or catalogs
    profiles = {"profiles": [
        {"name": "trino_a", "engine": "trino", "catalogs": first},
        {"name": "trino_b", "engine": "trino", "catalogs": second, "withhold_writes": True},
        {"name": "starrocks_a", "engine": "starrocks", "catalogs": first, "max_policies_per_tag": sr_limit,
         "max_roles_per_user": sr_roles},
        {"name": "starrocks_b", "engine": "starrocks", "catalogs": second, "max_policies_per_tag": sr_limit,
         "max_roles_per_user": sr_roles},
    ]}
    return snapshot, profiles


def stats(snapshot):
    cols = sum(len(o["columns"]) for o in snapshot["objects"])
    tables = sum(1 for o in snapshot["objects"] if o["kind"] == "table")
    gated = sum(1 for t in snapshot["classifications"] if t.get("clearance"))
    return (f"{tables} tables + {len(snapshot['objects']) - tables} views, {cols} columns, "
            f"{len(snapshot['users'])} users, {len(snapshot['roles'])} roles, "
            f"{len(snapshot['role_assignments'])} assignments, {len(snapshot['classifications'])} tags "
            f"({gated} gated), {len(snapshot['grants'])} grants, {len(snapshot['policies'])} policies")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", choices=sorted(SCALES), default="S")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--sr-limit", type=int, default=1_000_000,
                    help="max_policies_per_tag of the StarRocks profiles (default 1,000,000; 500 is the "
                         "compiler's default and makes them fail at M and L)")
    ap.add_argument("--sr-roles", type=int, default=DEFAULT_SR_ROLES,
                    help="max_roles_per_user of the StarRocks profiles (default 1,000,000; 64 is StarRocks' "
                         "default privilege_max_total_roles_per_user, and the compiler's)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    snapshot, profiles = generate(args.scale, args.seed, args.sr_limit, args.sr_roles)
    with open(os.path.join(args.out, "snapshot.json"), "w") as f:
        json.dump(snapshot, f, separators=(",", ":"))
    with open(os.path.join(args.out, "profiles.yaml"), "w") as f:
        json.dump(profiles, f, indent=1)  # JSON is YAML
    print(f"scale {args.scale} seed {args.seed}: {stats(snapshot)} -> {args.out}")


if __name__ == "__main__":
    main()
