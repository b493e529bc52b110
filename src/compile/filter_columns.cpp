#include "tagwarden/compile/filter_columns.h"

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

}  // namespace tw
