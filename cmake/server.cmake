# The gRPC front end: protobuf-c code generated from proto/ (cuzk.v1, czk.v1) and from
# Debian's grpc-proto package (grpc.health.v1, grpc.reflection.v1 and v1alpha), the
# descriptor set embedded for server reflection, the czk_server library (src/server), the
# czkd daemon, and the client side that the czk tool links. Included from the top
# CMakeLists.txt after the czk tool is defined.
#
# pkg-config rather than find_package(gRPC): Debian's gRPCConfig.cmake fails at configure
# time without grpc_cpp_plugin installed.

pkg_check_modules(GRPC REQUIRED IMPORTED_TARGET grpc)
pkg_check_modules(PROTOBUFC REQUIRED IMPORTED_TARGET libprotobuf-c)
pkg_check_modules(LIBUV REQUIRED IMPORTED_TARGET libuv)
pkg_check_modules(INIH REQUIRED IMPORTED_TARGET inih)
find_path(CZK_HTTP_PARSER_INCLUDE http_parser.h REQUIRED)
find_library(CZK_HTTP_PARSER_LIB http_parser REQUIRED)
# protoc-c is protoc with only the C generator built in (package protobuf-c-compiler).
find_program(CZK_PROTOC protoc-c REQUIRED)
set(CZK_GRPC_PROTO_DIR /usr/share/grpc-proto CACHE PATH
    "Directory of grpc/health/v1/health.proto and grpc/reflection (Debian package grpc-proto)")
if(NOT EXISTS ${CZK_GRPC_PROTO_DIR}/grpc/health/v1/health.proto)
  message(FATAL_ERROR "grpc-proto not found in ${CZK_GRPC_PROTO_DIR}: run scripts/deps.sh")
endif()

set(CZK_GEN_DIR ${CMAKE_BINARY_DIR}/gen)
set(CZK_OWN_PROTOS cuzk/v1/proving.proto czk/v1/czk.proto)
set(CZK_GRPC_PROTOS grpc/health/v1/health.proto grpc/reflection/v1/reflection.proto
                    grpc/reflection/v1alpha/reflection.proto)
set(CZK_PROTO_SOURCES "")
set(CZK_PROTO_DEPENDS "")
foreach(p ${CZK_OWN_PROTOS})
  list(APPEND CZK_PROTO_DEPENDS ${CMAKE_SOURCE_DIR}/proto/${p})
endforeach()
foreach(p ${CZK_GRPC_PROTOS})
  list(APPEND CZK_PROTO_DEPENDS ${CZK_GRPC_PROTO_DIR}/${p})
endforeach()
foreach(p ${CZK_OWN_PROTOS} ${CZK_GRPC_PROTOS})
  string(REGEX REPLACE "\\.proto$" "" stem ${p})
  list(APPEND CZK_PROTO_SOURCES ${CZK_GEN_DIR}/${stem}.pb-c.c)
  list(APPEND CZK_PROTO_HEADERS ${CZK_GEN_DIR}/${stem}.pb-c.h)
endforeach()
add_custom_command(
  OUTPUT ${CZK_PROTO_SOURCES} ${CZK_PROTO_HEADERS} ${CZK_GEN_DIR}/descset.bin
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CZK_GEN_DIR}
  COMMAND ${CZK_PROTOC} -I${CMAKE_SOURCE_DIR}/proto -I${CZK_GRPC_PROTO_DIR}
          --c_out=${CZK_GEN_DIR}
          --include_imports --descriptor_set_out=${CZK_GEN_DIR}/descset.bin
          ${CZK_OWN_PROTOS} ${CZK_GRPC_PROTOS}
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}/proto
  DEPENDS ${CZK_PROTO_DEPENDS}
  COMMENT "protoc-c: cuzk.v1, czk.v1, grpc.health.v1, grpc.reflection")
# The descriptor set becomes a C array for the reflection service.
add_custom_command(
  OUTPUT ${CZK_GEN_DIR}/descset.c
  COMMAND ${CMAKE_COMMAND} -DIN=${CZK_GEN_DIR}/descset.bin -DOUT=${CZK_GEN_DIR}/descset.c
          -P ${CMAKE_SOURCE_DIR}/cmake/embed_bytes.cmake
  DEPENDS ${CZK_GEN_DIR}/descset.bin ${CMAKE_SOURCE_DIR}/cmake/embed_bytes.cmake)

# Generated code is compiled without -Werror: protoc-c's output is not ours to fix.
add_library(czk_proto STATIC ${CZK_PROTO_SOURCES} ${CZK_GEN_DIR}/descset.c)
target_include_directories(czk_proto PUBLIC ${CZK_GEN_DIR})
target_link_libraries(czk_proto PUBLIC PkgConfig::PROTOBUFC)

# Client side (the czk tool's remote commands) and what both sides share.
add_library(czk_grpc_client STATIC ${CMAKE_SOURCE_DIR}/src/server/client.c
                                   ${CMAKE_SOURCE_DIR}/src/server/convert.c)
