// czkd's network edge against hostile and clumsy peers, end to end. Each case starts a
// czkd of its own and attacks it the way a peer on the network could, with node's own
// net/http2 (raw HTTP/2 frames where a client library would not misbehave on purpose)
// and @grpc/grpc-js for the well-behaved side.
//
// usage: node edge_e2e.mjs CZKD CZK PROTO_DIR GRPC_PROTO_DIR WORK_DIR config|limits [PRELOAD_SO]
//   config: a token source that yields no token, TLS material gRPC would only report as
//           "cannot bind", HTTP details (431, 413/400, 408, HEAD, the connection cap),
//           the unix socket's mode from its first instant (SLOW_CHMOD_SO widens the
//           window a chmod after bind would leave);
//   limits: descriptor exhaustion and the listener's recovery (PRELOAD_SO: an accept4
//           that fails with EMFILE on demand), memory before authentication, a gzip
//           bomb, HTTP/2 rapid reset, bytes of queued payloads.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, rmSync, statSync, chmodSync } from 'node:fs';
import http2 from 'node:http2';
import net from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import grpc from '@grpc/grpc-js';
import protoLoader from '@grpc/proto-loader';
import { check, log, run, sleep, tally } from './czkd_harness.mjs';

const [czkd, czk, protoDir, grpcProtoDir, work, mode, preload] = process.argv.slice(2);
const slowChmod = mode.startsWith('config') ? preload : null;
const emfileAccept = mode.startsWith('limits') ? preload : null;
if (!mode) {
    console.error('usage: node edge_e2e.mjs CZKD CZK PROTO_DIR GRPC_PROTO_DIR WORK_DIR config|limits [SLOW_CHMOD_SO]');
    process.exit(2);
}
mkdirSync(work, { recursive: true });
const params = path.join(work, 'params');
mkdirSync(params, { recursive: true });


// ---------------------------------------------------------------------------------------
// The daemon
// ---------------------------------------------------------------------------------------
const TOKEN = 'edge-secret-token';
let runs = 0;

function writeConf(name, lines) {
    const conf = path.join(work, `${name}.conf`);
    const data = path.join(work, `data-${name}`);
    rmSync(data, { recursive: true, force: true });
    writeFileSync(conf, ['[daemon]', 'metrics_listen = 127.0.0.1:0', `data_dir = ${data}`, `param_dir = ${params}`,
                         'drain_grace = 5s', ...lines, '[gpus]', 'mode = cpu', '[timeline]', 'enabled = false',
                         '[logging]', 'level = info', ''].join('\n'));
    return conf;
}

// Starts czkd with `lines` under [daemon]; `shell` wraps the exec (ulimit, umask); `env`
// adds variables. Resolves once the ready file is there, or with {exited} if it stopped.
async function startDaemon(name, lines, { shell = '', env = {}, waitMs = 15000 } = {}) {
    const ready = path.join(work, `${name}.ready`);
    rmSync(ready, { force: true });
    const conf = writeConf(name, [`ready_file = ${ready}`, ...lines]);
    const logFile = path.join(work, `${name}-${++runs}.log`);
    const argv = ['--config', conf];
    const proc = shell
        ? spawn('/bin/sh', ['-c', `${shell} && exec "$0" "$@"`, czkd, ...argv], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
        : spawn(czkd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '';
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { out += d; });
    let exitInfo = null;
    const exited = new Promise((res) => proc.on('exit', (code, signal) => {
        exitInfo = { code, signal };
        writeFileSync(logFile, out);
        res(exitInfo);
    }));
    for (let i = 0; i < waitMs / 25 && !existsSync(ready) && !exitInfo; i++) await sleep(25);
    const d = { proc, exited, log: () => out, name };
    if (existsSync(ready)) d.info = JSON.parse(readFileSync(ready, 'utf8'));
    else if (!exitInfo) d.info = null;
    d.exitInfo = () => exitInfo;
    return d;
}
async function stopDaemon(d) {
    if (!d || d.exitInfo()) return d?.exitInfo();
    d.proc.kill('SIGTERM');
    const t = setTimeout(() => d.proc.kill('SIGKILL'), 15000);
    const r = await d.exited;
    clearTimeout(t);
    return r;
}
function vmHWM(pid) {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
}
function openFds(pid) {
    try { return run('ls', [`/proc/${pid}/fd`]).out.split('\n').filter(Boolean).length; } catch (e) { return -1; }
}

// ---------------------------------------------------------------------------------------
// Clients
// ---------------------------------------------------------------------------------------
const loadOpts = { keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true, includeDirs: [protoDir, grpcProtoDir] };
const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(['czk/v1/czk.proto', 'grpc/health/v1/health.proto'], loadOpts));
function authMd(token = TOKEN) {
    const md = new grpc.Metadata();
    if (token) md.set('authorization', `Bearer ${token}`);
    return md;
}
function call(client, method, req, { deadlineMs = 10000, token = TOKEN } = {}) {
    return new Promise((resolve) => {
        client[method](req, authMd(token), { deadline: new Date(Date.now() + deadlineMs) }, (err, res) => resolve({ err, res }));
    });
}
async function healthOf(client, deadlineMs = 5000) {
    const r = await call(client, 'Check', { service: '' }, { token: '', deadlineMs });
    return r.res ? r.res.status : `error ${r.err?.code} ${r.err?.details}`;
}
const target = (d) => `127.0.0.1:${d.info.grpc_port}`;
// A fresh channel each time (grpc-js would otherwise share one subchannel).
let chanSeq = 0;
const mkClient = (Svc, t) => new Svc(t, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 64 << 20, 'czk.seq': ++chanSeq });

