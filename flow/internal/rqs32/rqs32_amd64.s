//go:build amd64 && !purego

#include "textflag.h"

// Vectors of 8 float32 (or int32) constants: Cephes' expf and logf
// coefficients and the masks the kernels need.
DATA rone<>+0(SB)/4, $0x3f800000
DATA rone<>+4(SB)/4, $0x3f800000
DATA rone<>+8(SB)/4, $0x3f800000
DATA rone<>+12(SB)/4, $0x3f800000
DATA rone<>+16(SB)/4, $0x3f800000
DATA rone<>+20(SB)/4, $0x3f800000
DATA rone<>+24(SB)/4, $0x3f800000
DATA rone<>+28(SB)/4, $0x3f800000
GLOBL rone<>(SB), RODATA|NOPTR, $32
DATA rtwo<>+0(SB)/4, $0x40000000
DATA rtwo<>+4(SB)/4, $0x40000000
DATA rtwo<>+8(SB)/4, $0x40000000
DATA rtwo<>+12(SB)/4, $0x40000000
DATA rtwo<>+16(SB)/4, $0x40000000
DATA rtwo<>+20(SB)/4, $0x40000000
DATA rtwo<>+24(SB)/4, $0x40000000
DATA rtwo<>+28(SB)/4, $0x40000000
GLOBL rtwo<>(SB), RODATA|NOPTR, $32
DATA rhalf<>+0(SB)/4, $0x3f000000
DATA rhalf<>+4(SB)/4, $0x3f000000
DATA rhalf<>+8(SB)/4, $0x3f000000
DATA rhalf<>+12(SB)/4, $0x3f000000
DATA rhalf<>+16(SB)/4, $0x3f000000
DATA rhalf<>+20(SB)/4, $0x3f000000
DATA rhalf<>+24(SB)/4, $0x3f000000
DATA rhalf<>+28(SB)/4, $0x3f000000
GLOBL rhalf<>(SB), RODATA|NOPTR, $32
DATA rexphi<>+0(SB)/4, $0x42b0c0a5
DATA rexphi<>+4(SB)/4, $0x42b0c0a5
DATA rexphi<>+8(SB)/4, $0x42b0c0a5
DATA rexphi<>+12(SB)/4, $0x42b0c0a5
DATA rexphi<>+16(SB)/4, $0x42b0c0a5
DATA rexphi<>+20(SB)/4, $0x42b0c0a5
DATA rexphi<>+24(SB)/4, $0x42b0c0a5
DATA rexphi<>+28(SB)/4, $0x42b0c0a5
GLOBL rexphi<>(SB), RODATA|NOPTR, $32
DATA rexplo<>+0(SB)/4, $0xc2aeac50
DATA rexplo<>+4(SB)/4, $0xc2aeac50
DATA rexplo<>+8(SB)/4, $0xc2aeac50
DATA rexplo<>+12(SB)/4, $0xc2aeac50
DATA rexplo<>+16(SB)/4, $0xc2aeac50
DATA rexplo<>+20(SB)/4, $0xc2aeac50
DATA rexplo<>+24(SB)/4, $0xc2aeac50
DATA rexplo<>+28(SB)/4, $0xc2aeac50
GLOBL rexplo<>(SB), RODATA|NOPTR, $32
DATA rlog2e<>+0(SB)/4, $0x3fb8aa3b
DATA rlog2e<>+4(SB)/4, $0x3fb8aa3b
DATA rlog2e<>+8(SB)/4, $0x3fb8aa3b
DATA rlog2e<>+12(SB)/4, $0x3fb8aa3b
DATA rlog2e<>+16(SB)/4, $0x3fb8aa3b
DATA rlog2e<>+20(SB)/4, $0x3fb8aa3b
DATA rlog2e<>+24(SB)/4, $0x3fb8aa3b
DATA rlog2e<>+28(SB)/4, $0x3fb8aa3b
GLOBL rlog2e<>(SB), RODATA|NOPTR, $32
DATA rc1<>+0(SB)/4, $0x3f318000
DATA rc1<>+4(SB)/4, $0x3f318000
DATA rc1<>+8(SB)/4, $0x3f318000
DATA rc1<>+12(SB)/4, $0x3f318000
DATA rc1<>+16(SB)/4, $0x3f318000
DATA rc1<>+20(SB)/4, $0x3f318000
DATA rc1<>+24(SB)/4, $0x3f318000
DATA rc1<>+28(SB)/4, $0x3f318000
GLOBL rc1<>(SB), RODATA|NOPTR, $32
DATA rc2<>+0(SB)/4, $0xb95e8083
DATA rc2<>+4(SB)/4, $0xb95e8083
DATA rc2<>+8(SB)/4, $0xb95e8083
DATA rc2<>+12(SB)/4, $0xb95e8083
DATA rc2<>+16(SB)/4, $0xb95e8083
DATA rc2<>+20(SB)/4, $0xb95e8083
DATA rc2<>+24(SB)/4, $0xb95e8083
DATA rc2<>+28(SB)/4, $0xb95e8083
GLOBL rc2<>(SB), RODATA|NOPTR, $32
DATA rsqrthf<>+0(SB)/4, $0x3f3504f3
DATA rsqrthf<>+4(SB)/4, $0x3f3504f3
DATA rsqrthf<>+8(SB)/4, $0x3f3504f3
DATA rsqrthf<>+12(SB)/4, $0x3f3504f3
DATA rsqrthf<>+16(SB)/4, $0x3f3504f3
DATA rsqrthf<>+20(SB)/4, $0x3f3504f3
DATA rsqrthf<>+24(SB)/4, $0x3f3504f3
DATA rsqrthf<>+28(SB)/4, $0x3f3504f3
GLOBL rsqrthf<>(SB), RODATA|NOPTR, $32
DATA rep0<>+0(SB)/4, $0x39506967
DATA rep0<>+4(SB)/4, $0x39506967
DATA rep0<>+8(SB)/4, $0x39506967
DATA rep0<>+12(SB)/4, $0x39506967
DATA rep0<>+16(SB)/4, $0x39506967
DATA rep0<>+20(SB)/4, $0x39506967
DATA rep0<>+24(SB)/4, $0x39506967
DATA rep0<>+28(SB)/4, $0x39506967
GLOBL rep0<>(SB), RODATA|NOPTR, $32
DATA rep1<>+0(SB)/4, $0x3ab743ce
DATA rep1<>+4(SB)/4, $0x3ab743ce
DATA rep1<>+8(SB)/4, $0x3ab743ce
DATA rep1<>+12(SB)/4, $0x3ab743ce
DATA rep1<>+16(SB)/4, $0x3ab743ce
DATA rep1<>+20(SB)/4, $0x3ab743ce
DATA rep1<>+24(SB)/4, $0x3ab743ce
DATA rep1<>+28(SB)/4, $0x3ab743ce
GLOBL rep1<>(SB), RODATA|NOPTR, $32
DATA rep2<>+0(SB)/4, $0x3c088908
DATA rep2<>+4(SB)/4, $0x3c088908
DATA rep2<>+8(SB)/4, $0x3c088908
DATA rep2<>+12(SB)/4, $0x3c088908
DATA rep2<>+16(SB)/4, $0x3c088908
DATA rep2<>+20(SB)/4, $0x3c088908
DATA rep2<>+24(SB)/4, $0x3c088908
DATA rep2<>+28(SB)/4, $0x3c088908
GLOBL rep2<>(SB), RODATA|NOPTR, $32
DATA rep3<>+0(SB)/4, $0x3d2aa9c1
DATA rep3<>+4(SB)/4, $0x3d2aa9c1
DATA rep3<>+8(SB)/4, $0x3d2aa9c1
DATA rep3<>+12(SB)/4, $0x3d2aa9c1
DATA rep3<>+16(SB)/4, $0x3d2aa9c1
DATA rep3<>+20(SB)/4, $0x3d2aa9c1
DATA rep3<>+24(SB)/4, $0x3d2aa9c1
DATA rep3<>+28(SB)/4, $0x3d2aa9c1
GLOBL rep3<>(SB), RODATA|NOPTR, $32
DATA rep4<>+0(SB)/4, $0x3e2aaaaa
DATA rep4<>+4(SB)/4, $0x3e2aaaaa
DATA rep4<>+8(SB)/4, $0x3e2aaaaa
DATA rep4<>+12(SB)/4, $0x3e2aaaaa
DATA rep4<>+16(SB)/4, $0x3e2aaaaa
DATA rep4<>+20(SB)/4, $0x3e2aaaaa
DATA rep4<>+24(SB)/4, $0x3e2aaaaa
DATA rep4<>+28(SB)/4, $0x3e2aaaaa
GLOBL rep4<>(SB), RODATA|NOPTR, $32
DATA rep5<>+0(SB)/4, $0x3f000000
DATA rep5<>+4(SB)/4, $0x3f000000
DATA rep5<>+8(SB)/4, $0x3f000000
DATA rep5<>+12(SB)/4, $0x3f000000
DATA rep5<>+16(SB)/4, $0x3f000000
DATA rep5<>+20(SB)/4, $0x3f000000
DATA rep5<>+24(SB)/4, $0x3f000000
DATA rep5<>+28(SB)/4, $0x3f000000
GLOBL rep5<>(SB), RODATA|NOPTR, $32
DATA rlp0<>+0(SB)/4, $0x3d9021bb
DATA rlp0<>+4(SB)/4, $0x3d9021bb
DATA rlp0<>+8(SB)/4, $0x3d9021bb
DATA rlp0<>+12(SB)/4, $0x3d9021bb
DATA rlp0<>+16(SB)/4, $0x3d9021bb
DATA rlp0<>+20(SB)/4, $0x3d9021bb
DATA rlp0<>+24(SB)/4, $0x3d9021bb
DATA rlp0<>+28(SB)/4, $0x3d9021bb
GLOBL rlp0<>(SB), RODATA|NOPTR, $32
DATA rlp1<>+0(SB)/4, $0xbdebd1b8
DATA rlp1<>+4(SB)/4, $0xbdebd1b8
DATA rlp1<>+8(SB)/4, $0xbdebd1b8
DATA rlp1<>+12(SB)/4, $0xbdebd1b8
DATA rlp1<>+16(SB)/4, $0xbdebd1b8
DATA rlp1<>+20(SB)/4, $0xbdebd1b8
DATA rlp1<>+24(SB)/4, $0xbdebd1b8
DATA rlp1<>+28(SB)/4, $0xbdebd1b8
GLOBL rlp1<>(SB), RODATA|NOPTR, $32
DATA rlp2<>+0(SB)/4, $0x3def251a
DATA rlp2<>+4(SB)/4, $0x3def251a
DATA rlp2<>+8(SB)/4, $0x3def251a
DATA rlp2<>+12(SB)/4, $0x3def251a
DATA rlp2<>+16(SB)/4, $0x3def251a
DATA rlp2<>+20(SB)/4, $0x3def251a
DATA rlp2<>+24(SB)/4, $0x3def251a
DATA rlp2<>+28(SB)/4, $0x3def251a
GLOBL rlp2<>(SB), RODATA|NOPTR, $32
DATA rlp3<>+0(SB)/4, $0xbdfe5d4f
DATA rlp3<>+4(SB)/4, $0xbdfe5d4f
DATA rlp3<>+8(SB)/4, $0xbdfe5d4f
DATA rlp3<>+12(SB)/4, $0xbdfe5d4f
DATA rlp3<>+16(SB)/4, $0xbdfe5d4f
DATA rlp3<>+20(SB)/4, $0xbdfe5d4f
DATA rlp3<>+24(SB)/4, $0xbdfe5d4f
DATA rlp3<>+28(SB)/4, $0xbdfe5d4f
GLOBL rlp3<>(SB), RODATA|NOPTR, $32
DATA rlp4<>+0(SB)/4, $0x3e11e9bf
DATA rlp4<>+4(SB)/4, $0x3e11e9bf
DATA rlp4<>+8(SB)/4, $0x3e11e9bf
DATA rlp4<>+12(SB)/4, $0x3e11e9bf
DATA rlp4<>+16(SB)/4, $0x3e11e9bf
DATA rlp4<>+20(SB)/4, $0x3e11e9bf
DATA rlp4<>+24(SB)/4, $0x3e11e9bf
DATA rlp4<>+28(SB)/4, $0x3e11e9bf
GLOBL rlp4<>(SB), RODATA|NOPTR, $32
DATA rlp5<>+0(SB)/4, $0xbe2aae50
DATA rlp5<>+4(SB)/4, $0xbe2aae50
DATA rlp5<>+8(SB)/4, $0xbe2aae50
DATA rlp5<>+12(SB)/4, $0xbe2aae50
DATA rlp5<>+16(SB)/4, $0xbe2aae50
DATA rlp5<>+20(SB)/4, $0xbe2aae50
DATA rlp5<>+24(SB)/4, $0xbe2aae50
DATA rlp5<>+28(SB)/4, $0xbe2aae50
GLOBL rlp5<>(SB), RODATA|NOPTR, $32
DATA rlp6<>+0(SB)/4, $0x3e4cceac
DATA rlp6<>+4(SB)/4, $0x3e4cceac
DATA rlp6<>+8(SB)/4, $0x3e4cceac
DATA rlp6<>+12(SB)/4, $0x3e4cceac
DATA rlp6<>+16(SB)/4, $0x3e4cceac
DATA rlp6<>+20(SB)/4, $0x3e4cceac
DATA rlp6<>+24(SB)/4, $0x3e4cceac
DATA rlp6<>+28(SB)/4, $0x3e4cceac
GLOBL rlp6<>(SB), RODATA|NOPTR, $32
DATA rlp7<>+0(SB)/4, $0xbe7ffffc
DATA rlp7<>+4(SB)/4, $0xbe7ffffc
DATA rlp7<>+8(SB)/4, $0xbe7ffffc
DATA rlp7<>+12(SB)/4, $0xbe7ffffc
DATA rlp7<>+16(SB)/4, $0xbe7ffffc
DATA rlp7<>+20(SB)/4, $0xbe7ffffc
DATA rlp7<>+24(SB)/4, $0xbe7ffffc
DATA rlp7<>+28(SB)/4, $0xbe7ffffc
GLOBL rlp7<>(SB), RODATA|NOPTR, $32
DATA rlp8<>+0(SB)/4, $0x3eaaaaaa
DATA rlp8<>+4(SB)/4, $0x3eaaaaaa
DATA rlp8<>+8(SB)/4, $0x3eaaaaaa
DATA rlp8<>+12(SB)/4, $0x3eaaaaaa
DATA rlp8<>+16(SB)/4, $0x3eaaaaaa
DATA rlp8<>+20(SB)/4, $0x3eaaaaaa
DATA rlp8<>+24(SB)/4, $0x3eaaaaaa
DATA rlp8<>+28(SB)/4, $0x3eaaaaaa
GLOBL rlp8<>(SB), RODATA|NOPTR, $32
DATA ri127<>+0(SB)/4, $0x0000007f
DATA ri127<>+4(SB)/4, $0x0000007f
DATA ri127<>+8(SB)/4, $0x0000007f
DATA ri127<>+12(SB)/4, $0x0000007f
DATA ri127<>+16(SB)/4, $0x0000007f
DATA ri127<>+20(SB)/4, $0x0000007f
DATA ri127<>+24(SB)/4, $0x0000007f
DATA ri127<>+28(SB)/4, $0x0000007f
GLOBL ri127<>(SB), RODATA|NOPTR, $32
DATA ri126<>+0(SB)/4, $0x0000007e
DATA ri126<>+4(SB)/4, $0x0000007e
DATA ri126<>+8(SB)/4, $0x0000007e
DATA ri126<>+12(SB)/4, $0x0000007e
DATA ri126<>+16(SB)/4, $0x0000007e
DATA ri126<>+20(SB)/4, $0x0000007e
DATA ri126<>+24(SB)/4, $0x0000007e
DATA ri126<>+28(SB)/4, $0x0000007e
GLOBL ri126<>(SB), RODATA|NOPTR, $32
DATA rmant<>+0(SB)/4, $0x007fffff
DATA rmant<>+4(SB)/4, $0x007fffff
DATA rmant<>+8(SB)/4, $0x007fffff
DATA rmant<>+12(SB)/4, $0x007fffff
DATA rmant<>+16(SB)/4, $0x007fffff
DATA rmant<>+20(SB)/4, $0x007fffff
DATA rmant<>+24(SB)/4, $0x007fffff
DATA rmant<>+28(SB)/4, $0x007fffff
GLOBL rmant<>(SB), RODATA|NOPTR, $32
DATA rsign<>+0(SB)/4, $0x80000000
DATA rsign<>+4(SB)/4, $0x80000000
DATA rsign<>+8(SB)/4, $0x80000000
DATA rsign<>+12(SB)/4, $0x80000000
DATA rsign<>+16(SB)/4, $0x80000000
DATA rsign<>+20(SB)/4, $0x80000000
DATA rsign<>+24(SB)/4, $0x80000000
DATA rsign<>+28(SB)/4, $0x80000000
GLOBL rsign<>(SB), RODATA|NOPTR, $32

