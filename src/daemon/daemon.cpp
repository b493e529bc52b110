#include "daemon.h"

#include <chrono>
#include <sstream>

#include "log.h"
#include "policy_diff.h"
#include "tagwarden/compile/compiler.h"
#include "tagwarden/compile/explain.h"
#include "tagwarden/engines/starrocks/apply.h"
#include "tagwarden/engines/starrocks/server.h"
#include "tagwarden/engines/trino/rules.h"
#include "tagwarden/model/load.h"
#include "tagwarden/publish/atomic_file.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "tagwarden/util/parallel.h"

namespace tw {
namespace {

double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}

nlohmann::json findings_json(const std::vector<Finding>& findings) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : findings) out.push_back(to_json(f));
  return out;
}

}  // namespace

bool ReconcileOutcome::ok() const {
  // A pass that could not read the source, read an invalid snapshot, or never
  // ran (shutdown) has not applied the change its caller is waiting for.
  if (source == "failed" || source == "cancelled" || !source_error.empty() || !snapshot_errors.empty()) return false;
  for (const auto& p : profiles) {
    if (p.value("status", "") != "ok") return false;
  }
  return true;
}

nlohmann::json ReconcileOutcome::to_json() const {
  nlohmann::json j = {{"generation", generation}, {"ok", ok()},           {"reasons", reasons},
                      {"source", source},         {"profiles", profiles}, {"duration_ms", duration_ms}};
  if (!phases_ms.empty()) j["phases_ms"] = phases_ms;
  if (!source_error.empty()) j["source_error"] = source_error;
  if (!snapshot_errors.empty()) j["snapshot_errors"] = snapshot_errors;
  return j;
}

Daemon::Daemon(Config config, std::string config_path)
    : Daemon(config, std::move(config_path), make_source(config.daemon.source)) {}

Daemon::Daemon(Config config, std::string config_path, std::shared_ptr<SnapshotSource> source)
    : config_path_(std::move(config_path)),
      config_(std::move(config)),
      source_(std::move(source)),
      store_(config_.daemon.state_dir),
      published_(std::make_shared<const PublishedMap>()) {
  for (const auto& p : config_.profiles) profiles_[p.name].engine = to_string(p.engine);
  next_periodic_ = clock_.now();
}

Daemon::~Daemon() { stop(); }

void Daemon::restore_state() {
  auto map = std::make_shared<PublishedMap>();
  std::lock_guard lock(mu_);
  const Timestamp now = clock_.now();
  for (const auto& p : config_.profiles) {
    auto stored = store_.load(p.name);
    std::optional<Timestamp> valid_until;
    if (stored && stored->valid_until) {
      valid_until = parse_timestamp(*stored->valid_until);
      if (!valid_until || now >= *valid_until) {
        // Compiled before a role assignment expired: it may grant it still. Never served.
        log::warn("state_expired", {{"profile", p.name},
                                    {"valid_until", *stored->valid_until},
                                    {"message",
                                     "the last good artifact grants a role assignment that has expired "
                                     "since: serving deny-all until the first good compile"}});
        if (p.rules_file) {
          try {
            write_file_atomically(*p.rules_file, trino::deny_all_rules().text);
          } catch (const std::exception& e) {
            log::error("rules_file_failed", {{"profile", p.name}, {"error", e.what()}});
          }
        }
        stored.reset();
      }
    }
    if (stored) {
      profiles_[p.name].valid_until = valid_until;
      if (valid_until && (!next_expiry_ || *valid_until < *next_expiry_)) next_expiry_ = valid_until;
      auto pa = std::make_shared<PublishedArtifact>();
      pa->artifact = std::move(stored->artifact);
      pa->version = stored->version;
      pa->published_at = stored->published_at;
      pa->restored = true;
      log::info("state_restored", {{"profile", p.name}, {"version", pa->version}, {"sha256", pa->artifact.sha256}});
      (*map)[p.name] = std::move(pa);
    } else {
      log::warn(
          "no_state",
          {{"profile", p.name},
           {"message", "no last good artifact in the state directory: serving deny-all until the first good compile"}});
    }
  }
  published_.store(std::move(map));
}

void Daemon::request(const std::string& reason, Waiter waiter) {
  {
    std::lock_guard lock(queue_mu_);
    due_ = true;
    pending_reasons_.push_back(reason);
    if (waiter) waiters_.push_back(std::move(waiter));
  }
  queue_cv_.notify_all();
}

