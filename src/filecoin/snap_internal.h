/*
 * Internal helpers shared by the SnapDeals sources (src/filecoin/snap*.c);
 * not installed, not part of the public API.
 */
#ifndef CUZK_SNAP_INTERNAL_H
#define CUZK_SNAP_INTERNAL_H

#include "cuzk/fil_snap.h"

/* The shape a partition proof of p must have (counts, proof kinds, path
 * lengths, sibling counts, index ranges); CZ_ERR_FORMAT naming the first
 * field that differs. */
cz_status cz_snap_partition_shape(const cz_fil_snap_proof *p, const cz_fil_snap_partition_proof *pp,
                                  cz_errbuf *err);
/* Tree R proof of p's shape? (kind, lengths, sibling counts, indices) */
cz_status cz_snap_tree_r_shape(const cz_fil_snap_proof *p, const cz_fil_merkle_proof *mp, const char *what,
                               cz_errbuf *err);
cz_status cz_snap_tree_d_shape(const cz_fil_snap_proof *p, const cz_fil_merkle_proof *mp, const char *what,
                               cz_errbuf *err);

#endif
