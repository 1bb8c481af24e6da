# Driver of the noble_cross_check test (see peers.cmake):
#
#   cmake -DNODE=node -DPEERS_DIR=tests/peers -DCHECK=noble_check -DVECTORS=out.json \
#         -P run_noble_check.cmake
#
# Environment: CZK_NOBLE_SEED replays a run (its seed is printed), CZK_NOBLE_N sets the
# number of random cases per section (default 50, about 10 s in all on two cores).

if(NOT EXISTS "${PEERS_DIR}/node_modules/@noble/curves/package.json")
  message(FATAL_ERROR "noble_cross_check: ${PEERS_DIR}/node_modules has no @noble/curves: "
                      "run scripts/deps.sh")
endif()
if(NOT NODE)
  message(FATAL_ERROR "noble_cross_check: node not found: run scripts/deps.sh, then reconfigure")
endif()

if(DEFINED ENV{CZK_NOBLE_SEED} AND NOT "$ENV{CZK_NOBLE_SEED}" STREQUAL "")
  set(seed "$ENV{CZK_NOBLE_SEED}")
else()
  # Time-based, with a random tail so that runs started in the same second differ.
  string(TIMESTAMP now "%s" UTC)
  string(RANDOM LENGTH 6 ALPHABET 0123456789 tail)
  set(seed "${now}${tail}")
endif()
set(n 50)
if(DEFINED ENV{CZK_NOBLE_N} AND NOT "$ENV{CZK_NOBLE_N}" STREQUAL "")
  set(n "$ENV{CZK_NOBLE_N}")
endif()
message(STATUS "noble_cross_check: seed ${seed}, n ${n} "
               "(replay: CZK_NOBLE_SEED=${seed} CZK_NOBLE_N=${n} ctest -R noble_cross_check)")

execute_process(COMMAND "${NODE}" noble_vectors.mjs ${n} ${seed}
                WORKING_DIRECTORY "${PEERS_DIR}"
                OUTPUT_FILE "${VECTORS}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "noble_cross_check: noble_vectors.mjs failed (${rc})")
endif()

execute_process(COMMAND "${CHECK}" "${VECTORS}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "noble_cross_check: czk disagrees with @noble/curves (seed ${seed}); "
                      "vectors kept in ${VECTORS}")
endif()
