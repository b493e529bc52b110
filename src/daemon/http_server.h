#pragma once
// A small asynchronous HTTP/1.1 server on Boost.Beast. Handlers answer through
// a Respond callback that may be called later, from any thread (the webhook
// answers after its recompile), exactly once.

#include <atomic>
#include <functional>
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

/// What a listener applies to every connection and request.
struct ListenerOptions {
  BodyLimit limit;                    ///< required
  Gate gate;                          ///< optional
  std::size_t max_connections = 512;  ///< open connections at once; at the cap, accepting pauses until one closes
};

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
  asio::io_context& io_;
  asio::ip::tcp::acceptor acceptor_;
  asio::steady_timer retry_;  ///< backs off after an accept error (EMFILE...) instead of spinning
  std::string name_;
  Handler handler_;
  ListenerOptions options_;
  std::atomic<std::size_t> active_{0};
  std::mutex mu_;
  bool paused_ = false;              ///< at max_connections; guarded by mu_
  std::int64_t last_error_log_ = 0;  ///< steady seconds of the last accept_failed log; guarded by mu_
};

/// Parses "host:port" ("[::1]:8080", "0.0.0.0:8181"); throws std::invalid_argument.
asio::ip::tcp::endpoint parse_endpoint(const std::string& host_port);

Response make_response(unsigned status, std::string body, const std::string& content_type = "application/json");
/// The same, sending text that stays shared with whoever else holds it (no copy).
Response make_response(unsigned status, std::shared_ptr<const std::string> body,
                       const std::string& content_type = "application/json");

}  // namespace tw::http
