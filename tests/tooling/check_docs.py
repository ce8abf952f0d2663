#!/usr/bin/env python3
"""Checks that the documentation is true to the tree (CTest `docs_check`).

    tests/tooling/check_docs.py [--root DIR]   every check; prints each problem, exit 1 if any
    tests/tooling/check_docs.py --self-test    the checks on a small broken tree: each must object

Checks:
  links      every Markdown link of README.md and docs/**/*.md leads to a file
             of the tree, and its #anchor to a heading of that file;
  paths      every path of the tree those documents name in their text
             (`src/...`, docs/results/...) exists (NAME placeholders aside);
  logs       every raw log under docs/results is cited by a document
             (scripts/result-logs);
  readme     README.md starts with its title, and its first 15 lines give the
             two commands (`scripts/demo`, `scripts/test`) that .ci/run runs;
  guide      docs/dev/adding-a-kernel.md names only what exists: its paths
             (backquoted, #included, run), the identifiers of its inline code
             and of its C++ blocks, the GpuProblem fields its code reads, its
             GoogleTest names and filters, build targets and command options;
             its registry lines have the fields of the real GPU table's.
             Names the guide introduces itself (its worked example) are listed
             in its `<!-- new in this guide: ... -->` comment.
Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import glob
import importlib.machinery
import importlib.util
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

GUIDE = "docs/dev/adding-a-kernel.md"
# Where a guide's path may be relative to: the root, the library's sources and
# headers, the CUDA backend (its kernels/... paths and #include "cuda/..." lines).
PATH_BASES = ("", "src/", "include/", "src/cuda/")
SOURCE_DIRS = ("include", "src", "tests", "bench", "tools", "python/src")
SOURCE_SUFFIXES = (".hpp", ".cpp", ".cu", ".cuh", ".h")
FILE_SUFFIXES = (".md", ".cu", ".cuh", ".cpp", ".hpp", ".h", ".py", ".txt", ".toml", ".cmake")
# Words of C++ and of the standard library that the sources need not define.
CXX_WORDS = set(
    """alignas auto bool break case char class const constexpr continue decltype default delete do double
    else enum explicit extern false float for if inline int long namespace new noexcept nullptr operator
    private protected public return short signed sizeof static static_assert struct switch template this
    throw true try typename union unsigned using value virtual void volatile while std int64_t int32_t
    int16_t uint32_t uint64_t size_t cstdint vector string __global__ __device__ __host__ __shared__
    __launch_bounds__ blockIdx threadIdx blockDim gridDim dim3 pragma unroll include min max""".split()
)


class Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, check: str, where: str, what: str) -> None:
        self.items.append(f"{check}: {where}: {what}")


def strip_code(text: str) -> str:
    """The text without fenced code blocks and inline code, which hold no links."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def heading_anchors(text: str) -> set[str]:
    """GitHub's anchors for the headings of a Markdown text (duplicates get -1, -2, ...)."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    body = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for match in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", body, flags=re.M):
        title = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", match.group(1))
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def check_links(root: Path, files: list[str], problems: Problems) -> None:
    for doc in documents(files):
        text = (root / doc).read_text(encoding="utf-8")
        for match in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", strip_code(text)):
            target = match.group(1)
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue  # http:, https:, mailto:
            path, _, anchor = target.partition("#")
            resolved = (root / doc).parent / path if path else root / doc
            if not resolved.exists():
                problems.add("links", doc, f"[...]({target}): no {path}")
                continue
            if anchor and resolved.suffix == ".md" and resolved.is_file():
                if anchor not in heading_anchors(resolved.read_text(encoding="utf-8")):
                    problems.add("links", doc, f"[...]({target}): no heading #{anchor} in {path or doc}")


def check_paths(root: Path, files: list[str], problems: Problems) -> None:
    """Paths of the tree that the documents name in their text (`src/...`, docs/results/...)."""
    # include/ alone also names other trees' headers (`include/metis.h` under .deps/).
    tops = sorted({f.split("/")[0] for f in files if "/" in f} - {"include"} | {"include/apsp"})
    pattern = re.compile(r"(?<![\w/.-])((?:%s)/[\w./*-]*)" % "|".join(map(re.escape, tops)))
    for doc in documents(files):
        text = (root / doc).read_text(encoding="utf-8")
        prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        prose = re.sub(r"<!--.*?-->", "", prose, flags=re.S)
        introduced = new_names(text)
        for line in prose.splitlines():
            # A table row about a folder (| `python/` | ... `src/module.cpp` ...) names paths inside it.
            row = re.match(r"\|\s*`([\w./-]+/)`\s*\|", line)
            bases = [root, (root / doc).parent] + ([root / row.group(1)] if row else [])
            for path in pattern.findall(line):
                path = path.rstrip(".")
                if "NAME" in path or is_new(path, introduced):
                    continue  # a placeholder, or a file the document tells the reader to create
                if not resolve_path(root, path) and not any((base / path).exists() for base in bases):
                    problems.add("paths", doc, f"{path}: no such path")


def load_result_logs():
    """scripts/result-logs as a module: the one home of which files are logs and documents."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "result-logs"
    loader = importlib.machinery.SourceFileLoader("result_logs", str(script))
    spec = importlib.util.spec_from_loader("result_logs", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


RESULT_LOGS = load_result_logs()
tracked_files = RESULT_LOGS.tracked_files
documents = RESULT_LOGS.documents


def check_logs(root: Path, files: list[str], problems: Problems) -> None:
    logs = RESULT_LOGS.result_logs(files)
    cited = RESULT_LOGS.citations(logs, documents(files), root)
    for log in logs:
        if log not in cited:
            problems.add("logs", log, "no document cites it (cite it, or scripts/result-logs --prune)")


def check_readme(root: Path, problems: Problems) -> None:
    lines = (root / "README.md").read_text(encoding="utf-8").splitlines()
    if not lines or not lines[0].startswith("# "):
        problems.add("readme", "README.md", "the first line is not the title")
    opening = "\n".join(lines[:15])
    for command in ("scripts/demo", "scripts/test"):
        if not re.search(rf"^{re.escape(command)}\b", opening, flags=re.M):
            problems.add("readme", "README.md", f"the first 15 lines do not give the command {command}")
    ci = root / ".ci" / "run"
    if ci.exists() and "scripts/test" not in ci.read_text(encoding="utf-8"):
        problems.add("readme", ".ci/run", "does not run the README's test command scripts/test")


class Sources:
    """The project's C++/CUDA sources, for 'is this name defined or used anywhere'."""

    def __init__(self, root: Path, files: list[str]) -> None:
        self.root = root
        self.files = files
        self.text = "\n".join(
            (root / f).read_text(encoding="utf-8", errors="replace")
            for f in files
            if f.endswith(SOURCE_SUFFIXES) and f.startswith(SOURCE_DIRS)
        )
        self.words = set(re.findall(r"[A-Za-z_]\w*", self.text))

    def has_word(self, word: str) -> bool:
        return word in self.words

    def struct_fields(self, name: str) -> set[str]:
        match = re.search(rf"\bstruct {name} \{{(.*?)^\}};", self.text, flags=re.S | re.M)
        return set(re.findall(r"(\w+)\s*(?:=[^;]*)?;", match.group(1))) if match else set()


def resolve_path(root: Path, path: str) -> bool:
    for base in PATH_BASES:
        candidate = base + path
        if any(ch in candidate for ch in "*?["):
            if glob.glob(str(root / candidate), recursive=True):
                return True
        elif (root / candidate).exists():
            return True
    return False


def new_names(text: str) -> set[str]:
    match = re.search(r"<!--\s*new in this guide:(.*?)-->", text, flags=re.S)
    return set(match.group(1).split()) if match else set()


def is_new(token: str, introduced: set[str]) -> bool:
    return any(name in token for name in introduced)


def looks_like_path(token: str) -> bool:
    if " " in token or token.startswith(("-", ".", "/")) or "::" in token:
        return False
    return "/" in token or token.endswith(FILE_SUFFIXES)


def gtest_names(sources: Sources) -> tuple[set[str], set[tuple[str, str]], set[tuple[str, str]]]:
    """Suites, (suite, test) pairs, and (instantiation prefix, suite) pairs of the tests."""
    pairs = set(re.findall(r"\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)", sources.text))
    prefixes = set(re.findall(r"\bINSTANTIATE_TEST_SUITE_P\(\s*(\w+)\s*,\s*(\w+)", sources.text))
    return {s for s, _ in pairs}, pairs, prefixes


def check_gtest_pattern(pattern: str, where: str, sources: Sources, problems: Problems) -> None:
    suites, pairs, prefixes = gtest_names(sources)
    for one in pattern.split(":"):
        one = one.lstrip("-")
        if not one or "." not in one:
            continue
        suite_part, _, test_part = one.partition(".")
        prefix, _, suite = suite_part.rpartition("/")
        test = test_part.split("/")[0]
        if suite not in suites:
            problems.add("guide", where, f"no GoogleTest suite {suite} (in {one})")
            continue
        if prefix and (prefix, suite) not in prefixes:
            problems.add("guide", where, f"no instantiation {prefix} of {suite} (in {one})")
        if test != "*" and "*" not in test and (suite, test) not in pairs:
            problems.add("guide", where, f"no test {suite}.{test}")


def command_sources(root: Path, program: str) -> list[Path] | None:
    """The sources defining a command's options, or None when the command is not the project's."""
    if program.startswith("scripts/"):
        return [root / program]
    name = Path(program).name
    if program.startswith("build") and "/bench/" in program and name.startswith("apsp_bench_"):
        return sorted((root / "bench").glob(name[len("apsp_bench_"):] + ".*"))
    if program.startswith("build") and "/tools/apsp/" in program:
        return sorted((root / "tools" / "apsp").glob("*.cpp"))
    return None


def check_shell_block(block: str, where: str, introduced: set[str], root: Path, files: list[str],
                      sources: Sources, problems: Problems) -> None:
    cmake_text = "\n".join((root / f).read_text(encoding="utf-8") for f in files if f.endswith("CMakeLists.txt"))
    for line in block.replace("\\\n", " ").splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            problems.add("guide", where, f"cannot read the command: {line}")
            continue
        program = words[0]
        if program.startswith("build"):
            target = Path(program).name
            defined = re.search(rf"add_executable\(\s*{re.escape(target)}\b", cmake_text) or (
                target.startswith("apsp_bench_") and command_sources(root, program))
            if not defined:
                problems.add("guide", where, f"no build target makes {program}")
        elif program.startswith("scripts/") and not (root / program).exists():
            problems.add("guide", where, f"no {program}")
        for i, word in enumerate(words):
            if word == "--target":
                for target in words[i + 1:]:
                    if target.startswith("-"):
                        break
                    if not re.search(rf"add_executable\(\s*{re.escape(target)}\b", cmake_text):
                        problems.add("guide", where, f"no build target {target}")
            if word.startswith("--gtest_filter="):
                check_gtest_pattern(word.split("=", 1)[1], where, sources, problems)
        defining = command_sources(root, program)
        if defining:
            text = "\n".join(p.read_text(encoding="utf-8") for p in defining)
            for word in words[1:]:
                flag = word.split("=", 1)[0]
                if flag.startswith("--") and not flag.startswith("--gtest") and f'"{flag}' not in text and \
                        f"{flag})" not in text and f"{flag}=" not in text:
                    problems.add("guide", where, f"{program} has no option {flag}")


def check_identifiers(tokens: list[str], where: str, introduced: set[str], sources: Sources,
                      problems: Problems) -> None:
    for token in tokens:
        if is_new(token, introduced) or "NAME" in token:
            continue
        for name in re.findall(r"[A-Za-z_]\w*", token):
            if name not in CXX_WORDS and not sources.has_word(name) and not is_new(name, introduced):
                problems.add("guide", where, f"`{token}`: {name} appears in no source")


def split_top_level(text: str) -> list[str]:
    """The comma-separated fields of `text` outside any (), {}, [] or <>."""
    fields, depth, current = [], 0, ""
    for ch in text:
        depth += ch in "({[<"
        depth -= ch in ")}]>"
        if ch == "," and depth == 0:
            fields.append(current.strip())
            current = ""
        else:
            current += ch
    return fields + [current.strip()] if current.strip() else fields


def registry_shape(entry: str) -> tuple[int, int] | None:
    """(traits, fields after them) of a registry entry `{{"name", ...}, ..., run}`, or None."""
    match = re.fullmatch(r'\{\{("[^"]*".*?)\},(.*)\}', " ".join(entry.split()), flags=re.S)
    if not match:
        return None
    return len(split_top_level(match.group(1))), len(split_top_level(match.group(2)))


def table_entries(source: str, function: str) -> list[str]:
    """The entries of the `static const std::vector<...> table = {...};` in `function`'s body."""
    at = source.find(function + " {")
    opening = source.find("= {", at) if at >= 0 else -1
    if opening < 0:
        return []
    source = re.sub(r"//[^\n]*", "", source[opening + 2:])
    depth = 0
    for end, ch in enumerate(source):
        depth += ch == "{"
        depth -= ch == "}"
        if depth == 0:
            return split_top_level(source[1:end])
    return []


def check_registry_lines(blocks: list[tuple[str, str]], root: Path, files: list[str], problems: Problems) -> None:
    """The guide's registry lines have the fields of the real GPU table's entries."""
    shapes = set()
    for f in files:
        if f.startswith("src/") and f.endswith(SOURCE_SUFFIXES):
            shapes |= {registry_shape(e) for e in table_entries((root / f).read_text(encoding="utf-8",
                                                                                     errors="replace"),
                                                                  "gpu_algorithm_table()")}
    shapes.discard(None)
    if not shapes:
        problems.add("guide", GUIDE, "no GPU registry table (gpu_algorithm_table) found in src/")
        return
    for _, block in blocks:
        for line in block.splitlines():
            shape = registry_shape(line.strip().rstrip(","))
            if shape is not None and shape not in shapes:
                problems.add("guide", GUIDE, f"registry line with {shape[0]} traits and {shape[1]} more fields; "
                             f"the table's entries have {sorted(shapes)}: {line.strip()}")


def check_guide(root: Path, files: list[str], problems: Problems) -> None:
    path = root / GUIDE
    if not path.exists():
        problems.add("guide", GUIDE, "missing")
        return
    text = path.read_text(encoding="utf-8")
    introduced = new_names(text)
    sources = Sources(root, files)
    fields = sources.struct_fields("GpuProblem")
    if not fields:
        problems.add("guide", GUIDE, "struct GpuProblem not found in the sources")

    blocks = re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.S | re.M)
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    prose = re.sub(r"<!--.*?-->", "", prose, flags=re.S)
    inline = re.findall(r"`([^`\n]+)`", prose)

    identifiers: list[str] = []
    for token in inline:
        if is_new(token, introduced):
            continue
        if looks_like_path(token):
            if not resolve_path(root, token):
                problems.add("guide", GUIDE, f"`{token}`: no such path")
        elif re.fullmatch(r"[A-Z][A-Za-z]+\.\w+", token):
            check_gtest_pattern(token, GUIDE, sources, problems)
        elif token.startswith("--"):
            continue  # options: checked where a command uses them
        elif re.fullmatch(r"[\w:.&() ]+", token) and not token.startswith("apsp "):
            identifiers.append(token)
    for token in identifiers:
        for field in re.findall(r"\bp\.(\w+)", token):
            if fields and field not in fields:
                problems.add("guide", GUIDE, f"`{token}`: GpuProblem has no field {field}")
    check_identifiers([re.sub(r"\bp\.\w+", "", t) for t in identifiers], GUIDE, introduced, sources, problems)

    check_registry_lines([b for b in blocks if b[0] in ("cpp", "c++", "cuda")], root, files, problems)
    for language, block in blocks:
        if language in ("cpp", "c++", "cuda"):
            for include in re.findall(r'#include\s+"([^"]+)"', block):
                if not is_new(include, introduced) and not resolve_path(root, include):
                    problems.add("guide", GUIDE, f'#include "{include}": no such file')
            code = re.sub(r"//[^\n]*|\"[^\"\n]*\"", "", re.sub(r"#include[^\n]*", "", block))
            for field in re.findall(r"\bproblem\.(\w+)", code):
                if fields and field not in fields:
                    problems.add("guide", GUIDE, f"problem.{field}: GpuProblem has no field {field}")
            called = re.findall(r"\b([A-Za-z_]\w*(?:::\w+)*)\s*(?:\(|<(?![<=]))", code)
            qualified = re.findall(r"\b\w+(?:::\w+)+\b", code)
            check_identifiers(sorted(set(called + qualified)), GUIDE, introduced, sources, problems)
        elif language in ("sh", "bash", "console"):
            check_shell_block(block, GUIDE, introduced, root, files, sources, problems)


