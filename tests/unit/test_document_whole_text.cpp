// A document is read whole or refused (document.h): nothing after the first
// YAML document, nor after a NUL byte, passes unread, and YAML aliases cannot
// expand a small text into gigabytes.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/model/document.h"
#include "tagwarden/model/load.h"

using twtest::must_fail;
using twtest::must_parse;
using Names = std::vector<std::string>;

namespace {

const std::string kYaml = "version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\"\nroles: [r]\n";
const std::string kJson = R"({"version": 1, "generated_at": "2026-11-30T12:00:00Z", "roles": ["r"]})";

}  // namespace

TEST_CASE("a YAML stream of more than one document is refused, not read up to the first", "[load][bug]") {
  // YAML::Load read the first document and dropped the rest, even text that is not YAML:
  // an updated snapshot appended after the old one compiled the old one.
  const std::string refused = "invalid YAML: the text holds 2 documents (separated by ---); it must be one";
  CHECK(must_fail(kYaml + "---\nversion: 1\nroles: [r, steward]\n") == Names{refused});
  CHECK(must_fail(kYaml + "---\n") == Names{refused});
  CHECK(must_fail("---\nversion: 2\n---\n" + kYaml) == Names{refused});
  CHECK(must_fail(kYaml + "---\na: 1\n---\nb: 2\n") ==
        Names{"invalid YAML: the text holds 3 documents (separated by ---); it must be one"});
  SECTION("what follows a document end marker is read, and refused when it is not YAML") {
    const Names errors = must_fail(kYaml + "...\nextra: [\n");
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::StartsWith("invalid YAML: "));
  }
  SECTION("one document, with its markers, is read as before") {
    CHECK(must_parse("---\n" + kYaml)->roles == Names{"r"});
    CHECK(must_parse("---\n" + kYaml + "...\n")->roles == Names{"r"});
    CHECK(must_parse("# only a comment before\n" + kYaml + "# and after\n")->roles == Names{"r"});
  }
  SECTION("an empty text is still one null document") {
    CHECK(must_fail("") == Names{"must be a mapping, found null"});
    CHECK(must_fail("# nothing\n") == Names{"must be a mapping, found null"});
  }
}

TEST_CASE("a NUL byte anywhere refuses the text", "[load][bug]") {
  // simdjson stopped at a NUL after the document: whatever followed (a second
  // document, garbage) was never read.
  const std::string nul(1, '\0');
  CHECK(must_fail(kJson + nul) == Names{"the text holds a NUL byte (at offset " + std::to_string(kJson.size()) +
                                        "): JSON and YAML are text without NUL bytes"});
  CHECK(must_fail(kJson + nul + R"({"roles": ["steward"]})").size() == 1);
  CHECK(must_fail(kJson + nul + " garbage {").size() == 1);
  CHECK(must_fail(kYaml + nul + "extra: 1\n") ==
        Names{"the text holds a NUL byte (at offset " + std::to_string(kYaml.size()) +
              "): JSON and YAML are text without NUL bytes"});
  SECTION("an escaped NUL is a character of a string, checked as names are") {
    CHECK(must_fail(kYaml + "users: [{name: \"a\\0b\"}]\n") ==
          Names{R"(users[0].name: user name "a\u0000b" contains a control character, which engines cannot quote)"});
  }
}

TEST_CASE("YAML aliases cannot expand a small text beyond a bound", "[load][bug]") {
  // 22 anchors, each a list naming the one before twice: 600 bytes that expanded to 4 million
  // strings (80 s and 3 GB before the validator refused the unknown keys).
  std::string laughs = kYaml + "a0: &a0 [\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"]\n";
  for (int i = 1; i <= 22; ++i)
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" + std::to_string(i - 1) + ", *a" +
              std::to_string(i - 1) + "]\n";
  const auto errors = tw::parse_document(laughs).errors;
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0].first, Catch::StartsWith("a"));
  CHECK_THAT(errors[0].second, Catch::StartsWith("invalid YAML: its aliases (*name) expand it to more than 16 times"));

  SECTION("an alias repeating a long string is counted by its bytes") {
    std::string text = kYaml + "users:\n  - name: &n \"" + std::string(200000, 'u') + "\"\n";
    for (int i = 0; i < 100; ++i) text += "  - name: *n\n";
    CHECK_THAT(must_fail(text)[0], Catch::Contains("expand it to more than 16 times its size"));
  }
  SECTION("ordinary reuse of an anchor is read") {
    const std::string text = kYaml + R"(users: [{name: a, groups: &g [g1, g2]}, {name: b, groups: *g}]
)";
    auto s = must_parse(text);
    REQUIRE(s->users.size() == 2);
    CHECK(s->users[1].groups == Names{"g1", "g2"});
  }
}

TEST_CASE("a YAML stream yaml-cpp cannot read past is refused, not read until memory runs out", "[load][bug]") {
  // yaml-cpp 0.7's LoadAll returned one more empty document per call on a ',' outside a flow
  // collection, without reading a byte, and kept them all: 23 GB before the OOM killer.
  CHECK(must_fail(",") == Names{"invalid YAML: yaml-cpp: error at line 1, column 1: cannot read past this point"});
  CHECK(must_fail(" ,{\"a\":1}") ==
        Names{"invalid YAML: yaml-cpp: error at line 1, column 2: cannot read past this point"});
  CHECK(must_fail(kYaml + ",\n") == Names{"invalid YAML: yaml-cpp: error at line 4, column 1: end of map not found"});
  CHECK(must_fail("- a\n,") == Names{"invalid YAML: yaml-cpp: error at line 2, column 1: cannot read past this point"});
}
