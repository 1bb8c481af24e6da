#!/usr/bin/env bash
# circom/snarkjs interop, end to end, with snarkjs as the independent reference:
#   circom2 compiles the test circuits (BLS12-381), snarkjs runs a real powers-of-tau
#   ceremony (power 10), the Groth16 setup with one contribution, and the witness;
#   then czk's proofs must pass `snarkjs groth16 verify`, snarkjs's proofs must pass
#   `czk verify`, tampered proofs and wrong public inputs must fail both, and the same
#   circuits proved with czk's own bellperson-layout test parameters must verify.
# Usage: snarkjs_interop.sh CZK_BINARY WORK_DIR
set -euo pipefail
czk=$1
work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
circuits="$here/../circuits"
nm="$here/node_modules"
if [ ! -x "$nm/.bin/snarkjs" ] || [ ! -x "$nm/.bin/circom2" ]; then
  echo "FAIL: $nm has no snarkjs/circom2: run scripts/deps.sh"
  exit 1
fi
snarkjs() { node "$nm/snarkjs/build/cli.cjs" "$@"; }
mkdir -p "$work"
cd "$work"
passed=0
failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
expect() { # expect CODE DESCRIPTION -- command...
  local want=$1 what=$2
  shift 3
  local got=0
  "$@" >"$work/last.log" 2>&1 || got=$?
  if [ "$got" -eq "$want" ]; then ok "$what"; else bad "$what (exit $got, expected $want)"; sed 's/^/     /' "$work/last.log" | tail -5; fi
}

# One real ceremony serves every circuit here (each needs a domain of at most 2^10).
if [ ! -f pot10.ptau ]; then
  snarkjs powersoftau new bls12381 10 pot0.ptau >/dev/null
  snarkjs powersoftau contribute pot0.ptau pot1.ptau --name=czk-test -e="$(date +%s%N)" >/dev/null
  snarkjs powersoftau prepare phase2 pot1.ptau pot10.ptau >/dev/null
fi