// EXPF sets Y1 = e^Y0 by Cephes' expf: the argument clamped to [Y14,
// Y15] (NaN kept), k = round(x·log₂e), r = x − k·ln2 in two parts, a
// degree-7 polynomial, scaled by 2^k built in the exponent bits. Y0, Y2
// and Y3 are scratch.
#define EXPF \
	VMINPS       Y0, Y15, Y0; \
	VMAXPS       Y0, Y14, Y0; \
	VMULPS       rlog2e<>(SB), Y0, Y2; \
	VROUNDPS     $0, Y2, Y2; \
	VFNMADD231PS rc1<>(SB), Y2, Y0; \
	VFNMADD231PS rc2<>(SB), Y2, Y0; \
	VMULPS       Y0, Y0, Y3; \
	VMOVUPS      rep0<>(SB), Y1; \
	VFMADD213PS  rep1<>(SB), Y0, Y1; \
	VFMADD213PS  rep2<>(SB), Y0, Y1; \
	VFMADD213PS  rep3<>(SB), Y0, Y1; \
	VFMADD213PS  rep4<>(SB), Y0, Y1; \
	VFMADD213PS  rep5<>(SB), Y0, Y1; \
	VFMADD213PS  Y0, Y3, Y1; \
	VADDPS       rone<>(SB), Y1, Y1; \
	VCVTPS2DQ    Y2, Y2; \
	VPADDD       ri127<>(SB), Y2, Y2; \
	VPSLLD       $23, Y2, Y2; \
	VMULPS       Y2, Y1, Y1

