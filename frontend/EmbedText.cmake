# Writes INPUT as a C++ raw string literal into OUTPUT (a .inc file).
file(READ ${INPUT} text)
string(FIND "${text}" ")bendc_prelude\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter")
endif()
file(WRITE ${OUTPUT}.tmp "R\"bendc_prelude(${text})bendc_prelude\"\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
