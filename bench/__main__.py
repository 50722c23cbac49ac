"""python3 -m bench: the benchmarks, one line each (bench/README.md has more)."""
import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent
LIBRARY = {"__init__", "__main__", "brokers", "clients", "results"}

for f in sorted(HERE.glob("*.py")):
    if f.stem not in LIBRARY:
        doc = ast.get_docstring(ast.parse(f.read_text())) or ""
        print(f"python3 -m bench.{f.stem:<20} {doc.split(chr(10))[0]}")