// LOGF sets Y1 = log Y0 for positive normal Y0 by Cephes' logf: Y0 =
// m·2^e with m in [√½, √2), a degree-8 polynomial in m − 1, plus e·ln2
// in two parts. Y2 to Y4 are scratch.
#define LOGF \
	VPSRLD       $23, Y0, Y2; \
	VPSUBD       ri126<>(SB), Y2, Y2; \
	VCVTDQ2PS    Y2, Y2; \
	VANDPS       rmant<>(SB), Y0, Y1; \
	VORPS        rhalf<>(SB), Y1, Y1; \
	VCMPPS       $1, rsqrthf<>(SB), Y1, Y3; \
	VANDPS       rone<>(SB), Y3, Y4; \
	VSUBPS       Y4, Y2, Y2; \
	VANDPS       Y1, Y3, Y4; \
	VSUBPS       rone<>(SB), Y1, Y1; \
	VADDPS       Y4, Y1, Y1; \
	VMULPS       Y1, Y1, Y3; \
	VMOVUPS      rlp0<>(SB), Y4; \
	VFMADD213PS  rlp1<>(SB), Y1, Y4; \
	VFMADD213PS  rlp2<>(SB), Y1, Y4; \
	VFMADD213PS  rlp3<>(SB), Y1, Y4; \
	VFMADD213PS  rlp4<>(SB), Y1, Y4; \
	VFMADD213PS  rlp5<>(SB), Y1, Y4; \
	VFMADD213PS  rlp6<>(SB), Y1, Y4; \
	VFMADD213PS  rlp7<>(SB), Y1, Y4; \
	VFMADD213PS  rlp8<>(SB), Y1, Y4; \
	VMULPS       Y1, Y4, Y4; \
	VMULPS       Y3, Y4, Y4; \
	VFMADD231PS  rc2<>(SB), Y2, Y4; \
	VFNMADD231PS rhalf<>(SB), Y3, Y4; \
	VADDPS       Y4, Y1, Y1; \
	VFMADD231PS  rc1<>(SB), Y2, Y1

