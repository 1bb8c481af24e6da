/*
 * The partition prover's device memory planner (src/groth16/gpu_plan.c), on the shapes of
 * the Filecoin circuits that matter (a 32 GiB PoRep partition, counts from upstream's
 * circuit tests as `czk circuit-info` prints them) and on small keys: which plan each
 * budget gets, that every plan fits its budget, that more memory never makes the plan
 * worse, that the minimum is refused below and accepted at, the MSM scratch bound against
 * the H MSM's measured 15 GB at 2^27, and one host copy shared by GPUs of different memory.
 */
#include "czk/gpu.h"
#include "czk_test.h"
#include "engine/engine_internal.h"

#include <math.h>
#include <string.h>

#define GIB (1ull << 30)

/* 32 GiB PoRep (StackedDrg32GiBV1_1): 130,278,541 constraints, 328 inputs, 130,169,893 aux,
 * A-dense aux 129,753,292, B-dense input 1 and aux 33,112,281. */
static czk_groth16_params porep32(void)
{
    czk_groth16_params k;
    memset(&k, 0, sizeof k);
    k.conv = CZK_H_BELLPERSON;
    k.log_m = 27;
    k.n_inputs = 328;
    k.n_aux = 130169893;
    k.h_len = (1u << 27) - 1;
    k.l_len = k.n_aux;
    k.a_len = 328 + 129753292;
    k.b_g1_len = k.b_g2_len = 1 + 33112281;
    return k;
}

static czk_groth16_params small_key(unsigned log_m)
{
    czk_groth16_params k;
    memset(&k, 0, sizeof k);
    k.log_m = log_m;
    k.n_inputs = 3;
    k.n_aux = (1u << log_m) - 10;
    k.h_len = (1u << log_m) - 1;
    k.l_len = k.n_aux;
    k.a_len = 3 + k.n_aux / 2;
    k.b_g1_len = k.b_g2_len = 1 + k.n_aux / 4;
    return k;
}

static uint64_t section_bytes(const czk_groth16_params *k, int s)
{
    return (uint64_t)czk_groth16_section_len(k, (czk_groth16_section)s) *
           czk_groth16_section_elem((czk_groth16_section)s);
}

/* What every plan must satisfy, whatever the budget. */
static void check_plan_invariants(const czk_gpu_plan *p, const czk_groth16_params *k)
{
    const uint64_t V = 32ull << k->log_m, Z = 32ull * (k->n_inputs + k->n_aux);
    uint64_t res = 0, total = 0;
    for (int s = 0; s < CZK_G16_SECTIONS; s++) {
        CHECK(p->resident[s] <= czk_groth16_section_len(k, (czk_groth16_section)s));
        res += (uint64_t)p->resident[s] * czk_groth16_section_elem((czk_groth16_section)s);
        total += section_bytes(k, s);
    }
    CHECK(res == p->resident_bytes);
    CHECK(p->streamed_bytes == total - res);
    CHECK(p->peak_bytes <= p->budget);
    /* The peak holds at least the resident sections and the H step's vectors. */
    CHECK(p->peak_bytes >= res + (p->abc_in_turn ? 2 : 3) * V);
    CHECK(p->copy_bytes == 3 * V + Z);
    /* Sections become resident in order: a later one only once the earlier are whole
     * (L, A, B_G1, B_G2, H). */
    static const int order[CZK_G16_SECTIONS] = {CZK_G16_L, CZK_G16_A, CZK_G16_B_G1,
                                               CZK_G16_B_G2, CZK_G16_H};
    for (int i = 1; i < CZK_G16_SECTIONS; i++)
        if (p->resident[order[i]] > 0)
            CHECK(p->resident[order[i - 1]] ==
                  czk_groth16_section_len(k, (czk_groth16_section)order[i - 1]));
    /* Whole MSM calls only when nothing streams; otherwise calls within the planner's sizes. */
    if (p->msm_chunk == 0)
        CHECK(czk_gpu_plan_all_resident(p, k));
    else
        CHECK(p->msm_chunk >= (1u << 20) && p->msm_chunk <= (1u << 24) &&
              (p->msm_chunk & (p->msm_chunk - 1)) == 0);
    CHECK(!p->witness_late || (p->abc_in_turn && !p->overlap));
    CHECK(p->min_budget <= p->budget);
    CHECK(p->est_s > 0 && p->est_copy_s > 0);
}

static void test_porep_whole_gpu(void)
{
    /* An H200 to itself: the plan czkd ran before plans existed (everything resident,
     * whole MSMs, witness MSMs beside H, whole twiddle level). */
    czk_groth16_params k = porep32();
    czk_gpu_plan p;
    czk_gpu_plan_opts o = {55.0, 0, 0};
    CHECK_STATUS(czk_gpu_plan_make(&p, &k, 139 * GIB, &o, NULL), CZK_OK);
    check_plan_invariants(&p, &k);
    CHECK(czk_gpu_plan_all_resident(&p, &k));
    CHECK(p.msm_chunk == 0 && p.overlap && !p.abc_in_turn && !p.witness_late && p.whole_tables);
    /* czk setup's porep-32g file is 47,373,928,632 bytes: the VK (868 bytes and 328 IC
     * points), five length prefixes, and the points the GPU holds. */
    CHECK(p.streamed_bytes == 0 && p.resident_bytes == 47373928632ull - 868 - 96 * 328 - 20);
}

