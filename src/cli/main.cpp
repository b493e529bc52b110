#include <iostream>
#include <string>
#include <vector>

#include "commands.h"

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
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    std::cout << kHelp << "\n";
    return args.empty() ? 2 : 0;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  try {
    if (command == "compile") return tw::cli::run_compile(args);
    if (command == "explain") return tw::cli::run_explain(args);
    if (command == "findings") return tw::cli::run_findings(args);
    if (command == "serve") return tw::cli::run_serve(args);
    if (command == "plan") return tw::cli::run_plan(args);
    if (command == "apply") return tw::cli::run_apply(args);
    if (command == "version" || command == "--version") {
      std::cout << "tagwarden 0.1.0\n";
      return 0;
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 3;
  }
  std::cerr << "error: unknown command \"" << command << "\"\n\n" << kHelp << "\n";
  return 2;
}
