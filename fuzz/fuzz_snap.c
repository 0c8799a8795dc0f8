/* libFuzzer: the SnapDeals request envelope (cz_fil_snap_request_parse)
 * and, on the same bytes, the bincode PartitionProof reader for the 2KiB
 * shape. An envelope that parses is encoded again and must give back the
 * input byte for byte (the layout has no slack: lengths are exact and
 * trailing bytes are refused), and the native check must run to a
 * verdict. A failed parse leaves *out zeroed. */
#include "cuzk/fil_snap.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_fil_snap_request r;
    cz_errbuf err;
    if (cz_fil_snap_request_parse(&r, data, size, &err) == CZ_OK) {
        uint8_t *b = NULL;
        size_t n = 0;
        if (cz_fil_snap_request_encode(&r, &b, &n) != CZ_OK) abort();
        if (n != size || memcmp(b, data, n) != 0) abort();
        free(b);
        (void)cz_fil_snap_check(&r, &err);
        cz_fil_snap_request_free(&r);
        cz_fil_snap_request_free(&r); /* idempotent */
    } else {
        static const cz_fil_snap_request zero;
        if (memcmp(&r, &zero, sizeof r) != 0) abort();
    }
    cz_fil_snap_partition_proof pp;
    const cz_fil_snap_proof *p = cz_fil_snap_proof_by_id(0);
    if (cz_fil_snap_partition_from_bincode(&pp, p, data, size, &err) == CZ_OK) {
        uint8_t *b = NULL;
        size_t n = 0;
        if (cz_fil_snap_partition_to_bincode(&pp, p, &b, &n) != CZ_OK) abort();
        if (n != size || memcmp(b, data, n) != 0) abort();
        free(b);
        cz_fil_snap_partition_free(&pp);
    }
    return 0;
}
