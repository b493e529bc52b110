// MODEL.md section 1: loading and validating a snapshot.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/model/load.h"
#include "tagwarden/util/text.h"

using twtest::must_fail;
using twtest::must_parse;
using Names = std::vector<std::string>;

namespace {

const char* kValidJson = R"json({
  "version": 1,
  "generated_at": "2026-11-30T12:00:00Z",
  "users": [
    {"name": "farid.haddad", "engine_user": "farid", "platform_admin": false,
     "groups": ["finance-stewards"], "attributes": {"region": "EU", "level": 3, "tags": ["a", "b"]}},
    {"name": "jo"},
    {"name": "etl_svc", "platform_admin": true}
  ],
  "roles": ["data_steward", "analyst"],
  "role_assignments": [
    {"role": "data_steward", "user": "farid.haddad"},
    {"role": "data_steward", "user": "jo", "expires_at": "2026-12-01T00:00:00Z"},
    {"role": "data_steward", "group": "finance-stewards"}
  ],
  "classifications": [
    {"name": "Confidential", "level": 3,
     "clearance": [{"type": "role", "name": "data_steward"}, {"type": "group", "name": "auditors"}]},
    {"name": "PII"},
    {"name": "Public", "clearance": []}
  ],
  "objects": [
    {"name": "demo_warehouse.finance.raw", "kind": "table", "owner": "etl_svc",
     "columns": [{"name": "id", "type": "bigint"}]},
    {"name": "demo_warehouse.finance.invoices", "kind": "view", "owner": "etl_svc",
     "domain": "finance/payables", "view_security": "invoker",
     "depends_on": ["demo_warehouse.finance.raw"], "tags": ["Confidential"],
     "columns": [{"name": "id", "type": "bigint"}, {"name": "iban", "type": "varchar", "tags": ["PII"]}]},
    {"name": "demo_warehouse.finance.mv", "kind": "materialized_view",
     "depends_on": ["demo_warehouse.finance.invoices"], "columns": [{"name": "n"}]},
    {"name": "demo_warehouse.finance.plain_view", "kind": "view", "depends_on": ["demo_warehouse.finance.raw"]}
  ],
  "grants": [
    {"principal": {"role": "analyst"}, "object": "demo_warehouse.finance.*", "privileges": ["SELECT"]},
    {"principal": {"user": "jo"}, "object": "demo_warehouse.finance.raw",
     "privileges": ["SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"]},
    {"principal": {"user": "etl_svc"}, "object": "*.*.*", "privileges": ["OWNERSHIP"]}
  ],
  "policies": []
})json";

const char* kValidYaml = R"yaml(
version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - name: farid.haddad
    engine_user: farid
    platform_admin: false
    groups: [finance-stewards]
    attributes: {region: EU, level: 3, tags: [a, b]}
  - {name: jo}
  - {name: etl_svc, platform_admin: true}
roles: [data_steward, analyst]
role_assignments:
  - {role: data_steward, user: farid.haddad}
  - {role: data_steward, user: jo, expires_at: "2026-12-01T00:00:00Z"}
  - {role: data_steward, group: finance-stewards}
classifications:
  - name: Confidential
    level: 3
    clearance:
      - {type: role, name: data_steward}
      - {type: group, name: auditors}
  - name: PII
  - name: Public
    clearance: []
objects:
  - name: demo_warehouse.finance.raw
    kind: table
    owner: etl_svc
    columns:
      - {name: id, type: bigint}
  - name: demo_warehouse.finance.invoices
    kind: view
    owner: etl_svc
    domain: finance/payables
    view_security: invoker
    depends_on: [demo_warehouse.finance.raw]
    tags: [Confidential]
    columns:
      - {name: id, type: bigint}
      - {name: iban, type: varchar, tags: [PII]}
  - name: demo_warehouse.finance.mv
    kind: materialized_view
    depends_on: [demo_warehouse.finance.invoices]
    columns: [{name: n}]
  - name: demo_warehouse.finance.plain_view
    kind: view
    depends_on: [demo_warehouse.finance.raw]
