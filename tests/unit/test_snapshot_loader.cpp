// The daemon's incremental snapshot reader must be indistinguishable from reading the whole text:
// for random snapshots and random changes, valid or not, SnapshotLoader::load() gives the Snapshot
// parse_snapshot() gives, or exactly its errors; and it reuses the entries the change left alone.

#include <algorithm>
#include <catch2/catch.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "helpers.h"
#include "tagwarden/model/load.h"
#include "tagwarden/model/snapshot_loader.h"

namespace {

using nlohmann::json;

struct World : twtest::Dice {
  using Dice::Dice;

  json snapshot() {
    json s = {{"version", 1}, {"generated_at", "2026-11-30T12:00:00Z"}, {"roles", json::array()}};
    for (int u = 0; u < 12; ++u) {
      json user = {{"name", u == 3 ? "o'hare" : "user" + std::to_string(u)}};
      if (coin(0.5)) user["attributes"] = {{"region", coin() ? "EU" : "US"}};
      if (coin(0.3)) user["groups"] = {"g" + std::to_string(pick(2))};
      s["users"].push_back(user);
    }
    for (int r = 0; r < 5; ++r) s["roles"].push_back("role" + std::to_string(r));
    for (int i = 0; i < 20; ++i) {
      json a = {{"role", "role" + std::to_string(i % 5)}};
      if (i % 7 == 6) {
        a["group"] = "g" + std::to_string(i % 2);
      } else {
        a["user"] = "user" + std::to_string(i % 12 == 3 ? 11 : i % 12);
      }
      if (i % 4 == 0) a["expires_at"] = "2027-0" + std::to_string(1 + i % 9) + "-01T00:00:00Z";
      s["role_assignments"].push_back(a);
    }
    for (int t = 0; t < 6; ++t) {
      json c = {{"name", "tag" + std::to_string(t)}};
      if (t < 4) c["clearance"] = {{{"type", "role"}, {"name", "role" + std::to_string(t)}}};
      s["classifications"].push_back(c);
    }
    for (int o = 0; o < 14; ++o) {
      json obj = {{"name", "cat" + std::to_string(o % 2) + ".s.t" + std::to_string(o)}};
      if (o >= 12) {
        obj["kind"] = "view";
        obj["depends_on"] = {"cat0.s.t" + std::to_string(2 * (o - 12))};
      }
      if (coin(0.3)) obj["owner"] = s["users"][pick(12)]["name"];
      if (coin(0.2)) obj["tags"] = {"tag" + std::to_string(pick(6))};
      for (int c = 0; c < 3; ++c) {
        json col = {{"name", "c" + std::to_string(c)}};
        if (coin(0.3)) col["tags"] = {"tag" + std::to_string(pick(6))};
        obj["columns"].push_back(col);
      }
      s["objects"].push_back(obj);
    }
    s["grants"] = {{{"principal", {{"role", "role1"}}}, {"object", "cat0.*.*"}, {"privileges", {"SELECT"}}},
                   {{"principal", {{"user", "user2"}}}, {"object", "cat1.s.t1"}, {"privileges", {"SELECT"}}}};
    s["policies"] = {{{"name", "mask_tag4"},
                      {"type", "column_mask"},
                      {"mask", "partial"},
                      {"visible_chars", 2},
                      {"scope", {{"tag", "tag4"}}},
                      {"exempt", {{"roles", {"role0"}}}}}};
    return s;
  }

  json& any(json& list) { return list[pick(list.size())]; }