target_include_directories(czk_grpc_client PUBLIC ${CMAKE_SOURCE_DIR}/src/server)
target_link_libraries(czk_grpc_client PUBLIC czk_proto czk_core PkgConfig::GRPC)
target_compile_options(czk_grpc_client PRIVATE ${CZK_WARNINGS} -Wno-missing-field-initializers)
target_compile_definitions(czk_grpc_client PRIVATE _GNU_SOURCE)

# The server: everything else under src/server.
file(GLOB CZK_SERVER_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/server/*.c)
list(FILTER CZK_SERVER_SOURCES EXCLUDE REGEX "/(client|convert)\\.c$")
add_library(czk_server STATIC ${CZK_SERVER_SOURCES})
target_include_directories(czk_server PUBLIC ${CMAKE_SOURCE_DIR}/src/server
                                      PRIVATE ${CZK_HTTP_PARSER_INCLUDE})
target_link_libraries(czk_server PUBLIC czk_grpc_client PkgConfig::LIBUV PkgConfig::INIH
                                        ${CZK_HTTP_PARSER_LIB})
target_compile_options(czk_server PRIVATE ${CZK_WARNINGS} -Wno-missing-field-initializers)
target_compile_definitions(czk_server PRIVATE _GNU_SOURCE
                                              CZK_VERSION_STRING="${PROJECT_VERSION}")

add_executable(czkd ${CMAKE_SOURCE_DIR}/src/cli/czkd.c)
target_link_libraries(czkd PRIVATE czk_server)
target_compile_options(czkd PRIVATE ${CZK_WARNINGS} -Wno-missing-field-initializers)
target_compile_definitions(czkd PRIVATE _GNU_SOURCE)

target_link_libraries(czk PRIVATE czk_grpc_client)
target_compile_options(czk PRIVATE -Wno-missing-field-initializers)

if(CZK_TESTS)
  # Unit tests of the server's own pieces (config parsing, status mapping) link it.
  foreach(t test_server_units)
    if(TARGET ${t})
      target_link_libraries(${t} PRIVATE czk_server)
      target_compile_options(${t} PRIVATE -Wno-missing-field-initializers)
    endif()
  endforeach()
  # The end-to-end test drives czkd and czk; it must find both built.
  if(TARGET test_grpc_e2e)
    add_dependencies(test_grpc_e2e czkd czk)
    target_compile_definitions(test_grpc_e2e PRIVATE CZK_GRPC_PROTO_DIR="${CZK_GRPC_PROTO_DIR}")
    set_tests_properties(test_grpc_e2e PROPERTIES TIMEOUT 240)
  endif()
  # czk timeline's tests run the tools (the synthetic log: czk; the daemon: both).
  foreach(t test_timeline test_timeline_daemon)
    if(TARGET ${t})
      add_dependencies(${t} czkd czk)
    endif()
  endforeach()
  # The edge tests (tests/peers/edge_e2e.mjs) preload two fault injectors: a chmod that
  # sleeps (widens any window between bind and chmod) and an accept4 that fails with
  # EMFILE on demand (the listener's recovery from running out of descriptors).
  add_library(czk_slow_chmod SHARED ${CMAKE_SOURCE_DIR}/tests/e2e/slow_chmod.c)
  target_link_libraries(czk_slow_chmod PRIVATE ${CMAKE_DL_LIBS})
  add_library(czk_emfile_accept SHARED ${CMAKE_SOURCE_DIR}/tests/e2e/emfile_accept.c)
  target_link_libraries(czk_emfile_accept PRIVATE ${CMAKE_DL_LIBS})
  foreach(t test_edge_config test_edge_limits)
    if(TARGET ${t})
      add_dependencies(${t} czkd czk)
      target_compile_definitions(${t} PRIVATE CZK_GRPC_PROTO_DIR="${CZK_GRPC_PROTO_DIR}")
      set_tests_properties(${t} PROPERTIES TIMEOUT 240)
    endif()
  endforeach()
  if(TARGET test_edge_config)
    add_dependencies(test_edge_config czk_slow_chmod)
    target_compile_definitions(test_edge_config PRIVATE CZK_SLOW_CHMOD="$<TARGET_FILE:czk_slow_chmod>")
  endif()
  if(TARGET test_edge_limits)
    add_dependencies(test_edge_limits czk_emfile_accept)
    target_compile_definitions(test_edge_limits PRIVATE CZK_EMFILE_ACCEPT="$<TARGET_FILE:czk_emfile_accept>")
  endif()
  if(TARGET test_grpc_e2e_filecoin)
    add_dependencies(test_grpc_e2e_filecoin czkd czk)
    target_compile_definitions(test_grpc_e2e_filecoin PRIVATE CZK_GRPC_PROTO_DIR="${CZK_GRPC_PROTO_DIR}")
  endif()
  # tests/peers/jobs_e2e.mjs in its two modes (Curio in production; integrity).
  foreach(t test_curio_e2e test_integrity_e2e)
    if(TARGET ${t})
      add_dependencies(${t} czkd czk)
      target_compile_definitions(${t} PRIVATE CZK_GRPC_PROTO_DIR="${CZK_GRPC_PROTO_DIR}")
    endif()
  endforeach()
endif()

# ---------------------------------------------------------------------------------------
# libFuzzer targets (tests/fuzz/fuzz_*.c): every parser of untrusted input. They need
# clang and an ASan build, so they exist only in a build configured as
#   CC=clang cmake -S . -B build-fuzz -DCZK_SANITIZE=address -DCZK_CUDA=OFF
# (CZK_FUZZ=AUTO turns on exactly then; ON insists). Each runs for CZK_FUZZ_SECONDS as a
# CTest labelled `fuzz`, over a corpus seeded with valid inputs that czk's tools make.
# ---------------------------------------------------------------------------------------
set(CZK_FUZZ "AUTO" CACHE STRING "Build libFuzzer targets: ON, OFF or AUTO (clang + CZK_SANITIZE=address)")
set(CZK_FUZZ_SECONDS 10 CACHE STRING "Seconds each fuzz target runs under CTest")
set(czk_fuzz_ok OFF)
if(CMAKE_C_COMPILER_ID STREQUAL "Clang" AND CZK_SANITIZE STREQUAL "address" AND NOT CZK_HAVE_CUDA)
  set(czk_fuzz_ok ON)
endif()
if(CZK_FUZZ STREQUAL "ON" AND NOT czk_fuzz_ok)
  message(FATAL_ERROR "CZK_FUZZ=ON needs CC=clang, -DCZK_SANITIZE=address and -DCZK_CUDA=OFF")
endif()
if(czk_fuzz_ok AND NOT CZK_FUZZ STREQUAL "OFF")
  message(STATUS "czk: libFuzzer targets on (${CZK_FUZZ_SECONDS} s each under CTest)")
  # Coverage instrumentation in everything the targets reach, so libFuzzer is guided by
  # the parsers' branches rather than mutating blindly.
  target_compile_options(czk_layer_flags INTERFACE -fsanitize=fuzzer-no-link)
  foreach(t czk_proto czk_grpc_client czk_server)
    target_compile_options(${t} PRIVATE -fsanitize=fuzzer-no-link)
  endforeach()
  # The gcc build is the one that keeps the code warning-free; clang warns about a few
  # more things (unused static inline functions), which must not stop the fuzz build.
  target_compile_options(czk_layer_flags INTERFACE -Wno-error)
  set(seeds ${CMAKE_BINARY_DIR}/fuzz/seeds)
  if(CZK_TESTS)
    add_test(NAME fuzz_seeds COMMAND bash ${CMAKE_SOURCE_DIR}/tests/fuzz/make_seeds.sh
                                      $<TARGET_FILE:czk> $<TARGET_FILE:czkd> ${seeds})
    set_tests_properties(fuzz_seeds PROPERTIES LABELS fuzz TIMEOUT 300 FIXTURES_SETUP czk_fuzz_seeds)
  endif()
  set(fuzz_seed_files_fuzz_c1_json ${seeds}/c1.json ${seeds}/c1.envelope.json)
  set(fuzz_seed_files_fuzz_bincode ${seeds}/wpost.0.seed ${seeds}/wpost.1.seed ${seeds}/snap.0.seed)
  set(fuzz_seed_files_fuzz_zkey ${seeds}/tiny.zkey)
  set(fuzz_seed_files_fuzz_wtns ${seeds}/tiny.wtns)
  set(fuzz_seed_files_fuzz_r1cs ${seeds}/tiny.r1cs)
  set(fuzz_seed_files_fuzz_params ${seeds}/params.seed ${seeds}/vk.seed)
  set(fuzz_seed_files_fuzz_config ${seeds}/czkd.conf)
  set(fuzz_seed_files_fuzz_proto "")
  file(GLOB fuzz_sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
  foreach(src ${fuzz_sources})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_link_libraries(${name} PRIVATE czk_server)
    target_compile_options(${name} PRIVATE ${CZK_WARNINGS} -Wno-missing-field-initializers -fsanitize=fuzzer)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
    if(CZK_TESTS)
      add_test(NAME ${name} COMMAND bash ${CMAKE_SOURCE_DIR}/tests/fuzz/run_fuzz.sh $<TARGET_FILE:${name}>
                                        ${CZK_FUZZ_SECONDS} ${CMAKE_BINARY_DIR}/fuzz/${name}
                                        ${fuzz_seed_files_${name}})
      math(EXPR fuzz_timeout "${CZK_FUZZ_SECONDS} + 60")
      set_tests_properties(${name} PROPERTIES LABELS fuzz TIMEOUT ${fuzz_timeout}
                                              FIXTURES_REQUIRED czk_fuzz_seeds)
    endif()
  endforeach()
endif()