grants:
  - principal: {role: analyst}
    object: "demo_warehouse.finance.*"
    privileges: [SELECT]
  - principal: {user: jo}
    object: demo_warehouse.finance.raw
    privileges: [SELECT, INSERT, UPDATE, DELETE, OWNERSHIP]
  - principal: {user: etl_svc}
    object: "*.*.*"
    privileges: [OWNERSHIP]
policies: []
)yaml";

// A small valid snapshot; tests append or replace sections to make it invalid.
const std::string kHead = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: alice}
  - {name: bob}
roles: [r1, r2]
classifications:
  - {name: PII, clearance: [{type: role, name: r1}]}
  - {name: Internal}
)";

const std::string kObjects = R"(objects:
  - name: c.s.t
    columns:
      - {name: id}
      - {name: email, tags: [PII]}
)";

// The single error of an invalid snapshot.
std::string only_error(const std::string& text) {
  const Names errors = must_fail(text);
  INFO(Catch::Detail::stringify(errors));
  REQUIRE(errors.size() == 1);
  return errors[0];
}

}  // namespace

TEST_CASE("the valid example parses, in JSON and in YAML, to equal snapshots", "[load]") {
  auto json = must_parse(kValidJson);
  auto yaml = must_parse(kValidYaml);
  twtest::same_snapshot(*json, *yaml);

  const tw::Snapshot& s = *json;
  CHECK(s.version == 1);
  CHECK(s.generated_at.seconds == 1796040000);
  REQUIRE(s.users.size() == 3);
  CHECK(s.users[0].name == "farid.haddad");
  CHECK(s.users[0].engine_user == std::optional<std::string>("farid"));
  CHECK(s.users[0].groups == Names{"finance-stewards"});
  CHECK(s.users[0].attributes == nlohmann::json{{"region", "EU"}, {"level", 3}, {"tags", {"a", "b"}}});
  CHECK(s.users[2].platform_admin);
  CHECK_FALSE(s.users[1].engine_user.has_value());
  CHECK(s.roles == Names{"data_steward", "analyst"});
  REQUIRE(s.role_assignments.size() == 3);
  CHECK(s.role_assignments[1].expires_at == std::optional<tw::Timestamp>(tw::Timestamp{1796083200}));
  CHECK(s.role_assignments[2].group == std::optional<std::string>("finance-stewards"));
  CHECK_FALSE(s.role_assignments[2].user.has_value());
  REQUIRE(s.classifications.size() == 3);
  CHECK(s.classifications[0].level == std::optional<int>(3));
  REQUIRE(s.classifications[0].clearance.size() == 2);
  CHECK(s.classifications[0].clearance[0].type == tw::ClearanceRow::Type::Role);
  CHECK(s.classifications[0].clearance[1].type == tw::ClearanceRow::Type::Group);
  CHECK(s.classifications[0].clearance[1].name == "auditors");
  CHECK(s.classifications[1].clearance.empty());
  REQUIRE(s.objects.size() == 4);
  CHECK(s.objects[0].kind == tw::ObjectKind::Table);
  CHECK_FALSE(s.objects[0].view_security.has_value());
  CHECK(s.objects[1].kind == tw::ObjectKind::View);
  CHECK(s.objects[1].name.catalog == "demo_warehouse");
  CHECK(s.objects[1].name.schema == "finance");
  CHECK(s.objects[1].name.table == "invoices");
  CHECK(s.objects[1].view_security == std::optional<tw::ViewSecurity>(tw::ViewSecurity::Invoker));
  CHECK(s.objects[1].domain == std::optional<std::string>("finance/payables"));
  CHECK(s.objects[1].depends_on == Names{"demo_warehouse.finance.raw"});
  CHECK(s.objects[1].tags == Names{"Confidential"});
  REQUIRE(s.objects[1].columns.size() == 2);
  CHECK(s.objects[1].columns[1].tags == Names{"PII"});
  CHECK(s.objects[2].kind == tw::ObjectKind::MaterializedView);
  CHECK(s.objects[2].columns[0].type == "varchar");  // the documented default type
  CHECK(s.objects[3].view_security == std::optional<tw::ViewSecurity>(tw::ViewSecurity::Definer));  // engines' default
  REQUIRE(s.grants.size() == 3);
  CHECK(s.grants[0].principal.kind == tw::Principal::Kind::Role);
  CHECK(s.grants[0].object.str() == "demo_warehouse.finance.*");
  CHECK(s.grants[0].privileges.names() == Names{"SELECT"});
  CHECK(s.grants[1].principal.kind == tw::Principal::Kind::User);
  CHECK(s.grants[1].privileges.names() == Names{"SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"});
  CHECK(s.grants[2].object.str() == "*.*.*");
  CHECK(s.policies.empty());
}

