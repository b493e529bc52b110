#include <sys/stat.h>

#include <csignal>
#include <cstdlib>
#include <future>
#include <iostream>
#include <optional>
#include <thread>

#include "../daemon/api.h"
#include "../daemon/daemon.h"
#include "../daemon/log.h"
#include "commands.h"
#include "common.h"
#include "options.h"
#include "tagwarden/publish/state_lock.h"
#include "tagwarden/publish/state_store.h"
#include "tagwarden/util/text.h"

namespace tw::cli {

namespace {
// How long SIGTERM waits for a running pass before exiting without it.
constexpr int kStopTimeoutS = 10;
}  // namespace

int run_serve(const std::vector<std::string>& args) {
  const char* usage = "usage: tagwarden serve --config C [--log-level debug|info|warn|error]";
  const char* teaching = R"(Runs the daemon: one reconcile loop keeps every profile of C current.

The snapshot comes from C's source (source.file, reloaded when it changes:
replace it by rename, never rewrite it in place; or source.url, fetched with
ETags and retries). A recompile runs on a periodic
timer (reconcile_interval), on a signed webhook (POST /v1/webhook), at the
earliest upcoming role-assignment expiry, on SIGHUP (which also reloads C) and
on POST /v1/recompile. Bursts of triggers coalesce into one compile.

A failed fetch, an invalid snapshot or a failed profile changes nothing: the
last good artifact stays in force and the failure shows in /v1/status and
/metrics. Last good artifacts persist in state_dir and are served after a
restart before the first compile; a profile that never compiled serves a
deny-all document and /readyz answers 503.

Trino: security.config-file=http://HOST:PORT/v1/profiles/<profile>/trino-rules.json
with security.refresh-period (see templates/trino/). Or, when that document is too
large for Trino to load, Trino's OPA access control (access-control.name=opa) with
opa.policy.uri=http://HOST:PORT/v1/profiles/<profile>/trino-opa/allow (and batch,
row-filters, column-mask): the same decisions, asked one at a time (docs/trino-opa.md).
A profile with access_control: opa renders no rules document at all (its trino-rules.json
is a 404); GET .../trino-opa/decisions says which compile answers either way.

Exit codes: 0 after SIGTERM/SIGINT; 2 invalid config; 3 cannot listen or start
(a port in use, state_dir not writable, or another serve holding state_dir). A
serve that exits 3 has written nothing: the daemon already running keeps its files.

