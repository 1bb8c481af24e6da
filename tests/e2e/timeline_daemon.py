#!/usr/bin/env python3
"""czkd's timeline and metrics, end to end.

Usage: timeline_daemon.py CZKD CZK SOURCE_DIR WORK_DIR

1. czkd (CPU prover, ephemeral ports, a 4 KiB timeline.max_size so that rotation
   happens) proves a few circom jobs submitted with the czk client.
2. <data_dir>/timeline.jsonl (and its rotated files) hold every job's events as JSON
   lines, in order: queued, synthesis start/end, prover start/end on "cpu", verified, done.
3. `czk timeline --in` and `czk timeline --addr` both draw every job; the SVGs parse
   with xml.etree.
4. Every metric name docker/grafana-czk.json queries, and every label value it matches
   exactly, appears in a live /metrics scrape.
5. /healthz answers 200; SIGTERM drains and czkd exits 0.
Exit 0 on success, 1 on any failure (each printed).
"""
import glob
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
import xml.etree.ElementTree as ET

czkd, czk, src, work = sys.argv[1:5]
failures = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond or not detail else ": " + str(detail)[:2000]))
    if not cond:
        failures.append(what)
    return cond


def run(args, timeout=120):
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


os.makedirs(work, exist_ok=True)
params, data = os.path.join(work, "params"), os.path.join(work, "data")
os.makedirs(params, exist_ok=True)
for f in glob.glob(os.path.join(data, "*")):
    os.remove(f)
r1cs, wtns = os.path.join(work, "c.r1cs"), os.path.join(work, "c.wtns")
rc, out, err = run([czk, "gen-circuit", "--kind", "power5", "--constraints", "1022", "--r1cs", r1cs, "--wtns", wtns])
if not check(rc == 0, "gen-circuit", err):
    sys.exit(1)
rc, out, err = run([czk, "setup", "--r1cs", r1cs, "--zkey", os.path.join(params, "tl.zkey")])
if not check(rc == 0, "setup --zkey", err):
    sys.exit(1)

ready = os.path.join(work, "ready.json")
if os.path.exists(ready):
    os.remove(ready)
log = open(os.path.join(work, "czkd.log"), "w")
proc = subprocess.Popen([czkd, "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0",
                         "--data-dir", data, "--param-dir", params, "--daemon-ready-file=" + ready,
                         "--gpus-mode=cpu", "--synthesis-threads=2", "--timeline-max-size=4KiB",
                         "--timeline-keep=5", "--daemon-drain-grace=10s"],
                        stdout=log, stderr=subprocess.STDOUT)