def run_checks(root: Path) -> list[str]:
    files = tracked_files(root)
    problems = Problems()
    check_links(root, files, problems)
    check_paths(root, files, problems)
    check_logs(root, files, problems)
    check_readme(root, problems)
    check_guide(root, files, problems)
    return problems.items


def self_test(real_root: Path) -> int:
    """Each check on a copy of the tree with one fault planted: the check must report it."""
    guide = "docs/dev/adding-a-kernel.md"

    def append(text: str):
        return lambda old: old + text

    # name: (the check expected to object, the file, how the fault changes it)
    faults = {
        "link": ("links", guide, append("\nSee [gone](../no-such-file.md).\n")),
        "anchor": ("links", "README.md", append("\nSee [gone](#no-such-heading).\n")),
        "path": ("paths", "docs/perf.md", append("\nLogs in docs/results/no-such-run/.\n")),
        "readme": ("readme", "README.md", lambda old: old.replace("\nscripts/demo ", "\nscripts/show ", 1)),
        "log": ("logs", "docs/results/uncited-run/raw.log", append("a log no document cites\n")),
        "guide path": ("guide", guide, append("\nThe file `kernels/no_such_file.cuh`.\n")),
        "guide identifier": ("guide", guide, append("\nCall `apsp::no_such_function_xyz`.\n")),
        "guide test": ("guide", guide, append("\n`Registry.NoSuchTestXyz`\n")),
        "guide option": ("guide", guide,
                         append("\n```sh\nbuild/bench/apsp_bench_gpu_bench throughput --no-such-option 1\n```\n")),
        "guide registry line": ("guide", guide, lambda old: old.replace("}, 1, false, APSP_GPU_RUN(", "}, 1, APSP_GPU_RUN(", 1)),
        "guide field": ("guide", guide,
                        append("\n```cpp\nvoid f(GpuProblem& problem) { problem.no_such_field = 1; }\n```\n")),
    }
    files = tracked_files(real_root)
    baseline = set(run_checks(real_root))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        pristine = Path(tmp) / "pristine"
        for f in files:
            (pristine / f).parent.mkdir(parents=True, exist_ok=True)
            (pristine / f).write_bytes((real_root / f).read_bytes())
        for name, (check, relative, plant) in faults.items():
            root = Path(tmp) / name.replace(" ", "-")
            shutil.copytree(pristine, root)
            target = root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            old = target.read_text(encoding="utf-8") if target.exists() else ""
            changed = plant(old)
            if changed == old:
                print(f"self-test {name}: the fault could not be planted in {relative}")
                failed += 1
                continue
            target.write_text(changed, encoding="utf-8")
            found = [p for p in run_checks(root) if p not in baseline and p.startswith(check + ":")]
            print(f"self-test {name}: " + (f"reported ({found[0]})" if found else f"NOT REPORTED by {check}"))
            failed += not found
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2])
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.root)
    problems = run_checks(args.root)
    for p in problems:
        print(p)
    print(f"check_docs: {len(problems)} problem(s)" if problems else "check_docs: documentation matches the tree")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
