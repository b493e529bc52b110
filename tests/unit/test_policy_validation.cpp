// MODEL.md §1 and §4: an access policy that is not valid refuses the whole snapshot, and the error
// names the path of the offending entry (`policies[1].scope.tag`). Each case below breaks one
// rule of the policy grammar (docs/semantics.md "Access policies are validated with paths"); the
// traceability audit found no test that failed when any of them was dropped.

#include <catch2/catch.hpp>

#include "helpers.h"

using namespace twtest;

namespace {

// policies[0] is valid, so every error below is policies[1]'s: the path names the entry, not
// merely the first policy.
std::string snapshot(const std::string& policy) {
  return R"(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: ana}]
roles: [analyst]
classifications: [{name: PII, level: 2}]
objects:
  - {name: c.s.t, owner: ana, domain: fin/pay, columns: [{name: a}, {name: b}]}
grants:
  - {principal: {user: ana}, object: c.s.t, privileges: [SELECT]}
policies:
  - {name: fine, type: deny, scope: {tag: PII}, enabled: false}
  - )" + policy +
         "\n";
}

}  // namespace

TEST_CASE("an invalid policy refuses the snapshot with the path of the offending entry", "[load][policies]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      // mask kinds and visible_chars (partial only, 1-8)
      {"{name: p, type: column_mask, mask: partial, visible_chars: 0, scope: {tag: PII}}",
       "policies[1].visible_chars: must be between 1 and 8"},
      {"{name: p, type: column_mask, mask: partial, visible_chars: 9, scope: {tag: PII}}",
       "policies[1].visible_chars: must be between 1 and 8"},
      {"{name: p, type: column_mask, mask: partial, scope: {tag: PII}}",
       "policies[1].visible_chars: is required for a partial mask (1-8)"},
      {"{name: p, type: column_mask, mask: full, visible_chars: 4, scope: {tag: PII}}",
       "policies[1].visible_chars: only partial masks have visible_chars"},
      {"{name: p, type: column_mask, mask: Full, scope: {tag: PII}}",
       R"(policies[1].mask: unknown mask "Full" (expected full, partial, hash or null))"},
      {"{name: p, type: column_mask, scope: {tag: PII}}", "policies[1].mask: is required (a string)"},
      {"{name: p, type: deny, mask: full, scope: {tag: PII}}",
       "policies[1].mask: only column_mask policies have a mask"},
      // types and conditions
      {"{name: p, type: Deny, scope: {tag: PII}}",
       R"(policies[1].type: unknown policy type "Deny" (expected column_mask, row_filter or deny))"},
      {"{name: p, scope: {tag: PII}}", "policies[1].type: is required (a string)"},
      // Found by the fuzzing audit: an empty type was taken as a column mask (a deny became a mask
      // that let its users read), and an empty mask as the full one.
      {"{name: p, type: '', scope: {tag: PII}}",
       R"(policies[1].type: unknown policy type "" (expected column_mask, row_filter or deny))"},
      {"{name: p, type: column_mask, mask: '', scope: {tag: PII}}",
       R"(policies[1].mask: unknown mask "" (expected full, partial, hash or null))"},
      {"{name: p, type: deny, scope: {tag: PII}, condition: {\"true\": true}}",
       "policies[1].condition: only row_filter policies have a condition"},
      {"{name: p, type: row_filter, scope: {object: c.s.t}}", "policies[1].condition: is required (a mapping)"},
      {"{name: p, type: row_filter, scope: {object: c.s.t}, condition: [{\"true\": true}]}",
       "policies[1].condition: must be a mapping, found a list"},
      // unknown keys inside a condition, at any depth, and junctions or constants with company
      {"{name: p, type: row_filter, scope: {object: c.s.t}, condition: {column: a, op: gt, value: 5, x: 1}}",
       R"(policies[1].condition.x: unknown key "x" (expected column, op, value, values; or one of and, or, true, false alone))"},
      {"{name: p, type: row_filter, scope: {object: c.s.t}, condition: {not: {column: a, op: eq, value: 7}}}",
       R"(policies[1].condition.not: unknown key "not" (expected column, op, value, values; or one of and, or, true, false alone))"},
      {"{name: p, type: row_filter, scope: {object: c.s.t}, condition: {column: a, op: eq, vaule: 7}}",
       R"(policies[1].condition.vaule: unknown key "vaule" (expected column, op, value, values; or one of and, or, true, false alone))"},
      {"{name: p, type: row_filter, scope: {object: c.s.t}, condition: {and: [{\"true\": true}, {column: a, op: "
       "is_null, nope: 1}]}}",
       R"(policies[1].condition.and[1].nope: unknown key "nope" (expected column, op, value, values; or one of and, or, true, false alone))"},
      {"{name: p, type: row_filter, scope: {object: c.s.t}, condition: {and: [{\"true\": true}, {\"true\": true}], "
       "column: a}}",
       R"(policies[1].condition.and: "and" takes no other key beside it in one condition)"},
      {"{name: p, type: row_filter, scope: {object: c.s.t}, condition: {\"true\": true, op: eq}}",
       R"(policies[1].condition.true: "true" takes no other key beside it in one condition)"},
      // scopes: exactly one kind, every name resolves, a row filter reaches objects only
      {"{name: p, type: deny, scope: {tag: PII, object: c.s.t}}",
       "policies[1].scope: give exactly one of object, column, tag, domain or level_at_least"},
      {"{name: p, type: deny, scope: {}}",
       "policies[1].scope: give exactly one of object, column, tag, domain or level_at_least"},
      {"{name: p, type: deny}", "policies[1].scope: is required (a mapping)"},
      {"{name: p, type: deny, scope: {object: c.s.T}}",
       R"(policies[1].scope.object: unknown object "c.s.T" (the snapshot lists "c.s.t": a reference names an object exactly as it is listed))"},
      {"{name: p, type: deny, scope: {object: \"c.s.*\"}}", R"(policies[1].scope.object: unknown object "c.s.*")"},
      {"{name: p, type: deny, scope: {column: c.s.t.A}}",
       R"(policies[1].scope.column: unknown column "c.s.t.A" (catalog.schema.object.column))"},
      {"{name: p, type: row_filter, scope: {column: c.s.t.a}, condition: {\"true\": true}}",
       "policies[1].scope.column: a row filter applies to an object, not a column"},
      {"{name: p, type: deny, scope: {tag: pii}}", R"(policies[1].scope.tag: unknown classification "pii")"},
      {"{name: p, type: deny, scope: {domain: fi}}",
       R"(policies[1].scope.domain: unknown domain "fi": no object carries it or a sub-domain of it)"},
      {"{name: p, type: deny, scope: {level_at_least: -1}}",
       "policies[1].scope.level_at_least: must be between 0 and 1000, as levels are"},
      {"{name: p, type: deny, scope: {level_at_least: \"3\"}}",
       "policies[1].scope.level_at_least: must be an integer, found a string"},
      // applies_to / exempt: roles and users that exist; no group selector (groups never reach engines)
      {"{name: p, type: deny, scope: {tag: PII}, applies_to: {roles: [nope]}}",
       R"(policies[1].applies_to.roles[0]: unknown role "nope")"},
      {"{name: p, type: deny, scope: {tag: PII}, exempt: {users: [ana, nope]}}",
       R"(policies[1].exempt.users[1]: unknown user "nope")"},
      {"{name: p, type: deny, scope: {tag: PII}, applies_to: {groups: [g]}}",
       R"(policies[1].applies_to.groups: unknown key "groups" (expected one of: roles, users))"},
      {"{name: p, type: deny, scope: {tag: PII}, applies_to: everyone}",
       "policies[1].applies_to: must be a mapping, found a string"},
      // the entry itself
      {"{name: p, type: deny, scope: {tag: PII}, enabled: \"false\"}",
       "policies[1].enabled: must be true or false, found a string"},
      {"{name: p, type: deny, scope: {tag: PII}, priority: 1}",
       "policies[1].priority: unknown key \"priority\" (expected one of: name, enabled, type, mask, visible_chars, "
       "scope, applies_to, exempt, condition)"},
      {"{type: deny, scope: {tag: PII}}", "policies[1].name: is required (a string)"},
      {"{name: fine, type: deny, scope: {tag: PII}}", R"(policies[1].name: duplicate policy "fine")"},
  };
  for (const auto& [policy, error] : cases) {
    INFO(policy);
    CHECK(must_fail(snapshot(policy)) == Names{error});
  }
}

