//go:build amd64 && !purego

#include "textflag.h"

// ZERO12 clears the twelve accumulators Y0 … Y11 of the AVX2 kernels.
#define ZERO12 \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	VXORPS Y11, Y11, Y11

// NEXT6ROWS(ashift, again, done) ends a block of 6 rows of kern32x6 or
// kern64x6: with rows left (R14 − 6 > 0) it moves the arguments a, cin
// and c on by 6 rows and jumps to again, else to done. Six rows of A are
// (3·sai) << ashift bytes: ashift $3 for float32, $4 for float64; Cin and
// C are float64. DX is scratch.
#define NEXT6ROWS(ashift, again, done) \
	SUBQ $6, R14; \
	JLE  done; \
	MOVQ sai+16(FP), DX; \
	LEAQ (DX)(DX*2), DX; \
	SHLQ ashift, DX; \
	ADDQ DX, a+8(FP); \
	MOVQ ldcin+56(FP), DX; \
	LEAQ (DX)(DX*2), DX; \
	SHLQ $4, DX; \
	ADDQ DX, cin+48(FP); \
	MOVQ ldc+72(FP), DX; \
	LEAQ (DX)(DX*2), DX; \
	SHLQ $4, DX; \
	ADDQ DX, c+64(FP); \
	JMP  again

// HALVES(a, b, d) sets d to the lower halves of a and b (in d's lower
// and upper half) plus their upper halves: each vector's first step of
// HSUM32, for two vectors at once (Y12 is scratch).
#define HALVES(a, b, d) \
	VPERM2F128 $0x20, b, a, d; \
	VPERM2F128 $0x31, b, a, Y12; \
	VADDPS     Y12, d, d

// DOTPAIR(X) stores one row's two adjacent tail sums, widened in X:
// plus their Cin pair at R13, at R8; then steps R8 by R9 and R13 by R10
// to the next row. The sum goes through X7, as a VEX-encoded write to X
// would clear the upper half of its Y register, which may hold the next
// row.
#define DOTPAIR(X) \
	VADDPD  (R13), X, X7; \
	VMOVUPD X7, (R8); \
	ADDQ   R9, R8; \
	ADDQ   R10, R13

// DOT4ROWS stores four rows of two adjacent tail columns, the sums of row
// r in Y2r (column 0) and Y2r+1 (column 1), as four DOTROWs would, bit for
// bit: each vector's sum is taken in HSUM32's order ((y0+y4) + (y2+y6))
// + ((y1+y5) + (y3+y7)), but for the eight vectors at once: the halves
// added in four pairs of vectors, the 4×4 blocks of the halves
// transposed, and two more vector additions leave the sums in the order
// r0c0, r0c1, r1c0, r1c1 | r2c0, r2c1, r3c0, r3c1. Each row's two sums,
// widened to float64, get their two Cin values in one 16-byte add and
// are stored in one 16-byte store. Y0 … Y12 are scratch.
#define DOT4ROWS \
	HALVES(Y0, Y4, Y8); \
	HALVES(Y1, Y5, Y9); \
	HALVES(Y2, Y6, Y10); \
	HALVES(Y3, Y7, Y11); \
	VUNPCKLPS    Y9, Y8, Y0; \
	VUNPCKHPS    Y9, Y8, Y1; \
	VUNPCKLPS    Y11, Y10, Y2; \
	VUNPCKHPS    Y11, Y10, Y3; \
	VSHUFPS      $0x44, Y2, Y0, Y4; \
	VSHUFPS      $0xEE, Y2, Y0, Y5; \
	VSHUFPS      $0x44, Y3, Y1, Y6; \
	VSHUFPS      $0xEE, Y3, Y1, Y7; \
	VADDPS       Y6, Y4, Y4; \
	VADDPS       Y7, Y5, Y5; \
	VADDPS       Y5, Y4, Y4; \
	VCVTPS2PD    X4, Y5; \
	VEXTRACTF128 $1, Y4, X4; \
	VCVTPS2PD    X4, Y6; \
	MOVQ         8(SP), R10; \
	DOTPAIR(X5); \
	VEXTRACTF128 $1, Y5, X5; \
	DOTPAIR(X5); \
	DOTPAIR(X6); \
	VEXTRACTF128 $1, Y6, X6; \
	DOTPAIR(X6); \
	LEAQ         (R9*4), R10; \
	ADDQ         R10, 16(SP); \
	MOVQ         8(SP), R10; \
	SHLQ         $2, R10; \
	ADDQ         R10, 24(SP)

// STORE6ARGS(reg) loads the arguments of the stores of kern32x6 and
// kern64x6: Cin into reg with its row stride in BX, C into R8 with its
// row stride in R9 (strides in bytes), and the block's row count,
// min(6, R14), into CX.
#define STORE6ARGS(reg) \
	MOVQ    cin+48(FP), reg; \
	MOVQ    ldcin+56(FP), BX; \
	MOVQ    c+64(FP), R8; \
	MOVQ    ldc+72(FP), R9; \
	MOVQ    $6, CX; \
	CMPQ    R14, CX; \
	CMOVQLT R14, CX; \
	SHLQ    $3, BX; \
	SHLQ    $3, R9

// func kern512(k int, a *float64, o1, o2, o3, sap int, b *float64, ldb int, cin *float64, ldcin int, c *float64, ldc, mr int, mask uint64)
TEXT ·kern512(SB), NOSPLIT, $0-112
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ o1+16(FP), R10
	MOVQ o2+24(FP), R11
	MOVQ o3+32(FP), R12
	MOVQ sap+40(FP), SI
	MOVQ b+48(FP), BX
	MOVQ ldb+56(FP), DI
	MOVQ c+80(FP), R8
	MOVQ ldc+88(FP), R9
	MOVQ mr+96(FP), R13
	MOVQ mask+104(FP), DX
	SHLQ $3, R10
	SHLQ $3, R11
	SHLQ $3, R12
	SHLQ $3, SI
	SHLQ $3, DI
	SHLQ $3, R9
	KMOVW DX, K1
	SHRQ $8, DX
	KMOVW DX, K2
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23

