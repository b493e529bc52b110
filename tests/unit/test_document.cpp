// Reading documents (document.h): JSON through simdjson, YAML through yaml-cpp
// and then simdjson, one validator for both. Duplicate keys, depth, UTF-8, the
// byte order mark, numbers, and the same Snapshot from either format.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/config/profile.h"
#include "tagwarden/model/document.h"
#include "tagwarden/model/load.h"

using twtest::must_fail;
using twtest::must_parse;
using Names = std::vector<std::string>;

namespace {

// What parse_document refuses, as "path: message".
std::vector<std::string> errors_of(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& [path, message] : tw::parse_document(text).errors) out.push_back(path + ": " + message);
  return out;
}

const std::string kJsonHead = R"({"version": 1, "generated_at": "2026-11-30T12:00:00Z", )";
const std::string kYamlHead = "version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\"\n";

std::string only_error(const std::string& text) {
  const Names errors = must_fail(text);
  INFO(Catch::Detail::stringify(errors));
  REQUIRE(errors.size() == 1);
  return errors[0];
}

Names document_errors(const std::string& text) {
  Names out;
  for (const auto& [path, message] : tw::parse_document(text).errors)
    out.push_back(path.empty() ? message : path + ": " + message);
  return out;
}

// A JSON value with its number types: u unsigned, i signed, f floating point.
std::string typed(const nlohmann::json& j) {
  if (j.is_object()) {
    std::string s = "{";
    for (const auto& [k, v] : j.items()) s += k + ":" + typed(v) + ",";
    return s + "}";
  }
  if (j.is_array()) {
    std::string s = "[";
    for (const auto& v : j) s += typed(v) + ",";
    return s + "]";
  }
  const char* t = j.is_number_unsigned() ? "u" : j.is_number_integer() ? "i" : j.is_number_float() ? "f" : "";
  return t + j.dump();
}

std::string nested(const std::string& open, const std::string& close, int depth) {
  std::string s;
  for (int i = 0; i < depth; ++i) s += open;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

}  // namespace

TEST_CASE("a duplicate JSON key names its path, at any depth", "[load][json]") {
  SECTION("in a column") {
    const std::string text = kJsonHead + R"("classifications": [{"name": "PII"}],
      "objects": [{"name": "c.s.t", "columns": [{"name": "a"}, {"name": "b", "tags": ["PII"], "name": "c"}]}]})";
    CHECK(only_error(text) == R"(objects[0].columns[1].name: duplicate key "name")");
  }
  SECTION("inside values the validator does not otherwise read") {
    CHECK(
        only_error(kJsonHead + R"("users": [{"name": "a", "attributes": {"r": {"x": 1, "y": {"x": 2}, "x": 3}}}]})") ==
        R"(users[0].attributes.r.x: duplicate key "x")");
    CHECK(only_error(kJsonHead + R"("objects": [{"name": "c.s.t"}], "policies": [{"name": "f", "type": "row_filter",
      "scope": {"object": "c.s.t"}, "condition": {"all": [{"column": "a", "op": "eq", "value": 1, "op": "ne"}]}}]})") ==
          R"(policies[0].condition.all[0].op: duplicate key "op")");
  }
  SECTION("at the top") { CHECK(only_error(kJsonHead + R"("version": 1})") == R"(version: duplicate key "version")"); }
  SECTION("every duplicate, in document order; a repeated key's value is not looked into") {
    const std::string text = kJsonHead + R"("users": [{"name": "a", "name": "b"},
      {"name": "c", "attributes": {"k": 1}, "attributes": {"x": 1, "x": 2}}], "roles": [], "roles": []})";
    CHECK(must_fail(text) == Names{R"(users[0].name: duplicate key "name")",
                                   R"(users[1].attributes: duplicate key "attributes")",
                                   R"(roles: duplicate key "roles")"});
  }
  SECTION("in a mapping with many keys") {
    std::string attributes;
    for (int i = 0; i < 40; ++i) attributes += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + ", ";
    CHECK(only_error(kJsonHead + R"("users": [{"name": "a", "attributes": {)" + attributes + R"("k17": 0}}]})") ==
          R"(users[0].attributes.k17: duplicate key "k17")");
  }
  SECTION("in a list at the root, as the YAML reader names it") {
    CHECK(document_errors(R"([{"a": 1, "a": 2}, [{"b": 1, "b": 1}]])") ==
          Names{R"([0].a: duplicate key "a")", R"([1][0].b: duplicate key "b")"});
  }
  SECTION("in the profiles config") {
    tw::ConfigLoad c = tw::parse_config(
        R"({"profiles": [{"name": "p", "engine": "trino", "catalogs": ["a"], "catalog_map": {"a": "x", "a": "y"}}]})");
    CHECK(twtest::error_strings(c.errors) == Names{R"(profiles[0].catalog_map.a: duplicate key "a")"});
  }
}

