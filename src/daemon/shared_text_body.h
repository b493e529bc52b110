#pragma once
// A Beast body that sends a string it shares instead of owning a copy. A Trino rules
// document is 44 MB at M and 1 GB at L, and every coordinator polls it: with
// string_body each 200 copied the whole published artifact into the response, so N
// polls in flight held N extra copies. Here a response holds one more reference to the
// immutable published bytes, which stay alive until the last byte is written.
// Beast 1.74 has no such body (span_body does not keep its storage alive), hence this one.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/optional.hpp>

namespace tw::http {

struct SharedTextBody {
  /// nullptr is an empty body.
  using value_type = std::shared_ptr<const std::string>;

  static std::uint64_t size(const value_type& body) { return body ? body->size() : 0; }

  class writer {
   public:
    using const_buffers_type = boost::asio::const_buffer;

    template <bool isRequest, class Fields>
    writer(const boost::beast::http::header<isRequest, Fields>&, const value_type& body) : body_(body) {}

    void init(boost::beast::error_code& ec) { ec = {}; }

    /// The whole text as one buffer; the serializer writes it out in as many steps as the socket needs.
    boost::optional<std::pair<const_buffers_type, bool>> get(boost::beast::error_code& ec) {
      ec = {};
      if (done_ || !body_ || body_->empty()) return boost::none;
      done_ = true;
      return std::make_pair(const_buffers_type(body_->data(), body_->size()), false);
    }

   private:
    const value_type& body_;  // the message's own member: it outlives the serializer
    bool done_ = false;
  };
};

}  // namespace tw::http