TEST_CASE("the head used by the error tests is itself valid", "[load]") {
  auto s = must_parse(kHead + kObjects);
  CHECK(s->objects.size() == 1);
}

TEST_CASE("an unknown classification names the exact path", "[load]") {
  const std::string text = kHead + R"(objects:
  - name: c.s.t
    columns:
      - {name: id}
      - {name: email, tags: [PIII]}
)";
  CHECK(only_error(text) == R"(objects[0].columns[1].tags[0]: unknown classification "PIII")");

  const std::string on_object = kHead + R"(objects:
  - {name: c.s.t, tags: [Internal, Secret]}
)";
  CHECK(only_error(on_object) == R"(objects[0].tags[1]: unknown classification "Secret")");
}

TEST_CASE("unknown keys are errors, at the top level and inside entries", "[load]") {
  CHECK(
      only_error(kHead + kObjects + "extra: 1\n") ==
      R"(extra: unknown key "extra" (expected one of: version, generated_at, users, roles, role_assignments, classifications, objects, grants, policies))");

  const std::string in_user = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: alice, admin: true}
)";
  CHECK(
      only_error(in_user) ==
      R"(users[0].admin: unknown key "admin" (expected one of: name, engine_user, platform_admin, groups, attributes))");

  const std::string in_column = kHead + R"(objects:
  - name: c.s.t
    columns:
      - {name: id, tag: [PII]}
)";
  CHECK(only_error(in_column) == R"(objects[0].columns[0].tag: unknown key "tag" (expected one of: name, type, tags))");

  const std::string in_clearance = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
roles: [r1]
classifications:
  - {name: PII, clearance: [{type: role, name: r1, expires: never}]}
)";
  CHECK(only_error(in_clearance) ==
        R"(classifications[0].clearance[0].expires: unknown key "expires" (expected one of: type, name))");

  const std::string in_principal = kHead + kObjects + R"(grants:
  - {principal: {role: r1, group: g}, object: c.s.t, privileges: [SELECT]}
)";
  CHECK(only_error(in_principal) == R"(grants[0].principal.group: unknown key "group" (expected one of: role, user))");
}

TEST_CASE("duplicate users, roles, tags, objects and columns are errors naming the entry", "[load]") {
  SECTION("user") {
    const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: alice}, {name: bob}, {name: alice}]
)";
    CHECK(only_error(text) == R"(users[2].name: duplicate user "alice")");
  }
  SECTION("role") {
    const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
roles: [r1, r2, r1]
)";
    CHECK(only_error(text) == R"(roles[2]: duplicate role "r1")");
  }
  SECTION("classification") {
    const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
classifications: [{name: PII}, {name: PII}]
)";
    CHECK(only_error(text) == R"(classifications[1].name: duplicate classification "PII")");
  }
  SECTION("object, exact") {
    const std::string text = kHead + R"(objects:
  - {name: c.s.t}
  - {name: c.s.t}
)";
    CHECK(
        only_error(text) ==
        R"(objects[1].name: duplicate object "c.s.t" (object names are compared case-insensitively: Trino lowercases them))");
  }
  SECTION("object, differing only in ASCII case") {
    const std::string text = kHead + R"(objects:
  - {name: c.s.orders}
  - {name: C.S.Orders}
)";
    CHECK(
        only_error(text) ==
        R"(objects[1].name: duplicate object "C.S.Orders" (object names are compared case-insensitively: Trino lowercases them))");
  }
  SECTION("column, exact and differing only in case") {
    const std::string text = kHead + R"(objects:
  - name: c.s.t
    columns: [{name: id}, {name: email}, {name: id}, {name: EMAIL}]
)";
    const Names errors = must_fail(text);
    CHECK(errors == Names{R"(objects[0].columns[2].name: duplicate column "id" (compared case-insensitively))",
                          R"(objects[0].columns[3].name: duplicate column "EMAIL" (compared case-insensitively))"});
  }
  SECTION("role assignment") {
    const std::string text = kHead + R"(role_assignments:
  - {role: r1, user: alice}
  - {role: r1, user: alice}
)";
    CHECK(only_error(text) == R"(role_assignments[1]: duplicate assignment of role "r1" to user "alice")");
  }
}