TEST_CASE("a document nested deeper than 1024 levels is refused, not a crash", "[load][json]") {
  const std::string attributes = R"("users": [{"name": "a", "attributes": {"x": )";
  SECTION("JSON at 1000 levels is read (and its attribute refused by the validator)") {
    CHECK(only_error(kJsonHead + attributes + nested("[", "]", 1000) + "}}]}") ==
          "users[0].attributes.x: attribute values must be a string, number, boolean or a list of them");
  }
  SECTION("JSON beyond the limit") {
    for (int depth : {1100, 100000}) {
      const std::string error = only_error(kJsonHead + attributes + nested("[", "]", depth) + "}}]}");
      CHECK(error.rfind("invalid JSON: ", 0) == 0);
      CHECK_THAT(error, Catch::Contains("too deep"));
    }
    CHECK_THAT(only_error(nested("{\"a\": [", "]}", 5000)), Catch::Contains("too deep"));
  }
  SECTION("JSON beyond the limit and malformed: the syntax error wins") {
    CHECK_THAT(only_error(kJsonHead + attributes + nested("[", "", 2000) + "}}]}"),
               Catch::StartsWith("invalid JSON: [json.exception.parse_error.101]"));
  }
  SECTION("YAML") {
    const std::string error =
        only_error(kYamlHead + "users: [{name: a, attributes: {x: " + nested("[", "]", 1100) + "}}]\n");
    CHECK(error.rfind("invalid YAML: ", 0) == 0);
  }
}

TEST_CASE("invalid UTF-8 in JSON refuses the document with the JSON reader's message", "[load][json]") {
  SECTION("in a string") {
    const std::string error = only_error(kJsonHead + "\"users\": [{\"name\": \"al\xFFice\"}]}");
    CHECK(error.rfind("invalid JSON: [json.exception.parse_error.101] parse error at line 1, column ", 0) == 0);
    CHECK_THAT(error, Catch::Contains("ill-formed UTF-8 byte"));
  }
  SECTION("in a key") {
    CHECK_THAT(only_error(kJsonHead + "\"users\": [{\"name\": \"a\", \"k\xC0\xAF\": 1}]}"),
               Catch::StartsWith("invalid JSON: ") && Catch::Contains("ill-formed UTF-8 byte"));
  }
  SECTION("an encoded surrogate, and an escaped lone one") {
    CHECK_THAT(only_error(kJsonHead + "\"roles\": [\"r\xED\xA0\x80\"]}"), Catch::StartsWith("invalid JSON: "));
    CHECK_THAT(only_error(kJsonHead + R"("roles": ["r\ud800"]})"), Catch::Contains("surrogate"));
  }
  SECTION("after the document") {
    CHECK_THAT(only_error(kJsonHead + "\"roles\": []} \xFF"), Catch::StartsWith("invalid JSON: "));
  }
}

TEST_CASE("malformed JSON keeps the JSON reader's messages", "[load][json]") {
  CHECK(only_error(R"({"version": 1,})") ==
        "invalid JSON: [json.exception.parse_error.101] parse error at line 1, column 15: syntax error while parsing "
        "object key - unexpected '}'; expected string literal");
  CHECK_THAT(only_error(kJsonHead + R"("roles": []} x)"),
             Catch::StartsWith("invalid JSON: [json.exception.parse_error.101]"));
  CHECK(only_error(kJsonHead + R"("users": [{"name": "a", "attributes": {"x": 1e400}}]})") ==
        "invalid JSON: [json.exception.out_of_range.406] number overflow parsing '1e400'");
}

TEST_CASE("a UTF-8 byte order mark is skipped before JSON and YAML", "[load]") {
  const std::string json = kJsonHead + R"("users": [{"name": "alice"}], "roles": ["r"]})";
  const std::string yaml = kYamlHead + "users: [{name: alice}]\nroles: [r]\n";
  const std::string bom = "\xEF\xBB\xBF";
  for (const std::string& text : {json, yaml, "\n  " + json}) {
    auto plain = must_parse(text);
    auto marked = must_parse(bom + text);
    CHECK(marked->users == plain->users);
    CHECK(marked->roles == Names{"r"});
  }
}

