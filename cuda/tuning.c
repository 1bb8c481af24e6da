/*
 * The GPU layer's tuning knobs (include/czk/gpu.h, czk_gpu_tuning): one table of rows, each
 * a name, a type, the default, the bounds and a help line. The table fills the defaults,
 * parses a knob given by name and checks what czk_gpu_set_tuning is handed. The knobs in
 * force are one struct behind a lock: the MSM copies it once a call, GPU discovery reads
 * spin_wait once per process. Nothing here reads the environment. Plain C, built with or
 * without CUDA.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk/gpu.h"
#include "gpu_internal.h"

typedef enum knob_type { K_BOOL, K_U32 } knob_type;

typedef struct knob {
    const char *name;
    knob_type type;
    size_t off;
    uint32_t def;
    /* Bounds of the value (inclusive). A knob whose default is 0 also takes 0, which means
     * "chosen by the code" (cuda/msm.cu says how). */
    uint32_t min, max;
    const char *help;
} knob;

#define O(f) offsetof(czk_gpu_tuning, f)

static const knob knobs[] = {
    {"spin_wait", K_BOOL, O(spin_wait), 0, 0, 1,
     "host threads spin while they wait for a GPU (CUDA's default) instead of blocking"},
    {"msm_window", K_U32, O(msm_window), 0, 4, 24,
     "MSM window bits of the widest window; 0: from the number of significant scalars"},
    {"msm_chunk", K_U32, O(msm_chunk), 0, 16, 1u << 16,
     "sorted entries a bucket-accumulation thread adds; 0: several average buckets"},
    {"msm_red_threads", K_U32, O(msm_red_threads), 0, 1024, 1u << 24,
     "threads the bucket reduction aims for; 0: 65536, segments of at most 256 buckets"},
    {"msm_group", K_U32, O(msm_group), 0, 1, 64,
     "windows sorted and accumulated at a time; 0: as many as 4 GiB of sorted entries hold"},
    {"msm_ones_stop", K_U32, O(msm_ones_stop), 1u << 22, 64, 1u << 30,
     "ones the batch-affine tree leaves to the XYZZ additions"},
    {"msm_ones_k", K_U32, O(msm_ones_k), 16, 1, 1024,
     "pairs a thread adds in a level of the ones' tree"},
    {"msm_ones_seg", K_U32, O(msm_ones_seg), 0, 1024, 0x7fffffffu,
     "most ones in one tree; 0: as many as 4 GiB of tree buffers hold"},
};
#define NKNOBS (sizeof knobs / sizeof knobs[0])

static bool *bool_field(czk_gpu_tuning *t, const knob *k)
{
    return (bool *)((char *)t + k->off);
}
static uint32_t *u32_field(czk_gpu_tuning *t, const knob *k)
{
    return (uint32_t *)((char *)t + k->off);
}
static uint32_t value_of(const czk_gpu_tuning *t, const knob *k)
{
    czk_gpu_tuning *m = (czk_gpu_tuning *)t;
    return k->type == K_BOOL ? (uint32_t)*bool_field(m, k) : *u32_field(m, k);
}

static bool in_bounds(const knob *k, uint32_t v)
{
    return (v >= k->min && v <= k->max) || (v == 0 && k->def == 0);
}

void czk_gpu_tuning_defaults(czk_gpu_tuning *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < NKNOBS; i++) {
        if (knobs[i].type == K_BOOL)
            *bool_field(out, &knobs[i]) = knobs[i].def != 0;
        else
            *u32_field(out, &knobs[i]) = knobs[i].def;
    }
}

