#pragma once
// A profile's rules_file is replaced whole on every publish: if it is also a file tagwarden reads
// (the snapshot, the config) or writes for something else (another profile's artifact under
// --out, the daemon's state), publishing destroys it or serves one profile the other's rules.
// Paths are compared as files: relative to the working directory, symlinks resolved.

#include <string>
#include <vector>

#include "tagwarden/config/profile.h"

namespace tw {

/// A path tagwarden reads or writes, and what it is, for the error ("the snapshot (--snapshot)").
struct OwnedPath {
  std::string path;
  std::string what;
  bool directory = false;  ///< every file under it is owned
};

/// The path a file is known by: absolute, normalized, its existing directories' symlinks resolved.
std::string file_identity(const std::string& path);

/// One error per profile whose rules_file is one of `owned`, at profiles[i].rules_file.
std::vector<ValidationError> rules_file_clashes(const Config& config, const std::vector<OwnedPath>& owned);

}  // namespace tw
