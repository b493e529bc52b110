#!/usr/bin/env python3
"""Seeded differential test: tagwarden's compiler vs. an independent reference vs. Trino.

For each generated model (gen_model.py) this runs `tagwarden compile`, then

  (a) compares every profile's policyset.json with reference.py: per user and
      visible object the privileges and denied columns, the users list, the
      create-restricted users, and the first-matching `unlisted` pattern for
      generated names the snapshot does not list;
  (b) asks Trino's own evaluator (the oracle harness) about the generated
      rules.json for every engine user (plus unknown users) x object x column
      set x operation and compares each answer with the reference.

Model i uses seed S+i, so `--seed S+i --models 1` reproduces one model.
Prints every disagreement (the first 20 in detail), then
`decisions checked against Trino: K` and, last, `differential: N passed, M failed`.
Exit 0 when M == 0, 1 otherwise, 2 on a usage error.

--self-check mutates one rule at a time in a generated rules.json (drops the
tables section, drops a deny, flips a privilege, grants on a deny, drops a
column restriction, reverses the rule order) and one decision in a parsed
policyset, and asserts that the comparisons notice; its exit status is the
self-check's verdict.
"""

from __future__ import annotations

import argparse
import atexit
import codecs
import concurrent.futures as cf
import copy
import json
import multiprocessing.util
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import gen_model  # noqa: E402
from model_daemon import ModelDaemon  # noqa: E402
from reference import (PRIVILEGES, EngineView, Profile, Reference,  # noqa: E402
                       pattern_matches)

DETAIL = 20
COMPILE_TIMEOUT = 300
ORACLE_TIMEOUT = 900
WRITE_OPS = ("insert", "delete", "update", "ownership")
META = set(".|()[]{}^$\\+?*")


# --------------------------------------------------------------------------
# results

class Result:
    def __init__(self, seed, workdir):
        self.seed = seed
        self.workdir = workdir
        self.passed = 0
        self.failed = 0
        self.trino = 0
        self.trino_policy = 0  # column_mask / row_filters answers (not in self.trino)
        self.opa = 0           # answers of Trino's OPA access control compared with the file-based ones
        self.fails = []        # (one-line summary, detail lines)
        self.selfcheck = []    # dicts: kind, what, detected, mandatory
        self.notes = []

    def ok(self, n=1):
        self.passed += n

    def fail(self, summary, *detail):
        self.failed += 1
        self.fails.append((f"[seed={self.seed}] {summary}", [d for d in detail if d]))


def jdump(x):
    return json.dumps(x, ensure_ascii=False, sort_keys=True)


# --------------------------------------------------------------------------
# running the tools

def tool_cmd(path):
    """A .py tool without an exec bit still runs under this Python."""
    if path.endswith(".py") and not os.access(path, os.X_OK):
        return [sys.executable, path]
    return [path]


def child_env():
    env = dict(os.environ)
    env.setdefault("LANG", "C.UTF-8")
    env.setdefault("LC_ALL", "C.UTF-8")
    return env


def run_compile(opts, workdir, res):
    snap_p = os.path.join(workdir, "snapshot.json")
    conf_p = os.path.join(workdir, "config.yaml")
    out = os.path.join(workdir, "out")
    os.makedirs(out, exist_ok=True)
    cmd = tool_cmd(opts.tagwarden) + ["compile", "--snapshot", snap_p, "--config", conf_p,
                                      "--out", out, "--emit-policyset"]
    if opts.now:
        cmd += ["--now", opts.now]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=COMPILE_TIMEOUT, env=child_env())
    except subprocess.TimeoutExpired:
        res.fail(f"compile timed out after {COMPILE_TIMEOUT}s", "cmd: " + " ".join(cmd))
        return None
    except OSError as e:
        res.fail(f"compile could not start: {e}", "cmd: " + " ".join(cmd))
        return None
    with open(os.path.join(workdir, "compile.log"), "wb") as f:
        f.write(b"$ " + " ".join(cmd).encode() + b"\n--- stdout\n" + p.stdout + b"\n--- stderr\n" + p.stderr)
    if p.returncode != 0:
        res.fail(f"compile exited {p.returncode} (expected 0)",
                 "stderr: " + p.stderr.decode("utf-8", "replace").strip()[-1500:],
                 "stdout: " + p.stdout.decode("utf-8", "replace").strip()[-500:])
        return None
    res.ok()
    return out


class MultiOracle:
    """One `ORACLE --multi` JVM per worker process, reused for every rules file.

    The stream switches rules with {"op":"load","path":...}; answers are read
    as consecutive JSON objects (not lines: the harness flushes each object
    before its newline), so no sentinel is needed and nothing can deadlock
    (a thread writes the queries while this one reads).
    """

    def __init__(self, oracle, logpath=None, args=("--multi",)):
        self.log = open(logpath, "ab") if logpath else tempfile.TemporaryFile()
        self.p = subprocess.Popen(tool_cmd(oracle) + list(args), stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.log, env=child_env())
        self.dec = json.JSONDecoder()
        self.text = ""
        self.pos = 0
        self.utf8 = codecs.getincrementaldecoder("utf-8")("replace")

    def stderr_tail(self):
        try:
            self.log.flush()
            self.log.seek(0, os.SEEK_END)
            size = self.log.tell()
            self.log.seek(max(0, size - 1500))
            return self.log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""

    def alive(self):
        return self.p.poll() is None

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
        self.log.close()

    def _next(self, deadline):
        ws = re.compile(r"\s*")
        while True:
            self.pos = ws.match(self.text, self.pos).end()
            if self.pos < len(self.text):
                try:
                    obj, end = self.dec.raw_decode(self.text, self.pos)
                    self.pos = end
                    if self.pos > 1 << 20:
                        self.text, self.pos = self.text[self.pos:], 0
                    return obj
                except ValueError:
                    if "\n" in self.text[self.pos:]:  # a whole line that is not JSON
                        nl = self.text.index("\n", self.pos)
                        bad, self.pos = self.text[self.pos:nl], nl + 1
                        return {"error": "not JSON: " + bad[:200]}
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError("oracle answer timed out")
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                continue
            chunk = os.read(self.p.stdout.fileno(), 1 << 16)
            if not chunk:
                raise EOFError("oracle exited (code %s): %s" % (self.p.wait(timeout=10), self.stderr_tail()))
            self.text += self.utf8.decode(chunk)

    def ask(self, rules_path, queries_path, load=None):
        """-> (answers or None, error or None); raises on a broken stream. `load`: the line that
        switches what is judged (default: the rules file at rules_path)."""
        with open(queries_path, "rb") as f:
            body = f.read()
        n = body.count(b"\n")
        load = json.dumps(load or {"op": "load", "path": os.path.abspath(rules_path)}).encode() + b"\n"
        err = []

        def write():
            try:
                self.p.stdin.write(load + body)
                self.p.stdin.flush()
            except OSError as e:
                err.append(e)

        t = threading.Thread(target=write, daemon=True)
        t.start()
        deadline = time.time() + ORACLE_TIMEOUT
        first = self._next(deadline)
        answers = [self._next(deadline) for _ in range(n)]
        t.join()
        if err:
            raise err[0]
        if isinstance(first, dict) and "load_error" in first:
            return None, f"oracle load_error: {first['load_error']}"
        if first != {"loaded": True}:
            raise RuntimeError(f"oracle --multi: unexpected load reply {first!r}")
        return answers, None


