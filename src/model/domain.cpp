#include "tagwarden/model/domain.h"

namespace tw {

std::vector<std::string_view> domain_parts(std::string_view domain) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t slash = domain.find('/', start);
    parts.push_back(domain.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start));
    if (slash == std::string_view::npos) return parts;
    start = slash + 1;
  }
}

bool within_domain(const std::optional<std::string>& object_domain, std::string_view scope) {
  if (!object_domain) return false;
  const std::string_view d = *object_domain;
  return d == scope || (d.size() > scope.size() && d.compare(0, scope.size(), scope) == 0 && d[scope.size()] == '/');
}

}  // namespace tw
