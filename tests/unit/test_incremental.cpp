// Incremental recompiles must be indistinguishable from full ones: for random
// snapshots and random single changes, a compile that reuses the previous
// memo gives the same PolicySet, findings and Trino rules bytes as a compile
// from scratch, and reuses the untouched objects.

#include <algorithm>

#include <catch2/catch.hpp>
#include <random>

#include "helpers.h"
#include "tagwarden/compile/access_policies.h"
#include "tagwarden/compile/compiler.h"
#include "tagwarden/engines/registry.h"
#include "tagwarden/engines/starrocks/artifact.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/trino/rules.h"
#include "tagwarden/model/snapshot_loader.h"

namespace {

using nlohmann::json;

struct World : twtest::Dice {
  using Dice::Dice;

  json snapshot() {
    json s = {{"version", 1}, {"generated_at", "2026-11-30T12:00:00Z"}};
    const char* regions[] = {"EU", "US", "APAC"};
    for (int u = 0; u < 14; ++u) {
      json user = {{"name", u == 3 ? "o'hare" : u == 4 ? "a.b|c" : "user" + std::to_string(u)}};
      if (coin(0.8)) user["attributes"] = {{"region", regions[pick(3)]}};
      if (coin(0.2)) user["groups"] = {"g" + std::to_string(pick(2))};
      s["users"].push_back(user);
    }
    for (int r = 0; r < 5; ++r) s["roles"].push_back("role" + std::to_string(r));
    s["role_assignments"] = json::array();
    for (int i = 0; i < 24; ++i) add_assignment(s);
    for (int t = 0; t < 6; ++t) {
      json c = {{"name", "tag" + std::to_string(t)}, {"level", t % 4}};
      if (t < 4) c["clearance"] = {{{"type", "role"}, {"name", "role" + std::to_string(t)}}};
      s["classifications"].push_back(c);
    }
    for (int o = 0; o < 18; ++o) {
      json obj = {{"name", "cat" + std::to_string(o % 2) + ".s" + std::to_string(o % 3) + ".t" + std::to_string(o)},
                  {"kind", "table"}};
      if (coin(0.2)) obj["tags"] = {"tag" + std::to_string(pick(6))};
      for (int c = 0; c < 4; ++c) {
        json col = {{"name", c == 0 ? "region" : "c" + std::to_string(c)}, {"type", c == 3 ? "date" : "varchar"}};
        if (coin(0.25)) col["tags"] = {"tag" + std::to_string(pick(6))};
        obj["columns"].push_back(col);
      }
      s["objects"].push_back(obj);
    }
    s["grants"] = json::array();
    for (int g = 0; g < 8; ++g) s["grants"].push_back(distinct_grant(s["grants"], s["grants"].size()));
    s["policies"] =
        json::array({{{"name", "mask_tag4"},
                      {"type", "column_mask"},
                      {"mask", "partial"},
                      {"visible_chars", 2},
                      {"scope", {{"tag", "tag4"}}},
                      {"exempt", {{"roles", {"role1"}}}}},
                     {{"name", "rows_region"},
                      {"type", "row_filter"},
                      {"scope", {{"tag", "tag5"}}},
                      {"condition", {{"column", "region"}, {"op", "eq"}, {"value", {{"$user", "attributes.region"}}}}}},
                     {{"name", "deny_t5"},
                      {"type", "deny"},
                      {"scope", {{"object", "cat1.s2.t5"}}},
                      {"applies_to", {{"roles", {"role2"}}}}}});
    return s;
  }

  void add_assignment(json& s) {
    json a = {{"role", "role" + std::to_string(pick(5))}, {"user", s["users"][pick(s["users"].size())]["name"]}};
    for (const auto& b : s["role_assignments"]) {
      if (b["role"] == a["role"] && b["user"] == a["user"]) return;
    }
    if (coin(0.15)) a["expires_at"] = coin() ? "2026-11-01T00:00:00Z" : "2027-01-01T00:00:00Z";
    s["role_assignments"].push_back(a);
  }

