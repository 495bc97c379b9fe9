# Read by the sanitizer build's ctest after the discovered tests (TEST_INCLUDE_FILES,
# tests/CMakeLists.txt): labels `sanitizer_unsampled` the end-to-end tests that
# scripts/test.sh leaves out of that run (`ctest -LE '^sanitizer_unsampled$'`). Kept:
# - every test of the suites whose subject is the compiler's own limits (deep and
#   long programs, sizes near overflow, the command line's error paths);
# - in every other group (a suite, or a parameterised test's instances), the test
#   whose name has the smallest hash, so that each group runs at least once;
# - and an eighth of the rest, those whose name's hash ends in 0 or 1.
# The hash is of the test's name without a parameter's printed value (which may hold
# addresses), so the same tests are chosen in every run and a new test moves no other.
set(risec_always "^e2e\\.(DepthLimits|LongChains|SizeLimits|CliFindings|CliSurprises)\\.")
set(risec_all ${risec_e2e_width_tests} ${risec_e2e_baseline_tests} ${risec_e2e_other_tests})

macro(risec_sample_key t)
  string(REGEX REPLACE "  # GetParam\\(\\) = .*" "" risec_name "${t}")
  string(MD5 risec_hash "${risec_name}")
  if(risec_name MATCHES "^e2e\\.([^.]*/[^.]*\\.[^/]*)/")
    set(risec_group "${CMAKE_MATCH_1}")
  elseif(risec_name MATCHES "^e2e\\.([^.]*)\\.")
    set(risec_group "${CMAKE_MATCH_1}")
  else()
    set(risec_group "${risec_name}")
  endif()
  string(MAKE_C_IDENTIFIER "${risec_group}" risec_group)
endmacro()

foreach(t IN LISTS risec_all)
  risec_sample_key("${t}")
  if(NOT DEFINED risec_least_${risec_group} OR risec_hash STRLESS risec_least_${risec_group})
    set(risec_least_${risec_group} "${risec_hash}")
  endif()
endforeach()

foreach(t IN LISTS risec_all)
  if(t MATCHES "${risec_always}")
    continue()
  endif()
  risec_sample_key("${t}")
  if(risec_hash MATCHES "[01]$" OR risec_hash STREQUAL risec_least_${risec_group})
    continue()
  endif()
  set_tests_properties("${t}" PROPERTIES LABELS sanitizer_unsampled)
endforeach()