void Daemon::stop() {
  {
    std::lock_guard lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
}

void Daemon::run() {
  const auto interval = [&] {
    std::lock_guard lock(mu_);
    return config_.daemon.reconcile_interval_s;
  };
  request("startup");
  for (;;) {
    std::vector<std::string> reasons;
    std::vector<Waiter> waiters;
    {
      std::unique_lock lk(queue_mu_);
      for (;;) {
        if (stopping_) {
          ReconcileOutcome cancelled;
          cancelled.source = "cancelled";
          for (auto& w : waiters_) w(cancelled);
          waiters_.clear();
          return;
        }
        if (due_) break;
        const Timestamp now = clock_.now();
        if (now >= next_periodic_) {
          pending_reasons_.push_back("periodic");
          break;
        }
        {
          std::lock_guard lock(mu_);
          if (next_expiry_ && now >= *next_expiry_) {
            pending_reasons_.push_back("role_expiry " + format_timestamp(*next_expiry_));
            break;
          }
        }
        if (source()->maybe_changed()) {
          pending_reasons_.push_back("source_changed");
          break;
        }
        // A test clock is polled; the real one sleeps until the next deadline (at most 1 s, for the file watch).
        queue_cv_.wait_for(lk, std::chrono::milliseconds(clock_.is_test_clock() ? 50 : 1000));
      }
      due_ = false;
      reasons.swap(pending_reasons_);
      waiters.swap(waiters_);
    }
    ReconcileOutcome outcome;
    try {
      outcome = reconcile_once(reasons);
    } catch (const std::exception& e) {
      // Out of memory, most likely (a snapshot much larger than the last one). Nothing of this
      // pass was published, so the last good artifacts stay served; the next pass tries again.
      outcome = ReconcileOutcome{};
      outcome.reasons = std::move(reasons);
      outcome.source = "failed";
      outcome.source_error = std::string("reconcile failed: ") + e.what() + "; the last good artifacts stay served";
      {
        std::lock_guard lock(mu_);
        counters_["tagwarden_reconcile_failures_total"]++;
      }
      log::error("reconcile_failed", {{"error", e.what()}});
    }
    next_periodic_ = Timestamp{clock_.now().seconds + interval()};
    for (auto& w : waiters) w(outcome);
  }
}

ReconcileOutcome Daemon::reconcile_once(std::vector<std::string> reasons) {
  const auto t0 = std::chrono::steady_clock::now();
  ReconcileOutcome outcome;
  outcome.reasons = std::move(reasons);
  std::vector<Profile> profiles;
  {
    std::lock_guard lock(mu_);
    outcome.generation = ++generation_;
    profiles = config_.profiles;
    counters_["tagwarden_reconciles_total"]++;
  }
  const Timestamp now = clock_.now();
  const std::string at = format_timestamp(now);
  const auto src = source();
  if (reset_source_.exchange(false)) src->reset();  // asked for by SIGHUP; sources are touched by this thread only
  auto phase = std::chrono::steady_clock::now();
  auto end_phase = [&](const char* name) {
    outcome.phases_ms[name] = elapsed_ms(phase);
    phase = std::chrono::steady_clock::now();
  };
  SourceFetch fetch = src->fetch();
  end_phase("fetch");
  std::shared_ptr<const Snapshot> snapshot;
  {
    std::lock_guard lock(mu_);
    snapshot = snapshot_;
    if (fetch.status == SourceFetch::Status::Failed) {
      counters_["tagwarden_source_errors_total"]++;
      source_last_error_ = fetch.error;
      source_last_error_at_ = at;
      outcome.source = "failed";
      outcome.source_error = fetch.error;
      log::error("source_failed", {{"source", src->describe()}, {"error", fetch.error}, {"attempts", fetch.attempts}});
    } else {
      source_last_ok_at_ = at;
      outcome.source = fetch.status == SourceFetch::Status::Changed ? "changed" : "unchanged";
      // Unchanged content that was invalid is still invalid, and the pass says so (a caller
      // waiting on it must not read success); anything else recovered.
      if (fetch.status == SourceFetch::Status::Unchanged) {
        if (snapshot_invalid_) {
          outcome.snapshot_errors = snapshot_errors_;
        } else {
          source_last_error_.clear();
        }
      }
    }
  }
  if (fetch.status == SourceFetch::Status::Changed) {
    SnapshotLoad loaded = parse_snapshot(fetch.body);
    end_phase("parse");
    std::lock_guard lock(mu_);
    if (!loaded.snapshot) {
      counters_["tagwarden_snapshot_invalid_total"]++;
      for (const auto& e : loaded.errors) outcome.snapshot_errors.push_back(e.str());
      snapshot_errors_ = outcome.snapshot_errors;
      source_last_error_ = "invalid snapshot: " + std::to_string(loaded.errors.size()) +
                           " errors, first: " + loaded.errors.front().str();
      source_last_error_at_ = at;
      snapshot_invalid_ = true;
      log::error("snapshot_invalid",
                 {{"errors", outcome.snapshot_errors.size()}, {"first", loaded.errors.front().str()}});
    } else {
      snapshot_ = std::make_shared<const Snapshot>(std::move(*loaded.snapshot));
      snapshot = snapshot_;
      source_last_error_.clear();
      snapshot_invalid_ = false;
      snapshot_errors_.clear();
    }
  }
  if (!snapshot) {
    if (outcome.source_error.empty() && outcome.snapshot_errors.empty())
      outcome.source_error = "no valid snapshot yet: nothing was compiled";
    withdraw_expired(now);
    outcome.duration_ms = elapsed_ms(t0);
    log::warn("reconcile_skipped", {{"reason", "no valid snapshot yet"}, {"generation", outcome.generation}});
    return outcome;
  }
  if (outcome.source == "failed") outcome.source = "cached";  // the last valid snapshot, judged at a new now

  phase = std::chrono::steady_clock::now();
  auto model = build_model(snapshot, now);
  auto found = snapshot_findings(*model);
  end_phase("model");
  // Profiles are built at once (pure, each into its own slot), then published one by one.
  struct Previous {
    std::shared_ptr<const CompileMemo> memo;
    Profile built_with;
    std::shared_ptr<const PublishedArtifact> served;  ///< keeps the previous artifact alive
    const Artifact* artifact = nullptr;
    std::shared_ptr<EngineRenderCache> render_cache;
  };
  std::vector<Previous> previous(profiles.size());
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    std::string built_sha256;
    {
      std::lock_guard lock(mu_);
      auto& st = profiles_[profiles[i].name];
      previous[i].memo = st.memo;
      previous[i].built_with = st.built_with;
      built_sha256 = st.artifact_sha256;
      if (!st.render_cache) st.render_cache = std::make_shared<EngineRenderCache>();
      previous[i].render_cache = st.render_cache;
    }
    previous[i].served = published(profiles[i].name);
    if (previous[i].served && !built_sha256.empty() && previous[i].served->artifact.sha256 == built_sha256) {
      previous[i].artifact = &previous[i].served->artifact;
    }
  }
  // Each profile is published as soon as it is built: a profile that changed little is
  // served while a larger one is still rendering. Profiles are independent; the outcome
  // lists them in config order.
  std::vector<nlohmann::json> entries(profiles.size());
  run_parallel(profiles.size(), default_workers(profiles.size()), [&](std::size_t i) {
    const auto b0 = std::chrono::steady_clock::now();
    const Previous& prev = previous[i];
    ProfileBuild build = build_profile(
        *model, profiles[i], PreviousBuild{&prev.built_with, prev.memo.get(), prev.artifact, prev.render_cache.get()});
    entries[i] = finish_profile(profiles[i], std::move(build), elapsed_ms(b0), at, model->next_expiry());
  });
  for (auto& entry : entries) outcome.profiles.push_back(std::move(entry));
  end_phase("build");  // and publish: each profile as soon as it is built
  {
    std::lock_guard lock(mu_);
    model_ = model;
    snapshot_findings_ = std::move(found);
    next_expiry_ = model->next_expiry();
  }
  outcome.duration_ms = elapsed_ms(t0);
  log::info("reconciled", outcome.to_json());
#ifdef __GLIBC__
  // A pass frees about as much as it allocated (the previous builds, caches and models);
  // glibc keeps freed heap mapped unless asked, and at scale that is gigabytes held at rest.
  // (The tagwarden executable uses jemalloc, whose background threads do this; there it is a no-op.)
  ::malloc_trim(0);
#endif
  return outcome;
}

