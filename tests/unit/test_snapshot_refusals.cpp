// MODEL.md section 1, traced rule by rule: every invalid entry refuses the whole snapshot with one
// error naming the entry's path. test_load_snapshot.cpp holds the first cases of each kind; these
// pin the rules a traceability audit found enforced but untested (each was checked against the
// frozen binary before it was written down here).

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/model/load.h"

using twtest::must_fail;
using twtest::must_parse;
using Names = std::vector<std::string>;

namespace {

// A valid snapshot; each case appends one section (or one entry to the last one).
const std::string kHead = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: alice}
  - {name: bob, groups: [g1]}
roles: [r1, r2]
classifications:
  - {name: PII, clearance: [{type: role, name: r1}]}
  - {name: Internal}
objects:
  - name: c.s.t
    columns:
      - {name: id}
      - {name: email, tags: [PII]}
)";

Names errors_of(const std::string& tail) { return must_fail(kHead + tail); }

}  // namespace

TEST_CASE("the head of the refusal cases is valid", "[load][refusals]") { must_parse(kHead); }

TEST_CASE("unknown keys in every kind of entry name the key's path", "[load][refusals]") {
  CHECK(errors_of("role_assignments: [{role: r1, user: alice, note: x}]\n") ==
        Names{R"(role_assignments[0].note: unknown key "note" (expected one of: role, user, group, expires_at))"});
  CHECK(errors_of("grants: [{principal: {user: bob}, object: c.s.t, privileges: [SELECT], why: x}]\n") ==
        Names{R"(grants[0].why: unknown key "why" (expected one of: principal, object, privileges))"});
  CHECK(must_fail(R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
classifications: [{name: Internal, color: red}]
)") == Names{R"(classifications[0].color: unknown key "color" (expected one of: name, level, clearance))"});
  CHECK(
      must_fail(R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
objects: [{name: c.s.t, colour: red}]
)") ==
      Names{
          R"(objects[0].colour: unknown key "colour" (expected one of: name, kind, owner, domain, view_security, depends_on, tags, columns))"});
}

TEST_CASE("a role assignment is held by exactly one of a user or a group", "[load][refusals]") {
  CHECK(errors_of("role_assignments: [{role: r1, user: alice, group: g1}]\n") ==
        Names{"role_assignments[0]: names both a user and a group: an assignment is held by exactly one of them"});
  CHECK(errors_of("role_assignments: [{role: r1}]\n") ==
        Names{"role_assignments[0]: names neither a user nor a group"});
  CHECK(errors_of("role_assignments: [{user: alice}]\n") == Names{"role_assignments[0].role: is required (a string)"});
}

TEST_CASE("duplicate assignments are refused whatever their expiry, to groups too", "[load][refusals]") {
  // A second assignment with another expiry would make "when does it stop counting" ambiguous.
  CHECK(errors_of(R"(role_assignments:
  - {role: r1, user: alice, expires_at: "2026-12-01T00:00:00Z"}
  - {role: r1, user: alice}
)") == Names{R"(role_assignments[1]: duplicate assignment of role "r1" to user "alice")"});
  CHECK(errors_of("role_assignments: [{role: r1, group: g1}, {role: r1, group: g1}]\n") ==
        Names{R"(role_assignments[1]: duplicate assignment of role "r1" to group "g1")"});
}

TEST_CASE("an expiry must be an RFC 3339 string with a zone", "[load][refusals]") {
  CHECK(errors_of("role_assignments: [{role: r1, user: alice, expires_at: \"\"}]\n") ==
        Names{R"(role_assignments[0].expires_at: not an RFC 3339 time with a zone: "")"});
  CHECK(errors_of("role_assignments: [{role: r1, user: alice, expires_at: 1796040000}]\n") ==
        Names{"role_assignments[0].expires_at: must be a string, found a number"});
  CHECK(errors_of("role_assignments: [{role: r1, user: alice, expires_at: 2026-12-01}]\n") ==
        Names{R"(role_assignments[0].expires_at: not an RFC 3339 time with a zone: "2026-12-01")"});
  CHECK(errors_of("role_assignments: [{role: r1, user: alice, expires_at: \"2027-02-29T00:00:00Z\"}]\n") ==
        Names{R"(role_assignments[0].expires_at: not an RFC 3339 time with a zone: "2027-02-29T00:00:00Z")"});
  CHECK(errors_of("role_assignments: [{role: r1, user: alice, expires_at: \"2026-12-01T00:00:00+24:00\"}]\n") ==
        Names{R"(role_assignments[0].expires_at: not an RFC 3339 time with a zone: "2026-12-01T00:00:00+24:00")"});
}

TEST_CASE("clearance rows: a known type, a name, no repeats; role names are exact", "[load][refusals]") {
  const std::string head = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
roles: [r1]
classifications:
)";
  CHECK(must_fail(head + "  - {name: PII, clearance: [{type: team, name: x}]}\n") ==
        Names{R"(classifications[0].clearance[0].type: unknown clearance type "team" (expected role or group))"});
  CHECK(must_fail(head + "  - {name: PII, clearance: [{type: Role, name: r1}]}\n") ==
        Names{R"(classifications[0].clearance[0].type: unknown clearance type "Role" (expected role or group))"});
  CHECK(must_fail(head + "  - {name: PII, clearance: [{type: role}]}\n") ==
        Names{"classifications[0].clearance[0].name: is required (a string)"});
  CHECK(must_fail(head + "  - {name: PII, clearance: [{name: r1}]}\n") ==
        Names{"classifications[0].clearance[0].type: is required (a string)"});
  CHECK(must_fail(head + "  - {name: PII, clearance: [{type: role, name: r1}, {type: role, name: r1}]}\n") ==
        Names{R"(classifications[0].clearance[1]: duplicate clearance row role "r1")"});
  CHECK(must_fail(head + "  - {name: PII, clearance: [{type: group, name: \"\"}]}\n") ==
        Names{"classifications[0].clearance[0].name: group name must not be empty"});
  // Role names are not folded: R1 is not r1 (roles never reach an engine by name to be folded there).
  CHECK(must_fail(head + "  - {name: PII, clearance: [{type: role, name: R1}]}\n") ==
        Names{R"(classifications[0].clearance[0].name: unknown role "R1")"});
  CHECK(must_fail(head + "  - {name: PII, clearance: [~]}\n") ==
        Names{"classifications[0].clearance[0]: must be a mapping, found null"});
}

TEST_CASE("tags: exact names, no repeats on one object or column", "[load][refusals]") {
  const std::string head = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
roles: [r1]
classifications: [{name: PII, clearance: [{type: role, name: r1}]}]
objects:
)";
  CHECK(must_fail(head + "  - {name: c.s.t, columns: [{name: e, tags: [pii]}]}\n") ==
        Names{R"(objects[0].columns[0].tags[0]: unknown classification "pii")"});
  CHECK(must_fail(head + "  - {name: c.s.t, tags: [PII, PII]}\n") ==
        Names{R"(objects[0].tags[1]: duplicate tag "PII")"});
  CHECK(must_fail(head + "  - {name: c.s.t, columns: [{name: e, tags: [PII, PII]}]}\n") ==
        Names{R"(objects[0].columns[0].tags[1]: duplicate tag "PII")"});
  CHECK(must_fail(head + "  - {name: c.s.t, columns: [{name: e, tags: [PII, ~]}]}\n") ==
        Names{"objects[0].columns[0].tags[1]: must be a string, found null"});
}

