// The reconcile loop: triggers, one fetch + compile per batch, and the config it runs with.
#include "daemon.h"
#include "tagwarden/config/profile_settings.h"

#include <algorithm>
#include <chrono>

#include "daemon_helpers.h"
#include "log.h"
#include "tagwarden/compile/compiler.h"
#include "tagwarden/engines/trino/rules.h"
#include "tagwarden/model/load.h"
#include "tagwarden/publish/atomic_file.h"

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include "tagwarden/util/parallel.h"

namespace tw {

using daemon_helpers::elapsed_ms;
using daemon_helpers::judged_at;

namespace {

std::shared_ptr<const std::map<std::string, Daemon::ProfileKind>> engines_by_profile(const Config& config) {
  auto engines = std::make_shared<std::map<std::string, Daemon::ProfileKind>>();
  for (const auto& p : config.profiles) (*engines)[p.name] = {p.engine, p.access_control};
  return engines;
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
  if (!parse.is_null()) j["parse"] = parse;
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
  engines_.store(engines_by_profile(config_));
  next_periodic_ = clock_.now();
  config_loaded_at_ = format_timestamp(next_periodic_);
}

Daemon::~Daemon() { stop(); }

void Daemon::restore_state() {
  auto map = std::make_shared<PublishedMap>();
  std::lock_guard lock(mu_);
  const Timestamp now = clock_.now();
  for (const auto& p : config_.profiles) {
    std::string problem;
    auto stored = store_.load(p.name, &problem);
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
        stored.reset();
        // A StarRocks server holds what the last apply granted, whatever this process serves.
        if (p.engine == Engine::StarRocks && !p.dsn.empty()) profiles_[p.name].server_withdrawal_pending = true;
      }
    }
    if (stored && stored->settings != profile_settings_digest(p)) {
      // Made for other settings of the profile (another engine mode, other catalogs or names):
      // what it says is not what this config asks for, and may not even be a rules document.
      problem = stored->settings.empty()
                    ? "it was stored without the profile settings it was compiled for (by an earlier tagwarden)"
                    : "it was compiled for other settings of the profile (engine, catalogs, catalog_map, user_map, "
                      "access_control or another compile setting changed since)";
      stored.reset();
    }
    if (stored && p.engine == Engine::Trino && p.access_control == TrinoAccessControl::File &&
        !trino::restorable_rules(*stored->artifact.bytes)) {
      problem =
          "it is not a rules document tagwarden writes (no catalog rules, or no table rules): Trino allows "
          "what such a document does not name";
      stored.reset();
    }
    if (stored) {
      profiles_[p.name].valid_until = valid_until;
      profiles_[p.name].stored_settings = stored->settings;
      if (valid_until && (!next_expiry_ || *valid_until < *next_expiry_)) next_expiry_ = valid_until;
      auto pa = std::make_shared<PublishedArtifact>();
      pa->artifact = std::move(stored->artifact);
      pa->version = stored->version;
      pa->published_at = stored->published_at;
      pa->restored = true;
      log::info("state_restored", {{"profile", p.name}, {"version", pa->version}, {"sha256", pa->artifact.sha256}});
      (*map)[p.name] = std::move(pa);
    } else if (!problem.empty()) {
      log::error("state_invalid", {{"profile", p.name},
                                   {"problem", problem},
                                   {"message",
                                    "the last good artifact in the state directory is not served: serving "
                                    "deny-all until the first good compile"}});
    } else {
      log::warn(
          "no_state",
          {{"profile", p.name},
           {"message", "no last good artifact in the state directory: serving deny-all until the first good compile"}});
    }
    // Whatever the file holds was written by an earlier process: a stale document, one that
    // grants what has since expired or been revoked, or one older than the restored state (a
    // publish that saved the state and then failed to write the file). It says what HTTP
    // serves: the restored artifact, or deny-all until the first good compile.
    const auto served = map->find(p.name);
    profiles_[p.name].note_rules_file(write_rules_file(p, served == map->end() ? nullptr : &served->second->artifact),
                                      format_timestamp(now));
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

void Daemon::guard() {
  for (;;) {
    {
      std::unique_lock lk(queue_mu_);
      const auto tick = std::chrono::milliseconds(clock_.is_test_clock() ? 50 : 1000);
      if (queue_cv_.wait_for(lk, tick, [&] { return stopping_; })) return;
    }
    try {
      repair_replaced_rules_files();
      retry_failed_rules_files();
      withdraw_if_stuck();
    } catch (const std::exception& e) {
      log::error("guard_failed", {{"error", e.what()}});
    }
  }
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
        // A test clock is polled; the real one sleeps until the next expiry, at most 1 s (the file
        // watch), so the recompile starts in the second an assignment expires, not up to 1 s later.
        auto wait = std::chrono::milliseconds(clock_.is_test_clock() ? 50 : 1000);
        {
          std::lock_guard lock(mu_);
          if (next_expiry_ && now >= *next_expiry_) {
            pending_reasons_.push_back("role_expiry " + format_timestamp(*next_expiry_));
            break;
          }
          if (next_expiry_ && !clock_.is_test_clock()) {
            const auto until =
                std::chrono::system_clock::time_point(std::chrono::duration_cast<std::chrono::system_clock::duration>(
                    std::chrono::seconds(next_expiry_->seconds) + std::chrono::nanoseconds(next_expiry_->nanos))) -
                std::chrono::system_clock::now();
            wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(until), std::chrono::milliseconds(1), wait);
          }
        }
        if (source()->maybe_changed()) {
          pending_reasons_.push_back("source_changed");
          break;
        }
        queue_cv_.wait_for(lk, wait);
      }
      due_ = false;
      reasons.swap(pending_reasons_);
      waiters.swap(waiters_);
    }
    ReconcileOutcome outcome;
    const Timestamp began = clock_.now();
    pass_started_ns_ = began.seconds * 1'000'000'000 + began.nanos;
    struct PassEnd {
      std::atomic<std::int64_t>& started;
      ~PassEnd() { started = -1; }
    } pass_end{pass_started_ns_};
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
      try {
        // Not past their valid_until, though: an expired assignment is never served.
        withdraw_expired(clock_.now(), std::nullopt, "the reconcile pass failed");
      } catch (const std::exception& e2) {
        log::error("withdraw_failed", {{"error", e2.what()}});
      }
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
  if (reset_source_.exchange(false)) {  // asked for by SIGHUP; sources are touched by this thread only
    src->reset();
    snapshot_loader_.reset();
  }
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
      // last_ok_at: the source's last answer that holds a valid snapshot, so a monitor can read
      // it as "the snapshot in force is this fresh" (audit 32 F5: a refused one moved it too).
      outcome.source = fetch.status == SourceFetch::Status::Changed ? "changed" : "unchanged";
      // Unchanged content that was invalid is still invalid, and the pass says so (a caller
      // waiting on it must not read success); anything else recovered.
      if (fetch.status == SourceFetch::Status::Unchanged) {
        if (snapshot_invalid_) {
          outcome.snapshot_errors = snapshot_errors_;
        } else {
          source_last_error_.clear();
          source_last_ok_at_ = at;
        }
      }
    }
  }
  std::shared_ptr<const void> retired_read;  // freed once every profile is served
  if (fetch.status == SourceFetch::Status::Changed) {
    SnapshotLoader::Result loaded = snapshot_loader_.load(std::move(fetch.body));
    retired_read = std::move(loaded.retired);
    end_phase("parse");
    if (loaded.snapshot) {
      outcome.parse = {{"incremental", loaded.incremental},
                       {"reused_entries", loaded.reused_entries},
                       {"read_entries", loaded.read_entries}};
    }
    std::lock_guard lock(mu_);
    if (!loaded.snapshot) {
      counters_["tagwarden_snapshot_invalid_total"]++;
      for (const auto& e : loaded.errors) outcome.snapshot_errors.push_back(e.str());
      snapshot_errors_ = outcome.snapshot_errors;
      source_last_error_ = "invalid snapshot: " + std::to_string(loaded.errors.size()) +
                           " errors, first: " + loaded.errors.front().str();
      source_last_error_at_ = at;
      snapshot_invalid_ = true;
      src->refused();
      log::error("snapshot_invalid",
                 {{"errors", outcome.snapshot_errors.size()}, {"first", loaded.errors.front().str()}});
    } else {
      snapshot_ = std::move(loaded.snapshot);
      snapshot = snapshot_;
      source_last_error_.clear();
      source_last_ok_at_ = at;
      snapshot_invalid_ = false;
      snapshot_errors_.clear();
    }
  }
  if (!snapshot) {
    if (outcome.source_error.empty() && outcome.snapshot_errors.empty())
      outcome.source_error = "no valid snapshot yet: nothing was compiled";
    withdraw_expired(now, std::nullopt, "no valid snapshot is available to recompile");
    outcome.duration_ms = elapsed_ms(t0);
    log::warn("reconcile_skipped", {{"reason", "no valid snapshot yet"}, {"generation", outcome.generation}});
    return outcome;
  }
  if (outcome.source == "failed") outcome.source = "cached";  // the last valid snapshot, judged at a new now

  phase = std::chrono::steady_clock::now();
  auto model = build_model(snapshot, judged_at(now, *snapshot));
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
    entries[i] = finish_profile(profiles[i], std::move(build), elapsed_ms(b0), at, model->next_expiry(), t0);
  });
  for (auto& entry : entries) outcome.profiles.push_back(std::move(entry));
  end_phase("build");  // and publish: each profile as soon as it is built
  retired_read.reset();
  // Findings are for people (GET /v1/findings), not for what the engines enforce: worked out
  // after every profile is served, off the webhook-to-served path.
  auto found = snapshot_findings(*model);
  end_phase("findings");
  {
    std::lock_guard lock(mu_);
    model_ = model;
    snapshot_findings_ = std::move(found);
  }
  // A profile that failed keeps its last good artifact only until that artifact's valid_until:
  // past it, the artifact may grant an assignment that has expired.
  withdraw_expired(now, model->next_expiry(), "the profile's last compile or publish failed");
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

