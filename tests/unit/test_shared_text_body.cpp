// Responses share their body with the published artifact instead of copying it, and a
// body larger than any socket buffer still arrives whole, after its exact Content-Length.

#include <catch2/catch.hpp>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "daemon/http_server.h"

namespace {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;

std::shared_ptr<const std::string> document(std::size_t bytes) {
  std::string text;
  text.reserve(bytes);
  for (std::size_t i = 0; text.size() < bytes; ++i) text += "{\"user\":\"u" + std::to_string(i) + "\"},";
  text.resize(bytes);
  return std::make_shared<const std::string>(std::move(text));
}

}  // namespace

TEST_CASE("a response holds the published text itself, not a copy of it") {
  const auto published = document(1 << 20);
  const auto res = tw::http::make_response(200, published);
  CHECK(res.body().get() == published.get());
  CHECK(published.use_count() == 2);

  const auto owned = tw::http::make_response(404, std::string(R"({"error":"no"})"));
  REQUIRE(owned.body());
  CHECK(*owned.body() == R"({"error":"no"})");
}

TEST_CASE("a shared body serialises with its length, and an empty one as nothing") {
  auto res = tw::http::make_response(200, std::make_shared<const std::string>("[1,2]"));
  res.prepare_payload();
  std::ostringstream out;
  out << res;
  const std::string wire = out.str();
  CHECK(wire.find("Content-Length: 5\r\n") != std::string::npos);
  CHECK(wire.substr(wire.size() - 9) == "\r\n\r\n[1,2]");

  tw::http::Response empty{bhttp::status::not_modified, 11};
  empty.prepare_payload();
  std::ostringstream none;
  none << empty;
  CHECK(none.str().substr(none.str().size() - 4) == "\r\n\r\n");
}

TEST_CASE("a body of many socket buffers arrives whole over a real connection") {
  const auto published = document(24 << 20);
  asio::io_context io;
  tw::http::ListenerOptions options;
  options.limit = [](const bhttp::request_header<>&) { return std::size_t{0}; };
  auto listener = std::make_shared<tw::http::Listener>(
      io, "127.0.0.1:0", "test",
      [&](tw::http::Exchange&&, tw::http::Respond respond) { respond(tw::http::make_response(200, published)); },
      options);
  listener->start();
  std::thread server([&] { io.run(); });

  asio::io_context client_io;
  asio::ip::tcp::socket socket(client_io);
  socket.connect({asio::ip::make_address("127.0.0.1"), listener->port()});
  bhttp::request<bhttp::empty_body> req{bhttp::verb::get, "/rules", 11};
  req.set(bhttp::field::host, "127.0.0.1");
  bhttp::write(socket, req);
  boost::beast::flat_buffer buffer;
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(64 << 20);
  bhttp::read(socket, buffer, parser);
  const auto& got = parser.get();

  CHECK(got.result_int() == 200);
  CHECK(got[bhttp::field::content_length] == std::to_string(published->size()));
  CHECK(got.body().size() == published->size());
  CHECK(got.body() == *published);

  boost::system::error_code ignored;
  socket.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
  listener->stop();
  io.stop();
  server.join();
}