// The tags of an object and of a column were read twice (once for the names, once to resolve
// them), so a tags value that is not a list was reported twice.
TEST_CASE("a tags value that is not a list is one error", "[load][refusals][bug]") {
  const std::string head = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
roles: [r1]
classifications: [{name: PII, clearance: [{type: role, name: r1}]}]
objects:
)";
  CHECK(must_fail(head + "  - {name: c.s.t, columns: [{name: e, tags: PII}]}\n") ==
        Names{"objects[0].columns[0].tags: must be a list, found a string"});
  CHECK(must_fail(head + "  - {name: c.s.t, tags: PII}\n") == Names{"objects[0].tags: must be a list, found a string"});
  CHECK(must_fail(head + "  - {name: c.s.t, tags: {PII: true}}\n") ==
        Names{"objects[0].tags: must be a list, found a mapping"});
}

TEST_CASE("grants: one principal, at least one privilege, each once", "[load][refusals]") {
  CHECK(errors_of("grants: [{principal: {user: bob}, object: c.s.t, privileges: []}]\n") ==
        Names{"grants[0].privileges: must name at least one privilege"});
  CHECK(errors_of("grants: [{principal: {user: bob}, object: c.s.t}]\n") ==
        Names{"grants[0].privileges: is required (a list)"});
  CHECK(errors_of("grants: [{principal: {user: bob}, object: c.s.t, privileges: [SELECT, SELECT]}]\n") ==
        Names{"grants[0].privileges[1]: duplicate privilege SELECT"});
  CHECK(errors_of("grants: [{principal: {}, object: c.s.t, privileges: [SELECT]}]\n") ==
        Names{"grants[0].principal: names neither a role nor a user"});
  CHECK(errors_of("grants: [{principal: {user: bob, role: r1}, object: c.s.t, privileges: [SELECT]}]\n") ==
        Names{"grants[0].principal: names both a role and a user: a grant has exactly one principal"});
  CHECK(errors_of("grants: [{principal: {user: bob}, privileges: [SELECT]}]\n") ==
        Names{"grants[0].object: is required (a string)"});
  // An exact object name is matched as written: C.S.T is not the listed c.s.t; the error says which is.
  CHECK(
      errors_of("grants: [{principal: {user: bob}, object: C.S.T, privileges: [SELECT]}]\n") ==
      Names{
          R"(grants[0].object: unknown object "C.S.T" (the snapshot lists "c.s.t": a reference names an object exactly as it is listed))"});
}

