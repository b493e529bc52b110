#include <iostream>

#include "commands.h"
#include "common.h"
#include "options.h"
#include "tagwarden/engines/starrocks/apply.h"
#include "tagwarden/engines/starrocks/server.h"

namespace tw::cli {
namespace {

namespace sr = tw::starrocks;

const char* kUsage =
    "usage: tagwarden apply --snapshot S --config C --profile P --dsn DSN [--password-file F] "
    "[--dialect starrocks|mysql] [--masking auto|on|off] [--now T] [--fail-on-drift] [--output text|json]";

const char* kTeaching = R"(Makes a StarRocks server hold what profile P allows, and nothing else that
tagwarden owns. Run `tagwarden plan` with the same arguments first to see the
statements.

tagwarden owns the roles named tw_<hash of P>_* (their grants and members) and
its masking policies; it never touches a grant, role or policy it does not
own. It reads them, computes the difference to the plan and runs only that:
a second apply of the same plan runs nothing. Statements run tighten first
(attach masks, drop roles, revoke memberships and privileges) and widen last
(grant privileges, then memberships), so at every moment each user holds at
most what the old or the new policy allows. If the connection is cut or killed
at any statement, apply reconnects with backoff, re-reads and continues; if it
gives up, running it again converges. A statement the server refuses while
tightening stops the run before anything widens.

Users must already exist on the server as 'user'@'%' (tagwarden creates no
users); the roles of a missing user wait, with a warning. Grants made outside
tagwarden that give a user more than P allows are reported as drift (a
warning quoting the grant); --fail-on-drift makes them exit 1.

Credentials: --dsn mysql://user@host:port[?tls=...&connect-timeout=...&
retries=...], password from TAGWARDEN_STARROCKS_PASSWORD or --password-file.
See `tagwarden plan --help` for the DSN options.

Exit codes: 0 the server holds the plan; 1 the profile failed to compile or
render (nothing ran), or drift with --fail-on-drift; 2 invalid input or
arguments; 3 the server could not be reached, or refused a statement (what ran
is safe: see the summary).

Example:
  TAGWARDEN_STARROCKS_PASSWORD=... tagwarden apply --snapshot snapshot.yaml \
      --config profiles.yaml --profile starrocks_main --dsn mysql://tagwarden@fe.internal:9030)";

}  // namespace