  json grant() {
    const json privileges = coin() ? json::array({"SELECT"}) : json::array({"SELECT", "INSERT"});
    std::string object = "cat" + std::to_string(pick(2)) + "." + (coin() ? "*" : "s" + std::to_string(pick(3))) + ".*";
    return {
        {"principal", {{"role", "role" + std::to_string(pick(5))}}}, {"object", object}, {"privileges", privileges}};
  }

  // A grant for position `at` of `grants` (at == size: a new one) whose principal and object no
  // other grant has: a snapshot with two such grants is refused (MODEL section 1: duplicates).
  json distinct_grant(const json& grants, std::size_t at) {
    for (;;) {
      json g = grant();
      bool repeated = false;
      for (std::size_t i = 0; i < grants.size() && !repeated; ++i)
        repeated = i != at && grants[i]["principal"] == g["principal"] && grants[i]["object"] == g["object"];
      if (!repeated) return g;
    }
  }

  // One random change of the kind a webhook reports; returns what it was.
  std::string change(json& s) {
    json& objects = s["objects"];
    switch (pick(9)) {
      case 7: {  // two objects trade places: as many objects, another order in the snapshot
        const std::size_t a = pick(objects.size()), b = pick(objects.size());
        std::swap(objects[a], objects[b]);
        return "objects moved";
      }
      case 8:  // the last object listed first
        std::rotate(objects.begin(), objects.end() - 1, objects.end());
        return "objects rotated";
      case 0: {
        json& col = objects[pick(objects.size())]["columns"][pick(4)];
        col["tags"] = col.contains("tags") ? json::array() : json::array({"tag" + std::to_string(pick(6))});
        return "column tag";
      }
      case 1: {
        json& obj = objects[pick(objects.size())];
        obj["tags"] = obj.contains("tags") && !obj["tags"].empty() ? json::array()
                                                                   : json::array({"tag" + std::to_string(pick(6))});
        return "object tag";
      }
      case 2:
        add_assignment(s);
        return "membership added";
      case 3:
        s["role_assignments"].erase(pick(s["role_assignments"].size()));
        return "membership removed";
      case 4: {
        const std::size_t g = pick(s["grants"].size());
        s["grants"][g] = distinct_grant(s["grants"], g);
        return "grant changed";
      }
      case 5:
        s["users"][pick(s["users"].size())]["attributes"] = {{"region", "LATAM"}};
        return "attribute changed";
      default: {
        json obj = objects[pick(objects.size())];
        std::string name = obj["name"].get<std::string>() + "_new";
        const auto taken = [&](const std::string& n) {
          return std::any_of(objects.begin(), objects.end(), [&](const json& o) { return o["name"] == n; });
        };
        while (taken(name)) name += "_new";  // the same object picked twice: still a new name
        obj["name"] = name;
        objects.push_back(obj);
        return "object added";
      }
    }
  }
};

std::string findings_text(const std::vector<tw::Finding>& findings) {
  std::string out;
  for (const auto& f : findings) out += tw::to_json(f).dump() + "\n";
  return out;
}

}  // namespace

