// What an editor asks about a program once it is checked: every declaration
// and local variable with its range, type and documentation, and every place
// in the main file where a name refers to one. Built by the frontend when
// FrontendOptions::index is set; ranges point into the SourceMgr the program
// was read from, so the index is valid as long as that SourceMgr lives.
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bendc::frontend {

struct ProgramIndex {
  enum class Kind : uint8_t { Function, Hvm, Type, Object, Constructor, Variable };

  struct Symbol {
    Kind kind = Kind::Function;
    std::string name;        // the global name (`Type/Ctr`); a variable's own name
    llvm::SMRange nameRange; // where it is named; invalid for builtins
    llvm::SMRange range;     // the whole declaration; for a variable, where it is visible
    std::string type;        // its type, or its signature as written
    bool inferred = false;   // `type` comes from the type checker
    bool typed = false;      // `type` is a type; else a declaration as written
    std::string doc;         // the comment lines right above the declaration
    int parent = -1;         // a constructor's type
    bool builtin = false;
    bool mainFile = false;   // declared in the main file
  };

  /// A name in the main file and the symbol it means (declarations name
  /// themselves too, so that asking about a declaration works).
  struct Reference {
    llvm::SMRange range;
    unsigned symbol;
  };

  std::vector<Symbol> symbols;
  std::vector<Reference> references;
  /// Global names as the main file can spell them (its own, imported and
  /// builtin ones), with the symbols they mean.
  std::vector<std::pair<std::string, unsigned>> globals;
  /// The type of a variable at a use, by where the use starts (checked
  /// definitions only).
  llvm::DenseMap<const char *, std::string> useTypes;

  /// The innermost reference whose range holds `loc` (its end included, so a
  /// cursor right after a name still names it); null when none does.
  const Reference *referenceAt(llvm::SMLoc loc) const;
  /// The type of what `ref` names, as precise as known there: a variable's
  /// type at that use, else its symbol's type.
  std::string typeAt(const Reference &ref) const;
  /// The variables visible at `loc`, innermost last.
  std::vector<unsigned> variablesAt(llvm::SMLoc loc) const;
};

} // namespace bendc::frontend