_MULTI = {}


def _close_multi():
    for key in [k for k in _MULTI if k == "oracle" or k.startswith("opa")]:
        m = _MULTI.pop(key)
        if m is not None:
            m.close()


def run_opa_judge(opts, base_url, batched, queries_path, answers_path):
    """Trino's OPA access control (tests/trino-opa), asking the daemon at base_url, on the
    same queries as the oracle. -> (answers list or None, error string or None)."""
    key = "opa-batched" if batched else "opa"
    m = _MULTI.get(key)
    if m is None or not m.alive():
        args = (["--batched"] if batched else []) + ["--multi"]
        m = _MULTI[key] = MultiOracle(opts.opa_judge, opts.keep and os.path.join(
            opts.keep, f"{key}-multi-{os.getpid()}.log"), args=args)
        if not _MULTI.get("finalizer"):
            _MULTI["finalizer"] = multiprocessing.util.Finalize(None, _close_multi, exitpriority=10)
            atexit.register(_close_multi)
    try:
        answers, err = m.ask(None, queries_path, load={"op": "load", "url": base_url})
    except (OSError, EOFError, TimeoutError, RuntimeError, ValueError) as e:
        m.close()
        _MULTI.pop(key, None)
        return None, f"OPA judge failed: {e}"
    if answers is not None:
        with open(answers_path, "w", encoding="utf-8") as f:
            for a in answers:
                f.write(json.dumps(a, ensure_ascii=False) + "\n")
    return answers, err


def compare_engines(queries, file_answers, opa_answers, prof, res, skip_unknown_users=None, label="opa"):
    """Trino's OPA access control must decide every query exactly as Trino's file-based access
    control decided it on the rules document of the same compile. `skip_unknown_users`: an
    EngineView; policy answers (masks, filters) of users it does not know are not compared (the
    file-based answer comes from a rule naming nobody, and the catalog refuses them anyway)."""
    for i, q in enumerate(queries):
        got = opa_answers[i] if i < len(opa_answers) else None
        want = file_answers[i] if i < len(file_answers) else None
        if skip_unknown_users is not None and q["user"] not in skip_unknown_users.by_engine_user:
            continue
        res.opa += 1
        if isinstance(got, dict) and "error" not in got and got == want:
            res.ok()
            continue
        res.fail(f"{label} {prof.name} {q['op']} user={q['user']!r} {q['catalog']}.{q['schema']}.{q['table']}"
                 + (f" columns={q['columns']}" if "columns" in q else "")
                 + (f" column={q['column']!r}" if "column" in q else "")
                 + f": file-based rules decided {jdump(want)}, the OPA endpoint {jdump(got)}")
    if len(opa_answers) != len(queries):
        res.fail(f"{label} {prof.name}: the OPA judge gave {len(opa_answers)} answers to {len(queries)} queries")


def run_oracle(opts, rules_path, queries_path, answers_path):
    """-> (answers list or None, error string or None)."""
    if opts.oracle_mode == "multi" or (opts.oracle_mode == "auto" and not _MULTI.get("unsupported")):
        m = _MULTI.get("oracle")
        if m is None or not m.alive():
            m = _MULTI["oracle"] = MultiOracle(opts.oracle, opts.keep and os.path.join(
                opts.keep, f"oracle-multi-{os.getpid()}.log"))
            if not _MULTI.get("finalizer"):  # pool workers skip atexit, not these
                _MULTI["finalizer"] = multiprocessing.util.Finalize(None, _close_multi, exitpriority=10)
                atexit.register(_close_multi)
        try:
            answers, err = m.ask(rules_path, queries_path)
            if answers is not None:
                with open(answers_path, "w", encoding="utf-8") as f:
                    for a in answers:
                        f.write(json.dumps(a, ensure_ascii=False) + "\n")
            return answers, err
        except (OSError, EOFError, TimeoutError, RuntimeError, ValueError) as e:
            m.close()
            _MULTI.pop("oracle", None)
            if opts.oracle_mode == "multi":
                return None, f"oracle --multi failed: {e}"
            _MULTI["unsupported"] = True  # this worker falls back to one JVM per rules file
    return run_oracle_file(opts, rules_path, queries_path, answers_path)


def run_oracle_file(opts, rules_path, queries_path, answers_path):
    """ORACLE rules.json < queries > answers: one JVM per rules file."""
    try:
        with open(queries_path, "rb") as fin, open(answers_path, "wb") as fout:
            p = subprocess.run(tool_cmd(opts.oracle) + [rules_path], stdin=fin, stdout=fout,
                               stderr=subprocess.PIPE, timeout=ORACLE_TIMEOUT, env=child_env())
    except subprocess.TimeoutExpired:
        return None, f"oracle timed out after {ORACLE_TIMEOUT}s"
    except OSError as e:
        return None, f"oracle could not start: {e}"
    with open(answers_path, "rb") as f:
        raw = f.read().decode("utf-8", "replace")
    lines = [ln for ln in raw.splitlines() if ln.strip()]
    answers = []
    for ln in lines:
        try:
            answers.append(json.loads(ln))
        except ValueError:
            answers.append({"error": "not JSON: " + ln[:200]})
    err = p.stderr.decode("utf-8", "replace").strip()
    if p.returncode != 0:
        load = next((a["load_error"] for a in answers if isinstance(a, dict) and "load_error" in a), None)
        if load is not None:
            return None, f"oracle load_error (exit {p.returncode}): {load}"
        return None, f"oracle exited {p.returncode}: {err[-1500:]}"
    return answers, None


# --------------------------------------------------------------------------
# policyset vs reference

