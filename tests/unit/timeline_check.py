#!/usr/bin/env python3
"""Reads back an SVG written by `czk timeline` and checks it against expectations.

Usage: timeline_check.py SVG EXPECT.json

The SVG must parse as XML (xml.etree, independent of the C writer); EXPECT.json names
what the drawing must contain, computed by the test from the event log it wrote:
  jobs, partitions           counts of <g class="job"> and of prove spans
  busy_pct                   the <svg data-busy-pct> (GPU busy share), within 0.05
  lanes {name: busy_pct}     each lane's data-busy-pct, within 0.05
  gaps [[lane, start_ms, dur_ms], ...]  every idle gap, exactly these, within 0.01 ms
  spans [[class, job, partition, start_ms, dur_ms], ...]  spans that must be present
                             (partition null: a job-level span such as the parameter load)
  title_contains [str]       substrings of the title
  states {job: state}        data-state of each job group
Exit 0 when everything matches; otherwise every mismatch is printed and exit 1.
"""
import json
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main():
    svg_path, exp_path = sys.argv[1], sys.argv[2]
    exp = json.load(open(exp_path))
    root = ET.parse(svg_path).getroot()  # raises on malformed XML
    errors = []
    if root.tag != NS + "svg":
        errors.append("root is %s, not svg" % root.tag)

    def near(a, b, tol):
        return abs(float(a) - float(b)) <= tol

    rects = list(root.iter(NS + "rect"))
    jobs = [g for g in root.iter(NS + "g") if g.get("class") == "job"]
    if "jobs" in exp and len(jobs) != exp["jobs"]:
        errors.append("jobs: %d drawn, %d expected" % (len(jobs), exp["jobs"]))
    proves = [r for r in rects if r.get("class") == "prove"]
    if "partitions" in exp and len(proves) != exp["partitions"]:
        errors.append("prove spans: %d drawn, %d expected" % (len(proves), exp["partitions"]))
    if "busy_pct" in exp and not near(root.get("data-busy-pct"), exp["busy_pct"], 0.05):
        errors.append("busy %% %s, expected %.2f" % (root.get("data-busy-pct"), exp["busy_pct"]))
    lanes = {g.get("data-lane"): g for g in root.iter(NS + "g") if g.get("class") == "lane"}
    for name, pct in exp.get("lanes", {}).items():
        if name not in lanes:
            errors.append("lane %s missing (have %s)" % (name, sorted(lanes)))
        elif not near(lanes[name].get("data-busy-pct"), pct, 0.05):
            errors.append("lane %s busy %s, expected %.2f" % (name, lanes[name].get("data-busy-pct"), pct))
    if "lanes" in exp and len(lanes) != len(exp["lanes"]):
        errors.append("lanes: %s drawn, %s expected" % (sorted(lanes), sorted(exp["lanes"])))
    if "gaps" in exp:
        gaps = sorted((r.get("data-lane"), float(r.get("data-start-ms")), float(r.get("data-dur-ms")))
                      for r in rects if r.get("class") == "gap")
        want = sorted((g[0], float(g[1]), float(g[2])) for g in exp["gaps"])
        if len(gaps) != len(want) or any(
                a[0] != b[0] or not near(a[1], b[1], 0.01) or not near(a[2], b[2], 0.01)
                for a, b in zip(gaps, want)):
            errors.append("gaps %s, expected %s" % (gaps, want))
    for cls, job, part, start, dur in exp.get("spans", []):
        found = [r for r in rects if r.get("class") == cls and r.get("data-job") == job
                 and r.get("data-partition") == (None if part is None else str(part))]
        if not any(near(r.get("data-start-ms"), start, 0.01) and near(r.get("data-dur-ms"), dur, 0.01)
                   for r in found):
            errors.append("span %s %s p%s at %.3f+%.3f ms missing (found %s)" % (
                cls, job, part, start, dur,
                [(r.get("data-start-ms"), r.get("data-dur-ms")) for r in found]))
    title = "".join(t.text or "" for t in root.iter(NS + "text") if t.get("class") == "title")
    for s in exp.get("title_contains", []):
        if s not in title:
            errors.append("title %r lacks %r" % (title, s))
    states = {g.get("data-job"): g.get("data-state") for g in jobs}
    for job, st in exp.get("states", {}).items():
        if states.get(job) != st:
            errors.append("job %s state %s, expected %s" % (job, states.get(job), st))
    for e in errors:
        print("timeline_check: " + e)
    if not errors:
        print("timeline_check: %s ok (%d rects, %d jobs)" % (svg_path, len(rects), len(jobs)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
