# Cross-checks against independent implementations driven from node (tests/peers/package.json).
# Included from the top CMakeLists.txt inside if(CZK_TESTS).
#
# noble_cross_check: tests/peers/noble_vectors.mjs draws fresh random inputs (the seed is
# printed) and computes the expected values with @noble/curves; noble_check verifies them
# with czk. The node packages come from scripts/deps.sh.

find_program(CZK_NODE node)

add_executable(noble_check ${CMAKE_CURRENT_LIST_DIR}/noble_check.c)
target_include_directories(noble_check PRIVATE ${CMAKE_SOURCE_DIR}/tests ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(noble_check PRIVATE czk_core)
target_compile_options(noble_check PRIVATE ${CZK_WARNINGS})
target_compile_definitions(noble_check PRIVATE _GNU_SOURCE)

add_test(NAME noble_cross_check
         COMMAND ${CMAKE_COMMAND}
                 -DNODE=${CZK_NODE}
                 -DPEERS_DIR=${CMAKE_CURRENT_LIST_DIR}
                 -DCHECK=$<TARGET_FILE:noble_check>
                 -DVECTORS=${CMAKE_BINARY_DIR}/noble_vectors.json
                 -P ${CMAKE_CURRENT_LIST_DIR}/run_noble_check.cmake)
set_tests_properties(noble_cross_check PROPERTIES LABELS unit TIMEOUT 180)

# snarkjs_interop: circom2 compiles the test circuits, snarkjs runs the ceremony, setup and
# witness; czk's proofs must pass snarkjs's verifier and the other way round.
add_test(NAME snarkjs_interop
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/snarkjs_interop.sh $<TARGET_FILE:czk>
                 ${CMAKE_BINARY_DIR}/snarkjs_interop)
set_tests_properties(snarkjs_interop PROPERTIES LABELS unit TIMEOUT 900)