// SOFTPLUS sets Y6 = log(1 + e^Y5) = max(Y5, 0) + log1p(u) with u =
// e^−|Y5| and log1p(u) = log(1+u)·u/((1+u)−1) (u where 1+u rounds to 1),
// and Y7 = σ(Y5) = (1 or u)/(1+u); NaN gives NaN. It needs Y13 = 0 and
// EXPF's Y14, Y15; Y0 to Y4, Y8 and Y9 are scratch.
#define SOFTPLUS \
	VORPS     rsign<>(SB), Y5, Y0; \
	EXPF; \
	VMOVUPS   Y1, Y9; \
	VADDPS    rone<>(SB), Y1, Y8; \
	VCMPPS    $0x0d, Y13, Y5, Y7; \
	VBLENDVPS Y7, rone<>(SB), Y9, Y7; \
	VDIVPS    Y8, Y7, Y7; \
	VMOVUPS   Y8, Y0; \
	LOGF; \
	VSUBPS    rone<>(SB), Y8, Y2; \
	VDIVPS    Y2, Y9, Y2; \
	VMULPS    Y2, Y1, Y1; \
	VCMPPS    $0, rone<>(SB), Y8, Y3; \
	VBLENDVPS Y3, Y9, Y1, Y1; \
	VMAXPS    Y5, Y13, Y6; \
	VADDPS    Y1, Y6, Y6

// SELECT finds each lane's bin k of Y0 = x (the number of interior knots
// X[1..K−1] at or below x) and sets Y1, Y2 = X[k], X[k+1], Y3, Y4 =
// Y[k], Y[k+1] and Y5, Y6 = D[k], D[k+1], from the state at DI with
// R9 = (K+1)·32 bytes between X, Y and D and R8 = K. Y7, BX and CX are
// scratch.
#define SELECT \
	VMOVUPS   (DI), Y1; \
	VMOVUPS   32(DI), Y2; \
	VMOVUPS   (DI)(R9*1), Y3; \
	VMOVUPS   32(DI)(R9*1), Y4; \
	VMOVUPS   (DI)(R9*2), Y5; \
	VMOVUPS   32(DI)(R9*2), Y6; \
	LEAQ      32(DI), BX; \
	MOVQ      $1, CX; \
sel: \
	CMPQ      CX, R8; \
	JAE       seldone; \
	VCMPPS    $0x0d, (BX), Y0, Y7; \
	VBLENDVPS Y7, (BX), Y1, Y1; \
	VBLENDVPS Y7, 32(BX), Y2, Y2; \
	VBLENDVPS Y7, (BX)(R9*1), Y3, Y3; \
	VBLENDVPS Y7, 32(BX)(R9*1), Y4, Y4; \
	VBLENDVPS Y7, (BX)(R9*2), Y5, Y5; \
	VBLENDVPS Y7, 32(BX)(R9*2), Y6, Y6; \
	ADDQ      $32, BX; \
	INCQ      CX; \
	JMP       sel; \
seldone:

// SETUP loads the arguments s (AX), st (DI) and x (SI) of forwardAVX2
// and backwardAVX2, K (R8), (K+1)·32 (R9) and x's lanes (Y0), and
// SELECTs each lane's bin.
#define SETUP \
	MOVQ    s+0(FP), AX; \
	MOVQ    st+8(FP), DI; \
	MOVQ    x+16(FP), SI; \
	MOVQ    0(AX), R8; \
	LEAQ    1(R8), R9; \
	SHLQ    $5, R9; \
	VMOVUPS (SI), Y0; \
	SELECT

// The backward pass's values kept on the stack.
#define S_IN 0(SP)
#define S_CL 32(SP)
#define S_RW 64(SP)
#define S_RD 96(SP)
#define S_FH 128(SP)
#define S_OM2 160(SP)
#define S_A 192           // a0 … a5 at 192(SP) … 352(SP)
#define S_A4 320(SP)
#define S_A5 352(SP)

// ROWS8 loads the arguments of loadAVX2 and storeAVX2 (dst into DI, src
// into SI, scale into DX, n4 into CX) and sets R8 = n·8 bytes, the stride
// of the splines' float64 values, and R10 to R13 to 3, 5, 6 and 7
// strides, so that spline r is at (SI)(r·stride) or (DI)(r·stride).
#define ROWS8 \
	MOVQ dst+0(FP), DI; \
	MOVQ src+8(FP), SI; \
	MOVQ scale+16(FP), DX; \
	MOVQ n4+32(FP), CX; \
	MOVQ n+24(FP), R8; \
	SHLQ $3, R8; \
	LEAQ (R8)(R8*2), R10; \
	LEAQ (R8)(R8*4), R11; \
	LEAQ (R10)(R10*1), R12; \
	LEAQ (R12)(R8*1), R13

// TRANS4(a, b, c, d) transposes the 4×4 blocks in each 128-bit half of
// Ya … Yd into Y12 … Y15 (Y8 … Y11 scratch): Y12 gets element 0 of each
// of a … d, Y13 element 1, Y14 element 2, Y15 element 3.
#define TRANS4(a, b, c, d) \
	VUNPCKLPS a, b, Y8 ; \
	VUNPCKHPS a, b, Y9 ; \
	VUNPCKLPS c, d, Y10; \
	VUNPCKHPS c, d, Y11; \
	VSHUFPS   $0x44, Y10, Y8, Y12; \
	VSHUFPS   $0xEE, Y10, Y8, Y13; \
	VSHUFPS   $0x44, Y11, Y9, Y14; \
	VSHUFPS   $0xEE, Y11, Y9, Y15

