//go:build amd64 && !purego

// The wide string loops of string_wide_amd64.go: a string body 64 bytes
// per step, with AVX2 (stringWide256) or AVX-512 (stringWide512). Both
// keep the same registers across blocks and share the scalar half of the
// general step (STEP):
//
//	SI  the block: &d[i]           BX  the end of d: &d[len(d)]
//	R8  1 if the block's first byte is escaped (by a backslash before it)
//	R9  the block's bytes that must be hex digits (a \uXXXX begun before)
//	R10 not zero if the block must take the general step: R8, R9, or the
//	    byte before the block is not ASCII
//	R11 not zero if the string holds an escape before the block
//
// Masks hold bit k for byte k of the block.

#include "textflag.h"

// Offsets of wideTables' vectors.
#define T_QUOTE 0
#define T_BACKSLASH 64
#define T_SPACE 128
#define T_U 192
#define T_LOW 256
#define T_HIGH 320
#define T_THIRD 384
#define T_FOURTH 448
#define T_B1HIGH 512
#define T_B1LOW 576
#define T_B2HIGH 640
#define T_ESCHIGH 704
#define T_ESCLOW 768

// Stack slots of the general step: the block's bytes that may not
// follow a backslash, and those that are not hex digits.
#define NOT_ESC 64(SP)
#define NOT_HEX 72(SP)

// STEP is the general step's scalar half. In: R13 backslashes, R14
// quotes, R15 faults of the block (invalid UTF-8, control characters),
// AX 'u's, NOT_ESC, NOT_HEX. It jumps to fail if the string is not valid
// up to its end, to found with R14 = the quotes not escaped (the first
// ends the string, in this block) if it is; else it goes on with the
// carries (R8, R9, R11) updated for the next block.
//
// escaped: in a run of backslashes, every other one escapes the next
// byte, starting with the first that is not escaped itself; the parity
// of the runs comes out of one subtraction (as in simdjson's escape
// scanner): with the odd bits set, a run begun on an even byte borrows
// through itself, one begun on an odd byte does not.
//
// hex: the four bytes after each escaped 'u' must be hex digits. One
// multiplication by 0x1e (bits 1 to 4) spreads each 'u' over them; the
// high word of the product is what passes the block's end. Two 'u's
// closer than five bytes (a body that is not valid) still flag the
// second one's backslash, so the fault is found.
#define STEP(fail, found) \
	MOVQ R8, R12; NOTQ R12; ANDQ R13, R12 /* potential = bs &^ escaped in */ \
	LEAQ (R12)(R12*1), CX                 \
	MOVQ $0xaaaaaaaaaaaaaaaa, DX          \
	ORQ  DX, CX; SUBQ R12, CX; XORQ DX, CX /* code = (potential<<1 | odd) - potential ^ odd */ \
	MOVQ CX, R12; ANDQ R13, R12; SHRQ $63, R12 /* escaped out */ \
	MOVQ R13, DX; ORQ R8, DX; XORQ DX, CX /* CX = escaped bytes */ \
	MOVQ R12, R8                          \
	ANDQ CX, AX                           /* escaped 'u's */ \
	MOVQ $0x1e, R12; MULQ R12             /* DX:AX = hex digits wanted */ \
	ORQ  R9, AX; MOVQ DX, R9              \
	ANDQ NOT_HEX, AX; ORQ AX, R15         \
	MOVQ NOT_ESC, AX; ANDQ CX, AX; ORQ AX, R15 /* R15 = all faults */ \
	NOTQ CX; ANDQ CX, R14                 /* R14 = quotes not escaped */ \
	LEAQ -1(R14), AX; XORQ R14, AX        /* AX = bits up to the first, or all */ \
	TESTQ AX, R15; JNZ fail               \
	ANDQ AX, R13; ORQ R13, R11            /* a backslash before the end begins an escape */ \
	TESTQ R14, R14; JNZ found

// RETURN_FOUND stores the index just past the first quote of R14, and
// whether the string holds escapes.
#define RETURN_FOUND \
	BSFQ R14, R14; LEAQ 1(SI)(R14*1), AX; SUBQ d_base+0(FP), AX \
	MOVQ AX, j+40(FP); TESTQ R11, R11; SETNE esc+48(FP)          \
	VZEROUPPER; RET

