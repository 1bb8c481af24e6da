// Driver of bench/bench_daemon.sh: measures czkd's front end through @grpc/grpc-js (from
// tests/peers/node_modules) on a unix socket. The script starts the daemon and makes the
// circuits; this file only talks to it.
//
// usage: node bench_daemon.mjs PEERS_DIR PROTO_DIR SOCKET METRICS_PORT CZKD_PID [--quick]
//
// Phases, in order (each figure is printed with how it was measured):
//   1. RSS idle: /proc/PID/status VmRSS and VmHWM before any call;
//   2. Submit latency: sequential czk.v1 Submit calls of a tiny circom job, one in flight,
//      median and p99 of the call's wall time (client send → reply received);
//   3. Submit → Await: sequential Submit then Await of a tiny job; the overhead is that
//      wall time minus the engine's own synthesis + prover + finalize times of the job;
//   4. pinned-pool reuse ratio over every job of phases 2-3, from /metrics;
//   5. front-end throughput and RSS with 1,000 queued jobs: a blocker job (a larger circuit,
//      HIGH priority) occupies the single CPU prover, then 1,000
//      tiny LOW jobs are submitted 32 at a time; accepted jobs/s, the queue length from
//      GetStatus, VmRSS / VmHWM; then everything is cancelled.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import http from 'node:http';
import path from 'node:path';

const [peers, protoDir, sock, metricsPort, pidStr, ...rest] = process.argv.slice(2);
if (!pidStr) {
    console.error('usage: node bench_daemon.mjs PEERS_DIR PROTO_DIR SOCKET METRICS_PORT CZKD_PID [--quick]');
    process.exit(2);
}
const quick = rest.includes('--quick');
const pid = Number(pidStr);
const require = createRequire(path.join(peers, 'package.json'));
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(['czk/v1/czk.proto'], {
    keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [protoDir],
}));
const client = new pkg.czk.v1.Czk(`unix:${sock}`, grpc.credentials.createInsecure(),
                                  { 'grpc.max_receive_message_length': 64 << 20 });
const call = (method, req) => new Promise((resolve, reject) => {
    client[method](req, (err, res) => (err ? reject(new Error(`${method}: ${err.details || err.message}`)) : resolve(res)));
});

