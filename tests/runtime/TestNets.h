// Test nets shared by the runtime's tests (RuntimeTest) and the CUDA
// runtime's (cuda/GpuTest): small nets that each exercise a rule, with the
// result HVM2 2.0.22 prints for them, and larger parallel programs.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <doctest/doctest.h>

#include <string>

namespace bendc::testing::nets {

struct RuleNet {
  const char *name;
  const char *text;
  const char *result; // as HVM2 prints it
};

/// Every rule, and the ways a value can reach each.
inline constexpr RuleNet rules[] = {
    {"call, then annihilation", "@main = r & @id ~ (5 r)\n@id = (x x)\n", "5"},
    {"annihilation", "@main = r & (a a) ~ (7 r)\n", "7"},
    {"annihilation, crossed", "@main = (b a) & (1 2) ~ (a b)\n", "(2 1)"},
    {"duplicator meets superposition", "@main = (a b) & {a b} ~ {1 2}\n", "(1 2)"},
    {"commutation with a λ", "@main = (a b) & {a b} ~ (x x)\n", "((x0 x0) (x1 x1))"},
    {"commutation with a pair", "@main = (a b) & {a b} ~ (1 2)\n", "((1 2) (1 2))"},
    {"commutation, nested", "@main = (a b) & {a b} ~ (x (y (x y)))\n",
     "((x0 (x1 (x0 x1))) (x2 (x3 (x2 x3))))"},
    {"eraser meets a number", "@main = 1 & * ~ 2\n", "1"},
    {"eraser meets a reference", "@main = 1 & * ~ @k\n@k = 9\n", "1"},
    {"eraser meets a node", "@main = 1 & * ~ (a a)\n", "1"},
    {"erased field", "@main = r & (* r) ~ (* 4)\n", "4"},
    {"duplicator copies a number", "@main = (a b) & {a b} ~ 5\n", "(5 5)"},
    {"duplicator copies a reference", "@main = (a b) & {a b} ~ @k\n@k = (x x)\n", "(@k @k)"},
    {"duplicator expands a definition that duplicates",
     "@main = (a b) & {a b} ~ @d\n@d = ({x y} (x y))\n", "(({x0 x1} (x0 x2)) ({x2 x3} (x1 x3)))"},
    {"operator: immediate", "@main = r & 3 ~ $([+4] r)\n", "7"},
    {"operator: flipped", "@main = r & 10 ~ $([:-3] r)\n", "7"},
    {"operator: partial", "@main = r & 3 ~ $([+] $(4 r))\n", "7"},
    {"operator: waiting for the operand",
     "@main = r & 10 ~ $([-] $(x r)) & @three ~ x\n@three = 3\n", "7"},
    {"operator: f24", "@main = r & 2.5 ~ $([*] $(2.0 r))\n", "5.0"},
    {"operator: i24", "@main = r & -3 ~ $([*] $(+2 r))\n", "-6"},
    {"switch: zero", "@main = r & 0 ~ ?((10 (p p)) r)\n", "10"},
    {"switch: successor", "@main = r & 5 ~ ?((10 (p p)) r)\n", "4"},
    {"switch: successor case by reference", "@main = r & 3 ~ ?((10 @pred) r)\n@pred = (p p)\n",
     "2"},
    {"unbound wire", "@main = (a a)\n", "(x0 x0)"},
    {"unbound wires, nested", "@main = (a (b (b a)))\n", "(x0 (x1 (x1 x0)))"},
    {"pair applied", "@main = r & @t ~ (1 r)\n@t = (2 3)\n", "3"},
};

/// The rule net called `name`.
inline const RuleNet &rule(llvm::StringRef name) {
  for (const RuleNet &r : rules)
    if (name == r.name)
      return r;
  FAIL("no test net named " << name.str());
  return rules[0];
}

/// A parallel recursive sum: 2^depth leaves, each its own index.
inline std::string sum(unsigned depth) {
  return "@main = r & @sum ~ (" + std::to_string(depth) + R"( (0 r))
@sum = (?(((x x) @sum/go) f) f)
@sum/go = ({p q} ({$([*2] a) $([*2] $([+1] b))} r))
  &! @sum ~ (p (a $([+] $(s r))))
  &! @sum ~ (q (b s))
)";
}

