#!/usr/bin/env python3
"""Writes a large, valid Bend program for frontend throughput benchmarks.

usage: tools/gen_large_bend.py [--mb N] > big.bend

The program mixes both syntaxes: ADTs, pattern-matching equations, imp
functions with match/fold/bend/if/switch, lists, strings and operators, so
every frontend phase (lexer, parser, resolver, desugarer, type checker)
does real work.
Measure it with `bendc_frontend_tool --bench 5 big.bend` (MB/s to Core).
"""
import argparse
import sys

CHUNK = '''
type Shape{i}:
  Circle {{ radius }}
  Rect {{ w, h }}
  Poly {{ ~rest, side }}

type (Tree{i} t) = (Node ~left ~right) | (Leaf (value: t))

area{i} (Shape{i}/Circle r) = (* (* r r) 3)
area{i} (Shape{i}/Rect w h) = (* w h)
area{i} (Shape{i}/Poly rest s) = (+ s (area{i} rest))

sum_tree{i} (Tree{i}/Node l r) = (+ (sum_tree{i} l) (sum_tree{i} r))
sum_tree{i} (Tree{i}/Leaf v) = v

def build{i}(depth: u24) -> Tree{i}(u24):
  bend d = 0, acc = {i}:
    when d < depth:
      tree = Tree{i}/Node(fork(d + 1, acc * 2), fork(d + 1, acc * 2 + 1))
    else:
      tree = Tree{i}/Leaf(acc)
  return tree

def count{i}(xs: List(u24)) -> u24:
  fold xs with total = 0:
    case List/Cons:
      return xs.tail(total + xs.head % 7)
    case List/Nil:
      return total

def classify{i}(n: u24) -> u24:
  switch m = n % 4:
    case 0:
      r = 10
    case 1:
      r = 20
    case _:
      r = m-2 * 3
  if r > 15:
    return r - 1
  elif r == 10:
    return r + 2
  else:
    return r

label{i} = "shape number {i} with a string literal"
list{i} = [1, 2, 3, 4, 5, 6, 7, 8, 9, {i}]
step{i} = λx λy let (a, b) = (x, y); (+ (* a 3) (- b 1))
'''

MAIN = '''
main = (+ (count0 list0) (+ (sum_tree0 (build0 3)) (classify0 5)))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=10.0, help="approximate size in megabytes")
    args = ap.parse_args()
    target = int(args.mb * 1_000_000)
    out = sys.stdout
    written = 0
    i = 0
    while written < target:
        text = CHUNK.format(i=i)
        out.write(text)
        written += len(text.encode())
        i += 1
    out.write(MAIN)


if __name__ == "__main__":
    main()
