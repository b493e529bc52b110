#pragma once
// Findings are values returned by compile, never log lines.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tw {

enum class Severity { Info, Warning, Error };
const char* to_string(Severity s);

struct Finding {
  Severity severity = Severity::Info;
  std::string code;                   ///< stable, machine-readable: e.g. clearance_groups_only
  std::string message;                ///< one sentence a platform engineer can act on
  std::string profile;                ///< empty for snapshot-wide findings
  std::vector<std::string> subjects;  ///< tags, objects, users the finding is about
  auto operator<=>(const Finding&) const = default;
};

nlohmann::json to_json(const Finding& f);

}  // namespace tw