TEST_CASE("integers: what the loader reads as one", "[load][json]") {
  const auto version = [](const std::string& v) {
    return only_error(R"({"version": )" + v + R"(, "generated_at": "2026-11-30T12:00:00Z"})");
  };
  CHECK(version("1.0") == "version: must be an integer, found a number");
  CHECK(version("1e0") == "version: must be an integer, found a number");
  CHECK(version("\"1\"") == "version: must be an integer, found a string");
  CHECK(version("-0") == "version: unsupported version 0 (this build reads version 1)");
  CHECK(version("-9223372036854775808") ==
        "version: unsupported version -9223372036854775808 (this build reads version 1)");
  // Beyond 64 bits a number is floating point (as nlohmann, which read snapshots before simdjson, has it).
  CHECK(version("18446744073709551616") == "version: must be an integer, found a number");
  CHECK(version("-9223372036854775809") == "version: must be an integer, found a number");

  // Above INT64_MAX an integer wraps around, as before, and so fails range checks.
  const std::string levels =
      kJsonHead + R"("classifications": [{"name": "A", "level": 1000}, {"name": "B", "level": 1001},
    {"name": "C", "level": 9223372036854775808}, {"name": "D", "level": 18446744073709551615},
    {"name": "E", "level": 2.0}, {"name": "F", "level": null}]})";
  CHECK(must_fail(levels) == Names{"classifications[1].level: level must be between 0 and 1000",
                                   "classifications[2].level: level must be between 0 and 1000",
                                   "classifications[3].level: level must be between 0 and 1000",
                                   "classifications[4].level: must be an integer, found a number"});

  SECTION("YAML") {
    CHECK(only_error(kYamlHead + "classifications: [{name: A, level: 1.0}]\n") ==
          "classifications[0].level: must be an integer, found a number");
    CHECK(only_error(kYamlHead + "classifications: [{name: A, level: 99999999999999999999}]\n") ==
          "classifications[0].level: must be an integer, found a number");
    CHECK(must_parse(kYamlHead + "classifications: [{name: A, level: +7}]\n")->classifications[0].level == 7);
  }
  SECTION("attribute values keep nlohmann's number types") {
    auto s = must_parse(kJsonHead + R"("users": [{"name": "a", "attributes": {"n": 3, "neg": -4, "f": 2.0,
      "big": 18446744073709551615, "huge": 18446744073709551616, "l": [0, -0.5]}}]})");
    CHECK(typed(s->users[0].attributes) ==
          "{big:u18446744073709551615,f:f2.0,huge:f1.8446744073709552e+19,l:[u0,f-0.5,],n:u3,neg:i-4,}");
  }
  SECTION("YAML integers beyond 64 bits are numbers, as in JSON") {
    // They were strings in YAML: a row filter comparing a double column with the
    // attribute kept its rows in JSON (= 18446744073709551615) and lost them in YAML (1 = 0).
    const std::string values =
        R"({"big": 18446744073709551615, "above": 9223372036854775808, "huge": 18446744073709551616,
      "low": -9223372036854775808, "below": -9223372036854775809, "plus": 18446744073709551615})";
    auto json = must_parse(kJsonHead + R"("users": [{"name": "a", "attributes": )" + values + "}]}");
    auto yaml = must_parse(kYamlHead + "users: [{name: a, attributes: " + values + "}]\n");
    CHECK(typed(yaml->users[0].attributes) == typed(json->users[0].attributes));
    CHECK(typed(yaml->users[0].attributes) ==
          "{above:u9223372036854775808,below:f-9.223372036854776e+18,big:u18446744073709551615,"
          "huge:f1.8446744073709552e+19,low:i-9223372036854775808,plus:u18446744073709551615,}");
    // Too small for a double (it would read as 0, which an integer column holds) or too large:
    // refused in both, naming the path (std::stod threw: the error was the one word "stod").
    const std::string tiny = R"({"zero": 1e-400, "neg": -1e-400, "sub": 2.5e-320})";
    const std::vector<std::string> tiny_errors = {
        "users[0].attributes.zero: the number 1e-400 is too small for a double (it would read as 0 or lose its "
        "digits); write 0 or a number a double holds",
        "users[0].attributes.neg: the number -1e-400 is too small for a double (it would read as 0 or lose its "
        "digits); write 0 or a number a double holds",
        "users[0].attributes.sub: the number 2.5e-320 is too small for a double (it would read as 0 or lose its "
        "digits); write 0 or a number a double holds"};
    CHECK(must_fail(kYamlHead + "users: [{name: a, attributes: " + tiny + "}]\n") == tiny_errors);
    CHECK(must_fail(kJsonHead + R"("users": [{"name": "a", "attributes": )" + tiny + "}]}") == tiny_errors);
    CHECK(only_error(kYamlHead + "users: [{name: a, attributes: {x: 1e400}}]\n") ==
          "users[0].attributes.x: invalid YAML: number overflow parsing '1e400'");
    CHECK(only_error(kYamlHead + "users: [{name: a, attributes: {x: " + std::string(400, '9') + "}}]\n") ==
          "users[0].attributes.x: invalid YAML: number overflow parsing '" + std::string(400, '9') + "'");
    CHECK_THAT(only_error(kJsonHead + R"("users": [{"name": "a", "attributes": {"x": 1e400}}]})"),
               Catch::Contains("number overflow"));
    CHECK(typed(must_parse(kYamlHead + "users: [{name: a, attributes: {p: +18446744073709551615}}]\n")
                    ->users[0]
                    .attributes) == "{p:u18446744073709551615,}");
  }
}