loop512:
	VMOVUPD.Z (BX), K1, Z0
	VMOVUPD.Z 64(BX), K2, Z1
	VBROADCASTSD (AX), Z2
	VBROADCASTSD (AX)(R10*1), Z3
	VBROADCASTSD (AX)(R11*1), Z4
	VBROADCASTSD (AX)(R12*1), Z5
	VFMADD231PD Z0, Z2, Z16
	VFMADD231PD Z1, Z2, Z17
	VFMADD231PD Z0, Z3, Z18
	VFMADD231PD Z1, Z3, Z19
	VFMADD231PD Z0, Z4, Z20
	VFMADD231PD Z1, Z4, Z21
	VFMADD231PD Z0, Z5, Z22
	VFMADD231PD Z1, Z5, Z23
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop512

	// C = Cin + the sums, row by row: Cin at AX with stride BX.
	MOVQ cin+64(FP), AX
	MOVQ ldcin+72(FP), BX
	SHLQ $3, BX

	// Row 0.
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD    Z0, Z16, Z16
	VADDPD    Z1, Z17, Z17
	VMOVUPD   Z16, K1, (R8)
	VMOVUPD   Z17, K2, 64(R8)
	CMPQ      R13, $1
	JLE       done512
	ADDQ      R9, R8
	ADDQ      BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD    Z0, Z18, Z18
	VADDPD    Z1, Z19, Z19
	VMOVUPD   Z18, K1, (R8)
	VMOVUPD   Z19, K2, 64(R8)
	CMPQ      R13, $2
	JLE       done512
	ADDQ      R9, R8
	ADDQ      BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD    Z0, Z20, Z20
	VADDPD    Z1, Z21, Z21
	VMOVUPD   Z20, K1, (R8)
	VMOVUPD   Z21, K2, 64(R8)
	CMPQ      R13, $3
	JLE       done512
	ADDQ      R9, R8
	ADDQ      BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD    Z0, Z22, Z22
	VADDPD    Z1, Z23, Z23
	VMOVUPD   Z22, K1, (R8)
	VMOVUPD   Z23, K2, 64(R8)

done512:
	VZEROUPPER
	RET

// func kern512x8(k int, a *float64, sai, sap int, b *float64, ldb int, cin *float64, ldcin int, c *float64, ldc int, mask uint64)
TEXT ·kern512x8(SB), NOSPLIT, $0-88
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ sai+16(FP), DX
	MOVQ sap+24(FP), SI
	MOVQ b+32(FP), BX
	MOVQ ldb+40(FP), DI
	MOVQ c+64(FP), R8
	MOVQ ldc+72(FP), R9
	MOVQ mask+80(FP), R13
	SHLQ $3, DX
	SHLQ $3, SI
	SHLQ $3, DI
	SHLQ $3, R9
	LEAQ (DX)(DX*2), R10
	LEAQ (DX)(DX*4), R11
	LEAQ (R10)(DX*4), R12
	KMOVW R13, K1
	SHRQ $8, R13
	KMOVW R13, K2
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	VPXORQ Z24, Z24, Z24
	VPXORQ Z25, Z25, Z25
	VPXORQ Z26, Z26, Z26
	VPXORQ Z27, Z27, Z27
	VPXORQ Z28, Z28, Z28
	VPXORQ Z29, Z29, Z29
	VPXORQ Z30, Z30, Z30
	VPXORQ Z31, Z31, Z31

	TESTQ R13, R13
	JNZ   loop8

loop8one:
	VMOVUPD.Z (BX), K1, Z0
	VBROADCASTSD (AX), Z2
	VBROADCASTSD (AX)(DX*1), Z3
	VBROADCASTSD (AX)(DX*2), Z4
	VBROADCASTSD (AX)(R10*1), Z5
	VBROADCASTSD (AX)(DX*4), Z6
	VBROADCASTSD (AX)(R11*1), Z7
	VBROADCASTSD (AX)(R10*2), Z8
	VBROADCASTSD (AX)(R12*1), Z9
	VFMADD231PD Z0, Z2, Z16
	VFMADD231PD Z0, Z3, Z18
	VFMADD231PD Z0, Z4, Z20
	VFMADD231PD Z0, Z5, Z22
	VFMADD231PD Z0, Z6, Z24
	VFMADD231PD Z0, Z7, Z26
	VFMADD231PD Z0, Z8, Z28
	VFMADD231PD Z0, Z9, Z30
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop8one
	JMP  store8

loop8:
	VMOVUPD.Z (BX), K1, Z0
	VMOVUPD.Z 64(BX), K2, Z1
	VBROADCASTSD (AX), Z2
	VBROADCASTSD (AX)(DX*1), Z3
	VBROADCASTSD (AX)(DX*2), Z4
	VBROADCASTSD (AX)(R10*1), Z5
	VBROADCASTSD (AX)(DX*4), Z6
	VBROADCASTSD (AX)(R11*1), Z7
	VBROADCASTSD (AX)(R10*2), Z8
	VBROADCASTSD (AX)(R12*1), Z9
	VFMADD231PD Z0, Z2, Z16
	VFMADD231PD Z1, Z2, Z17
	VFMADD231PD Z0, Z3, Z18
	VFMADD231PD Z1, Z3, Z19
	VFMADD231PD Z0, Z4, Z20
	VFMADD231PD Z1, Z4, Z21
	VFMADD231PD Z0, Z5, Z22
	VFMADD231PD Z1, Z5, Z23
	VFMADD231PD Z0, Z6, Z24
	VFMADD231PD Z1, Z6, Z25
	VFMADD231PD Z0, Z7, Z26
	VFMADD231PD Z1, Z7, Z27
	VFMADD231PD Z0, Z8, Z28
	VFMADD231PD Z1, Z8, Z29
	VFMADD231PD Z0, Z9, Z30
	VFMADD231PD Z1, Z9, Z31
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop8