const work = path.dirname(sock);
const tinyWtns = readFileSync(path.join(work, 'tiny.wtns'));
const blockWtns = readFileSync(path.join(work, 'block.wtns'));
const tiny = (priority = 'NORMAL') => ({ kind: 'CIRCOM', circuit: 'tiny', witness: tinyWtns, priority });
const blocker = () => ({ kind: 'CIRCOM', circuit: 'block', witness: blockWtns, priority: 'HIGH' });

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const sorted = (a) => [...a].sort((x, y) => x - y);
const pct = (a, p) => { const s = sorted(a); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const median = (a) => { const s = sorted(a); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

function rss() {
    const st = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number((st.match(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm')) || [])[1] || NaN);
    return { rss_mib: kb('VmRSS') / 1024, hwm_mib: kb('VmHWM') / 1024 };
}

// Median of several VmRSS samples, and their spread: the blockers' prover allocates and
// frees its working set while the samples are taken.
async function rssSampled(n = 11, gapMs = 50) {
    const v = [];
    for (let i = 0; i < n; i++) {
        v.push(rss().rss_mib);
        await new Promise((r) => setTimeout(r, gapMs));
    }
    return { median: median(v), spread: Math.max(...v) - Math.min(...v) };
}

function metrics() {
    return new Promise((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: Number(metricsPort), path: '/metrics' }, (res) => {
            let body = '';
            res.on('data', (d) => { body += d; });
            res.on('end', () => {
                const get = (name) => Number((body.match(new RegExp(`^${name} (\\d+)`, 'm')) || [])[1] || NaN);
                resolve({ alloc: get('czk_pinned_allocations_total'), reuse: get('czk_pinned_reuses_total') });
            });
        }).on('error', reject);
    });
}

async function awaitAll(ids) {
    for (const id of ids) {
        const r = await call('Await', { job_id: id, timeout_ms: 600000, omit_proof: true });
        if (r.job.state !== 'DONE') throw new Error(`job ${id} ended ${r.job.state}: ${r.job.error_message}`);
    }
}

const out = {};
const f2 = (x) => x.toFixed(2);
const fmt = (label, value, unit, peer = '') => console.log(`${label.padEnd(44)} ${String(value).padStart(10)} ${unit.padEnd(8)} ${peer}`);

// 1. Idle.
const idle = rss();
out.rss_idle_mib = idle.rss_mib;
fmt('RSS idle (VmRSS)', idle.rss_mib.toFixed(1), 'MiB', 'cuzk: 69-70 GiB idle, but with 32 GiB PoRep SRS + PCE loaded');

// Warm-up: load the tiny circuit's parameters and run a few jobs, so that parameter
// loading is not in the latency figures.
await call('Preload', { circuit_id: 'circom:tiny' });
await call('Preload', { circuit_id: 'circom:block' });
const m0 = await metrics();
for (let i = 0; i < 5; i++) await call('Prove', { submit: tiny(), timeout_ms: 60000 });
out.rss_idle_loaded_mib = rss().rss_mib;
fmt('RSS idle, parameters loaded, after 5 jobs', out.rss_idle_loaded_mib.toFixed(1), 'MiB');

// 2. Submit latency.
const nSubmit = quick ? 100 : 500;
const lat = [], ids = [];
for (let i = 0; i < nSubmit; i++) {
    const t = nowMs();
    const r = await call('Submit', tiny());
    lat.push(nowMs() - t);
    ids.push(r.job.job_id);
}
await awaitAll(ids);
out.submit_ms_median = median(lat);
out.submit_ms_p99 = pct(lat, 0.99);
fmt(`Submit RPC latency median (${nSubmit} calls)`, f2(out.submit_ms_median), 'ms', 'cuzk: not published');
fmt('Submit RPC latency p99', f2(out.submit_ms_p99), 'ms');

// 3. Submit → Await.
const nRound = quick ? 30 : 100;
const wall = [], over = [], engineTotal = [];
const stage = { queue_wait_ms: [], srs_load_ms: [], synthesis_ms: [], gpu_compute_ms: [], finalize_ms: [] };
for (let i = 0; i < nRound; i++) {
    const t = nowMs();
    const s = await call('Submit', tiny());
    const a = await call('Await', { job_id: s.job.job_id, timeout_ms: 60000 });
    const w = nowMs() - t;
    if (a.job.state !== 'DONE') throw new Error(`job ${s.job.job_id} ended ${a.job.state}`);
    const tm = a.job.timings;
    wall.push(w);
    engineTotal.push(tm.total_ms);
    for (const k of Object.keys(stage)) stage[k].push(tm[k]);
    over.push(w - (tm.synthesis_ms + tm.gpu_compute_ms + tm.finalize_ms));
}
out.round_trip_ms_median = median(wall);
out.round_trip_overhead_ms_median = median(over);
out.round_trip_overhead_ms_p99 = pct(over, 0.99);
out.engine_total_ms_median = median(engineTotal);
fmt(`Submit→Await wall, tiny job, median (${nRound})`, f2(out.round_trip_ms_median), 'ms');
fmt('  of which engine total (submit→done)', f2(out.engine_total_ms_median), 'ms');
for (const k of Object.keys(stage)) {
    out[`engine_${k}_median`] = median(stage[k]);
    fmt(`    engine ${k.replace(/_ms$/, '')}, median`, f2(out[`engine_${k}_median`]), 'ms');
}
fmt('  minus synthesis+prover+finalize: median', f2(out.round_trip_overhead_ms_median), 'ms', 'cuzk, another measure: 12-22 ms worker switch');
fmt('  minus synthesis+prover+finalize: p99', f2(out.round_trip_overhead_ms_p99), 'ms');

// 4. Pinned-pool reuse over the jobs of phases 2-3.
const m1 = await metrics();
const dAlloc = m1.alloc - m0.alloc, dReuse = m1.reuse - m0.reuse;
out.pinned_jobs = nSubmit + nRound + 5;
out.pinned_allocations = dAlloc;
out.pinned_reuses = dReuse;
out.pinned_reuse_ratio = dReuse / (dAlloc + dReuse);
fmt(`pinned-pool reuse ratio (${out.pinned_jobs} jobs)`, f2(out.pinned_reuse_ratio), '',
    `${dReuse} reuses, ${dAlloc} allocations; cuzk: 12/486 = 0.02 before pacing, 48/72 = 0.67 after`);

// 5. Throughput with the queue blocked, and RSS with 1,000 queued jobs.
// One large blocker: it holds the only CPU prover for seconds; the next few tiny jobs fill
// the synthesis workers and the prove queue, every later one stays queued. A single job's
// working set changes less while the samples are taken than a stream of smaller ones.
const nBlock = 1;
const blockIds = [];
for (let i = 0; i < nBlock; i++) blockIds.push((await call('Submit', blocker())).job.job_id);
// The blockers' own memory (witnesses, a/b/c) is in this figure, not in the per-job one.
await new Promise((r) => setTimeout(r, 300));
const before = await rssSampled();
const nQueued = 1000, conc = 32;
const queuedIds = [];
let next = 0;
const t0 = nowMs();
await Promise.all(Array.from({ length: conc }, async () => {
    while (next < nQueued) {
        next++;
        queuedIds.push((await call('Submit', tiny('LOW'))).job.job_id);
    }
}));
const dt = (nowMs() - t0) / 1000;
out.submit_per_s = nQueued / dt;
const st = await call('GetStatus', {});
const pending = (st.engine?.queues || []).reduce((s, q) => s + q.pending, 0);
const full = rss();
const after = await rssSampled();
out.queued_pending = pending;
out.rss_queued_mib = full.rss_mib;
out.hwm_mib = full.hwm_mib;
fmt(`front end: accepted Submits/s (${conc} in flight)`, out.submit_per_s.toFixed(0), 'jobs/s', 'cuzk: not published');
fmt(`RSS with ${pending} jobs queued (VmRSS)`, full.rss_mib.toFixed(1), 'MiB');
out.rss_blockers_only_mib = before.median;
out.rss_per_queued_job_kib = (after.median - before.median) * 1024 / nQueued;
out.rss_noise_mib = Math.max(before.spread, after.spread);
fmt('  RSS with the blocker alone (median of 11)', before.median.toFixed(1), 'MiB');
fmt('  growth per queued job (medians of 11)', out.rss_per_queued_job_kib.toFixed(1), 'KiB',
    `noise: samples spread over ${out.rss_noise_mib.toFixed(1)} MiB = ${(out.rss_noise_mib * 1024 / nQueued).toFixed(1)} KiB/job`);
fmt('peak RSS so far (VmHWM)', full.hwm_mib.toFixed(1), 'MiB');
if (pending < nQueued * 0.9) console.log(`note: only ${pending} of ${nQueued} were still queued when measured`);
for (const id of [...queuedIds, ...blockIds]) {
    try { await call('Cancel', { job_id: id }); } catch { /* finished meanwhile */ }
}
client.close();
console.log(`JSON ${JSON.stringify(out)}`);
