/*
 * The Filecoin job layer, common part: the table of circuits (cuzk's circuit ids and
 * rust-fil-proofs' parameter file names), the counts cache, the dispatch to the per-kind
 * files and the generation of czk test parameters.
 *
 * Parameter file names are derived the way rust-fil-proofs derives them
 * (storage-proofs-core parameter_cache.rs, CacheableParameters::cache_identifier):
 * "v28-" ‖ cache_prefix ‖ "-" ‖ hex(SHA-256(public params identifier)). The identifier
 * strings are the Display / Debug output of the circuits' public parameters:
 *   PoRep  layered_drgporep::PublicParams (stacked/vanilla/params.rs) over the
 *          StackedGraph / BucketGraph identifiers and LayerChallenges' Debug form,
 *   Snap   empty_sector_update::PublicParams (storage-proofs-update vanilla.rs),
 *   PoSt   FallbackPoSt::PublicParams (storage-proofs-post fallback/vanilla.rs),
 * and the prefixes are StackedCompound's, EmptySectorUpdateCompound's and
 * FallbackPoStCompound's cache_prefix with Tree::display() = merkletree-poseidon_hasher-
 * base-sub-top. The unit test checks every resulting name against the published
 * parameters.json, so a wrong identifier cannot go unnoticed.
 */
#include "filecoin/job/fil_job_internal.h"

#include "czk/alloc.h"
#include "czk/merkle.h"
#include "czk/post.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"
#include "czk/snap.h"

#include <errno.h>
#include <openssl/evp.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------ */
/* The circuit table                                                                    */
/* ------------------------------------------------------------------------------------ */

static const unsigned log2_sizes[5] = {11, 23, 29, 35, 36};
static const char *const size_ids[5] = {"2k", "8m", "512m", "32g", "64g"};

#define N_CIRCUITS 20
static czk__fil_circuit circuits[N_CIRCUITS];
static pthread_once_t circuits_once = PTHREAD_ONCE_INIT;

/* Tree::display() of a sector size's TreeR / tree_c shape (8-0-0, 8-8-0, 8-8-2). */
static const char *tree_display(unsigned log2_size)
{
    return log2_size >= 36   ? "merkletree-poseidon_hasher-8-8-2"
           : log2_size >= 35 ? "merkletree-poseidon_hasher-8-8-0"
                             : "merkletree-poseidon_hasher-8-0-0";
}

static void hex(char *out, const uint8_t *b, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hx[b[i] >> 4];
        out[2 * i + 1] = hx[b[i] & 15];
    }
    out[2 * n] = 0;
}

/* "v28-<prefix>-<hex sha256(identifier)>" */
static void set_name(czk__fil_circuit *c, const char *prefix, const char *identifier)
{
    uint8_t d[32];
    char h[65];
    (void)czk_sha256(d, identifier, strlen(identifier));
    hex(h, d, 32);
    snprintf(c->params_name, sizeof c->params_name, "v28-%.90s-%s", prefix, h);
}

