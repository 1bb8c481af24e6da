/*
 * Lifetime of verifying and proving keys. Every array in them comes from the czk
 * allocator (the readers use czk_aligned_alloc, which czk_free releases), so one free
 * function serves keys from any reader and from the test setup.
 */
#include "czk/alloc.h"
#include "czk/groth16.h"

#include <string.h>

void czk_groth16_vk_free(czk_groth16_vk *vk)
{
    if (vk == NULL) return;
    czk_free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

void czk_groth16_params_free(czk_groth16_params *p)
{
    if (p == NULL) return;
    czk_groth16_vk_free(&p->vk);
    czk_free(p->h);
    czk_free(p->l);
    czk_free(p->a);
    czk_free(p->b_g1);
    czk_free(p->b_g2);
    memset(p, 0, sizeof *p);
}
