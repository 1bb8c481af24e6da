/* Private helpers shared by snap_vanilla.c and post_vanilla.c. */
#ifndef CZK_FILECOIN_VANILLA_SNAP_POST_INTERNAL_H
#define CZK_FILECOIN_VANILLA_SNAP_POST_INTERNAL_H

#include "czk/gadgets.h"
#include "czk/vanilla.h"

/** The MerkleProof kind, level counts and arities a tree of shape `t` gives; CZK_EINVAL
 *  naming `what` otherwise. */
czk_status czk__vanilla_check_shape(const czk_vanilla_merkle_proof *mp, const czk_por_shape *t,
                                    const char *what, czk_err *err);

#endif
