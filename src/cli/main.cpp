#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "json_failure.h"

namespace {

const char* kHelp = R"(tagwarden: compiles data-governance state into the policies engines enforce.

It reads a snapshot of classifications (tags on tables and columns),
clearances (a tag that only holders of a role may read), role memberships with
expiry and base grants, and compiles it per engine profile: Trino file-based
access control rules (rules.json), or for StarRocks the statements that make a
server hold the profile (plan.sql; `plan` / `apply` against a live server).

usage: tagwarden <command> [options]     (tagwarden <command> --help for more)

commands:
  compile    write each profile's artifact (Trino rules.json, StarRocks plan.sql) and findings.json
  explain    why one user is or is not cleared, and what each profile refuses them
  findings   print warnings and info about the snapshot and profiles
  serve      run the daemon: reconcile loop, signed webhook, served rules, status and metrics
  plan       print the statements that would make a StarRocks server match a profile (dry run)
  apply      apply a StarRocks profile: only the difference, tightening first
  version    print the version

exit codes: 0 ok; 1 a profile failed; 2 invalid input or usage; 3 output not written.

Start with the demo:
  tagwarden compile --snapshot examples/demo/snapshot.yaml --config examples/demo/profiles.yaml --out out/
  tagwarden explain --snapshot examples/demo/snapshot.yaml --config examples/demo/profiles.yaml --user member-sso)";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() >= 2 && args[0] == "help") {
    // `tagwarden help compile` is `tagwarden compile --help`.
    args = {args[1], "--help"};
  } else if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kHelp << "\n";
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  std::optional<std::string> profile;
  bool json = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_next = i + 1 < args.size();
    if ((a == "--output" && has_next && args[i + 1] == "json") || a == "--output=json") json = true;
    if (a == "--profile" && has_next) profile = args[i + 1];
    if (a.rfind("--profile=", 0) == 0) profile = a.substr(10);
  }
  // With --output json every failure is one document on stdout: the commands write theirs; a
  // usage error (an unknown flag, a missing --out) or an exception gets one here.
  tw::cli::StreamTee out(std::cout, json), err(std::cerr, json);
  const auto answer = [&](int rc) {
    if (json && rc != 0 && out.text().empty()) return tw::cli::print_json_failure(profile, rc, err.text());
    return rc;
  };
  try {
    if (command == "compile") return answer(tw::cli::run_compile(args));
    if (command == "explain") return answer(tw::cli::run_explain(args));
    if (command == "findings") return answer(tw::cli::run_findings(args));
    if (command == "serve") return tw::cli::run_serve(args);
    if (command == "plan") return answer(tw::cli::run_plan(args));
    if (command == "apply") return answer(tw::cli::run_apply(args));
    if (command == "version" || command == "--version") {
      if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
        std::cout
            << "usage: tagwarden version\n\nPrints the version, e.g. \"tagwarden 0.1.0\". Exit codes: 0; 2 for any "
               "argument.\n";
        return 0;
      }
      if (!args.empty()) {
        std::cerr << "error: version takes no arguments (got \"" << args[0] << "\")\n";
        return 2;
      }
      std::cout << "tagwarden 0.1.0\n";
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return answer(3);
  }
  std::cerr << "error: unknown command \"" << command << "\"\n\n" << kHelp << "\n";
  return 2;
}
