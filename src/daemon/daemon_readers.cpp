// What the daemon answers about itself: served artifacts, readiness, status, findings,
// explain, validate and metrics. Thread-safe readers.
#include <algorithm>
#include <sstream>

#include "daemon.h"
#include "daemon_helpers.h"
#include "policy_diff.h"
#include "tagwarden/compile/compiler.h"
#include "tagwarden/compile/explain.h"
#include "tagwarden/engines/trino/rules.h"
#include "tagwarden/model/load.h"

namespace tw {

using daemon_helpers::findings_json;
using daemon_helpers::judged_at;

namespace {
// Status fields that are unset read as JSON null, not "".
nlohmann::json null_if_empty(const std::string& text) { return text.empty() ? nlohmann::json() : nlohmann::json(text); }
}  // namespace

std::shared_ptr<const PublishedArtifact> Daemon::published(const std::string& profile) const {
  auto map = published_.load();
  auto it = map->find(profile);
  return it == map->end() ? nullptr : it->second;
}

std::optional<Daemon::ProfileKind> Daemon::kind_of(const std::string& profile) const {
  const auto engines = engines_.load();
  const auto it = engines->find(profile);
  return it == engines->end() ? std::nullopt : std::optional<ProfileKind>(it->second);
}

namespace {

// A profile serves what its engine reads: the artifact, and for a Trino profile in OPA mode the
// decisions too (an artifact restored from the state directory has none: every answer is a refusal).
bool serves(const Profile& p, const PublishedMap& map) {
  const auto it = map.find(p.name);
  if (it == map.end()) return false;
  return !(p.engine == Engine::Trino && p.access_control == TrinoAccessControl::Opa && !it->second->opa);
}

}  // namespace

bool Daemon::ready(std::vector<std::string>* not_ready) const {
  std::lock_guard lock(mu_);
  bool ok = true;
  auto map = published_.load();
  for (const auto& p : config_.profiles) {
    if (!serves(p, *map)) {
      ok = false;
      if (not_ready) not_ready->push_back(p.name);
    }
  }
  return ok;
}

std::vector<std::string> Daemon::degraded() const {
  std::lock_guard lock(mu_);
  auto map = published_.load();
  std::vector<std::string> why;
  if (!source_last_error_.empty()) why.push_back("source");
  if (!config_reload_error_.empty()) why.push_back("config_reload");
  for (const auto& p : config_.profiles) {
    const auto it = profiles_.find(p.name);
    if (it == profiles_.end()) continue;
    if (!it->second.last_error.empty()) why.push_back("profile:" + p.name);
    if (p.rules_file && !it->second.rules_file_error.empty()) why.push_back("rules_file:" + p.name);
    if (!it->second.state_error.empty()) why.push_back("state:" + p.name);
    // A file-mode Trino profile restored from the state directory serves its rules, but its OPA
    // endpoint refuses everything until the first good compile.
    if (p.engine == Engine::Trino && p.access_control == TrinoAccessControl::File) {
      const auto served = map->find(p.name);
      if (served != map->end() && !served->second->opa) why.push_back("opa_decisions:" + p.name);
    }
  }
  return why;
}

nlohmann::json Daemon::status() const {
  std::lock_guard lock(mu_);
  auto map = published_.load();
  nlohmann::json profiles = nlohmann::json::array();
  for (const auto& p : config_.profiles) {
    const auto& st = profiles_.at(p.name);
    nlohmann::json j = {{"name", p.name},
                        {"engine", st.engine},
                        {"compiles", st.compiles},
                        {"failures", st.failures},
                        {"last_duration_ms", st.last_duration_ms},
                        {"findings", findings_json(st.findings)}};
    j["last_success_at"] = null_if_empty(st.last_success_at);
    j["last_error"] = null_if_empty(st.last_error);
    j["last_errors"] = st.last_errors;
    j["last_error_at"] = null_if_empty(st.last_error_at);
    j["state_error"] = null_if_empty(st.state_error);
    if (p.rules_file) {
      // Whether the file Trino may read in file mode holds what the rules URL serves.
      j["rules_file"] = {{"path", *p.rules_file},
                         {"holds_served", st.rules_file_error.empty()},
                         {"error", null_if_empty(st.rules_file_error)},
                         {"error_at", null_if_empty(st.rules_file_error_at)}};
    }
    if (st.server_withdrawal_pending || !st.server_withdrawn_at.empty()) {
      j["server_withdrawal"] = {{"pending", st.server_withdrawal_pending},
                                {"error", null_if_empty(st.server_withdrawal_error)},
                                {"withdrawn_at", null_if_empty(st.server_withdrawn_at)}};
    }
    if (auto it = map->find(p.name); it != map->end()) {
      j["artifact"] = {{"sha256", it->second->artifact.sha256},    {"version", it->second->version},
                       {"rules", it->second->artifact.rules},      {"bytes", it->second->artifact.bytes->size()},
                       {"published_at", it->second->published_at}, {"restored_from_state", it->second->restored}};
      j["ready"] = serves(p, *map);
    } else {
      j["artifact"] = nullptr;
      j["ready"] = false;
    }
    profiles.push_back(std::move(j));
  }
  nlohmann::json source = {{"describe", source_->describe()}};
  source["last_ok_at"] = null_if_empty(source_last_ok_at_);
  source["last_error"] = null_if_empty(source_last_error_);
  source["last_error_at"] = null_if_empty(source_last_error_at_);
  // Every reason the current snapshot is refused, not only the first: an operator fixing a
  // generated snapshot wants the whole list in one look. Bounded so a wholly broken snapshot
  // cannot make the status page megabytes long.
  constexpr std::size_t kMaxListedErrors = 100;
  nlohmann::json listed = nlohmann::json::array();
  for (std::size_t i = 0; i < snapshot_errors_.size() && i < kMaxListedErrors; ++i)
    listed.push_back(snapshot_errors_[i]);
  source["snapshot_errors"] = std::move(listed);
  source["snapshot_error_count"] = snapshot_errors_.size();
  nlohmann::json config = {
      {"file", config_path_}, {"loaded_at", config_loaded_at_}, {"pending_restart", config_pending_restart_}};
  config["last_reload_error"] = null_if_empty(config_reload_error_);
  config["last_reload_error_at"] = null_if_empty(config_reload_error_at_);
  return {{"generation", generation_},
          {"now", format_timestamp(clock_.now())},
          {"next_expiry", next_expiry_ ? nlohmann::json(format_timestamp(*next_expiry_)) : nlohmann::json()},
          {"source", source},
          {"config", config},
          {"snapshot_findings", findings_json(snapshot_findings_)},
          {"profiles", profiles}};
}

nlohmann::json Daemon::findings() const {
  std::lock_guard lock(mu_);
  std::vector<Finding> all = snapshot_findings_;
  for (const auto& [name, st] : profiles_) all.insert(all.end(), st.findings.begin(), st.findings.end());
  return findings_json(all);
}

nlohmann::json Daemon::explain(const std::string& user) const {
  std::shared_ptr<const Model> model;
  std::vector<PolicySet> sets;
  {
    std::lock_guard lock(mu_);
    model = model_;
    for (const auto& p : config_.profiles) {
      if (auto ps = profiles_.at(p.name).policy_set) sets.push_back(*ps);
    }
  }
  if (!model) throw std::runtime_error("no snapshot has been compiled yet");
  return to_json(explain_user(*model, sets, user, {{Engine::Trino, trino::enforced_expressions}}, config_.profiles));
}

std::pair<unsigned, nlohmann::json> Daemon::validate(std::string_view text) const {
  SnapshotLoad loaded = parse_snapshot(text);
  if (!loaded.snapshot) {
    nlohmann::json errors = nlohmann::json::array();
    for (const auto& e : loaded.errors) errors.push_back(e.str());
    return {422, {{"valid", false}, {"errors", errors}}};
  }
  const Timestamp at = judged_at(clock_.now(), *loaded.snapshot);
  auto model = build_model(std::make_shared<const Snapshot>(std::move(*loaded.snapshot)), at);
  // What is served now, and the policy it was compiled from when this process compiled it.
  struct Baseline {
    std::shared_ptr<const PublishedArtifact> served;
    std::shared_ptr<const PolicySet> policy;  ///< null: deny-all is served, or the policy is not known
    std::string compiled_at;
  };
  std::vector<Profile> profiles;
  std::map<std::string, Baseline> baselines;
  {
    std::lock_guard lock(mu_);
    profiles = config_.profiles;
    auto map = published_.load();
    for (const auto& p : profiles) {
      Baseline& b = baselines[p.name];
      if (auto it = map->find(p.name); it != map->end()) b.served = it->second;
      const auto& st = profiles_.at(p.name);
      // The last good PolicySet describes the served artifact only if that artifact is the one
      // it was rendered into (not one restored from state_dir, nor an older one a failed
      // publish or apply left in force).
      if (b.served && st.policy_set && !b.served->restored && st.artifact_sha256 == b.served->artifact.sha256) {
        b.policy = st.policy_set;
        b.compiled_at = st.last_success_at;
      }
    }
  }
  nlohmann::json out = nlohmann::json::array();
  bool ok = true;
  for (const auto& p : profiles) {
    ProfileBuild build = build_profile(*model, p);
    if (!build.artifact) {
      ok = false;
      out.push_back({{"profile", p.name}, {"status", "failed"}, {"errors", build.compile.errors}});
      continue;
    }
    const Baseline& b = baselines[p.name];
    const std::string before =
        b.served ? *b.served->artifact.bytes : (p.engine == Engine::Trino ? trino::deny_all_rules().text : "");
    // With an artifact served whose policy is unknown, who gains and loses access cannot be
    // said: reporting it against nothing would list every access as gained.
    const bool known = !b.served || b.policy;
    nlohmann::json d =
        diff_policy(b.policy.get(), before, *build.compile.policy_set, *build.artifact->bytes, 500, known);
    if (!b.served) {
      d["baseline"] = {{"served", "deny-all"}};
    } else if (known) {
      d["baseline"] = {{"served", "artifact"},
                       {"sha256", b.served->artifact.sha256},
                       {"version", b.served->version},
                       {"compiled_at", b.compiled_at}};
    } else {
      d["baseline"] = nullptr;
      d["baseline_unknown"] =
          std::string("the served artifact (sha256 ") + b.served->artifact.sha256 +
          (b.served->restored ? ", restored from state_dir" : "") +
          ") was not compiled by a successful compile of this process, so the policy it grants is not known: "
          "access_changes and changes are null, only rules are compared. A successful recompile makes it known.";
    }
    d["status"] = "ok";
    d["findings"] = findings_json(build.compile.findings);
    out.push_back(std::move(d));
  }
  return {ok ? 200u : 422u, {{"valid", ok}, {"profiles", out}}};
}

std::string Daemon::metrics() const {
  std::lock_guard lock(mu_);
  std::ostringstream m;
  auto map = published_.load();
  // Each family is one group: its HELP and TYPE, then its samples (the text format requires it; a
  // parser otherwise loses the types). A counter keyed by profile is exported at 0 from the start,
  // so that an alert on its increase fires on the first event too.
  enum class Labels { None, Profile, Other };
  struct Counter {
    const char* name;
    const char* help;
    Labels labels;
  };
  static const Counter kCounters[] = {
      {"tagwarden_compiles_total", "Profile compiles attempted.", Labels::Profile},
      {"tagwarden_compile_failures_total", "Profile compiles that failed (the last good artifact stayed in force).",
       Labels::Profile},
      {"tagwarden_artifacts_withdrawn_total",
       "Artifacts withdrawn past their valid_until (deny-all served until a good compile).", Labels::Profile},
      {"tagwarden_rules_file_rewrites_total",
       "Rules files put back after something else replaced, changed or removed them.", Labels::Profile},
      {"tagwarden_state_write_failures_total",
       "Served artifacts whose bytes could not be stored in state_dir (a restart serves deny-all).", Labels::Profile},
      {"tagwarden_apply_statements_total", "Statements applied to StarRocks servers.", Labels::Profile},
      {"tagwarden_apply_failures_total", "Applies to StarRocks servers that failed.", Labels::Profile},
      {"tagwarden_server_withdrawals_total",
       "Withdrawals of every user from the roles tagwarden owns on a StarRocks server.", Labels::Profile},
      {"tagwarden_server_withdrawal_failures_total", "Such withdrawals that failed (retried after every pass).",
       Labels::Profile},
      {"tagwarden_source_errors_total", "Snapshot fetches that failed.", Labels::None},
      {"tagwarden_snapshot_invalid_total", "Fetched snapshots refused by validation.", Labels::None},
      {"tagwarden_webhooks_total", "Webhook requests by outcome.", Labels::Other},
      {"tagwarden_reconciles_total", "Passes of the reconcile loop.", Labels::None},
      {"tagwarden_reconcile_failures_total",
       "Passes that failed as a whole (e.g. out of memory); the last good artifacts stayed served.", Labels::None},
      {"tagwarden_config_reload_failures_total",
       "SIGHUP reloads whose config was refused (the previous config kept running).", Labels::None},
  };
  const auto family_of = [](const std::string& key) { return key.substr(0, key.find('{')); };
  for (const auto& c : kCounters) {
    m << "# HELP " << c.name << " " << c.help << "\n# TYPE " << c.name << " counter\n";
    const std::string name = c.name;
    switch (c.labels) {
      case Labels::None: {
        const auto it = counters_.find(name);
        m << name << " " << (it == counters_.end() ? 0 : it->second) << "\n";
        break;
      }
      case Labels::Profile:
        for (const auto& p : config_.profiles) {
          const std::string key = name + "{profile=\"" + p.name + "\"}";
          const auto it = counters_.find(key);
          m << key << " " << (it == counters_.end() ? 0 : it->second) << "\n";
        }
        // A profile removed by a reload keeps what it counted.
        for (const auto& [key, value] : counters_) {
          if (family_of(key) != name) continue;
          const bool configured = std::any_of(config_.profiles.begin(), config_.profiles.end(), [&](const Profile& p) {
            return key == name + "{profile=\"" + p.name + "\"}";
          });
          if (!configured) m << key << " " << value << "\n";
        }
        break;
      case Labels::Other:
        for (const auto& [key, value] : counters_) {
          if (family_of(key) == name) m << key << " " << value << "\n";
        }
        break;
    }
  }
  // States, not events: the counters above rise once per refused snapshot and once per refused
  // reload, so an alert on their increase goes quiet while the snapshot stays refused; and a
  // profile's last success keeps advancing, since the last valid snapshot is still compiled.
  m << "# HELP tagwarden_source_healthy 1 when the last fetch succeeded and its snapshot was accepted; 0 while the "
       "last valid snapshot is compiled instead.\n# TYPE tagwarden_source_healthy gauge\n";
  m << "tagwarden_source_healthy " << (source_last_error_.empty() && snapshot_ ? 1 : 0) << "\n";
  m << "# HELP tagwarden_config_reload_failed 1 while the config file was refused by the last reload (the previous "
       "config runs).\n# TYPE tagwarden_config_reload_failed gauge\n";
  m << "tagwarden_config_reload_failed " << (config_reload_error_.empty() ? 0 : 1) << "\n";
  m << "# HELP tagwarden_compile_duration_seconds Duration of the last compile of a profile.\n"
       "# TYPE tagwarden_compile_duration_seconds gauge\n";
  for (const auto& [name, st] : profiles_) {
    m << "tagwarden_compile_duration_seconds{profile=\"" << name << "\"} " << st.last_duration_ms / 1000.0 << "\n";
  }
  const auto label = [](const Profile& p) { return "{profile=\"" + p.name + "\"}"; };
  m << "# HELP tagwarden_rules Rules in the artifact in force.\n# TYPE tagwarden_rules gauge\n";
  for (const auto& p : config_.profiles) {
    if (auto it = map->find(p.name); it != map->end())
      m << "tagwarden_rules" << label(p) << " " << it->second->artifact.rules << "\n";
  }
  m << "# HELP tagwarden_artifact_version Version of the artifact in force.\n# TYPE tagwarden_artifact_version gauge\n";
  for (const auto& p : config_.profiles) {
    if (auto it = map->find(p.name); it != map->end())
      m << "tagwarden_artifact_version" << label(p) << " " << it->second->version << "\n";
  }
  m << "# HELP tagwarden_last_success_timestamp_seconds Last successful compile.\n"
       "# TYPE tagwarden_last_success_timestamp_seconds gauge\n";
  for (const auto& p : config_.profiles) {
    if (auto t = parse_timestamp(profiles_.at(p.name).last_success_at))
      m << "tagwarden_last_success_timestamp_seconds" << label(p) << " " << t->seconds << "\n";
  }
  m << "# HELP tagwarden_profile_ready 1 when a good artifact is served for the profile.\n"
       "# TYPE tagwarden_profile_ready gauge\n";
  for (const auto& p : config_.profiles)
    m << "tagwarden_profile_ready" << label(p) << " " << (serves(p, *map) ? 1 : 0) << "\n";
  m << "# HELP tagwarden_rules_file_current 1 when the profile's rules_file holds what its rules URL serves; 0 while "
       "it could not be written (it may grant more).\n# TYPE tagwarden_rules_file_current gauge\n";
  for (const auto& p : config_.profiles) {
    if (p.rules_file)
      m << "tagwarden_rules_file_current" << label(p) << " " << (profiles_.at(p.name).rules_file_error.empty() ? 1 : 0)
        << "\n";
  }
  return m.str();
}

void Daemon::count_webhook(const std::string& outcome) {
  std::lock_guard lock(mu_);
  counters_["tagwarden_webhooks_total{outcome=\"" + outcome + "\"}"]++;
}

DaemonSettings Daemon::settings() const {
  std::lock_guard lock(mu_);
  return config_.daemon;
}

}  // namespace tw
