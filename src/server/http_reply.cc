#include "server/http_reply.h"

#include <algorithm>

#include "server/gzip_body.h"

namespace mlprof::server {
namespace {

void set_exact_body(httplib::Response& res, std::shared_ptr<const std::string> owner, std::string_view body,
                    const std::string& type) {
  res.set_content_provider(body.size(), type.c_str(),
                           [owner = std::move(owner), body](size_t offset, size_t length, httplib::DataSink& sink) {
                             if (offset > body.size()) return false;
                             sink.write(body.data() + offset, std::min(length, body.size() - offset));
                             return true;
                           });
}

}  // namespace

QueryParams query_params(const httplib::Request& req) {
  QueryParams params;
  for (const auto& [k, v] : req.params) params.emplace(k, v);  // emplace keeps the first
  return params;
}

void send_bytes(const httplib::Request& req, httplib::Response& res, std::shared_ptr<const std::string> owner,
                std::string_view body, const std::string& type, std::string_view gzipped) {
  res.set_header("Vary", "Accept-Encoding");
  if (accepts_gzip(req.get_header_value("Accept-Encoding"))) {
    if (!gzipped.empty()) {
      res.set_header("Content-Encoding", "gzip");
      set_exact_body(res, nullptr, gzipped, type);
      return;
    }
    auto compressed = std::make_shared<const std::string>(gzip_compress(body));
    if (!compressed->empty()) {
      res.set_header("Content-Encoding", "gzip");
      set_exact_body(res, compressed, *compressed, type);
      return;
    }
  }
  set_exact_body(res, std::move(owner), body, type);
}

void send(const httplib::Request& req, httplib::Response& res, const Reply& reply) {
  res.status = reply.status;
  res.set_header("Cache-Control", "no-store");
  if (!reply.download_name.empty())
    res.set_header("Content-Disposition", "attachment; filename=\"" + reply.download_name + "\"");
  auto body = std::make_shared<const std::string>(reply.body);
  send_bytes(req, res, body, *body, reply.content_type);
}

}  // namespace mlprof::server
