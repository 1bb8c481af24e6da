// End-to-end test of czkd through independent gRPC clients: @grpc/grpc-js with
// @grpc/proto-loader (keepCase!) against cuzk.v1, czk.v1, grpc.health.v1 and server
// reflection; proofs are checked with snarkjs (the circuits' verification keys come from
// `czk setup --vk-json`, the proofs' points are decoded by @noble/curves); and the same
// again through the `czk` client. Circuits are made by czk's own tools (gen-circuit,
// setup --zkey).
//
// usage: node grpc_e2e.mjs CZKD CZK PROTO_DIR GRPC_PROTO_DIR WORK_DIR [circom|filecoin]
// The filecoin mode (tests/slow) proves a WindowPoSt 2 KiB partition from
// `czk fixture wpost` with parameters from `czk setup --circuit wpost-2k`, through cuzk's
// API (what Curio sends) and through `czk run-job --fixture`.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { check, log, run, sleep, tally } from './czkd_harness.mjs';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import * as snarkjs from 'snarkjs';

const require = createRequire(import.meta.url);
const descriptor = require('protobufjs/ext/descriptor');

const [czkd, czk, protoDir, grpcProtoDir, work, mode = 'circom'] = process.argv.slice(2);
if (!work) {
    console.error('usage: node grpc_e2e.mjs CZKD CZK PROTO_DIR GRPC_PROTO_DIR WORK_DIR');
    process.exit(2);
}
mkdirSync(work, { recursive: true });
const params = path.join(work, 'params');
mkdirSync(params, { recursive: true });


// ---------------------------------------------------------------------------------------
// Circuits: made by czk itself, cached in the work directory between runs.
// ---------------------------------------------------------------------------------------
function makeCircuit(name, constraints) {
    const r1cs = path.join(work, `${name}.r1cs`), wtns = path.join(work, `${name}.wtns`);
    const zkey = path.join(params, `${name}.zkey`), vk = path.join(work, `${name}.vk.json`);
    if (!existsSync(zkey) || !existsSync(vk) || !existsSync(wtns)) {
        let r = run(czk, ['gen-circuit', '--kind', 'power5', '--constraints', String(constraints), '--r1cs', r1cs, '--wtns', wtns]);
        if (r.code !== 0) throw new Error(`gen-circuit: ${r.err}`);
        r = run(czk, ['setup', '--r1cs', r1cs, '--zkey', zkey, '--vk-json', vk]);
        if (r.code !== 0) throw new Error(`setup: ${r.err}`);
    }
    const pub = path.join(work, `${name}.public.json`);
    if (!existsSync(pub)) {
        // The public signals, from czk's offline prover (snarkjs checks them with the proof).
        const r = run(czk, ['prove', '--zkey', zkey, '--wtns', wtns, '--proof', path.join(work, `${name}.proof.json`), '--public', pub]);
        if (r.code !== 0) throw new Error(`prove: ${r.err}`);
    }
    return { name, wtns, wtnsBytes: readFileSync(wtns), vk: JSON.parse(readFileSync(vk)), pub: JSON.parse(readFileSync(pub)) };
}
log('making circuits');
const small = mode === 'circom' ? makeCircuit('small', 64) : null;
const mid = mode === 'circom' ? makeCircuit('mid', 2048) : null;
// Slow enough (about 1 s per proof on 2 cores) that deadlines and cancels reliably land
// while its jobs are still queued or running, however quiet the machine is.
const big = mode === 'circom' ? makeCircuit('big', 65536) : null;

// A 192-byte proof (zcash-compressed A, B, C) as snarkjs JSON, decoded by @noble/curves.
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
async function verifies(circuit, proofBytes) {
    try {
        const p = proofToSnarkjs(proofBytes);
        return p !== null && (await snarkjs.groth16.verify(circuit.vk, circuit.pub, p, { info() {}, debug() {}, warn() {}, error() {} }));
    } catch (e) {
        return false;
    }
}

// ---------------------------------------------------------------------------------------
// The daemon
// ---------------------------------------------------------------------------------------
const sock = path.join(work, 'czkd.sock');
const addr = `unix:${sock}`;
const TOKEN = 'e2e-secret-token';
let daemon = null;
let daemonRuns = 0;

async function startDaemon({ listen = addr, token = TOKEN, extra = [] } = {}) {
    const ready = path.join(work, 'ready.json');
    rmSync(ready, { force: true });
    const conf = path.join(work, 'czkd.conf');
    writeFileSync(conf, [
        '[daemon]', `listen = ${listen}`, 'metrics_listen = 127.0.0.1:0', `data_dir = ${path.join(work, 'data')}`,
        `param_dir = ${params}`, `ready_file = ${ready}`, 'max_message_size = 4MiB', 'drain_grace = 20s',
        `auth_token = ${token}`, 'unix_socket_mode = 0600',
        // Filecoin parameters may be made in memory: the bad-input cases below reach the
        // payload checks (a missing parameter file is refused before the payload is read).
        '[params]', 'test_generate = true',
        '[gpus]', 'mode = cpu', '[logging]', 'level = debug', '',
    ].join('\n'));
    const logFile = path.join(work, `czkd-${++daemonRuns}.log`);
    const proc = spawn(czkd, ['--config', conf, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { out += d; });
    const exited = new Promise((res) => proc.on('exit', (code, signal) => { writeFileSync(logFile, out); res({ code, signal }); }));
    for (let i = 0; i < 300 && !existsSync(ready); i++) await sleep(50);
    if (!existsSync(ready)) throw new Error(`czkd did not start:\n${out}`);
    const info = JSON.parse(readFileSync(ready, 'utf8'));
    daemon = { proc, exited, info, log: () => out };
    return daemon;
}

// ---------------------------------------------------------------------------------------
// gRPC clients
// ---------------------------------------------------------------------------------------
const loadOpts = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true,
                   includeDirs: [protoDir, grpcProtoDir] };
