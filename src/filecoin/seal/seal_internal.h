/*
 * Private to src/filecoin: test hooks of the labeller.
 */
#ifndef CZK_FILECOIN_SEAL_SEAL_INTERNAL_H
#define CZK_FILECOIN_SEAL_SEAL_INTERNAL_H

#include "czk/sdr.h"

/** Chunks the labeller's hashing thread produced itself because their producer was late,
 *  since the process started. */
unsigned long czk__sdr_label_steals(void);

/** Make producer threads sleep `usec` before every third chunk (0: never), so that tests
 *  exercise the hashing thread's take-over of late chunks. */
void czk__sdr_set_producer_delay(unsigned usec);

#endif
