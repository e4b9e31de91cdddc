# libFuzzer builds (BENDC_FUZZ=ON, clang): the fuzz targets want the code
# they exercise instrumented for coverage and checked by ASan and UBSan, but
# bendc itself built as usual. Each library a fuzz target needs therefore has
# a twin, <library>_fuzz, built from the same sources with the instrumentation.

set(BENDC_FUZZ_ENABLED OFF)
if(BENDC_FUZZ)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    set(BENDC_FUZZ_ENABLED ON)
  else()
    message(WARNING "BENDC_FUZZ needs clang; the libFuzzer targets are not built")
  endif()
endif()

# What the libraries are compiled with, and what a fuzz target links with.
set(BENDC_FUZZ_LIBRARY_FLAGS -fsanitize=fuzzer-no-link,address,undefined)
set(BENDC_FUZZ_TARGET_FLAGS -fsanitize=fuzzer,address,undefined)

# bendc_fuzz_variant(<library>): adds <library>_fuzz, the instrumented twin of
# <library>, when fuzz targets are built. Call it in the folder that defines
# <library> (source-file properties such as generated files and per-file
# options belong to that folder), after its target_link_libraries and after
# the variants of the libraries it links: those are linked in their place.
function(bendc_fuzz_variant library)
  if(NOT BENDC_FUZZ_ENABLED)
    return()
  endif()
  get_target_property(sources ${library} SOURCES)
  add_library(${library}_fuzz ${sources})
  foreach(property COMPILE_DEFINITIONS COMPILE_OPTIONS)
    get_target_property(values ${library} ${property})
    if(values)
      set_property(TARGET ${library}_fuzz PROPERTY ${property} ${values})
    endif()
  endforeach()
  target_compile_options(${library}_fuzz PRIVATE ${BENDC_FUZZ_LIBRARY_FLAGS})
  get_target_property(links ${library} LINK_LIBRARIES)
  set(fuzz_links)
  foreach(link IN LISTS links)
    if(TARGET ${link}_fuzz)
      list(APPEND fuzz_links ${link}_fuzz)
    else()
      list(APPEND fuzz_links ${link})
    endif()
  endforeach()
  target_link_libraries(${library}_fuzz PUBLIC ${fuzz_links})
endfunction()

# bendc_fuzz_target(<name> SOURCES <files...> LIBS <libs...> TEST <test>
#                   SEEDS <corpus dir>): a libFuzzer executable, part of
# bendc_fuzz_targets (tests/CMakeLists.txt), and the test <test> (label fuzz)
# that runs it for a bounded time from the seeds. New inputs go to a work
# corpus in the build tree; the seeds stay as written.
function(bendc_fuzz_target name)
  cmake_parse_arguments(F "" "TEST;SEEDS" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${F_SOURCES})
  target_compile_options(${name} PRIVATE ${BENDC_FUZZ_TARGET_FLAGS})
  target_link_options(${name} PRIVATE ${BENDC_FUZZ_TARGET_FLAGS})
  target_link_libraries(${name} PRIVATE ${F_LIBS})
  add_dependencies(bendc_fuzz_targets ${name})
  set(work_corpus ${CMAKE_CURRENT_BINARY_DIR}/${name}_corpus)
  file(MAKE_DIRECTORY ${work_corpus})
  add_test(NAME ${F_TEST}
           COMMAND ${name} -max_total_time=20 -max_len=4096 -timeout=10 ${work_corpus} ${F_SEEDS})
  set_tests_properties(${F_TEST} PROPERTIES LABELS fuzz)
endfunction()
