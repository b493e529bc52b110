#pragma once
// Which dialect, masking, server and password file `plan` and `apply` use: a
// command-line flag wins, otherwise the profile's key. Header only, so the
// unit tests check it without the CLI (tests/unit/test_cli_starrocks_settings.cpp).

#include <optional>
#include <string>

#include "tagwarden/config/profile.h"

namespace tw::cli {

/// The flags as given (nullopt: not on the command line).
struct StarRocksFlags {
  std::optional<std::string> dialect;
  std::optional<std::string> masking;
  std::optional<std::string> dsn;
  std::optional<std::string> password_file;
};

struct StarRocksSettings {
  std::string dialect;                       ///< starrocks or mysql
  std::string masking;                       ///< auto, on or off
  std::optional<std::string> dsn;            ///< the server; nullopt: none (plan: an empty server)
  std::optional<std::string> password_file;  ///< TAGWARDEN_STARROCKS_PASSWORD still wins over it
  bool dsn_from_profile = false;
};

/// `apply` takes the profile's `dsn` when --dsn is not given; `plan` connects only when --dsn
/// is given (a dry run does not reach a server it was not pointed at), so plain `plan` is the
/// plan for an empty server. Values are not validated here: the config loader checked the
/// profile's, the caller checks the flags'.
inline StarRocksSettings resolve_starrocks_settings(const StarRocksFlags& flags, const Profile& profile, bool apply) {
  StarRocksSettings s;
  s.dialect = flags.dialect.value_or(profile.dialect);
  s.masking = flags.masking.value_or(profile.masking);
  if (flags.dsn) {
    s.dsn = flags.dsn;
  } else if (apply && !profile.dsn.empty()) {
    s.dsn = profile.dsn;
    s.dsn_from_profile = true;
  }
  s.password_file = flags.password_file ? flags.password_file : profile.password_file;
  return s;
}

}  // namespace tw::cli
