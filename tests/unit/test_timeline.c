/*
 * czk timeline on a synthetic event log: the SVG must be well-formed XML (read back by
 * python3's xml.etree in tests/unit/timeline_check.py, not by our own code) and contain
 * exactly the spans, device lanes, busy shares and idle gaps the log implies. The log's
 * time base and scale are drawn from the run's seed; the expectations are worked out
 * here by hand from the scenario, independently of the drawing code's interval merging.
 * Skips (77) when the czk tool or python3 is missing.
 */
#include "czk_test.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *czk_bin = CZK_BINARY_DIR "/bin/czk";
static const char *checker = CZK_SOURCE_DIR "/tests/unit/timeline_check.py";
static char dir[256];
static uint64_t base_us, u; /* the scenario's origin and its time unit, µs */

static void ev(FILE *f, uint64_t t, const char *job, const char *event, int part, const char *worker,
               const char *extra)
{
    fprintf(f, "{\"t_us\":%llu,\"job\":\"%s\",\"event\":\"%s\",\"partition\":%d,\"worker\":\"%s\"%s}\n",
            (unsigned long long)(base_us + t * u), job, event, part, worker, extra ? extra : "");
}

/* Four jobs on two GPUs with two workers on gpu0 (overlapping spans), a back-to-back
 * pair on gpu1 (touching: no gap) and one 100-unit idle gap on gpu0. */
static void write_log(const char *path)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    ev(f, 0, "j-aaaa", "queued", -1, "", ",\"kind\":\"porep\",\"circuit\":\"porep-32g\",\"priority\":2");
    ev(f, 1, "j-aaaa", "params_loading", -1, "loader", NULL);
    ev(f, 5, "j-bbbb", "queued", -1, "", ",\"kind\":\"circom\",\"circuit\":\"circom:tiny\"");
    ev(f, 8, "j-aaaa", "params_loaded", -1, "loader", ",\"message\":\"47 GB in 7 ms \\\"fast\\\"\"");
    ev(f, 10, "j-aaaa", "partition_synth_start", 0, "synth0", NULL);
    ev(f, 10, "j-aaaa", "partition_synth_start", 1, "synth1", NULL);
    ev(f, 20, "j-aaaa", "partition_synth_start", 2, "synth2", NULL);
    ev(f, 30, "j-cccc", "queued", -1, "", ",\"kind\":\"wpost\"");
    ev(f, 40, "j-aaaa", "partition_synthesized", 0, "synth0", NULL);
    fprintf(f, "this line is not JSON\n");
    ev(f, 40, "j-x<&\\\"y", "queued", -1, "", ",\"kind\":\"snap<>\"");
    ev(f, 50, "j-aaaa", "partition_synthesized", 1, "synth1", NULL);
    ev(f, 50, "j-x<&\\\"y", "cancelled", -1, "", ",\"message\":\"cancelled by request\"");
    ev(f, 60, "j-aaaa", "partition_synthesized", 2, "synth2", NULL);
    ev(f, 60, "j-bbbb", "partition_synth_start", 0, "syn<th>&3", NULL); /* escaped in the tooltip */
    ev(f, 90, "j-bbbb", "partition_synthesized", 0, "synth3", NULL);
    ev(f, 100, "j-aaaa", "gpu_start", 0, "gpu0", NULL);
    ev(f, 100, "j-cccc", "partition_synth_start", 0, "synth0", NULL);
    ev(f, 120, "j-aaaa", "gpu_start", 2, "gpu1", NULL);
    ev(f, 130, "j-cccc", "partition_synthesized", 0, "synth0", NULL);
    ev(f, 150, "j-aaaa", "gpu_start", 1, "gpu0", NULL);
    ev(f, 200, "j-aaaa", "gpu_end", 0, "gpu0", NULL);
    ev(f, 220, "j-aaaa", "gpu_end", 2, "gpu1", NULL);
    ev(f, 220, "j-bbbb", "gpu_start", 0, "gpu1", NULL);
    ev(f, 250, "j-aaaa", "future_event_kind", 0, "x", NULL); /* unknown: ignored */
    ev(f, 300, "j-aaaa", "gpu_end", 1, "gpu0", NULL);
    ev(f, 310, "j-aaaa", "verified", -1, "finalizer", NULL);
    ev(f, 320, "j-aaaa", "done", -1, "", NULL);
    ev(f, 320, "j-bbbb", "gpu_end", 0, "gpu1", NULL);
    ev(f, 330, "j-bbbb", "done", -1, "", NULL);
    ev(f, 400, "j-cccc", "gpu_start", 0, "gpu0", NULL);
    ev(f, 500, "j-cccc", "gpu_end", 0, "gpu0", NULL);
    ev(f, 510, "j-cccc", "failed", -1, "", ",\"message\":\"verification failed\"");
    fprintf(f, "{\"t_us\":12"); /* a torn last line, as after kill -9 */
    fclose(f);
}