static void test_porep_budgets(void)
{
    czk_groth16_params k = porep32();
    czk_gpu_plan_opts o = {55.0, 0, 0};
    double last_est = INFINITY;
    uint64_t min = 0;
    /* Every budget from the smallest card to the H200 in quarter GiB steps: each plan fits,
     * and more memory never gives a slower estimate. */
    for (uint64_t b = 8 * GIB; b <= 139 * GIB; b += GIB / 4) {
        czk_gpu_plan p;
        czk_err e;
        czk_status st = czk_gpu_plan_make(&p, &k, b, &o, &e);
        if (st != CZK_OK) {
            CHECK(st == CZK_ERESOURCE);
            CHECK(b < p.min_budget);
            CHECK(strstr(e.msg, "needs at least") != NULL);
            min = p.min_budget;
            continue;
        }
        check_plan_invariants(&p, &k);
        CHECK(p.est_s <= last_est + 1e-9);
        last_est = p.est_s;
    }
    /* The floor for a 2^27 partition: it proves on the GPU down to 10 GiB. */
    CHECK(min > 0 && min < 10 * GIB);
    czk_gpu_plan p;
    CHECK_STATUS(czk_gpu_plan_make(&p, &k, min, &o, NULL), CZK_OK);
    CHECK_STATUS(czk_gpu_plan_make(&p, &k, min - 1, &o, NULL), CZK_ERESOURCE);
    char msg[64];
    snprintf(msg, sizeof msg, "needs at least %.2f GiB", (double)min / GIB);
    czk_err e;
    czk_err_clear(&e);
    CHECK_STATUS(czk_gpu_plan_make(&p, &k, min - 1, &o, &e), CZK_ERESOURCE);
    CHECK_MSG(strstr(e.msg, msg) != NULL, "message \"%s\" lacks \"%s\"", e.msg, msg);

    /* 16 GiB cannot hold a, b, c and the witness at once beside anything: a·b first. */
    CHECK_STATUS(czk_gpu_plan_make(&p, &k, 16 * GIB, &o, NULL), CZK_OK);
    CHECK(p.abc_in_turn);
    CHECK(!czk_gpu_plan_all_resident(&p, &k) && p.msm_chunk != 0);
    /* The witness MSMs still run beside H's, all in calls of 2^23: on the H200 a partition
     * every 1.84 s, against 2.33 s with them after H in calls of 2^24. */
    CHECK(p.overlap && !p.witness_late && p.msm_chunk == (size_t)1 << 23);
    /* 10 GiB: two vectors are all the H step may hold, and the witness cannot sit beside H. */
    CHECK_STATUS(czk_gpu_plan_make(&p, &k, 10 * GIB, &o, NULL), CZK_OK);
    CHECK(p.abc_in_turn && p.witness_late);
    /* 48 GiB: the witness sections stay (L and A whole), H streams under its own MSM. */
    CHECK_STATUS(czk_gpu_plan_make(&p, &k, 48 * GIB, &o, NULL), CZK_OK);
    CHECK(p.resident[CZK_G16_L] == k.l_len && p.resident[CZK_G16_A] == k.a_len);
    CHECK(p.resident[CZK_G16_H] < k.h_len);
    char line[512];
    CHECK(czk_gpu_plan_format(&p, &k, line, sizeof line) > 0);
    CHECK(strstr(line, "resident=l,a,") != NULL && strstr(line, "abc=at_once") != NULL);
    printf("# 48 GiB: %s\n", line);
}

static void test_other_working(void)
{
    /* Room left for another key's proof takes residency away, never the plan's fit. */
    czk_groth16_params k = porep32();
    czk_gpu_plan a, b;
    czk_gpu_plan_opts o = {55.0, 0, 0};
    CHECK_STATUS(czk_gpu_plan_make(&a, &k, 80 * GIB, &o, NULL), CZK_OK);
    o.other_working = 40 * GIB;
    CHECK_STATUS(czk_gpu_plan_make(&b, &k, 80 * GIB, &o, NULL), CZK_OK);
    check_plan_invariants(&b, &k);
    CHECK(b.resident_bytes < a.resident_bytes);
    CHECK(b.peak_bytes >= b.resident_bytes + 40 * GIB);
    CHECK(b.min_budget > a.min_budget);
}