Example (the demo config reads its webhook secret and admin token from the
environment, 16 bytes or more each):
  TAGWARDEN_WEBHOOK_SECRET=$(openssl rand -hex 24) \
  TAGWARDEN_DEMO_ADMIN_TOKEN=$(openssl rand -hex 24) \
      tagwarden serve --config examples/demo/tagwarden.yaml
  curl http://127.0.0.1:8181/readyz
  curl http://127.0.0.1:8181/v1/profiles/trino_main/trino-rules.json)";
  po::options_description desc("Options");
  desc.add_options()("help,h", "show this help")("config", po::value<std::string>()->required(),
                                                 "config file (profiles and daemon settings)")(
      "log-level", po::value<std::string>()->default_value("info"), "debug, info, warn or error");
  po::variables_map vm;
  if (int rc = parse_options(args, desc, usage, teaching, vm); rc >= 0) return rc;
  if (!log::init(vm["log-level"].as<std::string>())) {
    std::cerr << "error: --log-level must be debug, info, warn or error (not "
              << quote(vm["log-level"].as<std::string>()) << ")\n";
    return kExitInvalidInput;
  }
  const std::string config_path = vm["config"].as<std::string>();
  ConfigLoad loaded = load_config_file(config_path, true);
  if (!loaded.config) {
    for (const auto& e : loaded.errors) std::cerr << "error: " << config_path << ": " << one_line(e.str()) << "\n";
    return kExitInvalidInput;
  }
  if (loaded.config->daemon.source.file.empty() && loaded.config->daemon.source.url.empty()) {
    std::cerr << "error: " << config_path << ": source: serve needs source.file or source.url\n";
    return kExitInvalidInput;
  }
  // Block the signals in every thread; one thread waits for them below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Daemon daemon(std::move(*loaded.config), config_path);
  const DaemonSettings settings = daemon.settings();
  boost::asio::io_context io;
  Api api(daemon, io);
  std::vector<std::shared_ptr<http::Listener>> listeners;
  try {
    listeners.push_back(
        std::make_shared<http::Listener>(io, settings.server.listen, "api", api.handler(false), api.body_limit()));
    if (!settings.server.rules_listen.empty()) {
      listeners.push_back(std::make_shared<http::Listener>(io, settings.server.rules_listen, "rules", api.handler(true),
                                                           api.body_limit()));
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitOutputFailed;
  }
  // Only now, with the ports ours, is anything written: the lock, then every rules_file on restoring.
  // A daemon that then failed to listen would leave the files of the one already running
  // (deny-all, or older), and a state_dir it made.
  std::optional<StateDirLock> state_lock;
  try {
    state_lock.emplace(settings.state_dir);
    StateStore(settings.state_dir).check_writable();
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitOutputFailed;  // cannot start: every publish would fail and everyone stay refused
  }
  if (struct stat st{}; ::stat(settings.state_dir.c_str(), &st) == 0 && (st.st_mode & (S_IWGRP | S_IWOTH))) {
    // What is in state_dir is served after a restart: whoever may write there may widen access.
    log::warn("state_dir_writable_by_others",
              {{"state_dir", settings.state_dir},
               {"mode", std::to_string((st.st_mode >> 6) & 7) + std::to_string((st.st_mode >> 3) & 7) +
                            std::to_string(st.st_mode & 7)},
               {"hint",
                "anyone who may write to state_dir can plant an artifact that a restart serves: "
                "chmod go-w it, or point state_dir at a directory of the daemon's account alone"}});
  }
  daemon.restore_state();  // last good artifacts are served before anything else happens
  // After the restore, which trusts nothing in a folder others may write: from now on they may not.
  if (const auto repaired = StateStore(settings.state_dir).repair_modes(); !repaired.empty()) {
    log::warn("state_dir_modes_repaired",
              {{"folders", repaired},
               {"hint",
                "these folders under state_dir were writable by others (made under umask 000 by an earlier "
                "tagwarden): nothing in them was served, deny-all is until the first good compile, and "
                "they are 0755 now"}});
  }
  nlohmann::json ports = nlohmann::json::object();
  for (auto& l : listeners) {
    l->start();
    ports[l->name()] = l->port();
  }
  log::info("listening", {{"ports", ports}, {"state_dir", settings.state_dir}});

  std::promise<void> loop_done;
  std::future<void> loop_stopped = loop_done.get_future();
  std::thread loop([&] {
    daemon.run();
    loop_done.set_value();
  });
  std::thread guard([&] { daemon.guard(); });
  std::vector<std::thread> workers;
  for (int i = 0; i < 2; ++i) workers.emplace_back([&] { io.run(); });

  for (;;) {
    int sig = 0;
    sigwait(&signals, &sig);
    if (sig == SIGHUP) {
      std::string error;
      if (daemon.reload_config(&error)) daemon.request("sighup");
      continue;
    }
    log::info("shutting_down", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
    break;
  }
  for (auto& l : listeners) l->stop();
  daemon.stop();
  guard.join();
  // A pass finishes before the loop stops. One stuck in a read that does not return (a hung
  // mount) would hold SIGTERM forever: what is published and stored survives any stop.
  if (loop_stopped.wait_for(std::chrono::seconds(kStopTimeoutS)) == std::future_status::timeout) {
    log::error("stop_timed_out",
               {{"seconds", kStopTimeoutS}, {"message", "the reconcile pass did not end; exiting without it"}});
    std::_Exit(kExitOk);
  }
  loop.join();
  // Let answers the loop just posted (webhooks, recompiles) reach their sockets.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  io.stop();
  for (auto& w : workers) w.join();
  log::info("stopped");
  return kExitOk;
}

}  // namespace tw::cli