// Trino lowercases identifiers with Unicode case folding (lowercase_identifier),
// so two objects whose names differ only in the case of a non-ASCII letter are
// one engine object: the snapshot must be refused like the ASCII case.
TEST_CASE("duplicate object and column names differing only in non-ASCII case are refused", "[load][bug]") {
  REQUIRE(tw::lowercase_identifier("\xC3\x89TABLE") == "\xC3\xA9table");  // ÉTABLE -> étable
  SECTION("object") {
    const std::string text = kHead + "objects:\n  - {name: c.s.\xC3\xA9t}\n  - {name: c.s.\xC3\x89t}\n";
    const Names errors = must_fail(text);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind("objects[1].name: duplicate object", 0) == 0);
  }
  SECTION("column") {
    const std::string text = kHead + "objects:\n  - name: c.s.t\n    columns: [{name: \xC3\xA9t}, {name: \xC3\x89t}]\n";
    const Names errors = must_fail(text);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind("objects[0].columns[1].name: duplicate column", 0) == 0);
  }
}

TEST_CASE("a duplicate YAML key is refused, naming its path", "[load]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: alice, name: bob}
)";
  CHECK(only_error(text) == R"(users[0].name: duplicate key "name")");

  const std::string top = R"(version: 1
version: 1
generated_at: "2026-11-30T12:00:00Z"
)";
  CHECK(only_error(top) == R"(version: duplicate key "version")");
}

TEST_CASE("a duplicate JSON key is refused", "[load]") {
  const std::string text = R"({"version": 1, "generated_at": "2026-11-30T12:00:00Z",
    "users": [{"name": "alice", "platform_admin": false, "platform_admin": true}]})";
  const Names errors = must_fail(text);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::Contains(R"(duplicate key "platform_admin")"));
}

// MODEL.md §1: "An error names the path of the offending entry". The YAML
// reader does (users[0].platform_admin: duplicate key ...); the JSON reader
// reports only `duplicate key "platform_admin" in a JSON object`.
TEST_CASE("a duplicate JSON key names the path of the offending entry", "[load][bug]") {
  const std::string text = R"({"version": 1, "generated_at": "2026-11-30T12:00:00Z",
    "users": [{"name": "alice", "platform_admin": false, "platform_admin": true}]})";
  const Names errors = must_fail(text);
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::Contains("users[0].platform_admin"));
}

TEST_CASE("unknown roles in assignments, clearances and grants", "[load]") {
  CHECK(only_error(kHead + "role_assignments: [{role: nope, user: alice}]\n") ==
        R"(role_assignments[0].role: unknown role "nope")");
  const std::string clearance = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
roles: [r1]
classifications:
  - {name: PII, clearance: [{type: role, name: r1}, {type: role, name: nope}]}
)";
  CHECK(only_error(clearance) == R"(classifications[0].clearance[1].name: unknown role "nope")");
  CHECK(only_error(kHead + kObjects + "grants: [{principal: {role: nope}, object: c.s.t, privileges: [SELECT]}]\n") ==
        R"(grants[0].principal.role: unknown role "nope")");
}