nlohmann::json Daemon::finish_profile(const Profile& profile, ProfileBuild build, double build_ms,
                                      const std::string& at, std::optional<Timestamp> valid_until) {
  const auto p0 = std::chrono::steady_clock::now();
  nlohmann::json entry = {{"name", profile.name}, {"engine", to_string(profile.engine)}};
  entry["reused_objects"] = build.compile.reused_objects;
  entry["reused_artifact"] = build.reused_artifact;
  entry["build_ms"] = build_ms;
  const std::string artifact_sha256 = build.artifact ? build.artifact->sha256 : "";
  if (build.artifact) publish(profile, std::move(*build.artifact), entry, valid_until);
  if (build.compile.policy_set && profile.engine == Engine::StarRocks && !profile.dsn.empty() &&
      entry.value("status", "") == "ok") {
    apply_starrocks(profile, *build.compile.policy_set, entry);
  }
  entry["publish_ms"] = elapsed_ms(p0);
  std::lock_guard lock(mu_);
  auto& st = profiles_[profile.name];
  st.engine = to_string(profile.engine);
  st.compiles++;
  counters_["tagwarden_compiles_total{profile=\"" + profile.name + "\"}"]++;
  st.last_duration_ms = build_ms + elapsed_ms(p0);
  st.findings = build.compile.findings;
  st.findings.insert(st.findings.end(), st.apply_findings.begin(), st.apply_findings.end());
  st.apply_findings.clear();
  if (!build.compile.errors.empty() || entry.value("status", "") == "failed") {
    for (const auto& e : build.compile.errors) entry["errors"].push_back(e);
    entry["status"] = "failed";
    st.failures++;
    counters_["tagwarden_compile_failures_total{profile=\"" + profile.name + "\"}"]++;
    st.last_error = entry["errors"].dump();
    st.last_error_at = at;
    log::error("profile_failed", {{"profile", profile.name}, {"errors", entry["errors"]}});
  } else {
    st.last_success_at = at;
    st.last_error.clear();
    st.policy_set = std::make_shared<const PolicySet>(std::move(*build.compile.policy_set));
    st.memo = build.compile.memo;
    st.built_with = profile;
    st.artifact_sha256 = artifact_sha256;
  }
  return entry;
}

