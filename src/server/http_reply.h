// One way to answer HTTP, for every route: the query's parameters, and a Reply sent with
// `Cache-Control: no-store`, its download name, and gzip when the client takes it (`Vary:
// Accept-Encoding`). Bodies go out through a content provider of known length, so httplib adds
// no compression of its own (it would pick Brotli at its slowest setting: seconds for a few MB)
// and never reads past the body, whatever range it is asked for.
#pragma once

#include <httplib.h>

#include <memory>
#include <string>
#include <string_view>

#include "server/reply.h"

namespace mlprof::server {

// The URL's parameters; the first of repeated names wins.
QueryParams query_params(const httplib::Request& req);

// Sends an endpoint's reply.
void send(const httplib::Request& req, httplib::Response& res, const Reply& reply);

// Sends bytes as they are, gzip-compressed when the client takes it (`gzipped` may hold them
// compressed already). `owner` keeps `body` alive while it is sent; null for bytes that live as
// long as the program.
void send_bytes(const httplib::Request& req, httplib::Response& res, std::shared_ptr<const std::string> owner,
                std::string_view body, const std::string& type, std::string_view gzipped = {});

}  // namespace mlprof::server
