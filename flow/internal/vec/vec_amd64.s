//go:build amd64 && !purego

#include "textflag.h"

DATA one<>+0(SB)/8, $0x3ff0000000000000
GLOBL one<>(SB), RODATA|NOPTR, $8
DATA log2e<>+0(SB)/8, $0x3ff71547652b82fe
GLOBL log2e<>(SB), RODATA|NOPTR, $8
DATA ln2hi<>+0(SB)/8, $0x3fe62e42fee00000
GLOBL ln2hi<>(SB), RODATA|NOPTR, $8
DATA ln2lo<>+0(SB)/8, $0x3dea39ef35793c76
GLOBL ln2lo<>(SB), RODATA|NOPTR, $8
DATA ylo<>+0(SB)/8, $0xc087500000000000
GLOBL ylo<>(SB), RODATA|NOPTR, $8
DATA sign<>+0(SB)/8, $0x8000000000000000
GLOBL sign<>(SB), RODATA|NOPTR, $8
DATA yhi<>+0(SB)/8, $0x4086300000000000
GLOBL yhi<>(SB), RODATA|NOPTR, $8
DATA c2<>+0(SB)/8, $0x3fe0000000000000
GLOBL c2<>(SB), RODATA|NOPTR, $8
DATA c3<>+0(SB)/8, $0x3fc5555555555555
GLOBL c3<>(SB), RODATA|NOPTR, $8
DATA c4<>+0(SB)/8, $0x3fa5555555555555
GLOBL c4<>(SB), RODATA|NOPTR, $8
DATA c5<>+0(SB)/8, $0x3f81111111111111
GLOBL c5<>(SB), RODATA|NOPTR, $8
DATA c6<>+0(SB)/8, $0x3f56c16c16c16c17
GLOBL c6<>(SB), RODATA|NOPTR, $8
DATA c7<>+0(SB)/8, $0x3f2a01a01a01a01a
GLOBL c7<>(SB), RODATA|NOPTR, $8
DATA c8<>+0(SB)/8, $0x3efa01a01a01a01a
GLOBL c8<>(SB), RODATA|NOPTR, $8
DATA c9<>+0(SB)/8, $0x3ec71de3a556c734
GLOBL c9<>(SB), RODATA|NOPTR, $8
DATA c10<>+0(SB)/8, $0x3e927e4fb7789f5c
GLOBL c10<>(SB), RODATA|NOPTR, $8
DATA c11<>+0(SB)/8, $0x3e5ae64567f544e4
GLOBL c11<>(SB), RODATA|NOPTR, $8
DATA c12<>+0(SB)/8, $0x3e21eed8eff8d898
GLOBL c12<>(SB), RODATA|NOPTR, $8
DATA c13<>+0(SB)/8, $0x3de6124613a86d09
GLOBL c13<>(SB), RODATA|NOPTR, $8

// EXPZ sets Z3 = e^Z1 for Z1 within the exponential's range (the callers
// clamp it): k = round(Z1·log₂e) into Z2, the reduced argument
// r = Z1 − k·ln2 (in two parts) into Z1, a degree-13 Taylor polynomial of
// e^r into Z3 (Z4 scratch), scaled by 2^k. It needs Z20 = 1, Z21 = log₂e,
// Z22 and Z23 = the high and low parts of ln2.
#define EXPZ \
	VMULPD       Z21, Z1, Z2; \
	VRNDSCALEPD  $0, Z2, Z2; \
	VFNMADD231PD Z22, Z2, Z1; \
	VFNMADD231PD Z23, Z2, Z1; \
	VBROADCASTSD c13<>(SB), Z3; \
	VBROADCASTSD c12<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c11<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c10<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c9<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c8<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c7<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c6<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c5<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c4<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c3<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VBROADCASTSD c2<>(SB), Z4; \
	VFMADD213PD  Z4, Z1, Z3; \
	VFMADD213PD  Z20, Z1, Z3; \
	VFMADD213PD  Z20, Z1, Z3; \
	VSCALEFPD    Z2, Z3, Z3