TEST_CASE("unknown users in assignments, grants and owners", "[load]") {
  CHECK(only_error(kHead + "role_assignments: [{role: r1, user: ghost}]\n") ==
        R"(role_assignments[0].user: unknown user "ghost")");
  CHECK(only_error(kHead + kObjects + "grants: [{principal: {user: ghost}, object: c.s.t, privileges: [SELECT]}]\n") ==
        R"(grants[0].principal.user: unknown user "ghost")");
  CHECK(only_error(kHead + "objects: [{name: c.s.t, owner: ghost}]\n") == R"(objects[0].owner: unknown user "ghost")");
}

TEST_CASE("a bad privilege names the privilege entry", "[load]") {
  CHECK(
      only_error(kHead + kObjects + "grants: [{principal: {role: r1}, object: c.s.t, privileges: [SELECT, READ]}]\n") ==
      R"(grants[0].privileges[1]: unknown privilege "READ" (expected SELECT, INSERT, UPDATE, DELETE or OWNERSHIP))");
  CHECK(
      only_error(kHead + kObjects + "grants: [{principal: {role: r1}, object: c.s.t, privileges: [select]}]\n") ==
      R"(grants[0].privileges[0]: unknown privilege "select" (expected SELECT, INSERT, UPDATE, DELETE or OWNERSHIP))");
}

TEST_CASE("a grant on an exact unknown object is an error, a wildcard is not", "[load]") {
  CHECK(
      only_error(kHead + kObjects + "grants: [{principal: {role: r1}, object: c.s.nope, privileges: [SELECT]}]\n") ==
      R"(grants[0].object: unknown object "c.s.nope" (use * in a part to grant on names the snapshot does not list))");
  auto s = must_parse(kHead + kObjects + R"(grants:
  - {principal: {role: r1}, object: "c.s.*", privileges: [SELECT]}
  - {principal: {role: r1}, object: "other.*.*", privileges: [SELECT]}
  - {principal: {user: bob}, object: "*.*.nope", privileges: [INSERT]}
)");
  REQUIRE(s->grants.size() == 3);
  CHECK(s->grants[2].object.table == "nope");
}

TEST_CASE("object names must have three parts and no '*'", "[load]") {
  CHECK(only_error(kHead + "objects: [{name: c.t}]\n") ==
        R"(objects[0].name: object name "c.t" must have three parts: catalog.schema.object)");
  CHECK(only_error(kHead + "objects: [{name: a.b.c.d}]\n") ==
        R"(objects[0].name: object name "a.b.c.d" must have three parts: catalog.schema.object)");
  CHECK(only_error(kHead + "objects: [{name: \"c.s.*\"}]\n") ==
        R"(objects[0].name: object name "c.s.*": '*' is reserved for grant patterns)");
  CHECK(only_error(kHead + kObjects + "grants: [{principal: {role: r1}, object: c.s, privileges: [SELECT]}]\n") ==
        R"(grants[0].object: object name "c.s" must have three parts: catalog.schema.object)");
  CHECK(
      only_error(kHead + kObjects + "grants: [{principal: {role: r1}, object: \"c.s.t*\", privileges: [SELECT]}]\n") ==
      R"(grants[0].object: object name "c.s.t*": '*' must stand alone as a whole part)");
  const Names empty_part = must_fail(kHead + "objects: [{name: c..t}]\n");
  REQUIRE(empty_part.size() == 1);
  CHECK(empty_part[0] == "objects[0].name: object name part must not be empty");
}

