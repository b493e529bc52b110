#pragma once
// Boost.Program_options glue shared by subcommands: parse, print --help.

#include <boost/program_options.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <vector>
#include "common.h"
#include "json_failure.h"

namespace tw::cli {

namespace po = boost::program_options;

/// Returns -1 to continue, or an exit code (0 after --help, 2 on a usage error).
inline int parse_options(const std::vector<std::string>& args, const po::options_description& desc,
                         const std::string& usage, const std::string& teaching, po::variables_map& vm) {
  try {
    const po::parsed_options parsed = po::command_line_parser(args).options(desc).run();
    // No command takes positional arguments; one is a mistake (a flag's value split off, a path
    // without its flag), never something to ignore silently.
    for (const auto& o : parsed.options) {
      if (o.position_key >= 0 && !o.value.empty())
        throw po::error("unexpected argument \"" + o.value.front() + "\" (every argument is a --flag)");
    }
    po::store(parsed, vm);
    if (vm.count("help")) {
      std::cout << usage << "\n\n" << teaching << "\n\n" << desc << "\n";
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "error: " << e.what() << "\n" << usage << "\n(see --help)\n";
    return 2;
  }
  return -1;
}

/// The value of an optional string option, if given.
inline std::optional<std::string> optional_string(const po::variables_map& vm, const char* key) {
  if (vm.count(key)) return vm[key].as<std::string>();
  return std::nullopt;
}

/// load_inputs() from the --snapshot, --config, --now and --profile every compiling command takes.
inline std::optional<Inputs> load_inputs(const po::variables_map& vm) {
  return load_inputs(vm["snapshot"].as<std::string>(), vm["config"].as<std::string>(), optional_string(vm, "now"),
                     optional_string(vm, "profile"));
}

/// load_inputs; with --output json a refused input is also the failure document on stdout
/// (json_failure.h), as compile, findings and explain answer it.
inline std::optional<Inputs> load_inputs_or_report(const po::variables_map& vm, bool json_output) {
  StderrCapture refusals(json_output);
  auto inputs = load_inputs(vm);
  const std::string text = refusals.release();
  if (!inputs && json_output) print_json_failure(optional_string(vm, "profile"), kExitInvalidInput, text);
  return inputs;
}

}  // namespace tw::cli