// RETURN_FAIL stores ^i: the caller's byte loop scans the string again.
#define RETURN_FAIL \
	MOVQ i+24(FP), AX; NOTQ AX; MOVQ AX, j+40(FP); MOVB $0, esc+48(FP) \
	VZEROUPPER; RET

// START loads the arguments (SI, BX, DI = t) and clears the carries.
#define START \
	MOVQ d_base+0(FP), SI; MOVQ d_len+8(FP), BX; ADDQ SI, BX \
	ADDQ i+24(FP), SI; MOVQ t+32(FP), DI                       \
	XORQ R8, R8; XORQ R9, R9; XORQ R10, R10; XORQ R11, R11

// NEXT sets CX to the bytes left from the block: it jumps to fail if
// there are none (the frame ends inside the string), to tail if there
// are fewer than 64.
#define NEXT(fail, tail) \
	MOVQ BX, CX; SUBQ SI, CX; JLE fail; CMPQ CX, $64; JB tail

// func stringWide512(d []byte, i int, t *wideTables) (j int, esc bool)
//
// Vectors kept in registers: Z1 the block before (prev), and
// Z16-Z28 the constants. Z0 is the block, zeros after the end of d.
TEXT ·stringWide512(SB), NOSPLIT, $80-49
	START
	VMOVDQU64 T_QUOTE(DI), Z16
	VMOVDQU64 T_BACKSLASH(DI), Z17
	VMOVDQU64 T_SPACE(DI), Z18
	VMOVDQU64 T_U(DI), Z19
	VMOVDQU64 T_LOW(DI), Z20
	VMOVDQU64 T_HIGH(DI), Z21
	VMOVDQU64 T_THIRD(DI), Z22
	VMOVDQU64 T_FOURTH(DI), Z23
	VMOVDQU64 T_B1HIGH(DI), Z24
	VMOVDQU64 T_B1LOW(DI), Z25
	VMOVDQU64 T_B2HIGH(DI), Z26
	VMOVDQU64 T_ESCHIGH(DI), Z27
	VMOVDQU64 T_ESCLOW(DI), Z28
	VPXORQ Z1, Z1, Z1

loop512:
	NEXT(fail512, tail512)
	VMOVDQU8 (SI), Z0

loaded512:
	// The fast path: no quote, backslash, nor byte below ' ' compared
	// as signed (a control character or not ASCII).
	VPCMPEQB Z16, Z0, K1
	VPCMPEQB Z17, Z0, K2
	VPCMPGTB Z0, Z18, K3
	KORQ     K1, K2, K4
	KORQ     K3, K4, K4
	TESTQ    R10, R10
	JNZ      general512
	KORTESTQ K4, K4
	JNZ      general512
	VMOVDQA64 Z0, Z1
	ADDQ     $64, SI
	JMP      loop512

tail512:
	// CX < 64 bytes left: a masked load reads nothing past them.
	MOVQ  $1, AX
	SHLQ  CX, AX
	DECQ  AX
	KMOVQ AX, K5
	VMOVDQU8.Z (SI), K5, Z0
	JMP   loaded512