/// The sum `sum(depth)` computes (u24 arithmetic).
inline std::string sumResult(unsigned depth) {
  uint64_t n = uint64_t(1) << depth;
  return std::to_string((n * (n - 1) / 2) % (1 << 24));
}

/// A tree of tuples built, then summed (the same sum).
inline std::string tree(unsigned depth) {
  std::string d = std::to_string(depth);
  return "@main = r & @sum ~ (" + d + " (t r)) & @gen ~ (" + d + R"( (0 t))
@gen = (?(((x x) @gen/go) f) f)
@gen/go = ({p q} ({$([*2] a) $([*2] $([+1] b))} (l r)))
  &! @gen ~ (p (a l))
  &! @gen ~ (q (b r))
@sum = (?(((t t) @sum/go) f) f)
@sum/go = ({p q} ((a b) r))
  &! @sum ~ (p (a $([+] $(s r))))
  &! @sum ~ (q (b s))
)";
}

/// A sequential loop: one redex at a time, memory reused.
inline std::string loop(unsigned n) {
  return "@main = r & @loop ~ (" + std::to_string(n) + R"( r)
@loop = (?((0 @loop/go) f) f)
@loop/go = (p r) & @loop ~ (p r)
)";
}

/// A bitonic sort of 2^depth keys (x * 40503) & 65535 held in a tree of
/// tuples, then the sum of (i + 1) * key over the sorted positions (u24).
/// Each merge needs the two sorts linked after it, and two merges need the
/// same comparisons (see DefInfo::consumers).
inline std::string bitonic(unsigned depth) {
  std::string d = std::to_string(depth);
  return "@main = r & @gen ~ (" + d + " (0 t)) & @sort ~ (" + d + " (0 (t s))) & @check ~ (" + d + R"( (0 (s r)))
@gen = (?((@gen/leaf @gen/node) f) f)
@gen/leaf = ($([*40503] $([&65535] r)) r)
@gen/node = ({d1 d2} ({$([*2] a) $([*2] $([+1] b))} (l m)))
  &! @gen ~ (d1 (a l))
  &! @gen ~ (d2 (b m))
@sort = (?(((* (t t)) @sort/node) f) f)
@sort/node = ({d1 {d2 $([+1] d3)}} (s ((a b) r)))
  &! @sort ~ (d1 (0 (a l)))
  &! @sort ~ (d2 (1 (b m)))
  & @flow ~ (d3 (s ((l m) r)))
@flow = (?(((* (t t)) @flow/node) f) f)
@flow/node = ({d1 {d2 d3}} ({s1 {s2 s3}} ((a b) (x y))))
  & @warp ~ (d1 (s1 (a (b (u v)))))
  &! @flow ~ (d2 (s2 (u x)))
  &! @flow ~ (d3 (s3 (v y)))
@warp = (?((@warp/leaf @warp/node) f) f)
@warp/leaf = (s ({$([>] $(b1 $([^] $(s k)))) a2} ({b1 b2} r)))
  & @swap ~ (k (a2 (b2 r)))
@warp/node = ({d1 d2} ({s1 s2} ((al ar) ((bl br) ((l1 r1) (l2 r2))))))
  &! @warp ~ (d1 (s1 (al (bl (l1 l2)))))
  &! @warp ~ (d2 (s2 (ar (br (r1 r2)))))
@swap = (?(((a (b (a b))) (* (c (d (d c))))) f) f)
@check = (?((@check/leaf @check/node) f) f)
@check/leaf = ($([+1] $([*] $(v r))) (v r))
@check/node = ({d1 d2} ({$([*2] i) $([*2] $([+1] j))} ((a b) r)))
  &! @check ~ (d1 (i (a $([+] $(t r)))))
  &! @check ~ (d2 (j (b t)))
)";
}

} // namespace bendc::testing::nets
