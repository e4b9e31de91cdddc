// The distributed runtime in `bendc` itself: a distributed run is handed to
// `bendc-mpi`, the same driver linked with MPI (MpiRuntime.cpp), so that the
// MPI libraries load only into the processes of an MPI job. Loading them took
// 2 to 4 ms of every bendc process, a fifth of a small program's run (see
// runtime/cpu/PERF.md, "Starting the process").
#include "runtime/dist/Mpi.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace bendc::rt::dist {

namespace {
/// The executable a distributed run is handed to, beside this one.
constexpr const char *MpiDriver = "bendc-mpi";
} // namespace

Process joinJob(char **argv) {
  Process p;
  // The address of a function in this executable finds it where argv[0]
  // does not (a name looked up on PATH).
  std::string self = llvm::sys::fs::getMainExecutable(argv[0], reinterpret_cast<void *>(&joinJob));
  llvm::SmallString<256> driver(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(driver, MpiDriver);
  // Under mpirun the process keeps its place in the job: the launcher's
  // environment passes through exec, and MPI starts in the new image.
  execv(driver.c_str(), argv);
  p.error = "cannot start " + std::string(driver.str()) +
            ", which runs the processes of an MPI job: " + std::strerror(errno) +
            " (it is built with bendc; keep the two in one folder)";
  return p;
}

RunResult runDistributed(const Book &, const RunOptions &) {
  // joinJob hands every distributed run over before anything is compiled.
  RunResult result;
  result.status = RunStatus::NoMpi;
  result.message = "a distributed run reached bendc instead of " + std::string(MpiDriver);
  return result;
}

} // namespace bendc::rt::dist
