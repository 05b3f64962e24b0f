"""Where the course is."""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
POINTS = ROOT / "tests" / "points.tsv"