TEST_CASE("incremental recompiles equal full compiles, byte for byte", "[incremental]") {
  tw::Profile profile = twtest::trino_profile({"cat0", "cat1"});
  profile.withhold_writes = true;
  // Read whole (memo keys hash each object's content), or as the daemon reads a JSON snapshot
  // (the loader keeps each object's content digest for entries read unchanged).
  const bool through_loader = GENERATE(false, true);
  INFO("read through SnapshotLoader: " << through_loader);
  std::size_t reused = 0, decided = 0, rounds = 0;
  for (unsigned seed = 1; seed <= 25; ++seed) {
    World w(seed);
    json s = w.snapshot();
    tw::SnapshotLoader loader;
    auto read = [&](const std::string& text) -> std::shared_ptr<const tw::Snapshot> {
      if (!through_loader) return twtest::must_parse(text);
      auto r = loader.load(text);
      REQUIRE(r.snapshot);
      REQUIRE(r.snapshot->object_entry_digests.size() == r.snapshot->objects.size());
      return r.snapshot;
    };
    auto model = tw::build_model(read(s.dump()), std::nullopt);
    tw::ProfileCompile last = tw::compile_profile(*model, profile);
    REQUIRE(last.memo);
    tw::trino::RenderCache cache;  // carried from step to step, as the daemon does
    (void)tw::trino::render_rules(*last.policy_set, &cache);
    for (int step = 0; step < 12; ++step) {
      const std::string what = w.change(s);
      INFO("seed " << seed << " step " << step << ": " << what);
      auto next = tw::build_model(read(s.dump()), std::nullopt);
      tw::ProfileCompile full = tw::compile_profile(*next, profile);
      tw::ProfileCompile incremental = tw::compile_profile(*next, profile, last.memo.get());
      REQUIRE(full.errors == incremental.errors);
      REQUIRE(full.policy_set.has_value() == incremental.policy_set.has_value());
      CHECK(findings_text(full.findings) == findings_text(incremental.findings));
      if (full.policy_set) {
        CHECK(tw::to_json(*full.policy_set).dump() == tw::to_json(*incremental.policy_set).dump());
        const std::string text = tw::trino::render_rules(*full.policy_set).text;
        CHECK(text == tw::trino::render_rules(*incremental.policy_set).text);
        CHECK(text == tw::trino::render_rules(*incremental.policy_set, &cache).text);
        // The memo key asks whether any policy reaches an object without judging anyone; the
        // model keeps that answer per object.
        for (const auto& op : full.policy_set->objects) {
          CHECK(next->policy_reached[op.object] == tw::any_policy_reaches(*next, op.object));
          for (std::size_t u : {std::size_t{0}, next->snapshot->users.size() - 1}) {
            CHECK(tw::any_policy_reaches(*next, op.object) == !tw::judge_policies(*next, op, u).empty());
          }
        }
      }
      CHECK(full.reused_objects == 0);
      reused += incremental.reused_objects;
      decided += incremental.policy_set ? incremental.policy_set->objects.size() - incremental.reused_objects : 0;
      ++rounds;
      last = std::move(incremental);
    }
  }
  INFO("reused " << reused << " decided " << decided << " in " << rounds << " rounds");
  CHECK(reused > decided);  // a single change leaves most objects untouched
}

TEST_CASE("the decisions digest is the same however the snapshot was written and read", "[incremental]") {
  // Found by the audit: the daemon keyed an object read from JSON on its entry's text, so the OPA
  // manifest's decisions digest of one snapshot differed between serve and compile.
  const tw::Profile profile = twtest::trino_profile({"cat0", "cat1"});
  World w(3);
  json s = w.snapshot();
  auto key_of = [&](const std::shared_ptr<const tw::Snapshot>& snapshot) {
    tw::ProfileCompile c = tw::compile_profile(*tw::build_model(snapshot, std::nullopt), profile);
    REQUIRE(c.memo);
    return c.memo->decisions_key();
  };
  const std::string whole = key_of(twtest::must_parse(s.dump()));
  tw::SnapshotLoader loader;
  auto loaded = [&](const std::string& text) {
    auto r = loader.load(text);
    REQUIRE(r.snapshot);
    REQUIRE(r.snapshot->object_entry_digests.size() == r.snapshot->objects.size());
    return r.snapshot;
  };
  CHECK(key_of(loaded(s.dump(2))) == whole);  // read whole by the loader, spaced out
  CHECK(key_of(loaded(s.dump())) == whole);   // every entry's text changed: read against the last
  CHECK(key_of(loaded(s.dump(1))) == whole);
  w.change(s);
  const std::string changed = key_of(twtest::must_parse(s.dump()));
  CHECK(changed != whole);
  CHECK(key_of(loaded(s.dump(1))) == changed);
}

