#pragma once
// The daemon's state and its one reconcile loop. Triggers (webhook, timer,
// role expiry, file change, SIGHUP, API) only mark work as due; the loop
// coalesces them into one fetch + compile + publish and records the outcome.
// Readers get published artifacts by copying one shared pointer.

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clock.h"
#include "tagwarden/compile/compile_memo.h"
#include "tagwarden/compile/model.h"
#include "tagwarden/config/profile.h"
#include "tagwarden/engines/registry.h"
#include "tagwarden/engines/trino/opa.h"
#include "tagwarden/model/snapshot_loader.h"
#include "tagwarden/publish/state_store.h"
#include "tagwarden/sources/source.h"

namespace tw {

struct PublishedArtifact {
  Artifact artifact;
  /// Trino: the decisions of this artifact, answered over Trino's OPA protocol; null for an
  /// artifact restored from the state directory (its PolicySet is not kept), which is answered
  /// as deny-all until the first good compile.
  std::shared_ptr<const trino::OpaDecider> opa;
  std::uint64_t version = 0;
  std::string published_at;
  bool restored = false;  ///< loaded from the state directory, not compiled by this process
};
using PublishedMap = std::map<std::string, std::shared_ptr<const PublishedArtifact>>;

/// What one pass of the loop did; handed to the webhook/recompile callers that waited for it.
struct ReconcileOutcome {
  std::uint64_t generation = 0;
  std::vector<std::string> reasons;
  std::string source;  ///< changed | unchanged | failed | cached
  std::string source_error;
  std::vector<std::string> snapshot_errors;
  nlohmann::json profiles = nlohmann::json::array();
  double duration_ms = 0;
  nlohmann::json phases_ms = nlohmann::json::object();  ///< fetch, parse, model, build: where duration_ms went
  /// For a changed snapshot: entries taken from the last valid one and entries read afresh.
  nlohmann::json parse;
  bool ok() const;
  nlohmann::json to_json() const;
};

class Daemon {
 public:
  using Waiter = std::function<void(const ReconcileOutcome&)>;

  Daemon(Config config, std::string config_path);
  /// As above, but fetching from `source` instead of the source the config names (tests, embedders).
  Daemon(Config config, std::string config_path, std::shared_ptr<SnapshotSource> source);
  ~Daemon();

  /// Restores the last good artifacts from the state directory. Call before serving.
  void restore_state();
  /// Marks a reconcile as due; `waiter` (optional) is called once, from the
  /// loop thread, with the outcome of the first pass that starts after this call.
  void request(const std::string& reason, Waiter waiter = {});
  /// Runs the loop until stop(). Blocking.
  /// What each rules_file was when this process last wrote it: its inode, size and mtime, and the
  /// bytes written (null: deny-all).
  struct WrittenFile {
    std::uint64_t device = 0, inode = 0;
    std::int64_t size = 0, mtime_ns = 0;
    std::uint32_t mode = 0;  ///< permission bits: a chmod 600 keeps Trino (another account) from reading it
    std::shared_ptr<const std::string> bytes;
    bool same_file(const WrittenFile& o) const {
      return device == o.device && inode == o.inode && size == o.size && mtime_ns == o.mtime_ns && mode == o.mode;
    }
  };
  void run();
  /// Runs beside run() until stop(), in its own thread: every second it puts back a rules_file
  /// something else replaced, changed or removed, and withdraws an artifact past its valid_until
  /// while the loop is still in a pass that began before it (a source read that does not return).
  void guard();
  void stop();
  /// Re-reads the config file; on error keeps the old one and returns false.
  bool reload_config(std::string* error);

  // Thread-safe readers.
  std::shared_ptr<const PublishedArtifact> published(const std::string& profile) const;
  /// What a configured profile serves, or nullopt for an unknown one.
  struct ProfileKind {
    Engine engine = Engine::Trino;
    TrinoAccessControl access_control = TrinoAccessControl::File;  ///< Trino only
  };
  std::optional<ProfileKind> kind_of(const std::string& profile) const;
  bool ready(std::vector<std::string>* not_ready = nullptr) const;
  /// Why what is served may lag the governance state, while still in force (empty when nothing
  /// does): "source" (the last fetch failed, or the snapshot it got was refused: the last valid
  /// one is compiled), "config_reload" (a SIGHUP's config was refused: the previous one runs),
  /// "profile:<name>" (its last compile, publish or apply failed). Takes mu_.
  std::vector<std::string> degraded() const;
  nlohmann::json status() const;
  nlohmann::json findings() const;
  /// Throws std::invalid_argument for an unknown user; std::runtime_error before any good compile.
  nlohmann::json explain(const std::string& user) const;
  /// Compiles a proposed snapshot in memory; {status: 200|422, body}.
  std::pair<unsigned, nlohmann::json> validate(std::string_view snapshot_text) const;
  std::string metrics() const;
  void count_webhook(const std::string& outcome);
  DaemonSettings settings() const;
  Timestamp now() const { return clock_.now(); }

