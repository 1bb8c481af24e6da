// What the czkd end-to-end scripts share: checks and their tally, czkd started from a
// configuration and stopped by signal, @grpc/grpc-js clients of cuzk.v1, czk.v1 and
// health (proto-loader with keepCase), raw calls for bytes that are not a valid message
// of the schema, circom test circuits made by czk's own tools and proofs checked with
// snarkjs (points decoded by @noble/curves).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import * as snarkjs from 'snarkjs';

export { grpc };

export const tally = { passed: 0, failed: 0 };
export function check(cond, what, extra) {
    if (cond) { tally.passed++; console.log(`ok   ${what}`); }
    else { tally.failed++; console.log(`FAIL ${what}${extra !== undefined ? ': ' + JSON.stringify(extra) : ''}`); }
}
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const t0 = Date.now();
export const log = (m) => console.log(`# [${((Date.now() - t0) / 1000).toFixed(1)}s] ${m}`);

export function run(cmd, args, opts = {}) {
    const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20, ...opts });
    return { code: r.status, out: r.stdout || '', err: r.stderr || '' };
}

// A power5 circuit of `constraints` rows with its zkey in `params`, the snarkjs vk, the
// witness and its public signals; cached in `work` between runs.
export function makeCircuit(czk, work, params, name, constraints) {
    const r1cs = path.join(work, `${name}.r1cs`), wtns = path.join(work, `${name}.wtns`);
    const zkey = path.join(params, `${name}.zkey`), vk = path.join(work, `${name}.vk.json`);
    const pub = path.join(work, `${name}.public.json`);
    if (!existsSync(zkey) || !existsSync(vk) || !existsSync(wtns) || !existsSync(pub)) {
        let r = run(czk, ['gen-circuit', '--kind', 'power5', '--constraints', String(constraints), '--r1cs', r1cs, '--wtns', wtns]);
        if (r.code !== 0) throw new Error(`gen-circuit: ${r.err}`);
        r = run(czk, ['setup', '--r1cs', r1cs, '--zkey', zkey, '--vk-json', vk]);
        if (r.code !== 0) throw new Error(`setup: ${r.err}`);
        r = run(czk, ['prove', '--zkey', zkey, '--wtns', wtns, '--proof', path.join(work, `${name}.proof.json`), '--public', pub]);
        if (r.code !== 0) throw new Error(`prove: ${r.err}`);
    }
    return { name, wtns, wtnsBytes: readFileSync(wtns), vk: JSON.parse(readFileSync(vk)), pub: JSON.parse(readFileSync(pub)) };
}

// A 192-byte proof (zcash-compressed A, B, C) as snarkjs JSON.
function proofToSnarkjs(bytes) {
    const b = Buffer.from(bytes);
    if (b.length !== 192) return null;
    const A = bls12_381.G1.Point.fromHex(b.subarray(0, 48).toString('hex')).toAffine();
    const B = bls12_381.G2.Point.fromHex(b.subarray(48, 144).toString('hex')).toAffine();
    const C = bls12_381.G1.Point.fromHex(b.subarray(144, 192).toString('hex')).toAffine();
    return {
        protocol: 'groth16', curve: 'bls12381',
        pi_a: [A.x.toString(), A.y.toString(), '1'],
        pi_b: [[B.x.c0.toString(), B.x.c1.toString()], [B.y.c0.toString(), B.y.c1.toString()], ['1', '0']],
        pi_c: [C.x.toString(), C.y.toString(), '1'],
    };
}
export async function verifies(circuit, proofBytes) {
    try {
        const p = proofToSnarkjs(proofBytes);
        return p !== null && (await snarkjs.groth16.verify(circuit.vk, circuit.pub, p, { info() {}, debug() {}, warn() {}, error() {} }));
    } catch (e) {
        return false;
    }
}