// STORE4(X, dst) widens the four float32 values in X to float64, scales
// them by Y7 and stores them at dst (Y0 is scratch).
#define STORE4(X, dst) \
	VCVTPS2PD X, Y0; \
	VMULPD    Y7, Y0, Y0; \
	VMOVUPD   Y0, dst

// The Spline fields: K at 0, B 8, B2 12, MinW 16, MinH 20, MinD 24, AW 28, AH 32.

// func knotsAVX2(s *Spline, st, raw *float32)
//
// The widths (then the heights): their largest value, the exponentials
// and their sum, the probabilities and the knots' cumulative sums; then
// the derivatives' softplus and σ.
TEXT ·knotsAVX2(SB), NOSPLIT, $0-24
	MOVQ    s+0(FP), AX
	MOVQ    st+8(FP), DI
	MOVQ    raw+16(FP), SI
	MOVQ    0(AX), R8
	MOVQ    R8, R9
	SHLQ    $5, R9                 // K·32
	VMOVUPS rexplo<>(SB), Y14
	VMOVUPS rexphi<>(SB), Y15
	VXORPS  Y13, Y13, Y13

	// widths: parameters at SI, probabilities at PW = st + 3(K+1)·32, knots X at st
	MOVQ         SI, R11
	LEAQ         96(R9)(R9*2), R10
	ADDQ         DI, R10
	MOVQ         DI, R12
	VBROADCASTSS 16(AX), Y11
	VBROADCASTSS 28(AX), Y12
	XORQ         R14, R14

half:
	VMOVUPS (R11), Y5
	MOVQ    R11, BX
	MOVQ    $1, CX

hmax:
	CMPQ   CX, R8
	JAE    hsum
	ADDQ   $32, BX
	VMAXPS (BX), Y5, Y5
	INCQ   CX
	JMP    hmax

hsum:
	VXORPS Y6, Y6, Y6
	MOVQ   R11, BX
	MOVQ   R10, DX
	XORQ   CX, CX

hexp:
	VMOVUPS (BX), Y0
	VSUBPS  Y5, Y0, Y0
	EXPF
	VMOVUPS Y1, (DX)
	VADDPS  Y1, Y6, Y6
	ADDQ    $32, BX
	ADDQ    $32, DX
	INCQ    CX
	CMPQ    CX, R8
	JB      hexp

	VBROADCASTSS 8(AX), Y7         // B
	VXORPS       rsign<>(SB), Y7, Y8 // −B
	VBROADCASTSS 12(AX), Y9        // 2B
	VMOVUPS      Y8, (R12)
	VXORPS       Y10, Y10, Y10     // the cumulative sum c
	MOVQ         R10, DX
	MOVQ         R12, BX
	XORQ         CX, CX

hnorm:
	VMOVUPS     (DX), Y0
	VDIVPS      Y6, Y0, Y0
	VMOVUPS     Y0, (DX)
	LEAQ        1(CX), R13
	CMPQ        R13, R8
	JAE         hlast
	VMOVUPS     Y11, Y1
	VFMADD231PS Y12, Y0, Y1        // min + a·p
	VADDPS      Y1, Y10, Y10
	VMOVUPS     Y8, Y2
	VFMADD231PS Y9, Y10, Y2        // −B + 2B·c
	VMOVUPS     Y2, 32(BX)
	ADDQ        $32, DX
	ADDQ        $32, BX
	INCQ        CX
	JMP         hnorm

hlast:
	VMOVUPS Y7, 32(BX) // the last knot, B
	TESTQ   R14, R14
	JNZ     derivs

	// heights: parameters at SI + K·32, probabilities at PW + K·32, knots Y at st + (K+1)·32
	MOVQ         $1, R14
	ADDQ         R9, R11
	ADDQ         R9, R10
	LEAQ         32(DI)(R9*1), R12
	VBROADCASTSS 20(AX), Y11
	VBROADCASTSS 32(AX), Y12
	JMP          half

derivs:
	// D at st + 2(K+1)·32, σ at PH + K·32 (R10 + R9), parameters at SI + 2K·32
	LEAQ         64(DI)(R9*2), R12
	VMOVUPS      rone<>(SB), Y0
	VMOVUPS      Y0, (R12)
	VMOVUPS      Y0, (R12)(R9*1)
	LEAQ         (SI)(R9*2), BX
	LEAQ         32(R12), DX
	LEAQ         (R10)(R9*1), R13
	VBROADCASTSS 24(AX), Y10
	MOVQ         $1, CX

dloop:
	CMPQ    CX, R8
	JAE     kdone
	VMOVUPS (BX), Y5
	SOFTPLUS
	VADDPS  Y10, Y6, Y6
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, (R13)
	ADDQ    $32, BX
	ADDQ    $32, DX
	ADDQ    $32, R13
	INCQ    CX
	JMP     dloop

kdone:
	VZEROUPPER
	RET

