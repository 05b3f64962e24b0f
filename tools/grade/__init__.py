"""The grader, in one place: `python3 tools/grade VERB` (./course grade and check call it).

  tree.py       the grade tree: a copy of the course without its solutions, and the files of
                the submission that are graded (take.py)
  sandbox.py    where the student's code is built and run: as root, a private root that shows
                only what the build and the tests need; where namespaces are refused, nobody's
                permissions and limits. Its C side (tests/common/course_sandbox.c) runs each
                runner and student program as that user, limited, in a process group of its own
  report.py     results.json (Gradescope's whole format), grades.csv and the table, from CTest's
                JUnit (junit.py) and the points file (points.py); why each test failed
                (messages.py); how much of the code is the solution's (similarity.py); the
                modelled leaderboard (leaderboard.py)
"""