// Raw HTTP/1.1 exchange: writes `req` (or calls write(sock)), collects the reply until
// the server closes or `ms` pass. {data, closed, reset, ms}.
function rawHttp(port, req, { ms = 5000, write } = {}) {
    return new Promise((resolve) => {
        const s = net.connect(port, '127.0.0.1');
        const t1 = Date.now();
        let data = Buffer.alloc(0), reset = false, done = false;
        const finish = (closed) => {
            if (done) return;
            done = true;
            clearTimeout(timer);
            s.destroy();
            resolve({ data: data.toString('latin1'), closed, reset, ms: Date.now() - t1 });
        };
        const timer = setTimeout(() => finish(false), ms);
        s.on('data', (d) => { data = Buffer.concat([data, d]); });
        s.on('error', (e) => { reset = e.code === 'ECONNRESET' || e.code === 'EPIPE'; if (!data.length) finish(true); });
        s.on('close', () => finish(true));
        s.on('connect', () => { if (write) write(s); else s.write(req); });
    });
}
const statusOf = (reply) => Number((/^HTTP\/1\.1 (\d{3})/.exec(reply.data) || [])[1] || 0);

// Resolves when a stream can take more, or is gone.
function drained(st) {
    return new Promise((r) => {
        const done = () => { st.off('drain', done); st.off('close', done); r(); };
        st.on('drain', done);
        st.on('close', done);
    });
}

// A gRPC call over node:http2 with a raw message (any bytes, optionally flagged as
// compressed), written a chunk at a time and no further once the server has answered,
// as a real client does: resolves with the grpc-status, message and time to the status.
function rawGrpc(session, method, body, { token = '', encoding = '', compressed = false, track = null } = {}) {
    return new Promise((resolve) => {
        const headers = { ':method': 'POST', ':path': method, 'content-type': 'application/grpc', te: 'trailers' };
        if (token) headers.authorization = `Bearer ${token}`;
        if (encoding) headers['grpc-encoding'] = encoding;
        const t1 = Date.now();
        const st = session.request(headers);
        let status = null, message = '', done = false, answered = false;
        const finish = () => {
            if (done) return;
            done = true;
            if (track) track.done = true;
            resolve({ status, message, ms: Date.now() - t1 });
        };
        const take = (h) => {
            if (h['grpc-status'] === undefined) return;
            answered = true;
            status = Number(h['grpc-status']);
            message = decodeURIComponent(h['grpc-message'] || '');
            finish();
            st.close();
        };
        st.on('response', take);
        st.on('trailers', take);
        st.on('data', () => {});
        st.on('error', () => finish());
        st.on('close', finish);
        const prefix = Buffer.alloc(5);
        prefix[0] = compressed ? 1 : 0;
        prefix.writeUInt32BE(body.length, 1);
        st.write(prefix);
        (async () => {
            for (let off = 0; off < body.length && !answered && !st.destroyed; off += 1 << 16) {
                if (track) track.sent = off;
                if (!st.write(body.subarray(off, off + (1 << 16)))) await drained(st);
            }
            if (track) track.through = true;
            if (!st.destroyed && !answered) st.end();
        })();
    });
}

// ---------------------------------------------------------------------------------------
// config: fail closed, HTTP, the unix socket's mode
// ---------------------------------------------------------------------------------------
function makeTls(d) {
    mkdirSync(d, { recursive: true });
    const f = (n) => path.join(d, n);
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    for (const a of [
        ['req', '-x509', ...ec, '-keyout', f('a.key'), '-out', f('a.pem'), '-days', '2', '-subj', '/CN=localhost'],
        ['req', '-x509', ...ec, '-keyout', f('b.key'), '-out', f('b.pem'), '-days', '2', '-subj', '/CN=other'],
    ]) {
        const r = run('openssl', a);
        if (r.code !== 0) throw new Error(`openssl ${a.join(' ')}: ${r.err}`);
    }
    writeFileSync(f('junk.pem'), 'this is not a certificate\n');
    writeFileSync(f('der.bin'), Buffer.from([0x30, 0x82, 0x01, 0x00, 0x00, 0xff]));
    return f;
}

// The daemon must not start; its output must name every string in `names`.
async function refusesToStart(name, lines, names, what) {
    const d = await startDaemon(name, lines, { waitMs: 10000 });
    if (d.info) {
        check(false, what, `it started (grpc port ${d.info.grpc_port})`);
        await stopDaemon(d);
        return;
    }
    const ex = d.exitInfo() || (await Promise.race([d.exited, sleep(5000).then(() => null)]));
    const out = d.log();
    const missing = names.filter((n) => !out.includes(n));
    check(ex && ex.code !== 0 && missing.length === 0, what,
          { exit: ex, missing, said: out.split('\n').filter((l) => /error|cannot|czkd:/.test(l)).slice(-3) });
    if (!ex) d.proc.kill('SIGKILL');
}