const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(
    ['cuzk/v1/proving.proto', 'czk/v1/czk.proto', 'grpc/health/v1/health.proto',
     'grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'], loadOpts));
const chanOpts = { 'grpc.max_receive_message_length': 64 << 20, 'grpc.max_send_message_length': 64 << 20 };
const mk = (Svc) => new Svc(addr, grpc.credentials.createInsecure(), chanOpts);
let cuzkC, czkC, healthC, reflV1, reflV1a;
function connect() {
    cuzkC = mk(pkg.cuzk.v1.ProvingEngine);
    czkC = mk(pkg.czk.v1.Czk);
    healthC = mk(pkg.grpc.health.v1.Health);
    reflV1 = mk(pkg.grpc.reflection.v1.ServerReflection);
    reflV1a = mk(pkg.grpc.reflection.v1alpha.ServerReflection);
}
function closeClients() { for (const c of [cuzkC, czkC, healthC, reflV1, reflV1a]) c?.close(); }
function authMd(token = TOKEN) {
    const md = new grpc.Metadata();
    if (token) md.set('authorization', `Bearer ${token}`);
    return md;
}
function call(client, method, req, { deadlineMs, token } = {}) {
    return new Promise((resolve) => {
        const opts = deadlineMs ? { deadline: new Date(Date.now() + deadlineMs) } : {};
        client[method](req, authMd(token), opts, (err, res) => resolve({ err, res }));
    });
}
const codeName = (c) => Object.keys(grpc.status).find((k) => grpc.status[k] === c);
function expectCode(r, code, what, msgPart) {
    const got = r.err ? r.err.code : grpc.status.OK;
    const okMsg = !msgPart || (r.err && r.err.details.includes(msgPart));
    check(got === code && okMsg, what, r.err ? `${codeName(got)}: ${r.err.details}` : 'OK');
}
async function serving() {
    const r = await call(healthC, 'Check', { service: '' }, { token: '' });
    return r.res ? r.res.status : `error ${r.err?.code}`;
}
// A Health/Watch stream without a token: statuses as they arrive, and `done` resolving to
// the stream's end (null for a clean end, else the error).
function healthWatch(service) {
    const st = healthC.Watch({ service }, authMd(''));
    const w = { statuses: [], st, waiters: [] };
    st.on('data', (m) => { w.statuses.push(m.status); for (const f of w.waiters.splice(0)) f(); });
    w.done = new Promise((resolve) => {
        st.on('error', (err) => { w.ended = true; resolve(err); for (const f of w.waiters.splice(0)) f(); });
        st.on('end', () => { w.ended = true; resolve(null); for (const f of w.waiters.splice(0)) f(); });
    });
    // Resolves once `pred(statuses)` holds, the stream ends, or `ms` pass.
    w.until = (pred, ms = 5000) => new Promise((resolve) => {
        const t = setTimeout(() => resolve(false), ms);
        const probe = () => {
            if (pred(w.statuses)) { clearTimeout(t); resolve(true); } else if (w.ended) { clearTimeout(t); resolve(false); } else w.waiters.push(probe);
        };
        probe();
    });
    return w;
}
function reflect(client, req) {
    return new Promise((resolve, reject) => {
        const s = client.ServerReflectionInfo(authMd());
        const out = [];
        s.on('data', (d) => out.push(d));
        s.on('error', reject);
        s.on('end', () => resolve(out));
        for (const q of [].concat(req)) s.write(q);
        s.end();
    });
}
function watch(jobId, { deadlineMs = 60000 } = {}) {
    return new Promise((resolve) => {
        const s = czkC.WatchJob({ job_id: jobId }, authMd(), { deadline: new Date(Date.now() + deadlineMs) });
        const evs = [];
        s.on('data', (e) => evs.push(e));
        s.on('error', (err) => resolve({ evs, err }));
        s.on('end', () => resolve({ evs, err: null }));
    });
}
const circomReq = (c, extra = {}) => ({ kind: 'CIRCOM', circuit: c.name, witness: c.wtnsBytes, ...extra });

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------
async function testHealthReflection() {
    log('health and reflection');
    check(await serving() === 'SERVING', 'health: SERVING without a token');
    check((statSync(sock).mode & 0o777) === 0o600, 'unix socket has daemon.unix_socket_mode (0600 here)', (statSync(sock).mode & 0o777).toString(8));
    expectCode(await call(healthC, 'Check', { service: 'czk.v1.Czk' }, { token: '' }), grpc.status.OK, 'health: czk.v1.Czk known');
    expectCode(await call(healthC, 'Check', { service: 'no.such.Service' }, { token: '' }), grpc.status.NOT_FOUND, 'health: unknown service is NOT_FOUND');
    {
        const wAll = healthWatch(''), wCzk = healthWatch('czk.v1.Czk'), wNo = healthWatch('no.such.Service');
        check(await wAll.until((s) => s.length >= 1) && wAll.statuses[0] === 'SERVING', 'health Watch "": SERVING first, without a token', wAll.statuses);
        check(await wCzk.until((s) => s.length >= 1) && wCzk.statuses[0] === 'SERVING', 'health Watch czk.v1.Czk: SERVING first', wCzk.statuses);
        check(await wNo.until((s) => s.length >= 1) && wNo.statuses[0] === 'SERVICE_UNKNOWN', 'health Watch unknown service: SERVICE_UNKNOWN', wNo.statuses);
        await sleep(600); // more than two polls: no repeated message while nothing changes
        check(!wAll.ended && !wNo.ended && wAll.statuses.length === 1 && wNo.statuses.length === 1,
              'health Watch: streams stay open, one message while the status holds', [wAll.statuses, wNo.statuses, wAll.ended, wNo.ended]);
        for (const w of [wAll, wCzk, wNo]) w.st.cancel();
        const ends = await Promise.all([wAll.done, wCzk.done, wNo.done]);
        check(ends.every((e) => e?.code === grpc.status.CANCELLED), 'health Watch: client cancel ends the streams', ends.map((e) => e?.code));
    }
    for (const [name, cl] of [['v1', reflV1], ['v1alpha', reflV1a]]) {
        const [ls] = await reflect(cl, { list_services: '' });
        const names = (ls.list_services_response?.service || []).map((s) => s.name);
        check(names.includes('cuzk.v1.ProvingEngine') && names.includes('czk.v1.Czk') && names.includes('grpc.health.v1.Health'),
              `reflection ${name}: list_services`, names);
        const [fs] = await reflect(cl, { file_containing_symbol: 'czk.v1.Czk' });
        const files = (fs.file_descriptor_response?.file_descriptor_proto || []).map((b) => descriptor.FileDescriptorProto.decode(b));
        check(files.length === 2 && files[0].name === 'czk/v1/czk.proto' && files[1].name === 'cuzk/v1/proving.proto' &&
              files[0].service[0].method.some((m) => m.name === 'WatchJob' && m.serverStreaming),
              `reflection ${name}: czk.v1.Czk → czk.proto plus its import only`, files.map((f) => f.name));
        const [fm] = await reflect(cl, { file_containing_symbol: 'cuzk.v1.SubmitProofRequest.vanilla_proof' });
        const f2 = (fm.file_descriptor_response?.file_descriptor_proto || []).map((b) => descriptor.FileDescriptorProto.decode(b).name);
        check(f2.length === 1 && f2[0] === 'cuzk/v1/proving.proto', `reflection ${name}: a field's symbol`, f2);
        const [fh] = await reflect(cl, { file_by_filename: 'grpc/health/v1/health.proto' });
        check(fh.file_descriptor_response?.file_descriptor_proto?.length === 1, `reflection ${name}: file_by_filename`);
        const [nf] = await reflect(cl, { file_containing_symbol: 'no.such.Symbol' });
        check(nf.error_response?.error_code === 5, `reflection ${name}: unknown symbol → NOT_FOUND error`, nf.error_response);
    }
    // Several requests on one stream, answered in order.
    const many = await reflect(reflV1, [{ list_services: '' }, { file_containing_symbol: 'cuzk.v1.ProvingEngine' }]);
    check(many.length === 2 && many[1].file_descriptor_response, 'reflection: two requests on one stream');
}

