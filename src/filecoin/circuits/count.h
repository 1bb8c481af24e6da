/*
 * A circuit's sizes from a COUNT-mode synthesis (czk/circuits.h): the constraint system to
 * synthesize into, and its counts as a czk_circuit_info once it is finished. Shared by the
 * PoRep, SnapDeals and PoSt circuits of this folder.
 */
#ifndef CZK_FILECOIN_CIRCUITS_COUNT_H
#define CZK_FILECOIN_CIRCUITS_COUNT_H

#include <string.h>

#include "czk/circuits.h"
#include "czk/cs.h"

static inline void czk__circuit_info_of(czk_circuit_info *out, const czk_cs_counts *c)
{
    out->constraints = c->n_constraints;
    out->inputs = c->n_inputs;
    out->aux = c->n_aux;
    out->a_aux_density = c->a_aux_density;
    out->b_input_density = c->b_input_density;
    out->b_aux_density = c->b_aux_density;
}

/* A constraint system that only counts. */
static inline czk_status czk__count_begin(czk_cs **cs, czk_err *err)
{
    czk_cs_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.mode = CZK_CS_COUNT;
    *cs = NULL;
    return czk_cs_create(cs, &cfg, err);
}

/* Finish and destroy `cs`, its counts into out; the finish's status (a synthesis error). */
static inline czk_status czk__count_end(czk_cs *cs, czk_circuit_info *out, czk_err *err)
{
    czk_status s = czk_cs_finish(cs, err);
    czk_cs_counts c;
    czk_cs_get_counts(cs, &c);
    czk_cs_destroy(cs);
    czk__circuit_info_of(out, &c);
    return s;
}

#endif