def parse_classes(access, where, res, with_denied=True, extras=None):
    """access classes -> {engine user: (privs set, denied sorted list)}; reports malformed ones.
    With `extras` (a dict), also fills {engine user: (masks {column: mask}, row_filter or None)}."""
    out = {}
    if not isinstance(access, list):
        res.fail(f"{where}: access is not a list", f"got {jdump(access)[:300]}")
        return out
    for a in access:
        privs = a.get("privileges", [])
        bad = [p for p in privs if p not in PRIVILEGES]
        if bad:
            res.fail(f"{where}: unknown privilege names {bad}")
        denied = sorted(c.lower() for c in a.get("denied_columns", [])) if with_denied else []
        for u in a.get("users", []):
            if u in out:
                res.fail(f"{where}: engine user {u!r} is in two access classes")
                continue
            out[u] = (set(privs) & set(PRIVILEGES), denied)
            if extras is not None:
                masks = {}
                for m in a.get("masks", []) or []:
                    if not isinstance(m, dict) or m.get("column") in masks:
                        res.fail(f"{where}: malformed or repeated mask {jdump(m)[:200]}")
                        continue
                    masks[m.get("column")] = m
                extras[u] = (masks, a.get("row_filter"))
    return out


def show(privs, denied=None):
    s = "{" + ",".join(p for p in PRIVILEGES if p in privs) + "}"
    if denied:
        s += f" denied={denied}"
    return s


def unlisted_names(ref, prof, rng):
    """Engine names (c, s, t) in visible catalogs that the snapshot does not list."""
    listed = {ref.engine_object_name(o, prof) for o in ref.snap["objects"] if ref.visible(o, prof)}
    schemas = sorted({o["name"].split(".")[1] for o in ref.snap["objects"]})
    tables = sorted({o["name"].split(".")[2] for o in ref.snap["objects"]})
    out = []
    for pc in prof.catalogs:
        c = prof.engine_catalog(pc)
        for s in rng.sample(schemas, min(3, len(schemas))) + ["zz_fresh_schema"]:
            for t in ["zz_new_table"] + rng.sample(tables, min(2, len(tables))):
                if f"{c}.{s}.{t}" not in listed and (c, s, t) not in out:
                    out.append((c, s, t))
    rng.shuffle(out)
    return out[:18]


def compare_policyset(ref, prof, ps, res, names):
    """Counts one check per (user, object), (user, unlisted name), user, restricted user."""
    tag = f"policyset {prof.name}"
    eng = {n: ref.engine_user(n, prof) for n in ref.users}
    if not isinstance(ps, dict):
        res.fail(f"{tag}: not a JSON object")
        return
    for key, want in (("profile", prof.name), ("engine", "trino")):
        if ps.get(key) != want:
            res.fail(f"{tag}: {key} is {ps.get(key)!r}, expected {want!r}")
        else:
            res.ok()
    # users
    got_users = {}
    for u in ps.get("users", []) or []:
        got_users[u.get("name")] = u.get("engine_user")
    for n, e in eng.items():
        if got_users.get(n) != e:
            res.fail(f"{tag}: user {n!r} engine_user is {got_users.get(n)!r}, expected {e!r}")
        else:
            res.ok()
    for n in set(got_users) - set(eng):
        res.fail(f"{tag}: users lists {n!r}, who is not in the snapshot")
    # create-restricted users
    want_r = {eng[n] for n in ref.create_restricted(prof)}
    got_r = set(ps.get("create_restricted_users", []) or [])
    for e in eng.values():
        if (e in want_r) != (e in got_r):
            n = ref.engine_users(prof)[e]
            res.fail(f"{tag}: create_restricted_users {'lacks' if e in want_r else 'has'} {e!r}",
                     f"reference: gated tags on profile {sorted(ref.gated_tags_on_profile(prof))}; "
                     f"restrict_materialized_views={prof.restrict_mv}; {ref.explain(n, None, prof)}")
        else:
            res.ok()
    for e in got_r - set(eng.values()):
        res.fail(f"{tag}: create_restricted_users has unknown user {e!r}")
    # objects
    got_objs = {}
    for o in ps.get("objects", []) or []:
        if o.get("name") in got_objs:
            res.fail(f"{tag}: object {o.get('name')!r} listed twice")
        got_objs[o.get("name")] = o
    for o in ref.snap["objects"]:
        name = o["name"]
        if not ref.visible(o, prof):
            if name in got_objs:
                res.fail(f"{tag}: lists {name!r}, whose catalog the profile does not cover")
            else:
                res.ok()
            continue
        po = got_objs.get(name)
        if po is None:
            res.fail(f"{tag}: visible object {name!r} missing")
            continue
        res.ok()
        for key, want in (("engine_name", ref.engine_object_name(o, prof)), ("kind", o["kind"])):
            if po.get(key) != want:
                res.fail(f"{tag}: {name} {key} is {po.get(key)!r}, expected {want!r}")
            else:
                res.ok()
        if sorted(po.get("columns", []) or []) != sorted(ref.columns(o)):
            res.fail(f"{tag}: {name} columns {po.get('columns')!r}, expected {ref.columns(o)!r}")
        else:
            res.ok()
        extras = {}
        got = parse_classes(po.get("access", []), f"{tag}: {name}", res, extras=extras)
        for n, e in eng.items():
            want = ref.access(n, o, prof)
            g = got.get(e, (set(), []))
            if g[0] != want[0] or (g[1] if g[0] else []) != want[1] or (not g[0] and g[1]):
                res.fail(f"{tag}: {name} user {e!r}: policyset {show(*g)}, reference {show(*want)}",
                         ref.explain(n, o, prof))
            else:
                res.ok()
            if ref.policies or e in extras and (extras[e][0] or extras[e][1] is not None):
                compare_policy_decision(ref, prof, n, e, o, extras.get(e, ({}, None)), res, f"{tag}: {name}")
        for e in set(got) - set(eng.values()):
            res.fail(f"{tag}: {name} grants unknown engine user {e!r}")
    for n in set(got_objs) - set(ref.objects):
        res.fail(f"{tag}: lists object {n!r}, which is not in the snapshot")
    # unlisted names: the first matching pattern decides
    unl = ps.get("unlisted", []) or []
    restricted = ref.create_restricted(prof)
    for c, s, t in names:
        entry = next((u for u in unl if pattern_matches(str(u.get("pattern", "")).split("."), [c, s, t])), None)
        got = parse_classes(entry.get("access", []), f"{tag}: unlisted {entry.get('pattern')}", res,
                            with_denied=False) if entry else {}
        platform = f"{prof.platform_catalog(c)}.{s}.{t}"
        for n, e in eng.items():
            want = ref.unlisted(n, platform, prof, restricted)
            g = got.get(e, (set(), []))[0]
            if g != want:
                res.fail(f"{tag}: unlisted {c}.{s}.{t} user {e!r}: policyset {show(g)} "
                         f"(pattern {entry.get('pattern') if entry else None!r}), reference {show(want)}",
                         ref.explain(n, None, prof) + f"; create-restricted={n in restricted}")
            else:
                res.ok()


