#!/usr/bin/env python3
"""Generates a wide catalog for sizing the StarRocks plan.

    tests/starrocks/gen_wide_catalog.py OUT_DIR [--tables 100] [--columns 100] [--users 200] [--tags 25]

writes OUT_DIR/snapshot.json and OUT_DIR/profiles.yaml (profile `wide`, the
catalog `wide` as StarRocks' default_catalog). Shape: TABLES tables of COLUMNS
columns in 10 databases (10,000 columns by default); every other column of a
table carries one gated tag (T00..), a tag per table class, so each tag sits on
TABLES/TAGS tables and stays under the 500-policies-per-tag limit; USERS users
all read everything, a fifth of the first half hold each steward role (each
clears a fifth of the tags), the first tenth also write, one owner may create.

Then, for example:
    tagwarden plan --snapshot OUT/snapshot.json --config OUT/profiles.yaml --profile wide --output json
    tagwarden plan ... --masking on --output json
"""
import argparse
import json
import os


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--columns", type=int, default=100)
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--tags", type=int, default=25)
    a = ap.parse_args()

    stewards = 5
    users = [{"name": "u%04d" % i} for i in range(a.users)] + [{"name": "owner"}]
    roles = ["reader", "writer"] + ["steward_%d" % s for s in range(stewards)]
    assignments = [{"role": "reader", "user": u["name"]} for u in users[: a.users]]
    assignments += [{"role": "writer", "user": "u%04d" % i} for i in range(a.users // 10)]
    assignments += [{"role": "steward_%d" % (i % stewards), "user": "u%04d" % i} for i in range(a.users // 2)]
    tags = ["T%02d" % t for t in range(a.tags)]
    classifications = [
        {"name": t, "clearance": [{"type": "role", "name": "steward_%d" % (k % stewards)}]} for k, t in enumerate(tags)
    ]
    objects = []
    for i in range(a.tables):
        tag = tags[i % a.tags]
        cols = []
        for j in range(a.columns):
            c = {"name": "c%03d" % j, "type": "varchar" if j % 3 else "bigint"}
            if j % 2 == 0:
                c["tags"] = [tag]
            cols.append(c)
        objects.append({"name": "wide.db%02d.t%04d" % (i % 10, i), "kind": "table", "columns": cols})
    grants = [
        {"principal": {"role": "reader"}, "object": "wide.*.*", "privileges": ["SELECT"]},
        {"principal": {"role": "writer"}, "object": "wide.*.*", "privileges": ["INSERT", "UPDATE", "DELETE"]},
        {"principal": {"user": "owner"}, "object": "wide.*.*", "privileges": ["OWNERSHIP"]},
    ]
    snapshot = {
        "version": 1,
        "generated_at": "2026-11-30T12:00:00Z",
        "users": users,
        "roles": roles,
        "role_assignments": assignments,
        "classifications": classifications,
        "objects": objects,
        "grants": grants,
        "policies": [],
    }
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "snapshot.json"), "w") as f:
        json.dump(snapshot, f)
    with open(os.path.join(a.out, "profiles.yaml"), "w") as f:
        f.write(
            "profiles:\n"
            "  - name: wide\n"
            "    engine: starrocks\n"
            "    catalogs: [wide]\n"
            "    catalog_map: {wide: default_catalog}\n"
            "    restrict_materialized_views: false\n"
        )
    tagged = sum(1 for o in objects for c in o["columns"] if "tags" in c)
    print("%d tables, %d columns (%d tagged with %d tags), %d users -> %s"
          % (a.tables, a.tables * a.columns, tagged, a.tags, len(users), a.out))


if __name__ == "__main__":
    main()
