//go:build amd64 && !purego

#include "textflag.h"

// Constants of math.Exp's amd64 assembly (math/exp_amd64.s), whose
// fused-multiply-add path expShift512 repeats lane by lane.
DATA expc<>+0(SB)/8, $0.5
DATA expc<>+8(SB)/8, $1.0
DATA expc<>+16(SB)/8, $2.0
DATA expc<>+24(SB)/8, $1.6666666666666666667e-1
DATA expc<>+32(SB)/8, $4.1666666666666666667e-2
DATA expc<>+40(SB)/8, $8.3333333333333333333e-3
DATA expc<>+48(SB)/8, $1.3888888888888888889e-3
DATA expc<>+56(SB)/8, $1.9841269841269841270e-4
DATA expc<>+64(SB)/8, $2.4801587301587301587e-5
DATA expc<>+72(SB)/8, $1.4426950408889634073599246810018920
DATA expc<>+80(SB)/8, $0.69314718055966295651160180568695068359375
DATA expc<>+88(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expc<>+96(SB)/8, $7.09782712893384e+02
DATA expc<>+104(SB)/8, $0.0625
DATA expc<>+112(SB)/8, $0x7FF0000000000000
DATA expc<>+120(SB)/8, $1023
DATA expc<>+128(SB)/8, $1022
DATA expc<>+136(SB)/8, $0x0010000000000000
DATA expc<>+144(SB)/8, $-52
DATA expc<>+152(SB)/8, $2046
GLOBL expc<>(SB), RODATA|NOPTR, $160

// The same constants, four copies each, as ymm memory operands of
// expShift256 (expc4<> + 32·index).
DATA expc4<>+0(SB)/8, $0.5
DATA expc4<>+8(SB)/8, $0.5
DATA expc4<>+16(SB)/8, $0.5
DATA expc4<>+24(SB)/8, $0.5
DATA expc4<>+32(SB)/8, $1.0
DATA expc4<>+40(SB)/8, $1.0
DATA expc4<>+48(SB)/8, $1.0
DATA expc4<>+56(SB)/8, $1.0
DATA expc4<>+64(SB)/8, $2.0
DATA expc4<>+72(SB)/8, $2.0
DATA expc4<>+80(SB)/8, $2.0
DATA expc4<>+88(SB)/8, $2.0
DATA expc4<>+96(SB)/8, $1.6666666666666666667e-1
DATA expc4<>+104(SB)/8, $1.6666666666666666667e-1
DATA expc4<>+112(SB)/8, $1.6666666666666666667e-1
DATA expc4<>+120(SB)/8, $1.6666666666666666667e-1
DATA expc4<>+128(SB)/8, $4.1666666666666666667e-2
DATA expc4<>+136(SB)/8, $4.1666666666666666667e-2
DATA expc4<>+144(SB)/8, $4.1666666666666666667e-2
DATA expc4<>+152(SB)/8, $4.1666666666666666667e-2
DATA expc4<>+160(SB)/8, $8.3333333333333333333e-3
DATA expc4<>+168(SB)/8, $8.3333333333333333333e-3
DATA expc4<>+176(SB)/8, $8.3333333333333333333e-3
DATA expc4<>+184(SB)/8, $8.3333333333333333333e-3
DATA expc4<>+192(SB)/8, $1.3888888888888888889e-3
DATA expc4<>+200(SB)/8, $1.3888888888888888889e-3
DATA expc4<>+208(SB)/8, $1.3888888888888888889e-3
DATA expc4<>+216(SB)/8, $1.3888888888888888889e-3
DATA expc4<>+224(SB)/8, $1.9841269841269841270e-4
DATA expc4<>+232(SB)/8, $1.9841269841269841270e-4
DATA expc4<>+240(SB)/8, $1.9841269841269841270e-4
DATA expc4<>+248(SB)/8, $1.9841269841269841270e-4
DATA expc4<>+256(SB)/8, $2.4801587301587301587e-5
DATA expc4<>+264(SB)/8, $2.4801587301587301587e-5
DATA expc4<>+272(SB)/8, $2.4801587301587301587e-5
DATA expc4<>+280(SB)/8, $2.4801587301587301587e-5
DATA expc4<>+288(SB)/8, $1.4426950408889634073599246810018920
DATA expc4<>+296(SB)/8, $1.4426950408889634073599246810018920
DATA expc4<>+304(SB)/8, $1.4426950408889634073599246810018920
DATA expc4<>+312(SB)/8, $1.4426950408889634073599246810018920
DATA expc4<>+320(SB)/8, $0.69314718055966295651160180568695068359375
DATA expc4<>+328(SB)/8, $0.69314718055966295651160180568695068359375
DATA expc4<>+336(SB)/8, $0.69314718055966295651160180568695068359375
DATA expc4<>+344(SB)/8, $0.69314718055966295651160180568695068359375
DATA expc4<>+352(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expc4<>+360(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expc4<>+368(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expc4<>+376(SB)/8, $0.28235290563031577122588448175013436025525412068e-12
DATA expc4<>+384(SB)/8, $7.09782712893384e+02
DATA expc4<>+392(SB)/8, $7.09782712893384e+02
DATA expc4<>+400(SB)/8, $7.09782712893384e+02
DATA expc4<>+408(SB)/8, $7.09782712893384e+02
DATA expc4<>+416(SB)/8, $0.0625
DATA expc4<>+424(SB)/8, $0.0625
DATA expc4<>+432(SB)/8, $0.0625
DATA expc4<>+440(SB)/8, $0.0625
DATA expc4<>+448(SB)/8, $0x7FF0000000000000
DATA expc4<>+456(SB)/8, $0x7FF0000000000000
DATA expc4<>+464(SB)/8, $0x7FF0000000000000
DATA expc4<>+472(SB)/8, $0x7FF0000000000000
DATA expc4<>+480(SB)/8, $1023
DATA expc4<>+488(SB)/8, $1023
DATA expc4<>+496(SB)/8, $1023
DATA expc4<>+504(SB)/8, $1023
DATA expc4<>+512(SB)/8, $1022
DATA expc4<>+520(SB)/8, $1022
DATA expc4<>+528(SB)/8, $1022
DATA expc4<>+536(SB)/8, $1022
DATA expc4<>+544(SB)/8, $0x0010000000000000
DATA expc4<>+552(SB)/8, $0x0010000000000000
DATA expc4<>+560(SB)/8, $0x0010000000000000
DATA expc4<>+568(SB)/8, $0x0010000000000000
DATA expc4<>+576(SB)/8, $-52
DATA expc4<>+584(SB)/8, $-52
DATA expc4<>+592(SB)/8, $-52
DATA expc4<>+600(SB)/8, $-52
DATA expc4<>+608(SB)/8, $2046
DATA expc4<>+616(SB)/8, $2046
DATA expc4<>+624(SB)/8, $2046
DATA expc4<>+632(SB)/8, $2046
GLOBL expc4<>(SB), RODATA|NOPTR, $640
DATA exptail<>+0(SB)/8, $-1
DATA exptail<>+8(SB)/8, $-1
DATA exptail<>+16(SB)/8, $-1
DATA exptail<>+24(SB)/8, $-1
DATA exptail<>+32(SB)/8, $0
DATA exptail<>+40(SB)/8, $0
DATA exptail<>+48(SB)/8, $0
DATA exptail<>+56(SB)/8, $0
GLOBL exptail<>(SB), RODATA|NOPTR, $64

// func expShift512(w, x *float64, n int, m float64)
// Sets w[i] = math.Exp(x[i] − m) for i < n (n ≥ 1), bit for bit as the
// fused-multiply-add path of math.Exp on amd64: k = RNE(x·log2e) as int32,
// r = ((x − k·ln2hi) − k·ln2lo)·2^−4 (fused), the degree-8 Taylor
// polynomial by fused Horner steps, four squarings e ← e·(e + 2) (the last
// fused with the + 1), and the scaling by 2^k (two steps below the normal
// range); −Inf gives 0, NaN itself, arguments above the overflow threshold
// +Inf.
TEXT ·expShift512(SB), NOSPLIT, $0-32
	MOVQ         w+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), BX
	VBROADCASTSD m+24(FP), Z31
	VBROADCASTSD expc<>+64(SB), Z30 // c8
	VBROADCASTSD expc<>+112(SB), Z29 // +Inf
	VPXORQ       Z28, Z28, Z28

loop:
	MOVQ  $0xff, AX
	CMPQ  BX, $8
	JCC   full
	MOVQ  BX, CX
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX

full:
	KMOVW AX, K1
	VMOVUPD.Z (SI), K1, Z0
	VSUBPD    Z31, Z0, Z0                      // x = v − m
	VMULPD.BCST expc<>+72(SB), Z0, Z1          // x·log2e
	VCVTPD2DQ Z1, Y2                           // k (RNE; out of range: −2^31)
	VCVTDQ2PD Y2, Z1                           // float k
	VMOVAPD   Z0, Z3
	VFNMADD231PD.BCST expc<>+80(SB), Z1, Z3    // r = x − k·ln2hi (fused)
	VFNMADD231PD.BCST expc<>+88(SB), Z1, Z3    // r −= k·ln2lo (fused)
	VMULPD.BCST expc<>+104(SB), Z3, Z3         // r·2^−4
	VMOVAPD   Z30, Z4
	VFMADD213PD.BCST expc<>+56(SB), Z3, Z4     // p = p·r + c
	VFMADD213PD.BCST expc<>+48(SB), Z3, Z4
	VFMADD213PD.BCST expc<>+40(SB), Z3, Z4
	VFMADD213PD.BCST expc<>+32(SB), Z3, Z4
	VFMADD213PD.BCST expc<>+24(SB), Z3, Z4
	VFMADD213PD.BCST expc<>+0(SB), Z3, Z4
	VFMADD213PD.BCST expc<>+8(SB), Z3, Z4
	VMULPD    Z4, Z3, Z3                       // e = r·p
	VADDPD.BCST expc<>+16(SB), Z3, Z4
	VMULPD    Z4, Z3, Z3                       // e = e·(e + 2)
	VADDPD.BCST expc<>+16(SB), Z3, Z4
	VMULPD    Z4, Z3, Z3
	VADDPD.BCST expc<>+16(SB), Z3, Z4
	VMULPD    Z4, Z3, Z3
	VADDPD.BCST expc<>+16(SB), Z3, Z4
	VFMADD213PD.BCST expc<>+8(SB), Z4, Z3      // e = e·(e + 2) + 1 (fused)

	// Scale by 2^k: b = k + 1023 as int64.
	VPMOVSXDQ Y2, Z5
	VPADDQ.BCST expc<>+120(SB), Z5, Z5
	VPCMPQ    $2, Z28, Z5, K2                  // b ≤ 0: below the normal range
	VMOVDQA64 Z5, Z6
	VPADDQ.BCST expc<>+128(SB), Z5, K2, Z6     // there b + 1022
	VPSLLQ    $52, Z6, Z6
	VMULPD    Z6, Z3, Z3
	VMULPD.BCST expc<>+136(SB), Z3, K2, Z3     // there · 2^−1022
	VPCMPQ.BCST $1, expc<>+144(SB), Z5, K3     // b < −52: 0
	VMOVAPD   Z28, K3, Z3
	VPCMPQ.BCST $6, expc<>+152(SB), Z5, K4     // b > 2046: +Inf
	VCMPPD.BCST $0x1e, expc<>+96(SB), Z0, K5   // x > overflow: +Inf
	KORW      K4, K5, K4
	VMOVAPD   Z29, K4, Z3
	VCMPPD    $3, Z0, Z0, K6                   // NaN: x
	VMOVAPD   Z0, K6, Z3

	VMOVUPD   Z3, K1, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $8, BX
	JGT       loop
	VZEROUPPER
	RET

// Four int32 lanes each: k + 1022 lies in [0, 2045] exactly when b = k +
// 1023 is in math.Exp's normal range [1, 2046].
DATA expk4<>+0(SB)/4, $1022
DATA expk4<>+4(SB)/4, $1022
DATA expk4<>+8(SB)/4, $1022
DATA expk4<>+12(SB)/4, $1022
DATA expk4<>+16(SB)/4, $2045
DATA expk4<>+20(SB)/4, $2045
DATA expk4<>+24(SB)/4, $2045
DATA expk4<>+28(SB)/4, $2045
GLOBL expk4<>(SB), RODATA|NOPTR, $32

// EXPK sets kf = RNE(x·log2e) and ki = the same as int32 (−2^31 out of
// range, as math.Exp's CVTSD2SL). kf is rounded from the product directly
// rather than converted back from ki: the two agree wherever ki is in
// range, and elsewhere (NaN, ±Inf, |x·log2e| ≥ 2^31) the result is decided
// by ki and x alone in EXPSCALE.
#define EXPK(x, kf, ki) \
	VMULPD     expc4<>+288(SB), x, kf \
	VCVTPD2DQY kf, ki                 \
	VROUNDPD   $0x08, kf, kf

// EXPPOLY sets e, which holds x, to the value of math.Exp's
// fused-multiply-add path before its scaling by 2^k: r = ((x − k·ln2hi) −
// k·ln2lo)·2^−4 (fused), the degree-8 Taylor polynomial by fused Horner
// steps and four squarings e ← e·(e + 2), the last fused with the + 1. p
// holds k on entry (and is scratch); Y12 holds 2 and Y13 holds 1.
#define EXPPOLY(e, p) \
	VFNMADD231PD expc4<>+320(SB), p, e       \
	VFNMADD231PD expc4<>+352(SB), p, e       \
	VMULPD       expc4<>+416(SB), e, e       \
	VMOVUPD      expc4<>+256(SB), p          \
	VFMADD213PD  expc4<>+224(SB), e, p       \
	VFMADD213PD  expc4<>+192(SB), e, p       \
	VFMADD213PD  expc4<>+160(SB), e, p       \
	VFMADD213PD  expc4<>+128(SB), e, p       \
	VFMADD213PD  expc4<>+96(SB), e, p        \
	VFMADD213PD  expc4<>+0(SB), e, p         \
	VFMADD213PD  Y13, e, p                   \
	VMULPD       p, e, e                     \
	VADDPD       Y12, e, p                   \
	VMULPD       p, e, e                     \
	VADDPD       Y12, e, p                   \
	VMULPD       p, e, e                     \
	VADDPD       Y12, e, p                   \
	VMULPD       p, e, e                     \
	VADDPD       Y12, e, p                   \
	VFMADD213PD  Y13, p, e

// EXPRANGE sets the sign bits of the int32 lanes of bad where ki is
// outside [−1022, 1023], the lanes that need EXPSCALE.
#define EXPRANGE(ki, bad, t) \
	VPADDD   expk4<>+0(SB), ki, bad   \
	VPCMPGTD expk4<>+16(SB), bad, t   \
	VPOR     t, bad, bad

// EXPFAST scales e by 2^k for lanes with b = k + 1023 in [1, 2046]: one
// multiply by the power of two, as math.Exp does there.
#define EXPFAST(e, ki, t) \
	VPMOVSXDQ ki, t                  \
	VPADDQ    expc4<>+480(SB), t, t  \
	VPSLLQ    $52, t, t              \
	VMULPD    t, e, e

// EXPSCALE is math.Exp's scaling for every lane: b = k + 1023; b ≤ 0
// multiplies by 2^(b+1022) and then 2^−1022, b < −52 gives 0, b > 2046 or
// x above the overflow threshold +Inf, and NaN gives x.
#define EXPSCALE(e, ki, x, t1, t2, t3) \
	VPMOVSXDQ ki, t1                         \
	VPADDQ    expc4<>+480(SB), t1, t1        \
	VPXOR     t3, t3, t3                     \
	VPCMPGTQ  t3, t1, t2                     \
	VPANDN    expc4<>+512(SB), t2, t3        \
	VPADDQ    t3, t1, t3                     \
	VPSLLQ    $52, t3, t3                    \
	VMULPD    t3, e, e                       \
	VMOVUPD   expc4<>+544(SB), t3            \
	VBLENDVPD t2, expc4<>+32(SB), t3, t3     \
	VMULPD    t3, e, e                       \
	VMOVDQU   expc4<>+576(SB), t3            \
	VPCMPGTQ  t1, t3, t3                     \
	VANDNPD   e, t3, e                       \
	VPCMPGTQ  expc4<>+608(SB), t1, t3        \
	VCMPPD    $0x1e, expc4<>+384(SB), x, t2  \
	VORPD     t2, t3, t3                     \
	VBLENDVPD t3, expc4<>+448(SB), e, e      \
	VCMPPD    $3, x, x, t3                   \
	VBLENDVPD t3, x, e, e

// EXPSLOW rescales the vector e (exponents ki) of the values at off(SI)
// by EXPSCALE, reloading x = v − m; it uses Y12 − Y14 and p as scratch.
#define EXPSLOW(off, e, p, ki) \
	VMOVUPD  off(SI), Y14          \
	VSUBPD   Y15, Y14, Y14         \
	EXPSCALE(e, ki, Y14, p, Y12, Y13)

// func expShift256(w, x *float64, n int, m float64)
// expShift512 with AVX2 and FMA: 16 values per iteration as four
// independent vectors, scaled by a single multiply when every lane's
// exponent is in the normal range and by the full EXPSCALE otherwise;
// then vectors of four; the last n mod 4 values are loaded under a lane
// mask and stored lane by lane (masked stores are slow on some
// processors). Each vector is loaded before it is stored, so w may be x.
TEXT ·expShift256(SB), NOSPLIT, $0-32
	MOVQ         w+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), BX
	VBROADCASTSD m+24(FP), Y15

loop16:
	VMOVUPD   expc4<>+64(SB), Y12       // 2
	VMOVUPD   expc4<>+32(SB), Y13       // 1
	CMPQ      BX, $16
	JCS       vec4
	VMOVUPD   (SI), Y0
	VMOVUPD   32(SI), Y3
	VMOVUPD   64(SI), Y6
	VMOVUPD   96(SI), Y9
	VSUBPD    Y15, Y0, Y0               // x = v − m
	VSUBPD    Y15, Y3, Y3
	VSUBPD    Y15, Y6, Y6
	VSUBPD    Y15, Y9, Y9
	EXPK(Y0, Y1, X2)
	EXPK(Y3, Y4, X5)
	EXPK(Y6, Y7, X8)
	EXPK(Y9, Y10, X11)
	EXPRANGE(X2, X14, X12)
	EXPRANGE(X5, X12, X13)
	VPOR      X12, X14, X14
	EXPRANGE(X8, X12, X13)
	VPOR      X12, X14, X14
	EXPRANGE(X11, X12, X13)
	VPOR      X12, X14, X14
	VMOVMSKPS X14, AX
	VMOVUPD   expc4<>+64(SB), Y12       // 2
	VMOVUPD   expc4<>+32(SB), Y13       // 1
	EXPPOLY(Y0, Y1)
	EXPPOLY(Y3, Y4)
	EXPPOLY(Y6, Y7)
	EXPPOLY(Y9, Y10)
	TESTL     AX, AX
	JNE       slow16
	EXPFAST(Y0, X2, Y1)
	EXPFAST(Y3, X5, Y4)
	EXPFAST(Y6, X8, Y7)
	EXPFAST(Y9, X11, Y10)

store16:
	VMOVUPD Y0, (DI)
	VMOVUPD Y3, 32(DI)
	VMOVUPD Y6, 64(DI)
	VMOVUPD Y9, 96(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $16, BX
	JMP     loop16

slow16:
	EXPSLOW(0, Y0, Y1, X2)
	EXPSLOW(32, Y3, Y4, X5)
	EXPSLOW(64, Y6, Y7, X8)
	EXPSLOW(96, Y9, Y10, X11)
	JMP store16

vec4:
	CMPQ    BX, $4
	JCS     tail4
	VMOVUPD (SI), Y0
	VSUBPD  Y15, Y0, Y0
	EXPK(Y0, Y1, X2)
	EXPPOLY(Y0, Y1)
	EXPSLOW(0, Y0, Y1, X2)
	VMOVUPD Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, BX
	VMOVUPD expc4<>+64(SB), Y12
	VMOVUPD expc4<>+32(SB), Y13
	JMP     vec4

tail4:
	TESTQ      BX, BX
	JZ         done
	LEAQ       exptail<>(SB), DX
	MOVQ       $4, AX
	SUBQ       BX, AX
	VMOVDQU    (DX)(AX*8), Y11          // the first BX lanes
	VMASKMOVPD (SI), Y11, Y0
	VSUBPD     Y15, Y0, Y0
	VMOVAPD    Y0, Y3                   // x
	EXPK(Y0, Y1, X2)
	EXPPOLY(Y0, Y1)
	EXPSCALE(Y0, X2, Y3, Y1, Y12, Y13)
	VMOVSD       X0, (DI)
	CMPQ         BX, $2
	JCS          done
	VMOVHPD      X0, 8(DI)
	CMPQ         BX, $3
	JCS          done
	VEXTRACTF128 $1, Y0, X0
	VMOVSD       X0, 16(DI)

done:
	VZEROUPPER
	RET
