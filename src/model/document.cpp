#include "tagwarden/model/document.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace tw {
namespace {

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

// YAML 1.2 core schema resolution for plain scalars; quoted scalars stay strings.
nlohmann::json yaml_scalar(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str") return s;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  static const std::regex integer(R"([-+]?[0-9]+)");
  static const std::regex floating(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, integer)) {
    try {
      return std::stoll(s);
    } catch (const std::out_of_range&) {
      return s;
    }
  }
  if (std::regex_match(s, floating)) return std::stod(s);
  return s;
}

nlohmann::json yaml_to_json(const YAML::Node& node, const std::string& path,
                            std::vector<std::pair<std::string, std::string>>& errors) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return yaml_scalar(node);
    case YAML::NodeType::Sequence: {
      nlohmann::json out = nlohmann::json::array();
      std::size_t i = 0;
      for (const auto& item : node) {
        out.push_back(yaml_to_json(item, path + "[" + std::to_string(i) + "]", errors));
        ++i;
      }
      return out;
    }
    case YAML::NodeType::Map: {
      nlohmann::json out = nlohmann::json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          errors.emplace_back(path, "mapping keys must be plain strings");
          continue;
        }
        const std::string key = kv.first.Scalar();
        if (out.contains(key)) {
          errors.emplace_back(child_path(path, key), "duplicate key \"" + key + "\"");
          continue;
        }
        out[key] = yaml_to_json(kv.second, child_path(path, key), errors);
      }
      return out;
    }
  }
  return nullptr;
}

DocumentParse parse_yaml(std::string_view text) {
  DocumentParse result;
  try {
    YAML::Node root = YAML::Load(std::string(text));
    result.value = yaml_to_json(root, "", result.errors);
  } catch (const YAML::Exception& e) {
    result.errors.emplace_back("", std::string("invalid YAML: ") + e.what());
  }
  return result;
}

DocumentParse parse_json(std::string_view text) {
  DocumentParse result;
  // Tracks the keys seen in each open object so duplicates are refused, not
  // silently overwritten (nlohmann keeps the last one).
  std::vector<std::set<std::string>> open_objects;
  bool duplicate = false;
  std::vector<std::string> path_stack;
  auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    (void)depth;
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) {
      open_objects.emplace_back();
    } else if (event == E::object_end) {
      if (!open_objects.empty()) open_objects.pop_back();
    } else if (event == E::key && !open_objects.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!open_objects.back().insert(key).second) duplicate = true;
    }
    return true;
  };
  try {
    result.value = nlohmann::json::parse(text.begin(), text.end(), callback);
  } catch (const nlohmann::json::parse_error& e) {
    result.errors.emplace_back("", std::string("invalid JSON: ") + e.what());
  }
  // JSON is YAML: the (slower) YAML reader names the path of every duplicate key.
  if (duplicate) return parse_yaml(text);
  return result;
}

}  // namespace

DocumentParse parse_document(std::string_view text) {
  std::size_t i = 0;
  if (text.size() >= 3 && static_cast<unsigned char>(text[0]) == 0xEF && static_cast<unsigned char>(text[1]) == 0xBB &&
      static_cast<unsigned char>(text[2]) == 0xBF) {
    text.remove_prefix(3);
  }
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) ++i;
  if (i < text.size() && (text[i] == '{' || text[i] == '[')) return parse_json(text);
  return parse_yaml(text);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw std::runtime_error("cannot read " + path);
  return buffer.str();
}

}  // namespace tw