# circom2 runs as WebAssembly with a sandboxed view of the file system: it finds
# includes below the working directory, not at arbitrary absolute paths.
[ -d inc/circomlib ] || { mkdir -p inc && cp -r "$nm/circomlib" inc/; }
for c in tiny poseidon_chain bits; do
  node "$nm/circom2/cli.js" "$circuits/$c.circom" --prime bls12381 --r1cs --wasm --O2 -l inc -o . >/dev/null
  snarkjs groth16 setup "$c.r1cs" pot10.ptau "${c}_0.zkey" >/dev/null
  snarkjs zkey contribute "${c}_0.zkey" "$c.zkey" --name=czk-test -e="$(date +%s%N)" >/dev/null
  snarkjs zkey export verificationkey "$c.zkey" "$c.vk.json" >/dev/null
  snarkjs wtns calculate "${c}_js/$c.wasm" "$circuits/$c.input.json" "$c.wtns" >/dev/null

  expect 0 "$c: czk r1cs-info" -- "$czk" r1cs-info "$c.r1cs"
  expect 0 "$c: czk r1cs-info on the zkey" -- "$czk" r1cs-info "$c.zkey"
  # czk proves, snarkjs verifies.
  expect 0 "$c: czk prove (zkey)" -- "$czk" prove --zkey "$c.zkey" --wtns "$c.wtns" \
      --proof "$c.czk.proof.json" --public "$c.czk.public.json"
  expect 0 "$c: snarkjs verifies czk's proof" -- snarkjs groth16 verify "$c.vk.json" \
      "$c.czk.public.json" "$c.czk.proof.json"
  # snarkjs proves, czk verifies; both agree on the public signals.
  snarkjs groth16 prove "$c.zkey" "$c.wtns" "$c.sj.proof.json" "$c.sj.public.json" >/dev/null
  if cmp -s <(tr -d ' \n' <"$c.sj.public.json") <(tr -d ' \n' <"$c.czk.public.json"); then
    ok "$c: public.json identical to snarkjs's"
  else
    bad "$c: public.json differs from snarkjs's"
  fi
  expect 0 "$c: czk verifies snarkjs's proof" -- "$czk" verify --vk "$c.vk.json" \
      --proof "$c.sj.proof.json" --public "$c.sj.public.json"
  expect 0 "$c: czk verifies its own proof" -- "$czk" verify --vk "$c.vk.json" \
      --proof "$c.czk.proof.json" --public "$c.czk.public.json"
  # A wrong public input fails both verifiers.
  node -e '
    const fs = require("fs"); const p = JSON.parse(fs.readFileSync(process.argv[1]));
    p[p.length - 1] = (BigInt(p[p.length - 1]) + 1n).toString();
    fs.writeFileSync(process.argv[2], JSON.stringify(p));' "$c.czk.public.json" "$c.bad.public.json"
  expect 1 "$c: czk rejects a wrong public input" -- "$czk" verify --vk "$c.vk.json" \
      --proof "$c.czk.proof.json" --public "$c.bad.public.json"
  if snarkjs groth16 verify "$c.vk.json" "$c.bad.public.json" "$c.czk.proof.json" 2>&1 | grep -q "OK"; then
    bad "$c: snarkjs accepted a wrong public input"
  else
    ok "$c: snarkjs rejects a wrong public input"
  fi
  # A tampered proof (A replaced by 2A, still a valid point) fails both.
  node -e '
    const fs = require("fs");
    const { bls12_381 } = require(process.argv[3] + "/@noble/curves/bls12-381.js");
    const p = JSON.parse(fs.readFileSync(process.argv[1]));
    const A = bls12_381.G1.Point.fromAffine({ x: BigInt(p.pi_a[0]), y: BigInt(p.pi_a[1]) }).double().toAffine();
    p.pi_a = [A.x.toString(), A.y.toString(), "1"];
    fs.writeFileSync(process.argv[2], JSON.stringify(p));' "$c.czk.proof.json" "$c.bad.proof.json" "$nm"
  expect 1 "$c: czk rejects a tampered proof" -- "$czk" verify --vk "$c.vk.json" \
      --proof "$c.bad.proof.json" --public "$c.czk.public.json"
  if snarkjs groth16 verify "$c.vk.json" "$c.czk.public.json" "$c.bad.proof.json" 2>&1 | grep -q "OK"; then
    bad "$c: snarkjs accepted a tampered proof"
  else
    ok "$c: snarkjs rejects a tampered proof"
  fi
  # Not-a-point garbage is bad input (exit 2), not a crash.
  echo '{"pi_a":["1","2","1"],"pi_b":[["1","0"],["1","0"],["1","0"]],"pi_c":["1","2","1"],"protocol":"groth16","curve":"bls12381"}' >"$c.garbage.proof.json"
  expect 2 "$c: czk reports a proof off the curve as bad input" -- "$czk" verify --vk "$c.vk.json" \
      --proof "$c.garbage.proof.json" --public "$c.czk.public.json"

  # The same circuit with czk's own bellperson-layout test parameters.
  expect 0 "$c: czk setup (bellperson layout)" -- "$czk" setup --r1cs "$c.r1cs" \
      --params "$c.params" --vk "$c.vk"
  expect 0 "$c: czk prove (params)" -- "$czk" prove --params "$c.params" --r1cs "$c.r1cs" \
      --wtns "$c.wtns" --proof "$c.proof.bin" --public "$c.bp.public.json"
  expect 0 "$c: czk verifies the bellperson proof" -- "$czk" verify --vk "$c.vk" \
      --proof "$c.proof.bin" --public "$c.bp.public.json"
  expect 1 "$c: bellperson proof with a wrong input fails" -- "$czk" verify --vk "$c.vk" \
      --proof "$c.proof.bin" --public "$c.bad.public.json"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
