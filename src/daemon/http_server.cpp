#include "http_server.h"

#include <chrono>
#include <optional>
#include <vector>

#include "log.h"

namespace tw::http {
namespace {

constexpr auto kAcceptRetry = std::chrono::milliseconds(100);
constexpr auto kReadTimeout = std::chrono::seconds(30);
constexpr auto kWriteTimeout = std::chrono::seconds(60);
constexpr std::uint64_t kMaxAnyBody = std::uint64_t(1) << 30;
// A client sends its request as soon as its connection is up, so the request is usually read
// as soon as it is accepted: at the cap, a connection that has waited this long for one may be
// evicted to make room, one that has just been accepted is not. Under a flood, new connections
// are admitted at max_connections per this interval.
constexpr auto kEvictAfter = std::chrono::milliseconds(100);
constexpr auto kPausedCheck = std::chrono::milliseconds(50);

std::int64_t steady_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(asio::ip::tcp::socket socket, std::string listener, const Handler& handler, const ListenerOptions& options,
          std::shared_ptr<WaitingConnections> waiting, std::shared_ptr<void> slot)
      : stream_(std::move(socket)),
        listener_(std::move(listener)),
        handler_(handler),
        options_(options),
        waiting_(std::move(waiting)),
        slot_(std::move(slot)) {
    beast::error_code ec;
    auto ep = stream_.socket().remote_endpoint(ec);
    if (!ec) remote_ = ep.address().to_string();
  }

  ~Session() {
    end_waiting();
    give_back_body();
  }

