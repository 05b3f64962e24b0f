#!/usr/bin/env python3
"""tools/sass.py's per-line counts (the time model's COURSE_EMU_MODEL_SASS file) on nvdisasm -g
text written here: a kernel whose shuffle has ptxas's divergence fallback (a BRA.DIV to
out-of-line code that jumps back), which a converged warp never runs and the counts leave out;
anchors (FFMA, LDG, STG) and plain IMADs counted, an IMAD with a modifier not."""
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


def main():
    got = {line: counts for (_, line), counts in sass.line_counts(LISTING)["_Z1kPf"].items()}
    # line 6 without its fallback (0x80 to the unpredicated BRA at 0xd0, 6 instructions, an
    # FADD among them); the trap loop after it (line 8) is not a fallback: counted
    want = {5: [3, 1, 1], 6: [3, 1, 0], 7: [2, 1, 0], 8: [1, 0, 0]}
    ok = got == want
    print(f"{'ok  ' if ok else 'FAIL'} per-line counts [SASS, anchors, plain IMADs]: "
          f"{dict(sorted(got.items()))}, want {want}")
    lines = sass.lines_file({"_Z1kPf": sass.line_counts(LISTING)["_Z1kPf"]})
    ok_file = lines[0] == "_Z1kPf k.cu 5 3 1 1"
    print(f"{'ok  ' if ok_file else 'FAIL'} file line {lines[0]!r}, want '_Z1kPf k.cu 5 3 1 1'")
    return 0 if ok and ok_file else 1


if __name__ == "__main__":
    sys.exit(main())
