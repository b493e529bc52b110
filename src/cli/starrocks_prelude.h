#pragma once
// What `tagwarden plan` and `tagwarden apply` share before they differ: check
// the options, load the inputs, compile the StarRocks profile, open the server
// (when a DSN is given), settle the capabilities and render the plan.

#include <optional>
#include <string>

#include "common.h"
#include "options.h"
#include "starrocks_settings.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/starrocks/server.h"

namespace tw::cli {

struct StarRocksPrelude {
  std::optional<Inputs> inputs;
  Profile profile;
  ProfileCompile compiled;
  StarRocksSettings settings;                      ///< flags over the profile's keys
  std::optional<starrocks::ServerSession> server;  ///< set when there is a server (settings.dsn)
  std::optional<starrocks::Plan> plan;
  std::string format;  ///< text or json
};

/// Fills `out` and returns -1, or prints why not and returns the exit code. Dialect, masking,
/// server and password file are the flags', else the profile's (resolve_starrocks_settings).
/// `apply` needs a server (--dsn or the profile's dsn) and words failures as "nothing was
/// applied". Both refuse masking on against a server without masking policies (plan --dsn
/// shows what apply would run there).
int starrocks_prelude(const po::variables_map& vm, bool apply, StarRocksPrelude& out);

/// The options both commands take.
void add_starrocks_options(po::options_description& desc, bool apply);

}  // namespace tw::cli
