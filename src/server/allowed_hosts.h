// Which names the server answers to, in the Host header and a browser's Origin. A page on
// another domain can point that domain at 127.0.0.1 (DNS rebinding) and have the browser send
// it requests; the Host header then names the page's domain, so a server that answers only to
// names it knows keeps such a page from reading profiles or driving captures. Names compare
// whole (case-insensitive, without the port), never by prefix: `127.evil.example` is a domain,
// not a loopback address.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mlprof::server {

// 127.0.0.0/8 or ::1 (numeric, as the address to listen on), or localhost.
bool is_loopback_address(std::string_view address);

class AllowedHosts {
 public:
  // Always localhost, 127.0.0.1 and ::1; the address listened on; when that is a wildcard
  // (0.0.0.0, ::), every address of this machine's interfaces and its host name; and `extra`,
  // the names the operator lists (`mlprof serve --allow-host`).
  AllowedHosts(const std::string& bind_address, const std::vector<std::string>& extra);

  // A Host header's value ("localhost:6006", "[::1]:6006", "127.0.0.1").
  bool allows_host_header(std::string_view host_header) const;
  // An Origin header's value ("http://localhost:6006"); an empty one (no browser page) passes.
  bool allows_origin(std::string_view origin) const;

  const std::vector<std::string>& names() const { return names_; }

 private:
  bool allows_name(std::string_view name) const;
  std::vector<std::string> names_;  // lower case, IPv6 without brackets
};

}  // namespace mlprof::server