def compare_policy_decision(ref, prof, uname, e, o, got, res, where):
    """Masks (per column) and the row filter of one user's access class vs the reference."""
    _, _, want_masks, want_rf = ref.policy_access(uname, o, prof)
    got_masks, got_rf = got
    for c in sorted(set(want_masks) | set(got_masks), key=str):
        w, g = want_masks.get(c), got_masks.get(c)
        if jdump(w) != jdump(g):
            res.fail(f"{where} user {e!r} column {c!r}: policyset mask {jdump(g)}, reference {jdump(w)}",
                     ref.explain(uname, o, prof))
        else:
            res.ok()
    if jdump(want_rf) != jdump(got_rf):
        res.fail(f"{where} user {e!r}: policyset row_filter {jdump(got_rf)}, reference {jdump(want_rf)}",
                 ref.explain(uname, o, prof))
    else:
        res.ok()


def check_findings(ref, profiles, out, res):
    """MODEL.md section 2: group-only clearances warn; tags without clearance are
    listed; a DEFINER view (Trino's default when view_security is absent) or a
    materialized view (Trino reads both as their owner) whose owner is not
    cleared for its gated tags is named with its owner."""
    path = os.path.join(out, "findings.json")
    try:
        with open(path, encoding="utf-8") as f:
            findings = json.load(f)
    except (OSError, ValueError) as e:
        res.fail(f"findings.json unreadable: {e}")
        return
    res.ok()
    strings = []

    def walk(x):
        if isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
        elif isinstance(x, str):
            strings.append(x)

    walk(findings)
    text = "\n".join(strings)
    for c in ref.snap["classifications"]:
        rows = c.get("clearance") or []
        if rows and all(r["type"] == "group" for r in rows):
            if any("names only groups" in s and c["name"] in s for s in strings):
                res.ok()
            else:
                res.fail(f"findings: no 'clearance on {c['name']} names only groups' warning")
    for o in ref.snap["objects"]:
        if o["kind"] == "table" or o.get("view_security") == "invoker":
            continue
        if not any(ref.visible(o, p) for p in profiles):
            continue
        owner = o["owner"]
        uncleared = sorted(t for t in ref.g_obj(o) if not ref.cleared(owner, t))
        if not uncleared:
            continue
        names = {owner} | {ref.engine_user(owner, p) for p in profiles}
        if any(o["name"] in s and any(n in s for n in names) for s in strings):
            res.ok()
        else:
            res.fail(f"findings: no finding names {o['kind']} {o['name']} and its owner {owner!r}, "
                     f"who is not cleared for {uncleared}")
    none = [c["name"] for c in ref.snap["classifications"] if not c.get("clearance")]
    if none:
        if "no clearance" in text and all(n in text for n in none):
            res.ok()
        else:
            res.fail(f"findings: no '{len(none)} classifications have no clearance' info listing {none}")


# --------------------------------------------------------------------------
# oracle queries

def unknown_users(ref, prof, rng):
    real = set(ref.engine_users(prof))
    cands = []
    for n in ref.users:  # platform names Trino must not know by that name
        if n not in real:
            cands.append(n)
    for e in sorted(real):
        cands += [e[:-1], e + "2", e.upper(), e.lower(), e + " ", " " + e]
        if any(ch in META for ch in e):
            cands += ["".join("x" if ch in META else ch for ch in e),
                      "".join(ch for ch in e if ch not in META)]
            cands += [p for p in e.split("|")]
            for i, ch in enumerate(e):
                if ch in "+*" and i > 0:
                    cands.append(e[:i] + e[i - 1] + e[i + 1:])
                if ch in "?*" and i > 0:
                    cands.append(e[: i - 1] + e[i + 1:])
    seen, out = set(), []
    for c in cands:
        if c and c not in real and c not in seen:
            seen.add(c)
            out.append(c)
    # platform names first (they matter most), then a sample of the rest
    plat = [c for c in out if c in ref.users]
    rest = [c for c in out if c not in ref.users]
    picks = rng.sample(rest, min(len(rest), 6))
    return plat + picks


def build_queries(ref, prof, ev, rng, names):
    real = sorted(ev.by_engine_user)
    users = real + unknown_users(ref, prof, rng)
    qs = []

    def add(user, c, s, t, op, cols=None):
        qs.append({"op": op, "user": user, "catalog": c, "schema": s, "table": t, "columns": list(cols or [])})

    visible = [o for o in ref.snap["objects"] if ref.visible(o, prof)]
    engine_cats = {prof.engine_catalog(c) for c in prof.catalogs}
    hidden = []  # (catalog, schema, table, columns) Trino must refuse to everybody
    for o in ref.snap["objects"]:
        c, s, t = o["name"].split(".")
        if c not in engine_cats:
            hidden.append((c, s, t, ref.columns(o)))
    for u in users:
        for o in visible:
            c, s, t = ref.engine_object_name(o, prof).split(".")
            cols = ref.columns(o)
            add(u, c, s, t, "select", [])
            for col in cols:
                add(u, c, s, t, "select", [col])
            if len(cols) > 1:
                add(u, c, s, t, "select", cols)
            for _ in range(2 if len(cols) > 2 else 0):
                add(u, c, s, t, "select", sorted(rng.sample(cols, rng.randint(2, len(cols) - 1))))
            for op in WRITE_OPS:
                add(u, c, s, t, op)
            add(u, c, s, t, "filter_columns", cols)
            add(u, c, s, t, "view_owner_select", [])
            add(u, c, s, t, "view_owner_select", cols)
        for c, s, t, cols in hidden:
            add(u, c, s, t, "select", [])
            add(u, c, s, t, "select", cols)
            add(u, c, s, t, "insert")
            add(u, c, s, t, "ownership")
            add(u, c, s, t, "filter_columns", cols)
        for c, s, t in names:
            add(u, c, s, t, "create_table")
            add(u, c, s, t, "create_mv")
            add(u, c, s, t, "select", [])
            add(u, c, s, t, "insert")
        for c in sorted({h[0] for h in hidden} | {"zz_no_such_catalog"}):
            add(u, c, "zz_fresh_schema", "zz_new_table", "create_table")
    return qs


def build_policy_queries(ref, prof, ev, rng):
    """column_mask (every column, with its type) and row_filters for every engine user
    and a few unknown users x every visible object."""
    users = sorted(ev.by_engine_user) + unknown_users(ref, prof, rng)[:3]
    qs = []
    for u in users:
        for o in ref.snap["objects"]:
            if not ref.visible(o, prof):
                continue
            c, s, t = ref.engine_object_name(o, prof).split(".")
            base = {"user": u, "catalog": c, "schema": s, "table": t}
            qs.append({"op": "row_filters", **base})
            for col in o["columns"]:
                qs.append({"op": "column_mask", **base, "column": col["name"].lower(), "type": col["type"]})
    return qs


