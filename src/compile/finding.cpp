#include "tagwarden/compile/finding.h"

namespace tw {

const char* to_string(Severity s) {
  switch (s) {
    case Severity::Info:
      return "info";
    case Severity::Warning:
      return "warning";
    case Severity::Error:
      return "error";
  }
  return "?";
}

nlohmann::json to_json(const Finding& f) {
  nlohmann::json j = {{"severity", to_string(f.severity)}, {"code", f.code}, {"message", f.message}};
  if (!f.profile.empty()) j["profile"] = f.profile;
  if (!f.subjects.empty()) j["subjects"] = f.subjects;
  return j;
}

}  // namespace tw