static void init_circuits(void)
{
    char prefix[128], ident[512];
    for (unsigned s = 0; s < 5; s++) {
        unsigned l2 = log2_sizes[s];
        uint64_t size = UINT64_C(1) << l2, nodes = size / 32;
        const char *tree = tree_display(l2);

        /* PoRep: the stacked-DRG parameters (StackedDrg*V1_1, the id cuzk uses). */
        czk__fil_circuit *c = &circuits[s];
        const czk_seal_proof_info *info = czk_seal_proof_get((czk_seal_proof)(5 + s));
        c->kind = CZK_FIL_POREP;
        c->log2_size = l2;
        c->registered_proof = 5 + s;
        snprintf(c->id, sizeof c->id, "porep-%s", size_ids[s]);
        snprintf(prefix, sizeof prefix, "stacked-proof-of-replication-%s-sha256_hasher", tree);
        snprintf(ident, sizeof ident,
                 "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{"
                 "expansion_degree: %d base_graph: drgraph::BucketGraph{size: %llu; degree: %d; "
                 "hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: %u, "
                 "max_count: %u }, tree: %s }",
                 CZK_SDR_EXP_DEGREE, (unsigned long long)nodes, CZK_SDR_DRG_DEGREE, info->layers,
                 info->challenges_per_partition, tree);
        set_name(c, prefix, ident);

        /* SnapDeals: RegisteredUpdateProof numbers 0..4. */
        c = &circuits[5 + s];
        c->kind = CZK_FIL_SNAP;
        c->log2_size = l2;
        c->registered_proof = s;
        snprintf(c->id, sizeof c->id, "snap-%s", size_ids[s]);
        snprintf(prefix, sizeof prefix, "empty-sector-update-%s", tree);
        snprintf(ident, sizeof ident, "empty_sector_update::PublicParams{ sector_nodes: %llu }",
                 (unsigned long long)nodes);
        set_name(c, prefix, ident);

        /* Window PoSt (StackedDrgWindow*V1_2, Go's V1_1) and Winning PoSt (V1). */
        for (int w = 0; w < 2; w++) {
            bool winning = w == 1;
            czk_post_proof pp;
            czk_post_params par;
            (void)czk_post_proof_for_size(size, winning, &pp, NULL);
            (void)czk_post_params_get(&par, pp, NULL);
            c = &circuits[10 + 5 * w + s];
            c->kind = winning ? CZK_FIL_WINNING : CZK_FIL_WPOST;
            c->log2_size = l2;
            c->registered_proof = pp;
            snprintf(c->id, sizeof c->id, "%s-%s", winning ? "winning" : "wpost", size_ids[s]);
            snprintf(prefix, sizeof prefix, "proof-of-spacetime-fallback-%s", tree);
            snprintf(ident, sizeof ident,
                     "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, "
                     "sector_count: %u}",
                     (unsigned long long)size, par.challenge_count, par.sector_count);
            set_name(c, prefix, ident);
        }
    }
}

static const czk__fil_circuit *table(void)
{
    pthread_once(&circuits_once, init_circuits);
    return circuits;
}

const czk__fil_circuit *czk__fil_circuit_find(czk_fil_kind kind, uint64_t sector_size)
{
    const czk__fil_circuit *t = table();
    for (size_t i = 0; i < N_CIRCUITS; i++)
        if (t[i].kind == kind && (UINT64_C(1) << t[i].log2_size) == sector_size) return &t[i];
    return NULL;
}

static const czk__fil_circuit *find_id(const char *id)
{
    const czk__fil_circuit *t = table();
    for (size_t i = 0; id != NULL && i < N_CIRCUITS; i++)
        if (strcmp(t[i].id, id) == 0) return &t[i];
    return NULL;
}

czk_status czk__fil_err_wrap(czk_err *err, czk_status s, const char *prefix, const czk_err *inner)
{
    const char *m = inner->msg[0] ? inner->msg : czk_strerror(s);
    return czk_err_set(err, s, "%s: %s", prefix, m);
}

/* ------------------------------------------------------------------------------------ */
/* Counts                                                                               */
/* ------------------------------------------------------------------------------------ */

static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;
static czk_cs_counts counts_cache[N_CIRCUITS];
static bool counts_done[N_CIRCUITS];

czk_status czk__fil_circuit_counts(const czk__fil_circuit *c, czk_cs_counts *out, czk_err *err)
{
    size_t i = (size_t)(c - table());
    /* One lock for all circuits: a count runs once per circuit per process, and holding
     * the lock during it keeps two jobs from counting the same circuit twice. */
    pthread_mutex_lock(&counts_lock);
    czk_status s = CZK_OK;
    if (!counts_done[i]) {
        czk_cs_counts n;
        memset(&n, 0, sizeof n);
        s = c->kind == CZK_FIL_POREP  ? czk__fil_porep_count(c, &n, err)
            : c->kind == CZK_FIL_SNAP ? czk__fil_snap_count(c, &n, err)
                                      : czk__fil_post_count(c, &n, err);
        if (s == CZK_OK) {
            counts_cache[i] = n;
            counts_done[i] = true;
        }
    }
    if (s == CZK_OK) *out = counts_cache[i];
    pthread_mutex_unlock(&counts_lock);
    return s;
}

/* ------------------------------------------------------------------------------------ */
/* Jobs                                                                                 */
/* ------------------------------------------------------------------------------------ */

static const unsigned update_log2_sizes[5] = {11, 23, 29, 35, 36};