void Daemon::apply_starrocks(const Profile& profile, const PolicySet& ps, nlohmann::json& entry) {
  namespace sr = starrocks;
  nlohmann::json apply = {{"server", profile.dsn}};
  auto fail = [&](const std::string& why) {
    entry["status"] = "failed";
    entry["errors"].push_back("apply to " + profile.dsn + " failed: " + why + " (the server keeps what it had)");
    std::lock_guard lock(mu_);
    counters_["tagwarden_apply_failures_total{profile=\"" + profile.name + "\"}"]++;
  };
  sr::OpenResult opened =
      sr::open_server(profile.dsn, profile.password_file, *sr::parse_dialect(profile.dialect), profile.name);
  if (!opened.session) return fail(opened.error);
  sr::Capabilities caps = opened.session->probe.capabilities;
  if (profile.masking == "off") caps = {};
  if (profile.masking == "on" && !caps.masking_policies)
    return fail("masking: on, but the server has no masking policies");
  sr::PlanRender rendered = sr::render_plan(ps, {*sr::parse_dialect(profile.dialect), caps});
  if (!rendered.plan) {
    std::string why;
    for (const auto& e : rendered.errors) why += (why.empty() ? "" : "; ") + e;
    return fail(why);
  }
  sr::ApplyOptions options;
  options.retries = opened.session->settings.retries;
  options.backoff_ms = opened.session->settings.backoff_ms;
  sr::ApplyResult r = sr::apply_plan(*rendered.plan, *opened.session->connection, options);
  std::vector<Finding> findings = rendered.plan->findings;
  findings.insert(findings.end(), opened.session->probe.findings.begin(), opened.session->probe.findings.end());
  findings.insert(findings.end(), r.findings.begin(), r.findings.end());
  apply["statements"] = r.statements;
  apply["attempts"] = r.attempts;
  apply["findings"] = findings_json(findings);
  entry["apply"] = apply;
  {
    std::lock_guard lock(mu_);
    counters_["tagwarden_apply_statements_total{profile=\"" + profile.name + "\"}"] += r.statements;
    auto& st = profiles_[profile.name];
    st.apply_findings = findings;
  }
  if (!r.ok) {
    std::string why;
    for (const auto& e : r.errors) why += (why.empty() ? "" : "; ") + e;
    return fail(why);
  }
  log::info("applied", {{"profile", profile.name}, {"statements", r.statements}, {"attempts", r.attempts}});
}