async function testFailClosed() {
    log('fail closed: a token source that yields no token, TLS material checked before gRPC');
    const tok = (n, text) => { const p = path.join(work, n); writeFileSync(p, text); return p; };
    const empty = tok('token-empty', ''), nl = tok('token-newline', '\n'), blank = tok('token-blank', '  \t \n');
    await refusesToStart('tok-empty', [`listen = 127.0.0.1:0`, `auth_token_file = ${empty}`], [empty, 'no token'],
                         'auth_token_file empty: refuses to start, naming the file');
    await refusesToStart('tok-nl', [`listen = 127.0.0.1:0`, `auth_token_file = ${nl}`], [nl, 'no token'],
                         'auth_token_file holding only a newline: refuses to start, naming the file');
    await refusesToStart('tok-blank', [`listen = 127.0.0.1:0`, `auth_token_file = ${blank}`], [blank, 'no token'],
                         'auth_token_file holding only blanks: refuses to start, naming the file');
    await refusesToStart('tok-dir', [`listen = 127.0.0.1:0`, `auth_token_file = ${work}`], [work],
                         'auth_token_file naming a directory (unreadable as a file): refuses to start, naming it');
    const missing = path.join(work, 'no-such-token');
    await refusesToStart('tok-missing', [`listen = 127.0.0.1:0`, `auth_token_file = ${missing}`], [missing],
                         'auth_token_file missing: refuses to start, naming it');
    // A token file with surrounding blanks yields the token without them.
    const padded = tok('token-padded', `  ${TOKEN} \n`);
    const d = await startDaemon('tok-padded', [`listen = 127.0.0.1:0`, `auth_token_file = ${padded}`]);
    check(!!d.info, 'auth_token_file with blanks around the token: starts', d.log().slice(-400));
    if (d.info) {
        const c = mkClient(pkg.czk.v1.Czk, target(d));
        check(!(await call(c, 'GetStatus', {})).err, 'the token without its blanks is accepted');
        check((await call(c, 'GetStatus', {}, { token: '' })).err?.code === grpc.status.UNAUTHENTICATED, 'no token: UNAUTHENTICATED');
        c.close();
    }
    await stopDaemon(d);

    if (run('openssl', ['version']).code !== 0) { console.log('# openssl not found: TLS cases skipped'); return; }
    const f = makeTls(path.join(work, 'tls'));
    const tls = (cert, key, ca) => ['listen = 127.0.0.1:0', '[tls]', `cert = ${cert}`, `key = ${key}`, ...(ca ? [`client_ca = ${ca}`] : []), '[daemon]'];
    await refusesToStart('tls-otherkey', tls(f('a.pem'), f('b.key')), [f('b.key'), f('a.pem'), 'not the key of the certificate'],
                         'TLS: the key of another certificate: refuses to start, naming both files and the fault');
    await refusesToStart('tls-keyascert', tls(f('a.key'), f('a.key')), [f('a.key'), 'tls.cert', 'private key, not a certificate'],
                         'TLS: a key given as the certificate: refuses to start, naming the file and the fault');
    await refusesToStart('tls-certaskey', tls(f('a.pem'), f('a.pem')), [f('a.pem'), 'tls.key', 'certificate, not a private key'],
                         'TLS: a certificate given as the key: refuses to start, naming the file and the fault');
    await refusesToStart('tls-junk', tls(f('junk.pem'), f('a.key')), [f('junk.pem'), 'not PEM'],
                         'TLS: a certificate file that is not PEM: refuses to start, naming it');
    await refusesToStart('tls-der', tls(f('a.pem'), f('der.bin')), [f('der.bin'), 'not PEM'],
                         'TLS: a binary (DER) key file: refuses to start, naming it');
    await refusesToStart('tls-nocert', tls(path.join(work, 'tls', 'none.pem'), f('a.key')), [path.join(work, 'tls', 'none.pem'), 'cannot read'],
                         'TLS: an unreadable certificate file: refuses to start, naming it');
    await refusesToStart('tls-badca', tls(f('a.pem'), f('a.key'), f('a.key')), [f('a.key'), 'tls.client_ca', 'not a certificate'],
                         'TLS: a client CA file holding a key: refuses to start, naming it');
    const good = await startDaemon('tls-good', tls(f('a.pem'), f('a.key')));
    check(!!good.info, 'TLS: a matching certificate and key start', good.log().slice(-400));
    if (good.info) {
        const c = new pkg.grpc.health.v1.Health(`localhost:${good.info.grpc_port}`, grpc.credentials.createSsl(readFileSync(f('a.pem'))));
        check(await healthOf(c) === 'SERVING', 'TLS: served through the relay to gRPC\'s own listener');
        c.close();
    }
    await stopDaemon(good);
}

