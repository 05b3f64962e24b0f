#!/usr/bin/env python3
"""tools/sass.py's per-line counts (the time model's COURSE_EMU_MODEL_SASS file) on nvdisasm -g
text written here: a kernel whose shuffle has ptxas's divergence fallback (a BRA.DIV to
out-of-line code that jumps back), which a converged warp never runs and the counts leave out;
anchors (FFMA, LDG, STG) and plain IMADs counted, an IMAD with a modifier not; and each global
load's waits (1/k, k the most loads in flight at the first use of one of its line's) on a kernel
with a bounds test's fast and slow paths, a second load issued before either is used, a copy
loop whose load waits alone, and a loop unrolled 4 times after its remainder; --arch written
90, 90a, sm_90 or sm_90a, and anything else refused; registers per kernel from cuobjdump
--dump-resource-usage text."""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
import sass  # noqa: E402

LISTING = """\
.text._Z1kPf:
        //## File "k.cu", line 5
        /*0000*/                   LDG.E R2, desc[UR4][R4.64] ;
        /*0010*/                   IMAD R3, R2, 0x3, RZ ;
        /*0020*/                   IMAD.MOV.U32 R6, RZ, RZ, R3 ;
        //## File "k.cu", line 6
        /*0030*/                   BRA.DIV UR6, `(.L_x_1) ;
        /*0040*/                   SHFL.DOWN PT, R7, R6, 0x1, 0x1f ;
.L_x_2:
        /*0050*/                   FADD R7, R7, R6 ;
        //## File "k.cu", line 7
        /*0060*/                   STG.E desc[UR4][R4.64], R7 ;
        /*0070*/                   EXIT ;
.L_x_1:
        //## File "k.cu", line 6
        /*0080*/                   WARPSYNC.COLLECTIVE R8, `(.L_x_3) ;
        /*0090*/                   SHFL.DOWN P0, R7, R6, R9, R11 ;
        /*00a0*/                   ENDCOLLECTIVE ;
.L_x_3:
        /*00b0*/               @P0 BRA `(.L_x_2) ;
        /*00c0*/                   FADD R7, R7, R6 ;
        /*00d0*/                   BRA `(.L_x_2) ;
.L_x_4:
        //## File "k.cu", line 8
        /*00e0*/                   BRA `(.L_x_4) ;
"""

ROUNDS = """\
.text._Z1gPf:
        //## File "g.cu", line 10
        /*0000*/              @!P1 BRA `(.L_x_5) ;
        /*0010*/                   LDG.E.128 R8, desc[UR4][R2.64] ;
        /*0020*/                   BRA `(.L_x_6) ;
.L_x_5:
        /*0030*/                   LDG.E.U16 R8, desc[UR4][R2.64] ;
        /*0040*/                   LDG.E.U16 R20, desc[UR4][R2.64+0x2] ;
        /*0050*/                   LOP3.LUT R8, R20, R8, RZ, 0xfc, !PT ;
.L_x_6:
        //## File "g.cu", line 11
        /*0060*/                   LDG.E.128 R12, desc[UR4][R4.64] ;
        //## File "g.cu", line 12
        /*0070*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0080*/                   STS.128 [R6+0x10], R14 ;
        /*0090*/                   STS.128 [R6], R8 ;
        //## File "g.cu", line 13
.L_x_7:
        /*00a0*/                   LDG.E R16, desc[UR4][R2.64] ;
        /*00b0*/                   STS [R6], R16 ;
        /*00c0*/               @P0 BRA `(.L_x_7) ;
        //## File "g.cu", line 14
        /*00d0*/                   LDG.E R16, desc[UR4][R2.64] ;
        /*00e0*/                   STS [R6], R16 ;
        /*00f0*/               @P1 BRA `(.L_x_8) ;
.L_x_9:
        /*0100*/                   LDG.E R16, desc[UR4][R2.64] ;
        /*0110*/                   LDG.E R17, desc[UR4][R2.64+0x4] ;
        /*0120*/                   LDG.E R18, desc[UR4][R2.64+0x8] ;
        /*0130*/                   LDG.E R19, desc[UR4][R2.64+0xc] ;
        /*0140*/                   STS.128 [R6], R16 ;
        /*0150*/               @P2 BRA `(.L_x_9) ;
.L_x_8:
        /*0160*/                   EXIT ;
"""


