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

const char *czk_groth16_section_name(czk_groth16_section s)
{
    static const char *const names[CZK_G16_SECTIONS] = {"h", "l", "a", "b_g1", "b_g2"};
    return (unsigned)s < CZK_G16_SECTIONS ? names[s] : "?";
}

size_t czk_groth16_section_len(const czk_groth16_params *p, czk_groth16_section s)
{
    switch (s) {
    case CZK_G16_H: return p->h_len;
    case CZK_G16_L: return p->l_len;
    case CZK_G16_A: return p->a_len;
    case CZK_G16_B_G1: return p->b_g1_len;
    case CZK_G16_B_G2: return p->b_g2_len;
    }
    return 0;
}

size_t czk_groth16_section_elem(czk_groth16_section s)
{
    return s == CZK_G16_B_G2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine);
}