  // One change, valid or not, of the kind a governance tool makes or gets wrong. Returns the text.
  std::string change(json s) {
    std::string tail;  // text after the document
    switch (pick(18)) {
      case 0:  // a tag on a column, known or not
        any(any(s["objects"])["columns"])["tags"] = {coin(0.8) ? "tag" + std::to_string(pick(6)) : "nope"};
        break;
      case 1:  // a user goes, perhaps one an assignment or an owner names
        s["users"].erase(pick(s["users"].size()));
        break;
      case 2:  // an object twice, or its name in other case
        if (coin()) {
          s["objects"].push_back(any(s["objects"]));
        } else {
          json o = any(s["objects"]);
          std::string n = o["name"];
          for (char& ch : n) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
          o["name"] = n;
          s["objects"].push_back(o);
        }
        break;
      case 3: {  // the same assignment again, spelled otherwise
        json a = any(s["role_assignments"]);
        a["expires_at"] = "2030-01-01T00:00:00Z";
        s["role_assignments"].push_back(a);
        break;
      }
      case 4:  // a classification goes that reused entries may carry
        s["classifications"].erase(pick(s["classifications"].size()));
        break;
      case 5:  // a role goes that reused assignments may name
        s["roles"].erase(pick(s["roles"].size()));
        break;
      case 6:  // entries reordered
        std::shuffle(s["objects"].begin(), s["objects"].end(), rng);
        std::shuffle(s["role_assignments"].begin(), s["role_assignments"].end(), rng);
        break;
      case 7:  // a view's base goes, or a cycle appears
        if (coin()) {
          s["objects"].erase(pick(12));
        } else {
          s["objects"][0]["kind"] = "view";
          s["objects"][0]["depends_on"] = {"cat0.s.t12"};
        }
        break;
      case 8:  // text after the document
        tail = coin() ? " x" : "{}";
        break;
      case 9:  // an unknown top-level key
        s["extra"] = 1;
        break;
      case 10:  // an entry that is not a mapping, or an unknown key in one
        if (coin()) {
          any(s["users"]) = "user99";
        } else {
          any(s["objects"])["colour"] = "red";
        }
        break;
      case 11:  // a new user and an assignment for it
        s["users"].push_back({{"name", "newcomer"}});
        s["role_assignments"].push_back({{"role", "role2"}, {"user", "newcomer"}});
        break;
      case 12:  // the snapshot's own fields
        if (coin()) {
          s["version"] = 2;
        } else {
          s["generated_at"] = "yesterday";
        }
        break;
      case 13:  // a grant on an object that goes
        s["grants"].push_back(
            {{"principal", {{"role", "role0"}}}, {"object", "cat1.s.t3"}, {"privileges", {"SELECT"}}});
        if (coin()) s["objects"].erase(3);
        break;
      case 14:  // a policy naming a tag that goes
        s["policies"][0]["scope"]["tag"] = "tag" + std::to_string(pick(6));
        if (coin()) s["classifications"].erase(pick(s["classifications"].size()));
        break;
      case 15:  // an assignment twice, byte for byte: the same entry of the last snapshot taken twice
        s["role_assignments"].insert(s["role_assignments"].begin() + pick(s["role_assignments"].size()),
                                     any(s["role_assignments"]));
        break;
      case 16: {  // a new assignment twice, or a new one and a user's assignment to the same role again
        const json a = {{"role", "role" + std::to_string(pick(4))}, {"user", coin() ? "newcomer" : "user1"}};
        if (a["user"] == "newcomer") s["users"].push_back({{"name", "newcomer"}});
        s["role_assignments"].push_back(a);
        if (coin()) s["role_assignments"].insert(s["role_assignments"].begin(), a);
        break;
      }
      default:  // a user's attributes
        any(s["users"])["attributes"] = {{"region", coin() ? json("APAC") : json(nullptr)}};
        break;
    }
    return s.dump() + tail;
  }
};

}  // namespace

TEST_CASE("the incremental snapshot reader reads what parse_snapshot reads", "[load][incremental]") {
  std::size_t valid = 0, invalid = 0, reused = 0;
  for (unsigned seed = 1; seed <= 60; ++seed) {
    World w(seed);
    const json base = w.snapshot();
    tw::SnapshotLoader loader;
    const auto first = loader.load(base.dump());
    if (!first.snapshot) FAIL(twtest::error_strings(first.errors).front());
    REQUIRE(first.snapshot);
    CHECK_FALSE(first.incremental);
    for (int step = 0; step < 12; ++step) {
      // Each step changes the first snapshot; the loader reads it against the last valid text.
      const std::string text = w.change(base);
      INFO("seed " << seed << " step " << step << ": " << text);
      const auto got = loader.load(text);
      const tw::SnapshotLoad want = tw::parse_snapshot(text);
      REQUIRE(twtest::error_strings(got.errors) == twtest::error_strings(want.errors));
      REQUIRE(bool(got.snapshot) == bool(want.snapshot));
      if (!want.snapshot) {
        ++invalid;
        continue;
      }
      ++valid;
      twtest::same_snapshot(*got.snapshot, *want.snapshot);
      CHECK(got.incremental);
      reused += got.reused_entries;
    }
  }
  CHECK(valid > 100);
  CHECK(invalid > 100);
  CHECK(reused > 0);
}