void Daemon::publish(const Profile& profile, Artifact artifact, nlohmann::json& entry,
                     std::optional<Timestamp> valid_until) {
  auto current = published_.load();
  auto it = current->find(profile.name);
  const bool same = it != current->end() && it->second->artifact.sha256 == artifact.sha256;
  entry["sha256"] = artifact.sha256;
  entry["rules"] = artifact.rules;
  const auto valid_until_text = valid_until ? std::optional<std::string>(format_timestamp(*valid_until)) : std::nullopt;
  auto record_valid_until = [&] {
    std::lock_guard lock(mu_);
    profiles_[profile.name].valid_until = valid_until;
  };
  if (same && !it->second->restored) {
    bool stale_meta = false;
    {
      std::lock_guard lock(mu_);
      stale_meta = profiles_[profile.name].valid_until != valid_until;
    }
    if (stale_meta) {
      // The same bytes, now valid until another expiry: only the metadata is rewritten.
      StoredArtifact meta;
      meta.artifact.filename = it->second->artifact.filename;
      meta.artifact.content_type = it->second->artifact.content_type;
      meta.artifact.rules = it->second->artifact.rules;
      meta.artifact.sha256 = it->second->artifact.sha256;
      meta.version = it->second->version;
      meta.published_at = it->second->published_at;
      meta.valid_until = valid_until_text;
      try {
        store_.save_meta(profile.name, meta);
      } catch (const std::exception& e) {
        entry["status"] = "failed";
        entry["errors"] = nlohmann::json::array({std::string("publishing failed: ") + e.what()});
        return;
      }
      record_valid_until();
    }
    entry["status"] = "ok";
    entry["changed"] = false;
    entry["version"] = it->second->version;
    return;
  }
  auto pa = std::make_shared<PublishedArtifact>();
  pa->version = it == current->end() ? 1 : it->second->version + (same ? 0 : 1);
  pa->published_at = format_timestamp(clock_.now());
  pa->artifact = std::move(artifact);
  try {
    store_.save(profile.name, {pa->artifact, pa->version, pa->published_at, valid_until_text});
    if (profile.rules_file) write_file_atomically(*profile.rules_file, pa->artifact.bytes);
  } catch (const std::exception& e) {
    // Not persisted = not published: a restart must never serve something older than what Trino saw.
    entry["status"] = "failed";
    entry["errors"] = nlohmann::json::array({std::string("publishing failed: ") + e.what()});
    return;
  }
  {
    // Profiles publish from several threads; the map is swapped whole.
    std::lock_guard lock(publish_mu_);
    auto next = std::make_shared<PublishedMap>(*published_.load());
    (*next)[profile.name] = pa;
    published_.store(std::move(next));
  }
  record_valid_until();
  entry["status"] = "ok";
  entry["changed"] = !same;
  entry["version"] = pa->version;
  log::info("published", {{"profile", profile.name},
                          {"version", pa->version},
                          {"sha256", pa->artifact.sha256},
                          {"rules", pa->artifact.rules}});
}

void Daemon::withdraw_expired(Timestamp now) {
  std::lock_guard publishing(publish_mu_);
  std::lock_guard lock(mu_);
  auto next = std::make_shared<PublishedMap>(*published_.load());
  bool withdrew = false;
  next_expiry_.reset();
  for (const auto& p : config_.profiles) {
    auto& st = profiles_[p.name];
    if (!st.valid_until || !next->count(p.name)) continue;
    if (now < *st.valid_until) {
      if (!next_expiry_ || *st.valid_until < *next_expiry_) next_expiry_ = st.valid_until;
      continue;
    }
    // No snapshot to recompile from, and the artifact may grant an assignment that has
    // expired: deny-all is what the engines get until a good compile.
    log::error("artifact_withdrawn", {{"profile", p.name},
                                      {"valid_until", format_timestamp(*st.valid_until)},
                                      {"message",
                                       "a role assignment expired and no valid snapshot is available to "
                                       "recompile: serving deny-all until the first good compile"}});
    next->erase(p.name);
    st.valid_until.reset();
    st.artifact_sha256.clear();
    withdrew = true;
    counters_["tagwarden_artifacts_withdrawn_total{profile=\"" + p.name + "\"}"]++;
    if (p.rules_file) {
      try {
        write_file_atomically(*p.rules_file, trino::deny_all_rules().text);
      } catch (const std::exception& e) {
        log::error("rules_file_failed", {{"profile", p.name}, {"error", e.what()}});
      }
    }
  }
  if (withdrew) published_.store(std::move(next));
}

