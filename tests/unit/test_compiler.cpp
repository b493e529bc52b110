// MODEL.md section 2 (clearances) and the Trino parts of section 3, through
// build_model + compile_profile + PolicySet.

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/compiler.h"
#include "tagwarden/compile/model.h"
#include "tagwarden/compile/policy_set.h"

using namespace twtest;

namespace {

// One user per clearance situation. reader gives SELECT on every c object.
const std::string kSnapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: steward}                         # r_steward directly
  - {name: alt}                             # r_alt directly: the other row of Confidential
  - {name: pii}                             # r_pii directly
  - {name: both}                            # r_steward and r_pii directly
  - {name: none}                            # no clearance role
  - {name: grouped, groups: [stewards]}     # r_steward only through a group
  - {name: expired}                         # r_steward expired exactly at generated_at
  - {name: later}                           # r_steward expiring after generated_at
  - {name: admin, platform_admin: true}     # no clearance role
  - {name: auditor, groups: [auditors]}     # member of the group a clearance row names
  - {name: nogrant}                         # cleared for everything, no grant at all
  - {name: writer}                          # user grant of every privilege on c.s.*, not cleared
  - {name: writer2}                         # r_writer directly
  - {name: grouped_writer, groups: [writers]}   # r_writer through a group
  - {name: expired_writer}                  # r_writer expired
  - {name: etl}                             # cleared for everything, every privilege on c.*.*
roles: [reader, r_steward, r_alt, r_pii, r_writer]
role_assignments:
  - {role: reader, user: steward}
  - {role: reader, user: alt}
  - {role: reader, user: pii}
  - {role: reader, user: both}
  - {role: reader, user: none}
  - {role: reader, user: grouped}
  - {role: reader, user: expired}
  - {role: reader, user: later}
  - {role: reader, user: admin}
  - {role: reader, user: auditor}
  - {role: r_steward, user: steward}
  - {role: r_alt, user: alt}
  - {role: r_pii, user: pii}
  - {role: r_steward, user: both}
  - {role: r_pii, user: both}
  - {role: r_steward, group: stewards}
  - {role: r_steward, user: expired, expires_at: "2026-11-30T12:00:00Z"}
  - {role: r_steward, user: later, expires_at: "2026-12-01T00:00:00Z"}
  - {role: r_steward, user: nogrant}
  - {role: r_pii, user: nogrant}
  - {role: r_writer, user: writer2}
  - {role: r_writer, group: writers}
  - {role: r_writer, user: expired_writer, expires_at: "2026-11-01T00:00:00Z"}
  - {role: r_steward, user: etl}
  - {role: r_pii, user: etl}
classifications:
  - name: Confidential
    clearance:
      - {type: role, name: r_steward}
      - {type: role, name: r_alt}
      - {type: group, name: auditors}
  - name: PII
    clearance: [{type: role, name: r_pii}]
  - name: AuditOnly
    clearance: [{type: group, name: auditors}]
  - name: Internal
  - name: Public
    clearance: []
objects:
  - name: c.s.conf
    tags: [Confidential]
    columns: [{name: id}, {name: amount}]
  - name: c.s.cust
    tags: [Internal]
    columns: [{name: id}, {name: name}, {name: iban, tags: [PII]}]
  - name: c.s.both
    tags: [Confidential, PII]
    columns: [{name: x}]
  - name: c.s.audit
    tags: [AuditOnly]
    columns: [{name: event}]
  - name: c.s.open
    tags: [Public]
    columns: [{name: id}]
  - name: c.v.conf_view
    kind: view
    owner: etl
    view_security: definer
    depends_on: [c.s.conf]
    columns: [{name: total}]
  - name: c.v.view_of_view
    kind: view
    view_security: invoker
    depends_on: [c.v.conf_view]
  - name: c.v.cust_view
    kind: view
    owner: none
    view_security: definer
    depends_on: [c.s.cust]
    columns: [{name: name}]
  - name: c.v.mv
    kind: materialized_view
    owner: none
    depends_on: [c.v.view_of_view, c.s.open]
  - name: c.v.invoker_view
    kind: view
    owner: none
    view_security: invoker
    depends_on: [c.s.conf]
  - name: other.s.t
    tags: [Confidential]
    columns: [{name: id}]
  - name: c.v.cross
    kind: view
    view_security: invoker
    depends_on: [other.s.t]
grants:
  - principal: {role: reader}
    object: "*.*.*"
    privileges: [SELECT]
  - principal: {role: r_writer}
    object: c.s.open
    privileges: [INSERT]
  - principal: {user: writer}
    object: "c.s.*"
    privileges: [SELECT, INSERT, UPDATE, DELETE, OWNERSHIP]
  - principal: {user: etl}
    object: "c.*.*"
    privileges: [SELECT, INSERT, UPDATE, DELETE, OWNERSHIP]
)";

const Names kAll{"SELECT", "INSERT", "UPDATE", "DELETE", "OWNERSHIP"};
const Names kSelect{"SELECT"};
const Names kNone{};

struct Fixture {
  std::shared_ptr<const tw::Model> m = model_of(kSnapshot);
  tw::Profile profile = trino_profile({"c"});
  std::size_t u(const std::string& name) const { return user_index(*m, name); }
};