  void start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read_header(); });
  }

 private:
  // While the client owes us bytes (a request, or the rest of a refused body), the listener may
  // close this connection to make room for a new one.
  void begin_waiting() {
    if (waiting_ticket_ != 0) return;
    waiting_ticket_ = waiting_->add([weak = weak_from_this()](std::uint64_t ticket) {
      if (auto self = weak.lock()) {
        asio::post(self->stream_.get_executor(), [self, ticket] { self->evicted(ticket); });
      }
    });
  }

  void end_waiting() {
    if (waiting_ticket_ == 0) return;
    waiting_->remove(std::exchange(waiting_ticket_, 0));
  }

  void evicted(std::uint64_t ticket) {
    if (ticket != waiting_ticket_) return;  // it got its request meanwhile (and may wait for another)
    waiting_ticket_ = 0;
    stream_.close();  // the pending read ends with operation_aborted, and the session with it
  }

  void read_header() {
    begin_waiting();
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
    if (ec) return refuse_unreadable(ec);
    const auto& header = parser_->get().base();
    head_ = header.method() == bhttp::verb::head;
    version_ = header.version();
    // Authorization (and anything else decided by the header alone) before a byte of the
    // body is read: a refused client never makes the server buffer its body.
    if (options_.gate) {
      if (std::optional<Response> refused = options_.gate(header, listener_)) {
        end_waiting();
        return refuse_and_close(std::move(*refused));
      }
    }
    const std::size_t limit = options_.limit(header);
    if (auto length = parser_->content_length(); length && *length > limit) {
      end_waiting();
      keep_alive_ = false;
      drain_ = true;  // let the client finish sending, so it can read the 413
      return write(make_response(413, R"({"error":"request body too large"})"));
    }
    parser_->body_limit(limit);
    // The most the body may be: what it announces, the path's limit when chunked, none otherwise
    // (a GET of the decisions manifest has none, and a read for one would wait forever).
    const std::uint64_t most = parser_->content_length() ? *parser_->content_length() : parser_->chunked() ? limit : 0;
    if (options_.budget && options_.budgeted && !parser_->is_done() && most > options_.unbudgeted_body &&
        options_.budgeted(header)) {
      budget_ticket_ = options_.budget->open([weak = weak_from_this()] {
        if (auto self = weak.lock()) asio::post(self->stream_.get_executor(), [self] { self->stream_.close(); });
      });
      return read_budgeted_body();
    }
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](beast::error_code ec2, std::size_t) { self->on_body(ec2); });
  }

  // A request whose header cannot be read gets an answer where one is owed (a client waiting
  // for it would otherwise see only a reset), then the connection is cut: 431 for a header over
  // the limit, 413 for a body announced over any endpoint's, 400 for what is not HTTP/1.1. A
  // timeout or a closed connection has nobody to answer.
  void refuse_unreadable(beast::error_code ec) {
    end_waiting();
    int status = 0;
    std::string body;
    if (ec == bhttp::error::header_limit) {
      status = 431, body = R"x({"error":"request header too large (16 KiB at most, the request line included)"})x";
    } else if (ec == bhttp::error::body_limit) {
      status = 413, body = R"({"error":"request body too large"})";
    } else if (ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
               ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message &&
               ec != bhttp::error::need_more) {
      status = 400, body = R"({"error":"malformed HTTP request"})";
    }
    if (status == 0) return close();
    head_ = false;
    version_ = 11;
    refuse_and_close(make_response(status, body));
  }

  // Answers, then reads what the client still sends for a moment (only so it can read the
  // answer) and cuts the connection: the rest of its request is never read.
  void refuse_and_close(Response res) {
    keep_alive_ = false;
    drain_ = true;
    drain_limit_ = kRefusedDrainBytes;
    drain_deadline_ = std::chrono::seconds(2);
    res.version(version_);
    write(std::move(res));
  }

  void give_back_body() {
    if (budget_ticket_ != 0) options_.budget->close(std::exchange(budget_ticket_, 0));
  }

  // A piece at a time, each held from the budget as it arrives.
  void read_budgeted_body() {
    bhttp::async_read_some(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec) return self->on_body(ec);
      if (!self->options_.budget->grow(self->budget_ticket_, self->parser_->get().body().size())) {
        self->end_waiting();
        self->give_back_body();
        log_budget_refusal();
        Response res = make_response(503, R"({"error":"too many large request bodies at once; retry in a second"})");
        res.set(bhttp::field::retry_after, "1");
        return self->refuse_and_close(std::move(res));
      }
      if (!self->parser_->is_done()) return self->read_budgeted_body();
      self->options_.budget->settle(self->budget_ticket_);
      self->on_body(ec);
    });
  }

  // At most one line every 10 s: a flood of large bodies would otherwise flood the log.
  static void log_budget_refusal() {
    static std::atomic<std::int64_t> last{0};
    static std::atomic<std::uint64_t> refused{0};
    ++refused;
    const std::int64_t now = steady_seconds();
    std::int64_t before = last.load();
    if (now - before < 10 || !last.compare_exchange_strong(before, now)) return;
    log::warn("large_bodies_refused",
              {{"refused_total", refused.load()},
               {"hint",
                "requests with large bodies came faster than they were answered; each was refused with "
                "503 (Trino refuses that query). If this is not a flood, Trino's batches are larger than "
                "expected: narrow the listing, or ask the maintainers to raise the budget"}});
  }

  void on_body(beast::error_code ec) {
    end_waiting();
    struct GiveBackAtEnd {
      Session& s;
      ~GiveBackAtEnd() { s.give_back_body(); }
    } give_back_at_end{*this};
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
    if (res.result() == bhttp::status::not_modified) {
      // No body, and no Content-Length unless it were the 200's (RFC 9110 §8.6): none at all.
      res.body() = nullptr;
      res.erase(bhttp::field::content_length);
      res.erase(bhttp::field::content_type);
    } else {
      res.prepare_payload();
    }
    stream_.expires_after(kWriteTimeout);
    if (head_) {
      // HEAD: the header the GET would have (Content-Length of its body, ETag...) and no body,
      // or the next response on a kept-alive connection would be read as this one's body.
      return send(std::make_shared<bhttp::response<bhttp::empty_body>>(std::move(res.base())));
    }
    send(std::make_shared<Response>(std::move(res)));
  }

  template <class Message>
  void send(std::shared_ptr<Message> message) {
    bhttp::async_write(stream_, *message, [self = shared_from_this(), message](beast::error_code ec, std::size_t) {
      if (!ec && self->drain_) return self->drain();
      if (ec || !self->keep_alive_) return self->close();
      self->read_header();
    });
  }

  // Reads and discards what the client still sends (bounded in bytes and time), then closes.
  void drain() {
    beast::error_code ignored;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    begin_waiting();
    if (drain_deadline_) {
      stream_.expires_after(*drain_deadline_);  // one deadline for the whole drain
      drain_deadline_.reset();
    } else if (drain_limit_ == kDrainBytes) {
      stream_.expires_after(std::chrono::seconds(5));  // an idle timeout per read
    }
    drain_buffer_.resize(64 * 1024);
    stream_.async_read_some(asio::buffer(drain_buffer_),
                            [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                              self->drained_ += n;
                              if (ec || self->drained_ > self->drain_limit_) return self->close();
                              self->drain();
                            });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  }

  static constexpr std::size_t kDrainBytes = std::size_t(256) << 20;
  static constexpr std::size_t kRefusedDrainBytes = std::size_t(1) << 20;

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::string listener_;
  std::string remote_;
  Handler handler_;
  ListenerOptions options_;
  std::shared_ptr<WaitingConnections> waiting_;
  std::uint64_t waiting_ticket_ = 0;  ///< 0 while not waiting; tickets are never reused
  std::shared_ptr<void> slot_;        ///< frees this connection's place under max_connections when the session ends
  bool keep_alive_ = true;
  bool head_ = false;
  unsigned version_ = 11;
  bool drain_ = false;
  std::size_t drain_limit_ = kDrainBytes;
  std::optional<std::chrono::seconds> drain_deadline_;
  std::vector<char> drain_buffer_;
  std::size_t drained_ = 0;
  std::uint64_t budget_ticket_ = 0;  ///< what this body holds of options_.budget, until answered; 0: none
};

}  // namespace

