// MODEL.md section 1: a YAML snapshot or profiles config with a string that is
// not UTF-8, anywhere (key or value, at any depth), is refused at load with the
// path of that string. JSON is refused by its reader already. Before, a YAML
// attribute value that was not UTF-8 loaded, and compiling a row filter that used
// it failed with nlohmann's type_error 316 and no path.

#include <string>
#include <vector>

#include <simdjson.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "helpers.h"
#include "tagwarden/config/profile.h"
#include "tagwarden/model/entry_reader.h"
#include "tagwarden/model/load.h"

using twtest::must_fail;
using twtest::must_parse;
using Names = std::vector<std::string>;

namespace {

const std::string kHead = "version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\"\n";
const std::string kFix = "; save the file as UTF-8";

// The audit's repro: the attribute that is not UTF-8 is used by a row filter.
std::string row_filter_snapshot(const std::string& region) {
  return kHead + "users:\n  - {name: ana, attributes: {region: " + region + "}}\n  - {name: etl}\n" +
         "roles: [analyst]\nrole_assignments:\n  - {role: analyst, user: ana}\n" +
         "objects:\n  - name: w.s.t\n    owner: etl\n    columns:\n      - {name: id, type: bigint}\n" +
         "      - {name: region, type: varchar}\n" +
         "grants:\n  - principal: {role: analyst}\n    object: \"w.*.*\"\n    privileges: [SELECT]\n" +
         "policies:\n  - name: eu_rows\n    type: row_filter\n    scope: {object: w.s.t}\n" +
         "    condition: {column: region, op: eq, value: {\"$user\": \"attributes.region\"}}\n";
}

// Every message can be written as JSON (the daemon's status, the CLI's reports).
void check_printable(const Names& errors) {
  for (const std::string& e : errors) {
    INFO(e);
    CHECK(simdjson::validate_utf8(e.data(), e.size()));
    CHECK_NOTHROW(nlohmann::json(e).dump());
  }
}

Names config_errors(const std::string& text) {
  const tw::ConfigLoad load = tw::parse_config(text, false);
  CHECK_FALSE(load.config.has_value());
  return twtest::error_strings(load.errors);
}

}  // namespace

TEST_CASE("a YAML attribute value that is not UTF-8 is refused at load, naming its path", "[load][utf8]") {
  must_parse(row_filter_snapshot("EU"));
  const Names errors = must_fail(row_filter_snapshot("E\xFFU"));
  CHECK(errors == Names{"users[0].attributes.region: is not valid UTF-8 (byte 0xFF at offset 1)" + kFix});
  check_printable(errors);
}

TEST_CASE("every YAML string that is not UTF-8 is refused, at any depth, keys too", "[load][utf8]") {
  SECTION("generated_at") {
    CHECK(must_fail("version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\xFF\"\n") ==
          Names{"generated_at: is not valid UTF-8 (byte 0xFF at offset 20)" + kFix});
  }
  SECTION("a condition value, a list item of an attribute, a key, an unknown key's value") {
    const std::string text = kHead + "users:\n  - {name: ana, attributes: {tags: [ok, \"b\xFE\"]}, \"k\xFF\": 1}\n" +
                             "objects: [{name: w.s.t, columns: [{name: a}]}]\n" +
                             "policies:\n  - name: p\n    type: row_filter\n    scope: {object: w.s.t}\n" +
                             "    condition: {column: a, op: in, value: [x, \"y\xC3\"]}\n" +
                             "zzz: {deep: [[{v: \"\xE2\x82\"}]]}\n";
    const Names errors = must_fail(text);
    CHECK(errors == Names{"users[0].attributes.tags[1]: is not valid UTF-8 (byte 0xFE at offset 1)" + kFix,
                          "users[0].k\xEF\xBF\xBD: key is not valid UTF-8 (byte 0xFF at offset 1)" + kFix,
                          "policies[0].condition.value[1]: is not valid UTF-8 (byte 0xC3 at offset 1)" + kFix,
                          "zzz.deep[0][0].v: is not valid UTF-8 (byte 0xE2 at offset 0)" + kFix});
    check_printable(errors);
  }
  SECTION("the value under a key that is not UTF-8 is still looked into") {
    CHECK(must_fail(kHead + "users:\n  - {name: ana, attributes: {\"\xFF\": \"\xFF\"}}\n") ==
          Names{"users[0].attributes.\xEF\xBF\xBD: key is not valid UTF-8 (byte 0xFF at offset 0)" + kFix,
                "users[0].attributes.\xEF\xBF\xBD: is not valid UTF-8 (byte 0xFF at offset 0)" + kFix});
  }
}

