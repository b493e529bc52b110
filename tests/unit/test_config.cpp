// MODEL.md section 3: the profiles config.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/compiler.h"
#include "tagwarden/config/profile.h"

using Names = std::vector<std::string>;

namespace {

Names config_errors(const std::string& text) {
  tw::ConfigLoad r = tw::parse_config(text);
  CHECK_FALSE(r.config.has_value());
  return twtest::error_strings(r.errors);
}

tw::Config must_config(const std::string& text) {
  tw::ConfigLoad r = tw::parse_config(text);
  INFO(twtest::join_errors(r.errors));
  REQUIRE(r.errors.empty());
  REQUIRE(r.config.has_value());
  return *r.config;
}

}  // namespace

TEST_CASE("a minimal profile gets the documented defaults", "[config]") {
  const tw::Config c = must_config(R"(profiles:
  - {name: trino_main, engine: trino, catalogs: [demo_warehouse]}
)");
  REQUIRE(c.profiles.size() == 1);
  const tw::Profile& p = c.profiles[0];
  CHECK(p.name == "trino_main");
  CHECK(p.engine == tw::Engine::Trino);
  CHECK(p.catalogs == Names{"demo_warehouse"});
  CHECK(p.catalog_map.empty());
  CHECK(p.user_map.empty());
  CHECK(p.withhold_writes == true);
  CHECK(p.restrict_materialized_views == true);
  CHECK(p.max_policies_per_tag == 500);
  CHECK_FALSE(p.rules_file.has_value());
}

TEST_CASE("every field of a profile is read, in YAML and JSON alike", "[config]") {
  const tw::Config yaml = must_config(R"(profiles:
  - name: sr
    engine: starrocks
    catalogs: [a, b]
    catalog_map: {a: engine_a}
    user_map: {farid.haddad: farid}
    withhold_writes: false
    restrict_materialized_views: false
    max_policies_per_tag: 42
  - name: t
    engine: trino
    catalogs: [a]
    rules_file: /tmp/rules.json
)");
  const tw::Config json = must_config(R"({"profiles": [
    {"name": "sr", "engine": "starrocks", "catalogs": ["a", "b"], "catalog_map": {"a": "engine_a"},
     "user_map": {"farid.haddad": "farid"}, "withhold_writes": false, "restrict_materialized_views": false,
     "max_policies_per_tag": 42},
    {"name": "t", "engine": "trino", "catalogs": ["a"], "rules_file": "/tmp/rules.json"}]})");
  REQUIRE(yaml.profiles.size() == 2);
  CHECK(yaml.profiles == json.profiles);
  const tw::Profile& p = yaml.profiles[0];
  CHECK(p.engine == tw::Engine::StarRocks);
  CHECK(p.catalogs == Names{"a", "b"});
  CHECK(p.catalog_map == std::map<std::string, std::string>{{"a", "engine_a"}});
  CHECK(p.user_map == std::map<std::string, std::string>{{"farid.haddad", "farid"}});
  CHECK_FALSE(p.withhold_writes);
  CHECK_FALSE(p.restrict_materialized_views);
  CHECK(p.max_policies_per_tag == 42);
  CHECK(yaml.profiles[1].rules_file == std::optional<std::string>("/tmp/rules.json"));
}

TEST_CASE("unknown keys are errors", "[config]") {
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a], withold_writes: false}]\n") ==
        Names{R"(profiles[0].withold_writes: unknown key "withold_writes" (expected one of: name, engine, catalogs, catalog_map, user_map, withhold_writes, restrict_materialized_views, max_policies_per_tag, rules_file, dsn, password_file, dialect, masking))"});
  // The top-level key list grows with the daemon settings: check the error, not the hint.
  const Names top = config_errors("profiles: [{name: p, engine: trino, catalogs: [a]}]\nversion: 1\n");
  REQUIRE(top.size() == 1);
  CHECK_THAT(top[0], Catch::StartsWith(R"(version: unknown key "version" (expected one of: profiles)"));
}

TEST_CASE("an unknown engine is an error", "[config]") {
  CHECK(config_errors("profiles: [{name: p, engine: presto, catalogs: [a]}]\n") ==
        Names{R"(profiles[0].engine: unknown engine "presto" (expected trino or starrocks))"});
  CHECK(config_errors("profiles: [{name: p, engine: Trino, catalogs: [a]}]\n") ==
        Names{R"(profiles[0].engine: unknown engine "Trino" (expected trino or starrocks))"});
  CHECK(config_errors("profiles: [{name: p, catalogs: [a]}]\n") ==
        Names{"profiles[0].engine: is required (a string)"});
}

TEST_CASE("duplicate profile names are an error", "[config]") {
  CHECK(config_errors(R"(profiles:
  - {name: p, engine: trino, catalogs: [a]}
  - {name: q, engine: trino, catalogs: [b]}
  - {name: p, engine: starrocks, catalogs: [c]}
)") == Names{R"(profiles[2].name: duplicate profile "p")"});
}

TEST_CASE("profile names are safe directory names", "[config]") {
  const Names errors = config_errors("profiles: [{name: ../etc, engine: trino, catalogs: [a]}]\n");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("profiles[0].name: ", 0) == 0);
  CHECK(config_errors("profiles: [{name: \"a/b\", engine: trino, catalogs: [a]}]\n").size() == 1);
}