std::uint64_t WaitingConnections::add(Close close) {
  std::lock_guard lock(mu_);
  const std::uint64_t ticket = next_ticket_++;
  entries_.emplace(ticket, Entry{std::chrono::steady_clock::now(), std::move(close)});
  return ticket;
}

void WaitingConnections::remove(std::uint64_t ticket) {
  std::lock_guard lock(mu_);
  entries_.erase(ticket);
}

bool WaitingConnections::evict_oldest(std::chrono::steady_clock::duration min_wait) {
  Close close;
  std::uint64_t ticket = 0;
  {
    std::lock_guard lock(mu_);
    if (entries_.empty()) return false;
    auto oldest = entries_.begin();
    if (std::chrono::steady_clock::now() - oldest->second.since < min_wait) return false;
    ticket = oldest->first;
    close = std::move(oldest->second.close);
    entries_.erase(oldest);
  }
  close(ticket);
  return true;
}

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

std::uint64_t BodyBudget::open(Evict evict) {
  std::lock_guard lock(mu_);
  const std::uint64_t ticket = next_ticket_++;
  holders_.emplace(ticket, Holder{std::chrono::steady_clock::now(), 0, std::move(evict), false});
  return ticket;
}

bool BodyBudget::grow(std::uint64_t ticket, std::size_t total) {
  std::vector<Evict> evicted;
  {
    std::lock_guard lock(mu_);
    const auto me = holders_.find(ticket);
    if (me == holders_.end()) return false;  // evicted meanwhile
    const auto now = std::chrono::steady_clock::now();
    if (total > me->second.bytes) {
      const std::size_t more = total - me->second.bytes;
      if (more > left_) {
        // The stalled bodies, longest stalled first, until there is room; none if that is not enough.
        std::vector<std::map<std::uint64_t, Holder>::iterator> stalled;
        for (auto it = holders_.begin(); it != holders_.end(); ++it) {
          if (it != me && !it->second.settled && now - it->second.last_progress >= patience_) stalled.push_back(it);
        }
        std::sort(stalled.begin(), stalled.end(),
                  [](const auto& a, const auto& b) { return a->second.last_progress < b->second.last_progress; });
        std::size_t freed = 0, used = 0;
        while (used < stalled.size() && left_ + freed < more) freed += stalled[used++]->second.bytes;
        if (left_ + freed < more) return false;
        for (std::size_t k = 0; k < used; ++k) {
          left_ += stalled[k]->second.bytes;
          evicted.push_back(std::move(stalled[k]->second.evict));
          holders_.erase(stalled[k]);
        }
      }
      left_ -= more;
      me->second.bytes = total;
      me->second.last_progress = now;
    }
  }
  for (auto& evict : evicted) evict();
  return true;
}

void BodyBudget::settle(std::uint64_t ticket) {
  std::lock_guard lock(mu_);
  if (const auto it = holders_.find(ticket); it != holders_.end()) it->second.settled = true;
}

void BodyBudget::close(std::uint64_t ticket) {
  std::lock_guard lock(mu_);
  const auto it = holders_.find(ticket);
  if (it == holders_.end()) return;
  left_ += it->second.bytes;
  holders_.erase(it);
}

Listener::Listener(asio::io_context& io, const std::string& host_port, std::string name, Handler handler,
                   ListenerOptions options)
    : io_(io),
      acceptor_(io),
      retry_(io),
      paused_check_(io),
      name_(std::move(name)),
      handler_(std::move(handler)),
      options_(std::move(options)) {
  if (options_.max_connections == 0) options_.max_connections = 1;
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
  std::lock_guard lock(mu_);
  paused_check_.cancel();
}

unsigned short Listener::port() const { return acceptor_.local_endpoint().port(); }

void Listener::accept() {
  acceptor_.async_accept(asio::make_strand(io_),
                         [self = shared_from_this()](beast::error_code ec, asio::ip::tcp::socket socket) {
                           self->accepted(ec, std::move(socket));
                         });
}