czk_status czk__fil_circuit_resolve(const czk_fil_job_input *in, const czk__fil_circuit **out,
                                    czk_err *err)
{
    *out = NULL;
    uint64_t size = 0;
    switch (in->kind) {
    case CZK_FIL_POREP: {
        const czk_seal_proof_info *info =
            in->registered_proof < CZK_SEAL_PROOF_COUNT
                ? czk_seal_proof_get((czk_seal_proof)in->registered_proof)
                : NULL;
        if (info == NULL)
            return czk_err_set(err, CZK_EINVAL,
                               "registered_proof: %llu is not a RegisteredSealProof (0..19)",
                               (unsigned long long)in->registered_proof);
        if (info->feature == CZK_SEAL_FEATURE_NON_INTERACTIVE)
            return czk_err_set(err, CZK_EUNSUPPORTED,
                               "registered_proof: %s: non-interactive PoRep (an aggregated proof) "
                               "is not supported",
                               info->name);
        if (in->sector_size != 0 && in->sector_size != info->sector_size)
            return czk_err_set(err, CZK_EINVAL, "sector_size: %llu, but %s seals %llu bytes",
                               (unsigned long long)in->sector_size, info->name,
                               (unsigned long long)info->sector_size);
        size = info->sector_size;
        break;
    }
    case CZK_FIL_SNAP:
        if (in->registered_proof > 4)
            return czk_err_set(err, CZK_EINVAL,
                               "registered_proof: %llu is not a RegisteredUpdateProof (0..4)",
                               (unsigned long long)in->registered_proof);
        size = UINT64_C(1) << update_log2_sizes[in->registered_proof];
        if (in->sector_size != 0 && in->sector_size != size)
            return czk_err_set(err, CZK_EINVAL,
                               "sector_size: %llu, but RegisteredUpdateProof %llu updates %llu "
                               "bytes",
                               (unsigned long long)in->sector_size,
                               (unsigned long long)in->registered_proof, (unsigned long long)size);
        break;
    case CZK_FIL_WPOST:
    case CZK_FIL_WINNING: {
        bool winning = in->kind == CZK_FIL_WINNING;
        if (in->registered_proof >= CZK_POST_PROOF_COUNT ||
            czk_post_proof_is_winning((czk_post_proof)in->registered_proof) != winning)
            return czk_err_set(err, CZK_EINVAL,
                               "registered_proof: %llu is not a %s PoSt RegisteredPoStProof",
                               (unsigned long long)in->registered_proof,
                               winning ? "Winning" : "Window");
        czk_post_params p;
        czk_status s = czk_post_params_get(&p, (czk_post_proof)in->registered_proof, err);
        if (s != CZK_OK) return s;
        if (in->sector_size != 0 && in->sector_size != p.sector_size)
            return czk_err_set(err, CZK_EINVAL,
                               "sector_size: %llu, but %s proves %llu-byte sectors",
                               (unsigned long long)in->sector_size,
                               czk_post_proof_name((czk_post_proof)in->registered_proof),
                               (unsigned long long)p.sector_size);
        size = p.sector_size;
        break;
    }
    default:
        return czk_err_set(err, CZK_EINVAL, "proof_kind: %d is not a Filecoin proof kind (1..4)",
                           (int)in->kind);
    }
    *out = czk__fil_circuit_find(in->kind, size);
    if (*out == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "proof_kind %d: no circuit for %llu-byte sectors",
                           (int)in->kind, (unsigned long long)size);
    return CZK_OK;
}

czk_status czk_fil_job_circuit(const czk_fil_job_input *in, const char **circuit_id,
                               const char **params_name, czk_err *err)
{
    if (circuit_id != NULL) *circuit_id = NULL;
    if (params_name != NULL) *params_name = NULL;
    if (in == NULL) return czk_err_set(err, CZK_EINVAL, "fil job: no input");
    const czk__fil_circuit *c = NULL;
    czk_status s = czk__fil_circuit_resolve(in, &c, err);
    if (s != CZK_OK) return s;
    if (circuit_id != NULL) *circuit_id = c->id;
    if (params_name != NULL) *params_name = c->params_name;
    return CZK_OK;
}

