#include "tagwarden/model/object_digest.h"

#include "tagwarden/util/digest.h"

namespace tw {

std::string object_content_digest(const Object& o) {
  Digest d;
  d.add("tagwarden object 1");
  d.add(o.name.catalog).add(o.name.schema).add(o.name.table).add(static_cast<std::uint64_t>(o.kind));
  d.add(std::uint64_t(o.owner.has_value())).add(o.owner.value_or(""));
  d.add(std::uint64_t(o.domain.has_value())).add(o.domain.value_or(""));
  d.add(o.view_security ? static_cast<std::uint64_t>(*o.view_security) : 99);
  d.add(o.depends_on.size());
  for (const auto& x : o.depends_on) d.add(x);
  d.add(o.tags.size());
  for (const auto& x : o.tags) d.add(x);
  d.add(o.columns.size());
  for (const auto& c : o.columns) {
    d.add(c.name).add(c.type).add(c.tags.size());
    for (const auto& x : c.tags) d.add(x);
  }
  return d.finish();
}

}  // namespace tw
