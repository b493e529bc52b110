#pragma once
// What `tagwarden plan` and `tagwarden apply` share before they differ: check
// the options, load the inputs, compile the StarRocks profile, open the server
// (when a DSN is given), settle the capabilities and render the plan.

#include <optional>
#include <string>

#include "common.h"
#include "options.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/server.h"

namespace tw::cli {

struct StarRocksPrelude {
  std::optional<Inputs> inputs;
  Profile profile;
  ProfileCompile compiled;
  std::optional<starrocks::ServerSession> server;  ///< set when --dsn was given
  std::optional<starrocks::Plan> plan;
  std::string format;  ///< text or json
};

/// Fills `out` and returns -1, or prints why not and returns the exit code. `apply` makes --dsn
/// required, refuses --masking on against a server without masking policies, and words failures
/// as "nothing was applied".
int starrocks_prelude(const po::variables_map& vm, bool apply, StarRocksPrelude& out);

/// The options both commands take.
void add_starrocks_options(po::options_description& desc, bool apply);

}  // namespace tw::cli
