// bendc-distsim: reduces a net book on simulated ranks (runtime/dist/DistSim.h)
// and prints, for each number of ranks, partition and scheme, what would cross
// ranks and the time the network model predicts. One tab-separated row per
// simulation; lines starting with '#' carry each simulation's result.
#include "frontend/hvm/HvmReader.h"
#include "ir/NetPrinter.h"
#include "lowering/Polarize.h"
#include "runtime/dist/DistSim.h"
#include "support/Diagnostic.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace llvm;
using namespace bendc;
namespace dist = bendc::rt::dist;

namespace {

cl::OptionCategory category("bendc-distsim options");

cl::opt<std::string> inputPath(cl::Positional, cl::desc("<input .hvm>"), cl::Required, cl::cat(category));
cl::list<unsigned> rankCounts("ranks", cl::desc("Numbers of ranks (default: 2,4,16,64)"), cl::CommaSeparated,
                              cl::cat(category));
cl::list<dist::Partition> partitions(
    "partition", cl::desc("Who owns a node (default: both)"), cl::CommaSeparated,
    cl::values(clEnumValN(dist::Partition::Worker, "worker", "the rank that allocated it"),
               clEnumValN(dist::Partition::Hash, "hash", "a hash of its index")),
    cl::cat(category));
cl::list<dist::Scheme> schemes(
    "scheme", cl::desc("How ranks talk (default: both)"), cl::CommaSeparated,
    cl::values(clEnumValN(dist::Scheme::OneSided, "one-sided", "scheme A: MPI-3 RMA"),
               clEnumValN(dist::Scheme::Rounds, "rounds", "scheme B: bulk-synchronous rounds")),
    cl::cat(category));
cl::opt<uint64_t> roundBudget("round-budget", cl::desc("The most interactions a rank performs in a round"),
                              cl::init(uint64_t(1) << 14), cl::cat(category));
cl::opt<double> nsPerInteraction("ns-per-interaction",
                                 cl::desc("Time of one interaction on one thread, in ns (measure it with "
                                          "`bendc --run FILE -s --threads 1`)"),
                                 cl::init(10), cl::cat(category));
cl::opt<double> latencyMicros("latency-us", cl::desc("Network latency α, in µs"), cl::init(2),
                              cl::cat(category));
cl::opt<double> gigabytesPerSecond("gbps", cl::desc("Bandwidth of each rank's link, in GB/s"), cl::init(10),
                                   cl::cat(category));

} // namespace

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, "bendc-distsim: cross-rank traffic of a net book on simulated ranks\n");
  SourceMgr sources;
  ErrorOr<std::unique_ptr<MemoryBuffer>> file = MemoryBuffer::getFile(inputPath, /*IsText=*/true);
  if (!file) {
    errs() << "bendc-distsim: error: cannot read '" << inputPath << "': " << file.getError().message() << "\n";
    return 1;
  }
  unsigned buffer = sources.AddNewSourceBuffer(std::move(*file), SMLoc());
  DiagnosticEngine diags(sources);
  std::optional<net::Book> netBook = hvm::readBook(sources, buffer, diags);
  std::optional<rt::Book> book;
  if (netBook && !diags.hasErrors())
    book = lowering::polarize(*netBook, diags);
  if (!book || diags.hasErrors()) {
    diags.renderText(errs());
    return 1;
  }

  std::vector<unsigned> ranks(rankCounts.begin(), rankCounts.end());
  if (ranks.empty())
    ranks = {2, 4, 16, 64};
  std::vector<dist::Partition> parts(partitions.begin(), partitions.end());
  if (parts.empty())
    parts = {dist::Partition::Worker, dist::Partition::Hash};
  std::vector<dist::Scheme> kinds(schemes.begin(), schemes.end());
  if (kinds.empty())
    kinds = {dist::Scheme::OneSided, dist::Scheme::Rounds};

  StringRef program = sys::path::stem(inputPath);
  raw_ostream &os = outs();
  os << "program\tranks\tpartition\tscheme\tinteractions\tredexes\tcross\tf\tnetwork\tf_net\treads\tswaps\twrites\tcounts"
        "\tfrees\tsent\tshared\ttrips\tbytes\trounds\tdry_rounds\tpredicted_s\tone_rank_s\tspeedup\tasync_s\tasync_speedup\n";
  int status = 0;
  for (dist::Partition part : parts)
    for (dist::Scheme scheme : kinds)
      for (unsigned p : ranks) {
        dist::SimOptions options;
        options.ranks = p;
        options.partition = part;
        options.scheme = scheme;
        options.roundBudget = roundBudget;
        options.network.latency = latencyMicros * 1e-6;
        options.network.bandwidth = gigabytesPerSecond * 1e9;
        options.network.secondsPerInteraction = nsPerInteraction * 1e-9;
        options.streams.out = stderr; // the program's own output stays off the table
        dist::SimStats s = dist::simulate(*book, options);
        if (s.status != rt::RunStatus::Ok) {
          errs() << "bendc-distsim: error: " << program << " on " << p << " ranks: " << s.message << "\n";
          status = 1;
          continue;
        }
        double f = s.redexes ? double(s.crossRedexes) / double(s.redexes) : 0;
        os << program << "\t" << p << "\t" << dist::partitionName(part) << "\t" << dist::schemeName(scheme)
           << "\t" << s.interactions << "\t" << s.redexes << "\t" << s.crossRedexes << "\t"
           << format("%.5f", f) << "\t" << s.networkRedexes << "\t"
           << format("%.5f", s.redexes ? double(s.networkRedexes) / double(s.redexes) : 0) << "\t" << s.remoteReads << "\t" << s.remoteSwaps << "\t" << s.remoteWrites
           << "\t" << s.remoteCounts << "\t" << s.remoteFrees << "\t" << s.sentRedexes << "\t"
           << s.sharedRedexes << "\t" << s.roundTrips << "\t" << s.bytes << "\t" << s.rounds << "\t"
           << s.dryRounds << "\t" << format("%.6f", s.predictedSeconds) << "\t"
           << format("%.6f", s.oneRankSeconds) << "\t"
           << format("%.3f", s.predictedSeconds > 0 ? s.oneRankSeconds / s.predictedSeconds : 0) << "\t"
           << format("%.6f", s.asyncSeconds) << "\t"
           << format("%.3f", s.asyncSeconds > 0 ? s.oneRankSeconds / s.asyncSeconds : 0) << "\n";
        os << "# result " << p << " " << dist::partitionName(part) << " " << dist::schemeName(scheme) << ": "
           << net::resultText(s.normalForm, book->names) << "\n";
        os.flush();
      }
  return status;
}
