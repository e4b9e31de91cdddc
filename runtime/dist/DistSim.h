// A simulator of one net reduced by P ranks, for runtime/dist/DESIGN.md: the
// rules of runtime/common run in one thread, in a deterministic order, on
// behalf of P virtual ranks, and every access to a node another rank owns is
// counted as the message it would be. Nothing in the CPU runtime is changed
// or slowed by it; it shares the runtime's types, rules and counting.
//
// A run is a sequence of rounds. In a round each rank reduces the redexes it
// holds, up to a budget of interactions; at the end of the round idle ranks
// take half of the redexes of the busiest ones (the CPU runtime's work
// sharing), and, in the bulk-synchronous scheme, the redexes and writes sent
// to other ranks arrive.
#pragma once

#include "runtime/Runtime.h"
#include "runtime/common/Book.h"
#include "runtime/common/Readback.h"
#include "runtime/common/Rules.h"

#include <array>
#include <cstdint>
#include <string>

namespace bendc::rt::dist {

/// Which rank owns a node.
enum class Partition : uint8_t {
  /// The rank that allocated it: each rank takes chunks of nodes for itself,
  /// as each CPU worker does, and a freed node goes back to its owner.
  Worker,
  /// A hash of the node's index: no locality at all, the worst case.
  Hash,
};

/// The two schemes of DESIGN.md.
enum class Scheme : uint8_t {
  /// Scheme A: a redex stays on the rank that made it; remote slots are read
  /// with MPI_Get (16 bytes, a node's two slots), swapped with
  /// MPI_Fetch_and_op (8 bytes each way) and written with MPI_Put (8 bytes
  /// and the address); each get, swap or remote count is a round trip.
  OneSided,
  /// Scheme B: a redex goes to the owner of its positive node (of its
  /// negative node when the positive side is a leaf); a write into a remote
  /// slot and a redex sent away are 16-byte messages that arrive in the next
  /// round; a remote node the interaction reads travels with its redex (16
  /// bytes).
  Rounds,
};

const char *partitionName(Partition p);
const char *schemeName(Scheme s);

/// The network and the local speed the prediction assumes.
struct NetworkModel {
  double latency = 2e-6;               // α: one way, seconds
  double bandwidth = 10e9;             // bytes per second per link
  double secondsPerInteraction = 1e-8; // one rank, measured on one thread
};

struct SimOptions {
  unsigned ranks = 1;
  Partition partition = Partition::Worker;
  Scheme scheme = Scheme::Rounds;
  /// The most interactions a rank performs in one round.
  uint64_t roundBudget = uint64_t(1) << 14;
  /// The most nodes the net may use (0: 2^32).
  uint64_t maxNodes = 0;
  NetworkModel network;
  /// Run the IO protocol (and look at the result's spine) as a run does.
  bool io = true;
  IoConfig streams;
};

/// Per-message sizes, in bytes.
inline constexpr uint64_t GetBytes = 16;      // a node's two slots
inline constexpr uint64_t SwapBytes = 16;     // 8 out, 8 back
inline constexpr uint64_t PutBytes = 16;      // address and term
inline constexpr uint64_t MessageBytes = 16;  // scheme B: a redex, or a slot and a term
inline constexpr uint64_t FreeBytes = 8;      // a freed node going back to its owner

struct SimStats {
  RunStatus status = RunStatus::Ok;
  std::string message;
  /// Counted as the runtime counts them: they must equal its `-s` count.
  uint64_t interactions = 0;
  std::array<uint64_t, RuleCount> byRule{};
  /// Redexes taken off a rank's stack and reduced, and those of them whose
  /// two terms are nodes with two owners.
  uint64_t redexes = 0, crossRedexes = 0;
  /// Redexes whose reduction touched another rank: read, swapped, wrote or
  /// counted a remote slot, or sent a redex away (freed nodes going home are
  /// batched and left out).
  uint64_t networkRedexes = 0;
  /// Accesses to slots of another rank's nodes by the rank that reduces.
  uint64_t remoteReads = 0;  // nodes read, counted once per redex
  uint64_t remoteSwaps = 0;  // atomic exchanges on a remote slot
  uint64_t remoteWrites = 0; // plain stores into a remote slot
  uint64_t remoteCounts = 0; // dead-slot counts of remote nodes (scheme A)
  uint64_t remoteFrees = 0;  // nodes freed by a rank that does not own them
  uint64_t sentRedexes = 0;  // scheme B: redexes made on one rank for another
  uint64_t sharedRedexes = 0; // moved by work sharing
  /// Round trips the reducing ranks wait for (scheme A).
  uint64_t roundTrips = 0;
  /// Bytes that cross ranks under the simulated scheme.
  uint64_t bytes = 0;
  /// Rounds, and those in which no rank used up its budget: every rank ran
  /// out of work and waited for the messages of the round (scheme B).
  uint64_t rounds = 0, dryRounds = 0;
  /// The predicted time on P ranks: the sum over rounds of the slowest
  /// rank's time in the round (its interactions, the bytes through its link,
  /// in scheme A its round trips, in scheme B the round's exchange); and on
  /// one rank (interactions times the measured time of one).
  double predictedSeconds = 0, oneRankSeconds = 0;
  /// Scheme A waits for no round: the busiest rank's time summed over the
  /// whole run, a bound it cannot beat.
  double asyncSeconds = 0;
  ResultTree normalForm;
};

/// Reduces `@main` of `book` on `options.ranks` simulated ranks.
SimStats simulate(const Book &book, const SimOptions &options);

/// The owner of `node` among `ranks` under the hash partition. Node 0 (the
/// root) belongs to rank 0.
unsigned hashOwner(Loc node, unsigned ranks);

} // namespace bendc::rt::dist
