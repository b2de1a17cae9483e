// The device work of a window's graph (step_windows.h), found per window: the profile's whole
// GPU activity (16 bytes an item, and its launch index while it is found) would outweigh the
// window's graph. As gpu_activity.h finds it for the whole profile: each host's streams by
// device and stream number, each item joined to the runtime call that launched it by
// correlation id, but among the window's events only (work launched before the window has no
// launch in its graph). The waits on recorded CUDA events are found once, by event.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/critical_path/event_selection.h"
#include "analysis/critical_path/event_waits.h"
#include "analysis/gpu_timeline/gpu_activity.h"
#include "model/profile.h"

namespace mlprof::analysis {

// What is found once for every window.
struct WindowDeviceInputs {
  struct Host {
    uint32_t host = 0;
    std::vector<GpuStream> streams;  // by device, then stream number; DMA engines' queues left out
    // Per stream, each of its line's events' kind, by place on the line: classified once, not
    // again (by name) in each window that holds them.
    std::vector<std::vector<GpuWorkKind>> kinds;
    // The waits on recorded events (event_waits.h), by event.
    std::vector<std::pair<model::EventIndex, model::EventIndex>> stream_waits;  // source work, dest work
    std::vector<std::pair<model::EventIndex, model::EventIndex>> host_waits;    // source work, call
  };
  std::vector<Host> hosts;  // hosts with streams
};
WindowDeviceInputs window_device_inputs(const model::Profile& p);

// The window's device work per host (as WindowDeviceInputs::hosts), and its waits by index.
struct WindowDeviceWork {
  std::vector<HostGpuActivity> hosts;
  std::vector<EventWaits> waits;
};
// The launches of some host lines of the window, (correlation id, call) in line order, found
// by a caller that read their events' stats already; the other lines are read here.
struct KnownLaunches {
  std::vector<uint8_t> read;  // per line: its launches are given
  std::vector<std::vector<std::pair<uint64_t, model::EventIndex>>> of_line;
};
WindowDeviceWork window_device_work(const model::Profile& p, const WindowDeviceInputs& in,
                                    const EventSelection& events, const KnownLaunches* known = nullptr);
// The same, each item's launch the first of its calls in `launches` (launch_join.h) that the
// window holds.
WindowDeviceWork window_device_work(const model::Profile& p, const WindowDeviceInputs& in,
                                    const EventSelection& events, const LaunchJoin& launches);

}  // namespace mlprof::analysis