const tw::Finding* find_finding(const std::vector<tw::Finding>& findings, const std::string& code) {
  for (const auto& f : findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

std::size_t count_findings(const std::vector<tw::Finding>& findings, const std::string& code) {
  std::size_t n = 0;
  for (const auto& f : findings) n += f.code == code;
  return n;
}

}  // namespace

TEST_CASE("the model: direct unexpired roles, engine gating, inherited tags", "[compiler][model]") {
  Fixture f;
  const tw::Model& m = *f.m;
  CHECK(m.now.seconds == 1796040000);
  CHECK(m.direct_roles[f.u("steward")] == std::set<std::string>{"reader", "r_steward"});
  CHECK(m.direct_roles[f.u("grouped")] == std::set<std::string>{"reader"});
  CHECK(m.direct_roles[f.u("expired")] == std::set<std::string>{"reader"});
  CHECK(m.direct_roles[f.u("later")] == std::set<std::string>{"reader", "r_steward"});
  CHECK(m.role_holders.at("r_writer") == std::vector<std::size_t>{f.u("writer2")});
  CHECK(m.is_engine_gated("Confidential"));
  CHECK(m.is_engine_gated("PII"));
  CHECK_FALSE(m.is_engine_gated("AuditOnly"));
  CHECK_FALSE(m.is_engine_gated("Internal"));
  CHECK_FALSE(m.is_engine_gated("Public"));
  CHECK(m.object_tags[m.object_index.at("c.v.mv")] == std::set<std::string>{"Confidential", "Public"});
  CHECK(m.object_tags[m.object_index.at("c.v.cust_view")] == std::set<std::string>{"Internal", "PII"});
  CHECK(m.next_expiry() == std::optional<tw::Timestamp>(tw::Timestamp{1796083200}));
}

TEST_CASE("a clearance is any-of its rows", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  const auto& conf = object(ps, "c.s.conf");
  CHECK(conf.object_gates == Names{"Confidential"});
  CHECK(conf.column_gates.empty());
  CHECK(privs(conf, f.u("steward")) == kSelect);
  CHECK(privs(conf, f.u("alt")) == kSelect);
  CHECK(privs(conf, f.u("both")) == kSelect);
  CHECK(privs(conf, f.u("pii")) == kNone);
  CHECK(f.m->is_cleared(f.u("alt"), "Confidential"));
  CHECK_FALSE(f.m->is_cleared(f.u("alt"), "PII"));
}

TEST_CASE("several gated tags on one object require clearance for each", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  const auto& both = object(ps, "c.s.both");
  CHECK(both.object_gates == Names{"Confidential", "PII"});
  CHECK(privs(both, f.u("steward")) == kNone);
  CHECK(privs(both, f.u("pii")) == kNone);
  CHECK(privs(both, f.u("both")) == kSelect);
  const tw::AccessClass* ua = find_access(both, f.u("steward"));
  REQUIRE(ua);
  CHECK(ua->reasons == Names{"SELECT withheld: not cleared for PII, which gates the whole object"});
  const tw::AccessClass* un = find_access(both, f.u("none"));
  REQUIRE(un);
  CHECK(un->reasons == Names{"SELECT withheld: not cleared for Confidential and PII, which gates the whole object"});
}

TEST_CASE("a column-level gate denies only that column and keeps SELECT", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  const auto& cust = object(ps, "c.s.cust");
  CHECK(cust.object_gates.empty());
  REQUIRE(cust.column_gates.size() == 1);
  CHECK(cust.column_gates[0].first == "iban");
  CHECK(cust.column_gates[0].second == Names{"PII"});
  CHECK(cust.columns.to_vector() == Names{"id", "name", "iban"});
  CHECK(privs(cust, f.u("none")) == kSelect);
  CHECK(denied_columns(cust, f.u("none")) == Names{"iban"});
  CHECK(privs(cust, f.u("steward")) == kSelect);
  CHECK(denied_columns(cust, f.u("steward")) == Names{"iban"});
  CHECK(privs(cust, f.u("pii")) == kSelect);
  CHECK(denied_columns(cust, f.u("pii")) == kNone);
  const tw::AccessClass* ua = find_access(cust, f.u("none"));
  REQUIRE(ua);
  CHECK(ua->reasons == Names{"columns iban withheld: not cleared for PII"});
}

TEST_CASE("a table-level gate removes SELECT", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  const auto& conf = object(ps, "c.s.conf");
  const tw::AccessClass* ua = find_access(conf, f.u("none"));
  REQUIRE(ua);
  CHECK(ua->granted.names() == kSelect);
  CHECK(ua->access.privileges.empty());
  CHECK(ua->access.denied_columns.empty());
  CHECK(ua->reasons == Names{"SELECT withheld: not cleared for Confidential, which gates the whole object"});
}

TEST_CASE("views and materialized views inherit their bases' tags, transitively", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  SECTION("a view of a gated table") {
    const auto& v = object(ps, "c.v.conf_view");
    CHECK(v.kind == tw::ObjectKind::View);
    CHECK(v.object_gates == Names{"Confidential"});
    CHECK(privs(v, f.u("none")) == kNone);
    CHECK(privs(v, f.u("steward")) == kSelect);
  }
  SECTION("a view of a view") {
    const auto& v = object(ps, "c.v.view_of_view");
    CHECK(v.object_gates == Names{"Confidential"});
    CHECK(privs(v, f.u("none")) == kNone);
    CHECK(privs(v, f.u("pii")) == kNone);
    CHECK(privs(v, f.u("alt")) == kSelect);
  }
  SECTION("a materialized view two levels above the gated table") {
    const auto& v = object(ps, "c.v.mv");
    CHECK(v.kind == tw::ObjectKind::MaterializedView);
    CHECK(v.object_gates == Names{"Confidential"});
    CHECK(privs(v, f.u("none")) == kNone);
    CHECK(privs(v, f.u("later")) == kSelect);
  }
  SECTION("a view of a base in a catalog the profile does not cover is still gated") {
    const auto& v = object(ps, "c.v.cross");
    CHECK(v.object_gates == Names{"Confidential"});
    CHECK(privs(v, f.u("none")) == kNone);
    CHECK(privs(v, f.u("steward")) == kSelect);
  }
  SECTION("a base COLUMN tag gates the whole view") {
    const auto& v = object(ps, "c.v.cust_view");
    CHECK(v.object_gates == Names{"PII"});
    CHECK(v.column_gates.empty());
    CHECK(privs(v, f.u("none")) == kNone);
    CHECK(denied_columns(v, f.u("none")) == kNone);
    CHECK(privs(v, f.u("pii")) == kSelect);
    const tw::AccessClass* ua = find_access(v, f.u("steward"));
    REQUIRE(ua);
    CHECK(ua->reasons == Names{"SELECT withheld: not cleared for PII, which gates the whole object"});
  }
}

TEST_CASE("only roles held directly and unexpired count", "[compiler]") {
  SECTION("at generated_at: expired exactly now is not cleared, expiring later is") {
    Fixture f;
    const tw::PolicySet ps = must_compile(*f.m, f.profile);
    const auto& conf = object(ps, "c.s.conf");
    CHECK(privs(conf, f.u("expired")) == kNone);
    CHECK(privs(conf, f.u("later")) == kSelect);
    CHECK_FALSE(f.m->is_cleared(f.u("expired"), "Confidential"));
    CHECK(f.m->is_cleared(f.u("later"), "Confidential"));
  }
  SECTION("a later now (--now) expires the later assignment exactly at its expiry") {
    auto m = model_of(kSnapshot, tw::Timestamp{1796083200});  // 2026-12-01T00:00:00Z
    const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
    CHECK(ps.generated_at.seconds == 1796083200);
    CHECK(privs(object(ps, "c.s.conf"), user_index(*m, "later")) == kNone);
    CHECK_FALSE(m->next_expiry().has_value());
  }
  SECTION("one second earlier, both are cleared") {
    auto m = model_of(kSnapshot, tw::Timestamp{1796040000 - 1});
    const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
    CHECK(privs(object(ps, "c.s.conf"), user_index(*m, "expired")) == kSelect);
    CHECK(privs(object(ps, "c.s.conf"), user_index(*m, "later")) == kSelect);
    CHECK(m->next_expiry() == std::optional<tw::Timestamp>(tw::Timestamp{1796040000}));
  }
}

TEST_CASE("a role held through a group does not clear, and group rows never count", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  const auto& conf = object(ps, "c.s.conf");
  CHECK(privs(conf, f.u("grouped")) == kNone);
  CHECK_FALSE(f.m->is_cleared(f.u("grouped"), "Confidential"));
  // auditor is in the group "auditors", which is a row of Confidential's clearance.
  CHECK(privs(conf, f.u("auditor")) == kNone);
  CHECK_FALSE(f.m->is_cleared(f.u("auditor"), "Confidential"));
}

TEST_CASE("a group-only clearance gates nothing and is reported", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  const auto& audit = object(ps, "c.s.audit");
  CHECK(audit.object_gates.empty());
  CHECK(audit.column_gates.empty());
  CHECK(privs(audit, f.u("none")) == kSelect);
  CHECK(privs(audit, f.u("auditor")) == kSelect);
  CHECK(ps.gated_tags == Names{"Confidential", "PII"});

  const std::vector<tw::Finding> findings = tw::snapshot_findings(*f.m);
  const tw::Finding* g = find_finding(findings, "clearance_groups_only");
  REQUIRE(g);
  CHECK(g->severity == tw::Severity::Warning);
  CHECK(g->message == "clearance on AuditOnly names only groups: not enforced in any engine");
  CHECK(g->subjects == Names{"AuditOnly"});
  CHECK(g->profile.empty());
  CHECK(count_findings(findings, "clearance_groups_only") == 1);
  const tw::Finding* mixed = find_finding(findings, "clearance_group_not_enforced");
  REQUIRE(mixed);
  CHECK(mixed->subjects == Names{"Confidential"});
}

TEST_CASE("views that list no depends_on are one warning: they carry only their own tags", "[compiler]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
classifications: [{name: Secret}]
objects:
  - {name: c.s.t, kind: table, tags: [Secret], columns: [{name: a}]}
  - {name: c.s.v_listed, kind: view, depends_on: [c.s.t], columns: [{name: a}]}
  - {name: c.s.v_bare, kind: view, columns: [{name: a}]}
  - {name: c.s.mv_bare, kind: materialized_view, columns: [{name: a}]}
)";
  auto m = model_of(text);
  const std::vector<tw::Finding> findings = tw::snapshot_findings(*m);
  CHECK(count_findings(findings, "views_without_dependencies") == 1);
  const tw::Finding* w = find_finding(findings, "views_without_dependencies");
  REQUIRE(w);
  CHECK(w->severity == tw::Severity::Warning);
  CHECK(w->subjects == Names{"c.s.v_bare", "c.s.mv_bare"});
  CHECK(w->message ==
        "2 views list no depends_on, so they carry only their own tags: a view over a gated object reads as ungated; "
        "list every object a view reads (c.s.v_bare and c.s.mv_bare)");
  Fixture f;
  CHECK(count_findings(tw::snapshot_findings(*f.m), "views_without_dependencies") == 0);
}