async function testAuthAndUnknown() {
    log('auth, unknown method');
    expectCode(await call(czkC, 'GetStatus', {}, { token: '' }), grpc.status.UNAUTHENTICATED, 'no token → UNAUTHENTICATED');
    expectCode(await call(czkC, 'GetStatus', {}, { token: 'wrong' }), grpc.status.UNAUTHENTICATED, 'wrong token → UNAUTHENTICATED');
    const r = await new Promise((resolve) => {
        const c = new grpc.Client(addr, grpc.credentials.createInsecure());
        c.makeUnaryRequest('/czk.v1.Czk/NoSuchMethod', (x) => x, (x) => x, Buffer.alloc(0), authMd(),
                           { deadline: new Date(Date.now() + 5000) }, (err, res) => { c.close(); resolve({ err, res }); });
    });
    expectCode(r, grpc.status.UNIMPLEMENTED, 'unknown method → UNIMPLEMENTED (not a hang)', 'NoSuchMethod');
}

async function testCzkApi() {
    log('czk.v1: submit, await, prove, get, list, watch, timeouts, cancel');
    const s = await call(czkC, 'Submit', circomReq(small));
    check(s.res?.job?.job_id?.startsWith('j-'), 'Submit: job id', s.err?.details);
    const id = s.res?.job?.job_id;
    const a = await call(czkC, 'Await', { job_id: id, timeout_ms: 30000 });
    check(a.res?.job?.state === 'DONE' && a.res.job.proof.length === 192, 'Await: DONE with a 192-byte proof', a.err?.details || a.res?.job?.state);
    check(a.res && await verifies(small, a.res.job.proof), 'Await: snarkjs verifies the proof');
    const t = a.res?.job?.timings;
    check(t && t.total_ms >= t.gpu_compute_ms && t.total_ms > 0, 'Await: per-stage timings', t);
    // The same job through cuzk's API.
    const ca = await call(cuzkC, 'AwaitProof', { job_id: id, timeout_ms: 0 });
    check(ca.res?.status === 'COMPLETED' && ca.res.proof.length === 192 && ca.res.job_id === id, 'cuzk AwaitProof on a czk job: COMPLETED', ca.err?.details);
    const p = await call(czkC, 'Prove', { submit: circomReq(small), timeout_ms: 30000 });
    check(p.res?.job?.state === 'DONE' && await verifies(small, p.res.job.proof), 'Prove: DONE, snarkjs verifies', p.err?.details);
    const g = await call(czkC, 'GetJob', { job_id: id, with_proof: true });
    check(g.res?.job_id === id && g.res.proof.length === 192 && g.res.kind === 'CIRCOM' && g.res.circuit_id === 'circom:small', 'GetJob', g.err?.details || g.res);
    const l = await call(czkC, 'ListJobs', { states: ['DONE'], limit: 0 });
    check(l.res?.jobs?.some((j) => j.job_id === id) && l.res.jobs.every((j) => j.state === 'DONE'), 'ListJobs: by state');
    expectCode(await call(czkC, 'GetJob', { job_id: 'j-00000000000000000000000000000000' }), grpc.status.NOT_FOUND, 'GetJob: unknown id → NOT_FOUND', 'j-0000');
    expectCode(await call(czkC, 'Await', { job_id: 'j-nope' }), grpc.status.NOT_FOUND, 'Await: unknown id → NOT_FOUND');
    expectCode(await call(czkC, 'Cancel', { job_id: 'j-nope' }), grpc.status.NOT_FOUND, 'Cancel: unknown id → NOT_FOUND');

    // Watch a job from submission to the end: ordered events, terminal last, stream ends OK.
    const w0 = await call(czkC, 'Submit', circomReq(mid));
    const wid = w0.res?.job?.job_id;
    const w = await watch(wid);
    const types = w.evs.map((e) => e.type);
    check(!w.err && types[0] === 'queued' && types.at(-1) === 'done' && types.includes('gpu_start') && types.includes('verified') &&
          w.evs.every((e, i) => i === 0 || e.unix_us >= w.evs[i - 1].unix_us), 'WatchJob: queued … done, in time order', types);
    // Watching a finished job replays its events and ends.
    const w2 = await watch(wid);
    check(!w2.err && w2.evs.length === w.evs.length, 'WatchJob: a finished job replays and ends', [w2.evs.length, w.evs.length]);
    const wn = await watch('j-nope');
    check(wn.err?.code === grpc.status.NOT_FOUND, 'WatchJob: unknown id → NOT_FOUND');

    // Await with timeout_ms on a job that cannot finish in time; then the gRPC deadline.
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push((await call(czkC, 'Submit', circomReq(big, { priority: 'LOW' }))).res?.job?.job_id);
    const last = jobs[2];
    const to = await call(czkC, 'Await', { job_id: last, timeout_ms: 100 });
    check(to.res?.timed_out === true && ['QUEUED', 'RUNNING'].includes(to.res.job.state), 'Await timeout_ms: timed_out with a snapshot', to.err?.details || to.res);
    const dl = await call(czkC, 'Await', { job_id: last }, { deadlineMs: 150 });
    expectCode(dl, grpc.status.DEADLINE_EXCEEDED, 'Await: the call deadline → DEADLINE_EXCEEDED');
    // The engine counts a job as running from its first partition's synthesis, so the
    // expected was_running comes from the state just before the cancel.
    const before = (await call(czkC, 'GetJob', { job_id: last })).res?.state;
    const ct = await call(czkC, 'Cancel', { job_id: last });
    check(ct.res && (before !== 'QUEUED' || ct.res.was_running === false), `Cancel a ${before} job: was_running matches`, ct.err?.details || ct.res);
    const ac = await call(czkC, 'Await', { job_id: last, timeout_ms: 5000 });
    check(ac.res?.job?.state === 'CANCELLED', 'Await a cancelled job: CANCELLED', ac.err?.details || ac.res?.job?.state);
    const cc = await call(cuzkC, 'AwaitProof', { job_id: last });
    check(cc.res?.status === 'CANCELLED', 'cuzk AwaitProof: CANCELLED', cc.res?.status);
    // Awaits pending when cancelled from elsewhere complete (from the engine's callback).
    const pend = call(cuzkC, 'AwaitProof', { job_id: jobs[1] });
    await sleep(50);
    await call(cuzkC, 'CancelProof', { job_id: jobs[1] });
    const pr = await pend;
    check(pr.res?.status === 'CANCELLED' || pr.res?.status === 'COMPLETED', 'pending AwaitProof completes on cancel', pr.err?.details || pr.res?.status);
    await call(czkC, 'Await', { job_id: jobs[0], timeout_ms: 60000 });
}