TEST_CASE("an invalid text leaves the last valid snapshot as the base", "[load][incremental]") {
  World w(7);
  json s = w.snapshot();
  tw::SnapshotLoader loader;
  REQUIRE(loader.load(s.dump()).snapshot);
  REQUIRE_FALSE(loader.load("{\"version\": 1, \"users\": [}").snapshot);
  s["objects"][0]["columns"][0]["tags"] = {"tag0"};
  const auto next = loader.load(s.dump());
  REQUIRE(next.snapshot);
  CHECK(next.incremental);
  CHECK(next.read_entries == 1);  // the changed object
  CHECK(next.reused_entries == s["users"].size() + s["role_assignments"].size() + s["objects"].size() - 1);
}

TEST_CASE("entries edited, added, removed or moved leave the others reused", "[load][incremental]") {
  World w(11);
  const json s = w.snapshot();
  const std::size_t total = s["users"].size() + s["role_assignments"].size() + s["objects"].size();
  json added = {{"name", "cat1.s.added"}, {"columns", {{{"name", "c0"}}}}};
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    std::size_t read;     // entries read afresh
    std::size_t entries;  // entries in the changed text
  };
  const std::vector<Case> cases = {
      {"one object edited", [](json& t) { t["objects"][5]["columns"][1]["tags"] = {"tag1"}; }, 1, total},
      {"two objects edited side by side",
       [](json& t) {
         t["objects"][5]["columns"][1]["tags"] = {"tag1"};
         t["objects"][6]["columns"][1]["tags"] = {"tag1"};
       },
       2, total},
      {"one object added in the middle", [&](json& t) { t["objects"].insert(t["objects"].begin() + 4, added); }, 1,
       total + 1},
      {"one object added at the end", [&](json& t) { t["objects"].push_back(added); }, 1, total + 1},
      {"one object removed", [](json& t) { t["objects"].erase(4); }, 0, total - 1},
      {"two objects removed", [](json& t) { t["objects"].erase(4), t["objects"].erase(8); }, 0, total - 2},
      {"the first assignment removed", [](json& t) { t["role_assignments"].erase(0); }, 0, total - 1},
      {"entries moved",
       [](json& t) {
         std::reverse(t["objects"].begin(), t["objects"].end());
         std::rotate(t["users"].begin(), t["users"].begin() + 5, t["users"].end());
       },
       0, total},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    tw::SnapshotLoader loader;
    REQUIRE(loader.load(s.dump()).snapshot);
    json t = s;
    c.edit(t);
    const auto got = loader.load(t.dump());
    REQUIRE(got.snapshot);
    twtest::same_snapshot(*got.snapshot, *tw::parse_snapshot(t.dump()).snapshot);
    CHECK(got.read_entries == c.read);
    CHECK(got.reused_entries == c.entries - c.read);
    // And back: the changed text is now the base.
    const auto back = loader.load(s.dump());
    REQUIRE(back.snapshot);
    CHECK(back.reused_entries + back.read_entries == total);
  }
}

TEST_CASE("a reused entry is checked again against what it names", "[load][incremental]") {
  World w(3);
  json s = w.snapshot();
  s["objects"][0]["columns"][0]["tags"] = {"tag5"};
  s["role_assignments"][0] = {{"role", "role4"}, {"user", "user10"}};
  tw::SnapshotLoader loader;
  REQUIRE(loader.load(s.dump()).snapshot);

  json no_tag = s;
  no_tag["classifications"].erase(5);  // tag5
  const auto a = loader.load(no_tag.dump());
  REQUIRE_FALSE(a.snapshot);
  CHECK(twtest::error_strings(a.errors) == twtest::error_strings(tw::parse_snapshot(no_tag.dump()).errors));
  CHECK(twtest::error_strings(a.errors).front() == "objects[0].columns[0].tags[0]: unknown classification \"tag5\"");

  json no_role = s;
  no_role["roles"].erase(4);
  const auto b = loader.load(no_role.dump());
  REQUIRE_FALSE(b.snapshot);
  CHECK(twtest::error_strings(b.errors).front() == "role_assignments[0].role: unknown role \"role4\"");

  json no_user = s;
  no_user["users"].erase(10);
  const auto c = loader.load(no_user.dump());
  REQUIRE_FALSE(c.snapshot);
  CHECK(twtest::error_strings(c.errors) == twtest::error_strings(tw::parse_snapshot(no_user.dump()).errors));
}