TEST_CASE("classifications without a clearance are one info finding", "[compiler]") {
  Fixture f;
  const std::vector<tw::Finding> findings = tw::snapshot_findings(*f.m);
  CHECK(count_findings(findings, "classifications_without_clearance") == 1);
  const tw::Finding* info = find_finding(findings, "classifications_without_clearance");
  REQUIRE(info);
  CHECK(info->severity == tw::Severity::Info);
  CHECK_THAT(info->message, Catch::StartsWith("2 classifications have no clearance: they gate nothing"));
  CHECK(info->message == "2 classifications have no clearance: they gate nothing (Internal and Public)");
  CHECK(info->subjects == Names{"Internal", "Public"});
  const tw::PolicySet ps = must_compile(*f.m, f.profile);  // keep it alive: `object` returns a reference into it
  const auto& open = object(ps, "c.s.open");
  CHECK(open.object_gates.empty());
  CHECK(privs(open, f.u("none")) == kSelect);
}

TEST_CASE("platform admins are not exempt", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  CHECK(f.m->user(f.u("admin")).platform_admin);
  CHECK(privs(object(ps, "c.s.conf"), f.u("admin")) == kNone);
  CHECK(denied_columns(object(ps, "c.s.cust"), f.u("admin")) == Names{"iban"});
  CHECK(std::count(ps.create_restricted.begin(), ps.create_restricted.end(), f.u("admin")) == 1);
}