def compare_policy_answers(queries, expected, answers, ev, prof, res, label="trino"):
    for i, (q, want) in enumerate(zip(queries, expected)):
        got = answers[i] if i < len(answers) else None
        res.trino_policy += 1
        if isinstance(got, dict) and "error" not in got and got == want:
            res.ok()
            continue
        uname, o, _ = ev.resolve(q["user"], q["catalog"], q["schema"], q["table"])
        if uname is None and isinstance(got, dict) and "error" not in got:
            # A user the snapshot does not know may fall under an object's last
            # rule, which names nobody; Trino refuses them at the catalog rules
            # before any table is read (the access queries check that), and a
            # mask or filter can only narrow what is read.
            res.ok()
            continue
        what = q["op"] + (f" column={q['column']!r} type={q['type']}" if q["op"] == "column_mask" else "")
        res.fail(f"{label} {prof.name} {what} user={q['user']!r} {q['catalog']}.{q['schema']}.{q['table']}: "
                 f"expected {jdump(want)} got {jdump(got) if got is not None else 'no answer'}",
                 "why: " + (ev.ref.explain(uname, o, prof) if uname else f"{q['user']!r} is no engine user"))
    if len(answers) != len(queries):
        res.fail(f"trino {prof.name}: oracle gave {len(answers)} answers to {len(queries)} policy queries")


def compare_answers(queries, expected, answers, ev, prof, res, label="trino", record=True):
    """-> set of indexes that disagree. Records failures only when record."""
    bad = set()
    for i, (q, want) in enumerate(zip(queries, expected)):
        got = answers[i] if i < len(answers) else None
        if isinstance(got, dict) and "columns" in got and isinstance(got["columns"], list):
            got_cmp = {"columns": sorted(got["columns"])}
        else:
            got_cmp = got
        agree = isinstance(got, dict) and "error" not in got and got_cmp == want
        if agree:
            if record:
                res.ok()
                res.trino += 1
            continue
        bad.add(i)
        if record:
            res.trino += 1
            privs, denied, o = ev.privileges(q["user"], q["catalog"], q["schema"], q["table"])
            uname = ev.by_engine_user.get(q["user"])
            why = (ev.ref.explain(uname, o, prof) if uname else f"{q['user']!r} is no engine user of {prof.name}")
            res.fail(f"{label} {prof.name} {q['op']} user={q['user']!r} "
                     f"{q['catalog']}.{q['schema']}.{q['table']} columns={q['columns']}: "
                     f"expected {jdump(want)} got {jdump(got) if got is not None else 'no answer'}",
                     f"reference privileges {show(privs, denied)}"
                     + (f" (listed object {o['name']})" if o else " (not a listed visible object)"),
                     "why: " + why)
    if len(answers) > len(queries):
        bad.add(-1)
        if record:
            res.fail(f"{label} {prof.name}: oracle gave {len(answers)} answers to {len(queries)} queries")
    return bad


# --------------------------------------------------------------------------
# self-check mutations

def rule_mutations(rules, rng):
    """[(kind, description, mutated rules, mandatory_per_model)]."""
    out = []
    tables = rules.get("tables") if isinstance(rules, dict) else None
    if not isinstance(tables, list):
        return out
    m = copy.deepcopy(rules)
    del m["tables"]
    out.append(("drop_tables_section", "removed the tables section (Trino then allows all)", m, True))
    deny = [i for i, r in enumerate(tables) if isinstance(r, dict) and not r.get("privileges")]
    allow = [i for i, r in enumerate(tables) if isinstance(r, dict) and r.get("privileges")]
    picks = sorted(set(deny[:1] + deny[-1:] + rng.sample(deny, min(2, len(deny)))))
    for i in picks:
        m = copy.deepcopy(rules)
        del m["tables"][i]
        out.append(("drop_deny_rule", f"dropped deny rule #{i} {jdump(tables[i])[:160]}", m, False))
    for i in sorted(set(deny[-1:] + rng.sample(deny, min(2, len(deny))))):
        m = copy.deepcopy(rules)
        m["tables"][i]["privileges"] = list(PRIVILEGES)
        out.append(("grant_on_deny_rule", f"gave all privileges to deny rule #{i}", m, False))
    for i in sorted(set(allow[:2] + rng.sample(allow, min(2, len(allow))))):
        m = copy.deepcopy(rules)
        p = m["tables"][i]["privileges"]
        if "SELECT" in p:
            p.remove("SELECT")
            what = "removed SELECT from"
        else:
            p.append("SELECT")
            what = "added SELECT to"
        out.append(("flip_privilege", f"{what} rule #{i} {jdump(tables[i])[:160]}", m, False))
    colr = [i for i in allow if any(isinstance(c, dict) and c.get("allow") is False
                                    for c in tables[i].get("columns", []) or [])
            and "SELECT" in tables[i]["privileges"]]
    for i in colr[:2]:
        m = copy.deepcopy(rules)
        m["tables"][i]["columns"] = [c for c in m["tables"][i]["columns"] if c.get("allow") is not False]
        if not m["tables"][i]["columns"]:
            del m["tables"][i]["columns"]
        out.append(("drop_column_restriction", f"dropped column restrictions of rule #{i}", m, False))
    if len(tables) > 1:
        m = copy.deepcopy(rules)
        m["tables"].reverse()
        out.append(("reverse_rules", "reversed the order of table rules", m, False))
    return out


def policyset_mutation(ps, rng):
    """Change one decision in a parsed policyset; -> (description, mutated) or None."""
    m = copy.deepcopy(ps)
    objs = [o for o in m.get("objects", []) if o.get("access")]
    if objs:
        o = rng.choice(objs)
        a = rng.choice(o["access"])
        if a.get("privileges"):
            p = a["privileges"].pop(rng.randrange(len(a["privileges"])))
            return f"removed {p} from a class of {o['name']}", m
    if m.get("objects"):
        o = m["objects"][0]
        u = (m.get("users") or [{"engine_user": "nobody"}])[0]["engine_user"]
        o["access"] = [{"users": [u], "privileges": list(PRIVILEGES), "denied_columns": []}] + [
            {**a, "users": [x for x in a.get("users", []) if x != u]} for a in o.get("access", [])]
        return f"gave {u!r} every privilege on {o['name']}", m
    return None


