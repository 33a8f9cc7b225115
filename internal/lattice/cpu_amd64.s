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

// TERM256 adds one coordinate's term to acc for the four slots whose x =
// z − v is in Y4 (Y5 is scratch), with the coordinate's constants z, K, λ,
// ℓ, gl in Y6 − Y10, h = 0.5 − 2^−54 in Y11 and the absolute value mask in
// Y15. round(x) is trunc(x + copysign(h, x)), the copysign a blend on x's
// sign, which is math.Round(x) for every x (see the package comment); then
// come K − R, λ·|Q|, ℓ − λ·|Q|, − gl and acc + U, the Go loop's operations
// in its order: seven operations for the add units per four slots, the
// bottleneck of the pass.
#define TERM256(acc) \
	VBLENDVPD    Y4, negh4<>(SB), Y11, Y5 \
	VADDPD       Y5, Y4, Y5               \
	VROUNDPD     $0x0B, Y5, Y5            \
	VSUBPD       Y5, Y7, Y5               \
	VANDPD       Y15, Y5, Y5              \
	VMULPD       Y8, Y5, Y5               \
	VSUBPD       Y5, Y9, Y5               \
	VSUBPD       Y10, Y5, Y5              \
	VADDPD       Y5, acc, acc

// BCAST256 broadcasts the constants of the coordinate at R12 into Y6−Y10.
#define BCAST256 \
	VBROADCASTSD (R12), Y6    \
	VBROADCASTSD 8(R12), Y7   \
	VBROADCASTSD 16(R12), Y8  \
	VBROADCASTSD 24(R12), Y9  \
	VBROADCASTSD 32(R12), Y10

// MAX256 folds the four weights in acc into the running maxima Y13 and
// marks NaN lanes in Y14 (Y5 scratch).
#define MAX256(acc) \
	VCMPPD $3, acc, acc, Y5 \
	VORPD  Y5, Y14, Y14     \
	VMAXPD acc, Y13, Y13

DATA half<>+0(SB)/8, $0x3fdfffffffffffff // 0.5 − 2^−54
GLOBL half<>(SB), RODATA|NOPTR, $8
DATA negh4<>+0(SB)/8, $0xbfdfffffffffffff // −h, four lanes
DATA negh4<>+8(SB)/8, $0xbfdfffffffffffff
DATA negh4<>+16(SB)/8, $0xbfdfffffffffffff
DATA negh4<>+24(SB)/8, $0xbfdfffffffffffff
GLOBL negh4<>(SB), RODATA|NOPTR, $32

// func weights256(logw, t, p *float64, n, d int) float64
// Requires n ≥ 1, d ≥ 1. Returns the largest weight, NaN if any is NaN.
// Blocks of 16 slots (four independent sums per coordinate), then single
// vectors of four, then the last n mod 4 slots loaded under a lane mask
// and stored lane by lane (masked stores are slow on some processors).
TEXT ·weights256(SB), NOSPLIT, $0-48
	MOVQ         logw+0(FP), DI
	MOVQ         t+8(FP), SI
	MOVQ         p+16(FP), R8
	MOVQ         n+24(FP), BX
	MOVQ         d+32(FP), R9
	MOVQ         BX, R10
	SHLQ         $3, R10                // column stride in bytes
	VBROADCASTSD half<>(SB), Y11
	VBROADCASTSD neginf<>(SB), Y13     // running maxima
	VXORPD       Y14, Y14, Y14         // lanes that saw NaN
	VBROADCASTSD absmask<>(SB), Y15
	CMPQ         BX, $16
	JCS          vec256

block256:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	MOVQ   SI, R11
	MOVQ   R8, R12
	MOVQ   R9, R13

coord256:
	BCAST256
	VSUBPD (R11), Y6, Y4
	TERM256(Y0)
	VSUBPD 32(R11), Y6, Y4
	TERM256(Y1)
	VSUBPD 64(R11), Y6, Y4
	TERM256(Y2)
	VSUBPD 96(R11), Y6, Y4
	TERM256(Y3)
	ADDQ   R10, R11
	ADDQ   $64, R12
	DECQ   R13
	JNZ    coord256

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	MAX256(Y0)
	MAX256(Y1)
	MAX256(Y2)
	MAX256(Y3)
	ADDQ    $128, DI
	ADDQ    $128, SI
	SUBQ    $16, BX
	CMPQ    BX, $16
	JCC     block256

vec256:
	CMPQ   BX, $4
	JCS    tail256
	VXORPD Y0, Y0, Y0
	MOVQ   SI, R11
	MOVQ   R8, R12
	MOVQ   R9, R13

coordvec256:
	BCAST256
	VSUBPD (R11), Y6, Y4
	TERM256(Y0)
	ADDQ   R10, R11
	ADDQ   $64, R12
	DECQ   R13
	JNZ    coordvec256

	VMOVUPD Y0, (DI)
	MAX256(Y0)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, BX
	JMP     vec256

tail256:
	TESTQ   BX, BX
	JZ      done256
	LEAQ    tailmask<>(SB), DX
	MOVQ    $4, AX
	SUBQ    BX, AX
	VMOVDQU (DX)(AX*8), Y1             // the first BX lanes
	VXORPD  Y0, Y0, Y0
	MOVQ    SI, R11
	MOVQ    R8, R12
	MOVQ    R9, R13

coordtail256:
	BCAST256
	VMASKMOVPD (R11), Y1, Y4
	VSUBPD     Y4, Y6, Y4
	TERM256(Y0)
	ADDQ       R10, R11
	ADDQ       $64, R12
	DECQ       R13
	JNZ        coordtail256

	VMOVSD       X0, (DI)
	CMPQ         BX, $2
	JCS          tailmax256
	VMOVHPD      X0, 8(DI)
	CMPQ         BX, $3
	JCS          tailmax256
	VEXTRACTF128 $1, Y0, X2
	VMOVSD       X2, 16(DI)

tailmax256:
	VBROADCASTSD neginf<>(SB), Y2      // lanes past n: −Inf
	VBLENDVPD    Y1, Y0, Y2, Y0
	MAX256(Y0)

done256:
	VMOVMSKPD    Y14, AX
	TESTQ        AX, AX
	JNE          nan256
	VEXTRACTF128 $1, Y13, X8
	VMAXPD       X8, X13, X13
	VPERMILPD    $1, X13, X8
	VMAXSD       X8, X13, X13
	VMOVSD       X13, ret+40(FP)
	VZEROUPPER
	RET

nan256:
	MOVQ nan<>(SB), AX
	MOVQ AX, ret+40(FP)
	VZEROUPPER
	RET
