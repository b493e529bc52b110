#pragma once
// A small asynchronous HTTP/1.1 server on Boost.Beast. Handlers answer through
// a Respond callback that may be called later, from any thread (the webhook
// answers after its recompile), exactly once.

#include <functional>
#include <memory>
#include <string>
#include <utility>  // Boost 1.74's asio uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/beast.hpp>

namespace tw::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

using Request = bhttp::request<bhttp::string_body>;
using Response = bhttp::response<bhttp::string_body>;
using Respond = std::function<void(Response)>;

struct Exchange {
  Request request;
  std::string listener;  ///< the name of the listener the request came in on
  std::string remote;    ///< peer address
};

using Handler = std::function<void(Exchange&&, Respond)>;
/// Maximum body size for a request with this header; larger bodies get 413.
using BodyLimit = std::function<std::size_t(const bhttp::request_header<>&)>;

class Listener : public std::enable_shared_from_this<Listener> {
 public:
  /// Binds immediately; throws std::runtime_error naming the address on failure.
  Listener(asio::io_context& io, const std::string& host_port, std::string name, Handler handler, BodyLimit limit);
  void start();
  void stop();
  unsigned short port() const;
  const std::string& name() const { return name_; }

 private:
  void accept();
  asio::io_context& io_;
  asio::ip::tcp::acceptor acceptor_;
  std::string name_;
  Handler handler_;
  BodyLimit limit_;
};

/// Parses "host:port" ("[::1]:8080", "0.0.0.0:8181"); throws std::invalid_argument.
asio::ip::tcp::endpoint parse_endpoint(const std::string& host_port);

Response make_response(unsigned status, std::string body, const std::string& content_type = "application/json");

}  // namespace tw::http