TEST_CASE("JSON and YAML give the same Snapshot for the same content", "[load][json]") {
  const std::string json = kJsonHead + R"json(
    "users": [
      {"name": "alice", "attributes": {"region": "EU", "level": 3, "neg": -2, "ratio": 0.5, "tags": ["a", 1, true]}},
      {"name": "bob", "engine_user": "bob_e", "platform_admin": true, "groups": ["g1", "g2"]}],
    "roles": ["r1", "r2"],
    "role_assignments": [{"role": "r1", "user": "alice", "expires_at": "2027-01-01T00:00:00Z"}, {"role": "r2", "group": "g1"}],
    "classifications": [{"name": "PII", "level": 3, "clearance": [{"type": "role", "name": "r1"}, {"type": "group", "name": "g2"}]},
                        {"name": "Internal"}],
    "objects": [
      {"name": "c.s.t", "owner": "bob", "domain": "sales/eu", "tags": ["Internal"],
       "columns": [{"name": "id", "type": "bigint"}, {"name": "region"}, {"name": "amount", "type": "decimal(10,2)", "tags": ["PII"]}]
},
      {"name": "c.s.v", "kind": "view", "view_security": "invoker", "depends_on": ["c.s.t"]},
      {"name": "c.s.mv", "kind": "materialized_view", "depends_on": ["c.s.v"]}],
    "grants": [{"principal": {"role": "r1"}, "object": "c.s.*", "privileges": ["SELECT", "INSERT"]},
               {"principal": {"user": "bob"}, "object": "c.s.t", "privileges": ["OWNERSHIP"]}],
    "policies": [
      {"name": "by_region", "type": "row_filter", "scope": {"object": "c.s.t"},
       "condition": {"column": "region", "op": "eq", "value": {"$user": "attributes.region"}}, "exempt": {"roles": ["r2"]}},
      {"name": "small", "type": "row_filter", "scope": {"object": "c.s.t"},
       "condition": {"or": [{"column": "amount", "op": "lt", "value": 1000.5}, {"column": "id", "op": "in", "value": [1, -2, 3]}]}},
      {"name": "mask", "type": "column_mask", "mask": "partial", "visible_chars": 4, "scope": {"tag": "PII"}, "applies_to": {"users": ["bob"]}},
      {"name": "no_v", "type": "deny", "enabled": false, "scope": {"object": "c.s.v"}}]
})json";
  const std::string yaml = kYamlHead + R"yaml(users:
  - name: alice
    attributes: {region: EU, level: 3, neg: -2, ratio: 0.5, tags: [a, 1, true]}
  - {name: bob, engine_user: bob_e, platform_admin: true, groups: [g1, g2]}
roles: [r1, r2]
role_assignments:
  - {role: r1, user: alice, expires_at: "2027-01-01T00:00:00Z"}
  - {role: r2, group: g1}
classifications:
  - {name: PII, level: 3, clearance: [{type: role, name: r1}, {type: group, name: g2}]}
  - {name: Internal}
objects:
  - name: c.s.t
    owner: bob
    domain: sales/eu
    tags: [Internal]
    columns: [{name: id, type: bigint}, {name: region}, {name: amount, type: "decimal(10,2)", tags: [PII]
}]
  - {name: c.s.v, kind: view, view_security: invoker, depends_on: [c.s.t]}
  - {name: c.s.mv, kind: materialized_view, depends_on: [c.s.v]}
