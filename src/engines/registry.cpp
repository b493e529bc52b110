#include "tagwarden/engines/registry.h"
#include "tagwarden/util/sha256.h"
#include "tagwarden/util/text.h"

#include <chrono>
#include <variant>

#include "tagwarden/engines/starrocks/artifact.h"
#include "tagwarden/engines/starrocks/plan.h"
#include "tagwarden/engines/trino/opa_manifest.h"
#include "tagwarden/engines/trino/rules.h"

namespace tw {

namespace {
std::string hex_of(const std::string& digest) {
  return hex_lower(reinterpret_cast<const unsigned char*>(digest.data()), digest.size());
}
}  // namespace

std::string sha256_hex(std::string_view data) { return hex_of(sha256(data)); }

// One engine's cache at a time: the one of the engine last rendered.
struct EngineRenderCache::State {
  std::variant<std::monostate, trino::RenderCache, starrocks::RenderCache> engine;
};

EngineRenderCache::EngineRenderCache() = default;
EngineRenderCache::~EngineRenderCache() = default;

namespace {

// The cache of `E` in `cache`, made (and any other engine's dropped) when absent.
template <typename E>
E& engine_cache(EngineRenderCache& cache) {
  if (!cache.state) cache.state = std::make_unique<EngineRenderCache::State>();
  if (auto* c = std::get_if<E>(&cache.state->engine)) return *c;
  return cache.state->engine.template emplace<E>();
}

RenderResult render(const PolicySet& ps, const Profile* profile, trino::RenderCache* trino_cache,
                    starrocks::RenderCache* starrocks_cache) {
  switch (ps.engine) {
    case Engine::Trino: {
      auto rules = trino::render_rules(ps, trino_cache);
      Artifact a{"rules.json",
                 "application/json",
                 trino_cache ? trino_cache->documents.share(std::move(rules.text))
                             : std::make_shared<const std::string>(std::move(rules.text)),
                 rules.table_rules,
                 {},
                 {}};
      a.sha256 = trino_cache ? hex_of(trino_cache->digests.digest(a.bytes)) : sha256_hex(*a.bytes);
      return {std::move(a), {}};
    }
    case Engine::StarRocks: {
      auto plan = starrocks::render_artifact(
          ps, profile ? std::string_view(profile->masking) : "auto", starrocks_cache,
          profile ? static_cast<std::size_t>(profile->max_roles_per_user) : starrocks::kDefaultMaxRolesPerUser);
      if (!plan.error.empty()) return {std::nullopt, plan.error};
      Artifact a{"plan.sql",
                 "application/sql",
                 std::make_shared<const std::string>(std::move(plan.text)),
                 plan.statements,
                 {},
                 std::move(plan.findings)};
      a.sha256 = sha256_hex(*a.bytes);
      return {std::move(a), {}};
    }
  }
  return {std::nullopt, "unknown engine"};
}

}  // namespace

RenderResult render_artifact(const PolicySet& ps, const Profile* profile) {
  return render(ps, profile, nullptr, nullptr);
}

RenderResult render_artifact(const PolicySet& ps, const Profile* profile, EngineRenderCache& cache) {
  switch (ps.engine) {
    case Engine::Trino:
      return render(ps, profile, &engine_cache<trino::RenderCache>(cache), nullptr);
    case Engine::StarRocks:
      return render(ps, profile, nullptr, &engine_cache<starrocks::RenderCache>(cache));
  }
  return render(ps, profile, nullptr, nullptr);
}

ProfileBuild build_profile(const Model& model, const Profile& profile, const CompileMemo* previous) {
  return build_profile(model, profile, PreviousBuild{nullptr, previous, nullptr});
}

namespace {

bool same_decisions(const PreviousBuild& previous, const Profile& profile, const ProfileCompile& now) {
  return previous.profile && previous.memo && previous.artifact && now.memo && *previous.profile == profile &&
         previous.memo->decisions_key() == now.memo->decisions_key();
}

}  // namespace

ProfileBuild build_profile(const Model& model, const Profile& profile, const PreviousBuild& previous) {
  const auto t0 = std::chrono::steady_clock::now();
  ProfileBuild b{compile_profile(model, profile, previous.memo), std::nullopt};
  const auto t1 = std::chrono::steady_clock::now();
  b.compile_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  if (b.compile.policy_set && same_decisions(previous, profile, b.compile)) {
    b.artifact = *previous.artifact;
    b.reused_artifact = true;
    b.compile.findings.insert(b.compile.findings.end(), b.artifact->findings.begin(), b.artifact->findings.end());
  } else if (b.compile.policy_set && b.compile.memo && profile.engine == Engine::Trino &&
             profile.access_control == TrinoAccessControl::Opa) {
    // Trino asks the daemon, which answers from the PolicySet: no rules document to render.
    trino::OpaManifest m = trino::render_opa_manifest(*b.compile.policy_set, profile, *b.compile.memo);
    Artifact a{kOpaManifestFilename,
               "application/json",
               std::make_shared<const std::string>(std::move(m.text)),
               m.access_classes,
               {},
               {}};
    a.sha256 = sha256_hex(*a.bytes);
    b.artifact = std::move(a);
    b.render_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  } else if (b.compile.policy_set) {
    RenderResult r = previous.render_cache ? render_artifact(*b.compile.policy_set, &profile, *previous.render_cache)
                                           : render_artifact(*b.compile.policy_set, &profile);
    if (r.artifact) {
      b.compile.findings.insert(b.compile.findings.end(), r.artifact->findings.begin(), r.artifact->findings.end());
      b.artifact = std::move(r.artifact);
    } else {
      b.compile.errors.push_back(r.error);
      b.compile.policy_set.reset();
    }
    b.render_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  }
  return b;
}

}  // namespace tw