TEST_CASE("a change decides again only the objects that read it", "[incremental]") {
  tw::Profile profile = twtest::trino_profile({"cat0", "cat1"});
  World w(99);
  json s = w.snapshot();
  auto model = tw::build_model(twtest::must_parse(s.dump()), std::nullopt);
  tw::ProfileCompile first = tw::compile_profile(*model, profile);
  REQUIRE(first.policy_set);
  const std::size_t objects = first.policy_set->objects.size();

  json tagged = s;
  tagged["objects"][0]["columns"][1]["tags"] = {"tag0"};
  auto m2 = tw::build_model(twtest::must_parse(tagged.dump()), std::nullopt);
  tw::ProfileCompile after_tag = tw::compile_profile(*m2, profile, first.memo.get());
  CHECK(after_tag.reused_objects == objects - 1);

  // A role no grant and no clearance names: nobody's access moves, nothing is decided again.
  json idle = s;
  idle["roles"].push_back("idle");
  idle["role_assignments"].push_back({{"role", "idle"}, {"user", "user13"}});
  auto m3 = tw::build_model(twtest::must_parse(idle.dump()), std::nullopt);
  tw::ProfileCompile after_idle = tw::compile_profile(*m3, profile, first.memo.get());
  CHECK(after_idle.reused_objects == objects);

  // A role with grants: the objects its grants cover (or whose gates it clears) are decided again.
  json member = s;
  member["role_assignments"].push_back({{"role", "role0"}, {"user", "user13"}});
  auto m4 = tw::build_model(twtest::must_parse(member.dump()), std::nullopt);
  tw::ProfileCompile after_member = tw::compile_profile(*m4, profile, first.memo.get());
  tw::ProfileCompile full = tw::compile_profile(*m4, profile);
  CHECK(after_member.reused_objects < objects);
  std::size_t moved = 0;  // objects on which some user's class changed
  for (std::size_t i = 0; i < objects; ++i) {
    const auto& before = first.policy_set->objects[i];
    const auto& after = full.policy_set->objects[i];
    bool same = before.classes.size() == after.classes.size();
    for (std::size_t c = 0; same && c < before.classes.size(); ++c) {
      same = *before.classes[c].users == *after.classes[c].users && before.classes[c].access == after.classes[c].access;
    }
    moved += !same;
  }
  CHECK(objects - after_member.reused_objects >= moved);
  CHECK(tw::to_json(*after_member.policy_set).dump() == tw::to_json(*full.policy_set).dump());
  CHECK(tw::trino::render_rules(*after_member.policy_set).text == tw::trino::render_rules(*full.policy_set).text);
}

