// A session is written when SIGINT, SIGTERM or SIGHUP ends the program, as it is at exit(),
// and the program then ends as it would have without mlprof.
//
// Where the program leaves such a signal at its default action (the program dies), a handler
// asks the session's thread to write the run and returns; once the run is written, that thread
// ends the program by the same signal, so the shell sees 130 or 143. The handler never waits:
// the thread it interrupted may hold a lock the write needs (the allocator's), and waiting there
// would stall the program. A second of these signals during the write abandons it (the file is
// written under a temporary name and renamed, so no torn profile is left); the same signal
// again within a second is the same request. Signals the program handles or ignores are left to
// it: it exits, and the exit writes the session.
//
// In a Python interpreter SIGINT is Python's (KeyboardInterrupt). An uncaught one ends the
// interpreter by re-raising SIGINT after finalization, where no C exit handler runs: the
// session is written from Python's finalization instead (Py_AtExit), whichever way the
// session started (mlprof.start, or MLPROF_LOGDIR before the interpreter was up).
#pragma once

namespace mlprof::capture {

// When a session starts: the handlers for the signals still at their default action, and the
// hook into Python's finalization when this is a Python interpreter.
void write_sessions_on_exit_signals();

// On the session thread, each time it wakes: a session that started before the interpreter
// was up (MLPROF_LOGDIR) hooks into its finalization once the interpreter is.
void register_python_exit_when_ready();

// The session thread never runs the handler: it is the one that writes.
void block_exit_signals_on_this_thread();

// On the session thread, after a run asked for by `signal` (0: none) is written or failed: ends
// the program by that signal, as its default action would have.
void end_program_after_signal_write(int signal);

}  // namespace mlprof::capture