TEST_CASE("a grant to a role reaches only its direct, unexpired holders", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  const auto& open = object(ps, "c.s.open");
  CHECK(granted(open, f.u("writer2")) == Names{"INSERT"});
  CHECK(privs(open, f.u("writer2")) == Names{"INSERT"});
  CHECK(find_access(open, f.u("grouped_writer")) == nullptr);
  CHECK(find_access(open, f.u("expired_writer")) == nullptr);
  CHECK(ps.unlisted_access(f.u("grouped_writer"), {"c", "s", "open"}).empty());
  // reader reaches its ten direct holders on every object, nobody else.
  std::vector<std::size_t> readers;
  for (const auto& cls : object(ps, "c.s.audit").classes)
    readers.insert(readers.end(), cls.users->begin(), cls.users->end());
  std::sort(readers.begin(), readers.end());
  CHECK(readers == std::vector<std::size_t>{f.u("steward"), f.u("alt"), f.u("pii"), f.u("both"), f.u("none"),
                                            f.u("grouped"), f.u("expired"), f.u("later"), f.u("admin"), f.u("auditor"),
                                            f.u("writer"), f.u("etl")});
}

TEST_CASE("no grant means no access, cleared or not", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  const std::size_t u = f.u("nogrant");
  CHECK(f.m->is_cleared(u, "Confidential"));
  CHECK(f.m->is_cleared(u, "PII"));
  for (const auto& op : ps.objects) {
    INFO(op.engine_name.str());
    CHECK(find_access(op, u) == nullptr);
  }
  CHECK(ps.unlisted_access(u, {"c", "s", "new_table"}).empty());
  CHECK(ps.unlisted_access(u, {"c", "x", "y"}).empty());
}

TEST_CASE("withhold_writes", "[compiler]") {
  Fixture f;
  const std::size_t w = f.u("writer");
  SECTION("true (the default): uncleared principals lose every write on gated objects") {
    REQUIRE(f.profile.withhold_writes);
    const tw::PolicySet ps = must_compile(*f.m, f.profile);
    const auto& conf = object(ps, "c.s.conf");
    CHECK(granted(conf, w) == kAll);
    CHECK(privs(conf, w) == kNone);
    const tw::AccessClass* ua = find_access(conf, w);
    REQUIRE(ua);
    CHECK(ua->reasons ==
          Names{"SELECT withheld: not cleared for Confidential, which gates the whole object",
                "INSERT, UPDATE, DELETE and OWNERSHIP withheld: not cleared for Confidential (withhold_writes)"});
    // A column gate withholds writes too, and keeps SELECT without the column.
    const auto& cust = object(ps, "c.s.cust");
    CHECK(privs(cust, w) == kSelect);
    CHECK(denied_columns(cust, w) == Names{"iban"});
    // Ungated objects keep everything but OWNERSHIP, which restrict_materialized_views takes from
    // those not cleared for every gated tag of the profile (the next test case).
    CHECK(privs(object(ps, "c.s.open"), w) == Names{"SELECT", "INSERT", "UPDATE", "DELETE"});
    CHECK(privs(object(ps, "c.s.audit"), w) == Names{"SELECT", "INSERT", "UPDATE", "DELETE"});
    // The cleared keep everything on gated objects.
    CHECK(privs(conf, f.u("etl")) == kAll);
    CHECK(privs(cust, f.u("etl")) == kAll);
    CHECK(denied_columns(cust, f.u("etl")) == kNone);
  }
  SECTION("false: reads and OWNERSHIP are withheld, the other writes kept") {
    // OWNERSHIP would let the uncleared rename the table or the gated column and read it under
    // a name the gate does not cover (Trino checks only OWNERSHIP for both renames).
    f.profile.withhold_writes = false;
    const tw::PolicySet ps = must_compile(*f.m, f.profile);
    CHECK(privs(object(ps, "c.s.conf"), w) == Names{"INSERT", "UPDATE", "DELETE"});
    CHECK(privs(object(ps, "c.s.cust"), w) == Names{"SELECT", "INSERT", "UPDATE", "DELETE"});
    CHECK(denied_columns(object(ps, "c.s.cust"), w) == Names{"iban"});
    const tw::AccessClass* ua = find_access(object(ps, "c.s.cust"), w);
    REQUIRE(ua);
    CHECK(std::find(ua->reasons.begin(), ua->reasons.end(),
                    "OWNERSHIP withheld: not cleared for PII (an owner could rename what the gate names)") !=
          ua->reasons.end());
    // Ungated objects keep everything but OWNERSHIP (restrict_materialized_views), and the cleared
    // keep OWNERSHIP.
    CHECK(privs(object(ps, "c.s.open"), w) == Names{"SELECT", "INSERT", "UPDATE", "DELETE"});
    CHECK(privs(object(ps, "c.s.cust"), f.u("etl")) == kAll);
  }
}