TEST_CASE("catalogs are required, and catalog_map may only rename them", "[config]") {
  CHECK(config_errors("profiles: [{name: p, engine: trino}]\n") ==
        Names{"profiles[0].catalogs: is required (the platform catalogs this profile covers)"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a], catalog_map: {other: x}}]\n") ==
        Names{R"(profiles[0].catalog_map.other: maps catalog "other", which is not in this profile's catalogs)"});
}

TEST_CASE("two catalogs mapped to one engine catalog are an error", "[config]") {
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a, b], catalog_map: {a: x, b: x}}]\n") ==
        Names{R"(profiles[0].catalog_map.b: two catalogs map to the engine catalog "x")"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a, b], catalog_map: {a: b}}]\n") ==
        Names{R"(profiles[0].catalog_map: catalog "b" collides with a renamed catalog)"});
  // A swap is fine: every engine catalog has one platform catalog.
  const tw::Config swap = must_config("profiles: [{name: p, engine: trino, catalogs: [a, b], catalog_map: {a: b, b: a}}]\n");
  CHECK(swap.profiles[0].catalog_map.size() == 2);
}

// Trino lowercases catalog names (compiler.cpp engine_identifier), so on a
// Trino profile "X" and "x" are the same engine catalog. The compiler then
// silently merges two platform catalogs into one (map_catalogs de-duplicates
// ps.catalogs): grants on either reach the other's unlisted names.
TEST_CASE("two catalogs that reach one Trino catalog only through lowercasing are an error", "[config][bug]") {
  SECTION("through catalog_map") {
    const Names errors =
        config_errors("profiles: [{name: p, engine: trino, catalogs: [a, b], catalog_map: {a: X, b: x}}]\n");
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::Contains("two catalogs map to the engine catalog"));
  }
  SECTION("through the catalogs list") {
    const Names errors = config_errors("profiles: [{name: p, engine: trino, catalogs: [Sales, sales]}]\n");
    CHECK(errors.size() == 1);
  }
}

TEST_CASE("other field checks", "[config]") {
  CHECK(config_errors("profiles: []\n") == Names{"profiles: must list at least one profile"});
  CHECK(config_errors("{}\n") == Names{"profiles: is required (a list)"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a], max_policies_per_tag: 0}]\n") ==
        Names{"profiles[0].max_policies_per_tag: must be between 1 and 1000000"});
  CHECK(config_errors("profiles: [{name: p, engine: starrocks, catalogs: [a], rules_file: /tmp/x}]\n") ==
        Names{"profiles[0].rules_file: only Trino profiles write a rules file"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a], withhold_writes: \"no\"}]\n") ==
        Names{"profiles[0].withhold_writes: must be true or false, found a string"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a.b]}]\n") ==
        Names{R"(profiles[0].catalogs: catalog "a.b" is not a catalog name)"});
  CHECK(config_errors("profiles: [{name: p, engine: trino, catalogs: [a, a]}]\n") ==
        Names{R"(profiles[0].catalogs[1]: duplicate catalog "a")"});
}

TEST_CASE("all config errors are reported at once", "[config]") {
  const Names errors = config_errors(R"(profiles:
  - {name: p, engine: presto, catalogs: [a], catalog_map: {z: y}}
  - {name: p, engine: trino, catalogs: [b], bogus: 1}
)");
  CHECK(errors == Names{R"(profiles[0].engine: unknown engine "presto" (expected trino or starrocks))",
                        R"(profiles[0].catalog_map.z: maps catalog "z", which is not in this profile's catalogs)",
                        R"(profiles[1].bogus: unknown key "bogus" (expected one of: name, engine, catalogs, catalog_map, user_map, withhold_writes, restrict_materialized_views, max_policies_per_tag, rules_file, dsn, password_file, dialect, masking))",
                        R"(profiles[1].name: duplicate profile "p")"});
}

TEST_CASE("the demo profiles config loads", "[config]") {
  tw::ConfigLoad r = tw::load_config_file(TAGWARDEN_SOURCE_DIR "/examples/demo/profiles.yaml");
  INFO(twtest::join_errors(r.errors));
  REQUIRE(r.config.has_value());
  REQUIRE(r.config->profiles.size() == 1);
  CHECK(r.config->profiles[0].name == "trino_main");
  CHECK(r.config->profiles[0].catalogs == Names{"demo_warehouse"});
  tw::ConfigLoad missing = tw::load_config_file("/nonexistent/profiles.yaml");
  REQUIRE(missing.errors.size() == 1);
  CHECK_THAT(missing.errors[0].str(), Catch::Contains("/nonexistent/profiles.yaml"));
}
