// MODEL.md section 1: duplicates are an error. A grant with the principal and the
// object pattern of an earlier grant is refused, naming both; patterns are compared
// as object names are (case-insensitively). Before, identical grants loaded.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/model/load.h"

using twtest::must_fail;
using twtest::must_parse;
using Names = std::vector<std::string>;

namespace {

const std::string kHead =
    "version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\"\nusers: [{name: alice}, {name: bob}]\n"
    "roles: [analyst, alice]\nobjects:\n  - {name: wh.s.t, owner: alice, columns: [{name: id, type: bigint}]}\n";

std::string grant(const std::string& principal, const std::string& object, const std::string& privileges) {
  return "  - principal: {" + principal + "}\n    object: \"" + object + "\"\n    privileges: [" + privileges + "]\n";
}

const std::string kMerge = " (same principal and object; merge their privileges)";

}  // namespace

TEST_CASE("a grant repeating an earlier grant's principal and object is refused, naming both", "[load][grants]") {
  SECTION("the audit's repro: two identical grants") {
    CHECK(must_fail(kHead + "grants:\n" + grant("user: alice", "wh.s.t", "SELECT") +
                    grant("user: alice", "wh.s.t", "SELECT")) == Names{"grants[1]: duplicate of grants[0]" + kMerge});
  }
  SECTION("different privileges: still one grant, to be merged") {
    CHECK(must_fail(kHead + "grants:\n" + grant("role: analyst", "wh.*.*", "SELECT") +
                    grant("user: bob", "wh.*.*", "SELECT") + grant("role: analyst", "wh.*.*", "INSERT")) ==
          Names{"grants[2]: duplicate of grants[0]" + kMerge});
  }
  SECTION("each repeat names the first grant") {
    CHECK(must_fail(kHead + "grants:\n" + grant("user: bob", "*.*.*", "SELECT") +
                    grant("user: bob", "*.*.*", "SELECT") + grant("user: bob", "*.*.*", "DELETE")) ==
          Names{"grants[1]: duplicate of grants[0]" + kMerge, "grants[2]: duplicate of grants[0]" + kMerge});
  }
  SECTION("patterns are compared case-insensitively, as object names are") {
    CHECK(must_fail(kHead + "grants:\n" + grant("user: alice", "wh.*.*", "SELECT") +
                    grant("user: alice", "WH.*.*", "INSERT")) ==
          Names{"grants[1]: duplicate of grants[0] (same principal and object, as object names are compared "
                "case-insensitively; merge their privileges)"});
  }
  SECTION("a duplicate is reported alongside a bad privilege") {
    CHECK(must_fail(kHead + "grants:\n" + grant("user: alice", "wh.s.t", "SELECT") +
                    grant("user: alice", "wh.s.t", "FLY")) ==
          Names{"grants[1]: duplicate of grants[0]" + kMerge,
                "grants[1].privileges[0]: unknown privilege \"FLY\" (expected SELECT, INSERT, UPDATE, DELETE or "
                "OWNERSHIP)"});
  }
}

TEST_CASE("grants differing in principal kind, principal or object are not duplicates", "[load][grants]") {
  // A role and a user may share a name: they are different principals.
  const auto s = must_parse(kHead + "grants:\n" + grant("user: alice", "wh.s.t", "SELECT") +
                            grant("role: alice", "wh.s.t", "SELECT") + grant("user: bob", "wh.s.t", "SELECT") +
                            grant("user: alice", "wh.s.*", "SELECT") + grant("user: alice", "wh.*.t", "SELECT") +
                            grant("user: alice", "*.s.t", "SELECT"));
  CHECK(s->grants.size() == 6);
}