try:
    for _ in range(400):
        if os.path.exists(ready) or proc.poll() is not None:
            break
        time.sleep(0.05)
    if not check(os.path.exists(ready), "czkd started", open(os.path.join(work, "czkd.log")).read()):
        sys.exit(1)
    info = json.load(open(ready))
    addr = "127.0.0.1:%d" % info["grpc_port"]
    murl = "http://127.0.0.1:%d" % info["metrics_port"]

    # 1. Jobs: submitted together so that they queue behind each other.
    jobs = []
    for i in range(6):
        rc, out, err = run([czk, "submit", "--addr", addr, "--kind", "circom", "--circuit", "tl", "--wtns", wtns])
        m = re.search(r"(j-[0-9a-f]+)", out)
        if check(rc == 0 and m, "submit %d" % i, out + err):
            jobs.append(m.group(1))
    for j in jobs:
        rc, out, err = run([czk, "await", "--addr", addr, "--timeout", "60000", j])
        check(rc == 0, "await " + j, out + err)

    # 2. The event log: the writer is asynchronous, so wait for the last job's done.
    tl = os.path.join(data, "timeline.jsonl")
    events = []
    for _ in range(100):
        files = sorted(glob.glob(tl + ".*"), key=lambda p: -int(p.rsplit(".", 1)[1])) + [tl]
        events = []
        bad = 0
        for p in files:
            if not os.path.exists(p):
                continue
            for line in open(p):
                try:
                    events.append(json.loads(line))
                except ValueError:
                    bad += 1
        if jobs and any(e["job"] == jobs[-1] and e["event"] == "done" for e in events):
            break
        time.sleep(0.1)
    check(bad == 0, "every timeline line is JSON", bad)
    rotated = glob.glob(tl + ".*")
    check(len(rotated) >= 1 and all(os.path.getsize(p) <= 4096 for p in rotated),
          "timeline.jsonl rotated at timeline.max_size (4 KiB)", [(p, os.path.getsize(p)) for p in rotated])
    expect = ["queued", "partition_synth_start", "partition_synthesized", "gpu_start", "gpu_end", "verified", "done"]
    for j in jobs:
        evs = [e for e in events if e["job"] == j]
        names = [e["event"] for e in evs if e["event"] in expect]
        check(names == expect, "events of %s in order" % j, names)
        ts = [e["t_us"] for e in evs]
        check(ts == sorted(ts) and ts and ts[0] > 1.7e15, "times of %s increase" % j, ts)
        q = [e for e in evs if e["event"] == "queued"]
        check(q and q[0].get("kind") == "circom" and q[0].get("circuit") == "circom:tl",
              "queued event names the kind and circuit", q)
        g = [e for e in evs if e["event"] == "gpu_start"]
        check(g and g[0]["worker"] == "cpu" and g[0]["partition"] == 0, "prover span on the cpu worker", g)

    # 3. Drawings from the file and from the daemon.
    # The rotated files as they are, newest first: the order must not matter.
    in_args = []
    for p in [tl] + sorted(glob.glob(tl + ".*")):
        in_args += ["--in", p]
    for how, args in (("--in", in_args), ("--addr", ["--addr", addr])):
        svg = os.path.join(work, "tl%s.svg" % how.replace("-", "_"))
        rc, out, err = run([czk, "timeline"] + args + ["--out", svg])
        if not check(rc == 0, "czk timeline " + how, out + err):
            continue
        try:
            root = ET.parse(svg).getroot()
        except ET.ParseError as ex:
            check(False, "SVG from %s parses" % how, ex)
            continue
        ns = "{http://www.w3.org/2000/svg}"
        drawn = {g.get("data-job") for g in root.iter(ns + "g") if g.get("class") == "job"}
        check(set(jobs) <= drawn, "czk timeline %s draws every job" % how, (jobs, drawn))
        proves = [r for r in root.iter(ns + "rect") if r.get("class") == "prove" and r.get("data-job") in jobs]
        check(len(proves) == len(jobs) and all(r.get("data-worker") == "cpu" for r in proves),
              "czk timeline %s: one cpu prover span per job" % how, len(proves))
        lanes = [g.get("data-lane") for g in root.iter(ns + "g") if g.get("class") == "lane"]
        check(lanes == ["cpu"], "czk timeline %s: one lane, cpu" % how, lanes)

    # 4. The Grafana dashboard against a live scrape.
    scrape = urllib.request.urlopen(murl + "/metrics", timeout=10).read().decode()
    samples = {}
    for line in scrape.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s", line)
        if m:
            labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(3) or ""))
            samples.setdefault(m.group(1), []).append(labels)
    dash = json.load(open(os.path.join(src, "docker", "grafana-czk.json")))
    exprs = []

    def walk(o):
        if isinstance(o, dict):
            if isinstance(o.get("expr"), str):
                exprs.append(o["expr"])
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    walk(dash)
    check(len(exprs) >= 20, "the dashboard has its queries", len(exprs))
    promql_words = {"sum", "by", "rate", "increase", "avg", "max", "min", "histogram_quantile", "count",
                    "label_values", "le", "without", "on", "ignoring"}
    names = set()
    for e in exprs:
        # Grouping clauses name labels, not metrics.
        e = re.sub(r"\b(by|without)\s*\([^)]*\)", " ", e)
        for sel in re.finditer(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(\{([^}]*)\})?", e):
            name = sel.group(1)
            if name in promql_words or not re.match(r"(czk|grpc|process)_", name):
                continue
            names.add(name)
            # Per-GPU series have no samples on a machine without a GPU: their TYPE line must
            # still be there.
            check(name in samples or "# TYPE %s " % name in scrape,
                  "dashboard metric %s is in /metrics" % name)
            for lab, op, val in re.findall(r'(\w+)\s*(=~|!=|=)\s*"([^"]*)"', sel.group(3) or ""):
                if lab == "instance" or name not in samples:
                    continue
                have = {s.get(lab) for s in samples[name]}
                if op == "=":
                    check(val in have, "%s{%s=%r} exists" % (name, lab, val), sorted(x for x in have if x))
                elif op == "=~":
                    # Every alternative of a plain a|b|c matcher must exist; patterns with .* need one match.
                    if re.fullmatch(r"[\w|]+", val):
                        for alt in val.split("|"):
                            check(alt in have, "%s{%s=~...%r} exists" % (name, lab, alt), sorted(x for x in have if x))
                    else:
                        check(lab in {k for s in samples[name] for k in s}, "%s has label %s" % (name, lab))
    check(len(names) >= 20, "the dashboard covers the metrics", sorted(names))
    # ... and the reverse: every czk metric the daemon exports is on the dashboard.
    base = {re.sub(r"_(bucket|sum|count)$", "", n) if n.startswith("czk_stage_seconds") else n for n in samples}
    used = {re.sub(r"_(bucket|sum|count)$", "", n) if n.startswith("czk_stage_seconds") else n for n in names}
    missing = sorted(n for n in base if n.startswith("czk_") and n not in used)
    check(not missing, "every czk_* metric is on the dashboard", missing)

    # 5. Health, then an orderly stop.
    h = urllib.request.urlopen(murl + "/healthz", timeout=10)
    check(h.status == 200, "/healthz 200 while serving", h.status)
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        code = -9
    check(code == 0, "czkd exits 0 after SIGTERM", code)
    lines = open(tl).read().splitlines()
    check(all(json.loads(x) for x in lines), "timeline.jsonl is whole after the stop")
finally:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    log.close()

if failures:
    print("%d check(s) failed; daemon log: %s" % (len(failures), os.path.join(work, "czkd.log")))
    sys.exit(1)
print("all checks passed")