async function testCuzkApiAndErrors() {
    log('cuzk.v1 and bad input');
    const st = await call(cuzkC, 'GetStatus', {});
    check(st.res && st.res.queues.length === 4 && !st.res.queues.some((q) => q.proof_kind === 'circom') &&
          !st.res.loaded_srs.some((x) => x.circuit_id.startsWith('circom:')) && st.res.total_proofs_completed >= 2,
          'cuzk GetStatus: the four Filecoin queues, no circom', st.err?.details || st.res);
    const cs = await call(czkC, 'GetStatus', {});
    check(cs.res?.ready === true && cs.res.backend === 'cpu' && cs.res.engine?.queues.length === 5 &&
          cs.res.engine.loaded_srs.some((x) => x.circuit_id === 'circom:small' && x.tier === 'HOT'),
          'czk GetStatus: ready, cpu, the circom queue and a loaded set HOT', cs.err?.details);
    const m = await call(cuzkC, 'GetMetrics', {});
    check(m.res?.prometheus_text.includes('grpc_server_handled_total{grpc_service="czk.v1.Czk",grpc_method="Submit",grpc_type="unary",grpc_code="OK"}') &&
          m.res.prometheus_text.includes('process_cpu_seconds_total'), 'GetMetrics: engine + gRPC + process metrics');
    const pl = await call(cuzkC, 'PreloadSRS', { circuit_id: 'circom:small' });
    check(pl.res && typeof pl.res.already_loaded === 'boolean', 'PreloadSRS circom:small', pl.err?.details);
    const ev = await call(cuzkC, 'EvictSRS', { circuit_id: 'circom:small' });
    check(ev.res?.was_loaded === true && ev.res.freed_bytes > 0, 'EvictSRS: was loaded, bytes freed', ev.err?.details || ev.res);
    const ev2 = await call(czkC, 'Evict', { circuit_id: 'circom:small' });
    check(ev2.res?.was_loaded === false, 'Evict again: was not loaded', ev2.err?.details || ev2.res);
    const pl2 = await call(czkC, 'Preload', { circuit_id: 'circom:small' });
    check(pl2.res?.already_loaded === false, 'Preload after evict: loaded now', pl2.err?.details || pl2.res);
    expectCode(await call(czkC, 'Preload', { circuit_id: 'circom:missing' }), grpc.status.FAILED_PRECONDITION, 'Preload missing params → FAILED_PRECONDITION', 'missing');

    // Bad input: each gets the right code and a message naming the field, and the daemon
    // keeps serving.
    expectCode(await call(cuzkC, 'SubmitProof', { proof_kind: 'PROOF_KIND_UNSPECIFIED' }), grpc.status.INVALID_ARGUMENT, 'cuzk: unknown kind → INVALID_ARGUMENT', 'proof_kind');
    expectCode(await call(czkC, 'Submit', { kind: 'KIND_UNSPECIFIED' }), grpc.status.INVALID_ARGUMENT, 'czk: unknown kind → INVALID_ARGUMENT', 'kind');
    const filBad = (r, what, field) => expectCode(r, grpc.status.INVALID_ARGUMENT, what, field);
    filBad(await call(cuzkC, 'SubmitProof', { proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: Buffer.from('{"not": "a c1 output"}'), registered_proof: 8 }),
           'cuzk: garbage C1 → INVALID_ARGUMENT', 'vanilla_proof');
    filBad(await call(cuzkC, 'SubmitProof', { proof_kind: 'POREP_SEAL_COMMIT', vanilla_proof: Buffer.from('{"SectorNum": 1, "Phase1Out": "e30=", "Sec'), registered_proof: 8 }),
           'cuzk: truncated C1 envelope → INVALID_ARGUMENT', 'vanilla_proof');
    filBad(await call(cuzkC, 'SubmitProof', { proof_kind: 'WINDOW_POST_PARTITION', vanilla_proofs: [Buffer.from([1, 2, 3])], registered_proof: 5 /* Window 2 KiB */, randomness: Buffer.alloc(32) }),
           'cuzk: garbage bincode PoSt proof → INVALID_ARGUMENT', 'vanilla_proof');
    filBad(await call(cuzkC, 'SubmitProof', { proof_kind: 'WINDOW_POST_PARTITION', vanilla_proofs: [Buffer.from([1, 2, 3])], registered_proof: 999, randomness: Buffer.alloc(32) }),
           'cuzk: unknown registered_proof → INVALID_ARGUMENT', 'registered_proof');
    expectCode(await call(czkC, 'Submit', circomReq(small, { witness: small.wtnsBytes.subarray(0, 100) })), grpc.status.INVALID_ARGUMENT, 'czk: truncated wtns → INVALID_ARGUMENT', 'wtns');
    expectCode(await call(czkC, 'Submit', circomReq(small, { witness: Buffer.from('garbage bytes, not a witness') })), grpc.status.INVALID_ARGUMENT, 'czk: garbage wtns → INVALID_ARGUMENT');
    expectCode(await call(czkC, 'Submit', circomReq({ ...small, name: 'nosuch' })), grpc.status.FAILED_PRECONDITION, 'czk: missing zkey → FAILED_PRECONDITION', 'nosuch.zkey');
    expectCode(await call(czkC, 'Submit', circomReq(small, { witness: Buffer.alloc(5 << 20) })), grpc.status.RESOURCE_EXHAUSTED, 'oversized message → RESOURCE_EXHAUSTED');
    const raw = await new Promise((resolve) => {
        const c = new grpc.Client(addr, grpc.credentials.createInsecure());
        c.makeUnaryRequest('/czk.v1.Czk/Submit', (x) => x, (x) => x, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x12]), authMd(), {},
                           (err, res) => { c.close(); resolve({ err, res }); });
    });
    expectCode(raw, grpc.status.INVALID_ARGUMENT, 'protobuf garbage → INVALID_ARGUMENT', 'cannot decode');
    check(await serving() === 'SERVING', 'still SERVING after the bad input');

    // Dedup: same request id + same payload = same job; a different payload = a new job.
    const rid = `dedup-${Date.now()}`;
    const d1 = await call(czkC, 'Submit', circomReq(small, { request_id: rid }));
    const d2 = await call(czkC, 'Submit', circomReq(small, { request_id: rid }));
    check(d1.res && d2.res && d1.res.job.job_id === d2.res.job.job_id, 'dedup: same request_id + payload → same job');
    const other = Buffer.from(small.wtnsBytes);
    other[other.length - 1] ^= 1; // still a well-formed witness file, a different payload
    const d3 = await call(czkC, 'Submit', circomReq(small, { request_id: rid, witness: other }));
    check(d3.res && d3.res.job.job_id !== d1.res?.job.job_id, 'dedup: same request_id, other payload → a new job', d3.err?.details);
}