// czkd from an INI text; `ready` resolves once it listens. The log is kept in memory and
// written to `logFile` when it exits.
export async function startDaemon(czkd, work, conf, { tag = 'czkd', extra = [] } = {}) {
    const ready = path.join(work, `${tag}.ready.json`);
    rmSync(ready, { force: true });
    const confFile = path.join(work, `${tag}.conf`);
    writeFileSync(confFile, conf.replace('@READY@', ready));
    const logFile = path.join(work, `${tag}.log`);
    const proc = spawn(czkd, ['--config', confFile, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { out += d; });
    const exited = new Promise((res) => proc.on('exit', (code, signal) => {
        writeFileSync(logFile, out);
        res({ code, signal, at: Date.now() });
    }));
    for (let i = 0; i < 600 && !existsSync(ready) && proc.exitCode === null; i++) await sleep(50);
    if (!existsSync(ready)) throw new Error(`czkd did not start:\n${out}`);
    const info = JSON.parse(readFileSync(ready, 'utf8'));
    return { proc, exited, info, log: () => out, alive: () => proc.exitCode === null && proc.signalCode === null };
}

export function loadPackages(protoDir, grpcProtoDir) {
    const opts = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true,
                   includeDirs: [protoDir, grpcProtoDir] };
    return grpc.loadPackageDefinition(protoLoader.loadSync(
        ['cuzk/v1/proving.proto', 'czk/v1/czk.proto', 'grpc/health/v1/health.proto'], opts));
}

const chanOpts = { 'grpc.max_receive_message_length': 256 << 20, 'grpc.max_send_message_length': 256 << 20 };

export function clients(pkg, addr) {
    const mk = (Svc) => new Svc(addr, grpc.credentials.createInsecure(), chanOpts);
    const c = { cuzk: mk(pkg.cuzk.v1.ProvingEngine), czk: mk(pkg.czk.v1.Czk), health: mk(pkg.grpc.health.v1.Health), addr };
    c.close = () => { for (const k of ['cuzk', 'czk', 'health']) c[k].close(); };
    return c;
}

export function call(client, method, req, { deadlineMs } = {}) {
    return new Promise((resolve) => {
        const opts = deadlineMs ? { deadline: new Date(Date.now() + deadlineMs) } : {};
        client[method](req, new grpc.Metadata(), opts, (err, res) => resolve({ err, res }));
    });
}

// A unary call with the request's bytes as given (the schema could not encode them).
export function rawCall(addr, method, bytes) {
    return new Promise((resolve) => {
        const c = new grpc.Client(addr, grpc.credentials.createInsecure(), chanOpts);
        c.makeUnaryRequest(method, (x) => x, (x) => x, bytes, new grpc.Metadata(), { deadline: new Date(Date.now() + 30000) },
                           (err, res) => { c.close(); resolve({ err, res }); });
    });
}

export const codeName = (c) => Object.keys(grpc.status).find((k) => grpc.status[k] === c);
export function expectCode(r, code, what, msgPart) {
    const got = r.err ? r.err.code : grpc.status.OK;
    const parts = msgPart === undefined ? [] : [].concat(msgPart);
    const okMsg = parts.every((p) => r.err && r.err.details.includes(p));
    check(got === code && okMsg, what, r.err ? `${codeName(got)}: ${r.err.details}` : 'OK');
}

// Protobuf wire encoding, for requests the schema cannot express (a string field holding
// bytes that are not UTF-8).
export function varint(n) {
    const out = [];
    let v = BigInt(n);
    do {
        let b = Number(v & 0x7fn);
        v >>= 7n;
        if (v) b |= 0x80;
        out.push(b);
    } while (v);
    return Buffer.from(out);
}
export const fieldBytes = (num, bytes) => Buffer.concat([varint((num << 3) | 2), varint(bytes.length), Buffer.from(bytes)]);
export const fieldVarint = (num, v) => Buffer.concat([varint(num << 3), varint(v)]);

// Wait until pred(job) holds for the job's czk.v1 snapshot, or ms pass.
export async function waitJob(c, jobId, pred, ms = 60000) {
    const end = Date.now() + ms;
    for (;;) {
        const g = await call(c.czk, 'GetJob', { job_id: jobId });
        if (g.res && pred(g.res)) return g.res;
        if (Date.now() > end) return g.res || null;
        await sleep(25);
    }
}

export function metric(text, name) {
    const m = text.match(new RegExp(`^${name.replace(/[{}"=,]/g, (x) => '\\' + x)} (\\S+)$`, 'm'));
    return m ? Number(m[1]) : NaN;
}
export async function scrape(daemon) {
    const r = await fetch(`http://127.0.0.1:${daemon.info.metrics_port}/metrics`);
    return r.text();
}
