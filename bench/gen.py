#!/usr/bin/env python3
"""Seeded generator of governance snapshots at named scales, with realistic skew.

  bench/gen.py --scale S|M|L --seed 1 --out DIR     writes DIR/snapshot.json and DIR/profiles.yaml

S: 1k columns, M: 100k columns, L: 1,000,000 columns in 50,000 tables, 20,000 users,
2,000 roles, 100,000 role assignments, 2,000 tags of which 500 gated, 4 profiles
(2 Trino, 2 StarRocks). A few tags sit on many columns, most users hold a few roles,
views depend on tables.
"""
import argparse
import json
import os
import random

SCALES = {
    #        tables  cols/table users  roles  assignments tags  gated  catalogs
    "S": dict(tables=100, cols=10, users=200, roles=20, assignments=1000, tags=50, gated=10, catalogs=2),
    "M": dict(tables=5000, cols=20, users=5000, roles=500, assignments=25000, tags=500, gated=100, catalogs=4),
    "L": dict(tables=50000, cols=20, users=20000, roles=2000, assignments=100000, tags=2000, gated=500, catalogs=4),
}


def zipf_pick(rng, n, s=1.2):
    """Index in [0, n) with a heavy head: a few items are picked very often."""
    return min(n - 1, int(rng.paretovariate(s)) - 1)


def generate(scale, seed):
    cfg = SCALES[scale]
    rng = random.Random(seed)
    users = [{"name": f"user{i:05d}"} for i in range(cfg["users"])]
    for u in users[:: 17]:
        u["groups"] = [f"group{rng.randrange(50)}"]
    roles = [f"role{i:04d}" for i in range(cfg["roles"])]
    assignments, seen = [], set()
    while len(assignments) < cfg["assignments"]:
        u = users[rng.randrange(len(users))]["name"]
        r = roles[zipf_pick(rng, len(roles))]
        if (r, u) in seen:
            continue
        seen.add((r, u))
        a = {"role": r, "user": u}
        if rng.random() < 0.05:
            a["expires_at"] = f"2026-12-{rng.randrange(1, 28):02d}T00:00:00Z"
        assignments.append(a)
    tags = []
    for i in range(cfg["tags"]):
        t = {"name": f"tag{i:04d}", "level": rng.randrange(1, 5)}
        if i < cfg["gated"]:
            t["clearance"] = [{"type": "role", "name": roles[rng.randrange(len(roles))]}]
        tags.append(t)
    catalogs = [f"cat{i}" for i in range(cfg["catalogs"])]
    objects = []
    # Column tags stay under StarRocks' 500-per-tag limit per profile for the gated ones.
    per_tag_budget = {t["name"]: 0 for t in tags[: cfg["gated"]]}
    for i in range(cfg["tables"]):
        cat = catalogs[i % len(catalogs)]
        name = f"{cat}.schema{(i // len(catalogs)) % 50:02d}.t{i:06d}"
        cols = []
        for c in range(cfg["cols"]):
            col = {"name": f"c{c:02d}", "type": "varchar" if c % 3 else "bigint"}
            if rng.random() < 0.08:
                t = tags[zipf_pick(rng, len(tags))]["name"]
                if t in per_tag_budget:
                    if per_tag_budget[t] >= 400:
                        t = tags[cfg["gated"] + rng.randrange(len(tags) - cfg["gated"])]["name"]
                    else:
                        per_tag_budget[t] += 1
                col["tags"] = [t]
            cols.append(col)
        o = {"name": name, "kind": "table", "owner": users[0]["name"], "columns": cols}
        if rng.random() < 0.02:
            o["tags"] = [tags[rng.randrange(cfg["gated"], len(tags))]["name"]]
        objects.append(o)
    for i in range(cfg["tables"] // 50):
        base = objects[rng.randrange(cfg["tables"])]
        cat = base["name"].split(".")[0]
        objects.append({"name": f"{cat}.views.v{i:06d}", "kind": "view", "owner": users[0]["name"],
                        "view_security": "invoker", "depends_on": [base["name"]],
                        "columns": [{"name": "c00", "type": "bigint"}]})
    grants = []
    for r in roles[: max(1, len(roles) // 4)]:
        cat = catalogs[rng.randrange(len(catalogs))]
        schema = f"schema{rng.randrange(50):02d}" if rng.random() < 0.7 else "*"
        privs = ["SELECT"] + (["INSERT", "UPDATE", "DELETE"] if rng.random() < 0.2 else [])
        grants.append({"principal": {"role": r}, "object": f"{cat}.{schema}.*", "privileges": privs})
    snapshot = {"version": 1, "generated_at": "2026-11-30T12:00:00Z", "users": users, "roles": roles,
                "role_assignments": assignments, "classifications": tags, "objects": objects, "grants": grants,
                "policies": []}
    half = len(catalogs) // 2 or 1
    profiles = {"profiles": [
        {"name": "trino_a", "engine": "trino", "catalogs": catalogs[:half]},
        {"name": "trino_b", "engine": "trino", "catalogs": catalogs[half:] or catalogs},
        {"name": "starrocks_a", "engine": "starrocks", "catalogs": catalogs[:half]},
        {"name": "starrocks_b", "engine": "starrocks", "catalogs": catalogs[half:] or catalogs},
    ]}
    return snapshot, profiles


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", choices=sorted(SCALES), default="S")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    snapshot, profiles = generate(args.scale, args.seed)
    with open(os.path.join(args.out, "snapshot.json"), "w") as f:
        json.dump(snapshot, f, separators=(",", ":"))
    with open(os.path.join(args.out, "profiles.yaml"), "w") as f:
        json.dump(profiles, f, indent=1)
    cols = sum(len(o["columns"]) for o in snapshot["objects"])
    print(f"scale {args.scale}: {len(snapshot['objects'])} objects, {cols} columns, {len(snapshot['users'])} users, "
          f"{len(snapshot['role_assignments'])} assignments -> {args.out}")


if __name__ == "__main__":
    main()
