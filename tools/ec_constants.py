#!/usr/bin/env python3
"""Derive and check the curve constants of src/ec/g1.c and src/ec/g2.c.

A deliberately naive model of BLS12-381 (affine arithmetic over Python
integers, Fp2 = Fp[u]/(u^2+1)) that
  - checks the standard generators are on their curves and have order r,
  - finds the cube root of unity beta for which phi(x, y) = (beta x, y) acts on
    G1 as [-x^2] (Scott 2021 subgroup test),
  - computes the psi coefficients cx = 1/(1+u)^((p-1)/3),
    cy = 1/(1+u)^((p-1)/2) and checks psi(G2) = [x]G2,
and prints every constant as Montgomery-form 64-bit limbs (R = 2^384), the
form in which g1.c / g2.c hold them. Run: python3 tools/ec_constants.py
"""
p = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab
r = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001
x = -0xd201000000010000
R = 2**384
def mont(a): return (a*R) % p
def limbs(a, n=6): return [(a >> (64*i)) & (2**64-1) for i in range(n)]
def fmt(a): return "{" + ", ".join("0x%016xULL" % l for l in limbs(mont(a))) + "}"
# Fp2 as tuples
def f2add(a,b): return ((a[0]+b[0])%p,(a[1]+b[1])%p)
def f2sub(a,b): return ((a[0]-b[0])%p,(a[1]-b[1])%p)
def f2mul(a,b): return ((a[0]*b[0]-a[1]*b[1])%p,(a[0]*b[1]+a[1]*b[0])%p)
def f2pow(a,e):
    res=(1,0)
    while e:
        if e&1: res=f2mul(res,a)
        a=f2mul(a,a); e>>=1
    return res
def f2inv(a):
    n=pow(a[0]*a[0]+a[1]*a[1],p-2,p); return (a[0]*n%p,(-a[1])*n%p)
def conj(a): return (a[0],(-a[1])%p)
# generic affine ops over a field given ops
class F1:
    add=staticmethod(lambda a,b:(a+b)%p); sub=staticmethod(lambda a,b:(a-b)%p); mul=staticmethod(lambda a,b:a*b%p)
    inv=staticmethod(lambda a:pow(a,p-2,p)); zero=0; one=1
class F2:
    add=staticmethod(f2add); sub=staticmethod(f2sub); mul=staticmethod(f2mul); inv=staticmethod(f2inv); zero=(0,0); one=(1,0)
def ec_add(F,P,Q):
    if P is None: return Q
    if Q is None: return P
    if P[0]==Q[0]:
        if P[1]==Q[1]:
            l=F.mul(F.mul((3,0) if F is F2 else 3, F.mul(P[0],P[0])), F.inv(F.add(P[1],P[1])))
        else: return None
    else:
        l=F.mul(F.sub(Q[1],P[1]),F.inv(F.sub(Q[0],P[0])))
    x3=F.sub(F.sub(F.mul(l,l),P[0]),Q[0]); y3=F.sub(F.mul(l,F.sub(P[0],x3)),P[1]); return (x3,y3)
def ec_neg(F,P): return None if P is None else (P[0], F.sub(F.zero,P[1]))
def ec_mul(F,P,k):
    if k<0: return ec_mul(F,ec_neg(F,P),-k)
    R_=None
    while k:
        if k&1: R_=ec_add(F,R_,P)
        P=ec_add(F,P,P); k>>=1
    return R_
g1x=0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb
g1y=0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1
G1=(g1x,g1y)
assert (g1y*g1y-g1x**3-4)%p==0
assert ec_mul(F1,G1,r) is None
g2x=(0x024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8,
     0x13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e)
g2y=(0x0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801,
     0x0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be)
G2=(g2x,g2y)
b2=(4,4)
assert f2sub(f2mul(g2y,g2y), f2add(f2mul(g2x,f2mul(g2x,g2x)),b2))==(0,0)
assert ec_mul(F2,G2,r) is None
print("G1 x", fmt(g1x)); print("G1 y", fmt(g1y))
for n,v in (("G2 x0",g2x[0]),("G2 x1",g2x[1]),("G2 y0",g2y[0]),("G2 y1",g2y[1])): print(n, fmt(v))
# beta: cube roots of unity
g=2
while True:
    b=pow(g,(p-1)//3,p)
    if b!=1: break
    g+=1
for beta in (b, b*b%p):
    phi=(beta*g1x%p, g1y)
    lam = -x*x
    if ec_mul(F1,G1,lam)==phi: print("beta (phi = [-x^2]) ", hex(beta), fmt(beta)); BETA=beta
# psi
nr=(1,1)
cx=f2inv(f2pow(nr,(p-1)//3)); cy=f2inv(f2pow(nr,(p-1)//2))
def psi(P): return (f2mul(cx,conj(P[0])), f2mul(cy,conj(P[1])))
assert psi(G2)==ec_mul(F2,G2,x), "psi != [x]"
print("psi cx", fmt(cx[0]), fmt(cx[1])); print("psi cy", fmt(cy[0]), fmt(cy[1]))
print("cx raw", hex(cx[0]), hex(cx[1])); print("cy raw", hex(cy[0]), hex(cy[1]))
print("4 mont", fmt(4))
# h_eff G2 from RFC 9380
heff=0xbc69f08f2ee75b3584c6a0ea91b352888e2a8e9145ad7689986ff031508ffe1329c2f178731db956d82bf015d1212b02ec0ec69d7477c1ae954cbc06689f6a359894c0adebbf6b4e8020005aaa95551
print("heff limbs", len(limbs(heff,10)), ", ".join("0x%016xULL"%l for l in limbs(heff,10)))
print("1-x", hex(1-x))
