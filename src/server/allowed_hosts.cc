#include "server/allowed_hosts.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace mlprof::server {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string without_brackets(std::string_view s) {
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  return std::string(s);
}

// A port as a Host header writes it: digits, at most five.
bool is_port(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  for (char c : port)
    if (c < '0' || c > '9') return false;
  return true;
}

// The host of "name:port", "[v6]:port", "name" or "[v6]"; empty when malformed (a port that is
// not a number, characters no host name has: "127.0.0.1:80@evil.example" names no host).
std::string host_of(std::string_view authority) {
  std::string_view host = authority, port;
  bool bracketed = false;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == authority.npos) return {};
    host = authority.substr(1, close - 1);
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && (rest.front() != ':' || !is_port(rest.substr(1)))) return {};
    bracketed = true;
  } else if (const size_t colon = authority.find(':'); colon != authority.npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (!is_port(port)) return {};
  }
  for (char c : host) {
    const bool name_char = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    if (!name_char && !(bracketed && (c == ':' || c == '%'))) return {};
  }
  return std::string(host);
}

bool is_wildcard(const std::string& address) { return address == "0.0.0.0" || address == "::" || address.empty(); }

// Every address of this machine's interfaces, and its host name.
std::vector<std::string> this_machine_names() {
  std::vector<std::string> names;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0]) names.push_back(host);
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return names;
  for (const ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || (a->ifa_addr->sa_family != AF_INET && a->ifa_addr->sa_family != AF_INET6)) continue;
    char text[NI_MAXHOST];
    const socklen_t len = a->ifa_addr->sa_family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    if (::getnameinfo(a->ifa_addr, len, text, sizeof text, nullptr, 0, NI_NUMERICHOST) != 0) continue;
    std::string name = text;
    if (const size_t zone = name.find('%'); zone != std::string::npos) name.resize(zone);  // fe80::1%eth0
    names.push_back(name);
  }
  ::freeifaddrs(list);
  return names;
}

}  // namespace

bool is_loopback_address(std::string_view address) {
  const std::string text = without_brackets(address);
  if (lower(text) == "localhost") return true;
  in_addr v4{};
  if (::inet_pton(AF_INET, text.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return ::inet_pton(AF_INET6, text.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

AllowedHosts::AllowedHosts(const std::string& bind_address, const std::vector<std::string>& extra) {
  names_ = {"localhost", "127.0.0.1", "::1"};
  if (!is_wildcard(bind_address)) names_.push_back(lower(without_brackets(bind_address)));
  else
    for (const std::string& n : this_machine_names()) names_.push_back(lower(n));
  for (const std::string& n : extra) names_.push_back(lower(without_brackets(n)));
  std::sort(names_.begin(), names_.end());
  names_.erase(std::unique(names_.begin(), names_.end()), names_.end());
}

bool AllowedHosts::allows_name(std::string_view name) const {
  if (name.empty()) return false;
  std::string wanted = lower(name);
  if (wanted.back() == '.') wanted.pop_back();  // "localhost." names the same host
  return std::binary_search(names_.begin(), names_.end(), wanted);
}

bool AllowedHosts::allows_host_header(std::string_view host_header) const { return allows_name(host_of(host_header)); }

bool AllowedHosts::allows_origin(std::string_view origin) const {
  if (origin.empty()) return true;
  for (std::string_view scheme : {"http://", "https://"}) {
    if (origin.substr(0, scheme.size()) != scheme) continue;
    std::string_view authority = origin.substr(scheme.size());
    if (const size_t slash = authority.find('/'); slash != authority.npos) authority = authority.substr(0, slash);
    return allows_name(host_of(authority));
  }
  return false;  // "null" (a sandboxed or file page) or another scheme
}

}  // namespace mlprof::server