TEST_CASE("depends_on names each listed object once, exactly as listed", "[load][refusals]") {
  CHECK(errors_of("  - {name: c.s.v, kind: view, depends_on: [c.s.t, c.s.t]}\n") ==
        Names{R"(objects[1].depends_on[1]: duplicate dependency "c.s.t")"});
  // A dependency spelled in another case would otherwise inherit nothing: refused, not folded.
  CHECK(
      errors_of("  - {name: c.s.v, kind: view, depends_on: [C.S.T]}\n") ==
      Names{
          R"(objects[1].depends_on[0]: unknown object "C.S.T" (the snapshot lists "c.s.t": a reference names an object exactly as it is listed))"});
  CHECK(errors_of("  - {name: c.s.v, kind: view, depends_on: c.s.t}\n") ==
        Names{"objects[1].depends_on: must be a list, found a string"});
}

TEST_CASE("users, groups, domains and levels are checked where they stand", "[load][refusals]") {
  CHECK(errors_of("  - {name: c.s.u, domain: \"a//b\"}\n") ==
        Names{"objects[1].domain: domain part must not be empty"});
  CHECK(errors_of("  - {name: c.s.u, domain: \"a/\"}\n") == Names{"objects[1].domain: domain part must not be empty"});
  CHECK(errors_of("  - {name: c.s.u, owner: Alice}\n") == Names{R"(objects[1].owner: unknown user "Alice")"});
  const std::string head = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
)";
  CHECK(must_fail(head + "users: [{name: bob, groups: [g1, g1]}]\n") ==
        Names{R"(users[0].groups[1]: duplicate group "g1")"});
  CHECK(must_fail(head + "users: [{name: bob, engine_user: \"\"}]\n") ==
        Names{"users[0].engine_user: engine user name must not be empty"});
  CHECK(must_fail(head + "users: [{name: bob, platform_admin: \"yes\"}]\n") ==
        Names{"users[0].platform_admin: must be true or false, found a string"});
  CHECK(must_fail(head + "users: [{name: bob}, ~]\n") == Names{"users[1]: must be a mapping, found null"});
  CHECK(must_fail(head + "roles: [r1, ~]\n") == Names{"roles[1]: must be a string, found null"});
  CHECK(must_fail(head + "roles: [r1, \"\"]\n") == Names{"roles[1]: role must not be empty"});
  CHECK(must_fail(head + "classifications: [{name: A, level: -1}]\n") ==
        Names{"classifications[0].level: level must be between 0 and 1000"});
  CHECK(must_fail(head + "classifications: [{name: A, level: \"3\"}]\n") ==
        Names{"classifications[0].level: must be an integer, found a string"});
}