async function testConcurrencyPriority() {
    log('100 concurrent jobs; priority order');
    const t = Date.now();
    const all = await Promise.all(Array.from({ length: 100 }, (_, i) =>
        call(czkC, 'Prove', { submit: circomReq(small, { request_id: `c100-${t}-${i}` }), timeout_ms: 120000 })));
    const done = all.filter((r) => r.res?.job?.state === 'DONE' && r.res.job.proof.length === 192);
    const ids = new Set(done.map((r) => r.res.job.job_id));
    check(done.length === 100 && ids.size === 100, '100 concurrent Prove calls: all DONE, 100 distinct jobs', all.find((r) => r.err)?.err?.details);
    let verified = 0;
    for (const r of done.slice(0, 5)) verified += (await verifies(small, r.res.job.proof)) ? 1 : 0;
    check(verified === 5, 'a sample of them verifies with snarkjs');
    log(`100 jobs in ${Date.now() - t} ms`);

    // One prover (CPU): a CRITICAL job submitted after LOW ones runs before those still
    // queued. Up to three LOW jobs may already be in the pipeline (two synthesis workers
    // and the prover) when it arrives; the other three must finish after it.
    const lows = (await Promise.all(Array.from({ length: 6 }, () =>
        call(czkC, 'Submit', circomReq(mid, { priority: 'LOW' }))))).map((r) => r.res?.job?.job_id);
    const crit = (await call(czkC, 'Submit', circomReq(mid, { priority: 'CRITICAL' }))).res?.job?.job_id;
    const fin = {};
    for (const id of [...lows, crit]) fin[id] = (await call(czkC, 'Await', { job_id: id, timeout_ms: 120000 })).res?.job?.finished_unix_ms;
    const before = lows.filter((id) => fin[id] < fin[crit]).length;
    check(before <= 3 && fin[crit] > 0, `priority: CRITICAL finished before the queued LOW jobs (${before} of 6 LOW before it, ≤3 allowed)`);
}

