"""The project's tooling, apart from the product: the benchmark (bench.py), the fuzzer of the
notes app (fuzz_notes.py), the PostgreSQL server that the benchmark and the tests start
(postgres.py), and the page's script as a file, with its checks (page_script.py). Run the
scripts from the repository root: ``python tools/bench.py --quick``."""
