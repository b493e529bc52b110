// A snapshot source a test scripts (a body per set(), failures on demand), and one requested
// reconcile pass awaited: for tests that drive the daemon's loop without a file or HTTP source.
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "daemon/daemon.h"

namespace tw_test {

// Hands the daemon one body per set() (or the first body, when constructed with one); throws
// from fetch while failing is set.
class ScriptedSource : public tw::SnapshotSource {
 public:
  ScriptedSource() = default;
  explicit ScriptedSource(std::string first) : body_(std::move(first)), fresh_(true) {}
  void set(std::string body) {
    std::lock_guard lock(mu_);
    body_ = std::move(body);
    fresh_ = true;
  }
  void fail(bool on) {
    std::lock_guard lock(mu_);
    failing_ = on;
  }
  tw::SourceFetch fetch() override {
    std::lock_guard lock(mu_);
    if (failing_) throw std::bad_alloc();
    tw::SourceFetch f;
    f.status = fresh_ ? tw::SourceFetch::Status::Changed : tw::SourceFetch::Status::Unchanged;
    if (fresh_) f.body = body_;
    fresh_ = false;
    return f;
  }
  void reset() override {
    std::lock_guard lock(mu_);
    fresh_ = true;
  }
  std::string describe() const override { return "scripted"; }

 private:
  std::mutex mu_;
  std::string body_;
  bool fresh_ = false;
  bool failing_ = false;
};

// Requests one pass of the running loop and waits for its outcome.
inline tw::ReconcileOutcome reconcile(tw::Daemon& daemon) {
  auto done = std::make_shared<std::promise<tw::ReconcileOutcome>>();
  auto outcome = done->get_future();
  daemon.request("test", [done](const tw::ReconcileOutcome& o) { done->set_value(o); });
  REQUIRE(outcome.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  return outcome.get();
}

}  // namespace tw_test