async function testClientTool() {
    log('the czk client');
    const A = ['--addr', addr, '--token', TOKEN];
    const r = run(czk, ['run-job', ...A, '--kind', 'circom', '--circuit', 'small', '--wtns', small.wtns, '--proof-out', path.join(work, 'cli.proof')]);
    check(r.code === 0 && /state=done/.test(r.out), 'czk run-job', r.err);
    check(r.code === 0 && await verifies(small, readFileSync(path.join(work, 'cli.proof'))), 'czk run-job: the proof file verifies with snarkjs');
    const s = run(czk, ['submit', ...A, '--kind', 'circom', '--circuit', 'small', '--wtns', small.wtns]);
    const id = (s.out.match(/job_id=(\S+)/) || [])[1];
    check(s.code === 0 && id, 'czk submit', s.err);
    const a = run(czk, ['await', ...A, id, '--timeout', '60000']);
    check(a.code === 0 && a.out.includes('state=done'), 'czk await', a.err);
    const w = run(czk, ['watch', ...A, id]);
    check(w.code === 0 && /queued/.test(w.out) && /done/.test(w.out), 'czk watch', w.err);
    const l = run(czk, ['list', ...A, '--state', 'done', '--limit', '3']);
    check(l.code === 0 && l.out.trim().split('\n').length === 3, 'czk list --limit 3', l.err);
    const st = run(czk, ['status', ...A]);
    check(st.code === 0 && /QUEUE\s+PENDING/.test(st.out) && /backend cpu/.test(st.out), 'czk status table', st.err);
    const m = run(czk, ['metrics', ...A]);
    check(m.code === 0 && m.out.includes('grpc_server_started_total'), 'czk metrics');
    const pl = run(czk, ['preload', ...A, 'circom:mid']);
    check(pl.code === 0 && pl.out.includes('circuit=circom:mid'), 'czk preload', pl.err);
    const ev = run(czk, ['evict', ...A, 'circom:mid']);
    check(ev.code === 0 && ev.out.includes('was_loaded=true'), 'czk evict', ev.err);
    const c = run(czk, ['cancel', ...A, 'j-nope']);
    check(c.code === 3 && c.err.includes('NOT_FOUND'), 'czk cancel unknown: exit 3, NOT_FOUND', c.err);
    const bad = run(czk, ['submit', ...A, '--kind', 'circom', '--circuit', 'small', '--wtns', mid.r1cs || path.join(work, 'mid.r1cs')]);
    check(bad.code === 3 && bad.err.includes('INVALID_ARGUMENT'), 'czk submit of a non-witness: INVALID_ARGUMENT', bad.err);
    const noauth = run(czk, ['status', '--addr', addr]);
    check(noauth.code === 3 && noauth.err.includes('UNAUTHENTICATED'), 'czk without the token: UNAUTHENTICATED', noauth.err);
}

async function testHttp() {
    log('HTTP /metrics /status /healthz');
    const base = `http://127.0.0.1:${daemon.info.metrics_port}`;
    const m = await fetch(`${base}/metrics`);
    const text = await m.text();
    check(m.status === 200 && text.includes('grpc_server_started_total') && text.includes('process_resident_memory_bytes') &&
          m.headers.get('content-type').startsWith('text/plain'), 'GET /metrics');
    const s = await fetch(`${base}/status`);
    const js = s.status === 200 ? await s.json() : null;
    check(js && js.backend === 'cpu', 'GET /status JSON');
    check((await fetch(`${base}/healthz`)).status === 200, 'GET /healthz 200');
    check((await fetch(`${base}/nope`)).status === 404, 'GET /nope 404');
}