static void test_small_keys(void)
{
    /* A 2^16 key fits anything above a few hundred MB whole; its minimum is small. */
    czk_groth16_params k = small_key(16);
    czk_gpu_plan p;
    CHECK_STATUS(czk_gpu_plan_make(&p, &k, 1 * GIB, NULL, NULL), CZK_OK);
    check_plan_invariants(&p, &k);
    CHECK(czk_gpu_plan_all_resident(&p, &k) && p.msm_chunk == 0 && p.overlap);
    CHECK(p.min_budget < GIB);
    /* Budgets around a 2^22 key's size force each kind of plan in turn. */
    k = small_key(22);
    bool saw_partial = false, saw_in_turn = false, saw_whole = false;
    for (uint64_t b = p.min_budget; b <= 4 * GIB; b += 16ull << 20) {
        if (czk_gpu_plan_make(&p, &k, b, NULL, NULL) != CZK_OK) continue;
        check_plan_invariants(&p, &k);
        saw_whole |= czk_gpu_plan_all_resident(&p, &k);
        saw_partial |= !czk_gpu_plan_all_resident(&p, &k) && p.resident_bytes > 0;
        saw_in_turn |= p.abc_in_turn;
    }
    CHECK(saw_whole && saw_partial);
    (void)saw_in_turn;
}

static void test_scratch_bound(void)
{
    /* src/groth16/gpu_prove.cu: the H MSM at 2^27 takes about 15 GB (classification 26 bytes a point,
     * sort input and temporary 16, one group of four windows' entries 32, buckets 36,
     * carries 5). The bound must cover it, without being far above. */
    uint64_t h = czk_gpu_msm_scratch_bound(1, (size_t)1 << 27);
    CHECK(h >= 15000000000ull && h <= 18000000000ull);
    /* Larger calls never need less; up to 2^24, where both groups take the same windows,
     * G2 needs more than G1 (its bucket points are twice as large; above, G2's windows stop
     * at 20 bits and G1's grow to 22). */
    uint64_t last1 = 0, last2 = 0;
    for (unsigned lg = 10; lg <= 27; lg++) {
        uint64_t g1 = czk_gpu_msm_scratch_bound(1, (size_t)1 << lg);
        uint64_t g2 = czk_gpu_msm_scratch_bound(2, (size_t)1 << lg);
        CHECK(g1 >= last1 && g2 >= last2);
        if (lg <= 24) CHECK(g2 > g1);
        last1 = g1;
        last2 = g2;
    }
}

/*
 * Several GPUs of different memory in one host, as the engine plans a key on them: each
 * gets its own plan within its own budget, and the host holds one copy of what any of them
 * streams (from the least resident prefix of each section on), which every GPU's streamed
 * range lies inside. Fake devices: only the budgets matter to the planner.
 */
static void test_fake_devices(void)
{
    czk_groth16_params k = porep32();
    const uint64_t budgets[4] = {139 * GIB, 80 * GIB, 24 * GIB, 12 * GIB};
    czk_gpu_plan plans[4];
    czk_gpu_plan_opts o = {55.0, 0, 0};
    for (int g = 0; g < 4; g++) {
        CHECK_STATUS(czk_gpu_plan_make(&plans[g], &k, budgets[g], &o, NULL), CZK_OK);
        check_plan_invariants(&plans[g], &k);
    }
    CHECK(czk_gpu_plan_all_resident(&plans[0], &k));
    size_t first[CZK_G16_SECTIONS], off[CZK_G16_SECTIONS];
    /* Every subset in which the 139 GiB card takes part, and the 24 GiB card alone. */
    const int sets[4][4] = {{0}, {0, 2}, {0, 1, 2, 3}, {2}};
    const size_t nset[4] = {1, 2, 4, 1};
    for (int t = 0; t < 4; t++) {
        czk_gpu_plan p[4];
        uint64_t most_streamed = 0;
        for (size_t i = 0; i < nset[t]; i++) {
            p[i] = plans[sets[t][i]];
            if (p[i].streamed_bytes > most_streamed) most_streamed = p[i].streamed_bytes;
        }
        size_t len = czk__params_tail_layout(&k, p, nset[t], first, off);
        /* One host copy: the weakest GPU's streamed points, each section page-rounded. */
        CHECK(len >= most_streamed && len <= most_streamed + CZK_G16_SECTIONS * 4096);
        for (int s = 0; s < CZK_G16_SECTIONS; s++) {
            const size_t n = czk_groth16_section_len(&k, (czk_groth16_section)s);
            const size_t el = czk_groth16_section_elem((czk_groth16_section)s);
            const size_t end = s + 1 < CZK_G16_SECTIONS ? off[s + 1] : len;
            CHECK(off[s] % 4096 == 0 && end - off[s] >= (n - first[s]) * el);
            for (size_t i = 0; i < nset[t]; i++) {
                CHECK(p[i].resident[s] >= first[s]);
                /* GPU i streams [resident, n): inside the section's part of the mapping. */
                CHECK(off[s] + (p[i].resident[s] - first[s]) * el + (n - p[i].resident[s]) * el <=
                      end);
            }
        }
        if (t == 0) CHECK(len == 0); /* every point on the one big GPU: nothing on the host */
    }
}

int main(void)
{
    czk_test_seed();
    RUN(test_porep_whole_gpu);
    RUN(test_porep_budgets);
    RUN(test_other_working);
    RUN(test_small_keys);
    RUN(test_scratch_bound);
    RUN(test_fake_devices);
    return czk_test_finish();
}