TEST_CASE("dependencies: cycles, unknown objects, self-reference", "[load]") {
  const std::string cycle = kHead + R"(objects:
  - {name: c.s.a, kind: view, depends_on: [c.s.b]}
  - {name: c.s.b, kind: view, depends_on: [c.s.a]}
)";
  CHECK(only_error(cycle) == "objects[1].depends_on[0]: dependency cycle: c.s.a -> c.s.b -> c.s.a");

  const std::string three = kHead + R"(objects:
  - {name: c.s.t}
  - {name: c.s.a, kind: view, depends_on: [c.s.t, c.s.c]}
  - {name: c.s.b, kind: materialized_view, depends_on: [c.s.a]}
  - {name: c.s.c, kind: view, depends_on: [c.s.b]}
)";
  CHECK(only_error(three) == "objects[2].depends_on[0]: dependency cycle: c.s.a -> c.s.c -> c.s.b -> c.s.a");

  CHECK(only_error(kHead + "objects: [{name: c.s.v, kind: view, depends_on: [c.s.nope]}]\n") ==
        R"(objects[0].depends_on[0]: unknown object "c.s.nope")");
  CHECK(only_error(kHead + "objects: [{name: c.s.v, kind: view, depends_on: [c.s.v]}]\n") ==
        "objects[0].depends_on[0]: an object cannot depend on itself");
}

TEST_CASE("depends_on and view_security on a table are errors", "[load]") {
  CHECK(only_error(kHead + "objects: [{name: c.s.t}, {name: c.s.u, kind: table, depends_on: [c.s.t]}]\n") ==
        "objects[1].depends_on: only views and materialized views have depends_on");
  CHECK(only_error(kHead + "objects: [{name: c.s.t, view_security: definer}]\n") ==
        "objects[0].view_security: only views have view_security");
  CHECK(only_error(kHead + "objects: [{name: c.s.v, kind: view, view_security: owner}]\n") ==
        R"(objects[0].view_security: unknown view_security "owner" (expected definer or invoker))");
  CHECK(only_error(kHead + "objects: [{name: c.s.t, kind: index}]\n") ==
        R"(objects[0].kind: unknown kind "index" (expected table, view or materialized_view))");
}

TEST_CASE("a control character in a name is an error naming the entry", "[load]") {
  const std::string json = R"({"version": 1, "generated_at": "2026-11-30T12:00:00Z",
    "users": [{"name": "alice"}, {"name": "bo\u0007b"}]})";
  const Names errors = must_fail(json);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] ==
        R"(users[1].name: user name "bo\u0007b" contains a control character, which engines cannot quote)");

  const std::string yaml = kHead + "objects:\n  - name: \"c.s.t\\nx\"\n";
  CHECK(only_error(yaml) ==
        R"(objects[0].name: object name part "t\nx" contains a control character, which engines cannot quote)");

  const std::string column = kHead + "objects:\n  - name: c.s.t\n    columns: [{name: \"a\\u0085b\"}]\n";
  CHECK(only_error(column) ==
        "objects[0].columns[0].name: column name \"a\xC2\x85"
        "b\" contains a control character, which engines cannot quote");
}

TEST_CASE("invalid UTF-8 is refused", "[load]") {
  SECTION("YAML: the error names the entry") {
    const std::string yaml = "version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\"\nusers:\n  - {name: al\xFFice}\n";
    CHECK(only_error(yaml) == "users[0].name: is not valid UTF-8 (byte 0xFF at offset 2); save the file as UTF-8");
  }
  SECTION("YAML: an overlong encoding") {
    const std::string yaml = "version: 1\ngenerated_at: \"2026-11-30T12:00:00Z\"\nroles: [\"r\xC0\xAF\"]\n";
    CHECK(only_error(yaml) == "roles[0]: is not valid UTF-8 (byte 0xC0 at offset 1); save the file as UTF-8");
  }
  SECTION("JSON: the document is refused") {
    const std::string json = "{\"version\": 1, \"generated_at\": \"2026-11-30T12:00:00Z\", \"roles\": [\"r\xFF\"]}";
    const Names errors = must_fail(json);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind("invalid JSON: ", 0) == 0);
  }
}

