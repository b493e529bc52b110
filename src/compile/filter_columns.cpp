#include "tagwarden/compile/filter_columns.h"

#include <algorithm>

namespace tw {

namespace {

void collect(const nlohmann::json& node, std::set<std::string>& out) {
  if (!node.is_object()) return;
  for (const char* junction : {"and", "or"}) {
    if (const auto it = node.find(junction); it != node.end()) {
      if (it->is_array()) {
        for (const auto& part : *it) collect(part, out);
      }
      return;
    }
  }
  if (const auto it = node.find("column"); it != node.end() && it->is_string()) out.insert(it->get<std::string>());
}

}  // namespace

std::set<std::string> filter_columns(const nlohmann::json& condition) {
  std::set<std::string> out;
  collect(condition, out);
  return out;
}

std::optional<std::string> refused_filter_column(const Access& access) {
  if (access.row_filter.empty() || access.denied_columns.empty()) return std::nullopt;
  for (const auto& c : filter_columns(nlohmann::json::parse(access.row_filter))) {
    if (std::binary_search(access.denied_columns.begin(), access.denied_columns.end(), c)) return c;
  }
  return std::nullopt;
}

const std::string* filter_refusal(const AccessClass& cls) {
  if (cls.access.row_filter.empty()) return nullptr;  // the reason is about a row filter: most classes have none
  return cls.reason_starting(kFilterRefusesObject);
}

bool reads_column(const std::vector<AccessClass>& classes, std::size_t user, const std::string& column) {
  for (const auto& cls : classes) {
    if (!cls.users->contains(user)) continue;
    const auto& denied = cls.access.denied_columns;
    return cls.access.privileges.has(Privilege::Select) && !std::binary_search(denied.begin(), denied.end(), column);
  }
  return false;
}

}  // namespace tw
