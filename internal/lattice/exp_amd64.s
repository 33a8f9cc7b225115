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