TEST_CASE("UTF-8 is judged as RFC 3629 says, the same for JSON and YAML", "[load][utf8]") {
  struct Case {
    std::string text;
    bool valid;
  };
  const std::vector<Case> cases = {{"plain", true},
                                   {"\xC3\xA9t\xC3\xA9", true},       // été
                                   {"\xE2\x82\xAC", true},            // U+20AC
                                   {"\xF0\x9F\x98\x80", true},        // U+1F600
                                   {"\xF4\x8F\xBF\xBF", true},        // U+10FFFF
                                   {"\xC0\xAF", false},               // overlong '/'
                                   {"\xE0\x80\xAF", false},           // overlong, 3 bytes
                                   {"\xED\xA0\x80", false},           // a surrogate
                                   {"\xF4\x90\x80\x80", false},       // beyond U+10FFFF
                                   {"\xE2\x82", false},               // truncated
                                   {"\x80", false},                   // a lone continuation byte
                                   {"\xF8\x88\x80\x80\x80", false}};  // 5-byte form
  for (const Case& c : cases) {
    INFO(nlohmann::json(c.text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace));
    CHECK(simdjson::validate_utf8(c.text.data(), c.text.size()) == c.valid);
    CHECK(!tw::invalid_utf8_offset(c.text).has_value() == c.valid);
    const std::string yaml = kHead + "users:\n  - {name: ana, attributes: {a: \"" + c.text + "\"}}\n";
    const tw::SnapshotLoad yaml_load = tw::parse_snapshot(yaml);
    CHECK(yaml_load.snapshot.has_value() == c.valid);
    const std::string json = R"({"version": 1, "generated_at": "2026-11-30T12:00:00Z", "users": [{"name": "ana",
      "attributes": {"a": ")" +
                             c.text + "\"}}]}";
    CHECK(tw::parse_snapshot(json).snapshot.has_value() == c.valid);
  }
  CHECK(tw::invalid_utf8_offset("ab\xC3\xA9\xFF") == std::optional<std::size_t>(4));
}

TEST_CASE("a profiles config that is not UTF-8 is refused with the path, not a crash", "[config][utf8]") {
  const std::string ok = "profiles:\n  - name: p\n    engine: trino\n    catalogs: [w]\n";
  CHECK(tw::parse_config(ok, false).config.has_value());
  SECTION("a user_map value") {
    const Names errors = config_errors(ok + "    user_map: {ana: \"an\xFF\"}\n");
    CHECK(errors == Names{"profiles[0].user_map.ana: is not valid UTF-8 (byte 0xFF at offset 2)" + kFix});
    check_printable(errors);
  }
  SECTION("a user_map key, a catalog, a catalog_map value") {
    const std::string text = "profiles:\n  - name: p\n    engine: starrocks\n    catalogs: [w, \"v\xFF\"]\n" +
                             std::string("    catalog_map: {w: \"default\xE0\x80\"}\n    user_map: {\"\xFF\": ana}\n");
    const Names errors = config_errors(text);
    CHECK(errors == Names{"profiles[0].catalogs[1]: is not valid UTF-8 (byte 0xFF at offset 1)" + kFix,
                          "profiles[0].catalog_map.w: is not valid UTF-8 (byte 0xE0 at offset 7)" + kFix,
                          "profiles[0].user_map.\xEF\xBF\xBD: key is not valid UTF-8 (byte 0xFF at offset 0)" + kFix});
    check_printable(errors);
  }
}
