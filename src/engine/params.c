/* Parameter sets: loading (made in memory, read whole, or planned over GPUs), sizes. */
#include "czk/alloc.h"
#include "czk/gpu.h"
#include "czk/groth16.h"
#include "engine/engine_internal.h"

#include "czk/fil_job.h"
#include "czk/log.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------------------ */
/* Parameter sets                                                                       */
/* ------------------------------------------------------------------------------------ */

/* Test parameters' generation progress, in the log every tenth. */
typedef struct gen_progress {
    const char *id;
    uint64_t t0_us;
    int last_tenth;
} gen_progress;

static void gen_progress_fn(void *ctx, uint64_t done, uint64_t total)
{
    gen_progress *g = ctx;
    int tenth = total ? (int)(done * 10 / total) : 10;
    if (tenth <= g->last_tenth) return;
    g->last_tenth = tenth;
    CZK_LOG_INFO("making test parameters", "circuit=%s done=%d%% s=%.1f", g->id, tenth * 10,
                 (double)(czk_clock_us() - g->t0_us) / 1e6);
}

static czk_status params_make_test(czk__params *pe, const czk__params_gen *gen, czk_pool *pool,
                                   czk_err *err)
{
    CZK_LOG_WARN("no parameter file: making TEST parameters in memory", "circuit=%s path=%s gpus=%zu",
                 pe->id, pe->path, gen->ngpus);
    gen_progress gp = {pe->id, czk_clock_us(), -1};
    czk_gpu_srs *srs[CZK_GPU_MAX] = {0};
    size_t ng = gen->ngpus < CZK_GPU_MAX ? gen->ngpus : CZK_GPU_MAX;
    czk_status st = czk_fil_test_params_make(pe->id, gen->gpus, ng, &pe->pk, srs, pool,
                                             gen_progress_fn, &gp, err);
    if (st != CZK_OK) return st;
    for (size_t g = 0; g < ng; g++) pe->gpu_srs[g] = srs[g];
    pe->generated = true;
    /* The directory is the .params file's: the .vk and .meta go beside it. */
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", pe->path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    st = czk_fil_test_vk_write(pe->id, dir, &pe->pk.vk, err);
    CZK_LOG_INFO("test parameters made", "circuit=%s s=%.1f on_gpus=%zu", pe->id,
                 (double)(czk_clock_us() - gp.t0_us) / 1e6, ng);
    return st;
}

size_t czk__params_tail_layout(const czk_groth16_params *shape, const czk_gpu_plan *plans,
                               size_t ngpus, size_t first[CZK_G16_SECTIONS],
                               size_t off[CZK_G16_SECTIONS])
{
    size_t len = 0;
    for (int k = 0; k < CZK_G16_SECTIONS; k++) {
        const czk_groth16_section sec = (czk_groth16_section)k;
        const size_t n = czk_groth16_section_len(shape, sec);
        size_t f = n;
        for (size_t g = 0; g < ngpus; g++)
            if (plans[g].resident[k] < f) f = plans[g].resident[k];
        first[k] = f;
        off[k] = len;
        len += ((n - f) * czk_groth16_section_elem(sec) + 4095) / 4096 * 4096;
    }
    return len;
}

static void tail_free(czk__params *pe)
{
    if (pe->tail_mem != NULL) {
        if (pe->tail_pinned) czk_gpu_host_unregister(pe->tail_mem);
        munmap(pe->tail_mem, pe->tail_len);
    }
    pe->tail_mem = NULL;
    pe->tail_len = 0;
    pe->tail_pinned = false;
    memset(pe->tail, 0, sizeof pe->tail);
    memset(pe->tail_first, 0, sizeof pe->tail_first);
}

/*
 * A .params file for GPUs, without a host copy of what they keep. Each GPU gets its plan
 * (czk_gpu_plan_make within its budget); the points some GPU streams (a section from the
 * least resident prefix on) live decoded in one anonymous mapping, page-locked; the GPUs
 * decode and check every point (czk_gpu_loader_decode): the prefix every GPU keeps
 * straight into each SRS, the rest back into that mapping, from which GPUs that keep more
 * copy their share. The points are read with pread, so the file's pages stay in the
 * kernel's page cache, never in the process. On failure nothing stays.
 */