czk_status czk_gpu_tuning_parse(czk_gpu_tuning *t, const char *name, const char *value,
                                czk_err *err)
{
    const knob *k = NULL;
    for (size_t i = 0; i < NKNOBS && k == NULL; i++)
        if (name != NULL && strcmp(knobs[i].name, name) == 0) k = &knobs[i];
    if (k == NULL)
        return czk_err_set(err, CZK_EINVAL, "gpu tuning: no knob '%s'", name ? name : "");
    if (value == NULL || value[0] == '\0') {
        if (k->type == K_BOOL)
            *bool_field(t, k) = k->def != 0;
        else
            *u32_field(t, k) = k->def;
        return CZK_OK;
    }
    if (k->type == K_BOOL) {
        if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "on") ||
            !strcmp(value, "1")) {
            *bool_field(t, k) = true;
        } else if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "off") ||
                   !strcmp(value, "0")) {
            *bool_field(t, k) = false;
        } else {
            return czk_err_set(err, CZK_EINVAL, "gpu tuning: %s: '%s' is not true or false",
                               k->name, value);
        }
        return CZK_OK;
    }
    char *end;
    errno = 0;
    unsigned long long v = isdigit((unsigned char)value[0]) ? strtoull(value, &end, 10) : 0;
    if (!isdigit((unsigned char)value[0]) || errno != 0 || *end != '\0' || v > UINT32_MAX ||
        !in_bounds(k, (uint32_t)v))
        return czk_err_set(err, CZK_EINVAL, "gpu tuning: %s: '%s' is not in [%u, %u]%s (%s)",
                           k->name, value, k->min, k->max, k->def == 0 ? " or 0" : "", k->help);
    *u32_field(t, k) = (uint32_t)v;
    return CZK_OK;
}

size_t czk_gpu_tuning_format(const czk_gpu_tuning *t, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap > 0) buf[0] = '\0';
    for (size_t i = 0; i < NKNOBS; i++) {
        const knob *k = &knobs[i];
        const uint32_t v = value_of(t, k);
        char val[16];
        if (k->type == K_BOOL)
            snprintf(val, sizeof val, "%s", v ? "true" : "false");
        else
            snprintf(val, sizeof val, "%u", v);
        int n = snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "%s%s=%s",
                         i ? " " : "", k->name, val);
        if (n > 0) len += (size_t)n;
    }
    return len;
}

/* The knobs in force, filled from the table once; spin_taken once GPU discovery read it. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static czk_gpu_tuning current;
static bool spin_taken;

static void fill_defaults(void)
{
    czk_gpu_tuning_defaults(&current);
}

void czk_gpu_get_tuning(czk_gpu_tuning *out)
{
    pthread_once(&once, fill_defaults);
    pthread_mutex_lock(&lock);
    *out = current;
    pthread_mutex_unlock(&lock);
}

czk_status czk_gpu_set_tuning(const czk_gpu_tuning *t, czk_err *err)
{
    if (t == NULL) return czk_err_set(err, CZK_EINVAL, "gpu tuning: NULL");
    for (size_t i = 0; i < NKNOBS; i++) {
        const knob *k = &knobs[i];
        const uint32_t v = value_of(t, k);
        if (!in_bounds(k, v))
            return czk_err_set(err, CZK_EINVAL, "gpu tuning: %s: %u is not in [%u, %u]%s (%s)",
                               k->name, v, k->min, k->max, k->def == 0 ? " or 0" : "", k->help);
    }
    pthread_once(&once, fill_defaults);
    pthread_mutex_lock(&lock);
    if (spin_taken && t->spin_wait != current.spin_wait) {
        pthread_mutex_unlock(&lock);
        return czk_err_set(err, CZK_EBUSY,
                           "gpu tuning: spin_wait is set before the first GPU call, and the "
                           "GPUs are already in use");
    }
    current = *t;
    pthread_mutex_unlock(&lock);
    return CZK_OK;
}

bool czk__gpu_tuning_take_spin_wait(void)
{
    pthread_once(&once, fill_defaults);
    pthread_mutex_lock(&lock);
    spin_taken = true;
    const bool v = current.spin_wait;
    pthread_mutex_unlock(&lock);
    return v;
}
