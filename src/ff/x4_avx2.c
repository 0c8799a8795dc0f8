/* The lane kernels' shared constant block (x4_avx2.h); the arithmetic
 * behind each constant is described in fp_x4_avx2.c. */
#include "x4_avx2.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

/* C1: where each hi chain starts, the bottom of the binade [2^100, 2^101)
 * whose doubles lie 2^48 apart; C2: the lo sums' bias, in [2^52, 2^53). */
static const double C1 = 0x1p100, C2 = 0x1.8p52, TWO52 = 0x1p52;
#define M48 ((UINT64_C(1) << 48) - 1)
#define OFF62 (UINT64_C(1) << 62)

static void kput(uint64_t *K, unsigned off, uint64_t v)
{
    for (unsigned l = 0; l < 4; l++) K[off / 8 + l] = v;
}

void cz__x4_fill_consts(uint64_t *K, unsigned nl, const uint64_t *m48, uint64_t minv48, bool sqr, unsigned nh, unsigned ne)
{
    kput(K, CZ_X4_K_C1, cz__x4_dbits(C1));
    kput(K, CZ_X4_K_CC, cz__x4_dbits(C1 + C2));
    kput(K, CZ_X4_K_PINV_LO, minv48 & 0xffffffffu);
    kput(K, CZ_X4_K_PINV_HI, minv48 >> 32);
    kput(K, CZ_X4_K_M48, M48);
    kput(K, CZ_X4_K_E52, cz__x4_dbits(TWO52));
    kput(K, CZ_X4_K_TWO52, cz__x4_dbits(TWO52));
    kput(K, CZ_X4_K_BITS_C2, cz__x4_dbits(C2));
    kput(K, CZ_X4_K_OFF62, OFF62);
    for (unsigned j = 0; j < nl; j++) kput(K, CZ_X4_K_P + 32 * j, cz__x4_dbits((double)m48[j]));
    const uint64_t bl = cz__x4_dbits(C2), bh = cz__x4_dbits(C1);
    const int n = (int)nl;
    uint64_t nxt = 0; /* the biases in the next column's integer sum */
    for (int c = 0; c < 2 * n; c++) {
        /* column c's limb products: a_i·b_{c-i} (a square's (2·a_i)·a_{c-i}
         * for i < c − i, and a_i²), then m_i·p_{c-i} for i < c */
        int lo = c > n - 1 ? c - (n - 1) : 0, hi = c < n - 1 ? c : n - 1, mh = c < n ? c - 1 : n - 1;
        int ab = (sqr ? c / 2 : hi) - lo + 1, mp = mh - lo + 1;
        int terms = (ab > 0 ? ab : 0) + (mp > 0 ? mp : 0);
        uint64_t chains = (uint64_t)(terms < (int)nh ? terms : (int)nh);
        uint64_t sums = (uint64_t)(terms < (int)ne ? terms : (int)ne);
        uint64_t cur = nxt + sums * bl; /* each lo sum is biased by C2 once */
        nxt = chains * bh;              /* each hi chain starts from C1 */
        if (c < n) {
            kput(K, CZ_X4_K_BIAS_PRE(nl) + 32 * (unsigned)c, cur - OFF62); /* before lo(m_c·p_0) */
            nxt += bh;                                                    /* hi(m_c·p_0) */
        } else {
            kput(K, CZ_X4_K_BIAS_COL(nl) + 32 * (unsigned)(c - n), cur - OFF62);
        }
        nxt += UINT64_C(1) << 14; /* the offset carried out */
    }
}

#endif
