// The workers a capture is sent to: "host:port" addresses, comma-separated on the command
// line, with or without TensorFlow's "grpc://" prefix.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mlprof::rpc {

// Splits and checks a list; false with a one-line reason naming the bad entry.
bool parse_service_addresses(std::string_view list, std::vector<std::string>* addresses, std::string* error);

// One address without "grpc://" and surrounding spaces; false when it has no host or port.
bool normalize_service_address(std::string_view text, std::string* address, std::string* error);

}  // namespace mlprof::rpc
