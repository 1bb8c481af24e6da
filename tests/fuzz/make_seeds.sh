#!/usr/bin/env bash
# Writes valid inputs for the fuzz targets' corpora, made by czk's own tools.
# usage: make_seeds.sh CZK CZKD OUT_DIR
set -euo pipefail
czk=$1
czkd=$2
out=$3
mkdir -p "$out"
cd "$out"
"$czk" gen-circuit --kind power5 --constraints 8 --r1cs tiny.r1cs --wtns tiny.wtns >/dev/null
"$czk" setup --r1cs tiny.r1cs --zkey tiny.zkey >/dev/null 2>&1
"$czk" setup --r1cs tiny.r1cs --params tiny.params --vk tiny.vk >/dev/null 2>&1
# fuzz_params: the first byte picks the reader (0: .params file, 1: .vk bytes).
{ printf '\x00'; cat tiny.params; } > params.seed
{ printf '\x01'; cat tiny.vk; } > vk.seed
"$czk" fixture porep --registered-proof StackedDrg2KiBV1_1 --out c1.json >/dev/null
"$czk" fixture porep --registered-proof StackedDrg2KiBV1_1 --out c1.envelope.json --envelope 7 >/dev/null
"$czk" fixture wpost --registered-proof StackedDrgWindow2KiBV1_2 --out wpost.json >/dev/null
"$czk" fixture snap --registered-proof StackedDrg2KiBV1 --out snap.json >/dev/null 2>&1 || true
# fuzz_bincode: the first byte picks the parser (1: snap PartitionProof, 0: PoSt).
python3 - <<'PY'
import base64, json, os
for name, tag in (("wpost.json", b"\x00"), ("snap.json", b"\x01")):
    if not os.path.exists(name):
        continue
    for i, v in enumerate(json.load(open(name)).get("vanilla_proofs", [])[:2]):
        open(f"{name[:-5]}.{i}.seed", "wb").write(tag + base64.b64decode(v))
PY
"$czkd" --sample-config > czkd.conf