// func relu(dst, x *float64, n int)
TEXT ·relu(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ $0xff, DX
	KMOVW DX, K1
	VPXORQ Z31, Z31, Z31
loop_relu:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z (SI), K1, Z0
	VMAXPD    Z31, Z0, Z0
	VMOVUPD   Z0, K1, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	SUBQ      $8, CX
	JG        loop_relu
	VZEROUPPER
	RET


// func reluMask(dx, dy, a *float64, n int)
TEXT ·reluMask(SB), NOSPLIT, $0-32
	MOVQ dx+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ $0xff, DX
	KMOVW DX, K1
	VPXORQ Z31, Z31, Z31
loop_rmask:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z (R8), K1, Z1
	VCMPPD    $0x1e, Z31, Z1, K1, K2
	VMOVUPD.Z (SI), K2, Z0
	VMOVUPD   Z0, K1, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	ADDQ      $64, R8
	SUBQ      $8, CX
	JG        loop_rmask
	VZEROUPPER
	RET


// func addPos(dst, src, a *float64, n int)
TEXT ·addPos(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ a+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ $0xff, DX
	KMOVW DX, K1
	VPXORQ Z31, Z31, Z31
loop_apos:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z (R8), K1, Z1
	VCMPPD    $0x1e, Z31, Z1, K1, K2
	VMOVUPD.Z (DI), K1, Z0
	VMOVUPD.Z (SI), K2, Z2
	VADDPD    Z2, Z0, Z0
	VMOVUPD   Z0, K1, (DI)
	ADDQ      $64, SI
	ADDQ      $64, DI
	ADDQ      $64, R8
	SUBQ      $8, CX
	JG        loop_apos
	VZEROUPPER
	RET


// func gateFwd(s, h, t, next *float64, n int)
TEXT ·gateFwd(SB), NOSPLIT, $0-40
	MOVQ s+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ t+16(FP), R8
	MOVQ next+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ $0xff, DX
	KMOVW DX, K1
	VBROADCASTSD one<>(SB), Z20
	VBROADCASTSD log2e<>(SB), Z21
	VBROADCASTSD ln2hi<>(SB), Z22
	VBROADCASTSD ln2lo<>(SB), Z23
	VBROADCASTSD ylo<>(SB), Z24
	VBROADCASTSD sign<>(SB), Z26
	VPXORQ Z31, Z31, Z31
loop_gf:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z    (DI), K1, Z0
	VPORQ        Z26, Z0, Z1
	VMAXPD       Z1, Z24, Z1
	EXPZ
	VADDPD       Z20, Z3, Z7
	VDIVPD       Z7, Z20, Z7
	VCMPPD       $0x11, Z31, Z0, K1, K3
	VMULPD       Z3, Z7, K3, Z7
	VMOVAPD      Z7, Z3
	VMOVUPD      Z3, K1, (DI)
	VMOVUPD.Z    (SI), K1, Z5
	VMOVUPD.Z    (R8), K1, Z6
	VFMADD231PD  Z6, Z3, Z5
	VMOVUPD      Z5, K1, (R9)
	ADDQ         $64, DI
	ADDQ         $64, SI
	ADDQ         $64, R8
	ADDQ         $64, R9
	SUBQ         $8, CX
	JG           loop_gf
	VZEROUPPER
	RET


// func sigmoid(s *float64, n int)
TEXT ·sigmoid(SB), NOSPLIT, $0-16
	MOVQ s+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ $0xff, DX
	KMOVW DX, K1
	VBROADCASTSD one<>(SB), Z20
	VBROADCASTSD log2e<>(SB), Z21
	VBROADCASTSD ln2hi<>(SB), Z22
	VBROADCASTSD ln2lo<>(SB), Z23
	VBROADCASTSD ylo<>(SB), Z24
	VBROADCASTSD sign<>(SB), Z26
	VPXORQ Z31, Z31, Z31
loop_sg:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z    (DI), K1, Z0
	VPORQ        Z26, Z0, Z1
	VMAXPD       Z1, Z24, Z1
	EXPZ
	VADDPD       Z20, Z3, Z7
	VDIVPD       Z7, Z20, Z7
	VCMPPD       $0x11, Z31, Z0, K1, K3
	VMULPD       Z3, Z7, K3, Z7
	VMOVAPD      Z7, Z3
	VMOVUPD      Z3, K1, (DI)
	ADDQ         $64, DI
	SUBQ         $8, CX
	JG           loop_sg
	VZEROUPPER
	RET


// func gateBwd(gn, gate, t, gt, ga *float64, n int)
TEXT ·gateBwd(SB), NOSPLIT, $0-48
	MOVQ gn+0(FP), DI
	MOVQ gate+8(FP), SI
	MOVQ t+16(FP), R8
	MOVQ gt+24(FP), R9
	MOVQ ga+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ $0xff, DX
	KMOVW DX, K1
	VBROADCASTSD one<>(SB), Z20
loop_gb:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z (DI), K1, Z0
	VMOVUPD.Z (SI), K1, Z1
	VMOVUPD.Z (R8), K1, Z2
	VMULPD    Z1, Z0, Z3
	VMOVUPD   Z3, K1, (R9)
	VMULPD    Z2, Z0, Z4
	VMULPD    Z1, Z4, Z4
	VSUBPD    Z1, Z20, Z5
	VMULPD    Z5, Z4, Z4
	VMOVUPD   Z4, K1, (R10)
	ADDQ      $64, DI
	ADDQ      $64, SI
	ADDQ      $64, R8
	ADDQ      $64, R9
	ADDQ      $64, R10
	SUBQ      $8, CX
	JG        loop_gb
	VZEROUPPER
	RET


// func expShift(dst, x *float64, n int, shift float64)
TEXT ·expShift(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD shift+24(FP), Z26
	MOVQ $0xff, DX
	KMOVW DX, K1
	VBROADCASTSD one<>(SB), Z20
	VBROADCASTSD log2e<>(SB), Z21
	VBROADCASTSD ln2hi<>(SB), Z22
	VBROADCASTSD ln2lo<>(SB), Z23
	VBROADCASTSD ylo<>(SB), Z24
	VBROADCASTSD yhi<>(SB), Z25

loop_ex:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z    (SI), K1, Z0
	VSUBPD       Z26, Z0, Z1
	VMAXPD       Z1, Z24, Z1
	VMINPD       Z1, Z25, Z1
	EXPZ
	VMOVUPD      Z3, K1, (DI)
	ADDQ         $64, DI
	ADDQ         $64, SI
	SUBQ         $8, CX
	JG           loop_ex
	VZEROUPPER
	RET

// func addTo(dst, src *float64, n int)
TEXT ·addTo(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ $0xff, DX
	KMOVW DX, K1

loop_at:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z (DI), K1, Z0
	VMOVUPD.Z (SI), K1, Z1
	VADDPD    Z1, Z0, Z0
	VMOVUPD   Z0, K1, (DI)
	ADDQ      $64, DI
	ADDQ      $64, SI
	SUBQ      $8, CX
	JG        loop_at
	VZEROUPPER
	RET

// Constants of softplusSig: the branch points ±30, and math.Log's amd64
// assembly (the fdlibm algorithm): √2/2, the mantissa mask, 2, the
// polynomial L1..L7, and 2⁵² (+ 1022) to turn an exponent field into k.
DATA thirty<>+0(SB)/8, $0x403e000000000000
GLOBL thirty<>(SB), RODATA|NOPTR, $8
DATA mthirty<>+0(SB)/8, $0xc03e000000000000
GLOBL mthirty<>(SB), RODATA|NOPTR, $8
DATA hsqrt2<>+0(SB)/8, $0x3fe6a09e667f3bcd
GLOBL hsqrt2<>(SB), RODATA|NOPTR, $8
DATA mant<>+0(SB)/8, $0x000fffffffffffff
GLOBL mant<>(SB), RODATA|NOPTR, $8
DATA two<>+0(SB)/8, $0x4000000000000000
GLOBL two<>(SB), RODATA|NOPTR, $8
DATA magic<>+0(SB)/8, $0x4330000000000000
GLOBL magic<>(SB), RODATA|NOPTR, $8
DATA magicbias<>+0(SB)/8, $0x43300000000003fe
GLOBL magicbias<>(SB), RODATA|NOPTR, $8
DATA lg1<>+0(SB)/8, $0x3fe5555555555593
GLOBL lg1<>(SB), RODATA|NOPTR, $8
DATA lg2<>+0(SB)/8, $0x3fd999999997fa04
GLOBL lg2<>(SB), RODATA|NOPTR, $8
DATA lg3<>+0(SB)/8, $0x3fd2492494229359
GLOBL lg3<>(SB), RODATA|NOPTR, $8
DATA lg4<>+0(SB)/8, $0x3fcc71c51d8e78af
GLOBL lg4<>(SB), RODATA|NOPTR, $8
DATA lg5<>+0(SB)/8, $0x3fc7466496cb03de
GLOBL lg5<>(SB), RODATA|NOPTR, $8
DATA lg6<>+0(SB)/8, $0x3fc39a09d078c69f
GLOBL lg6<>(SB), RODATA|NOPTR, $8
DATA lg7<>+0(SB)/8, $0x3fc2f112df3e5244
GLOBL lg7<>(SB), RODATA|NOPTR, $8

// func softplusSig(sp, sg, x *float64, n int, add float64)
//
// Per lane: Z0 = x, K2 = x > 30, K3 = x < −30, K5 = x is NaN; Z3 = e =
// exp(x) or exp(−x) on K2 (expShift's exponential); Z5 = y = 1 + e; sg =
// (1 on K2, e elsewhere)/y; Z9 = log(y) by math.Log's steps (no fused
// operations, the same order), replaced by e on K3, x + e on K2 and x on
// K5; sp = add + Z9.
TEXT ·softplusSig(SB), NOSPLIT, $0-40
	MOVQ sp+0(FP), DI
	MOVQ sg+8(FP), R8
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX
	VBROADCASTSD add+32(FP), Z26
	MOVQ $0xff, DX
	KMOVW DX, K1
	VBROADCASTSD one<>(SB), Z20
	VBROADCASTSD log2e<>(SB), Z21
	VBROADCASTSD ln2hi<>(SB), Z22
	VBROADCASTSD ln2lo<>(SB), Z23
	VBROADCASTSD ylo<>(SB), Z24
	VBROADCASTSD yhi<>(SB), Z25
	VBROADCASTSD thirty<>(SB), Z27
	VBROADCASTSD mthirty<>(SB), Z28
	VBROADCASTSD hsqrt2<>(SB), Z29
	VBROADCASTSD mant<>(SB), Z30
	VBROADCASTSD c2<>(SB), Z31
	VPXORQ Z19, Z19, Z19

loop_sp:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z (SI), K1, Z0
	VCMPPD    $0x1e, Z27, Z0, K1, K2
	VCMPPD    $0x11, Z28, Z0, K1, K3
	VCMPPD    $0x03, Z0, Z0, K1, K5
	VMOVAPD   Z0, Z1
	VSUBPD    Z0, Z19, K2, Z1

	// e = exp(Z1), as expShift.
	VMAXPD       Z1, Z24, Z1
	VMINPD       Z1, Z25, Z1
	EXPZ

	// y = 1 + e; σ = (1 on K2, e elsewhere) / y.
	VADDPD  Z20, Z3, Z5
	VMOVAPD Z3, Z6
	VMOVAPD Z20, K2, Z6
	VDIVPD  Z5, Z6, Z7
	VMOVUPD Z7, K1, (R8)

	// log(y), y ≥ 1: f1 = mantissa with exponent −1, k = exponent − 1022;
	// where f1 ≤ √2/2: k −= 1, f1 *= 2; f = f1 − 1.
	VPANDQ       Z30, Z5, Z8
	VPORQ        Z31, Z8, Z8
	VPSRLQ       $52, Z5, Z9
	VBROADCASTSD magic<>(SB), Z10
	VPORQ        Z10, Z9, Z9
	VBROADCASTSD magicbias<>(SB), Z10
	VSUBPD       Z10, Z9, Z9
	VCMPPD       $0x02, Z29, Z8, K1, K4
	VSUBPD       Z20, Z9, K4, Z9
	VADDPD       Z8, Z8, K4, Z8
	VSUBPD       Z20, Z8, Z8

	// s = f/(2+f), s2 = s·s, s4 = s2·s2.
	VBROADCASTSD two<>(SB), Z10
	VADDPD       Z8, Z10, Z10
	VDIVPD       Z10, Z8, Z11
	VMULPD       Z11, Z11, Z12
	VMULPD       Z12, Z12, Z13

	// t1 = s2·(L1 + s4·(L3 + s4·(L5 + s4·L7))).
	VBROADCASTSD lg7<>(SB), Z14
	VMULPD       Z13, Z14, Z14
	VBROADCASTSD lg5<>(SB), Z4
	VADDPD       Z4, Z14, Z14
	VMULPD       Z13, Z14, Z14
	VBROADCASTSD lg3<>(SB), Z4
	VADDPD       Z4, Z14, Z14
	VMULPD       Z13, Z14, Z14
	VBROADCASTSD lg1<>(SB), Z4
	VADDPD       Z4, Z14, Z14
	VMULPD       Z14, Z12, Z12

	// t2 = s4·(L2 + s4·(L4 + s4·L6)); R = t1 + t2.
	VBROADCASTSD lg6<>(SB), Z15
	VMULPD       Z13, Z15, Z15
	VBROADCASTSD lg4<>(SB), Z4
	VADDPD       Z4, Z15, Z15
	VMULPD       Z13, Z15, Z15
	VBROADCASTSD lg2<>(SB), Z4
	VADDPD       Z4, Z15, Z15
	VMULPD       Z15, Z13, Z13
	VADDPD       Z13, Z12, Z12

	// hfsq = 0.5·f·f; log = k·Ln2Hi − ((hfsq − (s·(hfsq+R) + k·Ln2Lo)) − f).
	VMULPD Z31, Z8, Z16
	VMULPD Z8, Z16, Z16
	VADDPD Z16, Z12, Z12
	VMULPD Z12, Z11, Z11
	VMULPD Z23, Z9, Z17
	VADDPD Z17, Z11, Z11
	VSUBPD Z11, Z16, Z16
	VSUBPD Z8, Z16, Z16
	VMULPD Z22, Z9, Z9
	VSUBPD Z16, Z9, Z9

	// softplus: e below −30, x + e above 30, x where x is NaN; + add.
	VMOVAPD Z3, K3, Z9
	VADDPD  Z3, Z0, K2, Z9
	VMOVAPD Z0, K5, Z9
	VADDPD  Z9, Z26, Z9
	VMOVUPD Z9, K1, (DI)

	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $64, SI
	SUBQ $8, CX
	JG   loop_sp
	VZEROUPPER
	RET

// func mulAddRows(next, h, t, gate *float64, n, rows int)
//
// Column blocks of 8 (the last masked) in the outer loop, the rows in the
// inner one at the byte offset R12 = r·n·8, with the block of gates in Z2:
// each element is the fused h + t·g.
TEXT ·mulAddRows(SB), NOSPLIT, $0-48
	MOVQ next+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ t+16(FP), R8
	MOVQ gate+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ rows+40(FP), BX
	MOVQ CX, R10
	SHLQ $3, R10
	MOVQ $0xff, DX
	KMOVW DX, K1

loop_mar:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z (R9), K1, Z2
	XORQ      R12, R12
	MOVQ      BX, AX

rows_mar:
	VMOVUPD.Z   (SI)(R12*1), K1, Z0
	VMOVUPD.Z   (R8)(R12*1), K1, Z1
	VFMADD231PD Z2, Z1, Z0
	VMOVUPD     Z0, K1, (DI)(R12*1)
	ADDQ        R10, R12
	DECQ        AX
	JNZ         rows_mar

	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $64, R9
	SUBQ $8, CX
	JG   loop_mar
	VZEROUPPER
	RET

// func gateAccRows(gt, acc, gn, gate, t *float64, n, rows int)
//
// As mulAddRows: per column block the gates in Z1 and the accumulator in
// Z4, loaded once and stored once; per row gt = gn·g and acc += gn·t
// (fused).
TEXT ·gateAccRows(SB), NOSPLIT, $0-56
	MOVQ gt+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ gn+16(FP), R8
	MOVQ gate+24(FP), R9
	MOVQ t+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ rows+48(FP), BX
	MOVQ CX, R11
	SHLQ $3, R11
	MOVQ $0xff, DX
	KMOVW DX, K1

loop_gar:
	CMPQ CX, $8
	JAE  full
	MOVQ $1, DX
	SHLQ CX, DX
	DECQ DX
	KMOVW DX, K1

full:
	VMOVUPD.Z (R9), K1, Z1
	VMOVUPD.Z (SI), K1, Z4
	XORQ      R12, R12
	MOVQ      BX, AX

rows_gar:
	VMOVUPD.Z   (R8)(R12*1), K1, Z0
	VMULPD      Z1, Z0, Z2
	VMOVUPD     Z2, K1, (DI)(R12*1)
	VMOVUPD.Z   (R10)(R12*1), K1, Z3
	VFMADD231PD Z3, Z0, Z4
	ADDQ        R11, R12
	DECQ        AX
	JNZ         rows_gar

	VMOVUPD Z4, K1, (SI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	ADDQ    $64, R8
	ADDQ    $64, R9
	ADDQ    $64, R10
	SUBQ    $8, CX
	JG      loop_gar
	VZEROUPPER
	RET

// The AVX2+FMA kernels below work on 4 lanes (YMM registers, no opmasks).
// Each runs its main loop on whole vectors and the last n mod 4 elements
// (1 to 3; of every row in the row kernels) with VMASKMOVPD loads and
// stores under the lane mask from lanemask<>, which read and write only
// the selected lanes. The constants they use from memory are 4-lane
// copies (the *4<> symbols).

// lanemask<> holds four −1 and four 0 lanes: the 32 bytes at
// lanemask<>+32−8·m select the first m lanes.
DATA lanemask<>+0(SB)/8, $-1
DATA lanemask<>+8(SB)/8, $-1
DATA lanemask<>+16(SB)/8, $-1
DATA lanemask<>+24(SB)/8, $-1
DATA lanemask<>+32(SB)/8, $0
DATA lanemask<>+40(SB)/8, $0
DATA lanemask<>+48(SB)/8, $0
DATA lanemask<>+56(SB)/8, $0
GLOBL lanemask<>(SB), RODATA|NOPTR, $64

// CONST4 defines the 32-byte symbol name holding four copies of the
// 64-bit value bits.
#define CONST4(name, bits) \
	DATA name+0(SB)/8, bits; \
	DATA name+8(SB)/8, bits; \
	DATA name+16(SB)/8, bits; \
	DATA name+24(SB)/8, bits; \
	GLOBL name(SB), RODATA|NOPTR, $32

CONST4(one4<>, $0x3ff0000000000000)
CONST4(half4<>, $0x3fe0000000000000)
CONST4(two4<>, $0x4000000000000000)
CONST4(sign4<>, $0x8000000000000000)
CONST4(log2e4<>, $0x3ff71547652b82fe)
CONST4(ln2hi4<>, $0x3fe62e42fee00000)
CONST4(ln2lo4<>, $0x3dea39ef35793c76)
CONST4(ylo4<>, $0xc087500000000000)
CONST4(yhi4<>, $0x4086300000000000)
CONST4(bias4<>, $0x43300000000003ff)
CONST4(c2_4<>, $0x3fe0000000000000)
CONST4(c3_4<>, $0x3fc5555555555555)
CONST4(c4_4<>, $0x3fa5555555555555)
CONST4(c5_4<>, $0x3f81111111111111)
CONST4(c6_4<>, $0x3f56c16c16c16c17)
CONST4(c7_4<>, $0x3f2a01a01a01a01a)
CONST4(c8_4<>, $0x3efa01a01a01a01a)
CONST4(c9_4<>, $0x3ec71de3a556c734)
CONST4(c10_4<>, $0x3e927e4fb7789f5c)
CONST4(c11_4<>, $0x3e5ae64567f544e4)
CONST4(c12_4<>, $0x3e21eed8eff8d898)
CONST4(c13_4<>, $0x3de6124613a86d09)
CONST4(thirty4<>, $0x403e000000000000)
CONST4(mthirty4<>, $0xc03e000000000000)
CONST4(hsqrt2_4<>, $0x3fe6a09e667f3bcd)
CONST4(mant4<>, $0x000fffffffffffff)
CONST4(magic4<>, $0x4330000000000000)
CONST4(magicbias4<>, $0x43300000000003fe)
CONST4(lg1_4<>, $0x3fe5555555555593)
CONST4(lg2_4<>, $0x3fd999999997fa04)
CONST4(lg3_4<>, $0x3fd2492494229359)
CONST4(lg4_4<>, $0x3fcc71c51d8e78af)
CONST4(lg5_4<>, $0x3fc7466496cb03de)
CONST4(lg6_4<>, $0x3fc39a09d078c69f)
CONST4(lg7_4<>, $0x3fc2f112df3e5244)

// ROWSPLIT splits a row of R11 float64 values for the 4-lane row kernels:
// R10 = the row's bytes, CX = the values past the last whole vector,
// R11 = the whole vectors, R12 = their bytes.
#define ROWSPLIT \
	MOVQ R11, R10; \
	SHLQ $3, R10; \
	MOVQ R11, CX; \
	ANDQ $3, CX; \
	SHRQ $2, R11; \
	MOVQ R11, R12; \
	SHLQ $5, R12

// LANEMASK sets Y15 to the mask of the first CX lanes (CX from 1 to 3);
// it uses AX and DX.
#define LANEMASK \
	MOVQ    CX, DX; \
	SHLQ    $3, DX; \
	LEAQ    lanemask<>+32(SB), AX; \
	SUBQ    DX, AX; \
	VMOVDQU (AX), Y15

// EXPY sets Y3 = e^Y1 for Y1 within the exponential's range (the callers
// clamp it to [−746, 710]), by EXPZ's steps on 4 lanes: k = round(Y1·log₂e),
// the reduced argument r = Y1 − k·ln2 (in two parts, fused) into Y1, the
// same degree-13 Taylor polynomial of e^r into Y3 (Horner, fused), then
// the scaling by 2^k in two exact powers of two, 2^k₁ with k₁ = ⌊k/2⌋ and
// 2^(k−k₁), each built from its exponent bits ((k₁+1023)<<52, by adding
// 2⁵²+1023 and shifting the low bits up). Both factors are normal for
// every k from −1076 to 1024, the first product is exact, and the second
// rounds once: the result is the correctly rounded e^r·2^k, normal,
// subnormal, zero or +Inf, as VSCALEFPD gives it. Y2 and Y4 are scratch.
#define EXPY \
	VMULPD       log2e4<>(SB), Y1, Y2; \
	VROUNDPD     $0, Y2, Y2; \
	VFNMADD231PD ln2hi4<>(SB), Y2, Y1; \
	VFNMADD231PD ln2lo4<>(SB), Y2, Y1; \
	VMOVUPD      c13_4<>(SB), Y3; \
	VFMADD213PD  c12_4<>(SB), Y1, Y3; \
	VFMADD213PD  c11_4<>(SB), Y1, Y3; \
	VFMADD213PD  c10_4<>(SB), Y1, Y3; \
	VFMADD213PD  c9_4<>(SB), Y1, Y3; \
	VFMADD213PD  c8_4<>(SB), Y1, Y3; \
	VFMADD213PD  c7_4<>(SB), Y1, Y3; \
	VFMADD213PD  c6_4<>(SB), Y1, Y3; \
	VFMADD213PD  c5_4<>(SB), Y1, Y3; \
	VFMADD213PD  c4_4<>(SB), Y1, Y3; \
	VFMADD213PD  c3_4<>(SB), Y1, Y3; \
	VFMADD213PD  c2_4<>(SB), Y1, Y3; \
	VFMADD213PD  one4<>(SB), Y1, Y3; \
	VFMADD213PD  one4<>(SB), Y1, Y3; \
	VMULPD       half4<>(SB), Y2, Y4; \
	VROUNDPD     $1, Y4, Y4; \
	VSUBPD       Y4, Y2, Y2; \
	VADDPD       bias4<>(SB), Y4, Y4; \
	VPSLLQ       $52, Y4, Y4; \
	VMULPD       Y4, Y3, Y3; \
	VADDPD       bias4<>(SB), Y2, Y2; \
	VPSLLQ       $52, Y2, Y2; \
	VMULPD       Y2, Y3, Y3

// func reluAVX2(dst, x *float64, n int)
//
// VMAXPD returns its second source (0) when the first is NaN or both are
// zeros: NaN, −0 and negative values give +0, as reluGo.
TEXT ·reluAVX2(SB), NOSPLIT, $0-24
	MOVQ   dst+0(FP), DI
	MOVQ   x+8(FP), SI
	MOVQ   n+16(FP), CX
	VXORPD Y14, Y14, Y14

loop_relu:
	CMPQ    CX, $4
	JB      tail_relu
	VMOVUPD (SI), Y0
	VMAXPD  Y14, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, CX
	JMP     loop_relu

tail_relu:
	TESTQ      CX, CX
	JZ         done_relu
	LANEMASK
	VMASKMOVPD (SI), Y15, Y0
	VMAXPD     Y14, Y0, Y0
	VMASKMOVPD Y0, Y15, (DI)

done_relu:
	VZEROUPPER
	RET

// func reluMaskAVX2(dx, dy, a *float64, n int)
//
// dx = dy AND (a > 0 ordered): dy's bits where a > 0, +0 elsewhere
// (a NaN included).
TEXT ·reluMaskAVX2(SB), NOSPLIT, $0-32
	MOVQ   dx+0(FP), DI
	MOVQ   dy+8(FP), SI
	MOVQ   a+16(FP), R8
	MOVQ   n+24(FP), CX
	VXORPD Y14, Y14, Y14

loop_rmask:
	CMPQ    CX, $4
	JB      tail_rmask
	VMOVUPD (R8), Y1
	VCMPPD  $0x1e, Y14, Y1, Y1
	VANDPD  (SI), Y1, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, R8
	SUBQ    $4, CX
	JMP     loop_rmask

tail_rmask:
	TESTQ      CX, CX
	JZ         done_rmask
	LANEMASK
	VMASKMOVPD (R8), Y15, Y1
	VMASKMOVPD (SI), Y15, Y0
	VCMPPD     $0x1e, Y14, Y1, Y1
	VANDPD     Y0, Y1, Y0
	VMASKMOVPD Y0, Y15, (DI)

done_rmask:
	VZEROUPPER
	RET

// func addPosAVX2(dst, src, a *float64, n int)
//
// The sum dst + src is blended into dst where a > 0 (ordered), so dst
// keeps its bits (−0 and NaN payloads included) elsewhere, as addPosGo.
TEXT ·addPosAVX2(SB), NOSPLIT, $0-32
	MOVQ   dst+0(FP), DI
	MOVQ   src+8(FP), SI
	MOVQ   a+16(FP), R8
	MOVQ   n+24(FP), CX
	VXORPD Y14, Y14, Y14

loop_apos:
	CMPQ      CX, $4
	JB        tail_apos
	VMOVUPD   (R8), Y1
	VCMPPD    $0x1e, Y14, Y1, Y1
	VMOVUPD   (DI), Y0
	VADDPD    (SI), Y0, Y2
	VBLENDVPD Y1, Y2, Y0, Y0
	VMOVUPD   Y0, (DI)
	ADDQ      $32, SI
	ADDQ      $32, DI
	ADDQ      $32, R8
	SUBQ      $4, CX
	JMP       loop_apos

tail_apos:
	TESTQ      CX, CX
	JZ         done_apos
	LANEMASK
	VMASKMOVPD (R8), Y15, Y1
	VMASKMOVPD (DI), Y15, Y0
	VMASKMOVPD (SI), Y15, Y2
	VCMPPD     $0x1e, Y14, Y1, Y1
	VADDPD     Y2, Y0, Y2
	VBLENDVPD  Y1, Y2, Y0, Y0
	VMASKMOVPD Y0, Y15, (DI)

done_apos:
	VZEROUPPER
	RET

// SIGMOIDY sets Y7 = σ(Y0) as the AVX-512 sigmoid: e = e^−|x| (the
// argument clamped below at −746, NaN kept), 1/(1+e), times e where x < 0.
// It needs Y12 = 0, Y13 = −746 and Y14 = 1; Y1 to Y6 are scratch.
#define SIGMOIDY \
	VORPD     sign4<>(SB), Y0, Y1; \
	VMAXPD    Y1, Y13, Y1; \
	EXPY; \
	VADDPD    Y14, Y3, Y7; \
	VDIVPD    Y7, Y14, Y7; \
	VMULPD    Y3, Y7, Y5; \
	VCMPPD    $0x11, Y12, Y0, Y6; \
	VBLENDVPD Y6, Y5, Y7, Y7

// SIGMOIDCONST loads SIGMOIDY's constants.
#define SIGMOIDCONST \
	VXORPD  Y12, Y12, Y12; \
	VMOVUPD ylo4<>(SB), Y13; \
	VMOVUPD one4<>(SB), Y14

// func gateFwdAVX2(s, h, t, next *float64, n int)
TEXT ·gateFwdAVX2(SB), NOSPLIT, $0-40
	MOVQ s+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ t+16(FP), R8
	MOVQ next+24(FP), R9
	MOVQ n+32(FP), CX
	SIGMOIDCONST

loop_gf:
	CMPQ        CX, $4
	JB          tail_gf
	VMOVUPD     (DI), Y0
	SIGMOIDY
	VMOVUPD     Y7, (DI)
	VMOVUPD     (SI), Y8
	VFMADD231PD (R8), Y7, Y8
	VMOVUPD     Y8, (R9)
	ADDQ        $32, DI
	ADDQ        $32, SI
	ADDQ        $32, R8
	ADDQ        $32, R9
	SUBQ        $4, CX
	JMP         loop_gf

tail_gf:
	TESTQ       CX, CX
	JZ          done_gf
	LANEMASK
	VMASKMOVPD  (DI), Y15, Y0
	SIGMOIDY
	VMASKMOVPD  Y7, Y15, (DI)
	VMASKMOVPD  (SI), Y15, Y8
	VMASKMOVPD  (R8), Y15, Y9
	VFMADD231PD Y9, Y7, Y8
	VMASKMOVPD  Y8, Y15, (R9)

done_gf:
	VZEROUPPER
	RET

// func sigmoidAVX2(s *float64, n int)
TEXT ·sigmoidAVX2(SB), NOSPLIT, $0-16
	MOVQ s+0(FP), DI
	MOVQ n+8(FP), CX
	SIGMOIDCONST

loop_sg:
	CMPQ    CX, $4
	JB      tail_sg
	VMOVUPD (DI), Y0
	SIGMOIDY
	VMOVUPD Y7, (DI)
	ADDQ    $32, DI
	SUBQ    $4, CX
	JMP     loop_sg

tail_sg:
	TESTQ      CX, CX
	JZ         done_sg
	LANEMASK
	VMASKMOVPD (DI), Y15, Y0
	SIGMOIDY
	VMASKMOVPD Y7, Y15, (DI)

done_sg:
	VZEROUPPER
	RET

// func gateBwdAVX2(gn, gate, t, gt, ga *float64, n int)
//
// gt = gn·g and ga = ((gn·t)·g)·(1−g), in the Go twin's order.
TEXT ·gateBwdAVX2(SB), NOSPLIT, $0-48
	MOVQ    gn+0(FP), DI
	MOVQ    gate+8(FP), SI
	MOVQ    t+16(FP), R8
	MOVQ    gt+24(FP), R9
	MOVQ    ga+32(FP), R10
	MOVQ    n+40(FP), CX
	VMOVUPD one4<>(SB), Y14

loop_gb:
	CMPQ    CX, $4
	JB      tail_gb
	VMOVUPD (DI), Y0
	VMOVUPD (SI), Y1
	VMOVUPD (R8), Y2
	VMULPD  Y1, Y0, Y3
	VMOVUPD Y3, (R9)
	VMULPD  Y2, Y0, Y4
	VMULPD  Y1, Y4, Y4
	VSUBPD  Y1, Y14, Y5
	VMULPD  Y5, Y4, Y4
	VMOVUPD Y4, (R10)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	ADDQ    $32, R9
	ADDQ    $32, R10
	SUBQ    $4, CX
	JMP     loop_gb

tail_gb:
	TESTQ      CX, CX
	JZ         done_gb
	LANEMASK
	VMASKMOVPD (DI), Y15, Y0
	VMASKMOVPD (SI), Y15, Y1
	VMASKMOVPD (R8), Y15, Y2
	VMULPD     Y1, Y0, Y3
	VMASKMOVPD Y3, Y15, (R9)
	VMULPD     Y2, Y0, Y4
	VMULPD     Y1, Y4, Y4
	VSUBPD     Y1, Y14, Y5
	VMULPD     Y5, Y4, Y4
	VMASKMOVPD Y4, Y15, (R10)

done_gb:
	VZEROUPPER
	RET

// EXPSHIFTY sets Y3 = e^(Y0 − Y11), the argument clamped to [Y13, Y12] =
// [−746, 710] with NaN kept; Y1, Y2 and Y4 are scratch.
#define EXPSHIFTY \
	VSUBPD Y11, Y0, Y1; \
	VMAXPD Y1, Y13, Y1; \
	VMINPD Y1, Y12, Y1; \
	EXPY

// func expShiftAVX2(dst, x *float64, n int, shift float64)
TEXT ·expShiftAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD shift+24(FP), Y11
	VMOVUPD      yhi4<>(SB), Y12
	VMOVUPD      ylo4<>(SB), Y13

loop_ex:
	CMPQ    CX, $4
	JB      tail_ex
	VMOVUPD (SI), Y0
	EXPSHIFTY
	VMOVUPD Y3, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, CX
	JMP     loop_ex

tail_ex:
	TESTQ      CX, CX
	JZ         done_ex
	LANEMASK
	VMASKMOVPD (SI), Y15, Y0
	EXPSHIFTY
	VMASKMOVPD Y3, Y15, (DI)

done_ex:
	VZEROUPPER
	RET

// func addToAVX2(dst, src *float64, n int)
TEXT ·addToAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

loop_at:
	CMPQ    CX, $4
	JB      tail_at
	VMOVUPD (DI), Y0
	VADDPD  (SI), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, CX
	JMP     loop_at

tail_at:
	TESTQ      CX, CX
	JZ         done_at
	LANEMASK
	VMASKMOVPD (DI), Y15, Y0
	VMASKMOVPD (SI), Y15, Y1
	VADDPD     Y1, Y0, Y0
	VMASKMOVPD Y0, Y15, (DI)

done_at:
	VZEROUPPER
	RET

// SOFTPLUSY computes softplusSig's lanes as the AVX-512 kernel, with
// blends for its masks: from Y0 = x, Y8 = x > 30 and Y9 = x < −30, e
// = e^x, or e^−x where Y8 (clamped as expShift), into Y3; σ = (1 where
// Y8, e elsewhere)/(1+e) into Y7; softplus + add into Y2: log(1+e) by
// math.Log's steps (unfused, in its order; k·ln2 with the multiplication
// operands swapped, which leaves the products unchanged), replaced by e
// where Y9, x + e where Y8 and x where x is NaN. It needs Y11 = add,
// Y12 = 710, Y13 = −746 and Y14 = 1; Y1, Y4 to Y6 and Y10 are scratch.
#define SOFTPLUSY \
	VCMPPD       $0x1e, thirty4<>(SB), Y0, Y8; \
	VCMPPD       $0x11, mthirty4<>(SB), Y0, Y9; \
	VXORPD       sign4<>(SB), Y0, Y1; \
	VBLENDVPD    Y8, Y1, Y0, Y1; \
	VMAXPD       Y1, Y13, Y1; \
	VMINPD       Y1, Y12, Y1; \
	EXPY; \
	VADDPD       Y14, Y3, Y5; \
	VBLENDVPD    Y8, Y14, Y3, Y6; \
	VDIVPD       Y5, Y6, Y7; \
	VANDPD       mant4<>(SB), Y5, Y1; \
	VORPD        half4<>(SB), Y1, Y1; \
	VPSRLQ       $52, Y5, Y2; \
	VORPD        magic4<>(SB), Y2, Y2; \
	VSUBPD       magicbias4<>(SB), Y2, Y2; \
	VCMPPD       $0x02, hsqrt2_4<>(SB), Y1, Y4; \
	VSUBPD       Y14, Y2, Y6; \
	VBLENDVPD    Y4, Y6, Y2, Y2; \
	VADDPD       Y1, Y1, Y6; \
	VBLENDVPD    Y4, Y6, Y1, Y1; \
	VSUBPD       Y14, Y1, Y1; \
	VADDPD       two4<>(SB), Y1, Y4; \
	VDIVPD       Y4, Y1, Y4; \
	VMULPD       Y4, Y4, Y5; \
	VMULPD       Y5, Y5, Y6; \
	VMULPD       lg7_4<>(SB), Y6, Y10; \
	VADDPD       lg5_4<>(SB), Y10, Y10; \
	VMULPD       Y6, Y10, Y10; \
	VADDPD       lg3_4<>(SB), Y10, Y10; \
	VMULPD       Y6, Y10, Y10; \
	VADDPD       lg1_4<>(SB), Y10, Y10; \
	VMULPD       Y10, Y5, Y5; \
	VMULPD       lg6_4<>(SB), Y6, Y10; \
	VADDPD       lg4_4<>(SB), Y10, Y10; \
	VMULPD       Y6, Y10, Y10; \
	VADDPD       lg2_4<>(SB), Y10, Y10; \
	VMULPD       Y10, Y6, Y6; \
	VADDPD       Y6, Y5, Y5; \
	VMULPD       half4<>(SB), Y1, Y6; \
	VMULPD       Y1, Y6, Y6; \
	VADDPD       Y6, Y5, Y5; \
	VMULPD       Y5, Y4, Y4; \
	VMULPD       ln2lo4<>(SB), Y2, Y10; \
	VADDPD       Y10, Y4, Y4; \
	VSUBPD       Y4, Y6, Y6; \
	VSUBPD       Y1, Y6, Y6; \
	VMULPD       ln2hi4<>(SB), Y2, Y2; \
	VSUBPD       Y6, Y2, Y2; \
	VBLENDVPD    Y9, Y3, Y2, Y2; \
	VADDPD       Y3, Y0, Y6; \
	VBLENDVPD    Y8, Y6, Y2, Y2; \
	VCMPPD       $0x03, Y0, Y0, Y6; \
	VBLENDVPD    Y6, Y0, Y2, Y2; \
	VADDPD       Y2, Y11, Y2

// func softplusSigAVX2(sp, sg, x *float64, n int, add float64)
TEXT ·softplusSigAVX2(SB), NOSPLIT, $0-40
	MOVQ         sp+0(FP), DI
	MOVQ         sg+8(FP), R8
	MOVQ         x+16(FP), SI
	MOVQ         n+24(FP), CX
	VBROADCASTSD add+32(FP), Y11
	VMOVUPD      yhi4<>(SB), Y12
	VMOVUPD      ylo4<>(SB), Y13
	VMOVUPD      one4<>(SB), Y14

loop_sp:
	CMPQ    CX, $4
	JB      tail_sp
	VMOVUPD (SI), Y0
	SOFTPLUSY
	VMOVUPD Y7, (R8)
	VMOVUPD Y2, (DI)
	ADDQ    $32, DI
	ADDQ    $32, R8
	ADDQ    $32, SI
	SUBQ    $4, CX
	JMP     loop_sp

tail_sp:
	TESTQ      CX, CX
	JZ         done_sp
	LANEMASK
	VMASKMOVPD (SI), Y15, Y0
	SOFTPLUSY
	VMASKMOVPD Y7, Y15, (R8)
	VMASKMOVPD Y2, Y15, (DI)

done_sp:
	VZEROUPPER
	RET

// func mulAddRowsAVX2(next, h, t, gate *float64, n, rows int)
//
// Row after row, each in column blocks of 4 at the byte offset DX (the
// gates read from memory, where they stay in the level-1 cache), then
// its last n mod 4 columns under the lane mask in Y15 with their gates
// in Y14. Each element is the fused h + t·g.
TEXT ·mulAddRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ next+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ t+16(FP), R8
	MOVQ gate+24(FP), R9
	MOVQ n+32(FP), R11
	MOVQ rows+40(FP), BX
	ROWSPLIT
	TESTQ CX, CX
	JZ   rows_mar
	LANEMASK
	VMASKMOVPD (R9)(R12*1), Y15, Y14

rows_mar:
	XORQ  DX, DX
	MOVQ  R11, AX
	TESTQ AX, AX
	JZ    tail_mar

block_mar:
	VMOVUPD     (R9)(DX*1), Y1
	VMOVUPD     (SI)(DX*1), Y0
	VFMADD231PD (R8)(DX*1), Y1, Y0
	VMOVUPD     Y0, (DI)(DX*1)
	ADDQ        $32, DX
	DECQ        AX
	JNZ         block_mar

tail_mar:
	TESTQ       CX, CX
	JZ          next_mar
	VMASKMOVPD  (SI)(DX*1), Y15, Y0
	VMASKMOVPD  (R8)(DX*1), Y15, Y2
	VFMADD231PD Y2, Y14, Y0
	VMASKMOVPD  Y0, Y15, (DI)(DX*1)

next_mar:
	ADDQ R10, DI
	ADDQ R10, SI
	ADDQ R10, R8
	DECQ BX
	JNZ  rows_mar
	VZEROUPPER
	RET

// func gateAccRowsAVX2(gt, acc, gn, gate, t *float64, n, rows int)
//
// As mulAddRowsAVX2: row after row, in column blocks of 4, gt = gn·g
// (stored before t is read) and acc += gn·t (fused, acc read and written
// in the level-1 cache); the last n mod 4 columns under the lane mask in
// Y15 with their gates in Y14 and their acc in Y13 across the rows.
TEXT ·gateAccRowsAVX2(SB), NOSPLIT, $0-56
	MOVQ gt+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ gn+16(FP), R8
	MOVQ gate+24(FP), R9
	MOVQ t+32(FP), R10
	MOVQ n+40(FP), R11
	MOVQ rows+48(FP), BX
	MOVQ R11, R13
	SHLQ $3, R13
	MOVQ R11, CX
	ANDQ $3, CX
	SHRQ $2, R11
	MOVQ R11, R12
	SHLQ $5, R12
	TESTQ CX, CX
	JZ   rows_gar
	LANEMASK
	VMASKMOVPD (R9)(R12*1), Y15, Y14
	VMASKMOVPD (SI)(R12*1), Y15, Y13

rows_gar:
	XORQ  DX, DX
	MOVQ  R11, AX
	TESTQ AX, AX
	JZ    tail_gar

block_gar:
	VMOVUPD     (R8)(DX*1), Y0
	VMULPD      (R9)(DX*1), Y0, Y1
	VMOVUPD     Y1, (DI)(DX*1)
	VMOVUPD     (SI)(DX*1), Y2
	VFMADD231PD (R10)(DX*1), Y0, Y2
	VMOVUPD     Y2, (SI)(DX*1)
	ADDQ        $32, DX
	DECQ        AX
	JNZ         block_gar

tail_gar:
	TESTQ       CX, CX
	JZ          next_gar
	VMASKMOVPD  (R8)(DX*1), Y15, Y0
	VMULPD      Y14, Y0, Y1
	VMASKMOVPD  Y1, Y15, (DI)(DX*1)
	VMASKMOVPD  (R10)(DX*1), Y15, Y2
	VFMADD231PD Y2, Y0, Y13

next_gar:
	ADDQ R13, DI
	ADDQ R13, R8
	ADDQ R13, R10
	DECQ BX
	JNZ  rows_gar

	TESTQ      CX, CX
	JZ         done_gar
	VMASKMOVPD Y13, Y15, (SI)(R12*1)

done_gar:
	VZEROUPPER
	RET

// func addOuterRowsAVX2(dst, src, x, w *float64, n, rows, group int)
//
// Row r: dst = src row ⌊r/group⌋ + (x[r]·w + 0), the product rounded on
// its own (VMULPD) and a −0 product turned into +0, as a one-step matrix
// product's accumulator that starts at +0.
TEXT ·addOuterRowsAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ x+16(FP), R8
	MOVQ w+24(FP), R9
	MOVQ n+32(FP), R11
	MOVQ rows+40(FP), BX
	MOVQ group+48(FP), R13
	ROWSPLIT
	VXORPD Y13, Y13, Y13
	TESTQ CX, CX
	JZ   rows_aor
	LANEMASK
	VMASKMOVPD (R9)(R12*1), Y15, Y14

rows_aor:
	VBROADCASTSD (R8), Y3
	XORQ  DX, DX
	MOVQ  R11, AX
	TESTQ AX, AX
	JZ    tail_aor

block_aor:
	VMULPD  (R9)(DX*1), Y3, Y1
	VADDPD  Y13, Y1, Y1
	VADDPD  (SI)(DX*1), Y1, Y0
	VMOVUPD Y0, (DI)(DX*1)
	ADDQ    $32, DX
	DECQ    AX
	JNZ     block_aor

tail_aor:
	TESTQ      CX, CX
	JZ         next_aor
	VMASKMOVPD (SI)(DX*1), Y15, Y0
	VMULPD     Y14, Y3, Y1
	VADDPD     Y13, Y1, Y1
	VADDPD     Y1, Y0, Y0
	VMASKMOVPD Y0, Y15, (DI)(DX*1)

next_aor:
	ADDQ R10, DI
	ADDQ $8, R8
	DECQ R13
	JNZ  same_aor
	ADDQ R10, SI
	MOVQ group+48(FP), R13

same_aor:
	DECQ BX
	JNZ  rows_aor
	VZEROUPPER
	RET

// func gateAccRows32AVX2(gt32 *float32, ld int, acc, gn, gate, t *float64, n, rows int)
//
// gateAccRowsAVX2 with the gradient gt = gn ⊙ gate rounded to float32 into
// rows ld float32 values apart; the last vector of a row is stored whole
// (the up to 3 values past n are overwritten).
TEXT ·gateAccRows32AVX2(SB), NOSPLIT, $8-64
	MOVQ gt32+0(FP), DI
	MOVQ ld+8(FP), AX
	SHLQ $2, AX
	MOVQ AX, 0(SP)
	MOVQ acc+16(FP), SI
	MOVQ gn+24(FP), R8
	MOVQ gate+32(FP), R9
	MOVQ t+40(FP), R13
	MOVQ n+48(FP), R11
	MOVQ rows+56(FP), BX
	ROWSPLIT
	TESTQ CX, CX
	JZ   rows_gar32
	LANEMASK
	VMASKMOVPD (R9)(R12*1), Y15, Y14
	VMASKMOVPD (SI)(R12*1), Y15, Y13

rows_gar32:
	XORQ DX, DX
	XORQ AX, AX

block_gar32:
	CMPQ        DX, R12
	JGE         tail_gar32
	VMOVUPD     (R8)(DX*1), Y0
	VMULPD      (R9)(DX*1), Y0, Y1
	VCVTPD2PSY  Y1, X1
	VMOVUPS     X1, (DI)(AX*1)
	VMOVUPD     (SI)(DX*1), Y2
	VFMADD231PD (R13)(DX*1), Y0, Y2
	VMOVUPD     Y2, (SI)(DX*1)
	ADDQ        $32, DX
	ADDQ        $16, AX
	JMP         block_gar32

tail_gar32:
	TESTQ       CX, CX
	JZ          next_gar32
	VMASKMOVPD  (R8)(DX*1), Y15, Y0
	VMULPD      Y14, Y0, Y1
	VCVTPD2PSY  Y1, X1
	VMOVUPS     X1, (DI)(AX*1)
	VMASKMOVPD  (R13)(DX*1), Y15, Y2
	VFMADD231PD Y2, Y0, Y13

next_gar32:
	ADDQ 0(SP), DI
	ADDQ R10, R8
	ADDQ R10, R13
	DECQ BX
	JNZ  rows_gar32

	TESTQ      CX, CX
	JZ         done_gar32
	VMASKMOVPD Y13, Y15, (SI)(R12*1)

done_gar32:
	VZEROUPPER
	RET
