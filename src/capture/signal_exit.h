// A session is written when SIGINT, SIGTERM or SIGHUP ends the program, as it is at exit(),
// and the program then ends as it would have without mlprof.
//
// Where the program leaves such a signal at its default action (the program dies), a handler
// has the session's thread write the run, then ends the program by the same signal, so the
// shell sees 130 or 143. A second of these signals during the write abandons it (the file is
// written under a temporary name and renamed, so no torn profile is left), as does a write
// that takes more than a minute; the same signal again within a second is the same request. Signals the program handles or ignores are left to it: it
// exits, and the exit writes the session.
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

// The session thread never runs the handler: the handler waits for it.
void block_exit_signals_on_this_thread();

}  // namespace mlprof::capture
