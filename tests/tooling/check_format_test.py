#!/usr/bin/env python3
"""Tests of scripts/check-format in throwaway git repositories (CTest `check_format`).

Each case builds a small history with the repository's .clang-format and the
script, then checks what the script reports: only changed lines count, the
base is chosen as documented, --fix formats what the check objects to.
Exit 77 (CTest's skip) without clang-format or git.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-format"

FORMATTED = "int f(int x) {\n  return x + 1;\n}\n"
# A statement clang-format would rewrite under any style of the project's.
UNFORMATTED_LINE = "int   g( int y ){return y;}\n"


class Repo:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.email", "test@example.com")
        self.git("config", "user.name", "check-format test")
        self.git("config", "commit.gpgsign", "false")
        (path / "scripts").mkdir()
        shutil.copy(SCRIPT, path / "scripts" / "check-format")
        shutil.copy(ROOT / ".clang-format", path / ".clang-format")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.path, check=True, capture_output=True, text=True).stdout.strip()

    def write(self, name: str, text: str) -> None:
        (self.path / name).write_text(text)

    def commit(self, message: str) -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    def check(self, *args: str) -> subprocess.CompletedProcess:
        env = {k: v for k, v in os.environ.items() if k != "APSP_FORMAT_BASE"}
        return subprocess.run([str(self.path / "scripts" / "check-format"), *args], cwd=self.path,
                              capture_output=True, text=True, env=env)


failures: list[str] = []


def expect(name: str, result: subprocess.CompletedProcess, status: int, *needles: str) -> None:
    output = result.stdout + result.stderr
    missing = [n for n in needles if n not in output]
    if result.returncode != status or missing:
        failures.append(f"{name}: exit {result.returncode} (expected {status}); missing {missing}; output:\n{output}")
    else:
        print(f"ok: {name}")


def main() -> int:
    if shutil.which("git") is None or (shutil.which("clang-format") is None and shutil.which("clang-format-14") is None):
        print("check_format_test: skipped: needs git and clang-format")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        repo = Repo(Path(tmp))
        # The first commit holds an unformatted line that nobody touches later.
        repo.write("a.cpp", UNFORMATTED_LINE + FORMATTED)
        repo.write("notes.txt", "not C++\n")
        first = repo.commit("first")
        expect("a root commit checks nothing and says so", repo.check(), 0, "nothing checked")

        repo.write("a.cpp", UNFORMATTED_LINE + FORMATTED + "int h() { return 2; }\n")
        repo.write("notes.txt", "not   C++ either\n")
        repo.commit("a formatted line added")
        expect("old unformatted lines are not checked", repo.check(), 0, "are formatted", "last commit")

        repo.write("a.cpp", UNFORMATTED_LINE + FORMATTED + "int h() { return 2; }\n" + "int   k( ){return 3;}\n")
        repo.commit("an unformatted line added")
        expect("a changed unformatted line fails with the diff", repo.check(), 1, "+++ b/a.cpp", "int k() { return 3; }",
               "--fix")
        expect("an explicit base", repo.check(first), 1, "+++ b/a.cpp", "as given")
        expect("an unknown base is a usage error", repo.check("no-such-revision"), 2, "unknown base")

        # A branch off main: its base is the merge-base, so an unformatted line
        # in an earlier commit of the branch is still found after a formatted one.
        repo.git("checkout", "-q", "-b", "feature")
        repo.write("b.hpp", "#pragma once\nint   m( ){return 4;}\n")
        repo.commit("feature: unformatted header")
        repo.write("a.cpp", UNFORMATTED_LINE + FORMATTED + "int h() { return 2; }\n" + "int   k( ){return 3;}\n" +
                   "int n() { return 5; }\n")
        repo.commit("feature: a formatted change")
        expect("a branch is checked from its merge-base with main", repo.check(), 1, "+++ b/b.hpp", "merge-base with main")

        # A moved file counts only the lines edited in it, not the old ones it carries.
        repo.git("checkout", "-q", "main")
        repo.git("mv", "a.cpp", "moved.cpp")
        repo.write("moved.cpp", (repo.path / "moved.cpp").read_text() + "int p() { return 6; }\n")
        repo.commit("a.cpp moved and one formatted line added")
        expect("a moved file counts only its edited lines", repo.check(), 0, "changed lines of 1 file(s)",
               "are formatted")
        repo.git("checkout", "-q", "feature")

        expect("--fix formats the changed lines", repo.check("--fix"), 0, "formatted the changed lines")
        expect("after --fix the check passes", repo.check(), 0, "are formatted")
        fixed = (repo.path / "a.cpp").read_text()
        if not fixed.startswith(UNFORMATTED_LINE) or "int   k( )" not in fixed:
            failures.append(f"--fix touched lines outside the branch's change:\n{fixed}")
        if "int m() { return 4; }" not in (repo.path / "b.hpp").read_text():
            failures.append("--fix left the branch's unformatted line")
    for failure in failures:
        print(f"FAILED: {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
