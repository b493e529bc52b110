#include <iostream>

#include "commands.h"
#include "common.h"
#include "options.h"
#include "progress.h"

namespace tw::cli {

int run_findings(const std::vector<std::string>& args) {
  const char* usage = "usage: tagwarden findings --snapshot S --config C [--profile P] [--now T] [--output text|json]";
  const char* teaching = R"(Compiles in memory, writes nothing, and prints the findings:
  warning clearance_groups_only           a clearance names only groups: enforced in no engine
  warning clearance_group_not_enforced    group rows of a mixed clearance do not reach engines
  info    classifications_without_clearance  tags that gate nothing
  warning user_map_unknown_user           a user_map entry names a user not in the snapshot
  warning profile_catalog_without_objects a profile catalog holds no object of the snapshot (a typo?)
  warning row_filter_unsatisfiable        a row filter no row satisfies for some users (they see none)
  warning trino_row_filter_refuses_object a row filter reads a column its reader may not read and no owner
                                          may run it in their place: Trino refuses them the whole object
  warning mask_without_columns            a mask reaches a whole object that lists no columns: whom it
                                          applies to lose SELECT there (the engines mask by column name)
  info    trino_owners_can_rename_governed  owners of gated or policy-covered objects can rename them out
                                          from under the rules on Trino (MODEL leaves the cleared OWNERSHIP)
  info    materialized_view_restriction   users who may not create MVs (on Trino, nor tables/views)
  warning clearance_withholds_reads_only  withhold_writes: false: the uncleared keep their writes
  warning definer_view_owner_not_cleared  the owner is not cleared for the view's tags (Trino; DEFINER views
                                          and materialized views, which Trino reads as their owner)
  warning definer_view_owner_cannot_read  on Trino the owner cannot read the view's bases: refused to all
  warning definer_view_without_owner      a gated DEFINER view or materialized view names no owner
  warning starrocks_gate_coarsened        StarRocks cannot mask a gated column: uncleared lose SELECT
  warning starrocks_policy_coarsened      StarRocks cannot enforce a mask or row filter: SELECT withheld
  warning starrocks_row_policy_without_column  a gated or filtered object has no column a row access
                                          policy can take: no policy, unlisted views over it not covered
  warning starrocks_unmaskable_type       a gated column's type cannot go into a masking policy
  info    starrocks_roles_capped          atom roles over max_roles_per_user inherit through bundle roles
  error   profile_failed                  a profile that could not be compiled, with why
and, only from `plan --dsn` / `apply` against a live StarRocks server:
  warning starrocks_drift                 grants made outside tagwarden give a user more than allowed
  warning starrocks_user_missing          engine users that do not exist on the server yet
  error   starrocks_foreign_mask          a column carries a masking policy tagwarden does not own
  warning starrocks_roles_not_activated   activate_all_roles_on_login is off on the server
  warning starrocks_roles_cap_lowered     the server allows fewer roles per user than max_roles_per_user

On a terminal, progress lines go to stderr while the profiles compile.

Exit codes: 0 no profile failed; 1 a profile failed; 2 invalid input (with --output
json also one JSON document on stdout: {"profile", "ok": false, "exit_code", "errors"}).

Example:
  tagwarden findings --snapshot examples/demo/snapshot.yaml \
      --config examples/demo/profiles.yaml)";
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("snapshot", po::value<std::string>()->required(),
                                                 "governance snapshot, JSON or YAML")(
      "config", po::value<std::string>()->required(), "profiles config, YAML or JSON")(
      "profile", po::value<std::string>(), "only this profile")(
      "now", po::value<std::string>(), "judge expiry at this RFC 3339 time instead of generated_at")(
      "output", po::value<std::string>()->default_value("text"), "text or json");
  po::variables_map vm;
  if (int rc = parse_options(args, desc, usage, teaching, vm); rc >= 0) return rc;
  const std::string format = vm["output"].as<std::string>();
  if (format != "text" && format != "json") {
    std::cerr << "error: --output must be text or json\n";
    return kExitInvalidInput;
  }
  const bool json_output = format == "json";
  Progress progress;
  progress.say("reading " + vm["snapshot"].as<std::string>() + " and " + vm["config"].as<std::string>());
  auto inputs = load_inputs_or_report(vm, json_output);
  if (!inputs) return kExitInvalidInput;
  std::vector<Finding> findings = snapshot_findings(*inputs->model);
  int rc = kExitOk;
  for (auto& cp : compile_all(*inputs, 0, report_built(progress, inputs->config.profiles.size()))) {
    if (!cp.result.errors.empty()) rc = kExitProfileFailed;
    for (auto& f : outcome_findings(cp)) findings.push_back(std::move(f));
  }
  if (format == "json") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& f : findings) out.push_back(to_json(f));
    std::cout << out.dump(1) << "\n";
  } else {
    if (findings.empty()) std::cout << "no findings\n";
    for (const auto& f : findings) {
      std::cout << "[" << to_string(f.severity) << "] " << f.code << (f.profile.empty() ? "" : " (" + f.profile + ")")
                << ": " << f.message << "\n";
    }
  }
  return rc;
}

}  // namespace tw::cli
