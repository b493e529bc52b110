#pragma once
// What every subcommand shares: loading inputs with exit code 2 on invalid
// input, compiling the selected profiles, and the exit codes themselves.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tagwarden/compile/compiler.h"
#include "tagwarden/config/profile.h"
#include "tagwarden/engines/registry.h"

namespace tw::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitProfileFailed = 1;
inline constexpr int kExitInvalidInput = 2;
inline constexpr int kExitOutputFailed = 3;

struct Inputs {
  Config config;
  std::shared_ptr<const Model> model;
  double snapshot_ms = 0;  ///< reading, parsing and validating the snapshot (wall clock)
  double model_ms = 0;     ///< building the model from it
};

/// Prints every error (to stderr) and returns nullopt on invalid input.
std::optional<Inputs> load_inputs(const std::string& snapshot_path, const std::string& config_path,
                                  const std::optional<std::string>& now, const std::optional<std::string>& profile);

struct CompiledProfile {
  Profile profile;
  ProfileCompile result;
  std::optional<Artifact> artifact;  ///< set when the profile compiled and rendered
  double compile_ms = 0;             ///< deciding, wall clock
  double render_ms = 0;              ///< rendering the artifact
};

/// Builds every profile, `jobs` at a time (0: as many as the machine has cores); the
/// results are the same, in config order, whatever the number.
/// `on_built`, when given, is called once per profile as soon as it is built (from the worker
/// threads, one call at a time), for progress reports; it may write the profile out and drop its
/// PolicySet and artifact, so that no more than `jobs` of them are held at once.
std::vector<CompiledProfile> compile_all(const Inputs& inputs, std::size_t jobs = 0,
                                         const std::function<void(CompiledProfile&)>& on_built = {});

/// The findings of one compiled profile as `compile` (findings.json) and `findings` report them:
/// its own, then one error `profile_failed` per reason it failed.
std::vector<Finding> outcome_findings(const CompiledProfile& cp);

}  // namespace tw::cli
