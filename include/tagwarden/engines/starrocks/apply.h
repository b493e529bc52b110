#pragma once
// Converging a server to a Plan: read what tagwarden owns, diff, run only the
// difference in tighten-before-widen order. A second apply of the same plan
// runs nothing. A lost connection at any statement is survivable: the next
// attempt (or the next run) re-reads the server and continues from there,
// and every prefix of the statements is safe to stop at.

#include <functional>
#include <string>
#include <vector>

#include "tagwarden/compile/finding.h"
#include "tagwarden/engines/starrocks/connection.h"
#include "tagwarden/engines/starrocks/plan.h"

namespace tw::starrocks {

struct ApplyOptions {
  int retries = 3;       ///< re-reads and resumes after a lost connection
  int backoff_ms = 500;  ///< delay before the first retry; doubles each time
  bool dry_run = false;  ///< read and diff only: ApplyResult::planned is what would run
  bool verify = true;    ///< re-read after applying and fail when the server still differs
  /// Called before each statement runs (SET CATALOG included); tests use it to cut the connection.
  std::function<void(const std::string& sql)> before_statement;
};

struct ApplyResult {
  bool ok = false;                    ///< the server holds the plan (dry run: the diff was read)
  std::vector<Statement> planned;     ///< the difference read at the first attempt
  std::vector<std::string> executed;  ///< SQL that ran, in order, SET CATALOG included
  std::size_t statements = 0;         ///< statements that ran, SET CATALOG not counted
  std::vector<Finding> findings;      ///< missing users, foreign masks, drift
  std::vector<std::string> errors;    ///< why ok is false
  std::vector<std::string> notes;     ///< recovered problems (a lost connection that a retry survived)
  int attempts = 0;
};

/// Applies `plan` over `connection`. Never throws for server errors: they are in ApplyResult::errors.
/// A statement the server refuses stops the run when it tightens (nothing may widen before every
/// tightening is done); a refused widening statement is reported and the others still run.
ApplyResult apply_plan(const Plan& plan, Connection& connection, const ApplyOptions& options = {});

}  // namespace tw::starrocks
