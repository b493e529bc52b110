#include "yaml_documents.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include <sstream>

namespace tw {

namespace {

// Only where each document starts matters.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark start = YAML::Mark::null_mark();
};

}  // namespace

YamlDocumentCount count_yaml_documents(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts events;
  YamlDocumentCount count;
  std::optional<int> last_start;
  while (parser.HandleNextDocument(events)) {
    if (last_start && *last_start == events.start.pos) {
      count.stuck_at = std::make_pair(events.start.line + 1, events.start.column + 1);
      break;
    }
    last_start = events.start.pos;
    ++count.documents;
  }
  return count;
}

}  // namespace tw
