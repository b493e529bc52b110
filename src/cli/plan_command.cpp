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
    "usage: tagwarden plan --snapshot S --config C --profile P [--dsn DSN] [--password-file F] "
    "[--dialect starrocks|mysql] [--masking auto|on|off] [--now T] [--output text|json]";

const char* kTeaching = R"(Prints the statements that would make a StarRocks server hold what profile P
allows, and runs none of them (a dry run).

Without --dsn the plan is for an empty server and probes nothing: masking is
then the profile's `masking` key (or --masking). With `on` it renders masking
and row access policies (gated and masked columns, row filters) as for a
server that has them; with `auto` (the default: nothing to probe) or `off` it
assumes none, so a gated, masked or filtered read makes its readers lose
SELECT on the whole table (coarsened, never dropped; a warning names the table
and the columns).

With --dsn tagwarden connects, probes what the server can do (masking
policies, whether roles are active at login), reads the roles it owns
(tw_<hash of P>_*), their grants and members and its masking policies, and
prints only the difference, in the order apply runs it: prepare, tighten
(masks, revokes), widen (grants, then memberships), cleanup. Grants made
outside tagwarden that give a user more than P allows are reported as drift.
The capabilities are apply's: masking on against a server without masking
policies is refused (exit 2), and row access policies are used only where the
server has them.

The DSN is mysql://user@host:port (StarRocks FE query port, usually 9030),
with options ?tls=disabled|preferred|required|verify-ca|verify-identity
&tls-ca=PATH&tls-cert=PATH&tls-key=PATH&connect-timeout=S&read-timeout=S
&retries=N&backoff-ms=MS. The password comes from TAGWARDEN_STARROCKS_PASSWORD,
else from --password-file; never from the command line.

--dialect mysql speaks MySQL/MariaDB instead of StarRocks (used by the tests;
no catalogs, no masking policies).

Each of --dialect, --masking and --password-file, when not given, is the
profile's key (dialect, masking, password_file); a flag overrides it. The
profile's `dsn` is not used by plan: it connects only to a --dsn given on the
command line (apply uses the profile's dsn by default; to see what apply will
run, pass the same server with --dsn).

Exit codes: 0 planned; 1 the profile failed to compile or render; 2 invalid
input or arguments; 3 the server could not be reached or read.
With --output json a failure is one JSON document on stdout too:
{"profile", "ok": false, "exit_code", "errors"} (the errors also go to stderr).

Example:
  tagwarden plan --snapshot examples/demo/snapshot.yaml \
      --config examples/demo/starrocks-profiles.yaml --profile starrocks_main)";

}  // namespace

int run_plan(const std::vector<std::string>& args) {
  po::options_description desc("Options");
  add_starrocks_options(desc, false);
  po::variables_map vm;
  if (int rc = parse_options(args, desc, kUsage, kTeaching, vm); rc >= 0) return rc;
  StarRocksPrelude pre;
  const bool json_output = vm["output"].as<std::string>() == "json";
  StderrCapture failures(json_output);
  if (int rc = starrocks_prelude(vm, false, pre); rc >= 0) {
    const std::string text = failures.release();
    return json_output ? print_json_failure(vm["profile"].as<std::string>(), rc, text) : rc;
  }
  const std::string& format = pre.format;
  const ProfileCompile& compiled = pre.compiled;
  std::optional<sr::ServerSession>& server = pre.server;
  const sr::Plan& plan = *pre.plan;
  std::vector<Finding> findings = compiled.findings;
  findings.insert(findings.end(), plan.findings.begin(), plan.findings.end());
  std::vector<sr::Statement> statements;
  if (server) {
    findings.insert(findings.end(), server->probe.findings.begin(), server->probe.findings.end());
    sr::ApplyOptions options;
    options.dry_run = true;
    options.retries = server->settings.retries;
    options.backoff_ms = server->settings.backoff_ms;
    sr::ApplyResult r = sr::apply_plan(plan, *server->connection, options);
    if (!r.ok) {
      for (const auto& e : r.errors) std::cerr << "error: " << e << "\n";
      const std::string text = failures.release();
      return json_output ? print_json_failure(plan.profile, kExitOutputFailed, text) : kExitOutputFailed;
    }
    statements = std::move(r.planned);
    findings.insert(findings.end(), r.findings.begin(), r.findings.end());
  } else {
    statements = sr::diff_statements(plan, sr::LiveState{});
  }

  failures.release();
  const std::string target =
      server ? server->settings.describe() + " (" + server->probe.version + ")" : "an empty server";
  if (format == "json") {
    nlohmann::json doc = sr::statements_json(plan, statements);
    doc["target"] = target;
    doc["findings"] = nlohmann::json::array();
    for (const auto& f : findings) doc["findings"].push_back(to_json(f));
    std::cout << doc.dump(1) << "\n";
    return kExitOk;
  }
  std::vector<std::string> header = {"tagwarden plan for profile " + plan.profile + " against " + target + ": " +
                                         std::to_string(statements.size()) + " statements (dry run, nothing was run)",
                                     std::string("dialect ") + sr::to_string(plan.dialect) + ", masking policies " +
                                         (plan.capabilities.masking_policies ? "on" : "off") +
                                         ", owned names start with " + plan.prefix};
  for (const auto& f : findings) header.push_back(std::string(to_string(f.severity)) + ": " + f.message);
  std::cout << sr::statements_text(plan, statements, header);
  return kExitOk;
}

}  // namespace tw::cli
