"""Compile one fixture project with the real Inmanta compiler and print what compile --out json compares.

Usage: python record.py FIXTURE_DIR MODULES_DIR
FIXTURE_DIR holds main.cf (and libs/); MODULES_DIR holds the real std (and exec) modules. The project is
copied to a temporary directory first, so the compiler's caches never land in the fixture.
"""
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile

src = os.path.abspath(sys.argv[1])
modules = os.path.abspath(sys.argv[2])
tmp = tempfile.mkdtemp(prefix="inmanta-record-")
proj = os.path.join(tmp, "p")
shutil.copytree(src, proj, ignore=shutil.ignore_patterns("expected*.json"))
if not os.path.exists(os.path.join(proj, "project.yml")):
    with open(os.path.join(proj, "project.yml"), "w") as f:
        f.write(f"name: fixture\nmodulepath: [libs, {modules}]\ndownloadpath: libs\nrepo: https://example.invalid/\n")
os.chdir(proj)

import logging  # noqa: E402

logging.disable(logging.CRITICAL)
from inmanta import compiler, module  # noqa: E402
from inmanta.ast import CompilerException  # noqa: E402

out = io.StringIO()
error = None
try:
    with contextlib.redirect_stdout(out):
        module.Project.get(os.path.join(proj, "main.cf"))
        compiler.do_compile()
except CompilerException as e:
    loc = e.get_location()
    file = None
    if loc is not None and getattr(loc, "file", None):
        file = os.path.relpath(os.path.realpath(loc.file), os.path.realpath(proj))
    # The whole cause chain, for a person comparing by eye (the golden file keeps the outer error only).
    print(e.format_trace(indent="  "), file=sys.stderr)
    error = {
        "kind": type(e).__name__,
        "message": e.get_message().replace(proj + "/", ""),
        "file": file,
        "line": loc.lnr if loc is not None else None,
    }
printed = out.getvalue().split("\n")
if printed and printed[-1] == "":
    printed.pop()
print(json.dumps({"ok": error is None, "printed": printed, "error": error}, indent=2, ensure_ascii=False))
shutil.rmtree(tmp, ignore_errors=True)