TEST_CASE("restrict_materialized_views", "[compiler]") {
  Fixture f;
  const std::size_t w = f.u("writer");
  const std::size_t etl = f.u("etl");
  const tw::QualifiedName fresh{"c", "s", "new_table"};
  SECTION("true (the default): users not cleared for every gated tag lose OWNERSHIP of every name") {
    REQUIRE(f.profile.restrict_materialized_views);
    tw::ProfileCompile pc = tw::compile_profile(*f.m, f.profile);
    REQUIRE(pc.policy_set);
    const tw::PolicySet& ps = *pc.policy_set;
    std::vector<std::size_t> expected;
    for (const char* n : {"steward", "alt", "pii", "none", "grouped", "expired", "later", "admin", "auditor", "writer",
                          "writer2", "grouped_writer", "expired_writer"}) {
      expected.push_back(f.u(n));
    }
    std::sort(expected.begin(), expected.end());
    CHECK(ps.create_restricted == expected);
    CHECK(ps.unlisted_access(w, fresh).names() == Names{"SELECT", "INSERT", "UPDATE", "DELETE"});
    CHECK(ps.unlisted_access(etl, fresh).names() == kAll);
    CHECK(ps.unlisted_access(etl, {"c", "new_schema", "t"}).names() == kAll);
    // Listed objects too: with OWNERSHIP they could drop one and create a materialized view in its
    // place. Their other privileges stay; the cleared keep OWNERSHIP.
    CHECK(privs(object(ps, "c.s.open"), w) == Names{"SELECT", "INSERT", "UPDATE", "DELETE"});
    CHECK(privs(object(ps, "c.s.open"), etl) == kAll);
    const tw::AccessClass* open = find_access(object(ps, "c.s.open"), w);
    REQUIRE(open);
    CHECK(open->reasons == Names{"OWNERSHIP withheld: not cleared for every gated tag of the profile, and with it they "
                                 "could drop the object and create a materialized view under its name "
                                 "(restrict_materialized_views)"});
    const tw::Finding* mv = find_finding(pc.findings, "materialized_view_restriction");
    REQUIRE(mv);
    CHECK(mv->profile == "trino_main");
    CHECK_THAT(mv->message, Catch::StartsWith("13 users are not cleared for every gated tag on profile trino_main "
                                              "(Confidential and PII) and cannot create materialized views there"));
    CHECK_THAT(mv->message, Catch::Contains("they lose OWNERSHIP of listed objects"));
    CHECK_THAT(mv->message, Catch::Contains("CREATE TABLE"));
    CHECK(mv->subjects.size() == 13);
  }
  SECTION("false: nobody is restricted") {
    f.profile.restrict_materialized_views = false;
    tw::ProfileCompile pc = tw::compile_profile(*f.m, f.profile);
    REQUIRE(pc.policy_set);
    CHECK(pc.policy_set->create_restricted.empty());
    CHECK(pc.policy_set->unlisted_access(w, fresh).names() == kAll);
    CHECK(privs(object(*pc.policy_set, "c.s.open"), w) == kAll);
    CHECK(find_finding(pc.findings, "materialized_view_restriction") == nullptr);
  }
  SECTION("a profile without gated tags restricts nobody") {
    tw::Profile other = trino_profile({"nothing_here"});
    const tw::PolicySet ps = must_compile(*f.m, other);
    CHECK(ps.gated_tags.empty());
    CHECK(ps.create_restricted.empty());
  }
}

TEST_CASE("a DEFINER view whose owner is not cleared is reported; an INVOKER view is not", "[compiler]") {
  Fixture f;
  tw::ProfileCompile pc = tw::compile_profile(*f.m, f.profile);
  REQUIRE(pc.policy_set);
  // cust_view, and the materialized view mv, which Trino reads as its owner none as well
  // (test_materialized_view_owner_findings.cpp).
  REQUIRE(count_findings(pc.findings, "definer_view_owner_not_cleared") == 2);
  const tw::Finding* d = find_finding(pc.findings, "definer_view_owner_not_cleared");
  CHECK(d->severity == tw::Severity::Warning);
  CHECK(d->profile == "trino_main");
  CHECK(d->subjects == Names{"c.v.cust_view", "none"});
  CHECK_THAT(d->message, Catch::StartsWith("DEFINER view c.v.cust_view is owned by none, who is not cleared for PII"));
  // conf_view's owner etl is cleared; invoker_view and view_of_view are INVOKER.
  for (const auto& finding : pc.findings) {
    for (const auto& s : finding.subjects) {
      CHECK(s != "c.v.conf_view");
      CHECK(s != "c.v.invoker_view");
      CHECK(s != "c.v.view_of_view");
    }
  }
  CHECK(count_findings(pc.findings, "definer_view_without_owner") == 0);
}

TEST_CASE("objects in catalogs outside the profile are invisible", "[compiler]") {
  Fixture f;
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  CHECK(ps.catalogs == Names{"c"});
  CHECK(find_object(ps, "other.s.t") == nullptr);
  Names names;
  for (const auto& op : ps.objects) names.push_back(op.engine_name.str());
  CHECK(names == Names{"c.s.audit", "c.s.both", "c.s.conf", "c.s.cust", "c.s.open", "c.v.conf_view", "c.v.cross",
                       "c.v.cust_view", "c.v.invoker_view", "c.v.mv", "c.v.view_of_view"});
  for (const auto& rule : ps.unlisted) CHECK(rule.pattern.catalog == "c");
  CHECK(ps.unlisted_access(f.u("none"), {"other", "s", "x"}).empty());

  const tw::PolicySet only_other = must_compile(*f.m, trino_profile({"other"}, "other_profile"));
  REQUIRE(only_other.objects.size() == 1);
  CHECK(only_other.objects[0].engine_name.str() == "other.s.t");
  CHECK(only_other.gated_tags == Names{"Confidential"});
}

