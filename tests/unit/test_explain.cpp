// explain_user on examples/demo (seed 003's demo stack).

#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "helpers.h"
#include "tagwarden/compile/explain.h"
#include "tagwarden/config/profile.h"
#include "tagwarden/model/load.h"

using namespace twtest;

namespace {

struct Demo {
  std::shared_ptr<const tw::Model> model;
  std::vector<tw::PolicySet> sets;

  explicit Demo(std::optional<tw::Timestamp> now = std::nullopt) {
    tw::SnapshotLoad s = tw::load_snapshot_file(TAGWARDEN_SOURCE_DIR "/examples/demo/snapshot.yaml");
    INFO(join_errors(s.errors));
    REQUIRE(s.snapshot);
    tw::ConfigLoad c = tw::load_config_file(TAGWARDEN_SOURCE_DIR "/examples/demo/profiles.yaml");
    INFO(join_errors(c.errors));
    REQUIRE(c.config);
    model = tw::build_model(std::make_shared<const tw::Snapshot>(std::move(*s.snapshot)), now);
    for (const auto& p : c.config->profiles) sets.push_back(must_compile(*model, p));
    REQUIRE(sets.size() == 1);
    REQUIRE(sets[0].profile == "trino_main");
  }

  tw::Explanation explain(const std::string& user) const { return tw::explain_user(*model, sets, user); }
};

const tw::TagClearance& clearance(const tw::Explanation& e, const std::string& tag) {
  for (const auto& c : e.clearances) {
    if (c.tag == tag) return c;
  }
  FAIL("no clearance entry for " << tag);
  throw std::logic_error("unreachable");
}

const tw::Refusal* refusal(const tw::ProfileExplanation& p, const std::string& object) {
  for (const auto& r : p.refusals) {
    if (r.object == object) return &r;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("explain lists every gated classification, in snapshot order", "[explain]") {
  Demo d;
  const tw::Explanation e = d.explain("farid.haddad");
  Names tags;
  for (const auto& c : e.clearances) tags.push_back(c.tag);
  CHECK(tags == Names{"Confidential", "PII", "AuditOnly"});  // Internal and Public have no clearance
  CHECK(e.user == "farid.haddad");
  CHECK_FALSE(e.platform_admin);
  CHECK(e.notes.empty());
}

TEST_CASE("farid.haddad holds data_steward directly: Cleared", "[explain]") {
  Demo d;
  const tw::Explanation e = d.explain("farid.haddad");
  const auto& conf = clearance(e, "Confidential");
  CHECK(conf.status == "Cleared");
  CHECK(conf.reasons == Names{"role data_steward: held directly"});
  const auto& pii = clearance(e, "PII");
  CHECK(pii.status == "Cleared");
  CHECK(pii.reasons == Names{"role pii_reader: held directly",
                             "group auditors: not a member; group requirement: not enforced in engines"});
  REQUIRE(e.profiles.size() == 1);
  CHECK(e.profiles[0].profile == "trino_main");
  CHECK(e.profiles[0].engine_user == "farid.haddad");
  // No clearance refuses farid anything; Trino refuses him (and everybody) the DEFINER view
  // invoice_summary, whose owner etl_svc is not cleared for its base invoices.
  REQUIRE(e.profiles[0].refusals.size() == 1);
  const tw::Refusal& r = e.profiles[0].refusals[0];
  CHECK(r.kind == "definer_view_owner");
  CHECK(r.object == "demo_warehouse.finance.invoice_summary");
  CHECK(r.whole_object);
  CHECK(r.tags.empty());
  CHECK(r.withheld.empty());
  CHECK(r.has_grant);
  CHECK(r.reason ==
        "its owner etl_svc cannot read demo_warehouse.finance.invoices: Trino reads a DEFINER view as its owner, so "
        "it is refused to everybody");
  CHECK(e.profiles[0].may_create);
  const std::string text = tw::to_text(e);
  CHECK_THAT(text, !Catch::Contains("nothing refused"));
  CHECK_THAT(text, Catch::Contains("  refused demo_warehouse.finance.invoice_summary on Trino: its owner etl_svc "
                                   "cannot read demo_warehouse.finance.invoices: Trino reads a DEFINER view as its "
                                   "owner"));
  const nlohmann::json refused = tw::to_json(e)["profiles"][0]["refused"];
  REQUIRE(refused.size() == 1);
  CHECK(refused[0]["kind"] == "definer_view_owner");
  CHECK(refused[0]["object"] == "demo_warehouse.finance.invoice_summary");
  CHECK(refused[0]["whole_object"] == true);
  CHECK(refused[0]["reason"] == r.reason);
}

TEST_CASE("grace.lee holds data_steward only through a group: Not cleared", "[explain]") {
  Demo d;
  const tw::Explanation e = d.explain("grace.lee");
  const auto& conf = clearance(e, "Confidential");
  CHECK(conf.status == "Not cleared");
  CHECK(conf.reasons ==
        Names{"role data_steward: held through group finance-stewards: engines count only roles held directly"});
  const tw::Refusal* r = refusal(e.profiles.at(0), "demo_warehouse.finance.invoices");
  REQUIRE(r);
  CHECK(r->whole_object);
  CHECK(r->has_grant);  // analyst reads demo_warehouse.*.*
  CHECK(r->withheld == Names{"SELECT"});
  CHECK(r->kind == "clearance");
  // invoice_summary is refused to her by its own (inherited) gate: not listed again for its owner.
  for (const auto& x : e.profiles.at(0).refusals) CHECK(x.kind == "clearance");
  CHECK(tw::to_json(e)["profiles"][0]["refused"][0]["kind"] == "clearance");
}

TEST_CASE("jo.kim's data_steward expired: Not cleared, with the expiry", "[explain]") {
  SECTION("at generated_at") {
    Demo d;
    const tw::Explanation e = d.explain("jo.kim");
    const auto& conf = clearance(e, "Confidential");
    CHECK(conf.status == "Not cleared");
    CHECK(conf.reasons == Names{"role data_steward: expired at 2026-11-01T00:00:00Z"});
  }
  SECTION("judged before the expiry (--now)") {
    Demo d(tw::Timestamp{1793491200 - 1});  // 2026-10-31T23:59:59Z
    const tw::Explanation e = d.explain("jo.kim");
    const auto& conf = clearance(e, "Confidential");
    CHECK(conf.status == "Cleared");
    CHECK(conf.reasons == Names{"role data_steward: held directly"});
    CHECK(refusal(e.profiles.at(0), "demo_warehouse.finance.invoices") == nullptr);
  }
  SECTION("exactly at the expiry") {
    Demo d(tw::Timestamp{1793491200});
    CHECK(clearance(d.explain("jo.kim"), "Confidential").reasons ==
          Names{"role data_steward: expired at 2026-11-01T00:00:00Z"});
  }
}

TEST_CASE("member-sso holds no clearance role and is refused invoices as a whole", "[explain]") {
  Demo d;
  const tw::Explanation e = d.explain("member-sso");
  const auto& conf = clearance(e, "Confidential");
  CHECK(conf.status == "Not cleared");
  CHECK(conf.reasons == Names{"role data_steward: not held"});
  REQUIRE(e.profiles.size() == 1);
  const tw::ProfileExplanation& p = e.profiles[0];
  CHECK(p.engine_user == "member-sso");
  CHECK_FALSE(p.may_create);
  Names refused;
  for (const auto& r : p.refusals) refused.push_back(r.object);
  CHECK(refused == Names{"demo_warehouse.finance.customers", "demo_warehouse.finance.invoice_summary",
                         "demo_warehouse.finance.invoices"});
  const tw::Refusal* inv = refusal(p, "demo_warehouse.finance.invoices");
  REQUIRE(inv);
  CHECK(inv->whole_object);
  CHECK(inv->columns.empty());
  CHECK(inv->tags == Names{"Confidential"});
  CHECK(inv->has_grant);
  CHECK(inv->withheld == Names{"SELECT"});
  const tw::Refusal* view = refusal(p, "demo_warehouse.finance.invoice_summary");
  REQUIRE(view);
  CHECK(view->whole_object);  // inherited through depends_on
  CHECK(view->tags == Names{"Confidential"});
  const tw::Refusal* cust = refusal(p, "demo_warehouse.finance.customers");
  REQUIRE(cust);
  CHECK_FALSE(cust->whole_object);
  CHECK(cust->columns == Names{"iban"});
  CHECK(cust->tags == Names{"PII"});
  CHECK(cust->withheld.empty());  // SELECT is kept without the column

  const std::string text = tw::to_text(e);
  CHECK_THAT(text, Catch::Contains("refused demo_warehouse.finance.invoices (Confidential) withheld: SELECT"));
  CHECK_THAT(text, Catch::Contains("refused demo_warehouse.finance.customers columns iban (PII)"));
  const nlohmann::json j = tw::to_json(e);
  CHECK(j["user"] == "member-sso");
  CHECK(j["profiles"][0]["may_create_tables_views_mvs"] == false);
  CHECK(j["profiles"][0]["refused"][2] == nlohmann::json::parse(R"({"object": "demo_warehouse.finance.invoices",
      "whole_object": true, "columns": [], "tags": ["Confidential"], "has_grant": true, "withheld": ["SELECT"],
      "kind": "clearance"})"));
}

TEST_CASE("the platform admin is not cleared", "[explain]") {
  Demo d;
  const tw::Explanation e = d.explain("platform-admin");
  CHECK(e.platform_admin);
  CHECK(e.notes == Names{"platform admins are not exempt from clearances: only roles held directly count"});
  const auto& conf = clearance(e, "Confidential");
  CHECK(conf.status == "Not cleared");
  CHECK(conf.reasons == Names{"role data_steward: not held"});
  CHECK(clearance(e, "PII").status == "Not cleared");
  const tw::Refusal* inv = refusal(e.profiles.at(0), "demo_warehouse.finance.invoices");
  REQUIRE(inv);
  CHECK(inv->whole_object);
  CHECK(inv->withheld == Names{"SELECT"});
  CHECK_FALSE(e.profiles[0].may_create);
  CHECK_THAT(tw::to_text(e), Catch::StartsWith("User platform-admin (platform admin)\n"));
}

TEST_CASE("a group-only clearance is Not enforced in engines", "[explain]") {
  Demo d;
  for (const char* user : {"ana.auditor", "member-sso", "farid.haddad"}) {
    INFO(user);
    const tw::Explanation e = d.explain(user);
    const auto& audit = clearance(e, "AuditOnly");
    CHECK(audit.status == "Not enforced in engines");
    CHECK(refusal(e.profiles.at(0), "demo_warehouse.finance.audit_log") == nullptr);
  }
  CHECK(clearance(d.explain("ana.auditor"), "AuditOnly").reasons ==
        Names{"group auditors: member; group requirement: not enforced in engines"});
  CHECK(clearance(d.explain("member-sso"), "AuditOnly").reasons ==
        Names{"group auditors: not a member; group requirement: not enforced in engines"});
  // ana.auditor is in the group that PII's clearance names, but only pii_reader counts in engines.
  const tw::Explanation ana = d.explain("ana.auditor");
  const auto& pii = clearance(ana, "PII");
  CHECK(pii.status == "Not cleared");
  CHECK(pii.reasons ==
        Names{"role pii_reader: not held", "group auditors: member; group requirement: not enforced in engines"});
}

TEST_CASE("explaining an unknown user throws", "[explain]") {
  Demo d;
  CHECK_THROWS_AS(d.explain("nobody"), std::invalid_argument);
  CHECK_THROWS_WITH(d.explain("nobody"), Catch::Contains("\"nobody\""));
}

TEST_CASE("a profile that failed to compile is explained as failed, in config order", "[explain]") {
  Demo d;
  tw::Profile sr;
  sr.name = "sr_tight";
  sr.engine = tw::Engine::StarRocks;
  sr.catalogs = {"demo_warehouse"};
  sr.max_policies_per_tag = 1;  // Confidential needs 2: the profile fails
  tw::Profile trino = trino_profile({"demo_warehouse"});
  const std::vector<tw::Profile> profiles = {sr, trino};
  const tw::ProfileCompile failed = tw::compile_profile(*d.model, sr);
  REQUIRE_FALSE(failed.policy_set);
  REQUIRE_FALSE(failed.errors.empty());
  const tw::ProfileCompile ok = tw::compile_profile(*d.model, trino);
  REQUIRE(ok.policy_set);

  const tw::Explanation e = tw::explain_compiled(*d.model, profiles, {&failed, &ok}, "member-sso");
  REQUIRE(e.profiles.size() == 2);
  const tw::ProfileExplanation& f = e.profiles[0];
  CHECK(f.profile == "sr_tight");
  CHECK(f.engine == tw::Engine::StarRocks);
  CHECK(f.failed);
  CHECK(f.errors == failed.errors);
  CHECK(f.refusals.empty());
  CHECK(f.policies.empty());
  CHECK_FALSE(e.profiles[1].failed);
  CHECK(e.profiles[1].profile == "trino_main");
  CHECK(e.clearances.size() == 3);

  const std::string text = tw::to_text(e);
  CHECK_THAT(text, Catch::Contains("\nProfile sr_tight (starrocks): failed to compile, nothing of this snapshot is "
                                   "enforced from it"));
  CHECK_THAT(text, Catch::Contains("      - " + failed.errors[0] + "\n"));
  CHECK_THAT(text, Catch::Contains("max_policies_per_tag = 1"));
  CHECK(text.find("Profile sr_tight") < text.find("Profile trino_main"));

  const nlohmann::json j = tw::to_json(e);
  REQUIRE(j["profiles"].size() == 2);
  CHECK(j["profiles"][0] ==
        nlohmann::json(
            {{"profile", "sr_tight"}, {"engine", "starrocks"}, {"status", "failed"}, {"errors", failed.errors}}));
  CHECK(j["profiles"][1]["status"] == "ok");
  CHECK(j["profiles"][1]["engine"] == "trino");
}

TEST_CASE("explain_compiled over profiles that all compiled is explain_user", "[explain]") {
  Demo d;
  const tw::Profile trino = trino_profile({"demo_warehouse"});
  const tw::ProfileCompile ok = tw::compile_profile(*d.model, trino);
  REQUIRE(ok.policy_set);
  for (const char* user : {"member-sso", "farid.haddad", "platform-admin"}) {
    INFO(user);
    const tw::Explanation a = tw::explain_compiled(*d.model, {trino}, {&ok}, user);
    const tw::Explanation b = tw::explain_user(*d.model, {*ok.policy_set}, user, {}, {trino});
    CHECK(tw::to_json(a) == tw::to_json(b));
    CHECK(tw::to_text(a) == tw::to_text(b));
  }
  CHECK_THROWS_AS(tw::explain_compiled(*d.model, {trino}, {&ok}, "nobody"), std::invalid_argument);
}

TEST_CASE("explain says a user may create new names only where a grant gives OWNERSHIP of them", "[explain]") {
  // Creating a table, view or materialized view needs OWNERSHIP of the new name (MODEL §2: base
  // access comes only from grants); the materialized-view rule then takes it away on Trino.
  const auto m = model_of(R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users: [{name: owner}, {name: reader}, {name: nogrant}, {name: uncleared_owner}]
roles: [steward]
role_assignments:
  - {role: steward, user: owner}
  - {role: steward, user: reader}
  - {role: steward, user: nogrant}
classifications:
  - {name: Conf, clearance: [{type: role, name: steward}]}
objects:
  - {name: c.s.t, tags: [Conf], columns: [{name: id, type: bigint}]}
grants:
  - {principal: {user: owner}, object: "c.s.*", privileges: [SELECT, OWNERSHIP]}
  - {principal: {user: uncleared_owner}, object: "c.s.*", privileges: [SELECT, OWNERSHIP]}
  - {principal: {user: reader}, object: "c.s.*", privileges: [SELECT]}
)");
  const std::vector<tw::PolicySet> sets = {must_compile(*m, trino_profile({"c"}))};
  auto flags = [&](const std::string& user) {
    const nlohmann::json p = tw::to_json(tw::explain_user(*m, sets, user))["profiles"][0];
    return std::vector<bool>{p["creation_restricted"], p["may_create_tables_views"],
                             p["may_create_materialized_views"], p["may_create_tables_views_mvs"]};
  };
  CHECK(flags("owner") == std::vector<bool>{false, true, true, true});
  CHECK(flags("reader") == std::vector<bool>{false, false, false, false});
  CHECK(flags("nogrant") == std::vector<bool>{false, false, false, false});
  CHECK(flags("uncleared_owner") == std::vector<bool>{true, false, false, false});
}