void Listener::accepted(beast::error_code ec, asio::ip::tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
  if (ec) {
    // EMFILE, ENFILE, ENOBUFS, ENOMEM...: accepting again at once fails again at once and
    // takes a core. Wait, so that connections that close give their descriptors back.
    const auto now = steady_seconds();
    bool log_it = false;
    {
      std::lock_guard lock(mu_);
      if (now - last_error_log_ >= 10) {
        last_error_log_ = now;
        log_it = true;
      }
    }
    if (log_it) {
      log::warn("accept_failed",
                {{"listener", name_},
                 {"error", ec.message()},
                 {"connections", active_.load()},
                 {"retry_ms", kAcceptRetry.count()},
                 {"hint",
                  "out of file descriptors or memory: raise the open-files limit (LimitNOFILE) or lower "
                  "server.max_connections"}});
    }
    retry_.expires_after(kAcceptRetry);
    retry_.async_wait([self = shared_from_this()](beast::error_code timer_ec) {
      if (!timer_ec && self->acceptor_.is_open()) self->accept();
    });
    return;
  }
  struct Slot {  // built in place, never copied: its destructor frees the connection's place
    explicit Slot(std::shared_ptr<Listener> l) : listener(std::move(l)) {}
    Slot(const Slot&) = delete;
    Slot& operator=(const Slot&) = delete;
    ~Slot() { listener->release(); }
    std::shared_ptr<Listener> listener;
  };
  // Decisions are small request/response pairs on kept-alive connections: without this, a
  // response written in two segments waits for the peer's delayed ACK (about 40 ms).
  beast::error_code nodelay_ec;
  socket.set_option(asio::ip::tcp::no_delay(true), nodelay_ec);
  {
    std::lock_guard lock(mu_);
    ++active_;
  }
  std::make_shared<Session>(std::move(socket), name_, handler_, options_, waiting_,
                            std::make_shared<Slot>(shared_from_this()))
      ->start();
  if (active_.load() >= options_.max_connections && !evict_one()) {
    bool paused = false;
    {
      std::lock_guard lock(mu_);
      if (active_.load() >= options_.max_connections) {
        // Stop accepting: new connections wait in the kernel's backlog until one of ours closes,
        // or has waited long enough for its request to be evicted.
        paused_ = paused = true;
      }
    }
    if (paused) return watch_while_paused();
  }
  accept();
}

bool Listener::evict_one() {
  if (!waiting_->evict_oldest(kEvictAfter)) return false;
  const auto now = steady_seconds();
  std::uint64_t evicted = 0;
  {
    std::lock_guard lock(mu_);
    ++evicted_since_log_;
    if (now - last_evict_log_ < 10) return true;
    last_evict_log_ = now;
    evicted = std::exchange(evicted_since_log_, 0);
  }
  log::warn("connections_evicted",
            {{"listener", name_},
             {"evicted", evicted},
             {"max_connections", options_.max_connections},
             {"hint",
              "the listener is full: connections that had waited over 100 ms for their request were closed to "
              "make room. If this is not a flood, raise server.max_connections; if it is, keep the listener "
              "reachable only from its clients"}});
  return true;
}

void Listener::watch_while_paused() {
  std::lock_guard lock(mu_);
  paused_check_.expires_after(kPausedCheck);
  paused_check_.async_wait([self = shared_from_this()](beast::error_code ec) {
    if (ec || !self->acceptor_.is_open()) return;
    {
      std::lock_guard relock(self->mu_);
      if (!self->paused_) return;
    }
    // An evicted connection's end resumes accepting (release); keep looking until then.
    self->evict_one();
    self->watch_while_paused();
  });
}

void Listener::release() {
  bool resume = false;
  {
    std::lock_guard lock(mu_);
    --active_;
    if (paused_ && active_.load() < options_.max_connections) {
      paused_ = false;
      resume = true;
    }
  }
  if (resume && acceptor_.is_open()) asio::post(io_, [self = shared_from_this()] { self->accept(); });
}

Response make_response(unsigned status, std::string body, const std::string& content_type) {
  return make_response(status, std::make_shared<const std::string>(std::move(body)), content_type);
}

Response make_response(unsigned status, std::shared_ptr<const std::string> body, const std::string& content_type) {
  Response res{static_cast<bhttp::status>(status), 11};
  res.set(bhttp::field::content_type, content_type);
  res.set(bhttp::field::cache_control, "no-store");
  res.body() = std::move(body);
  return res;
}

}  // namespace tw::http