TEST_CASE("catalog_map renames catalogs in engine names", "[compiler]") {
  Fixture f;
  f.profile.catalog_map = {{"c", "Lake"}};
  const tw::PolicySet ps = must_compile(*f.m, f.profile);
  CHECK(ps.catalogs == Names{"lake"});  // and Trino lowercases the new name
  const auto& conf = object(ps, "lake.s.conf");
  CHECK(conf.platform_name.str() == "c.s.conf");
  CHECK(find_object(ps, "c.s.conf") == nullptr);
  CHECK(privs(conf, f.u("steward")) == kSelect);
  CHECK(privs(conf, f.u("none")) == kNone);
  for (const auto& rule : ps.unlisted) CHECK(rule.pattern.catalog == "lake");
  CHECK(ps.unlisted_access(f.u("etl"), {"lake", "s", "fresh"}).names() == kAll);
  CHECK(ps.unlisted_access(f.u("etl"), {"c", "s", "fresh"}).empty());
}

TEST_CASE("Trino lowercases object, column and catalog names", "[compiler]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: Alice}, {name: bob}]
roles: [r]
role_assignments: [{role: r, user: Alice}]
classifications:
  - {name: PII, clearance: [{type: role, name: r}]}
objects:
  - name: Lake.Sales.Orders
    columns: [{name: ID}, {name: Email, tags: [PII]}, {name: "Stra\u00DFe"}, {name: "\u00C9t\u00E9"}]
grants:
  - {principal: {user: bob}, object: "Lake.Sales.*", privileges: [SELECT]}
  - {principal: {user: Alice}, object: Lake.Sales.Orders, privileges: [SELECT]}
)";
  auto m = model_of(text);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"Lake"}));
  CHECK(ps.catalogs == Names{"lake"});
  const auto& o = object(ps, "lake.sales.orders");
  CHECK(o.platform_name.str() == "Lake.Sales.Orders");
  CHECK(o.columns.to_vector() == Names{"id", "email", "stra\u00DFe", "\u00E9t\u00E9"});
  REQUIRE(o.column_gates.size() == 1);
  CHECK(o.column_gates[0].first == "email");
  CHECK(denied_columns(o, user_index(*m, "bob")) == Names{"email"});
  CHECK(denied_columns(o, user_index(*m, "Alice")) == kNone);
  // User names are not identifiers: they keep their case.
  CHECK(ps.users[user_index(*m, "Alice")].engine_name == "Alice");
  Names patterns;
  for (const auto& rule : ps.unlisted) patterns.push_back(rule.pattern.str());
  CHECK(patterns == Names{"lake.sales.orders", "lake.sales.*"});

  tw::Profile sr = trino_profile({"Lake"}, "sr");
  sr.engine = tw::Engine::StarRocks;
  const tw::PolicySet srps = must_compile(*m, sr);
  CHECK(find_object(srps, "Lake.Sales.Orders") != nullptr);
}

TEST_CASE("two platform users mapping to one engine user fail the profile", "[compiler]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: alice, engine_user: al}
  - {name: al}
  - {name: carol}
  - {name: dave}
)";
  auto m = model_of(text);
  tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"c"}));
  CHECK_FALSE(pc.policy_set.has_value());
  CHECK(
      pc.errors ==
      Names{
          R"(users[0] ("alice", by users[0].engine_user) and users[1] ("al", by its name) both map to the engine user "al": the engine could not tell them apart; fix engine_user or user_map)"});

  tw::Profile mapped = trino_profile({"c"});
  mapped.user_map = {{"al", "albert"}, {"carol", "dave"}};
  tw::ProfileCompile pc2 = tw::compile_profile(*m, mapped);
  CHECK_FALSE(pc2.policy_set.has_value());
  CHECK(
      pc2.errors ==
      Names{
          R"(users[2] ("carol", by user_map["carol"] of profile "trino_main" in the config) and users[3] ("dave", by its name) both map to the engine user "dave": the engine could not tell them apart; fix engine_user or user_map)"});

  tw::Profile fixed = trino_profile({"c"});
  fixed.user_map = {{"al", "albert"}};
  const tw::PolicySet ps = must_compile(*m, fixed);
  CHECK(ps.users[0].engine_name == "al");
  CHECK(ps.users[1].engine_name == "albert");
  CHECK(tw::engine_user_name(m->user(0), fixed) == "al");
  CHECK(tw::engine_user_name(m->user(2), fixed) == "carol");
}

TEST_CASE("compiling is deterministic", "[compiler]") {
  auto m1 = model_of(kSnapshot);
  auto m2 = model_of(kSnapshot);
  const tw::Profile p = trino_profile({"c", "other"});
  tw::ProfileCompile a = tw::compile_profile(*m1, p);
  tw::ProfileCompile b = tw::compile_profile(*m2, p);
  tw::ProfileCompile c = tw::compile_profile(*m1, p);
  REQUIRE(a.policy_set);
  REQUIRE(b.policy_set);
  REQUIRE(c.policy_set);
  const std::string dump = tw::to_json(*a.policy_set).dump();
  CHECK(dump == tw::to_json(*b.policy_set).dump());
  CHECK(dump == tw::to_json(*c.policy_set).dump());
  CHECK(a.findings == b.findings);
  CHECK(a.errors == b.errors);
  // Spot-check the stable JSON.
  const nlohmann::json j = tw::to_json(*a.policy_set);
  CHECK(j["profile"] == "trino_main");
  CHECK(j["engine"] == "trino");
  CHECK(j["generated_at"] == "2026-11-30T12:00:00Z");
  CHECK(j["catalogs"] == nlohmann::json({"c", "other"}));
  CHECK(j["gated_tags"] == nlohmann::json({"Confidential", "PII"}));
}