grants:
  - {principal: {role: r1}, object: "c.s.*", privileges: [SELECT, INSERT]}
  - {principal: {user: bob}, object: c.s.t, privileges: [OWNERSHIP]}
policies:
  - name: by_region
    type: row_filter
    scope: {object: c.s.t}
    condition: {
column:
  region, op : eq, value : {
  $user:
    attributes.region
  }
}
    exempt: {roles: [r2]}
  - name: small
    type: row_filter
    scope: {object: c.s.t}
    condition: {or: [{column: amount, op: lt, value: 1000.5}, {column: id, op: in, value: [1, -2, 3]}]}
  - {name: mask, type: column_mask, mask: partial, visible_chars: 4, scope: {tag: PII}, applies_to: {users: [bob]}}
  - {name: no_v, type: deny, enabled: false, scope: {object: c.s.v}}
)yaml";
  auto a = must_parse(json);
  auto b = must_parse(yaml);
  CHECK(a->version == b->version);
  CHECK(a->generated_at == b->generated_at);
  CHECK(a->users == b->users);
  CHECK(a->roles == b->roles);
  CHECK(a->role_assignments == b->role_assignments);
  CHECK(a->classifications == b->classifications);
  CHECK(a->objects == b->objects);
  CHECK(a->grants == b->grants);
  CHECK(a->policies == b->policies);
  REQUIRE(a->users.size() == 2);
  REQUIRE(a->policies.size() == 4);
  // Equal and of equal number types.
  CHECK(typed(a->users[0].attributes) == typed(b->users[0].attributes));
  CHECK(typed(a->users[0].attributes) == R"({level:u3,neg:i-2,ratio:f0.5,region:"EU",tags:["a",u1,true,],})");
  for (std::size_t i = 0; i < 4; ++i) CHECK(typed(a->policies[i].condition) == typed(b->policies[i].condition));
  CHECK(a->policies[1].condition.dump() ==
        R"({"or":[{"column":"amount","op":"lt","value":1000.5},{"column":"id","op":"in","value":[1,-2,3]}]})");
  CHECK(a->policies[2].visible_chars == 4);
  CHECK_FALSE(a->policies[3].enabled);
  CHECK(a->objects[2].depends_on == Names{"c.s.v"});
}

TEST_CASE("hostile names are still checked, in JSON and in YAML", "[load]") {
  SECTION("JSON escapes") {
    const std::string text = kJsonHead + R"("users": [{"name": "a", "attributes": {"k\u0001": 1}}],
      "roles": ["\u0000r", "ok", "x\u2028y"], "objects": [{"name": "c.s.t\u0085"}]})";
    CHECK(must_fail(text) ==
          Names{"roles[0]: role \"\\u0000r\" contains a control character, which engines cannot quote",
                "roles[2]: role \"x\xE2\x80\xA8y\" contains a control character, which engines cannot quote",
                "users[0].attributes.k\x01: attribute name \"k\\u0001\" contains a control character, which engines "
                "cannot quote",
                "objects[0].name: object name part \"t\xC2\x85\" contains a control character, which engines cannot "
                "quote"});
    CHECK(only_error(kJsonHead + R"("roles": [")" + std::string(257, 'r') + R"("]})") ==
          "roles[0]: role is longer than 256 bytes");
  }
  SECTION("YAML: strings that start with NUL are read as they are, and checked") {
    const std::string text = kYamlHead + "roles: [\"\\0r\", \"\\0\", ok]\n";
    CHECK(must_fail(text) ==
          Names{"roles[0]: role \"\\u0000r\" contains a control character, which engines cannot quote",
                "roles[1]: role \"\\u0000\" contains a control character, which engines cannot quote"});
  }
  SECTION("YAML: every string that is not UTF-8 refuses the document, naming its path") {
    const std::string text = kYamlHead + "users:\n  - {name: al\xFFice, attributes: {\"q\xFF\": v}}\n" +
                             "roles: [\"r\xC0\xAF\", ok]\n" +
                             "objects:\n  - {name: c.s.t, columns: [{name: a, type: \"int\xFF\"}]}\n";
    CHECK(must_fail(text) ==
          Names{"users[0].name: is not valid UTF-8 (byte 0xFF at offset 2); save the file as UTF-8",
                "users[0].attributes.q\xEF\xBF\xBD: key is not valid UTF-8 (byte 0xFF at offset 1); save the file as "
                "UTF-8",
                "roles[0]: is not valid UTF-8 (byte 0xC0 at offset 1); save the file as UTF-8",
                "objects[0].columns[0].type: is not valid UTF-8 (byte 0xFF at offset 3); save the file as UTF-8"});
  }
  SECTION("YAML: a byte that is not UTF-8 outside every string (a comment) refuses the document too") {
    const std::string text = kYamlHead + "# caf\xE9\nroles: [ok]\n";
    const auto lines = static_cast<std::size_t>(std::count(kYamlHead.begin(), kYamlHead.end(), '\n'));
    CHECK(must_fail(text) == Names{"invalid YAML: line " + std::to_string(lines + 1) +
                                   ", column 6: byte 0xE9 is not valid UTF-8; save the file as UTF-8"});
  }
}

