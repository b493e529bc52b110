#include "tagwarden/engines/starrocks/apply.h"

#include <chrono>
#include <thread>

#include "tagwarden/engines/starrocks/live_state.h"
#include "tagwarden/engines/starrocks/sql.h"

namespace tw::starrocks {
namespace {

class Runner {
 public:
  Runner(const Plan& plan, Connection& c, const ApplyOptions& o, ApplyResult& r) : plan_(plan), c_(c), o_(o), r_(r) {}

  // Runs the statements in order. Throws SqlError when the connection is lost.
  void run(const std::vector<Statement>& statements) {
    std::string catalog(kInternalCatalog);
    for (const auto& s : statements) {
      if (switches_catalog(plan_.dialect, catalog, s.catalog)) {
        if (!execute(sql::set_catalog(s.catalog), s.phase, false)) return;
        catalog = s.catalog;
      }
      if (!execute(s.sql, s.phase, true)) return;
    }
  }

 private:
  // False when the run must stop: a tightening (or preparing) statement was refused.
  bool execute(const std::string& text, Phase phase, bool counted) {
    if (o_.before_statement) o_.before_statement(text);
    try {
      c_.execute(text);
    } catch (const SqlError& e) {
      if (e.connection_lost()) throw;
      r_.errors.push_back(std::string(e.what()) + " [" + to_string(phase) + "] " + text);
      if (phase == Phase::Prepare || phase == Phase::Tighten) {
        r_.errors.push_back("stopped before widening: a statement that must run before any grant was refused");
        return false;
      }
      return true;
    }
    r_.executed.push_back(text);
    if (counted) ++r_.statements;
    return true;
  }

  const Plan& plan_;
  Connection& c_;
  const ApplyOptions& o_;
  ApplyResult& r_;
};

}  // namespace

ApplyResult apply_plan(const Plan& plan, Connection& c, const ApplyOptions& options) {
  ApplyResult r;
  int delay = options.backoff_ms;
  bool read_once = false;
  for (int attempt = 0; attempt <= options.retries; ++attempt) {
    r.attempts = attempt + 1;
    try {
      if (attempt > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        delay *= 2;
        c.reconnect();
      }
      LiveRead live = read_live_state(c, plan);
      const auto statements = diff_statements(plan, live.state);
      if (!read_once) {
        read_once = true;
        r.planned = statements;
        r.findings = diff_findings(plan, live.state);
        for (auto& f : drift_findings(plan, live.foreign)) r.findings.push_back(std::move(f));
        r.findings.insert(r.findings.end(), live.owned_drift.begin(), live.owned_drift.end());
      }
      if (options.dry_run) {
        r.ok = true;
        return r;
      }
      Runner(plan, c, options, r).run(statements);
      if (!r.errors.empty()) return r;
      if (options.verify) {
        const auto rest = diff_statements(plan, read_live_state(c, plan).state);
        if (!rest.empty()) {
          r.errors.push_back("the server still differs from the plan after applying: " + std::to_string(rest.size()) +
                             " statements remain, the first is " + rest.front().sql);
          return r;
        }
      }
      r.ok = true;
      return r;
    } catch (const SqlError& e) {
      if (!e.connection_lost()) {
        r.errors.push_back(e.what());
        return r;
      }
      r.notes.push_back("attempt " + std::to_string(attempt + 1) + ": " + e.what());
    }
  }
  r.errors.push_back("gave up after " + std::to_string(r.attempts) +
                     " attempts: the connection kept failing; what ran left every user within the old or the new "
                     "policy (tightening runs first), so running apply again converges");
  return r;
}

}  // namespace tw::starrocks