def selfcheck_policy_rules(opts, rules_path, workdir, prof, pq, pexp, ev, res):
    """Drop one row filter / alter one column mask in rules.json: the policy queries must notice."""
    with open(rules_path, encoding="utf-8") as f:
        rules = json.load(f)
    tables = rules.get("tables") if isinstance(rules, dict) else None
    if not isinstance(tables, list):
        return
    muts = []
    fi = next((i for i, r in enumerate(tables) if isinstance(r, dict) and "filter" in r), None)
    if fi is not None:
        m = copy.deepcopy(rules)
        del m["tables"][fi]["filter"]
        muts.append(("drop_row_filter", f"dropped the filter of rule #{fi}", m))
    mi = next((i for i, r in enumerate(tables) if isinstance(r, dict)
               and any(isinstance(c, dict) and "mask" in c for c in r.get("columns", []) or [])), None)
    if mi is not None:
        m = copy.deepcopy(rules)
        c = next(c for c in m["tables"][mi]["columns"] if "mask" in c)
        c["mask"] = c["mask"].replace("'****'", "'***'") if "'****'" in c["mask"] else "NULL"
        muts.append(("alter_column_mask", f"altered a mask of rule #{mi}", m))
    for k, (kind, what, mrules) in enumerate(muts):
        mpath = os.path.join(workdir, f"mutated_policy_{prof.name}_{k}.json")
        with open(mpath, "w", encoding="utf-8") as f:
            json.dump(mrules, f, ensure_ascii=False)
        qpath = os.path.join(workdir, f"policy_queries_{prof.name}.jsonl")
        mans, merr = run_oracle(opts, mpath, qpath, mpath + ".answers")
        probe = Result(res.seed, workdir)
        if merr is None:
            compare_policy_answers(pq, pexp, mans, ev, prof, probe)
        res.selfcheck.append({"kind": kind, "what": what, "detected": merr is not None or probe.failed > 0,
                              "mandatory": True})


# --------------------------------------------------------------------------
# one model

def in_model_workdir(seed, opts, prefix, make_result, run):
    """res = make_result(workdir); run(workdir, res) in a fresh directory for model `seed`
    (opts.keep/model_<seed>, kept, or a temporary one, removed). A crash in the harness is a
    failure of res (its fail(summary, *detail)), never a pass. Returns res."""
    if opts.keep:
        workdir = os.path.join(opts.keep, f"model_{seed}")
        shutil.rmtree(workdir, ignore_errors=True)
        os.makedirs(workdir)
    else:
        workdir = tempfile.mkdtemp(prefix=f"{prefix}-{seed}-")
    res = make_result(workdir)
    try:
        run(workdir, res)
    except Exception as e:  # a crash in the harness is a failure, never a pass
        import traceback
        res.fail(f"harness error: {e!r}", traceback.format_exc()[-2000:])
    finally:
        if not opts.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return res