TEST_CASE("a build reuses the previous artifact only when its decisions are unchanged", "[incremental]") {
  tw::Profile trino = twtest::trino_profile({"cat0"});
  tw::Profile starrocks = trino;
  starrocks.name = "sr";
  starrocks.engine = tw::Engine::StarRocks;
  tw::Profile opa = trino;
  opa.name = "opa";
  opa.access_control = tw::TrinoAccessControl::Opa;
  std::size_t reused = 0, rendered = 0, opa_moves = 0;
  tw::EngineRenderCache cache;  // one for both engines: switching engines replaces what it holds
  for (const tw::Profile& profile : {trino, starrocks, opa}) {
    for (unsigned seed = 1; seed <= 12; ++seed) {
      World w(seed);
      json s = w.snapshot();
      tw::ProfileBuild last = tw::build_profile(*tw::build_model(twtest::must_parse(s.dump()), std::nullopt), profile);
      REQUIRE(last.artifact);
      // An OPA-only profile's manifest must move whenever an answer may: whenever the rules the
      // same decisions render to move.
      std::string last_rules = tw::trino::render_rules(*last.compile.policy_set).text;
      for (int step = 0; step < 10; ++step) {
        // Every third step changes nothing, the others make one random change (which may
        // concern only cat1, outside this profile).
        const std::string what = step % 3 == 0 ? "nothing" : w.change(s);
        INFO(profile.name << " seed " << seed << " step " << step << ": " << what);
        auto model = tw::build_model(twtest::must_parse(s.dump()), std::nullopt);
        tw::ProfileBuild full = tw::build_profile(*model, profile);
        tw::ProfileBuild next = tw::build_profile(
            *model, profile,
            tw::PreviousBuild{&profile, last.compile.memo.get(), last.artifact ? &*last.artifact : nullptr, &cache});
        REQUIRE(full.artifact.has_value() == next.artifact.has_value());
        CHECK(!full.reused_artifact);
        if (step % 3 == 0 && last.artifact) CHECK(next.reused_artifact);
        if (full.artifact) {
          CHECK(*full.artifact->bytes == *next.artifact->bytes);
          CHECK(full.artifact->sha256 == next.artifact->sha256);
          CHECK(findings_text(full.compile.findings) == findings_text(next.compile.findings));
          CHECK(full.artifact->filename == (profile.engine == tw::Engine::StarRocks ? "plan.sql"
                                            : profile.name == "opa"                 ? "trino-opa.json"
                                                                                    : "rules.json"));
        }
        if (profile.access_control == tw::TrinoAccessControl::Opa && full.artifact && last.artifact) {
          std::string rules = tw::trino::render_rules(*full.compile.policy_set).text;
          if (rules != last_rules) {
            CHECK(full.artifact->sha256 != last.artifact->sha256);
            opa_moves++;
          }
          last_rules = std::move(rules);
        }
        (next.reused_artifact ? reused : rendered)++;
        last = std::move(next);
      }
    }
  }
  INFO("reused " << reused << " rendered " << rendered);
  CHECK(reused > 0);
  CHECK(rendered > 0);
  CHECK(opa_moves > 0);

  // A different profile never reuses, even with the same decisions.
  World w(5);
  auto model = tw::build_model(twtest::must_parse(w.snapshot().dump()), std::nullopt);
  tw::ProfileBuild first = tw::build_profile(*model, starrocks);
  tw::Profile masked = starrocks;
  masked.masking = "on";
  tw::ProfileBuild other =
      tw::build_profile(*model, masked, tw::PreviousBuild{&starrocks, first.compile.memo.get(), &*first.artifact});
  CHECK(!other.reused_artifact);
}

TEST_CASE("a document still read keeps its bytes while later renders reuse released buffers", "[incremental]") {
  // The daemon serves one document while the next renders; a slow reader may hold several.
  tw::Profile profile = twtest::trino_profile({"cat0", "cat1"});
  for (unsigned seed = 1; seed <= 6; ++seed) {
    World w(seed);
    json s = w.snapshot();
    tw::EngineRenderCache cache;
    std::optional<tw::ProfileBuild> last;
    std::vector<std::pair<std::shared_ptr<const std::string>, std::string>> read;  // bytes and a copy
    for (int step = 0; step < 12; ++step) {
      const std::string what = w.change(s);
      INFO("seed " << seed << " step " << step << ": " << what);
      auto model = tw::build_model(twtest::must_parse(s.dump()), std::nullopt);
      tw::ProfileBuild full = tw::build_profile(*model, profile);
      tw::ProfileBuild next =
          last ? tw::build_profile(*model, profile,
                                   tw::PreviousBuild{&profile, last->compile.memo.get(),
                                                     last->artifact ? &*last->artifact : nullptr, &cache})
               : tw::build_profile(*model, profile, tw::PreviousBuild{nullptr, nullptr, nullptr, &cache});
      REQUIRE(full.artifact);
      REQUIRE(next.artifact);
      CHECK(*full.artifact->bytes == *next.artifact->bytes);
      CHECK(full.artifact->sha256 == next.artifact->sha256);
      if (step % 4 == 1) read.emplace_back(next.artifact->bytes, *next.artifact->bytes);
      last = std::move(next);
    }
    for (const auto& [bytes, copy] : read) CHECK(*bytes == copy);
  }
}

