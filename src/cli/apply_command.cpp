#include <iostream>

#include "commands.h"
#include "common.h"
#include "json_failure.h"
#include "options.h"
#include "starrocks_prelude.h"
#include "tagwarden/engines/starrocks/apply.h"
#include "tagwarden/engines/starrocks/server.h"

namespace tw::cli {
namespace {

namespace sr = tw::starrocks;

const char* kUsage =
    "usage: tagwarden apply --snapshot S --config C --profile P [--dsn DSN] [--password-file F] "
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

Each of --dsn, --password-file, --dialect and --masking, when not given, is
the profile's key (dsn, password_file, dialect, masking); a flag overrides
it. So a profile with `dialect: mysql` is applied in MySQL syntax without
--dialect. With neither --dsn nor a `dsn` key in P, apply refuses (exit 2).

Exit codes: 0 the server holds the plan; 1 the profile failed to compile or
render (nothing ran), or drift with --fail-on-drift; 2 invalid input or
arguments; 3 the server could not be reached, or refused a statement (what ran
is safe: see the summary).
With --output json a failure is one JSON document on stdout too:
{"profile", "ok": false, "exit_code", "errors"} (the errors also go to stderr).

Example:
  TAGWARDEN_STARROCKS_PASSWORD=... tagwarden apply --snapshot snapshot.yaml \
      --config profiles.yaml --profile starrocks_main --dsn mysql://tagwarden@fe.internal:9030)";

}  // namespace

int run_apply(const std::vector<std::string>& args) {
  po::options_description desc("Options");
  add_starrocks_options(desc, true);
  po::variables_map vm;
  if (int rc = parse_options(args, desc, kUsage, kTeaching, vm); rc >= 0) return rc;
  StarRocksPrelude pre;
  const bool json_output = vm["output"].as<std::string>() == "json";
  StderrCapture failures(json_output);
  if (int rc = starrocks_prelude(vm, true, pre); rc >= 0) {
    const std::string text = failures.release();
    return json_output ? print_json_failure(vm["profile"].as<std::string>(), rc, text) : rc;
  }
  failures.release();
  const std::string& format = pre.format;
  const ProfileCompile& compiled = pre.compiled;
  sr::ServerSession& server = *pre.server;
  const sr::Plan& plan = *pre.plan;
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
            << (r.attempts == 1 ? "" : "s") << "; the profile " << (r.ok ? "holds " : "would hold ")
            << plan.desired.roles.size() << " roles and " << plan.desired.masks.size() << " masking policies ("
            << plan.prefix << "*)" << (r.ok ? "" : ", not what the server holds now") << "\n";
  for (const auto& sql : r.executed) std::cout << "  ran: " << sql << "\n";
  for (const auto& n : r.notes) std::cout << "  note: " << n << "\n";
  for (const auto& e : r.errors) std::cout << "  error: " << e << "\n";
  for (const auto& f : findings) std::cout << "  [" << to_string(f.severity) << "] " << f.message << "\n";
  return rc;
}

}  // namespace tw::cli