async function testKillRestartDrain() {
    log('kill -9 mid-job, restart, SIGTERM drain');
    // A job large enough to be caught running; wait for its prover to start.
    const s = await call(czkC, 'Submit', circomReq(mid, { request_id: `kill-${Date.now()}` }));
    const id = s.res?.job?.job_id;
    await new Promise((resolve) => {
        const st = czkC.WatchJob({ job_id: id }, authMd());
        st.on('data', (e) => { if (e.type === 'gpu_start' || e.type === 'partition_synth_start') { st.cancel(); resolve(); } });
        st.on('error', () => resolve());
        st.on('end', () => resolve());
    });
    daemon.proc.kill('SIGKILL');
    const k = await daemon.exited;
    check(k.signal === 'SIGKILL', 'czkd killed with SIGKILL mid-job');
    closeClients();
    await startDaemon();
    connect();
    const a = await call(czkC, 'Await', { job_id: id, timeout_ms: 60000 });
    check(a.res?.job?.state === 'DONE' && await verifies(mid, a.res.job.proof), 'after restart the journaled job completes and verifies', a.err?.details || a.res?.job);

    // SIGTERM: the daemon drains (health NOT_SERVING, new submissions refused) and exits 0.
    const q = [];
    for (let i = 0; i < 2; i++) q.push((await call(czkC, 'Submit', circomReq(mid))).res?.job?.job_id);
    const pending = call(czkC, 'Await', { job_id: q[1] });
    const hw = healthWatch('');
    const hwNo = healthWatch('no.such.Service');
    check(await hw.until((s) => s.length >= 1) && hw.statuses[0] === 'SERVING', 'health Watch before the drain: SERVING', hw.statuses);
    await sleep(200); // let the Await reach the daemon before the signal
    daemon.proc.kill('SIGTERM');
    await sleep(30);
    const h = await serving();
    check(h === 'NOT_SERVING' || String(h).startsWith('error'), 'draining: health NOT_SERVING (or refused)', h);
    const sub = await call(czkC, 'Submit', circomReq(small));
    check(sub.err && [grpc.status.UNAVAILABLE].includes(sub.err.code), 'draining: Submit → UNAVAILABLE', sub.err?.details);
    const e = await daemon.exited;
    check(e.code === 0, 'SIGTERM: exit status 0', e);
    const [hwEnd, hwNoEnd] = await Promise.all([hw.done, hwNo.done]);
    check(hw.statuses.includes('NOT_SERVING'), 'health Watch open during the drain: NOT_SERVING', hw.statuses);
    // The daemon ends open Watch streams with UNAVAILABLE "shutting down"; a stream whose
    // last status push is still being sent at that moment is ended instead by the server's
    // final cancel-all ("Cancelling all calls", also UNAVAILABLE). Either way it ends.
    check([hwEnd, hwNoEnd].every((x) => x?.code === grpc.status.UNAVAILABLE &&
                                        /shutting down|Cancelling all calls/.test(x.details)),
          'health Watch streams end UNAVAILABLE at shutdown', [hwEnd?.details, hwNoEnd?.details]);
    const pr = await pending;
    check(pr.res?.job?.state === 'DONE' || pr.err?.code === grpc.status.UNAVAILABLE, 'an Await open during the drain: DONE or UNAVAILABLE', pr.err ? `${codeName(pr.err.code)}: ${pr.err.details}` : pr.res?.job?.state);
    closeClients();
    await startDaemon();
    connect();
    const after = await Promise.all(q.map((id) => call(czkC, 'Await', { job_id: id, timeout_ms: 60000 })));
    check(after.every((r) => r.res?.job?.state === 'DONE'), 'jobs unfinished at SIGTERM complete after the restart', after.map((r) => r.err?.details || r.res?.job?.state));
    daemon.proc.kill('SIGTERM');
    check((await daemon.exited).code === 0, 'final SIGTERM: exit 0');
}