TEST_CASE("a render cache is used only for the users it was written for", "[incremental]") {
  tw::Profile profile = twtest::trino_profile({"cat0", "cat1"});
  World w(7);
  auto model = tw::build_model(twtest::must_parse(w.snapshot().dump()), std::nullopt);
  tw::ProfileCompile compiled = tw::compile_profile(*model, profile);
  REQUIRE(compiled.policy_set);
  tw::trino::RenderCache cache;
  const tw::PolicySet& ps = *compiled.policy_set;
  CHECK(tw::trino::render_rules(ps, &cache).text == tw::trino::render_rules(ps).text);
  CHECK(tw::trino::render_rules(ps, &cache).text == tw::trino::render_rules(ps).text);  // from the cache

  // The same user lists (a copy shares them) under other names: nothing may come from the cache.
  tw::PolicySet renamed = ps;
  for (auto& u : renamed.users) u.engine_name += "_x";
  const std::string expected = tw::trino::render_rules(renamed).text;
  CHECK(expected != tw::trino::render_rules(ps).text);
  CHECK(tw::trino::render_rules(renamed, &cache).text == expected);
}

TEST_CASE("a render cache judges again which objects changed rules for unlisted names cover", "[incremental]") {
  // Schema s0's rule gives u1 exactly t0's access, so t0 has no rules of its own. The same
  // objects (their user lists shared) under a schema rule that also lets u2 in: t0 needs its
  // rules, or u2 would read it. The compiler decides t0 again whenever that rule changes, so
  // this is the render's own guard, tested on PolicySets made for it.
  tw::Profile profile = twtest::trino_profile({"cat0"});
  const json s = {{"version", 1},
                  {"generated_at", "2026-11-30T12:00:00Z"},
                  {"users", {{{"name", "u1"}}, {{"name", "u2"}}}},
                  {"roles", {"reader"}},
                  {"role_assignments", {{{"role", "reader"}, {"user", "u1"}}}},
                  {"objects",
                   {{{"name", "cat0.s0.t0"}, {"kind", "table"}, {"columns", {{{"name", "c"}, {"type", "int"}}}}},
                    {{"name", "cat0.s1.t1"}, {"kind", "table"}, {"columns", {{{"name", "c"}, {"type", "int"}}}}}}},
                  {"grants",
                   {{{"principal", {{"role", "reader"}}}, {"object", "cat0.s0.*"}, {"privileges", {"SELECT"}}},
                    {{"principal", {{"role", "reader"}}}, {"object", "cat0.s1.*"}, {"privileges", {"SELECT"}}}}}};
  tw::ProfileCompile compiled =
      tw::compile_profile(*tw::build_model(twtest::must_parse(s.dump()), std::nullopt), profile);
  REQUIRE(compiled.policy_set);
  const tw::PolicySet& covered = *compiled.policy_set;
  const std::string t0 = "\"table\":\"^t0$\"", t1 = "\"table\":\"^t1$\"";
  tw::PolicySet opened = covered;
  std::vector<tw::UnlistedRule> rules(covered.unlisted.begin(), covered.unlisted.end());
  bool widened = false;
  for (auto& rule : rules) {
    if (rule.pattern.schema != "s0" || rule.holders() != 1) continue;
    std::vector<std::size_t> users = rule.access.front().second->indices();
    users.push_back(1);  // u2, as u1
    std::sort(users.begin(), users.end());
    rule.access.front().second = std::make_shared<const tw::UserList>(tw::UserList::of_indices(users));
    widened = true;
  }
  REQUIRE(widened);
  opened.unlisted = tw::UnlistedRules(std::move(rules));

  tw::trino::RenderCache cache;
  for (const tw::PolicySet* ps : std::vector<const tw::PolicySet*>{&covered, &opened, &covered, &opened}) {
    const std::string expected = tw::trino::render_rules(*ps).text;
    CHECK((expected.find(t0) == std::string::npos) == (ps == &covered));
    CHECK(expected.find(t1) == std::string::npos);
    CHECK(tw::trino::render_rules(*ps, &cache).text == expected);
  }
}

