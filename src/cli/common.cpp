#include "common.h"

#include <chrono>
#include <iostream>
#include <mutex>

#include "tagwarden/model/load.h"
#include "tagwarden/util/parallel.h"
#include "tagwarden/util/text.h"

namespace tw::cli {

std::optional<Inputs> load_inputs(const std::string& snapshot_path, const std::string& config_path,
                                  const std::optional<std::string>& now, const std::optional<std::string>& profile) {
  std::size_t errors = 0;  // every "error:" line printed below, so the total matches what is listed
  ConfigLoad config = load_config_file(config_path);
  for (const auto& e : config.errors) {
    std::cerr << "error: " << config_path << ": " << one_line(e.str()) << "\n";
    ++errors;
  }
  const auto t0 = std::chrono::steady_clock::now();
  SnapshotLoad snapshot = load_snapshot_file(snapshot_path);
  const double snapshot_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& e : snapshot.errors) {
    std::cerr << "error: " << snapshot_path << ": " << one_line(e.str()) << "\n";
    ++errors;
  }
  std::optional<Timestamp> at;
  if (now) {
    at = parse_timestamp(*now, BeyondNanos::round_up);
    if (!at) {
      std::cerr << "error: --now " << quote(*now)
                << " is not an RFC 3339 time with a zone (e.g. 2026-11-30T12:00:00Z)\n";
      ++errors;
    }
  }
  if (errors == 0 && profile) {
    auto& profiles = config.config->profiles;
    std::string names;  // what to give instead
    for (const auto& p : profiles) names += (names.empty() ? "" : ", ") + p.name;
    std::erase_if(profiles, [&](const Profile& p) { return p.name != *profile; });
    if (profiles.empty()) {
      std::cerr << "error: --profile " << quote(*profile) << " is not in " << config_path
                << " (its profiles: " << (names.empty() ? "none" : names) << ")\n";
      ++errors;
    }
  }
  if (errors > 0) {
    std::cerr << errors << " error" << (errors == 1 ? "" : "s") << "; nothing was compiled\n";
    return std::nullopt;
  }
  auto snap = std::make_shared<const Snapshot>(std::move(*snapshot.snapshot));
  const auto t1 = std::chrono::steady_clock::now();
  auto model = build_model(snap, at);
  const double model_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  return Inputs{std::move(*config.config), std::move(model), snapshot_ms, model_ms};
}

std::vector<CompiledProfile> compile_all(const Inputs& inputs, std::size_t jobs,
                                         const std::function<void(CompiledProfile&)>& on_built) {
  const auto& profiles = inputs.config.profiles;
  std::vector<std::optional<CompiledProfile>> slots(profiles.size());
  std::mutex report;
  run_parallel(profiles.size(), jobs == 0 ? default_workers(profiles.size()) : jobs, [&](std::size_t i) {
    ProfileBuild b = build_profile(*inputs.model, profiles[i]);
    slots[i].emplace(
        CompiledProfile{profiles[i], std::move(b.compile), std::move(b.artifact), b.compile_ms, b.render_ms});
    if (on_built) {
      std::lock_guard lock(report);
      on_built(*slots[i]);
    }
  });
  std::vector<CompiledProfile> out;
  for (auto& slot : slots) out.push_back(std::move(*slot));
  return out;
}

std::vector<Finding> outcome_findings(const CompiledProfile& cp) {
  std::vector<Finding> out = cp.result.findings;
  for (const auto& err : cp.result.errors) out.push_back({Severity::Error, "profile_failed", err, cp.profile.name, {}});
  return out;
}

}  // namespace tw::cli
