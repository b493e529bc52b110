#include "tagwarden/config/rules_file_clashes.h"

#include <filesystem>
#include <system_error>

namespace tw {

std::string file_identity(const std::string& path) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  if (ec) p = std::filesystem::absolute(path, ec);
  if (ec) p = path;
  return p.lexically_normal().string();
}

std::vector<ValidationError> rules_file_clashes(const Config& config, const std::vector<OwnedPath>& owned) {
  std::vector<ValidationError> out;
  std::vector<std::string> ids;
  for (const auto& o : owned) ids.push_back(o.path.empty() ? std::string() : file_identity(o.path));
  for (std::size_t i = 0; i < config.profiles.size(); ++i) {
    const auto& file = config.profiles[i].rules_file;
    if (!file) continue;
    const std::string id = file_identity(*file);
    for (std::size_t k = 0; k < owned.size(); ++k) {
      if (ids[k].empty()) continue;
      const bool clash = owned[k].directory ? id.size() > ids[k].size() && id.compare(0, ids[k].size(), ids[k]) == 0 &&
                                                  id[ids[k].size()] == '/'
                                            : id == ids[k];
      if (!clash) continue;
      out.push_back({"profiles[" + std::to_string(i) + "].rules_file",
                     (owned[k].directory ? "is under " : "is ") + owned[k].what +
                         ": publishing the rules would overwrite it; name a file of the profile's own"});
      break;
    }
  }
  return out;
}

}  // namespace tw
