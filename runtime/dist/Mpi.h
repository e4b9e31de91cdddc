// One net reduced by the processes of an MPI job (runtime/dist/DESIGN.md,
// "The prototype"). The driver joins the job before it compiles, so that only
// rank 0 speaks; then every process compiles the same book and calls
// runDistributed.
#pragma once

#include "runtime/Runtime.h"

#include <string>

namespace bendc::rt::dist {

/// This process's place in the job.
struct Process {
  unsigned rank = 0, ranks = 1;
  /// Why the process could not join a job (empty when it did).
  std::string error;
};

/// Starts MPI (once; it is finished when the process exits) and says which
/// rank this process is. Outside `mpirun` this is a job of one process.
/// `argv`: the arguments main() received. `bendc` itself does not link the
/// MPI libraries, so that no other run pays for loading them: there the
/// process replaces itself with `bendc-mpi` from its own folder (the same
/// driver, linked with them), and this returns only to say why it could not
/// (HandOff.cpp).
Process joinJob(char **argv);

/// Reduces `@main` of `book` over the processes of the job, which all call it
/// with the same book and options. Rank 0 runs the IO calls and reads the
/// normal form back; the other ranks' results carry only the status. The
/// interactions and rules counted are those of the whole job.
RunResult runDistributed(const Book &book, const RunOptions &options);

} // namespace bendc::rt::dist