TEST_CASE("bad timestamps are refused with their path", "[load]") {
  const std::string no_zone = R"(version: 1
generated_at: "2026-11-30T12:00:00"
)";
  CHECK(only_error(no_zone) == R"(generated_at: not an RFC 3339 time with a zone: "2026-11-30T12:00:00")");
  const std::string feb30 = kHead + R"(role_assignments:
  - {role: r1, user: alice, expires_at: "2026-02-30T00:00:00Z"}
)";
  CHECK(only_error(feb30) ==
        R"(role_assignments[0].expires_at: not an RFC 3339 time with a zone: "2026-02-30T00:00:00Z")");
  const std::string missing = "version: 1\n";
  CHECK(only_error(missing) == "generated_at: is required (a string)");
}

TEST_CASE("every error is reported at once, in document order", "[load]") {
  const std::string text = kHead + R"(role_assignments:
  - {role: nope, user: alice}
objects:
  - name: c.s.t
    columns:
      - {name: id}
      - {name: email, tags: [PIII]}
grants:
  - {principal: {role: r1}, object: c.s.t, privileges: [READ]}
)";
  tw::SnapshotLoad r = tw::parse_snapshot(text);
  CHECK_FALSE(r.snapshot.has_value());
  CHECK(
      twtest::error_strings(r.errors) ==
      Names{
          R"(role_assignments[0].role: unknown role "nope")",
          R"(objects[0].columns[1].tags[0]: unknown classification "PIII")",
          R"(grants[0].privileges[0]: unknown privilege "READ" (expected SELECT, INSERT, UPDATE, DELETE or OWNERSHIP))"});
  REQUIRE(r.errors.size() == 3);
  CHECK(r.errors[1].path == "objects[0].columns[1].tags[0]");
  CHECK(r.errors[1].message == R"(unknown classification "PIII")");
}

// MODEL.md §4 policies were refused by the loader while no stage compiled them
// ("refused rather than enforced without them"). Since 3f222eb the loader
// validates and accepts them; whatever stage compiles them, a policy must never
// be silently ignored: a deny policy either refuses the snapshot, fails the
// profile, or takes the access away ("deny wins").
TEST_CASE("a non-empty policies list is never silently ignored", "[load][policies]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: alice}]
objects:
  - {name: c.s.t, columns: [{name: id}]}
grants:
  - {principal: {user: alice}, object: c.s.t, privileges: [SELECT]}
policies:
  - {name: deny_t, type: deny, scope: {object: c.s.t}}
)";
  tw::SnapshotLoad r = tw::parse_snapshot(text);
  if (!r.snapshot) {
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].path == "policies[0]");
    return;
  }
  auto m = tw::build_model(std::make_shared<const tw::Snapshot>(std::move(*r.snapshot)), std::nullopt);
  tw::ProfileCompile pc = tw::compile_profile(*m, twtest::trino_profile({"c"}));
  if (!pc.policy_set) {
    CHECK_FALSE(pc.errors.empty());
    return;
  }
  const tw::ObjectPolicy& op = twtest::object(*pc.policy_set, "c.s.t");
  INFO(
      "the deny policy was accepted and compiled, but alice keeps: " << Catch::Detail::stringify(twtest::privs(op, 0)));
  const tw::AccessClass* ua = twtest::find_access(op, 0);
  const bool alice_selects = ua != nullptr && ua->access.privileges.has(tw::Privilege::Select);
  CHECK_FALSE(alice_selects);
}

TEST_CASE("an empty policies list is accepted", "[load]") {
  auto empty = must_parse(kHead + kObjects + "policies: []\n");
  CHECK(empty->policies.empty());
}

TEST_CASE("only version 1 is read", "[load]") {
  CHECK(only_error("version: 2\ngenerated_at: \"2026-11-30T12:00:00Z\"\n") ==
        "version: unsupported version 2 (this build reads version 1)");
  CHECK(only_error("generated_at: \"2026-11-30T12:00:00Z\"\n") == "version: is required (1)");
  CHECK(only_error("version: \"1\"\ngenerated_at: \"2026-11-30T12:00:00Z\"\n") ==
        "version: must be an integer, found a string");
}

