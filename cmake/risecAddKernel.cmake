# risec_add_kernel(NAME SOURCE FILE.rise [STRATEGY S.elv] [TARGET c|openmp|opencl]
#                  [ENTRY DEF] [SIZES n=1024,m=512])
#
# Ahead-of-time compilation, as Halide generators do: at build time `risec compile`
# turns the entry of FILE.rise (rewritten by S.elv; lowerToC without one) into
# NAME.c and NAME.h in the build tree, and NAME becomes a static library of that C
# code. Linking NAME gives its users the header's directory, so
#     #include "NAME.h"
# declares the generated function (named after the entry; C linkage, usable from
# C and C++). Without SIZES the function is generic in the sizes (int parameters);
# the OpenMP target links OpenMP, the OpenCL target the OpenCL library.
#
# The C is compiled with RISEC_KERNEL_C_FLAGS (a list; by default the flags of
# `risec run`: -O3 -march=native -ffp-contract=fast -fno-math-errno, so the library
# is for the building machine's CPU; set it to e.g. "-O3;-mavx2" for another one).
# Users of the header get -Wno-psabi with GCC: the header's vector helpers are
# declared for the vector width the strategy chose, whatever their own flags.
set(RISEC_KERNEL_C_FLAGS "-O3;-march=native;-ffp-contract=fast;-fno-math-errno"
    CACHE STRING "C flags for the libraries made by risec_add_kernel")

function(risec_add_kernel name)
  cmake_parse_arguments(PARSE_ARGV 1 K "" "SOURCE;STRATEGY;TARGET;ENTRY;SIZES" "")
  if(NOT K_SOURCE)
    message(FATAL_ERROR "risec_add_kernel(${name}): SOURCE FILE.rise is required")
  endif()
  if(K_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "risec_add_kernel(${name}): unknown arguments ${K_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT K_TARGET)
    set(K_TARGET c)
  endif()
  get_filename_component(source "${K_SOURCE}" ABSOLUTE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/risec_kernels/${name}")
  set(args compile "${source}" --target ${K_TARGET} -o "${dir}/${name}.c")
  set(depends "${source}")
  if(K_STRATEGY)
    get_filename_component(strategy "${K_STRATEGY}" ABSOLUTE)
    list(APPEND args --strategy "${strategy}")
    list(APPEND depends "${strategy}")
  endif()
  if(K_ENTRY)
    list(APPEND args --entry ${K_ENTRY})
  endif()
  if(K_SIZES)
    list(APPEND args --size ${K_SIZES})
  endif()
  set(outputs "${dir}/${name}.c" "${dir}/${name}.h")
  if(K_TARGET STREQUAL "opencl")
    list(APPEND outputs "${dir}/${name}.cl")
  endif()
  add_custom_command(
    OUTPUT ${outputs}
    COMMAND ${CMAKE_COMMAND} -E make_directory "${dir}"
    COMMAND risec::compiler ${args}
    DEPENDS ${depends} risec::compiler
    COMMENT "risec: compiling ${K_SOURCE} for ${K_TARGET} into ${name}"
    VERBATIM)
  add_library(${name} STATIC "${dir}/${name}.c" "${dir}/${name}.h")
  set_target_properties(${name} PROPERTIES C_STANDARD 99 C_EXTENSIONS ON
                                           POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${name} PUBLIC "${dir}")
  target_compile_options(${name} PRIVATE ${RISEC_KERNEL_C_FLAGS}
                         INTERFACE $<$<COMPILE_LANG_AND_ID:C,GNU>:-Wno-psabi>
                                   $<$<COMPILE_LANG_AND_ID:CXX,GNU>:-Wno-psabi>)
  find_library(RISEC_LIBM m)
  if(RISEC_LIBM)
    target_link_libraries(${name} PUBLIC ${RISEC_LIBM})
  endif()
  if(K_TARGET STREQUAL "openmp")
    find_package(OpenMP REQUIRED COMPONENTS C)
    target_link_libraries(${name} PUBLIC OpenMP::OpenMP_C)
  elseif(K_TARGET STREQUAL "opencl")
    find_package(OpenCL REQUIRED)
    target_link_libraries(${name} PUBLIC OpenCL::OpenCL)
  endif()
endfunction()
