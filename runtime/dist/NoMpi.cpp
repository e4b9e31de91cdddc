// The distributed runtime where bendc was built without MPI: a distributed
// run says so and what to do.
#include "runtime/dist/Mpi.h"

namespace bendc::rt::dist {

namespace {
const char *const WithoutMpi =
    "this bendc was built without MPI, so it cannot reduce over several processes; install "
    "Open MPI (Debian: libopenmpi-dev openmpi-bin) and build bendc again";
}

Process joinJob(char **) {
  Process p;
  p.error = WithoutMpi;
  return p;
}

RunResult runDistributed(const Book &, const RunOptions &) {
  RunResult result;
  result.status = RunStatus::NoMpi;
  result.message = WithoutMpi;
  return result;
}

} // namespace bendc::rt::dist
