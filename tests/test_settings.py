"""The configuration contract of ARCHITECTURE §2: defaults, LYRA_CONFIG, LYRA_* env."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from lyra.config.settings import Settings, load_settings
from lyra.mcp_bridge.cli_research import settings_with_corpus
from lyra.pipelines.discover.engines import load_engines


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for key in list(os.environ):
        if key.startswith("LYRA_"):
            monkeypatch.delenv(key)


def test_defaults_are_the_documented_ones() -> None:
    s = load_settings()
    assert s.fetch.default_qps == 0.2
    assert s.network.allow_private_targets is False
    assert s.network.allowed_hosts == []
    assert s.query_graph.max_limit == 200
    assert s.query_graph.max_timeout_ms == 2000
    assert s.engines["local"].enabled is True
    assert s.engines["local"].paths == []
    assert s.inference.num_gpus == "auto"
    assert s.home_dir == Path("~/.local/share/lyra").expanduser().resolve()


def test_user_file_overrides_only_the_keys_it_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = tmp_path / "lyra.yaml"
    cfg.write_text(
        "fetch:\n  default_qps: 0.05\n"
        "network:\n  allowed_hosts: ['127.0.0.0/8', '*.example.org']\n"
        "engines:\n  local:\n    paths: [/data/corpus]\n"
        "  duckduckgo:\n    enabled: true\n    base_url: http://127.0.0.1:8080/html/\n"
        "academic:\n  openalex:\n    base_url: http://127.0.0.1:9000\n"
    )
    monkeypatch.setenv("LYRA_CONFIG", str(cfg))
    s = load_settings()
    assert s.fetch.default_qps == 0.05
    assert s.fetch.max_redirects == 10
    assert s.network.allowed_hosts == ["127.0.0.0/8", "*.example.org"]
    assert s.engines["local"].enabled is True
    assert s.engines["local"].paths == ["/data/corpus"]
    assert s.engines["duckduckgo"].base_url == "http://127.0.0.1:8080/html/"
    assert s.engines["duckduckgo"].qps == 0.25
    assert s.academic.openalex.base_url == "http://127.0.0.1:9000"
    assert s.academic.semantic_scholar.base_url == "https://api.semanticscholar.org"


def test_environment_wins_over_the_user_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = tmp_path / "lyra.yaml"
    cfg.write_text("fetch:\n  default_qps: 0.05\n  max_redirects: 3\n")
    monkeypatch.setenv("LYRA_CONFIG", str(cfg))
    monkeypatch.setenv("LYRA_FETCH__DEFAULT_QPS", "1.5")
    monkeypatch.setenv("LYRA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("LYRA_NETWORK__ALLOW_PRIVATE_TARGETS", "true")
    s = load_settings()
    assert s.fetch.default_qps == 1.5
    assert s.fetch.max_redirects == 3
    assert s.home_dir == (tmp_path / "home").resolve()
    assert s.db_path == (tmp_path / "home" / "lyra.duckdb").resolve()
    assert s.network.allow_private_targets is True


@pytest.mark.parametrize(
    ("value", "hosts"),
    [
        ("127.0.0.0/8", ["127.0.0.0/8"]),
        ("127.0.0.0/8, localhost,", ["127.0.0.0/8", "localhost"]),
        ('["127.0.0.0/8", "*.example"]', ["127.0.0.0/8", "*.example"]),
    ],
    ids=["one", "commas", "json"],
)
def test_list_settings_come_from_the_environment_as_text(
    monkeypatch: pytest.MonkeyPatch, value: str, hosts: list[str]
) -> None:
    """`LYRA_NETWORK__ALLOWED_HOSTS=127.0.0.0/8` (ARCHITECTURE §2: env vars override
    single keys; tests set 127.0.0.0/8): a list setting takes comma-separated items or
    a JSON list; the local engine's corpus folders too, keeping its other keys."""
    monkeypatch.setenv("LYRA_NETWORK__ALLOWED_HOSTS", value)
    monkeypatch.setenv("LYRA_ENGINES__LOCAL__PATHS", "/corpus/a,/corpus/b")
    monkeypatch.setenv("LYRA_BROWSER__BLOCK_RESOURCES", "image")
    s = load_settings()
    assert s.network.allowed_hosts == hosts
    assert s.engines["local"].paths == ["/corpus/a", "/corpus/b"]
    assert s.engines["local"].enabled is True
    assert s.browser.block_resources == ["image"]


def test_a_malformed_json_list_in_the_environment_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LYRA_NETWORK__ALLOWED_HOSTS", '["127.0.0.0/8"')
    with pytest.raises(ValidationError, match="allowed_hosts"):
        load_settings()


@pytest.mark.parametrize(
    ("yaml_text", "field"),
    [
        ("fetch:\n  default_qps: fast\n", "fetch.default_qps"),
        ("fetch:\n  no_such_key: 1\n", "fetch.no_such_key"),
        ("nonsense_section: {}\n", "nonsense_section"),
        # Out of range: every query_graph call failed with INTERNAL_ERROR, and a zero
        # rate would make a site's fetcher wait for ever.
        ("query_graph:\n  max_limit: -5\n", "query_graph.max_limit"),
        ("fetch:\n  default_qps: 0\n", "fetch.default_qps"),
        ("inference:\n  nli_batch_size: 0\n", "inference.nli_batch_size"),
        ("search:\n  stance_candidates: -1\n", "search.stance_candidates"),
    ],
)
def test_bad_user_file_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, yaml_text: str, field: str
) -> None:
    cfg = tmp_path / "lyra.yaml"
    cfg.write_text(yaml_text)
    monkeypatch.setenv("LYRA_CONFIG", str(cfg))
    with pytest.raises(ValidationError) as err:
        load_settings()
    assert field in str(err.value)


def test_missing_user_file_names_the_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LYRA_CONFIG", str(tmp_path / "absent.yaml"))
    with pytest.raises(FileNotFoundError, match=r"absent\.yaml"):
        Settings()


def test_settings_are_frozen() -> None:
    s = load_settings()
    with pytest.raises(ValidationError):
        s.fetch.default_qps = 9  # type: ignore[misc]


def test_a_corpus_flag_keeps_the_engines_of_the_user_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lyra serve --corpus DIR` adds the folder to the local engine and changes
    nothing else: an engine the user's file names keeps engines.yaml's keys for
    what the file does not name (it used to reset them to the generic defaults)."""
    cfg = tmp_path / "lyra.yaml"
    cfg.write_text("engines:\n  duckduckgo:\n    base_url: http://127.0.0.1:9/html/\n")
    monkeypatch.setenv("LYRA_CONFIG", str(cfg))
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    without = load_engines(load_settings())
    with_corpus = load_engines(settings_with_corpus(str(corpus)))
    assert with_corpus["duckduckgo"] == without["duckduckgo"]
    assert with_corpus["duckduckgo"].base_url == "http://127.0.0.1:9/html/"
    assert with_corpus["local"].paths == (str(corpus.resolve()),)
    assert (with_corpus["local"].parser, with_corpus["local"].qps) == (
        without["local"].parser,
        without["local"].qps,
    )
