#pragma once
// The one list of engines: PolicySet -> the artifact its engine loads.
// Adding an engine = a folder under src/engines/ and one line in registry.cpp.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tagwarden/compile/compiler.h"
#include "tagwarden/compile/policy_set.h"

namespace tw {
/// What the last render of one profile leaves for the next render of the same profile, whichever
/// its engine: the engine's own render cache (trino::RenderCache, starrocks::RenderCache), made on
/// first use and replaced when the profile's engine changes. Only a speed-up: the bytes are the
/// same with or without it. One render at a time per cache.
class EngineRenderCache {
 public:
  EngineRenderCache();
  ~EngineRenderCache();
  EngineRenderCache(const EngineRenderCache&) = delete;
  EngineRenderCache& operator=(const EngineRenderCache&) = delete;
  struct State;
  std::unique_ptr<State> state;
};

/// The artifact of a Trino profile with access_control: opa (trino/opa_manifest.h), in place of rules.json.
inline constexpr const char* kOpaManifestFilename = "trino-opa.json";

struct Artifact {
  std::string filename;      ///< e.g. rules.json
  std::string content_type;  ///< e.g. application/json
  /// Shared, never changed once made: a reused or published artifact is not copied (44 MB at M).
  std::shared_ptr<const std::string> bytes = std::make_shared<const std::string>();
  std::size_t rules = 0;          ///< rules or statements, for summaries and metrics
  std::string sha256;             ///< hex of bytes
  std::vector<Finding> findings;  ///< what the translation to the engine adds (e.g. StarRocks coarsening)
};

struct RenderResult {
  std::optional<Artifact> artifact;  ///< absent when the engine cannot render this PolicySet
  std::string error;
};

/// Pure; the same PolicySet gives the same bytes. `profile` gives engine options a PolicySet does
/// not carry (StarRocks: the `masking` key, which decides masks or coarsening without a server).
RenderResult render_artifact(const PolicySet& ps, const Profile* profile = nullptr);
/// The same, taking from and leaving in `cache` what the last render of the same profile made;
/// same bytes either way.
RenderResult render_artifact(const PolicySet& ps, const Profile* profile, EngineRenderCache& cache);

/// compile_profile + render_artifact: a profile either yields a PolicySet and
/// its artifact, or errors (and no PolicySet). The artifact's findings are also
/// appended to compile.findings, so every caller reports them.
struct ProfileBuild {
  ProfileCompile compile;
  std::optional<Artifact> artifact;
  bool reused_artifact = false;  ///< the decisions were those of the previous build, so was its artifact
  double compile_ms = 0;         ///< deciding (compile_profile), wall clock: reported, never part of an output
  double render_ms = 0;          ///< rendering the artifact (0 when it was reused)
};
ProfileBuild build_profile(const Model& model, const Profile& profile, const CompileMemo* previous = nullptr);

/// A profile's last good build: its profile, memo and artifact.
struct PreviousBuild {
  const Profile* profile = nullptr;
  const CompileMemo* memo = nullptr;
  const Artifact* artifact = nullptr;
  EngineRenderCache* render_cache = nullptr;  ///< this profile's, used and updated by this build only
};
/// As above, and when the compile decides exactly what the previous build decided (same
/// context, same objects with the same digests, same profile), the previous artifact is
/// taken instead of rendering again: rendering is pure, so the bytes would be the same.
ProfileBuild build_profile(const Model& model, const Profile& profile, const PreviousBuild& previous);

std::string sha256_hex(std::string_view data);

}  // namespace tw
