#pragma once
// Reads the daemon's part of the config file (source, server, state_dir,
// reconcile_interval, webhook, tokens). Secrets are resolved here from
// environment variables or files so that nothing else touches them.

#include "tagwarden/config/profile.h"
#include "tagwarden/model/entry_reader.h"

namespace tw {

void read_daemon_settings(EntryReader& top, DaemonSettings& out, bool resolve_secrets);

/// The longest duration a setting takes: 24 days (576h), which an int of milliseconds holds.
inline constexpr long long kMaxDurationMs = 24LL * 24 * 3600 * 1000;

/// "90", "90s", "1500ms", "5m", "1h" -> milliseconds; nullopt when malformed or
/// longer than kMaxDurationMs.
std::optional<long long> parse_duration_ms(JsonValue value);

}  // namespace tw