static czk_status params_load_planned(czk__params *pe, const czk__params_gen *gen,
                                      czk_pool *pool, czk_err *err)
{
    czk_groth16_params_file *f = NULL;
    czk_status st = czk_groth16_params_file_open(&f, pe->path, &pe->pk, err);
    if (st != CZK_OK) return st;
    const size_t ng = gen->ngpus < CZK_GPU_MAX ? gen->ngpus : CZK_GPU_MAX;
    size_t len[CZK_G16_SECTIONS];
    for (int k = 0; k < CZK_G16_SECTIONS; k++)
        len[k] = czk_groth16_section_len(&pe->pk, (czk_groth16_section)k);
    for (size_t g = 0; g < ng && st == CZK_OK; g++) {
        czk_gpu_plan_opts o = {gen->h2d_gbps[g], gen->other_working[g], 0};
        czk_err perr;
        st = czk_gpu_plan_make(&pe->plan[g], &pe->pk, gen->gpu_budget[g], &o, &perr);
        if (st != CZK_OK)
            czk_err_set(err, st, "%s on gpu%d: %s", pe->id, gen->gpus[g], perr.msg);
    }
    size_t off[CZK_G16_SECTIONS];
    size_t tail_len = 0;
    if (st == CZK_OK) tail_len = czk__params_tail_layout(&pe->pk, pe->plan, ng, pe->tail_first, off);
    if (st == CZK_OK && tail_len > 0) {
        void *m = mmap(NULL, tail_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            st = czk_err_set(err, CZK_ENOMEM, "%s: cannot map %zu bytes for its streamed bases: %s",
                             pe->path, tail_len, strerror(errno));
        } else {
            (void)madvise(m, tail_len, MADV_HUGEPAGE);
            pe->tail_mem = m;
            pe->tail_len = tail_len;
            for (int k = 0; k < CZK_G16_SECTIONS; k++)
                pe->tail[k] = (uint8_t *)m + off[k];
        }
    }
    /* The plans decide the partitions' buffers (packed or not): the engine may page-lock
     * them while the points are read. */
    if (st == CZK_OK) {
        pe->planned = true;
        if (gen->planned != NULL) gen->planned(gen->planned_arg);
    }
    /* The tails page-locked before the points arrive: they are read into them and decoded
     * there and back. */
    const uint64_t t_register = czk_clock_us();
    if (st == CZK_OK && pe->tail_mem != NULL) {
        czk__pinned_touch(pe->tail_mem, pe->tail_len);
        czk_err rerr;
        if (czk_gpu_host_register(pe->tail_mem, pe->tail_len, &rerr) == CZK_OK)
            pe->tail_pinned = true;
        else
            CZK_LOG_WARN("streamed bases stay pageable: their copies run slower", "circuit=%s "
                         "bytes=%zu error=\"%s\"", pe->id, pe->tail_len, rerr.msg);
    }
    czk_gpu_srs *srs[CZK_GPU_MAX] = {0};
    for (size_t g = 0; g < ng && st == CZK_OK; g++)
        st = czk_gpu_srs_create_plan(&srs[g], gen->gpus[g], &pe->pk, &pe->plan[g], err);
    const uint64_t t_decode = czk_clock_us();
    czk_gpu_loader *ld = NULL;
    if (st == CZK_OK) st = czk_gpu_loader_create(&ld, f, gen->gpus, ng, pool, err);
    for (int k = 0; k < CZK_G16_SECTIONS && st == CZK_OK; k++) {
        czk_groth16_section sec = (czk_groth16_section)k;
        const size_t shared = pe->tail_first[k];
        czk_groth16_params_file_prefetch(f, sec, 0, len[k]);
        st = czk_gpu_loader_decode(ld, sec, 0, shared, srs, ng, NULL, err);
        if (st == CZK_OK)
            st = czk_gpu_loader_decode(ld, sec, shared, len[k] - shared, NULL, 0, pe->tail[k], err);
    }
    czk_gpu_loader_destroy(ld);
    /* GPUs that keep more than the shared prefix copy the rest from the tails. */
    for (int k = 0; k < CZK_G16_SECTIONS && st == CZK_OK; k++) {
        czk_groth16_section sec = (czk_groth16_section)k;
        const size_t el = czk_groth16_section_elem(sec);
        const size_t shared = pe->tail_first[k];
        for (size_t g = 0; g < ng && st == CZK_OK; g++) {
            const size_t res = pe->plan[g].resident[k];
            if (res > shared)
                st = czk_gpu_srs_write(srs[g], sec, shared, pe->tail[k], res - shared, err);
            if (res < len[k])
                czk_gpu_srs_set_host(srs[g], sec, pe->tail[k] + (res - shared) * el);
        }
    }
    const uint64_t t_done = czk_clock_us();
    czk_groth16_params_file_close(f);
    if (st != CZK_OK) {
        for (size_t g = 0; g < ng; g++) czk_gpu_srs_destroy(srs[g]);
        tail_free(pe);
        czk_groth16_params_free(&pe->pk);
        pe->planned = false;
        return st;
    }
    for (size_t g = 0; g < ng; g++) {
        pe->gpu_srs[g] = srs[g];
        char line[400];
        czk_gpu_plan_format(&pe->plan[g], &pe->pk, line, sizeof line);
        CZK_LOG_INFO("parameters planned", "circuit=%s gpu=%d decode_ms=%" PRIu64
                     " register_ms=%" PRIu64 " %s", pe->id, gen->gpus[g],
                     (t_done - t_decode) / 1000u, (t_decode - t_register) / 1000u, line);
    }
    return CZK_OK;
}