TEST_CASE("unlisted names: the most specific pattern carries every grant that reaches the name", "[compiler]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: a}, {name: b}, {name: c}, {name: d}]
objects: [{name: c.s.t}]
grants:
  - {principal: {user: a}, object: "c.s.*", privileges: [SELECT]}
  - {principal: {user: b}, object: "c.*.t", privileges: [INSERT]}
  - {principal: {user: c}, object: "*.*.*", privileges: [OWNERSHIP, DELETE]}
  - {principal: {user: d}, object: "c.s.t", privileges: [UPDATE]}
)";
  auto m = model_of(text);
  const tw::PolicySet ps = must_compile(*m, trino_profile({"c"}));
  CHECK(ps.objects.size() == 1);
  const tw::QualifiedName st{"c", "s", "t"}, sx{"c", "s", "x"}, xt{"c", "x", "t"}, xy{"c", "x", "y"};
  CHECK(ps.unlisted_access(0, st).names() == Names{"SELECT"});
  CHECK(ps.unlisted_access(1, st).names() == Names{"INSERT"});
  CHECK(ps.unlisted_access(2, st).names() == Names{"DELETE", "OWNERSHIP"});
  CHECK(ps.unlisted_access(3, st).names() == Names{"UPDATE"});
  CHECK(ps.unlisted_access(0, sx).names() == Names{"SELECT"});
  CHECK(ps.unlisted_access(1, sx).empty());
  CHECK(ps.unlisted_access(2, sx).names() == Names{"DELETE", "OWNERSHIP"});
  CHECK(ps.unlisted_access(3, sx).empty());
  CHECK(ps.unlisted_access(0, xt).empty());
  CHECK(ps.unlisted_access(1, xt).names() == Names{"INSERT"});
  CHECK(ps.unlisted_access(2, xy).names() == Names{"DELETE", "OWNERSHIP"});
  CHECK(ps.unlisted_access(1, xy).empty());
  CHECK(ps.unlisted_access(0, {"d", "s", "t"}).empty());
  CHECK(ps.create_restricted.empty());  // no gated tag on the profile
}

// Trino lowercases catalog names, so the platform catalogs "Demo" and "demo"
// are one Trino catalog. collect_objects matches an object's catalog against
// the profile's catalogs case-sensitively, while grants with a "*" catalog are
// expanded to the profile's (lowercased) engine catalog: a gated object whose
// catalog is spelled with another case is left out of the PolicySet, and the
// broad unlisted rule hands its engine name to everyone the wildcard grant
// reaches, cleared or not. Fail closed: either list and gate it, or refuse.
TEST_CASE("a gated object whose catalog differs from the profile's only in case is not left open", "[compiler][bug]") {
  const std::string text = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: none}]
roles: [reader, r_steward]
role_assignments: [{role: reader, user: none}]
classifications:
  - {name: Confidential, clearance: [{type: role, name: r_steward}]}
objects:
  - {name: Demo.finance.invoices, tags: [Confidential], columns: [{name: id}]}
  - {name: demo.sales.orders, columns: [{name: id}]}
grants:
  - {principal: {role: reader}, object: "*.*.*", privileges: [SELECT]}
)";
  auto m = model_of(text);
  const std::size_t none = user_index(*m, "none");
  REQUIRE_FALSE(m->is_cleared(none, "Confidential"));
  for (const char* catalog : {"demo", "DEMO"}) {
    INFO("profile catalog " << catalog);
    tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({catalog}));
    if (!pc.policy_set) continue;  // refusing the profile is fail-closed too
    const tw::PolicySet& ps = *pc.policy_set;
    REQUIRE(ps.catalogs == Names{"demo"});
    const tw::QualifiedName engine{"demo", "finance", "invoices"};
    const tw::ObjectPolicy* op = find_object(ps, engine.str());
    // What Trino would give "none" on demo.finance.invoices: the listed object's access, else the unlisted rules.
    const tw::PrivilegeSet effective =
        op ? (find_access(*op, none) ? find_access(*op, none)->access.privileges : tw::PrivilegeSet{})
           : ps.unlisted_access(none, engine);
    CHECK_FALSE(effective.has(tw::Privilege::Select));
  }
}

TEST_CASE("names Trino lowercases by context (capital sigma) fail a Trino profile; İ folds as Java folds it",
          "[compiler][names]") {
  auto snapshot = [](const std::string& table, const std::string& column) {
    return R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: alice}]
classifications:
  - {name: Confidential, clearance: [{type: role, name: steward}]}
roles: [steward]
objects:
  - {name: "wh.fin.)" +
           table + R"(", kind: table, tags: [Confidential], columns: [{name: ")" + column + R"(", type: varchar}]}
