# Deep programs compile and run with no stack overflow: a 100 000-element list
# literal summed, and an expression nested 10 000 deep. The expected results
# are computed here, independently of bendc.
set(dir ${CMAKE_CURRENT_BINARY_DIR}/deep)
file(MAKE_DIRECTORY ${dir})

# 100 000 sevens: they sum to 700000.
string(REPEAT "7, " 99999 items)
string(APPEND items "7")
file(WRITE ${dir}/long_list.bend
  "def sum(xs):\n  fold xs:\n    case List/Cons:\n      return xs.head + xs.tail\n    case List/Nil:\n      return 0\n"
  "def main():\n  return sum([${items}])\n")

# (+ 1 (+ 1 ... (+ 1 0))) with 10 000 additions.
string(REPEAT "(+ 1 " 10000 open)
string(REPEAT ")" 10000 close)
file(WRITE ${dir}/deep_nesting.bend "main = ${open}0${close}\n")

foreach(pair "long_list.bend;700000" "deep_nesting.bend;10000")
  list(GET pair 0 name)
  list(GET pair 1 expected)
  execute_process(COMMAND ${BENDC} --run ${dir}/${name}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc TIMEOUT 120)
  if(NOT rc EQUAL 0 OR NOT out STREQUAL "Result: ${expected}\n")
    message(FATAL_ERROR "${name}: expected 'Result: ${expected}', got exit ${rc}:\n${out}${err}")
  endif()
endforeach()