TEST_CASE("load_snapshot_file reports an unreadable file as one error", "[load]") {
  tw::SnapshotLoad r = tw::load_snapshot_file("/nonexistent/dir/snapshot.yaml");
  CHECK_FALSE(r.snapshot.has_value());
  REQUIRE(r.errors.size() == 1);
  CHECK_THAT(r.errors[0].str(), Catch::Contains("/nonexistent/dir/snapshot.yaml"));
}

TEST_CASE("the demo snapshot loads", "[load]") {
  tw::SnapshotLoad r = tw::load_snapshot_file(TAGWARDEN_SOURCE_DIR "/examples/demo/snapshot.yaml");
  INFO(twtest::join_errors(r.errors));
  REQUIRE(r.errors.empty());
  CHECK(r.snapshot->users.size() == 7);
  CHECK(r.snapshot->objects.size() == 5);
}

TEST_CASE("a policy's domain is checked as an object's is, and must be carried by some object", "[load][policies]") {
  const std::string head = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: alice}]
objects:
  - {name: c.s.t, domain: finance/payables, columns: [{name: id}]}
grants:
  - {principal: {user: alice}, object: c.s.t, privileges: [SELECT]}
policies:
)";
  for (const char* domain : {"finance", "finance/payables"}) {
    INFO(domain);
    must_parse(head + "  - {name: d, type: deny, scope: {domain: \"" + domain + "\"}}\n");
  }
  SECTION("a malformed domain names the scope") {
    for (const char* domain : {"finance/", "/finance", "finance//payables"}) {
      INFO(domain);
      const auto errors = must_fail(head + "  - {name: d, type: deny, scope: {domain: \"" + domain + "\"}}\n");
      REQUIRE(errors.size() == 1);
      CHECK_THAT(errors[0], Catch::StartsWith("policies[0].scope.domain: ") && Catch::Contains("domain part"));
    }
  }
  SECTION("a domain no object carries would deny nothing: refused") {
    for (const char* domain : {"fin", "payables", "finance/pay", "Finance"}) {
      INFO(domain);
      const auto errors = must_fail(head + "  - {name: d, type: deny, scope: {domain: \"" + domain + "\"}}\n");
      REQUIRE(errors.size() == 1);
      CHECK_THAT(errors[0], Catch::StartsWith("policies[0].scope.domain: unknown domain"));
    }
  }
}

TEST_CASE("a policy's level_at_least is a level: 0 to 1000", "[load][policies][bug]") {
  // It was cast to int unchecked: 4294967299 read as 3, -4294967295 as 1 (a policy meant
  // for every level skipped level 0), 2147483648 as INT_MIN.
  const std::string head = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
classifications: [{name: A, level: 0}, {name: B, level: 3}]
policies:
)";
  for (const char* level : {"0", "3", "1000"}) {
    INFO(level);
    auto s = must_parse(head + "  - {name: d, type: deny, scope: {level_at_least: " + level + "}}\n");
    CHECK(s->policies[0].scope.level == std::stoi(level));
  }
  for (const char* level : {"-1", "1001", "4294967299", "-4294967295", "2147483648", "18446744073709551615"}) {
    INFO(level);
    CHECK(must_fail(head + "  - {name: d, type: deny, scope: {level_at_least: " + level + "}}\n") ==
          Names{"policies[0].scope.level_at_least: must be between 0 and 1000, as levels are"});
  }
}

TEST_CASE("column types are read in any case, the time zone suffix included", "[load]") {
  const auto s =
      must_parse(kHead +
                 "objects: [{name: c.s.t, columns: [{name: a, type: \"TIMESTAMP(3) WITH TIME ZONE\"},"
                 " {name: b, type: \"Time Without Time Zone\"}, {name: c, type: \"timestamp(6) with time zone\"}]}]\n");
  CHECK(s->objects[0].columns[0].type == "TIMESTAMP(3) WITH TIME ZONE");
  CHECK(
      only_error(kHead + "objects: [{name: c.s.t, columns: [{name: a, type: \"TIMESTAMP WITH ZONE\"}]}]\n") ==
      R"(objects[0].columns[0].type: column type "TIMESTAMP WITH ZONE" is not a type name (e.g. varchar, decimal(10,2)))");
}