async function testHttp() {
    log('HTTP: 431, 413/400, 405, HEAD (default options)');
    const d = await startDaemon('http', ['listen = 127.0.0.1:0']);
    if (!d.info) { check(false, 'czkd starts for the HTTP cases', d.log().slice(-600)); return; }
    let port = d.info.metrics_port;
    const ok = await rawHttp(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    check(statusOf(ok) === 200 && ok.data.endsWith('ok\n'), 'GET /healthz: 200 ok', ok.data.slice(0, 80));

    // A 1 MB header: answered 431, not a reset.
    const big = await rawHttp(port, null, {
        write: (s) => { s.write('GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: '); s.write('a'.repeat(1 << 20)); s.write('\r\n\r\n'); },
    });
    check(statusOf(big) === 431, 'a 1 MB header: 431 Request Header Fields Too Large (not a reset)', { got: big.data.slice(0, 60), reset: big.reset });

    // A body announced on GET: answered at the headers, not held waiting for 10 GB.
    const cl = await rawHttp(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 10000000000\r\n\r\n', { ms: 4000 });
    check([400, 413].includes(statusOf(cl)) && cl.closed && cl.ms < 1000,
          'GET with Content-Length: 10000000000 and no body: 413 at once, connection closed', { got: cl.data.slice(0, 40), ms: cl.ms, closed: cl.closed });
    const small = await rawHttp(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello', { ms: 4000 });
    check(statusOf(small) === 400 && small.ms < 1000, 'GET with a 5-byte body: 400 at once', { got: small.data.slice(0, 40), ms: small.ms });
    const chunked = await rawHttp(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n', { ms: 4000 });
    check(statusOf(chunked) === 400 && chunked.ms < 1000, 'GET with a chunked body: 400 at once', { got: chunked.data.slice(0, 40), ms: chunked.ms });

    // HEAD: the GET's headers, no body.
    const head = await rawHttp(port, 'HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    const [hdr, ...rest] = head.data.split('\r\n\r\n');
    const clen = Number((/Content-Length: (\d+)/i.exec(hdr) || [])[1] || 0);
    check(statusOf(head) === 200 && clen > 1000 && rest.join('\r\n\r\n').length === 0,
          'HEAD /metrics: 200 with the Content-Length of the body, and no body', { clen, body: rest.join('').length });
    const post = await rawHttp(port, 'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n', { ms: 3000 });
    check(statusOf(post) === 405 && post.ms < 1000, 'POST with a large body: 405 at once', { got: post.data.slice(0, 40), ms: post.ms });
    check((await stopDaemon(d))?.code === 0, 'SIGTERM: exit 0');

    log('HTTP: 408 after daemon.metrics_timeout, daemon.metrics_max_connections');
    const d2 = await startDaemon('http2', ['listen = 127.0.0.1:0', 'metrics_max_connections = 8', 'metrics_timeout = 1500ms']);
    if (!d2.info) { check(false, 'czkd starts with metrics_max_connections and metrics_timeout', d2.log().slice(-600)); return; }
    port = d2.info.metrics_port;

    // A request that never completes: 408 within metrics_timeout, then closed.
    const slow = await rawHttp(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n', { ms: 6000 });
    check(statusOf(slow) === 408 && slow.closed && slow.ms >= 1300 && slow.ms < 4500,
          'a request that never ends: 408 after daemon.metrics_timeout (1.5 s), then closed', { got: slow.data.slice(0, 40), ms: slow.ms });
    const silent = await rawHttp(port, '', { ms: 6000 });
    check(silent.closed && silent.ms < 4500, 'a connection that sends nothing: closed after the timeout', { ms: silent.ms, closed: silent.closed });

    // The cap: 8 idle connections held, the others closed at once; served again after.
    const socks = [];
    const closedAt = [];
    for (let i = 0; i < 24; i++) {
        const s = net.connect(port, '127.0.0.1');
        s.on('error', () => {});
        s.on('close', () => closedAt.push(Date.now()));
        socks.push(s);
    }
    const t1 = Date.now();
    await sleep(600);
    const early = closedAt.filter((t) => t - t1 < 600).length;
    check(early >= 16, 'metrics_max_connections = 8: of 24 idle connections, the 16 beyond the cap are closed at once', { early });
    for (const s of socks) s.destroy();
    await sleep(200);
    const after = await rawHttp(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    check(statusOf(after) === 200, 'after the idle connections: served again');
    const m = await rawHttp(port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    const refused = Number((/^czk_http_connections_refused_total (\d+)/m.exec(m.data) || [])[1] || -1);
    const timedOut = Number((/^czk_http_requests_timed_out_total (\d+)/m.exec(m.data) || [])[1] || -1);
    check(refused >= 16 && timedOut >= 2, 'metrics count the refused and the timed-out connections', { refused, timedOut });
    check((await stopDaemon(d2))?.code === 0, 'SIGTERM: exit 0');
}

async function testUnixSocketMode() {
    log('unix socket: created with its mode');
    const dir = path.join(work, 'sock');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    const sock = path.join(dir, 'czkd.sock');
    // umask 0 would give a socket made by bind() mode 0777 until a chmod fixed it; the
    // preloaded chmod (SLOW_CHMOD_SO) sleeps 400 ms first, which makes that window wide
    // enough to be seen from here.
    const env = slowChmod ? { LD_PRELOAD: slowChmod } : {};
    const seen = new Set();
    let polling = true;
    const poller = (async () => {
        while (polling) {
            try { seen.add((statSync(sock).mode & 0o777).toString(8)); } catch (e) { /* not there yet */ }
            await sleep(2);
        }
    })();
    const d = await startDaemon('unix', [`listen = unix:${sock}`, 'unix_socket_mode = 0600'], { shell: 'umask 0', env });
    await sleep(300);
    polling = false;
    await poller;
    check(!!d.info, 'czkd starts on a unix socket', d.log().slice(-400));
    check(seen.size === 1 && seen.has('600'), 'the socket path is never seen with any mode but 0600 (umask 0, chmod slowed)', [...seen]);
    check(!run('ls', ['-A', dir]).out.includes('.czkd'), 'no private directory left beside the socket', run('ls', ['-A', dir]).out);
    if (d.info) {
        const c = mkClient(pkg.grpc.health.v1.Health, `unix:${sock}`);
        check(await healthOf(c) === 'SERVING', 'served on the unix socket');
        c.close();
    }
    // A second daemon on the same path must not steal it.
    const d2 = await startDaemon('unix2', [`listen = unix:${sock}`], { waitMs: 8000 });
    check(!d2.info && d2.log().includes('another process is listening'), 'a second czkd on the same live socket refuses to start', d2.log().slice(-300));
    if (d2.info) await stopDaemon(d2);
    check((await stopDaemon(d))?.code === 0 && !existsSync(sock), 'SIGTERM: exit 0, the socket removed');
    // A stale socket file (no one listening) is replaced.
    const d3 = await startDaemon('unix3', [`listen = unix:${sock}`, 'unix_socket_mode = 0660']);
    check(!!d3.info && (statSync(sock).mode & 0o777) === 0o660, 'a stale socket file is replaced, with the new mode');
    await stopDaemon(d3);
}

// ---------------------------------------------------------------------------------------
// limits
// ---------------------------------------------------------------------------------------
async function testFdExhaustion() {
    log('descriptor exhaustion: the listener refuses beyond its cap, says NOT_SERVING, recovers');
    const LIMIT = 512;
    // Default limits: czkd fits them to the descriptor limit it finds.
    const d = await startDaemon('fds', ['listen = 127.0.0.1:0', `auth_token = ${TOKEN}`], { shell: `ulimit -n ${LIMIT}` });
    if (!d.info) { check(false, `czkd starts with ulimit -n ${LIMIT}`, d.log().slice(-600)); return; }
    const m0 = await rawHttp(d.info.metrics_port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    const cap = Number((/^czk_grpc_connections_max (\d+)/m.exec(m0.data) || [])[1] || LIMIT);
    check(cap < LIMIT / 2, `daemon.max_connections is fitted to the descriptor limit (${LIMIT}): ${cap}`, cap);
    const t = target(d);
    const health = mkClient(pkg.grpc.health.v1.Health, t);
    check(await healthOf(health) === 'SERVING', 'before: SERVING');
    const watch = health.Watch({ service: '' }, authMd(''));
    const statuses = [];
    watch.on('data', (m) => statuses.push(m.status));
    watch.on('error', () => {});
    // More connections than the process has descriptors, each silent.
    const flood = [];
    let closedEarly = 0;
    for (let i = 0; i < LIMIT + 200; i++) {
        const s = net.connect(d.info.grpc_port, '127.0.0.1');
        s.on('error', () => {});
        s.on('close', () => { closedEarly++; });
        flood.push(s);
        if (i % 50 === 49) await sleep(20);
    }
    await sleep(1500);
    log(`flood: ${flood.length} connections, ${closedEarly} closed by the daemon; czkd holds ${openFds(d.proc.pid)} fds`);
    check(closedEarly >= flood.length - cap, 'the connections beyond daemon.max_connections are closed at once', { closedEarly, cap, flood: flood.length });
    check(await healthOf(health) === 'NOT_SERVING', 'while no connection can be accepted: Health/Check on an open connection says NOT_SERVING');
    check(statuses.includes('NOT_SERVING'), 'and Health/Watch pushed NOT_SERVING', statuses);
    const hz = await rawHttp(d.info.metrics_port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    check(statusOf(hz) === 503, '/healthz: 503 meanwhile', hz.data.slice(0, 40));
    const m1 = await rawHttp(d.info.metrics_port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    const refused = Number((/^czk_grpc_connections_refused_total\{reason="limit"\} (\d+)/m.exec(m1.data) || [])[1] || -1);
    check(refused >= LIMIT, 'czk_grpc_connections_refused_total{reason="limit"} counts them', refused);
    // The flood ends: the listener serves new connections again.
    for (const s of flood) s.destroy();
    await sleep(1000);
    const fresh = mkClient(pkg.czk.v1.Czk, t);
    const st = await call(fresh, 'GetStatus', {}, { deadlineMs: 8000 });
    check(!st.err && st.res?.ready === true, 'after the flood: a new connection\'s call is served', st.err?.details);
    fresh.close();
    const fh = mkClient(pkg.grpc.health.v1.Health, t);
    check(await healthOf(fh) === 'SERVING', 'and health says SERVING again');
    fh.close();
    await sleep(400);
    check(statuses.at(-1) === 'SERVING', 'Health/Watch pushed SERVING again', statuses);
    const hz2 = await rawHttp(d.info.metrics_port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    check(statusOf(hz2) === 200, '/healthz: 200 again');
    // Twice: the recovery is not a one-off.
    const flood2 = [];
    for (let i = 0; i < LIMIT; i++) { const s = net.connect(d.info.grpc_port, '127.0.0.1'); s.on('error', () => {}); flood2.push(s); }
    await sleep(1000);
    for (const s of flood2) s.destroy();
    await sleep(800);
    const again = mkClient(pkg.czk.v1.Czk, t);
    check(!(await call(again, 'GetStatus', {}, { deadlineMs: 8000 })).err, 'a second flood: served again after it');
    again.close();
    watch.cancel();
    health.close();
    // Silent connections are dropped after daemon.handshake_timeout (a short one here).
    check((await stopDaemon(d))?.code === 0, 'SIGTERM: exit 0');
    const d2 = await startDaemon('idle', ['listen = 127.0.0.1:0', 'handshake_timeout = 500ms']);
    if (d2.info) {
        const r = await new Promise((resolve) => {
            const s = net.connect(d2.info.grpc_port, '127.0.0.1');
            const t1 = Date.now();
            s.on('error', () => {});
            s.on('close', () => resolve(Date.now() - t1));
            setTimeout(() => { s.destroy(); resolve(-1); }, 5000);
        });
        check(r >= 400 && r < 3000, 'a connection that sends nothing is closed after daemon.handshake_timeout (500 ms)', r);
    } else check(false, 'czkd starts with handshake_timeout = 500ms', d2.log().slice(-300));
    await stopDaemon(d2);
}

// accept4 failing with EMFILE (injected on every other call, as when a descriptor must be
// freed to take each connection): the connections are refused, health says NOT_SERVING,
// and the listener serves again once descriptors are back.
async function testEmfile() {
    log('accept4 fails with EMFILE: refused at once, NOT_SERVING, served again after');
    if (!emfileAccept) { console.log('# no EMFILE injector given: skipped'); return; }
    const flag = path.join(work, 'emfile.flag');
    rmSync(flag, { force: true });
    const d = await startDaemon('emfile', ['listen = 127.0.0.1:0'], { env: { LD_PRELOAD: emfileAccept, CZK_TEST_EMFILE: flag } });
    if (!d.info) { check(false, 'czkd starts with the EMFILE injector', d.log().slice(-600)); return; }
    const t = target(d);
    const health = mkClient(pkg.grpc.health.v1.Health, t);
    check(await healthOf(health) === 'SERVING', 'before: SERVING');
    writeFileSync(flag, String(d.info.grpc_port));
    let refused = 0, tried = 0;
    const statuses = [];
    const t1 = Date.now();
    while (Date.now() - t1 < 1500) {
        tried++;
        const s = net.connect(d.info.grpc_port, '127.0.0.1');
        s.on('error', () => {});
        const closedAt = new Promise((r) => { s.on('close', () => r(true)); setTimeout(() => r(false), 300); });
        statuses.push(await healthOf(health, 2000));
        if (await closedAt) refused++;
        s.destroy();
    }
    log(`injected EMFILE: ${refused} of ${tried} connections refused; health said ${[...new Set(statuses)].join(', ')}`);
    check(refused >= tried / 2, 'while accept4 fails with EMFILE, connections are closed at once', { refused, tried });
    check(statuses.filter((x) => x === 'NOT_SERVING').length >= statuses.length / 2, 'and health says NOT_SERVING', statuses);
    const m = await rawHttp(d.info.metrics_port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    const noFds = Number((/^czk_grpc_connections_refused_total\{reason="no_fds"\} (\d+)/m.exec(m.data) || [])[1] || -1);
    check(noFds >= refused / 2, 'czk_grpc_connections_refused_total{reason="no_fds"} counts them', noFds);
    rmSync(flag, { force: true });
    await sleep(600);
    check(await healthOf(health) === 'SERVING', 'descriptors back: SERVING again without a new connection');
    const fresh = mkClient(pkg.czk.v1.Czk, t);
    const st = await call(fresh, 'GetStatus', {}, { token: '', deadlineMs: 8000 });
    check(!st.err && st.res?.ready === true, 'and a new connection\'s call is served', st.err?.details);
    fresh.close();
    health.close();
    check((await stopDaemon(d))?.code === 0, 'SIGTERM: exit 0');
}

async function testMemoryBeforeAuth() {
    log('memory before authentication: messages are read only after the token is checked');
    const SIZE = 48 << 20, N = 8;
    const d = await startDaemon('mem', ['listen = 127.0.0.1:0', `auth_token = ${TOKEN}`, 'max_message_size = 64MiB']);
    if (!d.info) { check(false, 'czkd starts for the memory cases', d.log().slice(-600)); return; }
    const body = Buffer.alloc(SIZE, 0x42);
    const base = vmHWM(d.proc.pid);
    const session = http2.connect(`http://${target(d)}`);
    session.on('error', () => {});
    const t1 = Date.now();
    const rs = await Promise.all(Array.from({ length: N }, () => rawGrpc(session, '/czk.v1.Czk/Submit', body)));
    const ms = Date.now() - t1;
    const grown = vmHWM(d.proc.pid) - base;
    log(`${N} × ${SIZE >> 20} MiB Submits without a token: ${ms} ms, peak RSS +${(grown / 1048576).toFixed(1)} MiB`);
    check(rs.every((r) => r.status === grpc.status.UNAUTHENTICATED), `${N} concurrent ${SIZE >> 20} MiB Submits without a token: UNAUTHENTICATED`, rs.map((r) => r.status));
    check(grown < SIZE / 2, `peak RSS grows by less than half of one message (${SIZE >> 20} MiB), not by the ${N} messages`, grown);
    check(Math.max(...rs.map((r) => r.ms)) < 3000, 'answered before the messages are sent (under 3 s)', rs.map((r) => r.ms));
    session.close();
    check((await stopDaemon(d))?.code === 0, 'SIGTERM: exit 0');

    // With the token, messages are read, at most max_concurrent_receives (2) at once: a
    // stream beyond them gets no more than its 64 KiB window through. Sampled from the
    // client side: streams that got over 1 MiB through and not yet all of it (a stream the
    // daemon has read whole waits only for its answer, which a loaded machine delays).
    const d2 = await startDaemon('mem2', ['listen = 127.0.0.1:0', `auth_token = ${TOKEN}`, 'max_message_size = 64MiB',
                                          'max_concurrent_receives = 2']);
    if (!d2.info) { check(false, 'czkd starts with max_concurrent_receives', d2.log().slice(-600)); return; }
    const s2 = http2.connect(`http://${target(d2)}`);
    s2.on('error', () => {});
    const base2 = vmHWM(d2.proc.pid);
    const tracks = Array.from({ length: N }, () => ({ sent: 0, through: false, done: false }));
    let most = 0, sampling = true;
    const sampler = (async () => {
        while (sampling) {
            most = Math.max(most, tracks.filter((t) => !t.done && !t.through && t.sent > (1 << 20)).length);
            await sleep(5);
        }
    })();
    const rs2 = await Promise.all(tracks.map((track) => rawGrpc(s2, '/czk.v1.Czk/Submit', body, { token: TOKEN, track })));
    sampling = false;
    await sampler;
    const grown2 = vmHWM(d2.proc.pid) - base2;
    log(`${N} × ${SIZE >> 20} MiB authorized garbage Submits: at most ${most} read at once, peak RSS +${(grown2 / 1048576).toFixed(1)} MiB`);
    check(rs2.every((r) => r.status === grpc.status.INVALID_ARGUMENT && r.message.includes('cannot decode')),
          'with the token: read and refused as undecodable (INVALID_ARGUMENT)', rs2.map((r) => [r.status, r.message.slice(0, 40)]));
    check(most >= 1 && most <= 3, `at most max_concurrent_receives (2) messages are read at once (one more may be between slots), not ${N}`, most);
    s2.close();
    const h = mkClient(pkg.grpc.health.v1.Health, target(d2));
    check(await healthOf(h) === 'SERVING', 'still SERVING');
    h.close();
    check((await stopDaemon(d2))?.code === 0, 'SIGTERM: exit 0');
}

async function testGzipBomb() {
    log('decompression bomb: compressed requests are refused before they are inflated');
    const d = await startDaemon('gzip', ['listen = 127.0.0.1:0', 'max_message_size = 4MiB']);
    if (!d.info) { check(false, 'czkd starts for the gzip case', d.log().slice(-600)); return; }
    // 512 MiB of zeros in about half a megabyte of gzip, made a chunk at a time.
    const gz = zlib.createGzip({ level: 9 });
    const parts = [];
    gz.on('data', (b) => parts.push(b));
    const ended = new Promise((r) => gz.on('end', r));
    const chunk = Buffer.alloc(1 << 20);
    for (let i = 0; i < 512; i++) if (!gz.write(chunk)) await new Promise((r) => gz.once('drain', r));
    gz.end();
    await ended;
    const bomb = Buffer.concat(parts);
    const base = vmHWM(d.proc.pid);
    const session = http2.connect(`http://${target(d)}`);
    session.on('error', () => {});
    const rs = await Promise.all(Array.from({ length: 4 }, () => rawGrpc(session, '/czk.v1.Czk/Submit', bomb, { encoding: 'gzip', compressed: true })));
    const grown = vmHWM(d.proc.pid) - base;
    log(`4 gzip Submits of ${bomb.length} bytes (512 MiB inflated): peak RSS +${(grown / 1048576).toFixed(1)} MiB`);
    check(rs.every((r) => r.status === grpc.status.UNIMPLEMENTED), 'a gzip-compressed Submit is refused: UNIMPLEMENTED (compression off)', rs.map((r) => [r.status, r.message]));
    check(grown < 64 << 20, 'peak RSS grows by less than 64 MiB (nothing is inflated)', grown);
    session.close();
    // Uncompressed calls still work.
    const c = mkClient(pkg.czk.v1.Czk, target(d));
    check(!(await call(c, 'GetStatus', {}, { token: '' })).err, 'an uncompressed call is served');
    c.close();
    check((await stopDaemon(d))?.code === 0, 'SIGTERM: exit 0');
}

// HTTP/2 frames by hand: streams opened and reset at once, as fast as the socket takes them.
function h2frame(type, flags, stream, payload) {
    const f = Buffer.alloc(9 + payload.length);
    f.writeUIntBE(payload.length, 0, 3);
    f[3] = type;
    f[4] = flags;
    f.writeUInt32BE(stream, 5);
    payload.copy(f, 9);
    return f;
}
function hpackLiteral(headers) {
    const out = [];
    for (const [k, v] of headers) out.push(Buffer.from([0x00, k.length]), Buffer.from(k), Buffer.from([v.length]), Buffer.from(v));
    return Buffer.concat(out);
}

async function testRapidReset() {
    log('HTTP/2 rapid reset: a connection that opens and resets streams without end is closed');
    const d = await startDaemon('rst', ['listen = 127.0.0.1:0']); // daemon.max_client_resets: 1000 per 10 s
    if (!d.info) { check(false, 'czkd starts for the rapid-reset case', d.log().slice(-600)); return; }
    const block = hpackLiteral([[':method', 'POST'], [':scheme', 'http'], [':path', '/grpc.health.v1.Health/Check'],
                                [':authority', 'x'], ['content-type', 'application/grpc'], ['te', 'trailers']]);
    const rst = Buffer.alloc(4);
    rst.writeUInt32BE(8); // CANCEL
    const STREAMS = 20000;
    const res = await new Promise((resolve) => {
        const s = net.connect(d.info.grpc_port, '127.0.0.1');
        let closed = false, goaway = false, sent = 0, closedAfter = -1, buf = Buffer.alloc(0);
        const t1 = Date.now();
        s.on('error', () => {});
        s.on('data', (b) => {
            buf = Buffer.concat([buf, b]);
            while (buf.length >= 9) {
                const len = buf.readUIntBE(0, 3);
                if (buf.length < 9 + len) break;
                if (buf[3] === 7) goaway = true;
                buf = buf.subarray(9 + len);
            }
        });
        s.on('close', () => { closed = true; closedAfter = sent; });
        s.on('connect', async () => {
            s.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), h2frame(4, 0, 0, Buffer.alloc(0))]));
            for (let id = 1; sent < STREAMS && !closed; id += 2) {
                const frames = [];
                for (let k = 0; k < 100 && sent < STREAMS; k++, id += 2, sent++)
                    frames.push(h2frame(1, 0x4, id, block), h2frame(3, 0, id, rst));
                id -= 2;
                if (!s.write(Buffer.concat(frames))) await drained(s);
                await sleep(0);
            }
            const t2 = Date.now();
            while (!closed && Date.now() - t2 < 5000) await sleep(50);
            s.destroy();
            resolve({ closed, goaway, closedAfter, sent, ms: Date.now() - t1 });
        });
    });
    log(`rapid reset: ${res.sent} streams sent, connection ${res.closed ? `closed after ${res.closedAfter}` : 'still open'} (${res.ms} ms)`);
    check(res.closed && res.closedAfter < STREAMS, `${STREAMS} streams opened and reset on one connection: czkd closes it before the end`, res);
    const m = await rawHttp(d.info.metrics_port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    const cut = Number((/^czk_grpc_connections_closed_total\{reason="resets"\} (\d+)/m.exec(m.data) || [])[1] || -1);
    check(cut >= 1, 'czk_grpc_connections_closed_total{reason="resets"} counts it', cut);
    // Another client is served, at the latest once the calls the flood left behind have
    // drained (a health call finding the token-less queue full is refused at once).
    const h = mkClient(pkg.grpc.health.v1.Health, target(d));
    const t1 = Date.now();
    const seen = [];
    while (Date.now() - t1 < 3000) {
        seen.push(await healthOf(h));
        if (seen.at(-1) === 'SERVING') break;
        await sleep(100);
    }
    log(`health on another connection after the flood: ${seen.join(', ')} (${Date.now() - t1} ms)`);
    check(seen.at(-1) === 'SERVING', 'another connection is served (SERVING within 3 s)', seen);
    h.close();
    // A client that cancels an ordinary number of calls keeps its connection.
    const c = mkClient(pkg.czk.v1.Czk, target(d));
    for (let i = 0; i < 50; i++) {
        const cl = c.GetStatus({}, authMd(''), () => {});
        cl.cancel();
    }
    await sleep(300);
    check(!(await call(c, 'GetStatus', {}, { token: '' })).err, 'a client cancelling 50 calls keeps its connection');
    c.close();
    check((await stopDaemon(d))?.code === 0, 'SIGTERM: exit 0');
}

function makeCircuit(name, constraints) {
    const r1cs = path.join(work, `${name}.r1cs`), wtns = path.join(work, `${name}.wtns`), zkey = path.join(params, `${name}.zkey`);
    if (!existsSync(zkey) || !existsSync(wtns)) {
        let r = run(czk, ['gen-circuit', '--kind', 'power5', '--constraints', String(constraints), '--r1cs', r1cs, '--wtns', wtns]);
        if (r.code !== 0) throw new Error(`gen-circuit: ${r.err}`);
        r = run(czk, ['setup', '--r1cs', r1cs, '--zkey', zkey]);
        if (r.code !== 0) throw new Error(`setup: ${r.err}`);
    }
    return { name, wtns: readFileSync(wtns) };
}

async function testQueuedBytes() {
    log('queued payloads: bounded in bytes (daemon.max_queued_bytes)');
    const c16 = makeCircuit('q16k', 16384);
    const size = c16.wtns.length;
    const d = await startDaemon('queue', ['listen = 127.0.0.1:0', `max_queued_bytes = ${Math.floor(size * 2.5)}`,
                                          '[synthesis]', 'workers = 1', 'threads = 1', '[daemon]']);
    if (!d.info) { check(false, 'czkd starts with max_queued_bytes', d.log().slice(-600)); return; }
    const c = mkClient(pkg.czk.v1.Czk, target(d));
    const req = { kind: 'CIRCOM', circuit: c16.name, witness: c16.wtns };
    const rs = [];
    for (let i = 0; i < 3; i++) rs.push(await call(c, 'Submit', req, { token: '' }));
    check(!rs[0].err && !rs[1].err, `two ${(size / 1024).toFixed(0)} KiB witnesses fit max_queued_bytes (2.5 of them)`, rs.map((r) => r.err?.details));
    check(rs[2].err?.code === grpc.status.RESOURCE_EXHAUSTED && rs[2].err.details.includes('max_queued_bytes'),
          'the third: RESOURCE_EXHAUSTED naming max_queued_bytes', rs[2].err ? `${rs[2].err.code} ${rs[2].err.details}` : 'accepted');
    const m = await rawHttp(d.info.metrics_port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    const held = Number((/^czk_queued_payload_bytes (\d+)/m.exec(m.data) || [])[1] || -1);
    check(held >= 2 * size, 'czk_queued_payload_bytes shows the payloads held', held);
    for (const r of rs.slice(0, 2)) if (r.res) await call(c, 'Await', { job_id: r.res.job.job_id, timeout_ms: 60000 }, { token: '', deadlineMs: 70000 });
    const after = await call(c, 'Submit', req, { token: '' });
    check(!after.err, 'once they finished, a submission fits again', after.err?.details);
    if (after.res) await call(c, 'Await', { job_id: after.res.job.job_id, timeout_ms: 60000 }, { token: '', deadlineMs: 70000 });
    const m2 = await rawHttp(d.info.metrics_port, 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n');
    const held2 = Number((/^czk_queued_payload_bytes (\d+)/m.exec(m2.data) || [])[1] || -1);
    check(held2 === 0, 'and nothing is held once every job finished', held2);
    c.close();
    check((await stopDaemon(d))?.code === 0, 'SIGTERM: exit 0');
}

// ---------------------------------------------------------------------------------------
// MODE may name one case to run alone: limits:testRapidReset.
const [group, only] = mode.split(':');
let cases = group === 'config' ? [testFailClosed, testHttp, testUnixSocketMode]
          : group === 'limits' ? [testFdExhaustion, testEmfile, testMemoryBeforeAuth, testGzipBomb, testRapidReset, testQueuedBytes]
          : null;
if (!cases) { console.error(`unknown mode ${mode}`); process.exit(2); }
if (only) cases = cases.filter((f) => f.name === only);
for (const f of cases) {
    try { await f(); } catch (e) { check(false, `${f.name} threw`, e.stack); }
}
log(`${tally.passed} passed, ${tally.failed} failed`);
process.exit(tally.failed ? 1 : 0);
