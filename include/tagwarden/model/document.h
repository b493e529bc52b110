#pragma once
// JSON and YAML text -> one JSON value, so that one validator serves both.
// Duplicate mapping keys are refused here, before any other check, because
// both parsers would otherwise keep one of the values silently.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tw {

struct DocumentParse {
  nlohmann::json value;
  std::vector<std::pair<std::string, std::string>> errors;  ///< (path, message); value is unusable when non-empty
};

/// JSON when the first non-blank character is '{' or '[', YAML otherwise.
DocumentParse parse_document(std::string_view text);

/// Reads a whole file; throws std::runtime_error naming the path on failure.
std::string read_file(const std::string& path);

}  // namespace tw