grants:
  - {principal: {user: alice}, object: "wh.fin.*", privileges: [SELECT]}
)";
  };
  tw::Profile sr = twtest::trino_profile({"wh"}, "sr");
  sr.engine = tw::Engine::StarRocks;
  for (const auto& [table, column] :
       std::vector<std::pair<std::string, std::string>>{{"ΟΔΟΣ", "id"}, {"orders", "ΚΩΔΙΚΟΣ"}, {"ΣECRET", "id"}}) {
    INFO(table << " / " << column);
    auto m = twtest::model_of(snapshot(table, column));
    const tw::ProfileCompile trino = tw::compile_profile(*m, twtest::trino_profile({"wh"}));
    CHECK_FALSE(trino.policy_set.has_value());
    REQUIRE(trino.errors.size() == 1);
    CHECK_THAT(trino.errors[0], Catch::Contains("capital sigma") && Catch::Contains("Write the name"));
    CHECK(trino.findings.empty());  // a failed profile publishes nothing: no findings about its rules
    CHECK(tw::compile_profile(*m, sr).policy_set.has_value());  // StarRocks keeps names as written
  }
  {
    // Only the profile's catalogs are refused: a capital sigma in another catalog is not its names.
    std::string text = snapshot("orders", "id");
    text.insert(text.find("grants:"), "  - {name: \"lake.ΣALES.t\", kind: table, columns: [{name: id, type: int}]}\n");
    auto m = twtest::model_of(text);
    REQUIRE(m->unfoldable_objects == std::vector<std::size_t>{1});
    CHECK(tw::compile_profile(*m, twtest::trino_profile({"wh"})).policy_set.has_value());
    const tw::ProfileCompile both = tw::compile_profile(*m, twtest::trino_profile({"wh", "lake"}));
    REQUIRE(both.errors.size() == 1);
    CHECK_THAT(both.errors[0], Catch::Contains("lake.ΣALES.t"));
  }
  // U+0130 lowercases to "i" + U+0307 in Java: the gated table's own rule must carry that name.
  auto m = twtest::model_of(snapshot("İnvoices", "id"));
  const tw::PolicySet ps = twtest::must_compile(*m, twtest::trino_profile({"wh"}));
  REQUIRE(ps.objects.size() == 1);
  CHECK(ps.objects[0].engine_name.table == "i\u0307nvoices");
}

TEST_CASE("a profile catalog that holds no listed object is reported", "[compiler][findings]") {
  auto m = twtest::model_of(R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: alice}]
objects:
  - {name: wh.s.t, kind: table, columns: [{name: id, type: bigint}]}
grants:
  - {principal: {user: alice}, object: "wh.s.t", privileges: [SELECT]}
)");
  const tw::ProfileCompile pc = tw::compile_profile(*m, twtest::trino_profile({"wh", "nosuch"}));
  REQUIRE(pc.policy_set.has_value());
  std::vector<std::string> flagged;
  for (const auto& f : pc.findings) {
    if (f.code == "profile_catalog_without_objects")
      flagged.insert(flagged.end(), f.subjects.begin(), f.subjects.end());
  }
  CHECK(flagged == std::vector<std::string>{"nosuch"});
}

TEST_CASE("a DEFINER view whose owner fails only the view's own tag is not reported as refused to everybody",
          "[compiler]") {
  // Trino checks a DEFINER view's owner on the bases, the reader on the view: the owner, uncleared
  // for a tag only the view carries, reads the base, so the cleared reader is served.
  const std::string snapshot = R"({
    "version": 1, "generated_at": "2026-11-30T12:00:00Z",
    "users": [{"name": "owner"}, {"name": "reader"}],
    "roles": ["steward", "analyst"],
    "role_assignments": [{"role": "steward", "user": "reader"}, {"role": "analyst", "user": "reader"},
                         {"role": "analyst", "user": "owner"}],
    "classifications": [{"name": "Secret", "clearance": [{"type": "role", "name": "steward"}]}],
    "objects": [
      {"name": "lake.s.base", "kind": "table", "owner": "owner", "columns": [{"name": "id", "type": "bigint"}]%BASE_TAGS%},
      {"name": "lake.s.v", "kind": "view", "owner": "owner", "view_security": "definer", "depends_on": ["lake.s.base"],
       "tags": ["Secret"], "columns": [{"name": "id", "type": "bigint"}]}],
    "grants": [{"principal": {"role": "analyst"}, "object": "lake.s.*", "privileges": ["SELECT"]}],
    "policies": []
  })";
  auto finding_for = [&](const std::string& base_tags) {
    std::string text = snapshot;
    text.replace(text.find("%BASE_TAGS%"), 11, base_tags);
    const auto m = twtest::model_of(text);
    tw::ProfileCompile pc = tw::compile_profile(*m, twtest::trino_profile({"lake"}));
    REQUIRE(pc.policy_set);
    REQUIRE(count_findings(pc.findings, "definer_view_owner_not_cleared") == 1);
    return find_finding(pc.findings, "definer_view_owner_not_cleared")->message;
  };
  const std::string own = finding_for("");
  CHECK_THAT(own, Catch::StartsWith("DEFINER view lake.s.v is owned by owner, who is not cleared for Secret"));
  CHECK_THAT(own, Catch::Contains("cleared readers are served; the owner is refused what the tag gates"));
  CHECK_THAT(own, !Catch::Contains("refused to everybody"));
  // The tag on a column of the view, not on the view: named the same way (MODEL §2: the owner is
  // not cleared for the view's tags).
  std::string on_column = snapshot;
  on_column.replace(on_column.find("%BASE_TAGS%"), 11, "");
  const std::string whole = R"("tags": ["Secret"], "columns": [{"name": "id", "type": "bigint"}]})";
  REQUIRE(on_column.find(whole) != std::string::npos);
  on_column.replace(on_column.find(whole), whole.size(),
                    R"("columns": [{"name": "id", "type": "bigint", "tags": ["Secret"]}]})");
  const auto m = twtest::model_of(on_column);
  tw::ProfileCompile pc = tw::compile_profile(*m, twtest::trino_profile({"lake"}));
  REQUIRE(pc.policy_set);
  REQUIRE(count_findings(pc.findings, "definer_view_owner_not_cleared") == 1);
  CHECK_THAT(find_finding(pc.findings, "definer_view_owner_not_cleared")->message,
             Catch::Contains("cleared readers are served"));
  // The same tag on the base: the owner cannot read it, so nobody reads the view.
  const std::string inherited = finding_for(R"(, "tags": ["Secret"])");
  CHECK_THAT(inherited, Catch::Contains("refused to everybody, the cleared included, because its owner cannot read "
                                        "lake.s.base"));
}
