//go:build amd64 && !purego

#include "textflag.h"

DATA absmask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $8
DATA two<>+0(SB)/8, $0x4000000000000000
GLOBL two<>(SB), RODATA|NOPTR, $8
DATA neginf<>+0(SB)/8, $0xfff0000000000000
GLOBL neginf<>(SB), RODATA|NOPTR, $8
DATA nan<>+0(SB)/8, $0x7ff8000000000001
GLOBL nan<>(SB), RODATA|NOPTR, $8
// tailmask: four all-ones lanes then four zero lanes; the four lanes at
// tailmask + 8·(4 − q) select the first q of a ymm vector.
DATA tailmask<>+0(SB)/8, $-1
DATA tailmask<>+8(SB)/8, $-1
DATA tailmask<>+16(SB)/8, $-1
DATA tailmask<>+24(SB)/8, $-1
DATA tailmask<>+32(SB)/8, $0
DATA tailmask<>+40(SB)/8, $0
DATA tailmask<>+48(SB)/8, $0
DATA tailmask<>+56(SB)/8, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $64

// One coordinate of a 16-slot block: Z2, Z3 hold v = t[k·n + i..i+15]
// (masked lanes zero) and R12 points at the coordinate's constants (z, K,
// λ, ℓ, gl). With x' = v − z = −(z − v) exactly, 2B − A (A = trunc(x'), B
// = trunc(2x')/2) is round(x') = −round(z − v), so Q = that + K is K −
// round(z − v); U = (λ·|Q| − ℓ) + gl is −((ℓ − λ·|Q|) − gl) exactly, and
// acc − U is acc + ((ℓ − λ·|Q|) − gl), the Go loop's step.
#define COORD512 \
	VSUBPD.BCST   (R12), Z2, Z2     \
	VSUBPD.BCST   (R12), Z3, Z3     \
	VRNDSCALEPD   $0x0B, Z2, Z4     \
	VRNDSCALEPD   $0x0B, Z3, Z5     \
	VRNDSCALEPD   $0x1B, Z2, Z2     \
	VRNDSCALEPD   $0x1B, Z3, Z3     \
	VFMSUB231PD   Z30, Z2, Z4       \
	VFMSUB231PD   Z30, Z3, Z5       \
	VADDPD.BCST   8(R12), Z4, Z4    \
	VADDPD.BCST   8(R12), Z5, Z5    \
	VPANDQ        Z31, Z4, Z4       \
	VPANDQ        Z31, Z5, Z5       \
	VMULPD.BCST   16(R12), Z4, Z4   \
	VMULPD.BCST   16(R12), Z5, Z5   \
	VSUBPD.BCST   24(R12), Z4, Z4   \
	VSUBPD.BCST   24(R12), Z5, Z5   \
	VADDPD.BCST   32(R12), Z4, Z4   \
	VADDPD.BCST   32(R12), Z5, Z5   \
	VSUBPD        Z4, Z0, Z0        \
	VSUBPD        Z5, Z1, Z1

// func weights512(logw, t, p *float64, n, d int) float64
// Requires n ≥ 1, d ≥ 1. Returns the largest weight, NaN if any is NaN.
TEXT ·weights512(SB), NOSPLIT, $0-48
	MOVQ logw+0(FP), DI
	MOVQ t+8(FP), SI
	MOVQ p+16(FP), R8
	MOVQ n+24(FP), BX
	MOVQ d+32(FP), R9
	MOVQ BX, R10
	SHLQ $3, R10                    // column stride in bytes
	VBROADCASTSD two<>(SB), Z30
	VBROADCASTSD absmask<>(SB), Z31
	VBROADCASTSD neginf<>(SB), Z7   // running maxima
	KXORW        K4, K4, K4         // lanes that saw NaN

block512:
	MOVQ $0xff, AX
	KMOVW AX, K1
	KMOVW AX, K2
	CMPQ BX, $16
	JCC  masks512
	MOVQ BX, CX
	CMPQ CX, $8
	JHI  two512
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K1
	KXORW K2, K2, K2
	JMP  masks512

two512:
	SUBQ $8, CX
	MOVQ $1, AX
	SHLQ CX, AX
	DECQ AX
	KMOVW AX, K2

masks512:
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	MOVQ   SI, R11
	MOVQ   R8, R12
	MOVQ   R9, R13

coord512:
	VMOVUPD.Z (R11), K1, Z2
	VMOVUPD.Z 64(R11), K2, Z3
	COORD512
	ADDQ R10, R11
	ADDQ $64, R12
	DECQ R13
	JNZ  coord512

	VMOVUPD Z0, K1, (DI)
	VMOVUPD Z1, K2, 64(DI)
	VCMPPD  $3, Z0, Z0, K1, K3
	KORW    K3, K4, K4
	VCMPPD  $3, Z1, Z1, K2, K3
	KORW    K3, K4, K4
	VMAXPD  Z0, Z7, K1, Z7
	VMAXPD  Z1, Z7, K2, Z7
	ADDQ    $128, DI
	ADDQ    $128, SI
	SUBQ    $16, BX
	JGT     block512

	KORTESTW K4, K4
	JNE      nan512
	VEXTRACTF64X4 $1, Z7, Y8
	VMAXPD   Y8, Y7, Y7
	VEXTRACTF128 $1, Y7, X8
	VMAXPD   X8, X7, X7
	VPERMILPD $1, X7, X8
	VMAXSD   X8, X7, X7
	VMOVSD   X7, ret+40(FP)
	VZEROUPPER
	RET

