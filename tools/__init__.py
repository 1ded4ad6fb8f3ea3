"""The project's tooling, apart from the product: the benchmark (bench.py), the fuzzer of the
notes app (fuzz_notes.py), the PostgreSQL server that the benchmark and the tests start
(postgres.py), and the page's sources, page/, written into flask_api.py and checked
(page.py). Run the scripts from the repository root: ``python tools/bench.py --quick``."""
