# How the test drivers and the CLI compile: their code is glue (set up inputs, parse options,
# compare results) over the core, which keeps the build's flags.
#
# Unity builds, 8 sources per compiled file: every test source parses GoogleTest and
# nlohmann-json, and every CLI source CLI11 (7-10 s of g++ -O3 for a file that only includes
# and uses them), so one parse per 8 files instead of one per file. Clean trees on the 2-core VM,
# one run each: Release build 291 s -> 174 s, ASan + UBSan build 346 s -> 255 s. (Precompiled
# headers were tried first: with g++ they made the CLI's files slower, 10 s -> 15 s each.)
# Sources in one unity file share one translation unit: a file whose anonymous-namespace
# helpers collide with another's wraps them in a namespace named after the file (as
# tests/cpp/gpt_neox_test.cpp does). Sources with their own compile options (the sanitizer
# build's uninstrumented CLI drivers) are compiled alone, as CMake does for such sources.
set(POSLAB_UNITY_BATCH 8)

# poslab_test_build(TARGET...): a test driver: a unity build, and -O1 in a Release build (the
# code under test keeps -O3; -O1 compiles a test file about 30 % faster and is what the
# sanitizer build uses anyway).
function(poslab_test_build)
  foreach(target IN LISTS ARGN)
    target_compile_options(${target} PRIVATE "$<$<CONFIG:Release>:-O1>")
    poslab_unity_build(${target})
  endforeach()
endfunction()

# poslab_unity_build(TARGET): POSLAB_UNITY_BATCH sources per compiled file.
function(poslab_unity_build target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE
                                                             ${POSLAB_UNITY_BATCH})
endfunction()

# poslab_gtest_shards(TARGET NAME SHARDS [GTEST_ARGS...]): the GoogleTest binary TARGET as SHARDS
# ctest tests NAME.Shard0.., each one process running its share of the cases (gtest sharding) and
# writing their verdicts to gtest-shards/NAME-N.xml in the build tree, which scripts/test.sh
# counts case by case (passed, failed, skipped). For suites where one process per case (ctest's
# usual way) spends more time starting than testing.
function(poslab_gtest_shards target name shards)
  math(EXPR last "${shards} - 1")
  foreach(shard RANGE ${last})
    add_test(NAME ${name}.Shard${shard}
             COMMAND ${target} ${ARGN}
                     --gtest_output=xml:${CMAKE_BINARY_DIR}/gtest-shards/${name}-${shard}.xml)
    set_tests_properties(${name}.Shard${shard} PROPERTIES TIMEOUT 900 ENVIRONMENT
                         "GTEST_TOTAL_SHARDS=${shards};GTEST_SHARD_INDEX=${shard}")
  endforeach()
endfunction()

# poslab_gtests(TARGET SHARDS TIMEOUT): registers a GoogleTest binary with ctest: one ctest test
# per case (gtest_discover_tests, each with TIMEOUT seconds), or, in a sanitizer build, SHARDS
# shards (poslab_gtest_shards) without the *LongRunning* cases, which the sanitizer run leaves
# out (scripts/test.sh). An instrumented process takes about 0.3 s to start and to check for
# leaks at exit: one per case cost the sanitizer run 280 s of test time, where the three
# largest binaries run their cases in 84 s in one process each.
function(poslab_gtests target shards timeout)
  if(POSLAB_SANITIZE)
    poslab_gtest_shards(${target} ${target} ${shards} --gtest_filter=-*LongRunning*)
  else()
    gtest_discover_tests(${target} DISCOVERY_TIMEOUT 60 PROPERTIES TIMEOUT ${timeout})
  endif()
endfunction()
