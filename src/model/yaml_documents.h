#pragma once
// How many documents a YAML stream holds. yaml-cpp 0.7's LoadAll never returns on some invalid
// streams: on a ',' outside a flow collection each call yields one more empty document without
// reading a byte (jbeder/yaml-cpp#1040, fixed upstream in #1319, after the Debian 12 package), and
// every one is kept, so a snapshot source serving such text took the process's memory until it
// was killed. This count stops where a document would start again where the last one started.

#include <cstddef>
#include <optional>
#include <string>

namespace tw {

struct YamlDocumentCount {
  std::size_t documents = 0;
  /// Set when yaml-cpp stopped reading: the 1-based line and column it is stuck at.
  std::optional<std::pair<int, int>> stuck_at;
};

/// Throws YAML::Exception for text yaml-cpp refuses.
YamlDocumentCount count_yaml_documents(const std::string& text);

}  // namespace tw