TEST_CASE("YAML and text the layout reader leaves alone are read whole", "[load][incremental]") {
  tw::SnapshotLoader loader;
  const std::string yaml = "version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\"\nusers: [{name: a}]\n";
  const auto y = loader.load(yaml);
  REQUIRE(y.snapshot);
  CHECK_FALSE(y.incremental);
  const auto again = loader.load(yaml);
  REQUIRE(again.snapshot);
  CHECK_FALSE(again.incremental);
  const std::string json_text = R"({"version":1,"generated_at":"2026-11-30T12:00:00Z","users":[{"name":"a"}]})";
  REQUIRE(loader.load(json_text).snapshot);
  const auto dup =
      loader.load(R"({"version":1,"version":1,"generated_at":"2026-11-30T12:00:00Z","users":[{"name":"a"}]})");
  REQUIRE_FALSE(dup.snapshot);
  CHECK(twtest::error_strings(dup.errors) ==
        twtest::error_strings(
            tw::parse_snapshot(
                R"({"version":1,"version":1,"generated_at":"2026-11-30T12:00:00Z","users":[{"name":"a"}]})")
                .errors));
  const std::string nul = std::string(R"({"version":1,"generated_at":"2026-11-30T12:00:00Z","users":[{"name":"a"}]})") +
                          std::string(1, '\0') + "garbage";
  CHECK_FALSE(loader.load(nul).snapshot);
}

TEST_CASE("bytes the layout reader skips are judged too", "[load][incremental]") {
  // A top-level string followed by ':' was skipped by simdjson's On-Demand iterator as a key and
  // its value, so text the full reader refuses (here a second, hidden users list) was accepted.
  const std::string base = R"({"version":1,"generated_at":"2026-11-30T12:00:00Z","users":[{"name":"alice"}]})";
  const std::vector<std::string> refused = {
      R"({"version":1,"generated_at":"2026-11-30T12:00:00Z":0]})",
      R"({"version":1,"generated_at":"2026-11-30T12:00:00Z":0}})",
      R"({"version":1,"generated_at":"2026-11-30T12:00:00Z": {"x":1}, "users":[{"name":"mallory",)"
      R"("platform_admin":true}], "version":2 }, "users":[{"name":"alice"}]})",
      R"({"version":1 "x","generated_at":"2026-11-30T12:00:00Z","users":[{"name":"alice"}]})",
      R"({"version":1,"generated_at":"2026-11-30T12:00:00Z","users":[{"name":"alice"} {"name":"bob"}]})",
      R"({"version":1,"generated_at":"2026-11-30T12:00:00Z","users":[{"name":"alice"}],})",
      R"({"version":1,"generated_at":"2026-11-30T12:00:00Z","users":[{"name":"alice"},]})",
  };
  for (const std::string& text : refused) {
    INFO(text);
    tw::SnapshotLoader loader;
    REQUIRE(loader.load(base).snapshot);
    const auto got = loader.load(text);
    CHECK_FALSE(got.snapshot);
    CHECK(twtest::error_strings(got.errors) == twtest::error_strings(tw::parse_snapshot(text).errors));
    CHECK_FALSE(got.errors.empty());
  }
}

TEST_CASE("a number too small for a double in a changed entry is refused as a whole read refuses it",
          "[load][incremental]") {
  World w(11);
  json s = w.snapshot();
  tw::SnapshotLoader loader;
  REQUIRE(loader.load(s.dump()).snapshot);
  s["users"][0]["attributes"]["tiny"] = 12345.678;
  std::string text = s.dump();
  const auto at = text.find("12345.678");
  REQUIRE(at != std::string::npos);
  text.replace(at, 9, "1e-400");
  const auto got = loader.load(text);
  const tw::SnapshotLoad want = tw::parse_snapshot(text);
  REQUIRE_FALSE(want.snapshot);
  CHECK_FALSE(got.snapshot);
  CHECK(twtest::error_strings(got.errors) == twtest::error_strings(want.errors));
  CHECK_THAT(twtest::error_strings(got.errors).front(),
             Catch::StartsWith("users[0].attributes.tiny: the number 1e-400"));
}
