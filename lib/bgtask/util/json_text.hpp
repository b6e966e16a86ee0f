#pragma once

#include <boost/json/value.hpp>

#include <string>

namespace bgtask {

// `value` as compact JSON text, as boost::json::serialize writes it except
// that a fractional number is in plain decimal (`0.504`, not `5.04E-1`):
// the shortest form that reads back as the same double.
std::string json_text(const boost::json::value& value);

} // namespace bgtask