general512:
	// UTF-8: the bytes one, two and three before each byte of the block.
	// Z2 is the block shifted by one 16-byte group, the last of prev
	// coming in; the byte shifts within groups take from it.
	VALIGNQ  $6, Z1, Z0, Z2
	VPALIGNR $15, Z2, Z0, Z3
	VPALIGNR $14, Z2, Z0, Z4
	VPALIGNR $13, Z2, Z0, Z5
	VPSRLW   $4, Z3, Z6
	VPANDD   Z20, Z6, Z6   // high nibbles of the bytes before
	VPSRLW   $4, Z0, Z7
	VPANDD   Z20, Z7, Z7   // high nibbles of the block's bytes
	VPERMB   Z24, Z6, Z8   // (a byte permute reads the index's low 6 bits:
	VPERMB   Z25, Z3, Z9   // each table repeats every 16 bytes, so a byte
	VPANDD   Z9, Z8, Z8    // indexes its low nibble's entry)
	VPERMB   Z26, Z7, Z9
	VPANDD   Z9, Z8, Z8
	VPSUBUSB Z22, Z4, Z10
	VPSUBUSB Z23, Z5, Z11
	VPORD    Z11, Z10, Z10
	VPANDD   Z21, Z10, Z10
	VPXORD   Z10, Z8, Z8   // Z8: not zero where the UTF-8 is not valid

	// The classes of the block's bytes.
	VPERMB    Z27, Z7, Z9
	VPERMB    Z28, Z0, Z10
	VPANDD    Z10, Z9, Z9
	VPANDD    Z21, Z9, Z10 // classControl
	VPORD     Z10, Z8, Z8
	VPTESTMB  Z8, Z8, K5   // faults
	VPTESTNMB Z17, Z9, K6  // not classEscape
	VPTESTNMB Z16, Z9, K7  // not classHex
	VPCMPEQB  Z19, Z0, K4  // 'u'

	KMOVQ K2, R13
	KMOVQ K1, R14
	KMOVQ K5, R15
	KMOVQ K4, AX
	KMOVQ K6, NOT_ESC
	KMOVQ K7, NOT_HEX
	STEP(fail512, found512)
	// The string goes on, so the block holds no control character: its
	// last byte is not ASCII if it is below ' ' as a signed byte.
	KMOVQ K3, R10
	SHRQ  $63, R10
	ORQ   R8, R10
	ORQ   R9, R10
	VMOVDQA64 Z0, Z1
	ADDQ  $64, SI
	JMP   loop512

found512:
	RETURN_FOUND

fail512:
	RETURN_FAIL

// HALF256 computes the masks of the general step for the 32 bytes of X,
// given the 32 before them in P, as bytes (0xff for yes): Y2
// backslashes, Y3 quotes, Y4 no fault (valid UTF-8, not a control
// character), Y5 'u's, Y6 not classEscape, Y7 not classHex. It reads Y10
// and Y11 ('\\', '"'), Y13 (zero) and Y14 (0x0f), and uses Y2-Y9.
#define HALF256(X, P) \
	VPERM2I128 $0x21, X, P, Y2 /* P's last 16 bytes, X's first */ \
	VPALIGNR $15, Y2, X, Y3    /* the bytes one before */ \
	VPALIGNR $14, Y2, X, Y4    /* two before */ \
	VPALIGNR $13, Y2, X, Y5    /* three before */ \
	VPSRLW   $4, Y3, Y6; VPAND Y14, Y6, Y6 \
	VMOVDQU  T_B1HIGH(DI), Y7; VPSHUFB Y6, Y7, Y7 \
	VPAND    Y14, Y3, Y6; VMOVDQU T_B1LOW(DI), Y8; VPSHUFB Y6, Y8, Y8; VPAND Y8, Y7, Y7 \
	VPSRLW   $4, X, Y6; VPAND Y14, Y6, Y6 /* Y6: high nibbles of X */ \
	VMOVDQU  T_B2HIGH(DI), Y8; VPSHUFB Y6, Y8, Y8; VPAND Y8, Y7, Y7 \
	VPSUBUSB T_THIRD(DI), Y4, Y4; VPSUBUSB T_FOURTH(DI), Y5, Y5 \
	VPOR     Y5, Y4, Y4; VPAND T_HIGH(DI), Y4, Y4 \
	VPXOR    Y4, Y7, Y7        /* Y7: not zero where the UTF-8 is not valid */ \
	VMOVDQU  T_ESCHIGH(DI), Y8; VPSHUFB Y6, Y8, Y8 \
	VPAND    Y14, X, Y9; VMOVDQU T_ESCLOW(DI), Y5; VPSHUFB Y9, Y5, Y5 \
	VPAND    Y5, Y8, Y8        /* Y8: classes */ \
	VPAND    T_HIGH(DI), Y8, Y4; VPOR Y7, Y4, Y4; VPCMPEQB Y13, Y4, Y4 \
	VPAND    Y10, Y8, Y6; VPCMPEQB Y13, Y6, Y6 \
	VPAND    Y11, Y8, Y7; VPCMPEQB Y13, Y7, Y7 \
	VPCMPEQB T_U(DI), X, Y5    \
	VPCMPEQB Y10, X, Y2        \
	VPCMPEQB Y11, X, Y3