static int run(const char *cmd)
{
    fflush(stdout);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool check_svg(const char *svg, const char *expect_json, const char *name)
{
    char path[512], cmd[1400];
    snprintf(path, sizeof path, "%s/%s.expect.json", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return false;
    fputs(expect_json, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "python3 %s %s %s", checker, svg, path);
    return run(cmd) == 0;
}

/* Milliseconds of `units` scenario units, as the SVG's data-*-ms attributes give them. */
static double M(double units) { return units * (double)u / 1000.0; }

static void test_full(void)
{
    char log[300], svg[300], cmd[1200], exp[4096];
    snprintf(log, sizeof log, "%s/timeline.jsonl", dir);
    snprintf(svg, sizeof svg, "%s/full.svg", dir);
    write_log(log);
    snprintf(cmd, sizeof cmd, "%s timeline --in %s --out %s", czk_bin, log, svg);
    CHECK(run(cmd) == 0);
    /* gpu0: [100,300] (two workers overlapping) and [400,500]: busy 300 of 400 = 75%,
     * one gap at 300 of 100 units. gpu1: [120,220] and [220,320] touch: 100%, no gap.
     * GPU busy overall: (300 + 200) / (400 + 200). */
    snprintf(exp, sizeof exp,
             "{\"jobs\":4,\"partitions\":5,\"busy_pct\":%.4f,"
             "\"lanes\":{\"gpu0\":75.0,\"gpu1\":100.0},"
             "\"gaps\":[[\"gpu0\",%.3f,%.3f]],"
             "\"spans\":[[\"queue\",\"j-aaaa\",0,0,%.3f],[\"synth\",\"j-aaaa\",1,%.3f,%.3f],"
             "[\"wait\",\"j-aaaa\",0,%.3f,%.3f],[\"prove\",\"j-cccc\",0,%.3f,%.3f],"
             "[\"prove\",\"j-aaaa\",1,%.3f,%.3f],[\"queue\",\"j-cccc\",0,%.3f,%.3f],"
             "[\"params\",\"j-aaaa\",null,%.3f,%.3f]],"
             "\"title_contains\":[\"4 jobs\",\"5 partitions\",\"GPU busy 83.3%%\",\"gpu0 75.0%%\","
             "\"gpu1 100.0%%\"],"
             "\"states\":{\"j-aaaa\":\"done\",\"j-bbbb\":\"done\",\"j-cccc\":\"failed\","
             "\"j-x___y\":\"cancelled\"}}",
             100.0 * 500 / 600, M(300), M(100), M(10), M(10), M(40), M(40), M(60), M(400), M(100),
             M(150), M(150), M(30), M(70), M(1), M(7));
    CHECK(check_svg(svg, exp, "full"));
}

/* The same log with its lines reversed (as when rotated files are given newest first)
 * draws the same spans: the drawing must not depend on the order of events. */
static void test_order(void)
{
    char log[300], rev[300], svg[300], cmd[1200];
    snprintf(log, sizeof log, "%s/timeline.jsonl", dir);
    snprintf(rev, sizeof rev, "%s/reversed.jsonl", dir);
    snprintf(svg, sizeof svg, "%s/reversed.svg", dir);
    snprintf(cmd, sizeof cmd, "tac %s > %s", log, rev);
    CHECK(run(cmd) == 0);
    snprintf(cmd, sizeof cmd, "%s timeline --in %s --out %s 2>/dev/null", czk_bin, rev, svg);
    CHECK(run(cmd) == 0);
    char exp[1024];
    snprintf(exp, sizeof exp,
             "{\"jobs\":4,\"partitions\":5,\"lanes\":{\"gpu0\":75.0,\"gpu1\":100.0},"
             "\"gaps\":[[\"gpu0\",%.3f,%.3f]],\"spans\":[[\"synth\",\"j-aaaa\",1,%.3f,%.3f],"
             "[\"prove\",\"j-aaaa\",1,%.3f,%.3f]]}",
             M(300), M(100), M(10), M(40), M(150), M(150));
    CHECK(check_svg(svg, exp, "reversed"));
}

static void test_filters(void)
{
    char log[300], svg[300], cmd[1200], exp[2048];
    snprintf(log, sizeof log, "%s/timeline.jsonl", dir);
    snprintf(svg, sizeof svg, "%s/jobs.svg", dir);
    snprintf(cmd, sizeof cmd, "%s timeline --in %s --out %s --jobs j-cccc,j-bb", czk_bin, log, svg);
    CHECK(run(cmd) == 0);
    /* Alone, each lane has one span (gpu0: c's; gpu1: b's): no gaps, both 100%. */
    snprintf(exp, sizeof exp,
             "{\"jobs\":2,\"partitions\":2,\"busy_pct\":100,\"lanes\":{\"gpu0\":100,\"gpu1\":100},"
             "\"gaps\":[],\"states\":{\"j-bbbb\":\"done\",\"j-cccc\":\"failed\"}}");
    CHECK(check_svg(svg, exp, "jobs"));

    /* --since 100 units before the newest event (510): only j-cccc ends after 410. */
    snprintf(svg, sizeof svg, "%s/since.svg", dir);
    snprintf(cmd, sizeof cmd, "%s timeline --in %s --out %s --since %llums", czk_bin, log, svg,
             (unsigned long long)(100 * u / 1000));
    CHECK(run(cmd) == 0);
    CHECK(check_svg(svg, "{\"jobs\":1,\"partitions\":1,\"lanes\":{\"gpu0\":100},\"gaps\":[],"
                         "\"states\":{\"j-cccc\":\"failed\"}}", "since"));

    /* --min-gap above the gap hides it; the busy share is unchanged. */
    snprintf(svg, sizeof svg, "%s/mingap.svg", dir);
    snprintf(cmd, sizeof cmd, "%s timeline --in %s --out %s --min-gap %.3f", czk_bin, log, svg, M(101));
    CHECK(run(cmd) == 0);
    CHECK(check_svg(svg, "{\"jobs\":4,\"gaps\":[],\"lanes\":{\"gpu0\":75,\"gpu1\":100}}", "mingap"));

    /* The checker must be able to fail: a wrong gap is reported. */
    snprintf(svg, sizeof svg, "%s/full.svg", dir);
    CHECK(!check_svg(svg, "{\"gaps\":[[\"gpu0\",0,1]]}", "negative"));
}

static void test_edges(void)
{
    char log[300], svg[300], cmd[1200];
    snprintf(log, sizeof log, "%s/empty.jsonl", dir);
    snprintf(svg, sizeof svg, "%s/empty.svg", dir);
    FILE *f = fopen(log, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
    snprintf(cmd, sizeof cmd, "%s timeline --in %s --out %s 2>/dev/null", czk_bin, log, svg);
    CHECK(run(cmd) == 0);
    CHECK(check_svg(svg, "{\"jobs\":0,\"partitions\":0,\"lanes\":{},\"gaps\":[]}", "empty"));
    /* Usage errors: exit 2. */
    snprintf(cmd, sizeof cmd, "%s timeline --in %s 2>/dev/null", czk_bin, log);
    CHECK(run(cmd) == 2);
    snprintf(cmd, sizeof cmd, "%s timeline --in %s/missing.jsonl --out %s 2>/dev/null", czk_bin, dir, svg);
    CHECK(run(cmd) == 2);
    snprintf(cmd, sizeof cmd, "%s timeline --in %s --out %s --since soon 2>/dev/null", czk_bin, log, svg);
    CHECK(run(cmd) == 2);
}

int main(void)
{
    czk_test_seed();
    if (access(czk_bin, X_OK) != 0) CZK_TEST_SKIP("%s is not built", czk_bin);
    if (run("python3 -c 'import xml.etree.ElementTree' 2>/dev/null") != 0)
        CZK_TEST_SKIP("python3 is not installed");
    snprintf(dir, sizeof dir, "%s/test_timeline.%ld", CZK_BINARY_DIR, (long)getpid());
    mkdir(dir, 0755);
    /* A base in 2026-2030 and a unit of 1..50 ms, both whole milliseconds so that the
     * --since and --min-gap arguments are exact. */
    base_us = (1767225600ull + czk_test_rand64() % 126230400ull) * 1000000ull;
    u = 1000 * (1 + czk_test_rand64() % 50);
    printf("base_us=%llu unit_us=%llu\n", (unsigned long long)base_us, (unsigned long long)u);
    RUN(test_full);
    RUN(test_order);
    RUN(test_filters);
    RUN(test_edges);
    int rc = czk_test_finish();
    if (rc == 0) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        run(cmd);
    }
    return rc;
}
