#!/usr/bin/env python3
"""Generates src/ff/fp_x4_avx2_asm.h: the AVX2 + FMA Fp product on 16 lanes.

Run: python3 src/ff/gen_fp_x4_avx2.py > src/ff/fp_x4_avx2_asm.h

The kernel is one GNU inline-asm block (fp_x4_avx2.c supplies the
operands). Four independent groups of four lanes ("streams") run side by
side so that each group's serial Montgomery chain (column c's m needs
column c complete, which needs m of column c - 1) hides behind the other
three: measured on Zen 4 (BENCHMARKS.md "AVX2 + FMA lanes"), one group
takes 2.1x the time per product of four, two 1.4x, three 1.1x; five no
longer fit the op cache. Four fill the 16 YMM registers (2 column sums per
group, C1, CC, three temporaries shared by all groups: register renaming
keeps them independent).

Layout, per group s (fp_x4_avx2.c fills it): the a limbs as doubles at
w + 768s, the b limbs at w + 768s + 256, the m of each column stored at
w + 768s + 512 as it is found. Constants at k (see K_* below). Results,
eight 48-bit limbs of four lanes, to r0..r3.

Product scanning: column c adds lo(a_i·b_j) and lo(m_i·p_j) for i + j = c
to its sum and the hi halves to the next column's; columns 0..7 then find
m_c = sum·(-1/p) mod 2^48 and carry sum + lo(m_c·p_0) (= 0 mod 2^48) on;
columns 8..15 give the result limbs. The split of a limb product and the
bias bookkeeping are described in fp_x4_avx2.c.
"""
import sys

NS = 4
# constant block offsets (bytes; each entry is four equal 64-bit lanes)
K_C1, K_CC, K_PL, K_PH, K_M48, K_E52, K_TWO52, K_BC2, K_OFF62 = (32 * i for i in range(9))
def K_P(j): return 288 + 32 * j          # p's limbs as doubles
def K_BPRE(c): return 544 + 32 * c       # column c's bias before m_c (c < 8)
def K_BCOL(c): return 800 + 32 * (c - 8) # column c's bias (c >= 8)
K_BYTES = 1056
W_GROUP = 768
def W_A(s, i): return W_GROUP * s + 32 * i
def W_B(s, j): return W_GROUP * s + 256 + 32 * j
def W_M(s, i): return W_GROUP * s + 512 + 32 * i

Y_C1, Y_CC, Y_A, Y_T, Y_L = 15, 14, 13, 12, 11
out = []
def e(x): out.append(x)
def y(n): return "%%%%ymm%d" % n
def kk(off): return "%d(%%[k])" % off
def ww(off): return "%d(%%[w])" % off

cur = [2 * s for s in range(NS)]
nxt = [2 * s + 1 for s in range(NS)]

def split(s, aop, bop):
    """hi -> next column's sum, lo -> this column's (both biased bit patterns)."""
    e("vmovapd %s, %s" % (aop, y(Y_A)))
    e("vmovapd %s, %s" % (bop, y(Y_T)))
    e("vfmadd213pd %s, %s, %s" % (y(Y_C1), y(Y_A), y(Y_T)))   # t = a·b + C1
    e("vsubpd %s, %s, %s" % (y(Y_T), y(Y_CC), y(Y_L)))        # CC - t
    e("vfmadd231pd %s, %s, %s" % (bop, y(Y_A), y(Y_L)))       # lo = a·b + (CC - t)
    e("vpaddq %s, %s, %s" % (y(Y_T), y(nxt[s]), y(nxt[s])))
    e("vpaddq %s, %s, %s" % (y(Y_L), y(cur[s]), y(cur[s])))

e("vmovapd %s, %s" % (kk(K_C1), y(Y_C1)))
e("vmovapd %s, %s" % (kk(K_CC), y(Y_CC)))
for s in range(NS):
    for r in (cur[s], nxt[s]):
        e("vpxor %s, %s, %s" % (y(r), y(r), y(r)))