czk_status czk_fil_job_create(czk_fil_job **out, const czk_fil_job_input *in, czk_err *err)
{
    *out = NULL;
    if (in == NULL) return czk_err_set(err, CZK_EINVAL, "fil job: no input");
    const czk__fil_circuit *c = NULL;
    czk_status s = czk__fil_circuit_resolve(in, &c, err);
    if (s != CZK_OK) return s;
    czk_fil_job *j = czk_calloc(1, sizeof *j);
    if (j == NULL) return czk_err_set(err, CZK_ENOMEM, "fil job: out of memory");
    j->circuit = c;
    if (in->kind == CZK_FIL_POREP) s = czk__fil_porep_create(j, in, err);
    else if (in->kind == CZK_FIL_SNAP) s = czk__fil_snap_create(j, in, err);
    else s = czk__fil_post_create(j, in, err);
    /* Everything checked here is what the client sent: a vanilla proof that does not
     * match its commitments, challenges or sector is the client's fault (EMISMATCH), not a
     * failed verification of a proof czk made (EVERIFY). */
    if (s == CZK_EVERIFY) {
        s = CZK_EMISMATCH;
        if (err != NULL) err->status = s;
    }
    if (s == CZK_OK) s = czk__fil_circuit_counts(j->circuit, &j->counts, err);
    if (s == CZK_OK && j->counts.n_inputs != j->n_inputs + 1)
        s = czk_err_set(err, CZK_EINTERNAL, "%s: the circuit has %llu inputs, the job gives %zu",
                        j->circuit->id, (unsigned long long)j->counts.n_inputs, j->n_inputs + 1);
    if (s != CZK_OK) {
        czk_fil_job_destroy(j);
        return s;
    }
    *out = j;
    return CZK_OK;
}

void czk_fil_job_destroy(czk_fil_job *j)
{
    if (j == NULL) return;
    if (j->destroy_impl != NULL) j->destroy_impl(j->impl);
    czk_free(j->inputs);
    czk_free(j);
}

size_t czk_fil_job_partitions(const czk_fil_job *j)
{
    return j->partitions;
}

const char *czk_fil_job_circuit_id(const czk_fil_job *j)
{
    return j->circuit->id;
}

const char *czk_fil_job_params_name(const czk_fil_job *j)
{
    return j->circuit->params_name;
}

bool czk_fil_job_digest(const czk_fil_job *j, uint8_t out[32])
{
    if (!j->has_digest) return false;
    memcpy(out, j->digest, 32);
    return true;
}

void czk_fil_job_counts(const czk_fil_job *j, czk_cs_counts *out)
{
    *out = j->counts;
}

czk_status czk_fil_job_synthesize(const czk_fil_job *j, size_t p, czk_cs *cs, czk_err *err)
{
    return czk_fil_job_synthesize_pool(j, p, cs, NULL, err);
}

czk_status czk_fil_job_synthesize_pool(const czk_fil_job *j, size_t p, czk_cs *cs,
                                       czk_pool *pool, czk_err *err)
{
    if (p >= j->partitions)
        return czk_err_set(err, CZK_EINVAL, "%s: partition %zu of %zu", j->circuit->id, p,
                           j->partitions);
    czk_status s = pool != NULL && j->synthesize_pool != NULL ? j->synthesize_pool(j, p, cs, pool)
                                                              : j->synthesize(j, p, cs);
    if (s != CZK_OK) {
        /* The circuit's own message is the cs's sticky error; finishing a failed cs
         * reports it and changes nothing else. */
        czk_err e;
        czk_err_clear(&e);
        (void)czk_cs_finish(cs, &e);
        return czk_err_set(err, s, "%s: partition %zu: synthesis failed: %s", j->circuit->id, p,
                           e.msg[0] ? e.msg : czk_strerror(s));
    }
    return CZK_OK;
}

