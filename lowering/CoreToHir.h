// Core to HIR: each definition becomes a function of named wires. The result
// is not yet linear: a variable's wire is used once per occurrence (or not at
// all); the linearize-variables pass then adds the dups and erasers.
#pragma once

#include "ir/Core.h"
#include "ir/Hir.h"

#include <memory>
#include <string>
#include <vector>

namespace bendc::lowering {

/// Translates every Core definition. Operators take the shapes HVM2 books
/// use: a literal operand becomes a partial operator (`[+1]`), `<=` and `>=`
/// compare and then test for zero, `**` is HVM2's `^` on floats.
/// `references`, if given, receives the functions each one refers to.
/// Core's verifier (core::verify) has checked the program's scoping: a
/// variable bound nowhere here is a bug in bendc, described in `problems`
/// (if given), and the result is then null.
std::unique_ptr<hir::Module> coreToHir(const core::Program &program,
                                       hir::FunctionReferences *references = nullptr,
                                       std::vector<std::string> *problems = nullptr);

/// The same one definition at a time, for a pipeline that takes functions
/// as it needs them.
class HirBuilder {
public:
  explicit HirBuilder(const core::Program &program);
  ~HirBuilder();
  HirBuilder(const HirBuilder &) = delete;
  HirBuilder &operator=(const HirBuilder &) = delete;

  /// A module with a function for every definition, in the program's
  /// order (a function's id is its definition's place), bodies still empty.
  std::unique_ptr<hir::Module> makeModule();
  /// Translates the definition `fn` (a function of makeModule's) stands
  /// for into its body. False when a variable is bound nowhere, a bug in
  /// bendc that problems() describes.
  /// `references`, if given, receives the functions it refers to.
  bool translate(hir::Function &fn, hir::FunctionReferences *references = nullptr);
  /// The functions each definition refers to, read from Core without
  /// translating it (from Program::refs, where the program check left
  /// them): what translating every definition in order would give, in
  /// another order and perhaps more than once. Returns about how many Core
  /// terms the definitions hold.
  size_t references(hir::FunctionReferences &out) const;
  /// Fills `out.netNamed` (see hir::FunctionReferences).
  void netNamed(hir::FunctionReferences &out) const;
  /// The id of the function for the definition named `name` (a name the
  /// program saved), or hir::NoFunction.
  hir::FunctionId functionId(llvm::StringRef name) const;
  /// What translate() found wrong, one message each.
  const std::vector<std::string> &problems() const;

private:
  struct State;
  std::unique_ptr<State> state;
};

/// The HVM2 number word of a Core number.
uint32_t numbOf(core::Number n);

} // namespace bendc::lowering