std::shared_ptr<SnapshotSource> Daemon::source() const {
  std::lock_guard lock(mu_);
  return source_;
}

std::shared_ptr<const PublishedArtifact> Daemon::published(const std::string& profile) const {
  auto map = published_.load();
  auto it = map->find(profile);
  return it == map->end() ? nullptr : it->second;
}

bool Daemon::has_profile(const std::string& profile) const {
  std::lock_guard lock(mu_);
  return profiles_.count(profile) > 0;
}

bool Daemon::serves_trino_rules(const std::string& profile) const {
  std::lock_guard lock(mu_);
  for (const auto& p : config_.profiles) {
    if (p.name == profile) return p.engine == Engine::Trino;
  }
  return false;
}

bool Daemon::ready(std::vector<std::string>* not_ready) const {
  std::lock_guard lock(mu_);
  bool ok = true;
  auto map = published_.load();
  for (const auto& p : config_.profiles) {
    if (!map->count(p.name)) {
      ok = false;
      if (not_ready) not_ready->push_back(p.name);
    }
  }
  return ok;
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
    j["last_success_at"] = st.last_success_at.empty() ? nlohmann::json() : nlohmann::json(st.last_success_at);
    j["last_error"] = st.last_error.empty() ? nlohmann::json() : nlohmann::json(st.last_error);
    j["last_error_at"] = st.last_error_at.empty() ? nlohmann::json() : nlohmann::json(st.last_error_at);
    if (auto it = map->find(p.name); it != map->end()) {
      j["artifact"] = {{"sha256", it->second->artifact.sha256},    {"version", it->second->version},
                       {"rules", it->second->artifact.rules},      {"bytes", it->second->artifact.bytes.size()},
                       {"published_at", it->second->published_at}, {"restored_from_state", it->second->restored}};
      j["ready"] = true;
    } else {
      j["artifact"] = nullptr;
      j["ready"] = false;
    }
    profiles.push_back(std::move(j));
  }
  nlohmann::json source = {{"describe", source_->describe()}};
  source["last_ok_at"] = source_last_ok_at_.empty() ? nlohmann::json() : nlohmann::json(source_last_ok_at_);
  source["last_error"] = source_last_error_.empty() ? nlohmann::json() : nlohmann::json(source_last_error_);
  source["last_error_at"] = source_last_error_at_.empty() ? nlohmann::json() : nlohmann::json(source_last_error_at_);
  return {{"generation", generation_},
          {"now", format_timestamp(clock_.now())},
          {"next_expiry", next_expiry_ ? nlohmann::json(format_timestamp(*next_expiry_)) : nlohmann::json()},
          {"source", source},
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
  auto model = build_model(std::make_shared<const Snapshot>(std::move(*loaded.snapshot)), clock_.now());
  std::vector<Profile> profiles;
  std::map<std::string, std::shared_ptr<const PolicySet>> current;
  {
    std::lock_guard lock(mu_);
    profiles = config_.profiles;
    for (const auto& [name, st] : profiles_) current[name] = st.policy_set;
  }
  auto map = published_.load();
  nlohmann::json out = nlohmann::json::array();
  bool ok = true;
  for (const auto& p : profiles) {
    ProfileBuild build = build_profile(*model, p);
    if (!build.artifact) {
      ok = false;
      out.push_back({{"profile", p.name}, {"status", "failed"}, {"errors", build.compile.errors}});
      continue;
    }
    auto it = map->find(p.name);
    const std::string before = it == map->end() ? std::string() : it->second->artifact.bytes;
    nlohmann::json d = diff_policy(current[p.name].get(), before, *build.compile.policy_set, build.artifact->bytes);
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
  m << "# HELP tagwarden_compiles_total Profile compiles attempted.\n# TYPE tagwarden_compiles_total counter\n";
  m << "# HELP tagwarden_compile_failures_total Profile compiles that failed (the last good artifact stayed in "
       "force).\n"
       "# TYPE tagwarden_compile_failures_total counter\n";
  m << "# HELP tagwarden_source_errors_total Snapshot fetches that failed.\n# TYPE tagwarden_source_errors_total "
       "counter\n";
  m << "# HELP tagwarden_snapshot_invalid_total Fetched snapshots refused by validation.\n"
       "# TYPE tagwarden_snapshot_invalid_total counter\n";
  m << "# HELP tagwarden_webhooks_total Webhook requests by outcome.\n# TYPE tagwarden_webhooks_total counter\n";
  m << "# HELP tagwarden_reconciles_total Passes of the reconcile loop.\n# TYPE tagwarden_reconciles_total counter\n";
  m << "# HELP tagwarden_reconcile_failures_total Passes that failed as a whole (e.g. out of memory); the last good "
       "artifacts stayed served.\n# TYPE tagwarden_reconcile_failures_total counter\n";
  for (const auto& [name, value] : counters_) m << name << " " << value << "\n";
  if (!counters_.count("tagwarden_source_errors_total")) m << "tagwarden_source_errors_total 0\n";
  m << "# HELP tagwarden_compile_duration_seconds Duration of the last compile of a profile.\n"
       "# TYPE tagwarden_compile_duration_seconds gauge\n";
  for (const auto& [name, st] : profiles_) {
    m << "tagwarden_compile_duration_seconds{profile=\"" << name << "\"} " << st.last_duration_ms / 1000.0 << "\n";
  }
  m << "# HELP tagwarden_rules Rules in the artifact in force.\n# TYPE tagwarden_rules gauge\n";
  m << "# HELP tagwarden_artifact_version Version of the artifact in force.\n# TYPE tagwarden_artifact_version gauge\n";
  m << "# HELP tagwarden_last_success_timestamp_seconds Last successful compile.\n"
       "# TYPE tagwarden_last_success_timestamp_seconds gauge\n";
  m << "# HELP tagwarden_profile_ready 1 when a good artifact is served for the profile.\n"
       "# TYPE tagwarden_profile_ready gauge\n";
  for (const auto& p : config_.profiles) {
    const std::string label = "{profile=\"" + p.name + "\"}";
    auto it = map->find(p.name);
    if (it != map->end()) {
      m << "tagwarden_rules" << label << " " << it->second->artifact.rules << "\n";
      m << "tagwarden_artifact_version" << label << " " << it->second->version << "\n";
    }
    const auto& st = profiles_.at(p.name);
    if (auto t = parse_timestamp(st.last_success_at)) {
      m << "tagwarden_last_success_timestamp_seconds" << label << " " << t->seconds << "\n";
    }
    m << "tagwarden_profile_ready" << label << " " << (it != map->end() ? 1 : 0) << "\n";
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

bool Daemon::reload_config(std::string* error) {
  ConfigLoad loaded = load_config_file(config_path_, true);
  if (!loaded.config) {
    std::string msg;
    for (const auto& e : loaded.errors) msg += (msg.empty() ? "" : "; ") + e.str();
    if (error) *error = msg;
    log::error("config_reload_failed", {{"errors", msg}});
    return false;
  }
  std::lock_guard lock(mu_);
  if (loaded.config->daemon.source != config_.daemon.source) {
    source_ = make_source(loaded.config->daemon.source);
  } else {
    reset_source_ = true;
  }
  // Profiles removed from the config stop being served: a frozen artifact that is
  // never recompiled would keep expired roles in force.
  std::map<std::string, ProfileState> kept;
  std::lock_guard publishing(publish_mu_);
  auto next = std::make_shared<PublishedMap>();
  auto current = published_.load();
  for (const auto& p : loaded.config->profiles) {
    kept[p.name] = profiles_.count(p.name) ? profiles_[p.name] : ProfileState{};
    kept[p.name].engine = to_string(p.engine);
    if (auto it = current->find(p.name); it != current->end()) (*next)[p.name] = it->second;
  }
  profiles_ = std::move(kept);
  published_.store(std::move(next));
  // Listener addresses, the state directory and tokens need a restart; everything else applies now.
  const ServerSettings server = config_.daemon.server;
  const std::string state_dir = config_.daemon.state_dir;
  config_ = std::move(*loaded.config);
  config_.daemon.server = server;
  config_.daemon.state_dir = state_dir;
  log::info("config_reloaded", {{"profiles", config_.profiles.size()}});
  return true;
}

}  // namespace tw