// func forwardAVX2(s *Spline, st *float32, x, y, ld *[8]float32)
TEXT ·forwardAVX2(SB), NOSPLIT, $0-40
	SETUP
	VSUBPS       Y1, Y2, Y2          // wk
	VSUBPS       Y3, Y4, Y4          // hk
	VDIVPS       Y2, Y4, Y8          // sk
	VSUBPS       Y1, Y0, Y9
	VDIVPS       Y2, Y9, Y9          // θ
	VXORPS       Y10, Y10, Y10
	VMAXPS       Y10, Y9, Y9
	VMINPS       rone<>(SB), Y9, Y9
	VMOVUPS      rone<>(SB), Y10
	VSUBPS       Y9, Y10, Y10        // 1 − θ
	VMULPS       Y10, Y9, Y11        // T
	VADDPS       Y11, Y11, Y12
	VMOVUPS      rone<>(SB), Y13
	VSUBPS       Y12, Y13, Y13       // 1 − 2T
	VMULPS       Y8, Y13, Y13
	VADDPS       Y6, Y5, Y12
	VFMADD231PS  Y12, Y11, Y13       // den = s(1 − 2T) + (δk + δk+1)T
	VMULPS       Y9, Y9, Y14         // θ²
	VMULPS       Y14, Y8, Y15
	VFMADD231PS  Y5, Y11, Y15        // sθ² + δk T
	VMULPS       Y4, Y15, Y15
	VDIVPS       Y13, Y15, Y15
	VADDPS       Y15, Y3, Y15        // y
	VBROADCASTSS 8(AX), Y1
	VCMPPS       $0x02, Y1, Y0, Y2   // x ≤ B
	VXORPS       rsign<>(SB), Y1, Y1
	VCMPPS       $0x0d, Y1, Y0, Y3   // x ≥ −B
	VANDPS       Y3, Y2, Y2
	VBLENDVPS    Y2, Y15, Y0, Y15
	MOVQ         y+24(FP), DX
	VMOVUPS      Y15, (DX)
	VMOVUPS      Y2, Y12             // inside
	VMULPS       Y14, Y6, Y14        // δk+1 θ²
	VADDPS       Y8, Y8, Y3
	VFMADD231PS  Y3, Y11, Y14        // + 2sT
	VMULPS       Y10, Y10, Y10
	VFMADD231PS  Y10, Y5, Y14        // + δk (1−θ)² = E
	VDIVPS       Y13, Y8, Y8         // s/den
	VMULPS       Y8, Y8, Y8
	VMULPS       Y14, Y8, Y0
	LOGF
	VANDPS       Y12, Y1, Y1
	MOVQ         ld+32(FP), DX
	VMOVUPS      Y1, (DX)
	VZEROUPPER
	RET

// func backwardAVX2(s *Spline, st *float32, x, gy, gl, gx *[8]float32, graw *float32)
//
// The partial derivatives of y and log f′ at each lane's θ give the
// gradients of its six knot values a0 … a5 (X[k], X[k+1], Y[k], Y[k+1],
// D[k], D[k+1]) and of x; then the widths' and heights' softmax gradients
// in the cancellation-free form of the twin's cumBackward, and the
// derivatives' softplus gradients.
TEXT ·backwardAVX2(SB), NOSPLIT, $384-56
	SETUP
	VBROADCASTSS 8(AX), Y7
	VCMPPS       $0x02, Y7, Y0, Y8
	VXORPS       rsign<>(SB), Y7, Y7
	VCMPPS       $0x0d, Y7, Y0, Y9
	VANDPS       Y9, Y8, Y8
	VMOVUPS      Y8, S_IN
	VSUBPS       Y1, Y2, Y2          // wk
	VSUBPS       Y3, Y4, Y4          // hk
	VDIVPS       Y2, Y4, Y3          // s
	VMOVUPS      rone<>(SB), Y7
	VDIVPS       Y2, Y7, Y7          // 1/wk
	VMOVUPS      Y7, S_RW
	VSUBPS       Y1, Y0, Y1
	VDIVPS       Y2, Y1, Y1          // θ, unclamped
	VXORPS       Y9, Y9, Y9
	VCMPPS       $1, Y9, Y1, Y8      // θ < 0
	VCMPPS       $0x0e, rone<>(SB), Y1, Y10 // θ > 1
	VORPS        Y10, Y8, Y8
	VMOVUPS      Y8, S_CL
	VMAXPS       Y9, Y1, Y1
	VMINPS       rone<>(SB), Y1, Y1  // θ
	VMOVUPS      rone<>(SB), Y9
	VSUBPS       Y1, Y9, Y9          // 1 − θ
	VMULPS       Y9, Y1, Y10         // T
	VSUBPS       Y1, Y9, Y11         // 1 − 2θ
	VADDPS       Y10, Y10, Y12
	VMOVUPS      rone<>(SB), Y13
	VSUBPS       Y12, Y13, Y13       // 1 − 2T
	VMULPS       Y3, Y13, Y13
	VADDPS       Y6, Y5, Y12
	VFMADD231PS  Y12, Y10, Y13       // den = s(1 − 2T) + (δk + δk+1)T
	VFNMADD231PS rtwo<>(SB), Y3, Y12 // c2 = δk + δk+1 − 2s
	VMOVUPS      rone<>(SB), Y14
	VDIVPS       Y13, Y14, Y13       // 1/den
	VMOVUPS      Y13, S_RD
	VMULPS       Y11, Y12, Y12       // den_θ = c2(1 − 2θ)
	VMULPS       Y1, Y1, Y14         // θ²
	VMULPS       Y14, Y3, Y15
	VFMADD231PS  Y5, Y10, Y15        // sθ² + δk T
	VMULPS       Y13, Y15, Y15       // f_h
	VMOVUPS      Y15, S_FH
	VMULPS       Y4, Y15, Y15        // f
	VMULPS       Y14, Y6, Y0         // δk+1 θ²
	VADDPS       Y3, Y3, Y2
	VFMADD231PS  Y2, Y10, Y0         // + 2sT
	VMULPS       Y9, Y9, Y7          // (1 − θ)²
	VMOVUPS      Y7, S_OM2
	VFMADD231PS  Y7, Y5, Y0          // + δk (1 − θ)² = E
	VMOVUPS      rone<>(SB), Y2
	VDIVPS       Y0, Y2, Y0          // 1/E

	// Y0 1/E, Y1 θ, Y3 s, Y4 hk, Y5 δk, Y6 δk+1, Y9 1−θ, Y10 T,
	// Y11 1−2θ, Y12 den_θ, Y13 1/den, Y14 θ², Y15 f
	MOVQ         gy+24(FP), BX
	MOVQ         gl+32(FP), CX
	VMULPS       Y1, Y3, Y2
	VADDPS       Y2, Y2, Y2
	VFMADD231PS  Y5, Y11, Y2         // 2sθ + δk(1−2θ)
	VMULPS       Y4, Y2, Y2
	VFNMADD231PS Y12, Y15, Y2
	VMULPS       Y13, Y2, Y2         // f_θ
	VMULPS       Y1, Y6, Y7
	VFMADD231PS  Y3, Y11, Y7
	VFNMADD231PS Y5, Y9, Y7
	VADDPS       Y7, Y7, Y7          // E_θ
	VMULPS       Y0, Y7, Y7
	VMULPS       Y13, Y12, Y8
	VADDPS       Y8, Y8, Y8
	VSUBPS       Y8, Y7, Y7          // L_θ
	VMULPS       (BX), Y2, Y2
	VFMADD231PS  (CX), Y7, Y2        // g_θ
	VMOVUPS      S_CL, Y8
	VANDNPS      Y2, Y8, Y2          // 0 where θ was clamped
	VADDPS       Y10, Y10, Y7
	VMOVUPS      rone<>(SB), Y8
	VSUBPS       Y7, Y8, Y8          // den_s = 1 − 2T
	VMULPS       Y14, Y4, Y7
	VFNMADD231PS Y8, Y15, Y7
	VMULPS       Y13, Y7, Y7         // f_s
	VMOVUPS      rtwo<>(SB), Y11
	VDIVPS       Y3, Y11, Y11        // 2/s
	VMULPS       Y0, Y10, Y12
	VADDPS       Y12, Y12, Y12
	VADDPS       Y12, Y11, Y11
	VMULPS       Y13, Y8, Y8
	VADDPS       Y8, Y8, Y8
	VSUBPS       Y8, Y11, Y11        // L_s
	VMULPS       (BX), Y7, Y7
	VFMADD231PS  (CX), Y11, Y7       // g_s
	VMOVUPS      S_FH, Y8
	VMULPS       (BX), Y8, Y8
	VFMADD231PS  S_RW, Y7, Y8        // g_h
	VMOVUPS      (BX), Y11
	VSUBPS       Y8, Y11, Y11
	VMOVUPS      Y11, S_A+64(SP)     // a2 = gy − g_h
	VMOVUPS      Y8, S_A+96(SP)      // a3 = g_h
	VMULPS       Y1, Y2, Y11
	VFMADD231PS  Y3, Y7, Y11
	VMULPS       S_RW, Y11, Y11
	VXORPS       rsign<>(SB), Y11, Y11 // g_w = −(g_θ θ + g_s s)/wk
	VMOVUPS      Y11, S_A+32(SP)     // a1 = g_w
	VMULPS       S_RW, Y2, Y12       // g_x
	VXORPS       rsign<>(SB), Y12, Y8
	VSUBPS       Y11, Y8, Y8
	VMOVUPS      Y8, S_A+0(SP)       // a0 = −g_x − g_w
	VMOVUPS      S_IN, Y8
	VMOVUPS      (BX), Y13
	VBLENDVPS    Y8, Y12, Y13, Y12
	MOVQ         gx+40(FP), DX
	VMOVUPS      Y12, (DX)
	VMULPS       S_RD, Y10, Y12
	VADDPS       Y12, Y12, Y12       // 2T/den
	VMULPS       S_OM2, Y0, Y13
	VSUBPS       Y12, Y13, Y13       // L_δk
	VMULPS       Y14, Y0, Y14
	VSUBPS       Y12, Y14, Y14       // L_δk+1
	VMULPS       Y10, Y4, Y11
	VFNMADD231PS Y10, Y15, Y11
	VMULPS       S_RD, Y11, Y11      // f_δk
	VMULPS       (BX), Y11, Y11
	VFMADD231PS  (CX), Y13, Y11
	VMOVUPS      Y11, S_A4           // a4
	VMULPS       Y10, Y15, Y11
	VMULPS       S_RD, Y11, Y11
	VXORPS       rsign<>(SB), Y11, Y11 // f_δk+1
	VMULPS       (BX), Y11, Y11
	VFMADD231PS  (CX), Y14, Y11
	VMOVUPS      Y11, S_A5           // a5

	// Lanes outside get no knot gradient; knots 0 and K are fixed: a0
	// and a2 count only where k ≥ 1 (x ≥ X[1]), a1 and a3 only where
	// k+1 ≤ K−1 (x < X[K−1]).
	VMOVUPS (SI), Y0
	VCMPPS  $0x0d, 32(DI), Y0, Y1
	MOVQ    R8, R10
	SHLQ    $5, R10
	VCMPPS  $0x0d, -32(DI)(R10*1), Y0, Y2
	VMOVUPS S_IN, Y3
	VANDPS  Y3, Y1, Y1
	VANDNPS Y3, Y2, Y2
	VANDPS  S_A+0(SP), Y1, Y4
	VMOVUPS Y4, S_A+0(SP)
	VANDPS  S_A+64(SP), Y1, Y4
	VMOVUPS Y4, S_A+64(SP)
	VANDPS  S_A+32(SP), Y2, Y4
	VMOVUPS Y4, S_A+32(SP)
	VANDPS  S_A+96(SP), Y2, Y4
	VMOVUPS Y4, S_A+96(SP)
	VANDPS  S_A4, Y3, Y4
	VMOVUPS Y4, S_A4
	VANDPS  S_A5, Y3, Y4
	VMOVUPS Y4, S_A5

	// widths (R12 = 0: a0, a1, PW, AW, graw) then heights (R12 = 64:
	// a2, a3, PH, AH, graw + K·32)
	LEAQ 96(R9)(R9*2), R10
	SUBQ $96, R10
	ADDQ DI, R10                     // PW = st + 3(K+1)·32
	MOVQ graw+48(FP), R11
	XORQ R12, R12
	MOVQ $28, R14

