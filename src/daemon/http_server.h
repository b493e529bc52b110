#pragma once
// A small asynchronous HTTP/1.1 server on Boost.Beast. Handlers answer through
// a Respond callback that may be called later, from any thread (the webhook
// answers after its recompile), exactly once.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>  // Boost 1.74's asio uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/beast.hpp>

#include "shared_text_body.h"

namespace tw::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

using Request = bhttp::request<bhttp::string_body>;
/// Responses share their body: a rules document is sent without being copied.
using Response = bhttp::response<SharedTextBody>;
using Respond = std::function<void(Response)>;

struct Exchange {
  Request request;
  std::string listener;  ///< the name of the listener the request came in on
  std::string remote;    ///< peer address
};

using Handler = std::function<void(Exchange&&, Respond)>;
/// Maximum body size for a request with this header; larger bodies get 413.
using BodyLimit = std::function<std::size_t(const bhttp::request_header<>&)>;
/// Looks at a request's header before its body is read (`listener` is the listener's name).
/// An answer (401, 403, 404...) is sent at once, the body is never read and the
/// connection is closed: an unauthenticated client cannot make the server buffer a body.
using Gate = std::function<std::optional<Response>(const bhttp::request_header<>&, const std::string& listener)>;

/// Bytes of request bodies that may be held at once, across listeners. Parsed as JSON a body
/// takes many times its size (a list of short strings about 20 times), so open endpoints that
/// take large bodies must not hold many at once: enough of them exhausted the daemon's memory.
/// A body holds what has arrived of it, so a client that announces a large body and sends it
/// slowly holds little; one that has sent nothing for `patience` gives its place to a request
/// that needs it (its connection is closed), so a stalled body cannot keep others out for free.
class BodyBudget {
 public:
  using Evict = std::function<void()>;
  explicit BodyBudget(std::size_t bytes, std::chrono::steady_clock::duration patience = std::chrono::seconds(1))
      : left_(bytes), patience_(patience) {}
  /// A holder of nothing yet; `evict` closes its connection (called once, from any thread).
  std::uint64_t open(Evict evict);
  /// `ticket` now holds `total` bytes. False when they cannot be had, even after evicting the
  /// bodies still arriving that have sent nothing for `patience`.
  bool grow(std::uint64_t ticket, std::size_t total);
  /// Its body is whole and being answered: never evicted from now on.
  void settle(std::uint64_t ticket);
  /// Gives back what `ticket` holds (nothing for an evicted one).
  void close(std::uint64_t ticket);

 private:
  struct Holder {
    std::chrono::steady_clock::time_point last_progress;
    std::size_t bytes = 0;
    Evict evict;
    bool settled = false;
  };
  std::mutex mu_;
  std::size_t left_;
  const std::chrono::steady_clock::duration patience_;
  std::uint64_t next_ticket_ = 1;
  std::map<std::uint64_t, Holder> holders_;
};

/// Whether a request's body is held against the BodyBudget (when over the unbudgeted size).
using Budgeted = std::function<bool(const bhttp::request_header<>&)>;

/// What a listener applies to every connection and request.
struct ListenerOptions {
  BodyLimit limit;                    ///< required
  Gate gate;                          ///< optional
  std::size_t max_connections = 512;  ///< open connections at once; see Listener for what happens at the cap
  /// Optional: bodies of requests `budgeted` says so of, that may be over `unbudgeted_body`
  /// bytes (as announced, or the path's limit when chunked), hold what has arrived of them from
  /// `budget` until answered; a body that cannot is refused with 503 and Retry-After.
  std::shared_ptr<BodyBudget> budget;
  Budgeted budgeted;
  std::size_t unbudgeted_body = 64 * 1024;
};

/// The connections of a listener that are waiting for a request (its header or its body), oldest
/// first. At the cap, the listener closes the one that has waited longest, so connections that
/// send nothing, or send it slowly, cannot hold every place while new clients wait in the backlog.
class WaitingConnections {
 public:
  using Close = std::function<void(std::uint64_t ticket)>;
  /// Registers a connection that begins to wait now; `close` is called (once, from any thread,
  /// with the ticket) if it is evicted. Returns the ticket to withdraw it with.
  std::uint64_t add(Close close);
  void remove(std::uint64_t ticket);
  /// Evicts the connection that has waited longest, if it has waited at least `min_wait`.
  bool evict_oldest(std::chrono::steady_clock::duration min_wait);

 private:
  struct Entry {
    std::chrono::steady_clock::time_point since;
    Close close;
  };
  std::mutex mu_;
  std::uint64_t next_ticket_ = 1;
  std::map<std::uint64_t, Entry> entries_;  ///< tickets grow with time: the first entry waited longest
};

/// Accepts connections up to `max_connections`. At the cap, a new connection takes the place of
/// the one that has waited longest for its request (or for the rest of a refused body), if that
/// one has waited over 100 ms, so a connection just accepted is not the one closed; when none
/// has, accepting pauses until a connection closes or one has waited that long.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  /// Binds immediately; throws std::runtime_error naming the address on failure.
  Listener(asio::io_context& io, const std::string& host_port, std::string name, Handler handler,
           ListenerOptions options);
  void start();
  void stop();
  unsigned short port() const;
  const std::string& name() const { return name_; }
  /// Connections open now (for tests and metrics).
  std::size_t connections() const { return active_.load(); }

 private:
  void accept();
  void accepted(beast::error_code ec, asio::ip::tcp::socket socket);
  /// Called when a connection closes: resumes accepting if it was paused at the cap.
  void release();
  /// At the cap: makes room by evicting a connection that has waited too long for its request.
  bool evict_one();
  /// While paused at the cap, looks again for a connection to evict.
  void watch_while_paused();
  asio::io_context& io_;
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer retry_;  ///< backs off after an accept error (EMFILE...) instead of spinning
  asio::steady_timer paused_check_;
  std::shared_ptr<WaitingConnections> waiting_ = std::make_shared<WaitingConnections>();
  std::string name_;
  Handler handler_;
  ListenerOptions options_;
  std::atomic<std::size_t> active_{0};
  std::mutex mu_;
  bool paused_ = false;                  ///< at max_connections; guarded by mu_
  std::int64_t last_error_log_ = 0;      ///< steady seconds of the last accept_failed log; guarded by mu_
  std::int64_t last_evict_log_ = 0;      ///< the same for connections_evicted; guarded by mu_
  std::uint64_t evicted_since_log_ = 0;  ///< guarded by mu_
};

/// Parses "host:port" ("[::1]:8080", "0.0.0.0:8181"); throws std::invalid_argument.
asio::ip::tcp::endpoint parse_endpoint(const std::string& host_port);

Response make_response(unsigned status, std::string body, const std::string& content_type = "application/json");
/// The same, sending text that stays shared with whoever else holds it (no copy).
Response make_response(unsigned status, std::shared_ptr<const std::string> body,
                       const std::string& content_type = "application/json");

}  // namespace tw::http