std::shared_ptr<SnapshotSource> Daemon::source() const {
  std::lock_guard lock(mu_);
  return source_;
}

bool Daemon::reload_config(std::string* error) {
  ConfigLoad loaded = load_config_file(config_path_, true);
  if (loaded.config) {
    // A new webhook secret waits for a restart (config.pending_restart): the one in force is the
    // running config's, and a token equal to it would give its sender API scopes as well.
    std::lock_guard lock(mu_);
    const std::string& running = config_.daemon.webhook_secret;
    const auto& tokens = loaded.config->daemon.tokens;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (!running.empty() && tokens[i].token == running) {
        loaded.errors.push_back({"tokens[" + std::to_string(i) + "]",
                                 "has the same secret as the webhook secret in force (a new webhook secret applies "
                                 "only after a restart): give the token its own secret"});
      }
    }
    if (!loaded.errors.empty()) loaded.config.reset();
  }
  if (!loaded.config) {
    std::string msg;
    for (const auto& e : loaded.errors) msg += (msg.empty() ? "" : "; ") + e.str();
    if (error) *error = msg;
    log::error("config_reload_failed", {{"errors", msg}});
    // Visible where operators look (status, readyz, metrics), not only in the log: the file on
    // disk is not what runs until a reload succeeds.
    std::lock_guard lock(mu_);
    config_reload_error_ = msg;
    config_reload_error_at_ = format_timestamp(clock_.now());
    counters_["tagwarden_config_reload_failures_total"]++;
    return false;
  }
  std::lock_guard lock(mu_);
  config_reload_error_.clear();
  config_loaded_at_ = format_timestamp(clock_.now());
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
  // A rules_file holds what HTTP serves for its profile. Trino in file mode would otherwise
  // read a removed profile's last rules forever: nothing recompiles them.
  auto named = [](const std::vector<Profile>& profiles, const std::string& name) {
    return std::find_if(profiles.begin(), profiles.end(), [&](const Profile& p) { return p.name == name; });
  };
  std::set<std::string> owned;  // files the new config's profiles write
  for (const auto& p : loaded.config->profiles) {
    if (p.rules_file) owned.insert(*p.rules_file);
  }
  for (const auto& old : config_.profiles) {
    const bool removed = named(loaded.config->profiles, old.name) == loaded.config->profiles.end();
    if (removed) {
      nlohmann::json fields = {{"profile", old.name}, {"message", "no longer served (404)"}};
      if (old.rules_file) {
        fields["rules_file"] = *old.rules_file;
        fields["message"] =
            "no longer served (404); its rules_file now holds the deny-all document" +
            std::string(owned.count(*old.rules_file) ? " until the profile now naming it compiles" : "");
      }
      log::warn("profile_removed", fields);
    }
    if (old.rules_file && !owned.count(*old.rules_file)) {
      if (!removed) {
        log::warn("rules_file_withdrawn", {{"profile", old.name},
                                           {"rules_file", *old.rules_file},
                                           {"message",
                                            "the profile no longer writes this file: it now holds the "
                                            "deny-all document"}});
      }
      write_deny_all(old);  // a failure is logged; a removed profile's file is not retried
      if (!removed) kept[old.name].note_rules_file("", format_timestamp(clock_.now()));  // it has left that file
    }
  }
  // Every profile's rules_file starts out as what HTTP serves for it: a new profile, or one
  // that names a new file, writes its artifact, or deny-all until its first good compile.
  for (const auto& p : loaded.config->profiles) {
    if (!p.rules_file) continue;
    const auto old = named(config_.profiles, p.name);
    if (old != config_.profiles.end() && old->rules_file == p.rules_file) continue;
    kept[p.name].note_rules_file(write_rules_file(p, next->count(p.name) ? &next->at(p.name)->artifact : nullptr),
                                 format_timestamp(clock_.now()));
  }
  profiles_ = std::move(kept);
  published_.store(std::move(next));
  // Listener addresses, the state directory and the webhook settings (its secret too) are taken
  // at start and need a restart; everything else (profiles, source, tokens) applies now. What
  // differs is said, or a rotated webhook secret would fail every webhook after "reloaded".
  const DaemonSettings running = config_.daemon;
  const DaemonSettings& wanted = loaded.config->daemon;
  config_pending_restart_.clear();
  if (wanted.server != running.server) config_pending_restart_.push_back("server");
  if (wanted.state_dir != running.state_dir) config_pending_restart_.push_back("state_dir");
  if (wanted.webhook_secret != running.webhook_secret || wanted.webhook_max_body != running.webhook_max_body ||
      wanted.webhook_wait_ms != running.webhook_wait_ms)
    config_pending_restart_.push_back("webhook");
  config_ = std::move(*loaded.config);
  config_.daemon.server = running.server;
  config_.daemon.state_dir = running.state_dir;
  config_.daemon.webhook_secret = running.webhook_secret;
  config_.daemon.webhook_max_body = running.webhook_max_body;
  config_.daemon.webhook_wait_ms = running.webhook_wait_ms;
  engines_.store(engines_by_profile(config_));
  log::info("config_reloaded", {{"profiles", config_.profiles.size()}});
  if (!config_pending_restart_.empty()) {
    log::warn("reload_needs_restart", {{"settings", config_pending_restart_},
                                       {"message",
                                        "these settings changed in the config file but apply only after a restart; "
                                        "the running ones stay in force"}});
  }
  return true;
}

}  // namespace tw