chalf:
	VMOVUPS      S_A+0(SP)(R12*1), Y4
	VMOVUPS      S_A+32(SP)(R12*1), Y5
	VBROADCASTSS 12(AX), Y14
	VBROADCASTSS (AX)(R14*1), Y15
	VMULPS       Y15, Y14, Y14       // c = 2B(1 − K·min)
	VCMPPS       $0x0d, (DI), Y0, Y6 // m_0
	VXORPS       Y8, Y8, Y8
	VXORPS       Y9, Y9, Y9
	VXORPS       Y10, Y10, Y10
	VXORPS       Y11, Y11, Y11
	MOVQ         DI, BX
	MOVQ         R10, DX
	XORQ         CX, CX

csum:
	LEAQ    1(CX), R13
	VXORPS  Y7, Y7, Y7
	CMPQ    R13, R8
	JAE     csum0
	VCMPPS  $0x0d, 32(BX), Y0, Y7 // m_{j+1}: j < k

csum0:
	VMOVUPS (DX), Y12
	VANDPS  Y12, Y7, Y13
	VADDPS  Y13, Y8, Y8          // P_k
	VANDNPS Y12, Y7, Y13
	VADDPS  Y13, Y9, Y9          // Q_k
	VANDPS  Y12, Y6, Y13
	VADDPS  Y13, Y10, Y10        // P_k+1
	VANDNPS Y12, Y6, Y13
	VADDPS  Y13, Y11, Y11        // Q_k+1
	VMOVUPS Y7, Y6
	ADDQ    $32, BX
	ADDQ    $32, DX
	INCQ    CX
	CMPQ    CX, R8
	JB      csum

	VMULPS  Y4, Y9, Y9           // a0 Q_k
	VMULPS  Y4, Y8, Y8
	VXORPS  rsign<>(SB), Y8, Y8  // −a0 P_k
	VMULPS  Y5, Y11, Y11         // a1 Q_k+1
	VMULPS  Y5, Y10, Y10
	VXORPS  rsign<>(SB), Y10, Y10 // −a1 P_k+1
	VCMPPS  $0x0d, (DI), Y0, Y6  // m_0
	MOVQ    DI, BX
	MOVQ    R10, DX
	XORQ    CX, CX

