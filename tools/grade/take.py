"""What of a submission is graded: only regular files whose names exist in the official
exercises/NN_topic/ folders; everything else is said and ignored. A lesson folder of the
numbering before the taught order (06_tensor_cores, ...) is graded as its folder now, said in one
line, unless the submission holds that folder too."""
import os
import pathlib
import shutil

# Lesson folders of the numbering before the taught order, and their folders now.
RENUMBERED = {"06_tensor_cores": "08_tensor_cores", "07_mixed_precision": "09_mixed_precision",
              "08_data_parallel": "13_data_parallel", "09_parallel_patterns": "06_parallel_patterns"}


def official_files(exercises):
    """The relative paths of every file of the official exercises (NN_topic/name)."""
    return {p.relative_to(exercises).as_posix() for p in exercises.glob("[0-9][0-9]_*/*")
            if p.is_file() and not p.is_symlink()}


def shared(exercises, inside):
    """lessons/NN_topic/src/name when @p inside (NN_topic/name) is one of the lesson's shared
    files in the tree of @p exercises, else None."""
    lesson, _, name = inside.rpartition("/")
    rel = f"lessons/{lesson}/src/{name}"
    return rel if lesson and (exercises.parent / rel).is_file() else None


def renumbered(inside, official, sub_files, say):
    """@p inside (NN_topic/name) moved to its lesson's folder under the taught order's number,
    when it names a folder of the numbering before it and the submission does not also hold the
    new path; else @p inside unchanged."""
    lesson, _, name = inside.partition("/")
    new = RENUMBERED.get(lesson)
    if new is None or f"{new}/{name}" not in official or f"{new}/{name}" in sub_files:
        return inside
    say(f"exercises/{inside} is graded as exercises/{new}/{name}: lesson {lesson[:2]} is "
        f"lesson {new[:2]} now (the lessons are numbered in the order they are taught); "
        f"move your files to exercises/{new}/")
    return f"{new}/{name}"


def take(submission, into, say=print):
    """Copy the graded files of folder @p submission into the grade tree's exercises/ (@p into),
    saying what is ignored and why."""
    sub = pathlib.Path(submission)
    into = pathlib.Path(into)
    official = official_files(into)
    nested = (sub / "exercises").is_dir() and not (sub / "exercises").is_symlink()
    top = sub / "exercises" if nested else sub
    sub_files = {p.relative_to(top).as_posix() for p in top.glob("*/*")}
    taken = 0
    for root, dirs, files in os.walk(sub):  # links to folders are listed, never entered
        for entry in sorted(dirs + files):
            path = pathlib.Path(root) / entry
            rel = path.relative_to(sub).as_posix()
            inside = rel
            if nested:
                inside = rel[len("exercises/"):] if rel.startswith("exercises/") else None
            if path.is_symlink():
                say(f"ignoring {rel}: a symbolic link")
            elif path.is_dir():
                continue
            elif inside is None:
                say(f"ignoring {rel}: outside exercises/")
            elif (inside := renumbered(inside, official, sub_files, say)) in official \
                    and path.is_file():
                shutil.copyfile(path, into / inside)
                taken += 1
            elif own := shared(into, inside):
                say(f"ignoring {rel}: the lesson's own {own} is used, the same for everyone "
                      "(only your exercise files are graded)")
            else:
                say(f"ignoring {rel}: not a file of the exercises (only those are graded)")
    say(f"took {taken} exercise files from {sub}")
    return 0
