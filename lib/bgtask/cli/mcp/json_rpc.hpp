#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace bgtask::mcp {

// JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification).
enum class RpcError : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
  resource_not_found = -32002, // MCP: resources/read or subscribe of an unknown URI
};

// A request the server must answer with a result, thrown by a method
// handler to answer with an error instead.
struct RpcFailure
{
  RpcError code;
  std::string message;
};

// One message read from the stream: a request (`id` set), a notification
// (no `id`), or a response of the client's (ignored).
struct RpcMessage
{
  std::optional<boost::json::value> id;
  std::string method;
  boost::json::value params; // null if absent
  bool is_response = false;
};

// The longest message line the server reads; a longer one is answered with
// an invalid-request error and skipped.
inline constexpr std::size_t k_max_message_bytes = 4 * 1024 * 1024;

// Reads newline-delimited JSON-RPC from `in` and writes to `out`, one
// message per line, flushed at once. Reading is for one thread; the sends
// may come from any thread: each message is written whole, under a lock.
class RpcStream
{
public:
  RpcStream(std::istream& in, std::ostream& out)
    : m_in(in),
      m_out(out)
  {
  }

  // The next well-formed message; answers malformed lines itself (parse
  // error, invalid request) and goes on. nullopt at the end of the input.
  std::optional<RpcMessage> next();

  void send_result(const boost::json::value& id, boost::json::value result);
  void send_error(const boost::json::value& id, RpcError code, const std::string& message);
  void send_notification(std::string_view method, boost::json::object params);

private:
  void send(const boost::json::object& message);
  std::optional<RpcMessage> classify(const boost::json::value& parsed);

  std::istream& m_in;
  std::ostream& m_out;
  std::mutex m_send;
};

} // namespace bgtask::mcp