def check_rounds():
    """Line 10's fast load and line 11's are in flight together when the STS.128 of R12..R15
    (named by R14) waits: 1/2 each; the slow path's two loads wait together at the LOP3: 1/2
    each; the loop's load waits alone at every step. Line 14, after that loop (no label before
    it), is a loop ptxas unrolled 4 times and its remainder: 4 loads in flight together, 1 alone,
    and the line costs its loads over the most in flight, 5/4. [loads, waits] a line."""
    got = {line: c[3:] for (_, line), c in sass.line_counts(ROUNDS)["_Z1gPf"].items() if c[3]}
    want = {10: [3, 1.5], 11: [1, 0.5], 13: [1, 1.0], 14: [5, 1.25]}
    ok = got == want
    print(f"{'ok  ' if ok else 'FAIL'} loads and their waits a line: {got}, want {want}")
    return ok


def check_arch():
    """--arch's forms: the digits with or without sm_, an a or f suffix kept; sm90 and 9 refused."""
    got = [sass.arch_digits(a) for a in ("90", "sm_90", "sm_90a", "100f")]
    refused = []
    for bad in ("sm90", "9", "compute_90"):
        try:
            sass.arch_digits(bad)
        except argparse.ArgumentTypeError:
            refused.append(bad)
    ok = got == ["90", "90", "90a", "100f"] and refused == ["sm90", "9", "compute_90"]
    print(f"{'ok  ' if ok else 'FAIL'} --arch forms: {got}, refused {refused}")
    return ok


RESOURCES = """\
Resource usage:
 Common:
  GLOBAL:0
 Function _Z4fastPf:
  REG:168 STACK:0 SHARED:1024 LOCAL:0 CONSTANT[0]:1032 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function _Z4slowPKfPf:
  REG:32 STACK:16 SHARED:0 LOCAL:0 CONSTANT[0]:912 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def check_registers():
    """cuobjdump --dump-resource-usage's registers, each kernel's own."""
    got = sass.resource_registers(RESOURCES)
    ok = got == {"_Z4fastPf": 168, "_Z4slowPKfPf": 32}
    print(f"{'ok  ' if ok else 'FAIL'} registers from cuobjdump: {got}")
    return ok


def main():
    got = {line: counts for (_, line), counts in sass.line_counts(LISTING)["_Z1kPf"].items()}
    # line 6 without its fallback (0x80 to the unpredicated BRA at 0xd0, 6 instructions, an
    # FADD among them); the trap loop after it (line 8) is not a fallback: counted
    # FADD among them); the trap loop after it (line 8) is not a fallback: counted. Line 5's load
    # waits alone (the IMAD reads R2).
    want = {5: [3, 1, 1, 1, 1.0], 6: [3, 1, 0, 0, 0.0], 7: [2, 1, 0, 0, 0.0], 8: [1, 0, 0, 0, 0.0]}
    ok = got == want
    print(f"{'ok  ' if ok else 'FAIL'} per-line counts [SASS, anchors, plain IMADs, loads, "
          f"waits]: {dict(sorted(got.items()))}, want {want}")
    lines = sass.lines_file({"_Z1kPf": sass.line_counts(LISTING)["_Z1kPf"]})
    line = "_Z1kPf k.cu 5 3 1 1 1 1.0000"
    ok_file = lines[0] == line
    print(f"{'ok  ' if ok_file else 'FAIL'} file line {lines[0]!r}, want {line!r}")
    rounds, arch, regs = check_rounds(), check_arch(), check_registers()  # each prints its line
    return 0 if ok and ok_file and rounds and arch and regs else 1


if __name__ == "__main__":
    sys.exit(main())