TEST_CASE("a StarRocks render cache gives the bytes of a fresh render", "[incremental]") {
  std::size_t rendered = 0;
  for (const char* masking : {"auto", "on"}) {
    tw::Profile profile = twtest::trino_profile({"cat0", "cat1"}, "sr");
    profile.engine = tw::Engine::StarRocks;
    profile.masking = masking;
    for (unsigned seed = 1; seed <= 15; ++seed) {
      World w(seed);
      json s = w.snapshot();
      tw::ProfileCompile last =
          tw::compile_profile(*tw::build_model(twtest::must_parse(s.dump()), std::nullopt), profile);
      REQUIRE(last.policy_set);
      tw::starrocks::RenderCache cache;  // carried from step to step, as the daemon does
      (void)tw::starrocks::render_artifact(*last.policy_set, masking, &cache);
      for (int step = 0; step < 12; ++step) {
        // Every fourth step changes nothing: everything may then come from the cache.
        const std::string what = step % 4 == 0 ? "nothing" : w.change(s);
        INFO("masking " << masking << " seed " << seed << " step " << step << ": " << what);
        auto model = tw::build_model(twtest::must_parse(s.dump()), std::nullopt);
        tw::ProfileCompile next = tw::compile_profile(*model, profile, last.memo.get());
        if (next.policy_set) {
          const auto fresh = tw::starrocks::render_artifact(*next.policy_set, masking);
          const auto cached = tw::starrocks::render_artifact(*next.policy_set, masking, &cache);
          CHECK(cached.error == fresh.error);
          CHECK(cached.text == fresh.text);
          CHECK(cached.statements == fresh.statements);
          CHECK(findings_text(cached.findings) == findings_text(fresh.findings));
          ++rendered;
          last = std::move(next);
        }
      }
    }
  }
  CHECK(rendered > 300);
}

TEST_CASE("a StarRocks render cache takes names only for the users they were written for", "[incremental]") {
  tw::Profile profile = twtest::trino_profile({"cat0", "cat1"}, "sr");
  profile.engine = tw::Engine::StarRocks;
  for (unsigned seed = 1; seed <= 6; ++seed) {
    INFO("seed " << seed);
    World w(seed);
    auto model = tw::build_model(twtest::must_parse(w.snapshot().dump()), std::nullopt);
    tw::ProfileCompile compiled = tw::compile_profile(*model, profile);
    REQUIRE(compiled.policy_set);
    const tw::PolicySet& ps = *compiled.policy_set;
    tw::starrocks::RenderCache cache;
    const std::string plain = tw::starrocks::render_artifact(ps).text;
    CHECK(tw::starrocks::render_artifact(ps, "auto", &cache).text == plain);
    CHECK(tw::starrocks::render_artifact(ps, "auto", &cache).text == plain);  // from the cache

    // The same user lists (a copy shares them) under other names: role names and findings name the
    // users, so they may not come from the cache (the unions of the lists may).
    tw::PolicySet renamed = ps;
    for (auto& u : renamed.users) u.engine_name += "_x";
    const std::string expected = tw::starrocks::render_artifact(renamed).text;
    CHECK(expected != plain);
    CHECK(tw::starrocks::render_artifact(renamed, "auto", &cache).text == expected);
    CHECK(tw::starrocks::render_artifact(ps, "auto", &cache).text == plain);
  }
}