bool czk__params_on_host(const czk__params *pe)
{
    const czk_groth16_params *p = &pe->pk;
    return !((p->h_len && !p->h) || (p->l_len && !p->l) || (p->a_len && !p->a) ||
             (p->b_g1_len && !p->b_g1) || (p->b_g2_len && !p->b_g2));
}

czk_status czk__params_load(czk__params *pe, const czk__params_gen *gen, czk_pool *pool,
                            czk_err *err)
{
    memset(&pe->pk, 0, sizeof pe->pk);
    memset(&pe->ab, 0, sizeof pe->ab);
    pe->generated = false;
    pe->planned = false;
    czk_status st;
    struct stat sb;
    if (!pe->circom && gen != NULL && gen->test && stat(pe->path, &sb) != 0 && errno == ENOENT) {
        st = params_make_test(pe, gen, pool, err);
    } else if (pe->circom) {
        st = czk_zkey_read_file_ex(&pe->pk, &pe->ab, pe->path, false, pool, err);
        if (st == CZK_OK && pe->ab.n_constraints > ((size_t)1 << pe->pk.log_m)) {
            st = czk_err_set(err, CZK_EFORMAT, "%s: %u constraints exceed the key's domain 2^%u",
                             pe->path, pe->ab.n_constraints, pe->pk.log_m);
        }
    } else if (gen != NULL && gen->plan && gen->ngpus > 0) {
        st = params_load_planned(pe, gen, pool, err);
    } else {
        st = czk_groth16_params_read_file(&pe->pk, pe->path, false, pool, err);
    }
    if (st != CZK_OK) {
        for (int g = 0; g < CZK_GPU_MAX; g++) {
            czk_gpu_srs_destroy(pe->gpu_srs[g]);
            pe->gpu_srs[g] = NULL;
        }
        czk_groth16_params_free(&pe->pk);
        czk_r1cs_free(&pe->ab);
        return st;
    }
    czk_groth16_prepare_vk(&pe->pvk, &pe->pk.vk);
    return CZK_OK;
}


void czk__params_unload(czk__params *pe)
{
    for (int g = 0; g < CZK_GPU_MAX; g++) {
        czk_gpu_srs_destroy(pe->gpu_srs[g]);
        pe->gpu_srs[g] = NULL;
        pe->gpu_srs_failed[g] = false;
    }
    czk_groth16_params_free(&pe->pk);
    czk_r1cs_free(&pe->ab);
    tail_free(pe);
    memset(&pe->pk, 0, sizeof pe->pk);
    memset(&pe->ab, 0, sizeof pe->ab);
    memset(&pe->pvk, 0, sizeof pe->pvk);
    memset(pe->plan, 0, sizeof pe->plan);
    pe->planned = false;
    pe->state = CZK__PE_COLD;
}

static uint64_t csr_bytes(const czk_csr *m, uint32_t rows)
{
    if (m->row_ptr == NULL) return 0;
    return (uint64_t)(rows + 1) * sizeof(uint64_t) + m->nnz * (sizeof(uint32_t) + sizeof(czk_fr));
}

uint64_t czk__params_size(const czk__params *pe)
{
    const czk_groth16_params *p = &pe->pk;
    /* Planned: the streamed tails are the host's part; the key's arrays are NULL. */
    if (pe->planned) return pe->tail_len + (uint64_t)p->vk.ic_len * sizeof(czk_g1_affine);
    /* Only what is on the host: test parameters made on the GPUs have no point arrays. */
    uint64_t g1 = (uint64_t)(p->h ? p->h_len : 0) + (p->l ? p->l_len : 0) +
                  (p->a ? p->a_len : 0) + (p->b_g1 ? p->b_g1_len : 0) + p->vk.ic_len;
    uint64_t n = g1 * sizeof(czk_g1_affine) +
                 (uint64_t)(p->b_g2 ? p->b_g2_len : 0) * sizeof(czk_g2_affine);
    n += csr_bytes(&pe->ab.a, pe->ab.n_constraints) + csr_bytes(&pe->ab.b, pe->ab.n_constraints);
    return n;
}

uint64_t czk__params_gpu_resident(const czk__params *pe, size_t g)
{
    return g < CZK_GPU_MAX ? czk_gpu_srs_bytes(pe->gpu_srs[g]) : 0;
}

uint64_t czk__params_gpu_working(const czk__params *pe, size_t g)
{
    if (g >= CZK_GPU_MAX || !pe->planned) return 0;
    const czk_gpu_plan *p = &pe->plan[g];
    return p->peak_bytes > p->resident_bytes ? p->peak_bytes - p->resident_bytes : 0;
}
