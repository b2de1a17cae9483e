// The names set_thread_name() gives threads: one copy per thread, freed once the thread is
// renamed or exits and no capture can still read it (a program that names every new
// thread differently, for days, keeps only its live threads' names).
#pragma once

namespace mlprof::capture {

// A name the calling thread no longer uses (renamed, or exiting); null is ignored.
void retire_thread_name(const char* name) noexcept;

// Chunks of the session being recorded or written point at names: while it lasts, retired
// names are kept, and freed when it ends.
void thread_names_capture_begins() noexcept;
void thread_names_capture_ends() noexcept;

// In a forked child: the lock may have been held by a thread the child does not have.
void reset_thread_names_after_fork() noexcept;

}  // namespace mlprof::capture
