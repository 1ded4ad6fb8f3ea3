"""The project's tooling, apart from the product: the benchmark (bench.py), the fuzzer of the
notes app (fuzz_notes.py), and the PostgreSQL server that the benchmark and the tests start
(postgres.py). Run the scripts from the repository root: ``python tools/bench.py --quick``."""