 private:
  struct ProfileState {
    std::string engine;
    std::string last_success_at;
    std::string last_error;                ///< last_errors joined with "; "
    std::vector<std::string> last_errors;  ///< of the last failed compile, publish or apply; empty after a success
    std::string last_error_at;
    std::vector<Finding> findings;
    std::uint64_t compiles = 0;
    std::uint64_t failures = 0;
    double last_duration_ms = 0;
    std::shared_ptr<const PolicySet> policy_set;  ///< last good
    std::shared_ptr<const CompileMemo> memo;      ///< of the last good compile: the next one reuses untouched objects
    Profile built_with;                           ///< the profile the memo and the artifact below were made with
    std::string artifact_sha256;  ///< the artifact of that build (published): reused when nothing changed
    std::shared_ptr<EngineRenderCache> render_cache;  ///< what the last render computed, by user list
    std::vector<Finding> apply_findings;              ///< StarRocks: drift and translation findings of the last apply
    std::optional<Timestamp> valid_until;             ///< of the served artifact: its compile's next role expiry
    std::string stored_settings;  ///< profile_settings_digest in the stored metadata of the served artifact
    /// StarRocks with a dsn: the artifact was withdrawn, so the server's owned roles must lose their
    /// members, until that succeeds or a compile and apply of the profile do.
    bool server_withdrawal_pending = false;
    std::string server_withdrawal_error;  ///< why the last attempt failed
    std::string server_withdrawn_at;      ///< when the memberships were last withdrawn
    /// The served artifact's bytes could not be stored after it was served: the state directory
    /// holds its metadata over older bytes (a restart refuses them), until a publish stores them.
    bool state_behind = false;
    std::string state_error;  ///< why, while state_behind; shown in /v1/status and /readyz
    /// Trino file mode: why the last write of the rules_file failed (empty when it holds what
    /// HTTP serves). While set, the file may grant more than HTTP (a stale or expired document
    /// an earlier process left): it is rewritten after every pass until that succeeds.
    std::string rules_file_error;
    std::string rules_file_error_at;
    void note_rules_file(const std::string& error, const std::string& at) {
      rules_file_error = error;
      rules_file_error_at = error.empty() ? "" : at;
    }
  };