def write_model(seed, size, workdir):
    """Generates model `seed` into workdir/snapshot.json and workdir/config.yaml."""
    snapshot, config = gen_model.generate(seed, size)
    with open(os.path.join(workdir, "snapshot.json"), "w", encoding="utf-8") as f:
        json.dump(snapshot, f, ensure_ascii=False, indent=1)
    with open(os.path.join(workdir, "config.yaml"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=1)  # JSON is YAML
    return snapshot, config


def run_model(seed, opts):
    return in_model_workdir(seed, opts, "tw-diff", lambda workdir: Result(seed, workdir),
                            lambda workdir, res: _run_model(seed, opts, workdir, res))


def _run_model(seed, opts, workdir, res):
    snapshot, config = write_model(seed, opts.size, workdir)
    out = run_compile(opts, workdir, res)
    if out is None:
        return
    ref = Reference(snapshot, opts.now)
    check_findings(ref, [Profile(p) for p in config["profiles"]], out, res)
    if not (opts.oracle and opts.opa_judge):
        return _check_profiles(seed, opts, workdir, res, config, ref, out, None)
    try:
        # Every other pair of models serves its Trino profiles with access_control: opa (no rules
        # document rendered): the answers must not depend on it.
        opa_only = (seed // 2) % 2 == 1
        profiles = [dict(p, access_control="opa") if opa_only and p.get("engine") == "trino" and "rules_file" not in p
                    else p for p in config["profiles"]]
        daemon = ModelDaemon(opts.tagwarden, workdir, profiles, opts.now or snapshot["generated_at"])
        daemon.__enter__()
    except RuntimeError as e:
        res.fail(f"opa: the daemon did not start: {e}")
        return _check_profiles(seed, opts, workdir, res, config, ref, out, None)
    try:
        for p in profiles:
            if p.get("engine") == "trino":
                served = daemon.served(p["name"])
                if served.get("access_control") != p.get("access_control", "file") or served.get("ready") is not True:
                    res.fail(f"opa {p['name']}: the daemon serves {served}, not a compile with access_control: "
                             f"{p.get('access_control', 'file')}")
        _check_profiles(seed, opts, workdir, res, config, ref, out, daemon)
    finally:
        daemon.__exit__(None, None, None)


def _opa_check(opts, seed, daemon, prof, workdir, name, queries, expected, file_answers, ev, res, policy):
    """The same queries through Trino's OPA access control, asking the daemon: the answers must be
    the reference's and the file-based evaluator's. Models alternate the plugin's batched mode."""
    batched = seed % 2 == 0
    answers, err = run_opa_judge(opts, daemon.opa_base(prof.name), batched,
                                 os.path.join(workdir, f"{name}_{prof.name}.jsonl"),
                                 os.path.join(workdir, f"opa_{name}_answers_{prof.name}.jsonl"))
    label = "opa-batched" if batched else "opa"
    if err:
        res.fail(f"{label} {prof.name}: {err}", "daemon log:\n" + daemon.log_tail())
        return
    if policy:
        compare_policy_answers(queries, expected, answers, ev, prof, res, label=label)
    else:
        compare_answers(queries, expected, answers, ev, prof, res, label=label)
    if file_answers is not None:
        compare_engines(queries, file_answers, answers, prof, res, skip_unknown_users=ev if policy else None,
                        label=label)


LISTINGS = ("filter_catalogs", "show_schemas", "filter_schemas", "show_tables")


def build_listing_queries(ref, prof, ev, rng):
    """SHOW CATALOGS / SCHEMAS / TABLES for every engine user and a few unknown ones, over the
    profile's catalogs, system and a catalog it does not have; schemas of listed objects and one
    nobody was granted, and information_schema, listed (both ways) only where a rule covering every
    schema holds the user."""
    users = sorted(ev.by_engine_user) + unknown_users(ref, prof, rng)[:3]
    cats = sorted({prof.engine_catalog(c) for c in prof.catalogs}) + ["system", "zz_other_catalog"]
    schemas = {}
    for o in ref.snap["objects"]:
        if ref.visible(o, prof):
            c, sch, _ = ref.engine_object_name(o, prof).split(".")
            schemas.setdefault(c, set()).add(sch)
    qs = []
    for u in users:
        for c in cats:
            for op in ("filter_catalogs", "show_schemas"):
                qs.append({"op": op, "user": u, "catalog": c, "schema": "zz_fresh_schema", "table": "zz_t", "columns": []})
            listed = sorted(schemas.get(c, set())) if c != "system" else ["jdbc", "runtime"]
            for sch in listed + ["zz_fresh_schema"] + (["information_schema"] if c != "system" else []):
                for op in ("filter_schemas", "show_tables"):
                    qs.append({"op": op, "user": u, "catalog": c, "schema": sch, "table": "zz_t", "columns": []})
    return qs


def expected_listing(ref, prof, ev, q):
    """What the user may list, from the reference: the catalog for a known user, and a schema where
    the user holds a privilege on a listed object or on a name no object takes."""
    known = q["user"] in ev.by_engine_user
    c, sch = q["catalog"], q["schema"]
    catalog_ok = known and (c == "system" or any(prof.engine_catalog(pc) == c for pc in prof.catalogs))
    if q["op"] in ("filter_catalogs", "show_schemas"):
        return {"allow": catalog_ok}
    if not catalog_ok:
        return {"allow": False}
    if c == "system":
        return {"allow": sch == "jdbc"}
    for o in ref.snap["objects"]:
        if ref.visible(o, prof):
            oc, osch, ot = ref.engine_object_name(o, prof).split(".")
            if (oc, osch) == (c, sch) and ev.privileges(q["user"], c, sch, ot)[0]:
                return {"allow": True}
    # Names no object takes: a grant pattern may name a table in any schema (c.*.t) or every table.
    probes = {"zz_unlisted_probe"} | {g["object"].split(".")[-1].lower() for g in ref.snap.get("grants", [])
                                      if g["object"].count(".") == 2}
    return {"allow": any(ev.privileges(q["user"], c, sch, t)[0] for t in sorted(probes))}


def _listing_check(opts, seed, daemon, prof, workdir, ref, ev, rng, res):
    """Listings through both of Trino's access controls: the OPA answers must be the reference's,
    SHOW CATALOGS and SHOW SCHEMAS exactly the file-based ones, and a schema OPA lists must be one
    the file-based rules list too (they may list more: a rule naming nobody matches every user
    when Trino asks whether any rule grants in a schema)."""
    qs = build_listing_queries(ref, prof, ev, rng)
    qpath = os.path.join(workdir, f"listing_queries_{prof.name}.jsonl")
    with open(qpath, "w", encoding="ascii") as f:
        for q in qs:
            f.write(json.dumps(q) + "\n")
    file_answers, err = run_oracle(opts, os.path.join(workdir, "out", prof.name, "rules.json"), qpath,
                                   os.path.join(workdir, f"listing_answers_{prof.name}.jsonl"))
    if err:
        return res.fail(f"trino {prof.name} (listings): {err}")
    batched = seed % 2 == 0
    label = "opa-batched" if batched else "opa"
    answers, err = run_opa_judge(opts, daemon.opa_base(prof.name), batched, qpath,
                                 os.path.join(workdir, f"opa_listing_answers_{prof.name}.jsonl"))
    if err:
        return res.fail(f"{label} {prof.name} (listings): {err}", "daemon log:\n" + daemon.log_tail())
    for i, q in enumerate(qs):
        want = expected_listing(ref, prof, ev, q)
        got = answers[i] if i < len(answers) else None
        fb = file_answers[i] if i < len(file_answers) else None
        res.opa += 1
        where = f"{label} {prof.name} {q['op']} user={q['user']!r} {q['catalog']}.{q['schema']}"
        if not (isinstance(got, dict) and "error" not in got and got == want):
            res.fail(f"{where}: expected {jdump(want)} got {jdump(got)} (file-based rules: {jdump(fb)})")
        elif q["op"] in ("filter_catalogs", "show_schemas") and got != fb:
            res.fail(f"{where}: the OPA endpoint {jdump(got)}, the file-based rules {jdump(fb)}")
        elif got.get("allow") and not (isinstance(fb, dict) and fb.get("allow")):
            res.fail(f"{where}: the OPA endpoint lists what the file-based rules do not ({jdump(fb)})")
        else:
            res.ok()


def _check_profiles(seed, opts, workdir, res, config, ref, out, daemon):
    for pi, raw in enumerate(config["profiles"]):
        prof = Profile(raw)
        rng = random.Random(seed * 31 + pi)
        pdir = os.path.join(out, prof.name)
        names = unlisted_names(ref, prof, rng)
        ps = None
        try:
            with open(os.path.join(pdir, "policyset.json"), encoding="utf-8") as f:
                ps = json.load(f)
        except (OSError, ValueError) as e:
            res.fail(f"policyset {prof.name}: unreadable: {e}")
        if ps is not None:
            compare_policyset(ref, prof, ps, res, names)
            if opts.self_check and pi == 0:
                mut = policyset_mutation(ps, rng)
                if mut:
                    probe = Result(seed, workdir)
                    compare_policyset(ref, prof, mut[1], probe, names)
                    base = Result(seed, workdir)
                    compare_policyset(ref, prof, ps, base, names)
                    res.selfcheck.append({"kind": "policyset_decision", "what": mut[0],
                                          "detected": probe.failed > base.failed, "mandatory": True})
        if not opts.oracle:
            continue
        rules_path = os.path.join(pdir, "rules.json")
        if not os.path.exists(rules_path):
            res.fail(f"rules {prof.name}: {rules_path} missing")
            continue
        ev = EngineView(ref, prof)
        queries = build_queries(ref, prof, ev, rng, names)
        expected = [ev.decide(q) for q in queries]
        qpath = os.path.join(workdir, f"queries_{prof.name}.jsonl")
        with open(qpath, "w", encoding="ascii") as f:
            for q in queries:
                f.write(json.dumps(q) + "\n")
        with open(os.path.join(workdir, f"expected_{prof.name}.jsonl"), "w", encoding="ascii") as f:
            for e in expected:
                f.write(json.dumps(e) + "\n")
        answers, err = run_oracle(opts, rules_path, qpath, os.path.join(workdir, f"answers_{prof.name}.jsonl"))
        if err:
            res.fail(f"trino {prof.name}: {err}")
            base_bad = None
        else:
            base_bad = compare_answers(queries, expected, answers, ev, prof, res)
        if daemon is not None:
            _opa_check(opts, seed, daemon, prof, workdir, "queries", queries, expected, answers, ev, res, False)
        pq = build_policy_queries(ref, prof, ev, random.Random(seed * 37 + pi))
        pexp = [ev.decide(q) for q in pq]
        ppath = os.path.join(workdir, f"policy_queries_{prof.name}.jsonl")
        with open(ppath, "w", encoding="ascii") as f:
            for q in pq:
                f.write(json.dumps(q) + "\n")
        with open(os.path.join(workdir, f"policy_expected_{prof.name}.jsonl"), "w", encoding="ascii") as f:
            for e in pexp:
                f.write(json.dumps(e) + "\n")
        panswers, perr = run_oracle(opts, rules_path, ppath,
                                    os.path.join(workdir, f"policy_answers_{prof.name}.jsonl"))
        if perr:
            res.fail(f"trino {prof.name} (policy queries): {perr}")
        else:
            compare_policy_answers(pq, pexp, panswers, ev, prof, res)
        if daemon is not None:
            _opa_check(opts, seed, daemon, prof, workdir, "policy_queries", pq, pexp, panswers, ev, res, True)
            _listing_check(opts, seed, daemon, prof, workdir, ref, ev, random.Random(seed * 41 + pi), res)
            if opts.self_check and pi == 0:
                selfcheck_policy_rules(opts, rules_path, workdir, prof, pq, pexp, ev, res)
        if opts.self_check and pi == 0 and base_bad is not None:
            with open(rules_path, encoding="utf-8") as f:
                rules = json.load(f)
            muts = rule_mutations(rules, rng)
            if not muts:
                res.notes.append(f"self-check: {prof.name} rules.json has no tables list to mutate")
            for k, (kind, what, mrules, mandatory) in enumerate(muts):
                mpath = os.path.join(workdir, f"mutated_{prof.name}_{k}.json")
                with open(mpath, "w", encoding="utf-8") as f:
                    json.dump(mrules, f, ensure_ascii=False)
                mans, merr = run_oracle(opts, mpath, qpath, os.path.join(workdir, f"mutated_{prof.name}_{k}.answers"))
                if merr:
                    detected, n = True, f"oracle refused it: {merr[:120]}"
                else:
                    mbad = compare_answers(queries, expected, mans, ev, prof, res, record=False)
                    detected, n = mbad != base_bad, f"{len(mbad - base_bad)} new disagreements"
                res.selfcheck.append({"kind": kind, "what": what, "detected": detected,
                                      "mandatory": mandatory, "n": n})


# --------------------------------------------------------------------------
# main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--size", default="small", choices=sorted(gen_model.SIZES))
    ap.add_argument("--tagwarden", required=True, help="path to the tagwarden binary")
    ap.add_argument("--oracle", help="path to tests/trino-oracle/run.sh (omit: policyset checks only)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--oracle-mode", choices=["auto", "multi", "file"], default="auto",
                    help="multi: one JVM per worker (`ORACLE --multi`); file: `ORACLE rules.json` "
                         "per rules file; auto: multi, falling back to file")
    ap.add_argument("--opa-judge", help="path to tests/trino-opa/run.sh: also serve every model with `tagwarden "
                    "serve` and ask Trino's OPA access control the same queries (needs --oracle)")
    ap.add_argument("--keep", help="keep every model's files under this directory")
    ap.add_argument("--now", help="pass --now to the compiler and use it in the reference")
    ap.add_argument("--self-check", action="store_true",
                    help="mutate rules.json / policysets and assert the disagreements are detected")
    opts = ap.parse_args(argv)
    for what, path in (("--tagwarden", opts.tagwarden), ("--oracle", opts.oracle), ("--opa-judge", opts.opa_judge)):
        if path is not None and not os.path.isfile(path):
            print(f"run_differential: {what} {path}: no such file", file=sys.stderr)
            return 2
    opts.tagwarden = os.path.abspath(opts.tagwarden)
    if opts.opa_judge:
        if not opts.oracle:
            print("run_differential: --opa-judge needs --oracle (the OPA answers are compared with it)",
                  file=sys.stderr)
            return 2
        opts.opa_judge = os.path.abspath(opts.opa_judge)
    if opts.oracle:
        opts.oracle = os.path.abspath(opts.oracle)
    else:
        print("run_differential: no --oracle: Trino decisions are not checked", file=sys.stderr)
    if opts.keep:
        opts.keep = os.path.abspath(opts.keep)
        os.makedirs(opts.keep, exist_ok=True)

    seeds = [opts.seed + i for i in range(opts.models)]
    t0 = time.time()
    results = {}
    with cf.ProcessPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        futs = {pool.submit(run_model, s, opts): s for s in seeds}
        for fut in cf.as_completed(futs):
            s = futs[fut]
            try:
                r = fut.result()
            except Exception as e:
                r = Result(s, None)
                r.fail(f"worker crashed: {e!r}")
            results[s] = r
            print(f"  model seed={s}: {r.passed} passed, {r.failed} failed, {r.trino} Trino decisions",
                  file=sys.stderr, flush=True)

    passed = sum(r.passed for r in results.values())
    failed = sum(r.failed for r in results.values())
    trino = sum(r.trino for r in results.values())
    trino_policy = sum(r.trino_policy for r in results.values())
    opa = sum(r.opa for r in results.values())
    with_policies = sum(1 for s in seeds if gen_model.generate(s, opts.size)[0]["policies"])
    shown = 0
    for s in seeds:
        r = results[s]
        for summary, detail in r.fails:
            shown += 1
            print(("FAIL " if shown <= DETAIL else "fail ") + summary)
            if shown <= DETAIL:
                for d in detail:
                    print("    " + d)
                if opts.keep:
                    print("    model files: " + r.workdir)
        for n in r.notes:
            print(f"note [seed={s}] {n}")
    if failed and not opts.keep:
        print("(rerun one model with --seed S --models 1 --keep DIR to keep its files)")

    sc_ok = True
    if opts.self_check:
        kinds = {}
        for s in seeds:
            for c in results[s].selfcheck:
                k = kinds.setdefault(c["kind"], [0, 0])
                k[0] += 1
                k[1] += bool(c["detected"])
                if c["mandatory"] and not c["detected"]:
                    sc_ok = False
                    print(f"self-check FAIL [seed={s}] {c['kind']} not detected: {c['what']}")
        # every kind with a candidate must be caught somewhere; dropping one deny
        # or reversing rules can be neutral (Trino denies when nothing matches)
        must_somewhere = {"drop_tables_section", "policyset_decision", "flip_privilege",
                          "grant_on_deny_rule", "drop_column_restriction"}
        for kind, (n, det) in sorted(kinds.items()):
            flag = ""
            if det == 0 and kind in must_somewhere:
                sc_ok = False
                flag = "  <-- never detected"
            print(f"self-check: {kind}: {det}/{n} mutations detected{flag}")
        if not kinds:
            sc_ok = False
            print("self-check: no mutation could be made (no policyset or rules?)")
        if opts.oracle is None:
            print("self-check: rules.json mutations need --oracle; only policysets were mutated")
        print(f"self-check: {'passed' if sc_ok else 'FAILED'}")

    print(f"({len(seeds)} models, seeds {seeds[0]}..{seeds[-1]}, {time.time() - t0:.1f}s)")
    print(f"models with access policies: {with_policies}")
    if opts.oracle:
        print(f"mask/filter decisions checked against Trino: {trino_policy}")
    if opts.opa_judge:
        print(f"OPA decisions identical to the file-based ones: {opa} compared")
    print(f"decisions checked against Trino: {trino}")
    print(f"differential: {passed} passed, {failed} failed")
    if opts.self_check:
        return 0 if sc_ok else 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
