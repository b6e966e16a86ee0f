#include <bgtask/cli/mcp/json_rpc.hpp>
#include <bgtask/util/json_text.hpp>

#include <boost/json/parse.hpp>

#include <istream>
#include <ostream>
#include <string>

namespace bgtask::mcp {

namespace json = boost::json;

namespace {

enum class LineRead { line, too_long, end };

// The next line of `in` without its newline, kept only up to
// k_max_message_bytes: the rest of a longer line is read and dropped.
LineRead read_bounded_line(std::istream& in, std::string& line)
{
  line.clear();
  bool too_long = false;
  std::streambuf& buffer = *in.rdbuf();
  for (;;) {
    const auto c = buffer.sbumpc();
    if (std::char_traits<char>::eq_int_type(c, std::char_traits<char>::eof())) {
      return too_long ? LineRead::too_long : line.empty() ? LineRead::end : LineRead::line;
    }
    if (c == '\n') {
      return too_long ? LineRead::too_long : LineRead::line;
    }
    if (line.size() < k_max_message_bytes) {
      line.push_back(std::char_traits<char>::to_char_type(c));
    } else {
      too_long = true;
    }
  }
}

} // namespace

std::optional<RpcMessage> RpcStream::next()
{
  std::string line;
  for (LineRead read; (read = read_bounded_line(m_in, line)) != LineRead::end;) {
    if (read == LineRead::too_long) {
      send_error(nullptr, RpcError::invalid_request,
                 "invalid request: a message longer than " +
                   std::to_string(k_max_message_bytes >> 20) + " MiB");
      continue;
    }
    if (line.find_first_not_of(" \t\r") == std::string::npos) {
      continue;
    }
    json::error_code ec;
    const json::value parsed = json::parse(line, ec);
    if (ec) {
      send_error(nullptr, RpcError::parse_error, "parse error: " + ec.message());
      continue;
    }
    if (auto message = classify(parsed)) {
      return message;
    }
  }
  return std::nullopt;
}

std::optional<RpcMessage> RpcStream::classify(const json::value& parsed)
{
  const json::object* o = parsed.if_object();
  const json::value* id = o ? o->if_contains("id") : nullptr;
  const bool id_ok = id == nullptr || id->is_string() || id->is_int64() || id->is_uint64();
  const json::value reply_id = id && id_ok ? *id : json::value(nullptr);
  if (!o || !id_ok || o->if_contains("jsonrpc") == nullptr || !o->at("jsonrpc").is_string() ||
      o->at("jsonrpc").as_string() != "2.0") {
    send_error(reply_id, RpcError::invalid_request, "invalid request: not a JSON-RPC 2.0 message");
    return std::nullopt;
  }
  RpcMessage message;
  if (id != nullptr) {
    message.id = *id;
  }
  const json::value* method = o->if_contains("method");
  if (method == nullptr && id != nullptr && (o->contains("result") || o->contains("error"))) {
    message.is_response = true;
    return message;
  }
  if (method == nullptr || !method->is_string()) {
    send_error(reply_id, RpcError::invalid_request, "invalid request: no method");
    return std::nullopt;
  }
  message.method = std::string(method->as_string());
  if (const json::value* params = o->if_contains("params")) {
    if (!params->is_object() && !params->is_array()) {
      send_error(reply_id, RpcError::invalid_request, "invalid request: params is not structured");
      return std::nullopt;
    }
    message.params = *params;
  }
  return message;
}

void RpcStream::send_result(const json::value& id, json::value result)
{
  send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void RpcStream::send_error(const json::value& id, RpcError code, const std::string& message)
{
  send({{"jsonrpc", "2.0"},
        {"id", id},
        {"error", {{"code", static_cast<int>(code)}, {"message", message}}}});
}

void RpcStream::send_notification(std::string_view method, json::object params)
{
  send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void RpcStream::send(const json::object& message)
{
  const std::string line = json_text(message) + "\n";
  const std::lock_guard<std::mutex> lock(m_send);
  m_out << line;
  m_out.flush();
}

} // namespace bgtask::mcp
