"""python3 tools/grade VERB ...: see cli.py."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))  # tools/

from grade.cli import main  # noqa: E402

sys.exit(main())
