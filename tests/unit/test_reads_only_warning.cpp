// Seed 003: "This clearance withholds reads only ... a user without it can still overwrite a
// column they cannot read." A profile with withhold_writes: false enforces exactly that, so it
// says so in a warning naming the gated tags; with the default (writes withheld) it does not.

#include <string>

#include <catch2/catch.hpp>

#include "helpers.h"

using namespace twtest;

namespace {

const char* kSnapshot = R"(version: 1
generated_at: "2026-11-30T12:00:00Z"
users:
  - {name: u}
roles: [steward]
role_assignments: []
classifications:
  - {name: Confidential, clearance: [{type: role, name: steward}]}
  - {name: GroupsOnly, clearance: [{type: group, name: auditors}]}
objects:
  - {name: c.s.t, kind: table, tags: [Confidential, GroupsOnly], columns: [{name: id, type: bigint}]}
grants:
  - {principal: {user: u}, object: "c.s.t", privileges: [SELECT, INSERT]}
policies: []
)";

const tw::Finding* reads_only(const tw::ProfileCompile& pc) {
  for (const auto& f : pc.findings) {
    if (f.code == "clearance_withholds_reads_only") return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("withhold_writes: false warns that clearances withhold reads only", "[compiler][findings]") {
  auto m = model_of(kSnapshot);
  tw::Profile p = trino_profile({"c"});
  p.withhold_writes = false;
  const tw::ProfileCompile pc = tw::compile_profile(*m, p);
  const tw::Finding* f = reads_only(pc);
  REQUIRE(f != nullptr);
  CHECK(f->severity == tw::Severity::Warning);
  CHECK(f->profile == "trino_main");
  // Only the tags gated in the engines: a group-only clearance gates nothing there.
  CHECK(f->subjects == std::vector<std::string>{"Confidential"});
  CHECK_THAT(f->message, Catch::Contains("withhold reads only"));
  CHECK_THAT(f->message, Catch::Contains("overwrite a column they cannot read"));
}

TEST_CASE("withhold_writes: true (the default) does not warn", "[compiler][findings]") {
  auto m = model_of(kSnapshot);
  const tw::ProfileCompile pc = tw::compile_profile(*m, trino_profile({"c"}));
  CHECK(reads_only(pc) == nullptr);
}

TEST_CASE("withhold_writes: false without a gated tag on the profile does not warn", "[compiler][findings]") {
  auto m = model_of(kSnapshot);
  tw::Profile p = trino_profile({"elsewhere"});
  p.withhold_writes = false;
  CHECK(reads_only(tw::compile_profile(*m, p)) == nullptr);
}
