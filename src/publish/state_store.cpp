#include "tagwarden/publish/state_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tagwarden/model/document.h"
#include "tagwarden/publish/atomic_file.h"

namespace tw {

StateStore::StateStore(std::string dir) : dir_(std::move(dir)) {}

std::optional<StoredArtifact> StateStore::load(const std::string& profile, std::string* problem) const {
  const auto base = std::filesystem::path(dir_) / "profiles" / profile;
  auto refuse = [&](std::string why) -> std::optional<StoredArtifact> {
    if (problem) *problem = std::move(why);
    return std::nullopt;
  };
  std::error_code ec;
  if (!std::filesystem::exists(base / "meta.json", ec)) return std::nullopt;  // never stored
  // Whoever else may write here may have planted what would be served (audit 32 F3).
  for (const auto& dir : {std::filesystem::path(dir_) / "profiles", base}) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return refuse(dir.string() + " is not a folder");
    if (st.st_mode & (S_IWGRP | S_IWOTH))
      return refuse(dir.string() + " is writable by others, so what it holds is not trusted");
  }
  // A folder this daemon cannot write may hold state older than what was last served: a publish
  // that could neither store nor remove its state served the newer artifact all the same.
  if (::access(base.c_str(), W_OK) != 0)
    return refuse(base.string() + " is not writable (" + std::strerror(errno) +
                  "), so what it holds may be older than what was last served");
  try {
    const auto meta = nlohmann::json::parse(read_file((base / "meta.json").string()));
    StoredArtifact s;
    s.artifact.filename = meta.at("filename").get<std::string>();
    s.artifact.content_type = meta.at("content_type").get<std::string>();
    s.artifact.rules = meta.at("rules").get<std::size_t>();
    s.artifact.sha256 = meta.at("sha256").get<std::string>();
    s.version = meta.at("version").get<std::uint64_t>();
    s.published_at = meta.at("published_at").get<std::string>();
    if (meta.contains("valid_until")) s.valid_until = meta.at("valid_until").get<std::string>();
    if (meta.contains("profile_settings")) s.settings = meta.at("profile_settings").get<std::string>();
    if (s.artifact.filename.find('/') != std::string::npos) return refuse("meta.json names a file outside the folder");
    for (const auto& file : {base / "meta.json", base / s.artifact.filename}) {
      struct stat st {};
      if (::lstat(file.c_str(), &st) == 0 && st.st_uid != ::geteuid())
        return refuse(file.string() + " belongs to another account than the daemon's, which writes every file here");
    }
    // With room for a reader's padding: a restored rules document is checked without a copy of it.
    s.artifact.bytes = std::make_shared<const std::string>(read_file((base / s.artifact.filename).string(), 64));
    // A torn or tampered state file must never be served.
    if (s.artifact.bytes->empty()) return refuse("the stored artifact is empty");
    if (sha256_hex(*s.artifact.bytes) != s.artifact.sha256)
      return refuse(
          "the stored artifact does not match its digest (a publish stopped before its bytes were stored, a torn "
          "write, or tampering)");
    return s;
  } catch (const std::exception& e) {
    return refuse(std::string("unreadable: ") + e.what());
  }
}

void StateStore::save_bytes(const std::string& profile, const StoredArtifact& s) const {
  const auto base = std::filesystem::path(dir_) / "profiles" / profile;
  write_file_atomically((base / s.artifact.filename).string(), *s.artifact.bytes);
}

void StateStore::save_meta(const std::string& profile, const StoredArtifact& s) const {
  const auto base = std::filesystem::path(dir_) / "profiles" / profile;
  nlohmann::json meta = {{"filename", s.artifact.filename},
                         {"content_type", s.artifact.content_type},
                         {"rules", s.artifact.rules},
                         {"sha256", s.artifact.sha256},
                         {"version", s.version},
                         {"published_at", s.published_at}};
  if (s.valid_until) meta["valid_until"] = *s.valid_until;
  if (!s.settings.empty()) meta["profile_settings"] = s.settings;
  write_file_atomically((base / "meta.json").string(), meta.dump(1) + "\n");
}

void StateStore::forget(const std::string& profile) const {
  const auto base = std::filesystem::path(dir_) / "profiles" / profile;
  const auto meta = base / "meta.json";
  if (::unlink(meta.c_str()) != 0 && errno != ENOENT)
    throw std::runtime_error("cannot remove " + meta.string() + ": " + std::strerror(errno));
  const int dir = ::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) {
    if (errno == ENOENT) return;
    throw std::runtime_error("cannot open " + base.string() + ": " + std::strerror(errno));
  }
  const int synced = ::fsync(dir);
  const int saved = errno;
  ::close(dir);
  if (synced != 0) throw std::runtime_error("cannot sync " + base.string() + ": " + std::strerror(saved));
}

std::vector<std::string> StateStore::repair_modes() const {
  namespace fs = std::filesystem;
  std::vector<std::string> repaired;
  auto repair = [&](const fs::path& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !(st.st_mode & (S_IWGRP | S_IWOTH))) return;
    if (::chmod(dir.c_str(), 0755) == 0) repaired.push_back(dir.string());
  };
  const fs::path profiles = fs::path(dir_) / "profiles";
  repair(profiles);
  std::error_code ec;
  for (fs::directory_iterator it(profiles, ec), end; !ec && it != end; it.increment(ec)) repair(it->path());
  return repaired;
}

void StateStore::check_writable() const {
  const auto probe = std::filesystem::path(dir_) / "profiles" / ".write-probe";
  try {
    write_file_atomically(probe.string(), "tagwarden\n");
  } catch (const std::exception& e) {
    throw std::runtime_error("state_dir " + dir_ + " is not writable: " + e.what() +
                             " (set state_dir to a folder the daemon may write)");
  }
  std::error_code ignored;
  std::filesystem::remove(probe, ignored);
}

}  // namespace tw
