#include <iostream>

#include "commands.h"
#include "common.h"
#include "json_failure.h"
#include "options.h"
#include "progress.h"
#include "tagwarden/compile/explain.h"
#include "tagwarden/engines/trino/rules.h"

namespace tw::cli {

int run_explain(const std::vector<std::string>& args) {
  const char* usage =
      "usage: tagwarden explain --snapshot S --config C --user U [--profile P] [--now T] [--output text|json]";
  const char* teaching = R"(Explains, for platform user U, each gated classification: Cleared or Not
cleared in the engines, with the reason for every clearance row:
  held directly                     the only way to be cleared in an engine
  held through group X              engines count only roles held directly
  expired at T                      the assignment stopped counting at T
  not held
  group requirement                 not enforced in engines (no group names reach them)
then, per profile, the objects and columns the user is refused and which
granted privileges the gates withhold. Platform admins are not exempt.

In --output json each profile also says whether U may create new names:
"creation_restricted" (the materialized-view rule applies to U: not cleared
for every gated tag of the profile), and "may_create_tables_views",
"may_create_materialized_views" and "may_create_tables_views_mvs": true only
where some grant gives U OWNERSHIP of names the snapshot does not list and the
rule does not take it (on Trino it takes all three; on StarRocks only
materialized views).

A profile that fails to compile (e.g. a StarRocks profile over its
max_policies_per_tag) is listed with its errors ("failed to compile, nothing
of this snapshot is enforced from it"; "status": "failed" and "errors" in
--output json), and the other profiles are still explained.

On a terminal, progress lines go to stderr while the profiles compile.

Exit codes: 0 explained; 1 at least one profile failed to compile (the others
were explained, as `compile` exits 1); 2 invalid input or unknown user (with
--output json also one JSON document on stdout: {"profile", "ok": false,
"exit_code", "errors"}).

Example:
  tagwarden explain --snapshot examples/demo/snapshot.yaml \
      --config examples/demo/profiles.yaml --user member-sso)";
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("snapshot", po::value<std::string>()->required(),
                                                 "governance snapshot, JSON or YAML")(
      "config", po::value<std::string>()->required(), "profiles config, YAML or JSON")(
      "user", po::value<std::string>()->required(), "platform user name")("profile", po::value<std::string>(),
                                                                          "only this profile")(
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
  const std::vector<CompiledProfile> compiled =
      compile_all(*inputs, 0, report_built(progress, inputs->config.profiles.size()));
  std::vector<const ProfileCompile*> outcomes;
  int rc = kExitOk;
  for (const auto& cp : compiled) {
    outcomes.push_back(&cp.result);
    if (!cp.result.policy_set) rc = kExitProfileFailed;
  }
  try {
    const Explanation e =
        explain_compiled(*inputs->model, inputs->config.profiles, outcomes, vm["user"].as<std::string>(),
                         {{Engine::Trino, trino::enforced_expressions}});
    if (format == "json") {
      std::cout << to_json(e).dump(1) << "\n";
    } else {
      std::cout << to_text(e);
    }
  } catch (const std::invalid_argument& e) {  // an unknown --user
    std::cerr << "error: " << e.what() << "\n";
    return json_output ? print_json_failure(optional_string(vm, "profile"), kExitInvalidInput, e.what())
                       : kExitInvalidInput;
  }
  return rc;
}

}  // namespace tw::cli