// An explicit null reads as the key left out (JSON null, YAML `~` or an empty value), in every
// entry: docs/semantics.md says so. Pinned here because for these keys "left out" is the looser
// reading: no expiry, no clearance, no tags.
TEST_CASE("an explicit null is the key left out", "[load][refusals]") {
  auto s = must_parse(kHead + R"(  - {name: c.s.u, tags: ~, columns: ~}
role_assignments:
  - {role: r1, user: alice, expires_at: ~}
  - role: r2
    user: bob
    expires_at:
)");
  CHECK_FALSE(s->role_assignments[0].expires_at.has_value());
  CHECK_FALSE(s->role_assignments[1].expires_at.has_value());
  CHECK(s->objects[1].tags.empty());
  CHECK(s->objects[1].columns.empty());
  auto c = must_parse(R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
classifications: [{name: PII, clearance: ~}]
)");
  CHECK(c->classifications[0].clearance.empty());
}

// "Every name that is referenced must exist": the names an access policy refers to as well.
TEST_CASE("an access policy's roles, users, tags and objects must exist, exactly as written", "[load][refusals]") {
  CHECK(errors_of("policies:\n  - {name: p, type: column_mask, mask: full, scope: {tag: PII}, "
                  "applies_to: {roles: [nope]}}\n") ==
        Names{R"(policies[0].applies_to.roles[0]: unknown role "nope")"});
  CHECK(errors_of("policies:\n  - {name: p, type: column_mask, mask: full, scope: {tag: PII}, "
                  "applies_to: {users: [ghost]}}\n") ==
        Names{R"(policies[0].applies_to.users[0]: unknown user "ghost")"});
  CHECK(errors_of("policies:\n  - {name: p, type: column_mask, mask: full, scope: {tag: PII}, "
                  "exempt: {roles: [R1]}}\n") == Names{R"(policies[0].exempt.roles[0]: unknown role "R1")"});
  CHECK(errors_of("policies:\n  - {name: p, type: column_mask, mask: full, scope: {tag: PII}, "
                  "exempt: {users: [Alice]}}\n") == Names{R"(policies[0].exempt.users[0]: unknown user "Alice")"});
  CHECK(errors_of("policies:\n  - {name: p, type: column_mask, mask: full, scope: {tag: pii}}\n") ==
        Names{R"(policies[0].scope.tag: unknown classification "pii")"});
  CHECK(
      errors_of("policies:\n  - {name: p, type: deny, scope: {object: c.s.T}}\n") ==
      Names{
          R"(policies[0].scope.object: unknown object "c.s.T" (the snapshot lists "c.s.t": a reference names an object exactly as it is listed))"});
  CHECK(errors_of("policies:\n  - {name: p, type: column_mask, mask: full, scope: {tag: PII}, "
                  "applies_to: {groups: [g1]}}\n") ==
        Names{R"(policies[0].applies_to.groups: unknown key "groups" (expected one of: roles, users))"});
}