TEST_CASE("unknown keys are reported in key order, as before", "[load][json]") {
  CHECK(
      must_fail(kJsonHead + R"("zeta": 1, "users": [{"name": "a", "zz": 1, "aa": 2}], "alpha": 2})") ==
      Names{
          R"(alpha: unknown key "alpha" (expected one of: version, generated_at, users, roles, role_assignments, classifications, objects, grants, policies))",
          R"(zeta: unknown key "zeta" (expected one of: version, generated_at, users, roles, role_assignments, classifications, objects, grants, policies))",
          R"(users[0].aa: unknown key "aa" (expected one of: name, engine_user, platform_admin, groups, attributes))",
          R"(users[0].zz: unknown key "zz" (expected one of: name, engine_user, platform_admin, groups, attributes))"});
}

TEST_CASE("a number too small for a double is refused, naming its path; a zero written so is read", "[document]") {
  const std::string why =
      " is too small for a double (it would read as 0 or lose its digits); write 0 or a number "
      "a double holds";
  CHECK(errors_of(R"({"a": [0.0, -0.0, 0e5, 1.5], "b": {"v": 1e-400}, "s": "1e-400"})") ==
        std::vector<std::string>{"b.v: the number 1e-400" + why});
  CHECK(errors_of(R"({"a": [1, 2e-320]})") == std::vector<std::string>{"a[1]: the number 2e-320" + why});
  CHECK(errors_of(R"({"a": 0.0, "big": 123456789012345678901234567890, "s": "x\"1e-999", "t": -1e-400})") ==
        std::vector<std::string>{"t: the number -1e-400" + why});
  CHECK(errors_of("a: [0.0, 1e-400]\n") == std::vector<std::string>{"a[1]: the number 1e-400" + why});
  CHECK(errors_of(R"({"a": [0.0, -0.0, 0E-400, 0.000]})").empty());
  CHECK(errors_of("a: [0.0, -0.0, 0e-400]\n").empty());
}

TEST_CASE("YAML tags that would change a value are refused; escapes the reader cannot decode are named", "[document]") {
  const std::string tail =
      " is not read (only !!str, !!map and !!seq are): remove it and write the value as it is meant";
  CHECK(errors_of("a: !foo bob\n") == std::vector<std::string>{"a: the YAML tag !foo" + tail});
  CHECK(errors_of("a: [x, !!binary Ym9i]\n") == std::vector<std::string>{"a[1]: the YAML tag !!binary" + tail});
  CHECK(errors_of("a: {b: !!int \"5\"}\n") == std::vector<std::string>{"a.b: the YAML tag !!int" + tail});
  CHECK(errors_of("a: !!str 5\nb: !!map {c: !!seq [1]}\nd: 'q'\ne: \"q\"\n").empty());
  CHECK(errors_of("a: \"bo\\_b\"\n") ==
        std::vector<std::string>{"a: holds the YAML escape \\_ or \\N, which this YAML reader cannot decode: write the "
                                 "character itself, or \\u00A0 / \\u0085"});
  CHECK(errors_of("a: \"bo\\u00A0b\"\n").empty());
}

TEST_CASE("a YAML key that is a list or mapping is named by its line and column, at the top too", "[document]") {
  CHECK(errors_of("version: 1\n? [x]\n: 1\n") ==
        std::vector<std::string>{
            ": the mapping key at line 2, column 3 is a list or mapping: keys must be plain strings"});
  CHECK(errors_of("users:\n  - {name: a, ? {k: v} : 1}\n") ==
        std::vector<std::string>{
            "users[0]: the mapping key at line 2, column 17 is a list or mapping: keys must be plain strings"});
}
