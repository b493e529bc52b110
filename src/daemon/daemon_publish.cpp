// Publishing one profile's build: store its digest, serve, store its bytes (and apply to StarRocks); withdrawing
// artifacts whose role expiry passed with nothing to recompile from.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>

#include "daemon.h"
#include "daemon_helpers.h"
#include "log.h"
#include "tagwarden/config/profile_settings.h"
#include "tagwarden/engines/starrocks/apply.h"
#include "tagwarden/engines/starrocks/server.h"
#include "tagwarden/engines/starrocks/withdraw.h"
#include "tagwarden/engines/trino/rules.h"
#include "tagwarden/publish/atomic_file.h"

namespace tw {

using daemon_helpers::elapsed_ms;
using daemon_helpers::findings_json;

nlohmann::json Daemon::finish_profile(const Profile& profile, ProfileBuild build, double build_ms,
                                      const std::string& at, std::optional<Timestamp> valid_until,
                                      std::chrono::steady_clock::time_point pass_start) {
  const auto p0 = std::chrono::steady_clock::now();
  nlohmann::json entry = {{"name", profile.name}, {"engine", to_string(profile.engine)}};
  entry["reused_objects"] = build.compile.reused_objects;
  entry["reused_artifact"] = build.reused_artifact;
  entry["build_ms"] = build_ms;
  entry["decide_ms"] = build.compile_ms;
  entry["render_ms"] = build.render_ms;
  const std::string artifact_sha256 = build.artifact ? build.artifact->sha256 : "";
  std::shared_ptr<const PolicySet> policy_set;
  std::shared_ptr<const trino::OpaDecider> opa;
  if (build.compile.policy_set) {
    policy_set = std::make_shared<const PolicySet>(std::move(*build.compile.policy_set));
    if (profile.engine == Engine::Trino) opa = std::make_shared<const trino::OpaDecider>(policy_set);
  }
  if (build.artifact) publish(profile, std::move(*build.artifact), entry, valid_until, std::move(opa), pass_start);
  if (policy_set && profile.engine == Engine::StarRocks && !profile.dsn.empty() && entry.value("status", "") == "ok") {
    apply_starrocks(profile, *policy_set, entry);
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
    // A sentence for people and a list for tools (last_error used to be the list's JSON text,
    // a string a consumer had to parse a second time).
    st.last_errors.clear();
    st.last_error.clear();
    for (const auto& err : entry["errors"]) {
      st.last_errors.push_back(err.is_string() ? err.get<std::string>() : err.dump());
      st.last_error += (st.last_error.empty() ? "" : "; ") + st.last_errors.back();
    }
    st.last_error_at = at;
    log::error("profile_failed", {{"profile", profile.name}, {"errors", entry["errors"]}});
  } else {
    st.last_success_at = at;
    st.last_error.clear();
    st.last_errors.clear();
    st.policy_set = policy_set;
    // A successful apply converged the server to the new policy: nothing is left to withdraw.
    if (entry.contains("apply")) st.server_withdrawal_pending = false;
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
  const sr::RolesCap roles =
      sr::roles_cap_for(opened.session->probe, static_cast<std::size_t>(profile.max_roles_per_user), profile.name);
  sr::PlanRender rendered = sr::render_plan(ps, {*sr::parse_dialect(profile.dialect), caps, roles.cap});
  if (!rendered.plan) {
    std::string why;
    for (const auto& e : rendered.errors) why += (why.empty() ? "" : "; ") + e;
    return fail(why);
  }
  if (roles.lowered) rendered.plan->findings.push_back(*roles.lowered);
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
                     std::optional<Timestamp> valid_until, std::shared_ptr<const trino::OpaDecider> opa,
                     std::chrono::steady_clock::time_point pass_start) {
  auto current = published_.load();
  auto it = current->find(profile.name);
  const bool same = it != current->end() && it->second->artifact.sha256 == artifact.sha256;
  entry["sha256"] = artifact.sha256;
  entry["rules"] = artifact.rules;
  const auto valid_until_text = valid_until ? std::optional<std::string>(format_timestamp(*valid_until)) : std::nullopt;
  const std::string settings = profile_settings_digest(profile);
  auto record_valid_until = [&] {
    std::lock_guard lock(mu_);
    profiles_[profile.name].valid_until = valid_until;
    profiles_[profile.name].stored_settings = settings;
  };
  bool state_behind = false;
  {
    std::lock_guard lock(mu_);
    state_behind = profiles_[profile.name].state_behind;
  }
  if (same && !it->second->restored && !state_behind) {
    bool stale_meta = false;
    {
      std::lock_guard lock(mu_);
      stale_meta =
          profiles_[profile.name].valid_until != valid_until || profiles_[profile.name].stored_settings != settings;
    }
    if (stale_meta) {
      // The same bytes, now valid until another expiry (or made for changed settings that give
      // the same bytes): only the metadata is rewritten.
      StoredArtifact meta;
      meta.artifact.filename = it->second->artifact.filename;
      meta.artifact.content_type = it->second->artifact.content_type;
      meta.artifact.rules = it->second->artifact.rules;
      meta.artifact.sha256 = it->second->artifact.sha256;
      meta.version = it->second->version;
      meta.published_at = it->second->published_at;
      meta.valid_until = valid_until_text;
      meta.settings = settings;
      try {
        store_.save_meta(profile.name, meta);
      } catch (const std::exception& e) {
        // The stored validity would be another compile's: a restart must not go by it.
        note_state_not_stored(profile, meta, forget_stored_state(profile.name, e.what()), entry);
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
  pa->opa = std::move(opa);
  const StoredArtifact stored{pa->artifact, pa->version, pa->published_at, valid_until_text, settings};
  std::string meta_error;
  try {
    // A restart must never serve something older than what Trino saw. The metadata of this
    // version (its digest) is stored before it is served; its bytes (44 MB at M, 1 GB at L)
    // after, off the served path. A restart between the two finds older bytes under the new
    // digest and serves deny-all until its first good compile (StateStore::load).
    store_.save_meta(profile.name, stored);
  } catch (const std::exception& e) {
    // A full or read-only state_dir must not keep the last artifact served: that would hold back
    // a revocation for as long as the disk stays so. With the stored state removed (which needs no
    // space), a restart serves deny-all rather than anything older. Where even that fails (read
    // only), the new artifact is served all the same: a restart then refuses to start on a
    // state_dir it cannot write, and the error says what an earlier one would restore.
    meta_error = forget_stored_state(profile.name, e.what());
  }
  // A rules_file that cannot be written must not hold back what HTTP and OPA serve: that would keep
  // a revocation from every Trino. Its failure is reported (holds_served false, /readyz degraded)
  // and the write retried after every pass.
  const std::string rules_file_error = write_rules_file(profile, &pa->artifact);
  {
    // Profiles publish from several threads; the map is swapped whole. A SIGHUP may have
    // removed the profile, or given it another rules_file, since this pass took the config
    // (mu_ before publish_mu_, as reload_config takes them).
    std::scoped_lock lock(mu_, publish_mu_);
    const auto configured = std::find_if(config_.profiles.begin(), config_.profiles.end(),
                                         [&](const Profile& p) { return p.name == profile.name; });
    const bool removed = configured == config_.profiles.end();
    if (!removed) {
      auto next = std::make_shared<PublishedMap>(*published_.load());
      (*next)[profile.name] = pa;
      published_.store(std::move(next));
      // From the pass's fetch to this artifact being what HTTP and OPA answer with.
      entry["served_ms"] = elapsed_ms(pass_start);
    }
    if (removed || configured->rules_file != profile.rules_file) {
      // The file written above is no longer this profile's: it holds what HTTP serves for
      // the profile that now names it, or deny-all.
      if (profile.rules_file) {
        const auto owner = std::find_if(config_.profiles.begin(), config_.profiles.end(),
                                        [&](const Profile& p) { return p.rules_file == profile.rules_file; });
        const auto served = published_.load();
        const auto it = owner == config_.profiles.end() ? served->end() : served->find(owner->name);
        const std::string error = write_rules_file(profile, it == served->end() ? nullptr : &it->second->artifact);
        if (owner != config_.profiles.end()) profiles_[owner->name].note_rules_file(error, pa->published_at);
      }
      if (!removed)
        profiles_[profile.name].note_rules_file(write_rules_file(*configured, &pa->artifact), pa->published_at);
    } else if (profile.rules_file) {
      profiles_[profile.name].note_rules_file(rules_file_error, pa->published_at);  // written above
    }
    if (removed) {
      entry["status"] = "failed";
      entry["errors"] = nlohmann::json::array({"the profile was removed from the config while it compiled"});
      return;
    }
  }
  record_valid_until();
  if (meta_error.empty()) {
    store_bytes(profile, stored, entry);
  } else {
    note_state_not_stored(profile, stored, meta_error, entry);
  }
  entry["status"] = "ok";
  entry["changed"] = !same;
  entry["version"] = pa->version;
  log::info("published", {{"profile", profile.name},
                          {"version", pa->version},
                          {"sha256", pa->artifact.sha256},
                          {"rules", pa->artifact.rules}});
}

std::string Daemon::forget_stored_state(const std::string& profile, std::string error) {
  try {
    store_.forget(profile);
  } catch (const std::exception& e) {
    error += std::string("; its older stored state could not be removed either (") + e.what() +
             "): a restart on a writable state_dir before the next good publish would serve that older "
             "artifact until its first good compile";
  }
  return error;
}

void Daemon::store_bytes(const Profile& profile, const StoredArtifact& stored, nlohmann::json& entry) {
  bool behind = false;
  std::string error;
  try {
    store_.save_bytes(profile.name, stored);
  } catch (const std::exception& e) {
    behind = true;
    error = e.what();
  }
  if (!behind) {
    std::lock_guard lock(mu_);
    profiles_[profile.name].state_behind = false;
    profiles_[profile.name].state_error.clear();
    return;
  }
  // Served, and in force: what a restart would serve instead is older, so it serves deny-all
  // (the stored digest no longer matches). The next pass stores the bytes again.
  note_state_not_stored(profile, stored, error, entry);
}

void Daemon::note_state_not_stored(const Profile& profile, const StoredArtifact& stored, const std::string& error,
                                   nlohmann::json& entry) {
  std::lock_guard lock(mu_);
  auto& st = profiles_[profile.name];
  st.state_behind = true;
  counters_["tagwarden_state_write_failures_total{profile=\"" + profile.name + "\"}"]++;
  st.state_error = "storing the served artifact in state_dir failed: " + error +
                   "; a restart serves deny-all until its first good compile; the next pass retries";
  entry["state_error"] = st.state_error;
  log::error("state_not_stored", {{"profile", profile.name}, {"version", stored.version}, {"error", error}});
}

std::string Daemon::write_deny_all(const Profile& profile) { return write_rules_file(profile, nullptr); }

namespace {

std::optional<struct stat> stat_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return st;
}

void identify(const struct stat& st, Daemon::WrittenFile& file) {
  file.device = static_cast<std::uint64_t>(st.st_dev);
  file.inode = static_cast<std::uint64_t>(st.st_ino);
  file.size = static_cast<std::int64_t>(st.st_size);
  file.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  file.mode = static_cast<std::uint32_t>(st.st_mode & 07777);
}

}  // namespace

std::string Daemon::write_rules_file(const Profile& profile, const Artifact* artifact, bool quiet) {
  if (!profile.rules_file) return {};
  std::lock_guard lock(rules_files_mu_);
  try {
    write_file_atomically(*profile.rules_file, artifact ? *artifact->bytes : trino::deny_all_rules().text);
  } catch (const std::exception& e) {
    rules_files_written_.erase(*profile.rules_file);  // what it holds now is not known
    if (!quiet)
      log::error("rules_file_failed",
                 {{"profile", profile.name},
                  {"error", e.what()},
                  {"message", "the file may grant more than the rules URL serves; retried every second"}});
    return e.what();
  }
  WrittenFile written;
  written.bytes = artifact ? artifact->bytes : nullptr;
  if (const auto st = stat_of(*profile.rules_file)) identify(*st, written);
  rules_files_written_[*profile.rules_file] = std::move(written);
  return {};
}

void Daemon::repair_replaced_rules_files() {
  std::map<std::string, std::vector<std::string>> owners;  // configured rules_file -> its profiles
  {
    std::lock_guard lock(mu_);
    for (const auto& p : config_.profiles) {
      if (p.rules_file) owners[*p.rules_file].push_back(p.name);
    }
  }
  std::vector<std::pair<std::string, std::string>> repaired;  // path, error ("" when rewritten)
  {
    std::lock_guard lock(rules_files_mu_);
    for (const auto& [path, names] : owners) {
      const auto it = rules_files_written_.find(path);
      if (it == rules_files_written_.end()) continue;  // never written, or the last write failed: the pass retries
      WrittenFile now;
      if (const auto st = stat_of(path)) identify(*st, now);
      if (now.same_file(it->second)) continue;
      std::string error;
      try {
        write_file_atomically(path, it->second.bytes ? *it->second.bytes : trino::deny_all_rules().text);
        if (const auto st = stat_of(path)) identify(*st, it->second);
      } catch (const std::exception& e) {
        error = e.what();
        rules_files_written_.erase(it);
      }
      repaired.emplace_back(path, error);
    }
  }
  if (repaired.empty()) return;
  std::lock_guard lock(mu_);
  const std::string at = format_timestamp(clock_.now());
  for (const auto& [path, error] : repaired) {
    for (const auto& name : owners[path]) {
      log::warn("rules_file_replaced",
                {{"profile", name},
                 {"rules_file", path},
                 {"rewritten", error.empty()},
                 {"message",
                  "the rules_file was changed, replaced or removed by something else since this daemon wrote it; "
                  "it gets what the daemon wrote there again. Only one tagwarden may write a file"}});
      counters_["tagwarden_rules_file_rewrites_total{profile=\"" + name + "\"}"]++;
      if (!error.empty()) profiles_[name].note_rules_file(error, at);  // the pass retries it
    }
  }
}

void Daemon::withdraw_if_stuck() {
  const std::int64_t started_ns = pass_started_ns_.load();
  if (started_ns < 0) return;  // between passes the loop itself wakes at the expiry
  const Timestamp started{started_ns / 1'000'000'000, static_cast<std::int32_t>(started_ns % 1'000'000'000)};
  const Timestamp now = clock_.now();
  std::optional<Timestamp> upcoming;
  bool overdue = false;
  {
    std::lock_guard lock(mu_);
    const auto published = published_.load();
    for (const auto& [name, st] : profiles_) {
      // Past it by a second, and the pass running began before it: that pass decided with the
      // assignment still in force, and the loop has not started the one that would not.
      if (st.valid_until && *st.valid_until > started &&
          now >= Timestamp{st.valid_until->seconds + 1, st.valid_until->nanos} && published->count(name))
        overdue = true;
    }
    upcoming = next_expiry_;
  }
  if (overdue)
    withdraw_published(now, upcoming,
                       "the reconcile pass that began before the expiry has not finished (a source that does not "
                       "answer?)");
}

void Daemon::withdraw_expired(Timestamp now, std::optional<Timestamp> upcoming, const std::string& why) {
  withdraw_published(now, upcoming, why);
  withdraw_servers();
}

void Daemon::withdraw_published(Timestamp now, std::optional<Timestamp> upcoming, const std::string& why) {
  // mu_ before publish_mu_, as reload_config takes them.
  std::scoped_lock lock(mu_, publish_mu_);
  auto next = std::make_shared<PublishedMap>(*published_.load());
  bool withdrew = false;
  next_expiry_ = upcoming;
  for (const auto& p : config_.profiles) {
    auto& st = profiles_[p.name];
    if (!st.valid_until || !next->count(p.name)) continue;
    if (now < *st.valid_until) {
      if (!next_expiry_ || *st.valid_until < *next_expiry_) next_expiry_ = st.valid_until;
      continue;
    }
    // The artifact may grant an assignment that has expired, and nothing replaced it:
    // deny-all is what the engines get until a good compile.
    nlohmann::json fields = {
        {"profile", p.name},
        {"valid_until", format_timestamp(*st.valid_until)},
        {"message", "a role assignment expired and " + why + ": serving deny-all until the first good compile"}};
    if (p.engine == Engine::StarRocks && !p.dsn.empty()) {
      // The daemon serves no StarRocks artifact to the server: it applies statements. The server
      // keeps what the last apply granted, the expired assignment included, unless it is revoked.
      fields["live_server"] = "every user is taken out of the roles tagwarden owns on the StarRocks server " + p.dsn +
                              " until a compile and apply of this profile succeed";
      st.server_withdrawal_pending = true;
    }
    log::error("artifact_withdrawn", fields);
    next->erase(p.name);
    st.valid_until.reset();
    st.artifact_sha256.clear();
    withdrew = true;
    counters_["tagwarden_artifacts_withdrawn_total{profile=\"" + p.name + "\"}"]++;
    st.note_rules_file(write_deny_all(p), format_timestamp(now));
  }
  retry_rules_files(*next, now);
  if (withdrew) published_.store(std::move(next));
}

void Daemon::retry_failed_rules_files() {
  std::scoped_lock lock(mu_, publish_mu_);
  retry_rules_files(*published_.load(), clock_.now(), true);
}

void Daemon::retry_rules_files(const PublishedMap& served, Timestamp now, bool quiet) {
  // A rules_file that could not be written holds something else than what is served, perhaps
  // more (a stale or expired document): rewritten after every pass, and every second, until it
  // holds it (a disk that is no longer full). (One that something else replaced since it was
  // written is put back within a second too: repair_replaced_rules_files().)
  for (const auto& p : config_.profiles) {
    auto& st = profiles_[p.name];
    if (!p.rules_file || st.rules_file_error.empty()) continue;
    const auto it = served.find(p.name);
    const std::string error = write_rules_file(p, it == served.end() ? nullptr : &it->second->artifact, quiet);
    if (error.empty()) log::info("rules_file_repaired", {{"profile", p.name}, {"rules_file", *p.rules_file}});
    st.note_rules_file(error, error == st.rules_file_error ? st.rules_file_error_at : format_timestamp(now));
  }
}

void Daemon::withdraw_servers() {
  std::vector<Profile> pending;
  {
    std::lock_guard lock(mu_);
    for (const auto& p : config_.profiles) {
      auto it = profiles_.find(p.name);
      if (it != profiles_.end() && it->second.server_withdrawal_pending && p.engine == Engine::StarRocks &&
          !p.dsn.empty())
        pending.push_back(p);
    }
  }
  for (const auto& p : pending) {
    namespace sr = starrocks;
    std::string error;
    std::size_t revoked = 0;
    const auto dialect = sr::parse_dialect(p.dialect);
    sr::OpenResult opened = sr::open_server(p.dsn, p.password_file, dialect.value_or(sr::Dialect::StarRocks), p.name);
    if (!dialect) {
      error = "unknown dialect " + p.dialect;
    } else if (!opened.session) {
      error = opened.error;
    } else {
      sr::ApplyOptions options;
      options.retries = opened.session->settings.retries;
      options.backoff_ms = opened.session->settings.backoff_ms;
      const sr::ApplyResult r = sr::withdraw_memberships(*opened.session->connection, *dialect, p.name, options);
      revoked = r.statements;
      for (const auto& e : r.errors) error += (error.empty() ? "" : "; ") + e;
      if (!r.ok && error.empty()) error = "the server still grants owned roles to users";
    }
    std::lock_guard lock(mu_);
    auto& st = profiles_[p.name];
    if (!st.server_withdrawal_pending) continue;  // a pass applied a new policy meanwhile
    if (error.empty()) {
      st.server_withdrawal_pending = false;
      st.server_withdrawal_error.clear();
      st.server_withdrawn_at = format_timestamp(clock_.now());
      counters_["tagwarden_server_withdrawals_total{profile=\"" + p.name + "\"}"]++;
      log::warn("server_withdrawn", {{"profile", p.name},
                                     {"server", p.dsn},
                                     {"revoked", revoked},
                                     {"message",
                                      "every user was taken out of the roles tagwarden owns on the server "
                                      "until a compile and apply of this profile succeed"}});
    } else {
      st.server_withdrawal_error = error;
      counters_["tagwarden_server_withdrawal_failures_total{profile=\"" + p.name + "\"}"]++;
      log::error(
          "server_withdrawal_failed",
          {{"profile", p.name}, {"server", p.dsn}, {"error", error}, {"message", "retried after the next pass"}});
    }
  }
}

}  // namespace tw