store8:
	// C = Cin + the sums, row by row: Cin at AX with stride BX.
	MOVQ cin+48(FP), AX
	MOVQ ldcin+56(FP), BX
	SHLQ $3, BX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD Z0, Z16, Z16
	VADDPD Z1, Z17, Z17
	VMOVUPD Z16, K1, (R8)
	VMOVUPD Z17, K2, 64(R8)
	ADDQ R9, R8
	ADDQ BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD Z0, Z18, Z18
	VADDPD Z1, Z19, Z19
	VMOVUPD Z18, K1, (R8)
	VMOVUPD Z19, K2, 64(R8)
	ADDQ R9, R8
	ADDQ BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD Z0, Z20, Z20
	VADDPD Z1, Z21, Z21
	VMOVUPD Z20, K1, (R8)
	VMOVUPD Z21, K2, 64(R8)
	ADDQ R9, R8
	ADDQ BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD Z0, Z22, Z22
	VADDPD Z1, Z23, Z23
	VMOVUPD Z22, K1, (R8)
	VMOVUPD Z23, K2, 64(R8)
	ADDQ R9, R8
	ADDQ BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD Z0, Z24, Z24
	VADDPD Z1, Z25, Z25
	VMOVUPD Z24, K1, (R8)
	VMOVUPD Z25, K2, 64(R8)
	ADDQ R9, R8
	ADDQ BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD Z0, Z26, Z26
	VADDPD Z1, Z27, Z27
	VMOVUPD Z26, K1, (R8)
	VMOVUPD Z27, K2, 64(R8)
	ADDQ R9, R8
	ADDQ BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD Z0, Z28, Z28
	VADDPD Z1, Z29, Z29
	VMOVUPD Z28, K1, (R8)
	VMOVUPD Z29, K2, 64(R8)
	ADDQ R9, R8
	ADDQ BX, AX
	VMOVUPD.Z (AX), K1, Z0
	VMOVUPD.Z 64(AX), K2, Z1
	VADDPD Z0, Z30, Z30
	VADDPD Z1, Z31, Z31
	VMOVUPD Z30, K1, (R8)
	VMOVUPD Z31, K2, 64(R8)
	VZEROUPPER
	RET

// ROW32 converts the float32 sums of one row (columns 0–15 in ZL, 16–31
// in ZH) to float64, adds the row of Cin at AX and stores the row of C at
// R8 under the column masks K3–K6.
#define ROW32(ZL, YL, ZH, YH) \
	VCVTPS2PD     YL, Z0; \
	VEXTRACTF64X4 $1, ZL, Y1; \
	VCVTPS2PD     Y1, Z1; \
	VCVTPS2PD     YH, Z2; \
	VEXTRACTF64X4 $1, ZH, Y3; \
	VCVTPS2PD     Y3, Z3; \
	VMOVUPD.Z     (AX), K3, Z4; \
	VMOVUPD.Z     64(AX), K4, Z5; \
	VMOVUPD.Z     128(AX), K5, Z6; \
	VMOVUPD.Z     192(AX), K6, Z7; \
	VADDPD        Z4, Z0, Z0; \
	VADDPD        Z5, Z1, Z1; \
	VADDPD        Z6, Z2, Z2; \
	VADDPD        Z7, Z3, Z3; \
	VMOVUPD       Z0, K3, (R8); \
	VMOVUPD       Z1, K4, 64(R8); \
	VMOVUPD       Z2, K5, 128(R8); \
	VMOVUPD       Z3, K6, 192(R8); \
	ADDQ          R9, R8; \
	ADDQ          BX, AX; \
	DECQ          CX; \
	JZ            done32

// func kern32(k int, a *float32, sai, sap int, b *float32, ldb int, cin *float64, ldcin int, c *float64, ldc, mr int, mask uint64)
TEXT ·kern32(SB), NOSPLIT, $0-96
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ sai+16(FP), DX
	MOVQ sap+24(FP), SI
	MOVQ b+32(FP), BX
	MOVQ ldb+40(FP), DI
	MOVQ c+64(FP), R8
	MOVQ ldc+72(FP), R9
	MOVQ mask+88(FP), R13
	SHLQ $2, DX
	SHLQ $2, SI
	SHLQ $2, DI
	SHLQ $3, R9
	LEAQ (DX)(DX*2), R10
	LEAQ (DX)(DX*4), R11
	LEAQ (R10)(DX*4), R12
	KMOVW R13, K1
	KMOVW R13, K3
	SHRQ  $8, R13
	KMOVW R13, K4
	SHRQ  $8, R13
	KMOVW R13, K2
	KMOVW R13, K5
	SHRQ  $8, R13
	KMOVW R13, K6
	SHRQ  $8, R13
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	VPXORQ Z24, Z24, Z24
	VPXORQ Z25, Z25, Z25
	VPXORQ Z26, Z26, Z26
	VPXORQ Z27, Z27, Z27
	VPXORQ Z28, Z28, Z28
	VPXORQ Z29, Z29, Z29
	VPXORQ Z30, Z30, Z30
	VPXORQ Z31, Z31, Z31

	// More than 16 columns: two vectors of B per step.
	MOVQ  mask+88(FP), R13
	SHRQ  $16, R13
	TESTQ R13, R13
	JNZ   loop32

loop32one:
	VMOVUPS.Z    (BX), K1, Z0
	VBROADCASTSS (AX), Z2
	VBROADCASTSS (AX)(DX*1), Z3
	VBROADCASTSS (AX)(DX*2), Z4
	VBROADCASTSS (AX)(R10*1), Z5
	VBROADCASTSS (AX)(DX*4), Z6
	VBROADCASTSS (AX)(R11*1), Z7
	VBROADCASTSS (AX)(R10*2), Z8
	VBROADCASTSS (AX)(R12*1), Z9
	VFMADD231PS  Z0, Z2, Z16
	VFMADD231PS  Z0, Z3, Z18
	VFMADD231PS  Z0, Z4, Z20
	VFMADD231PS  Z0, Z5, Z22
	VFMADD231PS  Z0, Z6, Z24
	VFMADD231PS  Z0, Z7, Z26
	VFMADD231PS  Z0, Z8, Z28
	VFMADD231PS  Z0, Z9, Z30
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop32one
	JMP  store32

