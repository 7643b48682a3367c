"""Generates Ember's op tables, Python bindings and docs from op_defs/.

Usage:
  python codegen/generate.py --op-defs op_defs --cpp-out DIR --py-out DIR
      [--docs-out FILE] [--stamp FILE]

Files are rewritten only when their content changes, so an unchanged op
definition does not trigger a C++ rebuild. --stamp FILE is touched on every
successful run (a reliable OUTPUT for a CMake custom command).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from codegen.gen_cpp import generate_cpp  # noqa: E402
from codegen.gen_python import generate_docs, generate_python  # noqa: E402
from codegen.model import OpDefError, load_op_defs  # noqa: E402


def write_if_changed(path: Path, content: str) -> bool:
    if path.exists() and path.read_text(encoding="utf-8") == content:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(content, encoding="utf-8")
    tmp.replace(path)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op-defs", required=True, help="directory of *.yaml op definitions")
    parser.add_argument("--cpp-out", help="directory for ops/*.gen.{h,cc}")
    parser.add_argument("--py-out", help="directory for the ember/_generated package")
    parser.add_argument("--docs-out", help="Markdown file for the op reference")
    parser.add_argument("--stamp", help="file touched after every successful run")
    args = parser.parse_args(argv)

    try:
        defs = load_op_defs(args.op_defs)
    except OpDefError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1

    outputs: dict[Path, str] = {}
    if args.cpp_out:
        outputs.update({Path(args.cpp_out) / p: c for p, c in generate_cpp(defs).items()})
    if args.py_out:
        outputs.update({Path(args.py_out) / p: c for p, c in generate_python(defs).items()})
    if args.docs_out:
        outputs[Path(args.docs_out)] = generate_docs(defs)
    changed = [p for p, c in outputs.items() if write_if_changed(p, c)]
    if args.stamp:
        Path(args.stamp).parent.mkdir(parents=True, exist_ok=True)
        Path(args.stamp).touch()
    print(f"codegen: {len(defs.ops)} ops, {len(changed)} of {len(outputs)} files updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