int run_apply(const std::vector<std::string>& args) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("snapshot", po::value<std::string>()->required(),
                                                 "governance snapshot, JSON or YAML")(
      "config", po::value<std::string>()->required(), "profiles config, YAML or JSON")(
      "profile", po::value<std::string>()->required(), "the StarRocks profile to apply")(
      "dsn", po::value<std::string>()->required(), "the server: mysql://user@host:port[?options]")(
      "password-file", po::value<std::string>(), "file whose first line is the password (env wins)")(
      "dialect", po::value<std::string>()->default_value("starrocks"), "starrocks or mysql")(
      "masking", po::value<std::string>()->default_value("auto"), "masking policies: auto (probe), on, off")(
      "now", po::value<std::string>(), "judge expiry at this RFC 3339 time instead of generated_at")(
      "fail-on-drift", po::bool_switch(), "exit 1 when grants made outside tagwarden exceed the policy")(
      "output", po::value<std::string>()->default_value("text"), "summary format: text or json");
  po::variables_map vm;
  if (int rc = parse_options(args, desc, kUsage, kTeaching, vm); rc >= 0) return rc;
  const std::string format = vm["output"].as<std::string>();
  const std::string masking = vm["masking"].as<std::string>();
  const auto dialect = sr::parse_dialect(vm["dialect"].as<std::string>());
  if ((format != "text" && format != "json") || !dialect ||
      (masking != "auto" && masking != "on" && masking != "off")) {
    std::cerr << "error: --output is text or json, --dialect starrocks or mysql, --masking auto, on or off\n";
    return kExitInvalidInput;
  }
  auto inputs = load_inputs(vm);
  if (!inputs) return kExitInvalidInput;
  const Profile& profile = inputs->config.profiles.front();
  if (profile.engine != Engine::StarRocks) {
    std::cerr << "error: profile " << profile.name << " is a " << to_string(profile.engine)
              << " profile; plan and apply are for StarRocks profiles\n";
    return kExitInvalidInput;
  }
  ProfileCompile compiled = compile_profile(*inputs->model, profile);
  if (!compiled.policy_set) {
    std::cerr << "profile " << profile.name << " FAILED (nothing was applied; the server keeps its grants):\n";
    for (const auto& e : compiled.errors) std::cerr << "  " << e << "\n";
    return kExitProfileFailed;
  }
  sr::OpenResult opened =
      sr::open_server(vm["dsn"].as<std::string>(), optional_string(vm, "password-file"), *dialect, profile.name);
  if (!opened.session) {
    std::cerr << "error: " << opened.error << "\n";
    return opened.invalid_input ? kExitInvalidInput : kExitOutputFailed;
  }
  sr::ServerSession& server = *opened.session;
  sr::Capabilities caps = server.probe.capabilities;
  if (masking == "on" && !caps.masking_policies) {
    std::cerr << "error: --masking on, but " << server.settings.describe()
              << " does not implement masking policies (SHOW MASKING POLICIES failed)\n";
    return kExitInvalidInput;
  }
  if (masking == "off") caps.masking_policies = false;
  sr::PlanRender rendered = sr::render_plan(*compiled.policy_set, {*dialect, caps});
  if (!rendered.plan) {
    std::cerr << "profile " << profile.name << " cannot be rendered (nothing was applied):\n";
    for (const auto& e : rendered.errors) std::cerr << "  " << e << "\n";
    return kExitProfileFailed;
  }
  const sr::Plan& plan = *rendered.plan;
  sr::ApplyOptions options;
  options.retries = server.settings.retries;
  options.backoff_ms = server.settings.backoff_ms;
  sr::ApplyResult r = sr::apply_plan(plan, *server.connection, options);

  std::vector<Finding> findings = compiled.findings;
  const std::vector<Finding>* lists[] = {&plan.findings, &server.probe.findings, &r.findings};
  for (const auto* list : lists) {
    findings.insert(findings.end(), list->begin(), list->end());
  }
  bool drift = false;
  for (const auto& f : findings) drift = drift || f.code == "starrocks_drift";
  int rc = !r.ok ? kExitOutputFailed : (drift && vm["fail-on-drift"].as<bool>() ? kExitProfileFailed : kExitOk);

  if (format == "json") {
    nlohmann::json doc = {{"profile", plan.profile},
                          {"server", server.settings.describe()},
                          {"version", server.probe.version},
                          {"dialect", sr::to_string(plan.dialect)},
                          {"masking_policies", plan.capabilities.masking_policies},
                          {"ok", r.ok},
                          {"planned", r.planned.size()},
                          {"statements_run", r.statements},
                          {"executed", r.executed},
                          {"attempts", r.attempts},
                          {"errors", r.errors},
                          {"notes", r.notes},
                          {"roles", plan.desired.roles.size()},
                          {"masks", plan.desired.masks.size()}};
    doc["findings"] = nlohmann::json::array();
    for (const auto& f : findings) doc["findings"].push_back(to_json(f));
    std::cout << doc.dump(1) << "\n";
    return rc;
  }
  std::cout << (r.ok ? "applied" : "FAILED to apply") << " profile " << plan.profile << " to "
            << server.settings.describe() << " (" << server.probe.version << ", dialect " << sr::to_string(plan.dialect)
            << ", masking policies " << (plan.capabilities.masking_policies ? "on" : "off") << "): " << r.statements
            << " of " << r.planned.size() << " planned statements ran in " << r.attempts << " attempt"
            << (r.attempts == 1 ? "" : "s") << "; tagwarden owns " << plan.desired.roles.size() << " roles and "
            << plan.desired.masks.size() << " masking policies (" << plan.prefix << "*)\n";
  for (const auto& sql : r.executed) std::cout << "  ran: " << sql << "\n";
  for (const auto& n : r.notes) std::cout << "  note: " << n << "\n";
  for (const auto& e : r.errors) std::cout << "  error: " << e << "\n";
  for (const auto& f : findings) std::cout << "  [" << to_string(f.severity) << "] " << f.message << "\n";
  return rc;
}

}  // namespace tw::cli
