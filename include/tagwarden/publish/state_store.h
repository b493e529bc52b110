#pragma once
// The daemon's persisted last good artifacts, one folder per profile under the
// state directory, so a restarted daemon serves them before its first compile.

#include <optional>
#include <string>
#include <vector>

#include "tagwarden/engines/registry.h"

namespace tw {

struct StoredArtifact {
  Artifact artifact;
  std::uint64_t version = 0;  ///< increases each time the bytes change
  std::string published_at;   ///< RFC 3339
  /// RFC 3339: the earliest role expiry the compile that made it saw. Past it the artifact
  /// may still grant an expired assignment: a daemon that cannot recompile withdraws it.
  std::optional<std::string> valid_until;
  /// profile_settings_digest of the profile it was compiled for; empty when stored by a
  /// tagwarden that did not record it.
  std::string settings;
};

class StateStore {
 public:
  explicit StateStore(std::string dir);
  /// Nullopt when nothing was stored or the stored bytes do not match their digest; then
  /// `problem` (if given) says why, or stays empty when the profile has no state at all.
  std::optional<StoredArtifact> load(const std::string& profile, std::string* problem = nullptr) const;
  /// The metadata (version, digest, validity), atomically. Written before the bytes it
  /// describes: until they are stored, load() finds bytes that do not match the digest and
  /// refuses them, so no restart serves an artifact older than the last one served.
  /// Throws std::runtime_error on I/O failure.
  void save_meta(const std::string& profile, const StoredArtifact& stored) const;
  /// Removes the profile's metadata (and syncs its folder), so that load() finds no state and a
  /// restart serves deny-all: removing needs no free space where writing it again does.
  /// Nothing stored is not an error. Throws std::runtime_error on I/O failure.
  void forget(const std::string& profile) const;
  /// The artifact's bytes, atomically, under the file name its metadata gives.
  void save_bytes(const std::string& profile, const StoredArtifact& stored) const;
  /// Writes and removes a probe file under the folder (made if missing), as a publish would: a
  /// daemon that cannot keep its state would refuse everyone forever. Throws std::runtime_error
  /// naming the folder when it cannot.
  void check_writable() const;
  /// Sets the folders the daemon made under state_dir (profiles/ and one per profile) to 0755
  /// where group or others may write them (made under umask 000 by an earlier tagwarden):
  /// what is in them is served after a restart. Returns the folders it changed.
  std::vector<std::string> repair_modes() const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace tw