loop32:
	VMOVUPS.Z    (BX), K1, Z0
	VMOVUPS.Z    64(BX), K2, Z1
	VBROADCASTSS (AX), Z2
	VBROADCASTSS (AX)(DX*1), Z3
	VBROADCASTSS (AX)(DX*2), Z4
	VBROADCASTSS (AX)(R10*1), Z5
	VBROADCASTSS (AX)(DX*4), Z6
	VBROADCASTSS (AX)(R11*1), Z7
	VBROADCASTSS (AX)(R10*2), Z8
	VBROADCASTSS (AX)(R12*1), Z9
	VFMADD231PS  Z0, Z2, Z16
	VFMADD231PS  Z1, Z2, Z17
	VFMADD231PS  Z0, Z3, Z18
	VFMADD231PS  Z1, Z3, Z19
	VFMADD231PS  Z0, Z4, Z20
	VFMADD231PS  Z1, Z4, Z21
	VFMADD231PS  Z0, Z5, Z22
	VFMADD231PS  Z1, Z5, Z23
	VFMADD231PS  Z0, Z6, Z24
	VFMADD231PS  Z1, Z6, Z25
	VFMADD231PS  Z0, Z7, Z26
	VFMADD231PS  Z1, Z7, Z27
	VFMADD231PS  Z0, Z8, Z28
	VFMADD231PS  Z1, Z8, Z29
	VFMADD231PS  Z0, Z9, Z30
	VFMADD231PS  Z1, Z9, Z31
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop32

store32:
	// C = Cin + the sums for the first mr rows: Cin at AX with stride BX,
	// the row count in CX.
	MOVQ cin+48(FP), AX
	MOVQ ldcin+56(FP), BX
	SHLQ $3, BX
	MOVQ mr+80(FP), CX
	ROW32(Z16, Y16, Z17, Y17)
	ROW32(Z18, Y18, Z19, Y19)
	ROW32(Z20, Y20, Z21, Y21)
	ROW32(Z22, Y22, Z23, Y23)
	ROW32(Z24, Y24, Z25, Y25)
	ROW32(Z26, Y26, Z27, Y27)
	ROW32(Z28, Y28, Z29, Y29)
	ROW32(Z30, Y30, Z31, Y31)

done32:
	VZEROUPPER
	RET

