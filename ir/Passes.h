// The HIR passes, in the order the compiler runs them (see lowering/Compile.cpp).
// Each is one function from a module to the same module transformed; each
// keeps the module well formed (hir::verify), and tests run the verifier after
// every one of them.
#pragma once

#include "ir/Hir.h"

#include <functional>
#include <memory>
#include <vector>

namespace bendc::hir {

/// How switch arms receive the variables they use (Bend's -Olinearize-matches).
enum class MatchLinearization : uint8_t {
  Disabled, // arms use outer variables directly; linearizing variables dups them
  Alt,      // only variables bound by λs and lets right around the switch move in
  Enabled,  // every variable an arm uses moves in as an argument (Bend's default)
};

/// Linearize matches: each switch (and each constructor match) passes the
/// scoped variables its arms use as arguments, and each arm takes them as
/// params (after a match's fields), so no dup is built around a switch for a
/// variable that only one arm ends up using. Inner switches are done first;
/// the variables go in the order of their names.
void linearizeMatches(Module &module, MatchLinearization level);

/// Expand matches: each constructor match becomes the λs, switches and
/// applications of the module's ADT encoding. NumScott:
/// `(x λtag switch tag { 0: λfields.. λvars.. arm0; _: λp ... }) vars..`;
/// Scott: `(x λfields.. λvars.. arm0 ... armN) vars..`. Runs after matches
/// are linearized and before variables are.
void expandMatches(Module &module);

/// Linearize variables: a wire used n > 1 times gets a chain of n-1 dups next
/// to its definition, each use its own copy (handed out block by block); a
/// wire never used is erased. Afterwards every wire is used exactly once.
void linearizeVariables(Module &module);

/// The three passes above for one function at a time, each function once,
/// in whatever order a pipeline needs them (floating asks for the functions
/// it looks into before it reaches them). It is for the functions the
/// module has when it is made; functions added after them are not its.
class FunctionLinearizer {
public:
  FunctionLinearizer(Module &module, MatchLinearization level);
  ~FunctionLinearizer();
  /// Linearizes `fn`, a function of the module, unless that is done.
  void run(Function &fn);
  /// Linearizes the functions not done yet; the module is then linear.
  void finish();
  /// What a function meets once this linearizer ran on it.
  Invariants linearized() const {
    Invariants done;
    done.linear = true;
    done.matchesExpanded = true;
    done.matchesLinearized = level == MatchLinearization::Enabled;
    return done;
  }
  /// When set, called on the function after each of the three passes, with
  /// the pass's name and what the function then meets (to verify it).
  std::function<void(Function &, const char *pass, const Invariants &)> afterPass;

private:
  struct State;
  Module &module;
  MatchLinearization level;
  std::unique_ptr<State> state;
  std::vector<bool> done; // by function id
};

/// The three passes above, run function by function (each function goes
/// through all three while its instructions are in cache): the same module
/// as running linearizeMatches, expandMatches and linearizeVariables one
/// after the other.
void linearizeEachFunction(Module &module, MatchLinearization level);

/// What floating says as it goes: each function it is done with, so that
/// a later stage can take it while its instructions are in cache.
class FloatListener {
public:
  virtual ~FloatListener() = default;
  /// Floating is done with `fn`, a function of the module.
  virtual void done(Function &fn) = 0;
  /// Floating made `fn` out of the function it was last done with, and is
  /// done with it; it joins the end of the module when floating ends, after
  /// those made before it. Floating never looks into it again.
  virtual void made(Function &fn) = 0;
  /// Floating is about to look into `fn`, a function of the module (to
  /// float it or to judge whether references to it are safe): a stage that
  /// runs before floating may finish it now, while it will be in cache.
  virtual void needed(Function &) {}
  /// Floating judged whether references to `fn`, a function of the module,
  /// are safe; it will not look into `fn` for that again.
  virtual void judged(const Function &) {}
};

/// Float combinators: closed subterms that could run eagerly — any but the
/// simplest λs, applications of definitions, switch arms — become new
/// definitions `<name>__C<k>`, so they are only built when a reference to them
/// is reached; closed subterms of a definition larger than 64 nodes float too.
/// The entry point is left alone (`listener` hears of every other function,
/// each right before those floated out of it). Needs a linear module, or a
/// listener that makes each function linear when it is `needed`.
void floatCombinators(Module &module, FloatListener *listener = nullptr);

/// Merge definitions: functions whose bodies are the same (up to wire names)
/// become one, named as Bend names it (`a__M_b`), and every reference to any
/// of them points to it; repeated until no two bodies are equal. The entry
/// point is never merged.
void mergeDefinitions(Module &module);

/// The functions expandMain may inline (by function id): those the
/// entry point returns, through the return positions of what they return,
/// and those named as floated ones (`__C`) that the entry point or any of
/// these refers to, through what they refer to; as the module shows them
/// before floating (floating moves returned terms into new functions, which
/// expandMain then inlines, but brings in no other function). `prepare` is
/// called on each function, the entry point first, before its body is read.
/// What floating makes of these functions is inlined too; the caller keeps
/// those.
std::vector<bool> functionsMainExpands(Module &module, llvm::function_ref<void(Function &)> prepare);

/// Prune: take out the functions the entry point does not reach. With
/// `keepUserDefinitions`, only unreachable builtins go. `made`, the
/// references of the module as it was made, spares looking at every
/// instruction for them.
void pruneDefinitions(Module &module, bool keepUserDefinitions,
                      const FunctionReferences *made = nullptr);

/// Expand main: references in the entry point's return positions (its result,
/// the elements of a returned tuple or superposition, the arguments of a
/// returned constructor application) are replaced by the bodies they name,
/// once per definition on a path, so the result reads back as a term rather
/// than a reference.
void expandMain(Module &module);

} // namespace bendc::hir
