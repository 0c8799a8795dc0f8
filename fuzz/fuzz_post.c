/* libFuzzer: the FallbackPoSt request envelope and its bincode sector
 * proofs (cz_fil_post_request_parse). An input that parses is encoded
 * again, which must give the same bytes and parse to an equal request;
 * the native check and the public inputs must not crash on it (whatever
 * their verdict). */
#include "cuzk/fil_post.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_fil_post_request r, s;
    cz_errbuf err;
    if (cz_fil_post_request_parse(&r, data, size, &err) != CZ_OK) {
        static const cz_fil_post_request zero;
        if (memcmp(&r, &zero, sizeof r) != 0) abort(); /* a failed parse leaves *out zeroed */
        return 0;
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    if (cz_fil_post_request_encode(&r, &buf, &len) == CZ_OK) {
        if (len != size || memcmp(buf, data, size) != 0) abort(); /* one encoding per request */
        if (cz_fil_post_request_parse(&s, buf, len, &err) != CZ_OK) abort();
        for (size_t i = 0; i < r.nvanilla; i++)
            if (!cz_fil_post_vanilla_equal(&r.vanilla[i], &s.vanilla[i])) abort();
        cz_fil_post_request_free(&s);
        free(buf);
    }
    (void)cz_fil_post_check(&r, &err);
    size_t n = cz_fil_post_public_input_count(r.proof), got;
    cz_fr *pi = malloc(n * sizeof *pi);
    if (pi) (void)cz_fil_post_public_inputs(&r, pi, n, &got, &err);
    free(pi);
    cz_fil_post_request_free(&r);
    cz_fil_post_request_free(&r); /* idempotent */
    return 0;
}