// func cvt32(dst *float32, src *float64, n int)
TEXT ·cvt32(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $4, CX

cvtloop:
	VMOVUPD   (SI), Z0
	VMOVUPD   64(SI), Z1
	VCVTPD2PS Z0, Y0
	VCVTPD2PS Z1, Y1
	VMOVUPS   Y0, (DI)
	VMOVUPS   Y1, 32(DI)
	ADDQ      $128, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       cvtloop
	VZEROUPPER
	RET

// ACC32x6(B, r0, …, r5) adds the products of the column vector B and rows
// 0–5 of A (broadcast into Y14 from AX with the row offsets 0, DX, 2·DX,
// R10, 4·DX and R11) into the accumulators r0 … r5.
#define ACC32x6(B, r0, r1, r2, r3, r4, r5) \
	VBROADCASTSS (AX), Y14; \
	VFMADD231PS  B, Y14, r0; \
	VBROADCASTSS (AX)(DX*1), Y14; \
	VFMADD231PS  B, Y14, r1; \
	VBROADCASTSS (AX)(DX*2), Y14; \
	VFMADD231PS  B, Y14, r2; \
	VBROADCASTSS (AX)(R10*1), Y14; \
	VFMADD231PS  B, Y14, r3; \
	VBROADCASTSS (AX)(DX*4), Y14; \
	VFMADD231PS  B, Y14, r4; \
	VBROADCASTSS (AX)(R11*1), Y14; \
	VFMADD231PS  B, Y14, r5

// ACC32x6x2 is ACC32x6 for the two column vectors Y12 (columns 0–7) and
// Y13 (columns 8–15), one broadcast of each row of A serving both.
#define ACC32x6x2 \
	VBROADCASTSS (AX), Y14; \
	VFMADD231PS  Y12, Y14, Y0; \
	VFMADD231PS  Y13, Y14, Y1; \
	VBROADCASTSS (AX)(DX*1), Y14; \
	VFMADD231PS  Y12, Y14, Y2; \
	VFMADD231PS  Y13, Y14, Y3; \
	VBROADCASTSS (AX)(DX*2), Y14; \
	VFMADD231PS  Y12, Y14, Y4; \
	VFMADD231PS  Y13, Y14, Y5; \
	VBROADCASTSS (AX)(R10*1), Y14; \
	VFMADD231PS  Y12, Y14, Y6; \
	VFMADD231PS  Y13, Y14, Y7; \
	VBROADCASTSS (AX)(DX*4), Y14; \
	VFMADD231PS  Y12, Y14, Y8; \
	VFMADD231PS  Y13, Y14, Y9; \
	VBROADCASTSS (AX)(R11*1), Y14; \
	VFMADD231PS  Y12, Y14, Y10; \
	VFMADD231PS  Y13, Y14, Y11

// QUAD32F(X, off) converts the four float32 sums in X to float64, adds the
// four Cin values at off(R13) and stores them at off(R8) (Y12 is scratch).
#define QUAD32F(X, off) \
	VCVTPS2PD X, Y12; \
	VADDPD    off(R13), Y12, Y12; \
	VMOVUPD   Y12, off(R8)

// ROW32F(YA, XA, YB, XB) stores row r of a block of 16 columns: columns
// 0–7 from YA, 8–15 from YB, then steps R8 and R13 to the next row of C and
// Cin and goes on to the next block when the row count in CX runs out.
#define ROW32F(YA, XA, YB, XB) \
	QUAD32F(XA, 0); \
	VEXTRACTF128 $1, YA, XA; \
	QUAD32F(XA, 32); \
	QUAD32F(XB, 64); \
	VEXTRACTF128 $1, YB, XB; \
	QUAD32F(XB, 96); \
	ADDQ R9, R8; \
	ADDQ BX, R13; \
	DECQ CX; \
	JZ   next32x6

// func kern32x6(k int, a *float32, sai, sap int, b *float32, ldb int, cin *float64, ldcin int, c *float64, ldc, m, nc int, mask32 *int32)
//
// The m rows go in blocks of 6 (R14 counts the rows left); after each
// block the arguments a, cin and c move on by 6 rows.
TEXT ·kern32x6(SB), NOSPLIT, $384-104
	MOVQ m+80(FP), R14

block32x6:
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ sai+16(FP), DX
	MOVQ sap+24(FP), SI
	MOVQ b+32(FP), BX
	MOVQ ldb+40(FP), DI
	MOVQ mask32+96(FP), R12
	SHLQ $2, DX
	SHLQ $2, SI
	SHLQ $2, DI
	LEAQ (DX)(DX*2), R10
	LEAQ (DX)(DX*4), R11
	ZERO12

	// Up to 8 columns: one masked vector of B per step; 9 to 15: the
	// second masked; 16: both whole.
	MOVQ nc+88(FP), R13
	CMPQ R13, $8
	JLE  loop32x6one
	CMPQ R13, $16
	JGE  loop32x6full
	VMOVDQU 32(R12), Y15

loop32x6mask:
	VMOVUPS    (BX), Y12
	VMASKMOVPS 32(BX), Y15, Y13
	ACC32x6x2
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop32x6mask
	JMP  store32x6

loop32x6full:
	VMOVUPS (BX), Y12
	VMOVUPS 32(BX), Y13
	ACC32x6x2
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop32x6full
	JMP  store32x6

loop32x6one:
	VMOVDQU (R12), Y15

loop32x6onek:
	VMASKMOVPS (BX), Y15, Y12
	ACC32x6(Y12, Y0, Y2, Y4, Y6, Y8, Y10)
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop32x6onek

store32x6:
	// C = Cin + the sums for the first mr rows: Cin at R13 with stride
	// BX, C at R8 with stride R9, the row count in CX.
	STORE6ARGS(R13)
	MOVQ nc+88(FP), DX
	CMPQ DX, $16
	JLT  store32x6part
	ROW32F(Y0, X0, Y1, X1)
	ROW32F(Y2, X2, Y3, X3)
	ROW32F(Y4, X4, Y5, X5)
	ROW32F(Y6, X6, Y7, X7)
	ROW32F(Y8, X8, Y9, X9)
	ROW32F(Y10, X10, Y11, X11)
	JMP next32x6

store32x6part:
	// Fewer than 16 columns: the sums go to the frame, row r at 64r, and
	// each row is stored four columns at a time, then one at a time, so
	// that no masked store is needed (they are slow on some processors).
	VMOVUPS Y0, 0(SP)
	VMOVUPS Y1, 32(SP)
	VMOVUPS Y2, 64(SP)
	VMOVUPS Y3, 96(SP)
	VMOVUPS Y4, 128(SP)
	VMOVUPS Y5, 160(SP)
	VMOVUPS Y6, 192(SP)
	VMOVUPS Y7, 224(SP)
	VMOVUPS Y8, 256(SP)
	VMOVUPS Y9, 288(SP)
	VMOVUPS Y10, 320(SP)
	VMOVUPS Y11, 352(SP)
	LEAQ 0(SP), SI

row32x6part:
	XORQ AX, AX
	MOVQ DX, R10

quad32x6part:
	CMPQ R10, $4
	JLT  one32x6part
	VCVTPS2PD (SI)(AX*4), Y12
	VADDPD    (R13)(AX*8), Y12, Y12
	VMOVUPD   Y12, (R8)(AX*8)
	ADDQ $4, AX
	SUBQ $4, R10
	JMP  quad32x6part

one32x6part:
	TESTQ R10, R10
	JZ    next32x6part
	VCVTSS2SD (SI)(AX*4), X12, X12
	VADDSD    (R13)(AX*8), X12, X12
	VMOVSD    X12, (R8)(AX*8)
	INCQ AX
	DECQ R10
	JMP  one32x6part

next32x6part:
	ADDQ $64, SI
	ADDQ R9, R8
	ADDQ BX, R13
	DECQ CX
	JNZ  row32x6part

next32x6:
	NEXT6ROWS($3, block32x6, done32x6)

done32x6:
	VZEROUPPER
	RET

// func cvt32x8(dst *float32, src *float64, n int)
TEXT ·cvt32x8(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX

cvt8loop:
	VMOVUPD    (SI), Y0
	VMOVUPD    32(SI), Y1
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y1, X1
	VMOVUPS    X0, (DI)
	VMOVUPS    X1, 16(DI)
	ADDQ       $64, SI
	ADDQ       $32, DI
	DECQ       CX
	JNZ        cvt8loop
	VZEROUPPER
	RET

// ACC64x6x2 adds the products of the column vectors Y12 (columns 0–3) and
// Y13 (4–7) and rows 0–5 of A (broadcast into Y14 from AX with the row
// offsets 0, DX, R10, R11, R12 and R13) into the accumulators Y0 … Y11.
#define ACC64x6x2 \
	VBROADCASTSD (AX), Y14; \
	VFMADD231PD  Y12, Y14, Y0; \
	VFMADD231PD  Y13, Y14, Y1; \
	VBROADCASTSD (AX)(DX*1), Y14; \
	VFMADD231PD  Y12, Y14, Y2; \
	VFMADD231PD  Y13, Y14, Y3; \
	VBROADCASTSD (AX)(R10*1), Y14; \
	VFMADD231PD  Y12, Y14, Y4; \
	VFMADD231PD  Y13, Y14, Y5; \
	VBROADCASTSD (AX)(R11*1), Y14; \
	VFMADD231PD  Y12, Y14, Y6; \
	VFMADD231PD  Y13, Y14, Y7; \
	VBROADCASTSD (AX)(R12*1), Y14; \
	VFMADD231PD  Y12, Y14, Y8; \
	VFMADD231PD  Y13, Y14, Y9; \
	VBROADCASTSD (AX)(R13*1), Y14; \
	VFMADD231PD  Y12, Y14, Y10; \
	VFMADD231PD  Y13, Y14, Y11

// ROW64F(YA, YB) stores row r of a block of 8 columns: Cin at AX plus
// the sums of columns 0–3 in YA and 4–7 in YB, at R8; then steps AX and R8
// to the next row and goes on to the next block of rows when the row
// count in CX runs out.
#define ROW64F(YA, YB) \
	VADDPD  (AX), YA, YA; \
	VADDPD  32(AX), YB, YB; \
	VMOVUPD YA, (R8); \
	VMOVUPD YB, 32(R8); \
	ADDQ    R9, R8; \
	ADDQ    BX, AX; \
	DECQ    CX; \
	JZ      next64x6

// func kern64x6(k int, a *float64, sai, sap int, b *float64, ldb int, cin *float64, ldcin int, c *float64, ldc, m, nc int, mask *int64)
//
// The m rows go in blocks of 6 (R14 counts the rows left); in a last
// block of fewer, the offsets of the missing rows are 0, so that row 0 is
// read again instead of rows past A. After each block the arguments a,
// cin and c move on by 6 rows.
TEXT ·kern64x6(SB), NOSPLIT, $384-104
	MOVQ m+80(FP), R14

block64x6:
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ sai+16(FP), DX
	MOVQ sap+24(FP), SI
	MOVQ b+32(FP), BX
	MOVQ ldb+40(FP), DI
	MOVQ mask+96(FP), R8
	SHLQ $3, DX
	LEAQ (DX)(DX*1), R10
	LEAQ (DX)(DX*2), R11
	LEAQ (DX*4), R12
	LEAQ (DX)(DX*4), R13
	CMPQ R14, $5
	JG   offsets64x6
	XORQ R13, R13
	CMPQ R14, $4
	JG   offsets64x6
	XORQ R12, R12
	CMPQ R14, $3
	JG   offsets64x6
	XORQ R11, R11
	CMPQ R14, $2
	JG   offsets64x6
	XORQ R10, R10
	CMPQ R14, $1
	JG   offsets64x6
	XORQ DX, DX

offsets64x6:
	SHLQ $3, SI
	SHLQ $3, DI
	ZERO12

	// Up to 4 columns: one masked vector of B per step; 5 to 7: the
	// second masked; 8: both whole.
	MOVQ nc+88(FP), R9
	CMPQ R9, $4
	JLE  loop64x6one
	CMPQ R9, $8
	JGE  loop64x6full
	VMOVDQU 32(R8), Y15

loop64x6mask:
	VMOVUPD    (BX), Y12
	VMASKMOVPD 32(BX), Y15, Y13
	ACC64x6x2
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop64x6mask
	JMP  store64x6

loop64x6full:
	VMOVUPD (BX), Y12
	VMOVUPD 32(BX), Y13
	ACC64x6x2
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop64x6full
	JMP  store64x6

loop64x6one:
	VMOVDQU (R8), Y15

loop64x6onek:
	VMASKMOVPD   (BX), Y15, Y12
	VBROADCASTSD (AX), Y14
	VFMADD231PD  Y12, Y14, Y0
	VBROADCASTSD (AX)(DX*1), Y14
	VFMADD231PD  Y12, Y14, Y2
	VBROADCASTSD (AX)(R10*1), Y14
	VFMADD231PD  Y12, Y14, Y4
	VBROADCASTSD (AX)(R11*1), Y14
	VFMADD231PD  Y12, Y14, Y6
	VBROADCASTSD (AX)(R12*1), Y14
	VFMADD231PD  Y12, Y14, Y8
	VBROADCASTSD (AX)(R13*1), Y14
	VFMADD231PD  Y12, Y14, Y10
	ADDQ SI, AX
	ADDQ DI, BX
	DECQ CX
	JNZ  loop64x6onek

store64x6:
	// C = Cin + the sums for the first mr rows: Cin at AX with stride BX,
	// C at R8 with stride R9, the row count in CX.
	STORE6ARGS(AX)
	MOVQ nc+88(FP), DX
	CMPQ DX, $8
	JLT  store64x6part
	ROW64F(Y0, Y1)
	ROW64F(Y2, Y3)
	ROW64F(Y4, Y5)
	ROW64F(Y6, Y7)
	ROW64F(Y8, Y9)
	ROW64F(Y10, Y11)
	JMP next64x6

store64x6part:
	// Fewer than 8 columns: the sums go to the frame, row r at 64r, and
	// each row is stored four columns at a time, then one at a time, so
	// that no masked store is needed (they are slow on some processors).
	VMOVUPD Y0, 0(SP)
	VMOVUPD Y1, 32(SP)
	VMOVUPD Y2, 64(SP)
	VMOVUPD Y3, 96(SP)
	VMOVUPD Y4, 128(SP)
	VMOVUPD Y5, 160(SP)
	VMOVUPD Y6, 192(SP)
	VMOVUPD Y7, 224(SP)
	VMOVUPD Y8, 256(SP)
	VMOVUPD Y9, 288(SP)
	VMOVUPD Y10, 320(SP)
	VMOVUPD Y11, 352(SP)
	LEAQ 0(SP), SI

row64x6part:
	XORQ R10, R10
	MOVQ DX, R11

quad64x6part:
	CMPQ R11, $4
	JLT  one64x6part
	VMOVUPD (SI)(R10*8), Y12
	VADDPD  (AX)(R10*8), Y12, Y12
	VMOVUPD Y12, (R8)(R10*8)
	ADDQ $4, R10
	SUBQ $4, R11
	JMP  quad64x6part

one64x6part:
	TESTQ R11, R11
	JZ    next64x6part
	VMOVSD (SI)(R10*8), X12
	VADDSD (AX)(R10*8), X12, X12
	VMOVSD X12, (R8)(R10*8)
	INCQ R10
	DECQ R11
	JMP  one64x6part

next64x6part:
	ADDQ $64, SI
	ADDQ R9, R8
	ADDQ BX, AX
	DECQ CX
	JNZ  row64x6part

next64x6:
	NEXT6ROWS($4, block64x6, done64x6)

done64x6:
	VZEROUPPER
	RET

// func cvt32x8rows(dst *float32, ldd int, src *float64, lds int, rows, cols int)
TEXT ·cvt32x8rows(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	MOVQ rows+32(FP), DX
	MOVQ cols+40(FP), R10
	SHLQ $2, R8
	SHLQ $3, R9
	MOVQ R10, R11
	ANDQ $-8, R11 // the columns converted eight at a time

cvtrow:
	XORQ AX, AX

cvtrow8:
	CMPQ AX, R11
	JGE  cvtrow1
	VMOVUPD    (SI)(AX*8), Y0
	VMOVUPD    32(SI)(AX*8), Y1
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y1, X1
	VMOVUPS    X0, (DI)(AX*4)
	VMOVUPS    X1, 16(DI)(AX*4)
	ADDQ       $8, AX
	JMP        cvtrow8

cvtrow1:
	CMPQ AX, R10
	JGE  cvtnext
	VCVTSD2SS (SI)(AX*8), X2, X2
	VMOVSS    X2, (DI)(AX*4)
	INCQ      AX
	JMP       cvtrow1

cvtnext:
	ADDQ R8, DI
	ADDQ R9, SI
	DECQ DX
	JNZ  cvtrow
	VZEROUPPER
	RET

// func cvt32x8rowsMask(dst *float32, ldd int, src *float64, lds int, a *float64, lda int, rows, cols int)
TEXT ·cvt32x8rowsMask(SB), NOSPLIT, $0-64
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	MOVQ a+32(FP), BX
	MOVQ lda+40(FP), R12
	MOVQ rows+48(FP), DX
	MOVQ cols+56(FP), R10
	SHLQ $2, R8
	SHLQ $3, R9
	SHLQ $3, R12
	MOVQ R10, R11
	ANDQ $-8, R11
	VXORPD Y14, Y14, Y14

mcvtrow:
	XORQ AX, AX

mcvtrow8:
	CMPQ AX, R11
	JGE  mcvtrow1
	VMOVUPD    (BX)(AX*8), Y2
	VMOVUPD    32(BX)(AX*8), Y3
	VCMPPD     $0x1e, Y14, Y2, Y2 // a > 0 (ordered)
	VCMPPD     $0x1e, Y14, Y3, Y3
	VANDPD     (SI)(AX*8), Y2, Y0
	VANDPD     32(SI)(AX*8), Y3, Y1
	VCVTPD2PSY Y0, X0
	VCVTPD2PSY Y1, X1
	VMOVUPS    X0, (DI)(AX*4)
	VMOVUPS    X1, 16(DI)(AX*4)
	ADDQ       $8, AX
	JMP        mcvtrow8

mcvtrow1:
	CMPQ AX, R10
	JGE  mcvtnext
	VMOVSD    (BX)(AX*8), X3
	VMOVSD    (SI)(AX*8), X2
	VCMPSD    $0x1e, X14, X3, X3
	VANDPD    X3, X2, X2
	VCVTSD2SS X2, X2, X2
	VMOVSS    X2, (DI)(AX*4)
	INCQ      AX
	JMP       mcvtrow1

mcvtnext:
	ADDQ R8, DI
	ADDQ R9, SI
	ADDQ R12, BX
	DECQ DX
	JNZ  mcvtrow
	VZEROUPPER
	RET

// func dot32x2(kf, kt int, a *float32, sai int, bt0, bt1 *float32, cin0, cin1 *float64, ldcin int, c0, c1 *float64, ldc, rows int, mask *int32)
TEXT ·dot32x2(SB), NOSPLIT, $40-112

// HSUM32(Y, X) sums the eight float32 lanes of Y into the low lane of X,
// the lower half of Y (X14 is scratch): the two halves, then the pairs,
// then the last two.
#define HSUM32(Y, X) \
	VEXTRACTF128 $1, Y, X14; \
	VADDPS       X14, X, X; \
	VMOVHLPS     X, X14, X14; \
	VADDPS       X14, X, X; \
	VMOVSHDUP    X, X14; \
	VADDSS       X14, X, X

// DOTROW(YA, XA, YB, XB) stores one row of the two tail columns: the sums
// in YA (column 0) and YB (column 1), converted to float64, plus Cin, at
// R8 and at the column-1 pointer in 16(SP) (Cin at R13 and 24(SP)); both
// Cin values are read before either store, as Cin may be C. Then it steps
// the four pointers to the next row.
#define DOTROW(YA, XA, YB, XB) \
	HSUM32(YA, XA); \
	HSUM32(YB, XB); \
	VCVTSS2SD XA, XA, XA; \
	VCVTSS2SD XB, XB, XB; \
	MOVQ      24(SP), R10; \
	VADDSD    (R13), XA, XA; \
	VADDSD    (R10), XB, XB; \
	MOVQ      16(SP), R11; \
	VMOVSD    XA, (R8); \
	VMOVSD    XB, (R11); \
	ADDQ      R9, R8; \
	ADDQ      R9, 16(SP); \
	MOVQ      8(SP), R10; \
	ADDQ      R10, R13; \
	ADDQ      R10, 24(SP)

// DOT4(mem0, mem1) adds the products of the column chunks Y8 and Y9 with
// the rows' chunks loaded from mem0 … (AX, R10, R11, R12 at offset SI)
// into Y0 … Y7 (row r's two sums in Y2r and Y2r+1).
#define DOT4FMA \
	VFMADD231PS Y8, Y10, Y0; \
	VFMADD231PS Y9, Y10, Y1; \
	VFMADD231PS Y8, Y11, Y2; \
	VFMADD231PS Y9, Y11, Y3; \
	VFMADD231PS Y8, Y12, Y4; \
	VFMADD231PS Y9, Y12, Y5; \
	VFMADD231PS Y8, Y13, Y6; \
	VFMADD231PS Y9, Y13, Y7

	MOVQ a+16(FP), AX
	MOVQ sai+24(FP), DX
	SHLQ $2, DX
	MOVQ bt0+32(FP), BX
	MOVQ bt1+40(FP), DI
	MOVQ cin0+48(FP), R13
	MOVQ cin1+56(FP), R10
	MOVQ R10, 24(SP)
	MOVQ ldcin+64(FP), R10
	SHLQ $3, R10
	MOVQ R10, 8(SP)
	MOVQ c0+72(FP), R8
	MOVQ c1+80(FP), R10
	MOVQ R10, 16(SP)
	MOVQ ldc+88(FP), R9
	SHLQ $3, R9
	MOVQ rows+96(FP), R10
	MOVQ R10, 0(SP)
	MOVQ mask+104(FP), R10
	VMOVDQU (R10), Y15
	// 32(SP) is 1 when the two columns are adjacent in C (c1 = c0 + 1,
	// and then cin1 = cin0 + 1 or both point at the zero row): four
	// rows' sums are then reduced together (DOT4ROWS).
	MOVQ  c1+80(FP), R10
	SUBQ  c0+72(FP), R10
	CMPQ  R10, $8
	SETEQ R10
	MOVBQZX R10, R10
	MOVQ  R10, 32(SP)

dot4:
	CMPQ 0(SP), $4
	JLT  dot1
	LEAQ (AX)(DX*1), R10
	LEAQ (R10)(DX*1), R11
	LEAQ (R11)(DX*1), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ  SI, SI
	MOVQ  kf+0(FP), CX
	TESTQ CX, CX
	JZ    dot4t

dot4k:
	VMOVUPS (BX)(SI*1), Y8
	VMOVUPS (DI)(SI*1), Y9
	VMOVUPS (AX)(SI*1), Y10
	VMOVUPS (R10)(SI*1), Y11
	VMOVUPS (R11)(SI*1), Y12
	VMOVUPS (R12)(SI*1), Y13
	DOT4FMA
	ADDQ $32, SI
	DECQ CX
	JNZ  dot4k

dot4t:
	CMPQ kt+8(FP), $0
	JE   dot4s
	VMOVUPS    (BX)(SI*1), Y8
	VMOVUPS    (DI)(SI*1), Y9
	VMASKMOVPS (AX)(SI*1), Y15, Y10
	VMASKMOVPS (R10)(SI*1), Y15, Y11
	VMASKMOVPS (R11)(SI*1), Y15, Y12
	VMASKMOVPS (R12)(SI*1), Y15, Y13
	DOT4FMA

dot4s:
	CMPQ 32(SP), $0
	JE   dot4rows
	DOT4ROWS
	JMP  dot4next

dot4rows:
	DOTROW(Y0, X0, Y1, X1)
	DOTROW(Y2, X2, Y3, X3)
	DOTROW(Y4, X4, Y5, X5)
	DOTROW(Y6, X6, Y7, X7)

dot4next:
	LEAQ (AX)(DX*4), AX
	SUBQ $4, 0(SP)
	JMP  dot4

dot1:
	CMPQ 0(SP), $0
	JE   dotdone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ   SI, SI
	MOVQ   kf+0(FP), CX
	TESTQ  CX, CX
	JZ     dot1t

dot1k:
	VMOVUPS     (AX)(SI*1), Y10
	VFMADD231PS (BX)(SI*1), Y10, Y0
	VFMADD231PS (DI)(SI*1), Y10, Y1
	ADDQ        $32, SI
	DECQ        CX
	JNZ         dot1k

dot1t:
	CMPQ kt+8(FP), $0
	JE   dot1s
	VMASKMOVPS  (AX)(SI*1), Y15, Y10
	VFMADD231PS (BX)(SI*1), Y10, Y0
	VFMADD231PS (DI)(SI*1), Y10, Y1

dot1s:
	DOTROW(Y0, X0, Y1, X1)
	ADDQ DX, AX
	DECQ 0(SP)
	JMP  dot1

dotdone:
	VZEROUPPER
	RET

// func tdot32(k int, a *float32, sap int, b0, b1 *float32, ldb int, cin0, cin1 *float64, ldcin int, c0, c1 *float64, ldc, rows int, mask *int32)
TEXT ·tdot32(SB), NOSPLIT, $384-112


// TDOTV(off, ra, rb) adds the products of the eight rows of A at off(AX)
// with the broadcast column values Y12 and Y13 into ra and rb.
#define TDOTV(off, ra, rb) \
	VMOVUPS     off(AX), Y14; \
	VFMADD231PS Y12, Y14, ra; \
	VFMADD231PS Y13, Y14, rb

	MOVQ k+0(FP), CX
	MOVQ a+8(FP), AX
	MOVQ sap+16(FP), DX
	SHLQ $2, DX
	MOVQ b0+24(FP), BX
	MOVQ b1+32(FP), DI
	MOVQ ldb+40(FP), SI
	SHLQ $2, SI
	CMPQ rows+96(FP), $48
	JNE  tdot1
	ZERO12

tdot6k:
	VBROADCASTSS (BX), Y12
	VBROADCASTSS (DI), Y13
	TDOTV(0, Y0, Y1)
	TDOTV(32, Y2, Y3)
	TDOTV(64, Y4, Y5)
	TDOTV(96, Y6, Y7)
	TDOTV(128, Y8, Y9)
	TDOTV(160, Y10, Y11)
	ADDQ DX, AX
	ADDQ SI, BX
	ADDQ SI, DI
	DECQ CX
	JNZ  tdot6k
	VMOVUPS Y0, 0(SP)
	VMOVUPS Y2, 32(SP)
	VMOVUPS Y4, 64(SP)
	VMOVUPS Y6, 96(SP)
	VMOVUPS Y8, 128(SP)
	VMOVUPS Y10, 160(SP)
	VMOVUPS Y1, 192(SP)
	VMOVUPS Y3, 224(SP)
	VMOVUPS Y5, 256(SP)
	VMOVUPS Y7, 288(SP)
	VMOVUPS Y9, 320(SP)
	VMOVUPS Y11, 352(SP)
	MOVQ $48, CX
	JMP  tdotstore

tdot1:
	MOVQ mask+104(FP), R8
	VMOVDQU (R8), Y15
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1

tdot1k:
	VBROADCASTSS (BX), Y12
	VBROADCASTSS (DI), Y13
	VMASKMOVPS   (AX), Y15, Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	ADDQ DX, AX
	ADDQ SI, BX
	ADDQ SI, DI
	DECQ CX
	JNZ  tdot1k
	VMOVUPS Y0, 0(SP)
	VMOVUPS Y1, 192(SP)
	MOVQ rows+96(FP), CX

// tdotstore: store the CX rows of the two tail columns summed in the
// frame (column 0 at 0(SP), column 1 at 192(SP), one float32 per row),
// converted to float64 and added to Cin; both Cin values of a row are
// read before either store, as Cin may be C and the columns the same.
tdotstore:
	MOVQ      cin0+48(FP), R8
	MOVQ      cin1+56(FP), R9
	MOVQ      ldcin+64(FP), R10
	SHLQ      $3, R10
	MOVQ      c0+72(FP), R11
	MOVQ      c1+80(FP), R12
	MOVQ      ldc+88(FP), R13
	SHLQ      $3, R13
	XORQ      AX, AX

tstore:
	VMOVSS    0(SP)(AX*4), X0
	VMOVSS    192(SP)(AX*4), X1
	VCVTSS2SD X0, X0, X0
	VCVTSS2SD X1, X1, X1
	VADDSD    (R8), X0, X0
	VADDSD    (R9), X1, X1
	VMOVSD    X0, (R11)
	VMOVSD    X1, (R12)
	ADDQ      R10, R8
	ADDQ      R10, R9
	ADDQ      R13, R11
	ADDQ      R13, R12
	INCQ      AX
	CMPQ      AX, CX
	JLT       tstore
	VZEROUPPER
	RET