async function testTls() {
    log('TLS and mTLS');
    if (run('openssl', ['version']).code !== 0) { console.log('# openssl not found: TLS tests skipped'); return; }
    const d = path.join(work, 'tls');
    mkdirSync(d, { recursive: true });
    const f = (n) => path.join(d, n);
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    const ok = [
        ['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=czk-test-ca'],
        ['req', ...ec, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost'],
        ['x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'),
         '-days', '2', '-extfile', f('san.ext')],
        ['req', ...ec, '-keyout', f('client.key'), '-out', f('client.csr'), '-subj', '/CN=worker-7'],
        ['x509', '-req', '-in', f('client.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('client.pem'), '-days', '2'],
    ];
    writeFileSync(f('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
    for (const a of ok) {
        const r = run('openssl', a);
        if (r.code !== 0) { check(false, `openssl ${a[0]}`, r.err); return; }
    }
    // The file still says the unix socket: --listen must win over it.
    await startDaemon({ token: '', extra: ['--listen', '127.0.0.1:0', '--tls-cert', f('server.pem'), '--tls-key', f('server.key'),
                                           '--tls-client-ca', f('ca.pem')] });
    const port = daemon.info.grpc_port;
    check(port > 0, 'the --listen flag overrides the file: TLS on an ephemeral TCP port (from the ready file)', daemon.info);
    const target = `localhost:${port}`;
    const rd = (n) => readFileSync(f(n));
    const mtls = new pkg.czk.v1.Czk(target, grpc.credentials.createSsl(rd('ca.pem'), rd('client.key'), rd('client.pem')));
    const r1 = await new Promise((res) => mtls.GetStatus({}, { deadline: new Date(Date.now() + 10000) }, (err, r) => res({ err, res: r })));
    check(r1.res?.ready === true, 'mTLS: a client with a certificate the CA signed is served', r1.err?.details);
    mtls.close();
    const noCert = new pkg.czk.v1.Czk(target, grpc.credentials.createSsl(rd('ca.pem')));
    const r2 = await new Promise((res) => noCert.GetStatus({}, { deadline: new Date(Date.now() + 5000) }, (err, r) => res({ err, res: r })));
    check(r2.err && r2.err.code === grpc.status.UNAVAILABLE, 'mTLS: a client without a certificate is refused', r2.err?.details);
    noCert.close();
    const plain = new pkg.czk.v1.Czk(target, grpc.credentials.createInsecure());
    const r3 = await new Promise((res) => plain.GetStatus({}, { deadline: new Date(Date.now() + 5000) }, (err, r) => res({ err, res: r })));
    check(r3.err && r3.err.code === grpc.status.UNAVAILABLE, 'TLS: a plaintext client is refused', r3.err?.details);
    plain.close();
    const c1 = run(czk, ['status', '--addr', target, '--tls-ca', f('ca.pem'), '--tls-cert', f('client.pem'), '--tls-key', f('client.key')]);
    check(c1.code === 0 && c1.out.includes('ready'), 'czk status over mTLS', c1.err);
    const c2 = run(czk, ['status', '--addr', target, '--tls-ca', f('ca.pem'), '--timeout', '5000']);
    check(c2.code === 4, 'czk without a client certificate: exit 4 (unreachable)', [c2.code, c2.err]);
    daemon.proc.kill('SIGTERM');
    check((await daemon.exited).code === 0, 'TLS daemon: SIGTERM exit 0');
}

async function testFilecoin() {
    log('Filecoin: WindowPoSt 2 KiB through cuzk.v1 and czk run-job --fixture');
    let r = run(czk, ['setup', '--circuit', 'wpost-2k', '--param-dir', params]);
    check(r.code === 0, 'czk setup --circuit wpost-2k (cached between runs)', r.err);
    const fx = path.join(work, 'wpost.json');
    r = run(czk, ['fixture', 'wpost', '--registered-proof', 'StackedDrgWindow2KiBV1_2', '--out', fx]);
    check(r.code === 0, 'czk fixture wpost', r.err);
    const j = JSON.parse(readFileSync(fx, 'utf8'));
    const req = {
        request_id: `wpost-${Date.now()}`, proof_kind: 'WINDOW_POST_PARTITION', sector_size: j.sector_size,
        registered_proof: j.registered_proof, vanilla_proofs: j.vanilla_proofs.map((b) => Buffer.from(b, 'base64')),
        randomness: Buffer.from(j.randomness, 'hex'), miner_id: j.miner_id, partition_index: j.partition_index,
        sector_number: j.sector_number,
    };
    const sub = await call(cuzkC, 'SubmitProof', req);
    check(sub.res?.job_id, 'cuzk SubmitProof (WindowPoSt 2 KiB)', sub.err?.details);
    const again = await call(cuzkC, 'SubmitProof', req);
    check(again.res?.job_id === sub.res?.job_id, 'cuzk SubmitProof again with the same request_id: same job');
    const aw = await call(cuzkC, 'AwaitProof', { job_id: sub.res?.job_id, timeout_ms: 120000 });
    check(aw.res?.status === 'COMPLETED' && aw.res.proof.length === 192 && aw.res.total_ms > 0, 'cuzk AwaitProof: COMPLETED, 192 bytes, timings',
          aw.err?.details || aw.res?.error_message);
    const w = await watch(sub.res?.job_id);
    check(w.evs.some((e) => e.type === 'verified'), 'the engine verified the proof before returning it', w.evs.map((e) => e.type));
    const pv = await call(cuzkC, 'Prove', { submit: { ...req, request_id: '' } });
    check(pv.res?.result?.status === 'COMPLETED' && pv.res.result.proof.length === 192, 'cuzk Prove (WindowPoSt 2 KiB)', pv.err?.details);
    const bad = { ...req, request_id: '', randomness: Buffer.alloc(31) };
    expectCode(await call(cuzkC, 'SubmitProof', bad), grpc.status.INVALID_ARGUMENT, 'cuzk: 31-byte randomness → INVALID_ARGUMENT', 'randomness');
    const cut = { ...req, request_id: '', vanilla_proofs: [req.vanilla_proofs[0].subarray(0, 100)] };
    expectCode(await call(cuzkC, 'SubmitProof', cut), grpc.status.INVALID_ARGUMENT, 'cuzk: truncated bincode → INVALID_ARGUMENT', 'vanilla_proof');
    const c = run(czk, ['run-job', '--addr', addr, '--token', TOKEN, '--fixture', fx, '--proof-out', path.join(work, 'wpost.proof')]);
    check(c.code === 0 && /state=done kind=wpost/.test(c.out) && readFileSync(path.join(work, 'wpost.proof')).length === 192,
          'czk run-job --fixture wpost.json', c.err);
}

rmSync(path.join(work, 'data'), { recursive: true, force: true });
await startDaemon();
connect();
if (mode === 'filecoin') {
    try {
        await testFilecoin();
        daemon.proc.kill('SIGTERM');
        check((await daemon.exited).code === 0, 'SIGTERM: exit 0');
    } catch (e) {
        tally.failed++;
        console.log(`FAIL exception: ${e.stack}`);
    }
    closeClients();
    if (daemon.proc.exitCode === null && daemon.proc.signalCode === null) daemon.proc.kill('SIGKILL');
    log(`${tally.passed} passed, ${tally.failed} failed`);
    process.exit(tally.failed ? 1 : 0);
}
try {
    await testHealthReflection();
    await testAuthAndUnknown();
    await testCzkApi();
    await testCuzkApiAndErrors();
    await testHttp();
    await testConcurrencyPriority();
    await testClientTool();
    await testKillRestartDrain();
    await testTls();
} catch (e) {
    tally.failed++;
    console.log(`FAIL exception: ${e.stack}`);
} finally {
    closeClients();
    if (daemon && daemon.proc.exitCode === null && daemon.proc.signalCode === null) daemon.proc.kill('SIGKILL');
}
log(`${tally.passed} passed, ${tally.failed} failed`);
if (tally.failed) console.log(`--- czkd log (last run) ---\n${daemon?.log().split('\n').slice(-40).join('\n')}`);
process.exit(tally.failed ? 1 : 0);