czk_status czk_fil_job_public_inputs(const czk_fil_job *j, size_t p, czk_fr *out, size_t cap,
                                     size_t *n, czk_err *err)
{
    if (n != NULL) *n = j->n_inputs;
    if (p >= j->partitions)
        return czk_err_set(err, CZK_EINVAL, "%s: partition %zu of %zu", j->circuit->id, p,
                           j->partitions);
    if (cap < j->n_inputs)
        return czk_err_set(err, CZK_EINVAL, "%s: %zu public inputs need room, %zu given",
                           j->circuit->id, j->n_inputs, cap);
    memcpy(out, j->inputs + p * j->n_inputs, j->n_inputs * sizeof *out);
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Circuits by id                                                                       */
/* ------------------------------------------------------------------------------------ */

static czk_status unknown_id(const char *id, czk_err *err)
{
    return czk_err_set(err, CZK_EINVAL,
                       "unknown circuit id '%.60s'; valid ids are {porep,snap,wpost,winning}-"
                       "{2k,8m,512m,32g,64g}",
                       id ? id : "(null)");
}

czk_status czk_fil_circuit_lookup(const char *circuit_id, czk_fil_kind *kind,
                                  uint64_t *registered_proof, const char **params_name,
                                  czk_err *err)
{
    const czk__fil_circuit *c = find_id(circuit_id);
    if (c == NULL) return unknown_id(circuit_id, err);
    if (kind != NULL) *kind = c->kind;
    if (registered_proof != NULL) *registered_proof = c->registered_proof;
    if (params_name != NULL) *params_name = c->params_name;
    return CZK_OK;
}

czk_status czk_fil_circuit_synthesize_shape(const char *circuit_id, czk_cs *cs, czk_err *err)
{
    const czk__fil_circuit *c = find_id(circuit_id);
    if (c == NULL) return unknown_id(circuit_id, err);
    if (czk_cs_has_witness(cs))
        return czk_err_set(err, CZK_EINVAL, "%s: a shape synthesis takes a cs without a witness",
                           c->id);
    czk_status s = c->kind == CZK_FIL_POREP  ? czk__fil_porep_shape(c, cs)
                   : c->kind == CZK_FIL_SNAP ? czk__fil_snap_shape(c, cs)
                                             : czk__fil_post_shape(c, cs);
    if (s != CZK_OK)
        return czk_err_set(err, s, "%s: shape synthesis failed (%s)", c->id, czk_strerror(s));
    return CZK_OK;
}

/* ------------------------------------------------------------------------------------ */
/* Test parameters                                                                      */
/* ------------------------------------------------------------------------------------ */

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Write `n` bytes to `path` through a temporary file in the same directory, flushed and
 * renamed, so that a reader (or a crash) never sees a partial file. */
static czk_status write_atomic(const char *path, const void *data, size_t n, czk_err *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return czk_err_set(err, CZK_EIO, "%s: cannot create (%s)", tmp, strerror(errno));
    const uint8_t *p = data;
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, p + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        done += (size_t)w;
    }
    bool ok = done == n && fsync(fd) == 0;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return czk_err_set(err, CZK_EIO, "%s: write failed (%s)", path, strerror(errno));
    }
    return CZK_OK;
}

/* The circuit of one id as a czk_cs_circuit_fn, for the streaming setup. */
struct shape_ctx {
    const char *id;
};

static czk_status shape_circuit(czk_cs *cs, void *p)
{
    const struct shape_ctx *x = p;
    czk_err e = {0};
    czk_status s = czk_fil_circuit_synthesize_shape(x->id, cs, &e);
    /* The message goes into the cs, whose finish reports it. */
    if (s != CZK_OK && czk_cs_status(cs) == CZK_OK) czk_cs_fail(cs, s, "%s", e.msg);
    return s;
}

czk_status czk_fil_test_params_make(const char *circuit_id, const int *gpus, size_t ngpus,
                                    czk_groth16_params *out, struct czk_gpu_srs **srs_per_gpu,
                                    czk_pool *pool, czk_progress_fn progress, void *progress_ctx,
                                    czk_err *err)
{
    memset(out, 0, sizeof *out);
    const czk__fil_circuit *c = find_id(circuit_id);
    if (c == NULL) return unknown_id(circuit_id, err);
    if (ngpus > 0 && (gpus == NULL || srs_per_gpu == NULL))
        return czk_err_set(err, CZK_EINVAL, "%s: GPUs without a place for their SRS", c->id);
    /* The seed names the keys: the same file name gives the same keys on every run. */
    static const char DOMAIN[] = "czk test parameters v1";
    uint8_t seed[32];
    unsigned len = 0;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    bool ok = md != NULL && EVP_DigestInit_ex(md, EVP_sha256(), NULL) == 1 &&
              EVP_DigestUpdate(md, DOMAIN, sizeof DOMAIN - 1) == 1 &&
              EVP_DigestUpdate(md, c->params_name, strlen(c->params_name)) == 1 &&
              EVP_DigestFinal_ex(md, seed, &len) == 1 && len == 32;
    EVP_MD_CTX_free(md);
    if (!ok) return czk_err_set(err, CZK_EINTERNAL, "%s: SHA-256 failed", c->id);
    czk_groth16_setup_opts o;
    memset(&o, 0, sizeof o);
    o.seed = seed;
    o.gpus = gpus;
    o.ngpus = ngpus;
    o.srs_out = srs_per_gpu;
    struct shape_ctx sc = {c->id};
    return czk_groth16_setup_circuit(out, shape_circuit, &sc, &o, pool, progress, progress_ctx,
                                     err);
}

