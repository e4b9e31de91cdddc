#include "readback/Readback.h"
#include "readback/Expander.h"
#include "readback/INet.h"
#include "readback/Printer.h"
#include "readback/Reader.h"
#include "readback/Resugar.h"
#include "readback/Term.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <optional>

namespace bendc::readback {

namespace {

std::vector<std::string> warningTexts(const std::vector<ReadbackError> &errs) {
  // One line per kind, in the order the kinds first occurred.
  llvm::SmallVector<std::pair<ReadbackError, size_t>, 4> counts;
  for (ReadbackError e : errs) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](auto &c) { return c.first == e; });
    if (it == counts.end())
      counts.push_back({e, 1});
    else
      ++it->second;
  }
  std::vector<std::string> out;
  for (auto [e, count] : counts) {
    std::string msg = errorText(e);
    if (count > 1)
      msg += " (" + std::to_string(count) + " occurrences)";
    out.push_back(std::move(msg));
  }
  return out;
}

Result readNet(std::optional<INet> net, const net::Book &compiled, const core::Program &program,
               Options options) {
  Result result;
  if (!net) {
    result.warnings.push_back("Failed to parse result from HVM (invalid net).");
    return result;
  }
  Terms terms;
  Expander expander(compiled, terms);
  TermId root;
  {
    computeClosed(*net);
    terms.nodes.reserve(net->nodes.size() + net->nodes.size() / 4 + 16);
    Reader reader(*net, terms, expander, options.linear);
    root = reader.readNet();
    result.warnings = warningTexts(reader.errors());
  }
  net.reset(); // the net's memory goes before the text is made
  expander.expand(root);
  resugar(terms, root, program.encoding);
  result.text = print(terms, root, options.pretty);
  return result;
}

} // namespace

Result toBend(const net::Book &normalForm, const net::Book &compiled,
              const core::Program &program, Options options) {
  std::optional<INet> net;
  if (!normalForm.defs.empty())
    net = buildNet(normalForm, normalForm.defs.front());
  return readNet(std::move(net), compiled, program, options);
}

Result toBend(rt::ResultTree normalForm, llvm::ArrayRef<std::string> defNames,
              const net::Book &compiled, const core::Program &program, Options options) {
  std::vector<llvm::StringRef> names(defNames.begin(), defNames.end());
  std::optional<INet> net = buildNet(normalForm, names);
  normalForm = rt::ResultTree();
  return readNet(std::move(net), compiled, program, options);
}

} // namespace bendc::readback
