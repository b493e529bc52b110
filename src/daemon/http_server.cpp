#include "http_server.h"

#include <optional>

namespace tw::http {
namespace {

constexpr auto kReadTimeout = std::chrono::seconds(30);
constexpr auto kWriteTimeout = std::chrono::seconds(60);
constexpr std::uint64_t kMaxAnyBody = std::uint64_t(1) << 30;

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(asio::ip::tcp::socket socket, std::string listener, const Handler& handler, const BodyLimit& limit)
      : stream_(std::move(socket)), listener_(std::move(listener)), handler_(handler), limit_(limit) {
    beast::error_code ec;
    auto ep = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = ep.address().to_string();
  }

  void start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_header(); });
  }

 private:
  void read_header() {
    parser_.emplace();
    parser_->header_limit(16 * 1024);
    // Beast checks Content-Length against body_limit while parsing the header;
    // the per-path limit is applied in on_header, so allow the largest here.
    parser_->body_limit(kMaxAnyBody);
    stream_.expires_after(kReadTimeout);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  void on_header(beast::error_code ec) {
    if (ec) return close();
    const std::size_t limit = limit_(parser_->get().base());
    if (auto length = parser_->content_length(); length && *length > limit) {
      keep_alive_ = false;
      drain_ = true;  // let the client finish sending, so it can read the 413
      return write(make_response(413, R"({"error":"request body too large"})"));
    }
    parser_->body_limit(limit);
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](beast::error_code ec2, std::size_t) { self->on_body(ec2); });
  }

  void on_body(beast::error_code ec) {
    if (ec == bhttp::error::body_limit) {
      keep_alive_ = false;
      drain_ = true;
      return write(make_response(413, R"({"error":"request body too large"})"));
    }
    if (ec) return close();
    Request req = parser_->release();
    keep_alive_ = req.keep_alive();
    const unsigned version = req.version();
    auto self = shared_from_this();
    auto respond = [self, version](Response res) {
      res.version(version);
      asio::post(self->stream_.get_executor(), [self, res = std::move(res)]() mutable { self->write(std::move(res)); });
    };
    try {
      handler_(Exchange{std::move(req), listener_, remote_}, respond);
    } catch (const std::exception& e) {
      respond(make_response(500, R"({"error":"internal error"})"));
    }
  }

  void write(Response res) {
    res.keep_alive(keep_alive_);
    res.set(bhttp::field::server, "tagwarden");
    res.prepare_payload();
    response_ = std::make_shared<Response>(std::move(res));
    stream_.expires_after(kWriteTimeout);
    bhttp::async_write(stream_, *response_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (!ec && self->drain_) return self->drain();
      if (ec || !self->keep_alive_) return self->close();
      self->read_header();
    });
  }

  // Reads and discards what the client still sends (bounded in bytes and time), then closes.
  void drain() {
    beast::error_code ignored;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::chrono::seconds(5));
    drain_buffer_.resize(64 * 1024);
    stream_.async_read_some(asio::buffer(drain_buffer_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > (std::size_t(256) << 20)) return self->close();
                              self->drain();
                            });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::shared_ptr<Response> response_;
  std::string listener_;
  std::string remote_;
  Handler handler_;
  BodyLimit limit_;
  bool keep_alive_ = true;
  bool drain_ = false;
  std::vector<char> drain_buffer_;
  std::size_t drained_ = 0;
};

}  // namespace

asio::ip::tcp::endpoint parse_endpoint(const std::string& host_port) {
  const auto colon = host_port.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("listen address \"" + host_port + "\" needs host:port");
  std::string host = host_port.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  int port = 0;
  try {
    port = std::stoi(host_port.substr(colon + 1));
  } catch (...) {
    throw std::invalid_argument("listen address \"" + host_port + "\" has no numeric port");
  }
  if (port < 0 || port > 65535) throw std::invalid_argument("listen port out of range in \"" + host_port + "\"");
  beast::error_code ec;
  auto address = asio::ip::make_address(host.empty() ? "0.0.0.0" : host, ec);
  if (ec) throw std::invalid_argument("listen address \"" + host_port + "\": " + ec.message());
  return {address, static_cast<unsigned short>(port)};
}

Listener::Listener(asio::io_context& io, const std::string& host_port, std::string name, Handler handler,
                   BodyLimit limit)
    : io_(io), acceptor_(io), name_(std::move(name)), handler_(std::move(handler)), limit_(std::move(limit)) {
  const auto endpoint = parse_endpoint(host_port);
  beast::error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("cannot listen on " + host_port + ": " + ec.message());
}

void Listener::start() { accept(); }

void Listener::stop() {
  beast::error_code ec;
  acceptor_.close(ec);
}

unsigned short Listener::port() const { return acceptor_.local_endpoint().port(); }

void Listener::accept() {
  acceptor_.async_accept(
      asio::make_strand(io_), [self = shared_from_this()](beast::error_code ec, asio::ip::tcp::socket socket) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec) std::make_shared<Session>(std::move(socket), self->name_, self->handler_, self->limit_)->start();
        if (self->acceptor_.is_open()) self->accept();
      });
}

Response make_response(unsigned status, std::string body, const std::string& content_type) {
  Response res{static_cast<bhttp::status>(status), 11};
  res.set(bhttp::field::content_type, content_type);
  res.set(bhttp::field::cache_control, "no-store");
  res.body() = std::move(body);
  return res;
}

}  // namespace tw::http
