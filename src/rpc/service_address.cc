#include "rpc/service_address.h"

#include <algorithm>
#include <cctype>

namespace mlprof::rpc {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_port(std::string_view s) {
  return !s.empty() && s.size() <= 5 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
         std::stoi(std::string(s)) <= 65535;
}

}  // namespace

bool normalize_service_address(std::string_view text, std::string* address, std::string* error) {
  std::string_view s = trim(text);
  if (s.starts_with("grpc://")) s.remove_prefix(7);
  while (s.ends_with("/")) s.remove_suffix(1);
  const size_t colon = s.rfind(':');
  const std::string_view host = colon == std::string_view::npos ? s : s.substr(0, colon);
  if (colon == std::string_view::npos || host.empty() || host == "[]" || !is_port(s.substr(colon + 1))) {
    *error = "\"" + std::string(trim(text)) + "\" is not a worker address: expected HOST:PORT, e.g. localhost:6009";
    return false;
  }
  *address = std::string(s);
  return true;
}

bool parse_service_addresses(std::string_view list, std::vector<std::string>* addresses, std::string* error) {
  addresses->clear();
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t comma = std::min(list.find(',', begin), list.size());
    const std::string_view item = list.substr(begin, comma - begin);
    begin = comma + 1;
    if (trim(item).empty()) continue;  // "a,b," and "a, b" are fine
    std::string address;
    if (!normalize_service_address(item, &address, error)) return false;
    if (std::find(addresses->begin(), addresses->end(), address) != addresses->end()) {
      *error = "worker " + address + " is listed twice";
      return false;
    }
    addresses->push_back(std::move(address));
  }
  if (addresses->empty()) {
    *error = "no worker address given: expected HOST:PORT[,HOST:PORT...]";
    return false;
  }
  return true;
}

}  // namespace mlprof::rpc
