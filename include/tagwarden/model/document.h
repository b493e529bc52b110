#pragma once
// JSON and YAML text -> one parsed document (simdjson's DOM), so that one
// validator serves both. Duplicate mapping keys are refused here, before any
// other check, naming their path, because both formats would otherwise keep
// one of the values silently.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tagwarden/model/json_value.h"

namespace tw {

struct DocumentParse {
  JsonDocument document;                                    ///< has a value only when errors is empty
  std::vector<std::pair<std::string, std::string>> errors;  ///< (path, message)
  /// Precondition: errors is empty.
  JsonValue value() const { return document.root(); }
};

/// JSON when the first non-blank character is '{' or '[', YAML otherwise; a
/// UTF-8 byte order mark is skipped. JSON is read by simdjson (at most 1024
/// levels deep); YAML by yaml-cpp, then handed to simdjson as JSON. Text that is
/// not UTF-8 refuses the document: JSON with the JSON reader's message, YAML
/// with one error per string (key or value) naming its path.
DocumentParse parse_document(std::string_view text);

/// Reads a whole file; throws std::runtime_error naming the path on failure. The string has at
/// least `spare_capacity` bytes of capacity past its end (SnapshotLoader::kSpareCapacity).
std::string read_file(const std::string& path, std::size_t spare_capacity = 0);

}  // namespace tw