for c in range(16):
    lo, hi = max(0, c - 7), min(c, 7)
    # the a·b terms first: they wait for nothing, so they fill the time
    # until the previous column's m arrives for the m·p terms
    terms = [(True, i, c - i) for i in range(lo, hi + 1)]
    terms += [(False, i, c - i) for i in range(lo, (c - 1 if c < 8 else 7) + 1)]
    for is_ab, i, j in terms:
        for s in range(NS):
            if is_ab:
                split(s, ww(W_A(s, i)), ww(W_B(s, j)))
            else:
                split(s, ww(W_M(s, i)), kk(K_P(j)))
    for s in range(NS):
        x, A, T, L = cur[s], Y_A, Y_T, Y_L
        if c < 8:
            # x = column + 2^62 (unbiased); m = x·(-1/p) mod 2^48 from 32-bit halves
            e("vpsubq %s, %s, %s" % (kk(K_BPRE(c)), y(x), y(x)))
            e("vpsrlq $32, %s, %s" % (y(x), y(A)))
            e("vpmuludq %s, %s, %s" % (kk(K_PL), y(A), y(A)))
            e("vpmuludq %s, %s, %s" % (kk(K_PH), y(x), y(T)))
            e("vpaddq %s, %s, %s" % (y(A), y(T), y(T)))
            e("vpsllq $32, %s, %s" % (y(T), y(T)))
            e("vpmuludq %s, %s, %s" % (kk(K_PL), y(x), y(A)))
            e("vpaddq %s, %s, %s" % (y(A), y(T), y(T)))
            e("vpand %s, %s, %s" % (kk(K_M48), y(T), y(T)))
            e("vpor %s, %s, %s" % (kk(K_E52), y(T), y(T)))        # exact double of m:
            e("vsubpd %s, %s, %s" % (kk(K_TWO52), y(T), y(A)))    # (2^52 + m) - 2^52
            e("vmovapd %s, %s" % (y(A), ww(W_M(s, c))))
            # m·p_0: hi to the next column; column + lo = 0 mod 2^48: carry it
            e("vmovapd %s, %s" % (kk(K_P(0)), y(T)))
            e("vfmadd213pd %s, %s, %s" % (y(Y_C1), y(A), y(T)))
            e("vsubpd %s, %s, %s" % (y(T), y(Y_CC), y(L)))
            e("vfmadd231pd %s, %s, %s" % (kk(K_P(0)), y(A), y(L)))
            e("vpaddq %s, %s, %s" % (y(T), y(nxt[s]), y(nxt[s])))
            e("vpsubq %s, %s, %s" % (kk(K_BC2), y(x), y(x)))
            e("vpaddq %s, %s, %s" % (y(L), y(x), y(x)))
            e("vpsrlq $48, %s, %s" % (y(x), y(x)))
            e("vpaddq %s, %s, %s" % (y(x), y(nxt[s]), y(nxt[s])))
        else:
            e("vpsubq %s, %s, %s" % (kk(K_BCOL(c)), y(x), y(x)))   # column + 2^62
            if c < 15:
                e("vpand %s, %s, %s" % (kk(K_M48), y(x), y(A)))
                e("vmovdqa %s, %d(%%[r%d])" % (y(A), 32 * (c - 8), s))
                e("vpsrlq $48, %s, %s" % (y(x), y(x)))
                e("vpaddq %s, %s, %s" % (y(x), y(nxt[s]), y(nxt[s])))
            else:
                e("vpsubq %s, %s, %s" % (kk(K_OFF62), y(x), y(x)))
                e("vmovdqa %s, %d(%%[r%d])" % (y(x), 32 * 7, s))
        # the next column's sum becomes this one; the old register is zeroed
        cur[s], nxt[s] = nxt[s], cur[s]
        if c < 15:
            e("vpxor %s, %s, %s" % (y(nxt[s]), y(nxt[s]), y(nxt[s])))

print("/*")
print(" * GENERATED by src/ff/gen_fp_x4_avx2.py — do not edit by hand.")
print(" *")
print(" * The AVX2 + FMA Fp Montgomery product of %d groups of four lanes" % NS)
print(" * (%d instructions), for fp_x4_avx2.c; see the generator for the layout." % len(out))
print(" */")
print("#ifndef CZ_FF_FP_X4_AVX2_ASM_H")
print("#define CZ_FF_FP_X4_AVX2_ASM_H")
print()
print("#define CZ_FP_X4_ASM_GROUPS %d" % NS)
print("#define CZ_FP_X4_ASM_K_BYTES %d" % K_BYTES)
for nm, off in (("C1", K_C1), ("CC", K_CC), ("PINV_LO", K_PL), ("PINV_HI", K_PH), ("M48", K_M48),
                ("E52", K_E52), ("TWO52", K_TWO52), ("BITS_C2", K_BC2), ("OFF62", K_OFF62),
                ("P", K_P(0)), ("BIAS_PRE", K_BPRE(0)), ("BIAS_COL8", K_BCOL(8))):
    print("#define CZ_FP_X4_ASM_K_%s %d" % (nm, off))
print("#define CZ_FP_X4_ASM_W_GROUP %d" % W_GROUP)
print("#define CZ_FP_X4_ASM_BODY \\")
for l in out:
    print('    "%s\\n\\t" \\' % l)
print('    ""')
print()
print("#endif")