// func stringWide256(d []byte, i int, t *wideTables) (j int, esc bool)
//
// Vectors kept in registers: Y0 and Y1 the block, zeros after the end of
// d; Y15 the 32 bytes before it; Y10 '\\', Y11 '"', Y12 ' ', Y13 zero,
// Y14 0x0f. The other constants are read from t (DI). The block at the
// end of d is copied to 0(SP), zeros after it.
TEXT ·stringWide256(SB), NOSPLIT, $80-49
	START
	VMOVDQU T_BACKSLASH(DI), Y10
	VMOVDQU T_QUOTE(DI), Y11
	VMOVDQU T_SPACE(DI), Y12
	VPXOR   Y13, Y13, Y13
	VMOVDQU T_LOW(DI), Y14
	VPXOR   Y15, Y15, Y15

loop256:
	NEXT(fail256, tail256)
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

loaded256:
	// The fast path, as in stringWide512.
	VPCMPEQB Y11, Y0, Y2
	VPCMPEQB Y10, Y0, Y3
	VPOR     Y3, Y2, Y2
	VPCMPGTB Y0, Y12, Y3
	VPOR     Y3, Y2, Y2
	VPCMPEQB Y11, Y1, Y3
	VPOR     Y3, Y2, Y2
	VPCMPEQB Y10, Y1, Y3
	VPOR     Y3, Y2, Y2
	VPCMPGTB Y1, Y12, Y3
	VPOR     Y3, Y2, Y2
	TESTQ    R10, R10
	JNZ      general256
	VPTEST   Y2, Y2
	JNZ      general256
	VMOVDQU  Y1, Y15
	ADDQ     $64, SI
	JMP      loop256

tail256:
	// CX < 64 bytes left: copied to 0(SP), 8 at a time then 1, so that
	// nothing past them is read.
	VMOVDQU Y13, 0(SP)
	VMOVDQU Y13, 32(SP)
	XORQ    R12, R12

tailWords256:
	LEAQ 8(R12), AX
	CMPQ AX, CX
	JA   tailBytes256
	MOVQ (SI)(R12*1), AX
	MOVQ AX, 0(SP)(R12*1)
	ADDQ $8, R12
	JMP  tailWords256

tailBytes256:
	CMPQ R12, CX
	JAE  tailLoad256
	MOVB (SI)(R12*1), AX
	MOVB AX, 0(SP)(R12*1)
	INCQ R12
	JMP  tailBytes256

tailLoad256:
	VMOVDQU 0(SP), Y0
	VMOVDQU 32(SP), Y1
	JMP     loaded256

general256:
	// Each half's masks to R13, R14, R15, AX, NOT_ESC, NOT_HEX: the
	// first's in the low 32 bits, the second's ORed in above.
	HALF256(Y0, Y15)
	VPMOVMSKB Y2, R13
	VPMOVMSKB Y3, R14
	VPMOVMSKB Y4, R15
	VPMOVMSKB Y5, AX
	VPMOVMSKB Y6, R12
	MOVQ      R12, NOT_ESC
	VPMOVMSKB Y7, R12
	MOVQ      R12, NOT_HEX
	HALF256(Y1, Y0)
	VPMOVMSKB Y2, R12
	SHLQ      $32, R12
	ORQ       R12, R13
	VPMOVMSKB Y3, R12
	SHLQ      $32, R12
	ORQ       R12, R14
	VPMOVMSKB Y4, R12
	SHLQ      $32, R12
	ORQ       R12, R15
	NOTQ      R15 // the faults
	VPMOVMSKB Y5, R12
	SHLQ      $32, R12
	ORQ       R12, AX
	VPMOVMSKB Y6, R12
	SHLQ      $32, R12
	ORQ       R12, NOT_ESC
	VPMOVMSKB Y7, R12
	SHLQ      $32, R12
	ORQ       R12, NOT_HEX
	STEP(fail256, found256)
	// The string goes on: whether the block's last byte is not ASCII.
	VPMOVMSKB Y1, R10
	SHRL      $31, R10
	ORQ       R8, R10
	ORQ       R9, R10
	VMOVDQU   Y1, Y15
	ADDQ      $64, SI
	JMP       loop256

found256:
	RETURN_FOUND

fail256:
	RETURN_FAIL