nan512:
	MOVQ nan<>(SB), AX
	MOVQ AX, ret+40(FP)
	VZEROUPPER
	RET

// One coordinate of an 8-slot block in ymm registers: Y2, Y3 hold v, Y8 −
// Y12 the broadcast constants; as COORD512 with round(x') = trunc(2x') −
// trunc(x') (exact) in place of the fused 2B − A.
#define COORD256 \
	VSUBPD   Y8, Y2, Y2    \
	VSUBPD   Y8, Y3, Y3    \
	VADDPD   Y2, Y2, Y4    \
	VADDPD   Y3, Y3, Y5    \
	VROUNDPD $0x0B, Y2, Y2 \
	VROUNDPD $0x0B, Y3, Y3 \
	VROUNDPD $0x0B, Y4, Y4 \
	VROUNDPD $0x0B, Y5, Y5 \
	VSUBPD   Y2, Y4, Y4    \
	VSUBPD   Y3, Y5, Y5    \
	VADDPD   Y9, Y4, Y4    \
	VADDPD   Y9, Y5, Y5    \
	VANDPD   Y14, Y4, Y4   \
	VANDPD   Y14, Y5, Y5   \
	VMULPD   Y10, Y4, Y4   \
	VMULPD   Y10, Y5, Y5   \
	VSUBPD   Y11, Y4, Y4   \
	VSUBPD   Y11, Y5, Y5   \
	VADDPD   Y12, Y4, Y4   \
	VADDPD   Y12, Y5, Y5   \
	VSUBPD   Y4, Y0, Y0    \
	VSUBPD   Y5, Y1, Y1

// BCAST256 broadcasts the constants of the coordinate at R12 into Y8−Y12.
#define BCAST256 \
	VBROADCASTSD (R12), Y8    \
	VBROADCASTSD 8(R12), Y9   \
	VBROADCASTSD 16(R12), Y10 \
	VBROADCASTSD 24(R12), Y11 \
	VBROADCASTSD 32(R12), Y12

// func weights256(logw, t, p *float64, n, d int) float64
// Requires n ≥ 1, d ≥ 1. Returns the largest weight, NaN if any is NaN.
TEXT ·weights256(SB), NOSPLIT, $0-48
	MOVQ logw+0(FP), DI
	MOVQ t+8(FP), SI
	MOVQ p+16(FP), R8
	MOVQ n+24(FP), BX
	MOVQ d+32(FP), R9
	MOVQ BX, R10
	SHLQ $3, R10
	VBROADCASTSD absmask<>(SB), Y14
	LEAQ tailmask<>(SB), DX
	VBROADCASTSD neginf<>(SB), Y15  // running maxima
	VXORPD Y13, Y13, Y13            // lanes that saw NaN

block256:
	CMPQ BX, $8
	JCC  masks256

	MOVQ BX, CX
	CMPQ CX, $4
	JLS  lo256
	MOVQ $4, CX

lo256:
	MOVQ $4, AX
	SUBQ CX, AX
	VMOVDQU (DX)(AX*8), Y6
	MOVQ $0, CX
	CMPQ BX, $4
	JLS  hi256
	LEAQ -4(BX), CX

hi256:
	MOVQ $4, AX
	SUBQ CX, AX
	VMOVDQU (DX)(AX*8), Y7

masks256:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ   SI, R11
	MOVQ   R8, R12
	MOVQ   R9, R13
	CMPQ   BX, $8
	JCS    coordtail256

coord256:
	VMOVUPD (R11), Y2
	VMOVUPD 32(R11), Y3
	BCAST256
	COORD256
	ADDQ R10, R11
	ADDQ $64, R12
	DECQ R13
	JNZ  coord256
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	JMP  max256

coordtail256:
	VMASKMOVPD (R11), Y6, Y2
	VMASKMOVPD 32(R11), Y7, Y3
	BCAST256
	COORD256
	ADDQ R10, R11
	ADDQ $64, R12
	DECQ R13
	JNZ  coordtail256
	VMASKMOVPD Y0, Y6, (DI)
	VMASKMOVPD Y1, Y7, 32(DI)
	VBROADCASTSD neginf<>(SB), Y2   // lanes past n: −Inf
	VBLENDVPD  Y6, Y0, Y2, Y0
	VBLENDVPD  Y7, Y1, Y2, Y1

max256:
	VCMPPD $3, Y0, Y0, Y2
	VORPD  Y2, Y13, Y13
	VCMPPD $3, Y1, Y1, Y2
	VORPD  Y2, Y13, Y13
	VMAXPD Y0, Y15, Y15
	VMAXPD Y1, Y15, Y15

	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $8, BX
	JGT  block256

	VMOVMSKPD Y13, AX
	TESTQ     AX, AX
	JNE       nan256
	VEXTRACTF128 $1, Y15, X8
	VMAXPD    X8, X15, X15
	VPERMILPD $1, X15, X8
	VMAXSD    X8, X15, X15
	VMOVSD    X15, ret+40(FP)
	VZEROUPPER
	RET

nan256:
	MOVQ nan<>(SB), AX
	MOVQ AX, ret+40(FP)
	VZEROUPPER
	RET
