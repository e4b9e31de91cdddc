# `bendc --time-phases --run FILE`: the result as without the option, and a
# report on stderr that names every phase the program went through.
execute_process(COMMAND ${BENDC} --run --threads=1 ${INPUT} RESULT_VARIABLE plain_code
                OUTPUT_VARIABLE plain_out)
execute_process(COMMAND ${BENDC} --time-phases --run --threads=1 ${INPUT} RESULT_VARIABLE code
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL 0 OR NOT plain_code EQUAL 0)
  message(FATAL_ERROR "exit codes ${plain_code} and ${code}:\n${err}")
endif()
if(NOT out STREQUAL plain_out)
  message(FATAL_ERROR "--time-phases changed the output:\n${plain_out}\nversus\n${out}")
endif()
foreach(phase "bendc compile phases" "Parsing" "Resolving names and imports" "Desugaring to Core"
              "Type checking" "Recovering sharing" "Core to HIR" "prune" "linearize"
              "float-combinators" "expand-main"
              "HIR to nets" "Polarizing the book" "Total")
  string(FIND "${err}" "${phase}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "no '${phase}' in the report:\n${err}")
  endif()
endforeach()