TEST_CASE("the valid policies of the validation cases load", "[load][policies]") {
  // The frame of the cases above is valid: each error is the case's own.
  const auto s =
      must_parse(snapshot("{name: p, type: column_mask, mask: partial, visible_chars: 8, scope: "
                          "{domain: fin}, applies_to: {roles: [analyst]}, exempt: {users: [ana]}}"));
  REQUIRE(s->policies.size() == 2);
  CHECK(s->policies[1].visible_chars == 8);
}

TEST_CASE("mask: null, as MODEL §4 spells it, is the null mask in YAML and JSON alike", "[load][policies]") {
  // Unquoted, YAML reads null as a null value; it used to be refused as a missing mask.
  for (const char* spelling : {"null", "~", "\"null\""}) {
    INFO(spelling);
    const auto s =
        must_parse(snapshot(std::string("{name: p, type: column_mask, mask: ") + spelling + ", scope: {tag: PII}}"));
    REQUIRE(s->policies.size() == 2);
    CHECK(s->policies[1].mask == tw::MaskKind::Null);
  }
  // A null with visible_chars is still refused: only partial masks have them.
  CHECK_FALSE(
      tw::parse_snapshot(snapshot("{name: p, type: column_mask, mask: null, visible_chars: 2, scope: {tag: PII}}"))
          .snapshot);
}