/* The circuit of `circuit_id` and its .params, .vk and .meta paths in `dir`. */
static czk_status paths_of(const char *circuit_id, const char *dir, const czk__fil_circuit **c,
                           char pp[4096], char vp[4096], char mp[4096], czk_err *err)
{
    *c = find_id(circuit_id);
    if (*c == NULL) return unknown_id(circuit_id, err);
    if (dir == NULL || strlen(dir) > 3800)
        return czk_err_set(err, CZK_EINVAL, "param dir: missing or too long");
    snprintf(pp, 4096, "%s/%s.params", dir, (*c)->params_name);
    snprintf(vp, 4096, "%s/%s.vk", dir, (*c)->params_name);
    snprintf(mp, 4096, "%s/%s.meta", dir, (*c)->params_name);
    return CZK_OK;
}

czk_status czk_fil_test_vk_write(const char *circuit_id, const char *dir,
                                 const czk_groth16_vk *vk, czk_err *err)
{
    const czk__fil_circuit *c = NULL;
    char pp[4096], vp[4096], mp[4096];
    czk_status ps = paths_of(circuit_id, dir, &c, pp, vp, mp, err);
    if (ps != CZK_OK) return ps;
    size_t n = czk_groth16_vk_size(vk);
    uint8_t *vkb = czk_malloc(n);
    czk_status s = CZK_OK;
    if (vkb == NULL) s = czk_err_set(err, CZK_ENOMEM, "vk: out of memory");
    if (s == CZK_OK) s = czk_groth16_vk_write(vkb, n, vk, err);
    if (s == CZK_OK) s = write_atomic(vp, vkb, n, err);
    czk_free(vkb);
    if (s == CZK_OK) {
        /* CacheEntryMetadata, as serde_json writes it. */
        char meta[64];
        int m = snprintf(meta, sizeof meta, "{\"sector_size\":%llu}",
                         (unsigned long long)(UINT64_C(1) << c->log2_size));
        s = write_atomic(mp, meta, (size_t)m, err);
    }
    return s;
}

czk_status czk_fil_test_params_generate(const char *circuit_id, const char *dir, bool force,
                                        czk_pool *pool, czk_progress_fn progress,
                                        void *progress_ctx, bool *generated, czk_err *err)
{
    if (generated != NULL) *generated = false;
    const czk__fil_circuit *c = NULL;
    char pp[4096], vp[4096], mp[4096];
    czk_status ps = paths_of(circuit_id, dir, &c, pp, vp, mp, err);
    if (ps != CZK_OK) return ps;
    if (!force && exists(pp) && exists(vp) && exists(mp)) return CZK_OK;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return czk_err_set(err, CZK_EIO, "%s: cannot create (%s)", dir, strerror(errno));

    czk_groth16_params pk;
    char tmp[4200];
    czk_status s = czk_fil_test_params_make(circuit_id, NULL, 0, &pk, NULL, pool, progress,
                                            progress_ctx, err);
    if (s == CZK_OK) {
        /* czk_groth16_params_write_file writes in place: give it a temporary name. */
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", pp, (long)getpid());
        s = czk_groth16_params_write_file(&pk, tmp, err);
        if (s == CZK_OK && rename(tmp, pp) != 0)
            s = czk_err_set(err, CZK_EIO, "%s: rename failed (%s)", pp, strerror(errno));
        if (s != CZK_OK) unlink(tmp);
    }
    if (s == CZK_OK) s = czk_fil_test_vk_write(circuit_id, dir, &pk.vk, err);
    czk_groth16_params_free(&pk);
    if (s == CZK_OK && generated != NULL) *generated = true;
    return s;
}
