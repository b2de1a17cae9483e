// tensorflow.ProfilerService in the profiled process: Profile runs an ordinary mlprof
// session for the requested window and writes <repository_root>/<session_id>/<host>.xplane.pb;
// Terminate ends it early; Monitor says whether a capture runs.
#pragma once

#include "rpc/capture_slot.h"
#include "rpc/profiler_service.grpc.pb.h"

namespace mlprof::rpc {

class ProfilerServiceImpl final : public tensorflow::ProfilerService::Service {
 public:
  grpc::Status Profile(grpc::ServerContext* context, const tensorflow::ProfileRequest* request,
                       tensorflow::ProfileResponse* response) override;
  grpc::Status Terminate(grpc::ServerContext* context, const tensorflow::TerminateRequest* request,
                         tensorflow::TerminateResponse* response) override;
  grpc::Status Monitor(grpc::ServerContext* context, const tensorflow::MonitorRequest* request,
                       tensorflow::MonitorResponse* response) override;

  // Ends a capture in progress (it is still written), before the server shuts down.
  void terminate_capture() { slot_.terminate(""); }

 private:
  CaptureSlot slot_;
};

}  // namespace mlprof::rpc
