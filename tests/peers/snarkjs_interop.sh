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
  # Binary public inputs whose first bytes are a tab and a '{' (the value 0x7b09 + ...) are
  # still binary: a wrong input (exit 1), not JSON that fails to parse (exit 2).
  n_pub=$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).length)' \
      "$c.bp.public.json")
  node -e 'const b = Buffer.alloc(32 * +process.argv[2]); b[0] = 9; b[1] = 0x7b; b[2] = 0x22;
    require("fs").writeFileSync(process.argv[1], b);' "$c.tab.public.bin" "$n_pub"
  expect 1 "$c: binary public inputs starting with a tab and a brace are read as binary" -- \
      "$czk" verify --vk "$c.vk" --proof "$c.proof.bin" --public "$c.tab.public.bin"
done

# czk's test-only zkey writer (`czk setup --zkey`, used by bench/bench_prove.sh where
# snarkjs's own setup would take hours): snarkjs must prove and verify with its keys,
# export the same verification key, and accept czk's proofs made with them.
# zkey_section FILE ID: the SHA-256 of one section, for comparing two zkeys.
zkey_section() {
  node -e '
    const b = require("fs").readFileSync(process.argv[1]); const want = +process.argv[2];
    let off = 12;
    for (let i = 0; i < b.readUInt32LE(8); i++) {
      const id = b.readUInt32LE(off), size = Number(b.readBigUInt64LE(off + 4)); off += 12;
      if (id === want) {
        /* A digest, not the bytes: node drops unflushed pipe output on process.exit. */
        const h = require("crypto").createHash("sha256").update(b.subarray(off, off + size));
        console.log(h.digest("hex"));
        return;
      }
      off += size;
    }
    process.exitCode = 1;' "$1" "$2"
}
# zkey_section_head FILE: the counts at the start of the Groth16 header (section 2: the
# field sizes and moduli, nVars, nPublic, domainSize), before the key's points.
zkey_section_head() {
  node -e '
    const b = require("fs").readFileSync(process.argv[1]);
    let off = 12, found = false;
    for (let i = 0; i < b.readUInt32LE(8) && !found; i++) {
      const id = b.readUInt32LE(off), size = Number(b.readBigUInt64LE(off + 4)); off += 12;
      if (id === 2) { console.log(b.subarray(off, off + 100).toString("hex")); found = true; }
      off += size;
    }
    if (!found) process.exitCode = 1;' "$1"
}
# vk_matches OURS EXPORTED: every field czk writes equals snarkjs's export (czk's writer
# leaves out vk_alphabeta_12, which the verifier does not read).
vk_matches() {
  node -e '
    const fs = require("fs");
    const a = JSON.parse(fs.readFileSync(process.argv[1])), b = JSON.parse(fs.readFileSync(process.argv[2]));
    const extra = Object.keys(b).filter((k) => !(k in a));
    const diff = Object.keys(a).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
    if (diff.length || extra.join() !== "vk_alphabeta_12") { console.log("differ:", diff, "missing:", extra); process.exit(1); }' "$1" "$2"
}
zkey_checks() { # zkey_checks NAME: NAME.r1cs and NAME.wtns exist
  local c=$1
  expect 0 "$c: czk setup --zkey (test-only snarkjs layout)" -- "$czk" setup --r1cs "$c.r1cs" \
      --zkey "$c.t.zkey" --vk-json "$c.t.vk.json"
  snarkjs zkey export verificationkey "$c.t.zkey" "$c.t.exported.vk.json" >/dev/null
  expect 0 "$c: snarkjs's exported vk equals czk's vk json" -- vk_matches "$c.t.vk.json" "$c.t.exported.vk.json"
  expect 0 "$c: snarkjs proves with czk's zkey" -- snarkjs groth16 prove "$c.t.zkey" "$c.wtns" \
      "$c.t.sj.proof.json" "$c.t.sj.public.json"
  if snarkjs groth16 verify "$c.t.vk.json" "$c.t.sj.public.json" "$c.t.sj.proof.json" 2>&1 | grep -q "OK"; then
    ok "$c: snarkjs verifies its proof with czk's zkey and vk"
  else
    bad "$c: snarkjs rejects its own proof made with czk's zkey"
  fi
  expect 0 "$c: czk proves with czk's zkey" -- "$czk" prove --zkey "$c.t.zkey" --wtns "$c.wtns" \
      --proof "$c.t.czk.proof.json" --public "$c.t.czk.public.json"
  if snarkjs groth16 verify "$c.t.vk.json" "$c.t.czk.public.json" "$c.t.czk.proof.json" 2>&1 | grep -q "OK"; then
    ok "$c: snarkjs verifies czk's proof with czk's zkey"
  else
    bad "$c: snarkjs rejects czk's proof made with czk's zkey"
  fi
  # The keys are fresh: the proof must not verify under any other key.
  if [ -f "$c.vk.json" ]; then
    if snarkjs groth16 verify "$c.vk.json" "$c.t.czk.public.json" "$c.t.czk.proof.json" 2>&1 | grep -q "OK"; then
      bad "$c: a proof for czk's zkey verified under the ceremony's key"
    else
      ok "$c: a proof for czk's zkey fails under the ceremony's key"
    fi
  fi
}
for c in bits poseidon_chain; do
  zkey_checks "$c"
  # Header counts and the coefficient section must equal snarkjs's `groth16 setup` output
  # byte for byte (the points differ: other toxic waste).
  # (Both sides must be non-empty: a reader that fails prints nothing on either side.)
  h_czk=$(zkey_section_head "$c.t.zkey") h_sj=$(zkey_section_head "${c}_0.zkey")
  s_czk=$(zkey_section "$c.t.zkey" 4) s_sj=$(zkey_section "${c}_0.zkey" 4)
  if [ -n "$h_czk" ] && [ -n "$s_czk" ] && [ "$s_czk" = "$s_sj" ] && [ "$h_czk" = "$h_sj" ]; then
    ok "$c: zkey header counts and coefficients identical to snarkjs's setup"
  else
    bad "$c: zkey header counts or coefficients differ from snarkjs's setup"
  fi