  ReconcileOutcome reconcile_once(std::vector<std::string> reasons);
  /// Publishes one profile's build and records it in the profile's state; returns its outcome entry.
  /// `valid_until` is the model's earliest upcoming role expiry, stored with the artifact.
  /// `pass_start`: when the pass began (its fetch), for `served_ms`.
  nlohmann::json finish_profile(const Profile& profile, ProfileBuild build, double build_ms, const std::string& at,
                                std::optional<Timestamp> valid_until, std::chrono::steady_clock::time_point pass_start);
  void publish(const Profile& profile, Artifact artifact, nlohmann::json& entry, std::optional<Timestamp> valid_until,
               std::shared_ptr<const trino::OpaDecider> opa, std::chrono::steady_clock::time_point pass_start);
  /// After a failed write of the metadata: removes the stored state, so that a restart serves
  /// deny-all rather than something older; returns `error`, with why when even that failed.
  std::string forget_stored_state(const std::string& profile, std::string error);
  /// A served artifact that state_dir does not hold: logged, counted, reported; the next pass retries.
  void note_state_not_stored(const Profile& profile, const StoredArtifact& stored, const std::string& error,
                             nlohmann::json& entry);
  /// After the artifact is served: its bytes into state_dir; a failure is recorded (state_behind).
  void store_bytes(const Profile& profile, const StoredArtifact& stored, nlohmann::json& entry);
  /// After every pass, whatever it could compile: stops serving every artifact whose
  /// valid_until has passed (it was not replaced by a good compile, so it may grant an expired
  /// role assignment): deny-all is served instead and written to its rules_file. Then sets the
  /// expiry timer to the earliest of `upcoming` (the model's next role expiry, if a model was
  /// built) and the valid_until of every artifact still served, so a profile that keeps failing
  /// is still withdrawn on time. `why` goes into the log. Takes mu_, then publish_mu_.
  void withdraw_expired(Timestamp now, std::optional<Timestamp> upcoming, const std::string& why);
  /// For every StarRocks profile whose artifact was withdrawn: takes every user out of the roles
  /// tagwarden owns on its server (the server keeps the last apply otherwise, the expired assignment
  /// included). Retried after every pass until it succeeds or the profile applies again. Network I/O:
  /// called without locks held.
  void withdraw_servers();
  /// The first half of withdraw_expired: the artifacts, the rules files and the timer. Takes mu_, then publish_mu_.
  /// Writes again each rules_file whose last write failed (mu_ and publish_mu_ held). Every pass
  /// and every second (guard): a file left stale by a full disk is put right once it has room.
  void retry_rules_files(const PublishedMap& served, Timestamp now, bool quiet = false);
  void retry_failed_rules_files();
  void withdraw_published(Timestamp now, std::optional<Timestamp> upcoming, const std::string& why);
  /// A profile's rules_file, if it has one, gets the deny-all document; failures are logged and returned.
  std::string write_deny_all(const Profile& profile);
  /// A profile's rules_file, if it has one, gets `artifact`, or deny-all when it is null. Returns why
  /// it failed (logged too), or "" when written or when the profile has no rules_file. Records the
  /// file as written (rules_file_replaced).
  /// `quiet`: a failure is not logged (the guard's retry every second; the pass's attempt logs it).
  std::string write_rules_file(const Profile& profile, const Artifact* artifact, bool quiet = false);
  /// The configured rules files that something else replaced, changed or removed since this process
  /// wrote them get what it wrote there again (guard()).
  void repair_replaced_rules_files();
  /// Withdraws what is past its valid_until when the running pass began before it (guard()).
  void withdraw_if_stuck();
  /// StarRocks profiles with a dsn: converge the server to the compiled PolicySet; failures fail the profile.
  void apply_starrocks(const Profile& profile, const PolicySet& ps, nlohmann::json& entry);
  std::shared_ptr<SnapshotSource> source() const;

  const std::string config_path_;
  Clock clock_;
  mutable std::mutex mu_;  // guards everything below except published_
  Config config_;
  std::shared_ptr<SnapshotSource> source_;  ///< used by the loop thread only; swapped under mu_
  SnapshotLoader snapshot_loader_;          ///< used by the loop thread only
  StateStore store_;
  std::map<std::string, ProfileState> profiles_;
  std::shared_ptr<const Snapshot> snapshot_;  ///< last valid snapshot
  std::shared_ptr<const Model> model_;        ///< last good compile's model
  std::vector<Finding> snapshot_findings_;
  std::optional<Timestamp> next_expiry_;
  std::string source_last_ok_at_, source_last_error_, source_last_error_at_;
  std::uint64_t generation_ = 0;
  bool snapshot_invalid_ = false;             ///< the source's current content was refused
  std::vector<std::string> snapshot_errors_;  ///< why, while it is
  /// The config file as last (re)loaded; a refused SIGHUP reload keeps the previous config running
  /// and records why here until a reload succeeds.
  std::string config_loaded_at_, config_reload_error_, config_reload_error_at_;
  std::vector<std::string> config_pending_restart_;  ///< changed settings a reload cannot apply (server, webhook...)
  std::atomic<bool> reset_source_{false};
  std::map<std::string, std::uint64_t> counters_;  ///< metric name{labels} -> count
  std::atomic<std::shared_ptr<const PublishedMap>> published_;
  /// Profile name -> what it serves, replaced whole when the config is (re)loaded: Trino polls the
  /// rules and decision endpoints, which read this without taking mu_.
  std::atomic<std::shared_ptr<const std::map<std::string, ProfileKind>>> engines_;
  std::mutex publish_mu_;  ///< serializes replacing published_ (read, copy, store)
  /// Taken after mu_ where both are held; a write and its record are one step under it.
  std::mutex rules_files_mu_;
  std::map<std::string, WrittenFile> rules_files_written_;
  /// When the running pass began, in nanoseconds since 1970 (to 2262), -1 between passes.
  std::atomic<std::int64_t> pass_started_ns_{-1};

  // The loop's own queue.
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  bool due_ = false;
  bool stopping_ = false;
  std::vector<std::string> pending_reasons_;
  std::vector<Waiter> waiters_;
  Timestamp next_periodic_;
};

}  // namespace tw