cgrad:
	LEAQ    1(CX), R13
	VXORPS  Y7, Y7, Y7
	CMPQ    R13, R8
	JAE     cgrad0
	VCMPPS  $0x0d, 32(BX), Y0, Y7 // m_{i+1}: k > i

cgrad0:
	VBLENDVPS Y7, Y9, Y8, Y12
	VBLENDVPS Y6, Y11, Y10, Y13  // m_i: k+1 > i
	VADDPS    Y13, Y12, Y12
	VMULPS    (DX), Y14, Y13     // c·p_i
	VMULPS    Y13, Y12, Y12
	VMOVUPS   Y12, (R11)
	VMOVUPS   Y7, Y6
	ADDQ      $32, BX
	ADDQ      $32, DX
	ADDQ      $32, R11
	INCQ      CX
	CMPQ      CX, R8
	JB        cgrad

	TESTQ R12, R12
	JNZ   cderiv
	MOVQ  $64, R12
	MOVQ  $32, R14
	MOVQ  R8, R13
	SHLQ  $5, R13
	ADDQ  R13, R10               // PH = PW + K·32 (R11 has moved on by K·32)
	JMP   chalf

cderiv:
	// graw[2K+j−1] = (a4 where k = j, a5 where k+1 = j)·σ[j−1], j = 1 … K−1;
	// σ at PH + K·32, R11 now at graw + 2K·32.
	VMOVUPS S_A4, Y4
	VMOVUPS S_A5, Y5
	MOVQ    R8, R13
	SHLQ    $5, R13
	LEAQ    (R10)(R13*1), DX
	VCMPPS  $0x0d, (DI), Y0, Y6   // m_{j−1}
	VCMPPS  $0x0d, 32(DI), Y0, Y7 // m_j
	LEAQ    64(DI), BX
	MOVQ    $1, CX

dgrad:
	CMPQ    CX, R8
	JAE     bdone
	LEAQ    1(CX), R13
	VXORPS  Y8, Y8, Y8
	CMPQ    R13, R8
	JAE     dgrad0
	VCMPPS  $0x0d, (BX), Y0, Y8   // m_{j+1}

dgrad0:
	VANDNPS Y7, Y8, Y9           // k = j
	VANDPS  Y4, Y9, Y9
	VANDNPS Y6, Y7, Y10          // k+1 = j
	VANDPS  Y5, Y10, Y10
	VADDPS  Y10, Y9, Y9
	VMULPS  (DX), Y9, Y9
	VMOVUPS Y9, (R11)
	VMOVUPS Y7, Y6
	VMOVUPS Y8, Y7
	ADDQ    $32, BX
	ADDQ    $32, DX
	ADDQ    $32, R11
	INCQ    CX
	JMP     dgrad

bdone:
	VZEROUPPER
	RET

// func loadAVX2(dst *float32, src, scale *float64, n, n4 int)
//
// Four values of each of the 8 splines at a time: scaled, rounded to
// float32 (spline r in X_r), paired into Y0 … Y3 (splines r and r+4) and
// transposed into four vectors of 8 lanes.
TEXT ·loadAVX2(SB), NOSPLIT, $0-40
	ROWS8

load4:
	VMOVUPD     (DX), Y15
	VMULPD      (SI), Y15, Y0
	VMULPD      (SI)(R8*1), Y15, Y1
	VMULPD      (SI)(R8*2), Y15, Y2
	VMULPD      (SI)(R10*1), Y15, Y3
	VMULPD      (SI)(R8*4), Y15, Y4
	VMULPD      (SI)(R11*1), Y15, Y5
	VMULPD      (SI)(R12*1), Y15, Y6
	VMULPD      (SI)(R13*1), Y15, Y7
	VCVTPD2PSY  Y0, X0
	VCVTPD2PSY  Y1, X1
	VCVTPD2PSY  Y2, X2
	VCVTPD2PSY  Y3, X3
	VCVTPD2PSY  Y4, X4
	VCVTPD2PSY  Y5, X5
	VCVTPD2PSY  Y6, X6
	VCVTPD2PSY  Y7, X7
	VINSERTF128 $1, X4, Y0, Y0
	VINSERTF128 $1, X5, Y1, Y1
	VINSERTF128 $1, X6, Y2, Y2
	VINSERTF128 $1, X7, Y3, Y3
	TRANS4(Y1, Y0, Y3, Y2)
	VMOVUPS     Y12, (DI)
	VMOVUPS     Y13, 32(DI)
	VMOVUPS     Y14, 64(DI)
	VMOVUPS     Y15, 96(DI)
	ADDQ        $32, SI
	ADDQ        $32, DX
	ADDQ        $128, DI
	SUBQ        $4, CX
	JNZ         load4
	VZEROUPPER
	RET

// func storeAVX2(dst *float64, src *float32, scale *float64, n, n4 int)
//
// Four values of each of the 8 splines at a time: the four vectors of 8
// lanes transposed (Y12 … Y15 then hold splines r and r+4 in their
// halves), widened to float64, scaled and stored.
TEXT ·storeAVX2(SB), NOSPLIT, $0-40
	ROWS8

store4:
	VMOVUPS      (SI), Y0
	VMOVUPS      32(SI), Y1
	VMOVUPS      64(SI), Y2
	VMOVUPS      96(SI), Y3
	TRANS4(Y1, Y0, Y3, Y2)
	VMOVUPD      (DX), Y7
	STORE4(X12, (DI))
	STORE4(X13, (DI)(R8*1))
	STORE4(X14, (DI)(R8*2))
	STORE4(X15, (DI)(R10*1))
	VEXTRACTF128 $1, Y12, X12
	STORE4(X12, (DI)(R8*4))
	VEXTRACTF128 $1, Y13, X13
	STORE4(X13, (DI)(R11*1))
	VEXTRACTF128 $1, Y14, X14
	STORE4(X14, (DI)(R12*1))
	VEXTRACTF128 $1, Y15, X15
	STORE4(X15, (DI)(R13*1))
	ADDQ         $128, SI
	ADDQ         $32, DX
	ADDQ         $32, DI
	SUBQ         $4, CX
	JNZ          store4
	VZEROUPPER
	RET