done
# The generated power-5 chain (the 2^20 benchmark circuit, here at 2^10).
expect 0 "power5: czk gen-circuit" -- "$czk" gen-circuit --kind power5 --constraints 1022 \
    --r1cs power5.r1cs --wtns power5.wtns
if snarkjs wtns check power5.r1cs power5.wtns 2>&1 | grep -q "WITNESS IS CORRECT"; then
  ok "power5: snarkjs wtns check accepts the generated witness"
else
  bad "power5: snarkjs wtns check rejects the generated witness"
fi
zkey_checks power5

# circomlib's SHA-256 (59,793 constraints, domain 2^16): the bit-heavy circuit. A real
# ceremony at 2^16 takes hours, so the keys come from czk's test-only zkey writer (checked
# against snarkjs's own setup above); snarkjs computes the witness and verifies.
c=sha256
node "$nm/circom2/cli.js" "$circuits/$c.circom" --prime bls12381 --r1cs --wasm --O2 -l inc -o . >/dev/null
snarkjs wtns calculate "${c}_js/$c.wasm" "$circuits/$c.input.json" "$c.wtns" >/dev/null
zkey_checks "$c"
# The public outputs are the digest of the input bytes, as node's own SHA-256 says.
if node -e '
    const fs = require("fs"), crypto = require("crypto");
    const inp = JSON.parse(fs.readFileSync(process.argv[1])).in.map(Number);
    const d = crypto.createHash("sha256").update(Buffer.from(inp)).digest("hex");
    const want = [BigInt("0x" + d.slice(0, 32)).toString(), BigInt("0x" + d.slice(32)).toString()];
    const got = JSON.parse(fs.readFileSync(process.argv[2]));
    process.exit(JSON.stringify(got) === JSON.stringify(want) ? 0 : 1);' \
    "$circuits/$c.input.json" "$c.t.czk.public.json"; then
  ok "$c: public outputs equal node's SHA-256 of the input"
else
  bad "$c: public outputs differ from node's SHA-256 of the input"
fi
expect 0 "$c: czk verifies snarkjs's proof" -- "$czk" verify --vk "$c.t.vk.json" \
    --proof "$c.t.sj.proof.json" --public "$c.t.sj.public.json"
node -e '
  const fs = require("fs"); const p = JSON.parse(fs.readFileSync(process.argv[1]));
  p[0] = (BigInt(p[0]) ^ 1n).toString(); fs.writeFileSync(process.argv[2], JSON.stringify(p));' \
  "$c.t.czk.public.json" "$c.bad.public.json"
expect 1 "$c: czk rejects a wrong digest" -- "$czk" verify --vk "$c.t.vk.json" \
    --proof "$c.t.czk.proof.json" --public "$c.bad.public.json"
if snarkjs groth16 verify "$c.t.vk.json" "$c.bad.public.json" "$c.t.czk.proof.json" 2>&1 | grep -q "OK"; then
  bad "$c: snarkjs accepted a wrong digest"
else
  ok "$c: snarkjs rejects a wrong digest"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
