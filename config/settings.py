"""One typed, frozen settings object for Lyra.

Sources, strongest first (ARCHITECTURE §2, configuration contract):
1. ``LYRA_<SECTION>__<KEY>`` environment variables (``LYRA_HOME`` for ``home``);
2. the user YAML file named by ``LYRA_CONFIG``, merged key by key;
3. the packaged defaults in ``config/settings.yaml``.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

DEFAULTS_FILE = Path(__file__).with_name("settings.yaml")


def _env_list(value: Any) -> Any:
    """A list setting given as one string (an environment override): a JSON list, or
    comma-separated items (``LYRA_NETWORK__ALLOWED_HOSTS=127.0.0.0/8``)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if text.startswith("["):
        return json.loads(text)
    return [item.strip() for item in text.split(",") if item.strip()]


# A list of strings that an environment variable may also give as "a,b" (or JSON).
StrList = Annotated[list[str], NoDecode, BeforeValidator(_env_list)]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RaySettings(_Section):
    address: str | None = Field(
        None, description="Join this Ray cluster; RAY_ADDRESS wins; none starts a local Ray."
    )
    namespace: str = Field("lyra", description="Ray namespace of every named actor.")
    num_cpus: int | None = Field(None, description="CPUs of a locally started Ray (none: all).")
    include_dashboard: bool = Field(
        True, description="Start the Ray dashboard (bound to 127.0.0.1)."
    )
    dashboard_port: int = Field(
        8265,
        ge=0,
        le=65535,
        description="Preferred port of the local Ray dashboard; taken: a free one; 0: any.",
    )
    share_instance: bool = Field(
        True,
        description="Processes with the same LYRA_HOME share one local Ray (false: each "
        "process starts its own, which stops with it).",
    )
    idle_shutdown_seconds: float = Field(
        10.0,
        ge=0,
        description="The shared local Ray stops this long after its last client exits.",
    )
    log_to_driver: bool = Field(
        False, description="Forward actor logs to the driver (off: stdio carries MCP)."
    )


class StorageSettings(_Section):
    db_filename: str = Field("lyra.duckdb", description="DuckDB file name under LYRA_HOME.")
    memory_limit: str = Field("2GB", description="DuckDB memory_limit for the graph database.")
    threads: int = Field(2, gt=0, description="DuckDB worker threads.")


class QueryGraphSettings(_Section):
    default_limit: int = Field(
        50, gt=0, description="Rows returned when the client names no limit."
    )
    max_limit: int = Field(200, gt=0, description="Hard row cap of query_graph.")
    default_timeout_ms: int = Field(
        2000, gt=0, description="Query time limit when the client names none."
    )
    max_timeout_ms: int = Field(
        2000, gt=0, description="Hard time cap of query_graph, in milliseconds."
    )
    max_result_bytes: int = Field(
        1_000_000, gt=0, description="Byte cap of one query_graph result."
    )


class NetworkSettings(_Section):
    allow_private_targets: bool = Field(
        False, description="Allow fetching loopback/private addresses (tests only)."
    )
    allowed_hosts: StrList = Field(
        default_factory=list,
        description="If set, the only hosts contacted: names, *.wildcards or CIDR ranges.",
    )


class FetchSettings(_Section):
    default_qps: float = Field(
        0.2, gt=0, description="Requests per second to one registrable domain."
    )
    max_live_actors: int = Field(
        16, gt=0, description="Most DomainFetcher actors alive at once; idle ones retire."
    )
    idle_retire_seconds: float = Field(
        300.0, gt=0, description="A fetcher idle this long may retire."
    )
    standby_workers: int = Field(
        8,
        ge=0,
        description="Idle Ray workers kept ready on a local Ray so a new domain's fetcher "
        "starts without starting a process (about 55 MiB each); 0 turns this off.",
    )
    max_bytes: int = Field(20 * 1024 * 1024, gt=0, description="Body size cap of one response.")
    max_pdf_bytes: int = Field(
        50 * 1024 * 1024, gt=0, description="Body size cap of one PDF response."
    )
    timeout_seconds: float = Field(30.0, gt=0, description="Total time limit of one request.")
    connect_timeout_seconds: float = Field(
        10.0, gt=0, description="Connect time limit of one request."
    )
    max_redirects: int = Field(10, ge=0, description="Redirects followed, each hop re-checked.")
    impersonate: str = Field("chrome", description="curl_cffi browser impersonation target.")
    user_agent: str | None = Field(
        None, description="User-Agent override (none: the impersonated browser's)."
    )
    robots_cache_seconds: int = Field(
        86400, ge=0, description="robots.txt cache lifetime (RFC 9309: at most 24 h)."
    )
    robots_user_agent: str = Field(
        "LyraResearchBot", description="Product token matched against robots.txt groups."
    )
    circuit_failure_threshold: int = Field(
        2, gt=0, description="Consecutive 403/429/timeouts that open a domain's circuit."
    )
    circuit_cooldown_seconds: float = Field(
        1800.0,
        gt=0,
        description="How long an open circuit refuses requests before a half-open probe.",
    )
    network_retries: int = Field(
        2, ge=0, description="Retries of a connection error (never of a timeout or an HTTP status)."
    )
    backoff_base_seconds: float = Field(1.0, gt=0, description="First backoff delay of a retry.")
    backoff_max_seconds: float = Field(60.0, gt=0, description="Longest backoff delay.")
    max_retry_after_seconds: float = Field(
        3600.0, gt=0, description="Longest Retry-After honoured before the circuit takes over."
    )
    max_decompressed_ratio: float = Field(
        100.0, gt=0, description="Compressed bodies expanding more than this are cut (bombs)."
    )
    conditional_cache_entries: int = Field(
        2000, gt=0, description="ETag / Last-Modified validators kept per domain."
    )
    escalate_to_browser: bool = Field(
        True, description="Try the browser (headless, then headful) after a block or challenge."
    )
    escalate_to_headful: bool = Field(
        True, description="Try a headful browser (Xvfb when no display) before the auth queue."
    )


class BrowserSettings(_Section):
    executable_path: str = Field(
        "/usr/bin/chromium", description="Chromium binary Playwright launches."
    )
    cdp_url: str | None = Field(
        None, description="Connect to a running Chrome over CDP instead of launching."
    )
    headless: bool = Field(True, description="Headless by default; headful on demand.")
    navigation_timeout_seconds: float = Field(30.0, gt=0, description="Page load time limit.")
    profile_dir: str | None = Field(
        None, description="Research profile directory (none: LYRA_HOME/browser-profile)."
    )
    block_resources: StrList = Field(
        default_factory=lambda: ["image", "media", "font"],
        description="Playwright resource types not loaded (ads and trackers are always blocked).",
    )
    screenshot: bool = Field(True, description="Save a screenshot of every browser fetch.")


class TorSettings(_Section):
    enabled: bool = Field(False, description="Use Tor to escalate; off: nothing starts it.")
    launch: bool = Field(
        True, description="Start a private tor process (else use a running one at the ports)."
    )
    executable: str = Field("tor", description="tor binary launched when launch is true.")
    socks_port: int = Field(0, description="SOCKS port on 127.0.0.1 (0: pick a free one).")
    control_port: int = Field(0, description="Control port on 127.0.0.1 (0: pick a free one).")
    control_password: str | None = Field(
        None, description="Controller password of a running tor (launched: cookie auth)."
    )
    disable_network: bool = Field(
        True, description="Write DisableNetwork 1 in the launched torrc (set false to use Tor)."
    )
    sticky_seconds: float = Field(900.0, gt=0, description="One circuit per domain for this long.")
    max_usage_ratio: float = Field(
        0.2, description="Most share of a domain's requests that may go over Tor."
    )
    bootstrap_timeout_seconds: float = Field(60.0, gt=0, description="Wait for the launched tor.")


class AuthSettings(_Section):
    warning_pending: int = Field(3, description="get_status warns at this many pending items.")
    critical_pending: int = Field(5, description="get_status is critical at this many.")
    critical_high_priority: int = Field(
        2, description="get_status is critical at this many high-priority items."
    )
    notify_command: str = Field(
        "notify-send", description="Desktop notifier (skipped when it is not installed)."
    )


class InferenceSettings(_Section):
    num_gpus: Literal["auto"] | int = Field(
        "auto", description="GPUs of the inference actor; auto: 1 if one is present."
    )
    embedding_model: str = Field(
        "auto",
        description="Embedder: auto (the pulled one when installed, else the packaged "
        "all-MiniLM-L6-v2; the old default all-MiniLM-L6-v2 reads the same), packaged (the "
        "packaged one even with another pulled), or a pulled model's id (BAAI/bge-m3).",
    )
    embedding_batch_size: int = Field(32, gt=0, description="Texts per embedding batch.")
    max_sequence_length: int = Field(
        256, gt=0, description="Tokens per text given to the embedder / NLI model."
    )
    nli_model_path: str | None = Field(
        None,
        description=(
            "Directory of a cross-encoder NLI model, or 'packaged' for Lyra's MiniLM stance "
            "model; none: the model `lyra models pull nli` installed, else the packaged "
            "stance model (the lexical heuristic only when that fails to load, flagged)."
        ),
    )
    nli_batch_size: int = Field(16, gt=0, description="Pairs per NLI batch.")


class HttpSettings(_Section):
    host: str = Field("127.0.0.1", description="Address `lyra serve --http` binds.")
    allow_non_loopback: bool = Field(
        False,
        description="Let `http.host` (or --host) be an address other than loopback; every "
        "request still needs the bearer token in LYRA_HOME/run/http_token.",
    )


class LLMSettings(_Section):
    enabled: bool = Field(True, description="Use Ollama for claim extraction when it answers.")
    ollama_host: str = Field("http://127.0.0.1:11434", description="Ollama server (loopback only).")
    model: str = Field("qwen2.5:3b", description="Ollama model name.")
    timeout_seconds: float = Field(60.0, gt=0, description="Time limit of one LLM call.")


class EngineSettings(_Section):
    model_config = ConfigDict(frozen=True, extra="allow")
    enabled: bool = Field(False, description="Query this engine.")
    base_url: str | None = Field(None, description="Engine endpoint (tests point it at loopback).")
    parser: str | None = Field(None, description="Parser name in lyra.pipelines.")
    qps: float = Field(0.25, gt=0, description="Requests per second to this engine.")
    weight: float = Field(1.0, ge=0, description="Ranking weight of this engine's results.")
    paths: StrList = Field(default_factory=list, description="local engine only: corpus folders.")


class AcademicAPISettings(_Section):
    base_url: str = Field(..., description="API endpoint (tests point it at loopback).")
    api_key: str | None = Field(None, description="API key, if any.")
    mailto: str | None = Field(None, description="Contact for polite pools.")
    qps: float = Field(1.0, gt=0, description="Requests per second to this API.")


class AcademicSettings(_Section):
    semantic_scholar: AcademicAPISettings = AcademicAPISettings(
        base_url="https://api.semanticscholar.org", qps=1.0
    )
    openalex: AcademicAPISettings = AcademicAPISettings(
        base_url="https://api.openalex.org", qps=1.0
    )
    max_tracked_papers: int = Field(
        5,
        ge=0,
        description="Papers per search whose references and citations are tracked.",
    )


class TaskSettings(_Section):
    default_max_pages: int = Field(
        50, gt=0, description="Page budget of a task when create_task names none."
    )
    default_max_seconds: float = Field(
        1800.0, gt=0, description="Time budget of a task when create_task names none."
    )


class SearchSettings(_Section):
    default_wait_seconds: float = Field(
        50.0, ge=0, description="search waits this long before answering status running."
    )
    max_wait_seconds: float = Field(
        110.0, gt=0, description="Longest wait a client may ask (clients time out near 120 s)."
    )
    default_max_pages: int = Field(
        20, gt=0, description="Pages one search takes when the client names none."
    )
    bm25_weight: float = Field(
        0.3, ge=0, description="Weight of BM25 in hybrid ranking (seed 004)."
    )
    embedding_weight: float = Field(
        0.7, ge=0, description="Weight of embedding similarity in hybrid ranking."
    )
    kneedle_min: int = Field(3, ge=0, description="Kneedle cutoff keeps at least this many.")
    kneedle_max: int = Field(
        50, gt=0, description="Kneedle cutoff keeps at most this many of one facet's ranking."
    )
    max_passages_per_search: int = Field(
        160,
        gt=0,
        description=(
            "Passages one search draws claims from, across the question's facets (each "
            "facet's ranking cut at its knee, at most kneedle_max; decisions 0098, 0108)."
        ),
    )
    rerank_depth: int = Field(
        20,
        ge=0,
        description="Best passages per facet a pulled reranker re-orders (0: never rerank).",
    )
    claims_per_fragment: int = Field(
        3,
        gt=0,
        description=(
            "Claims taken from each fragment first; a fragment's further claims (up to 4 "
            "more) fill the budget of max_claims_per_search that these leave."
        ),
    )
    max_claims_per_search: int = Field(
        250, gt=0, description="Most new claims one search adds (near-duplicates merged first)."
    )
    stance_candidates: int = Field(
        8, gt=0, description="Fragments of other pages paired with each claim for NLI."
    )
    stance_min_similarity: float = Field(
        0.45,
        description=(
            "Cosine floor for a stance candidate fragment (below it, a fragment of another "
            "page is nearly always about something else: decision 0083)."
        ),
    )
    max_file_bytes: int = Field(
        50 * 1024 * 1024, gt=0, description="Local engine: bytes read from one file."
    )


def _deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def load_yaml_layers(user_file: str | os.PathLike[str] | None) -> dict[str, Any]:
    """Packaged defaults merged key by key with the user's YAML file."""
    data: dict[str, Any] = yaml.safe_load(DEFAULTS_FILE.read_text(encoding="utf-8")) or {}
    if user_file:
        path = Path(user_file).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"LYRA_CONFIG names {path}, which is not a file")
        user = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(user, dict):
            raise ValueError(f"LYRA_CONFIG file {path} must hold a mapping at top level")
        data = _deep_merge(data, user)
    return data


class _YamlSource(PydanticBaseSettingsSource):
    def __init__(self, settings_cls: type[BaseSettings], user_file: str | None) -> None:
        super().__init__(settings_cls)
        self._data = load_yaml_layers(user_file)

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return self._data


class CalibrationSettings(_Section):
    """Calibration of model probabilities from samples (issue 14; seed 003 §3.3.4)."""

    refit_every: int = Field(
        10, ge=1, le=100_000, description="A new version after this many new samples."
    )
    enable_auto_rollback: bool = Field(
        False,
        description="Roll back when an evaluation's Brier is 5 % or more worse than the "
        "previous one (otherwise only reported: degradation_detected).",
    )


class Settings(BaseSettings):
    """Every setting of Lyra; see config/settings.yaml for the documented defaults."""

    model_config = SettingsConfigDict(
        env_prefix="LYRA_", env_nested_delimiter="__", frozen=True, extra="forbid"
    )

    home: Path = Field(
        Path("~/.local/share/lyra"), description="LYRA_HOME: database, WARC, screenshots, logs."
    )
    ray: RaySettings = RaySettings()
    storage: StorageSettings = StorageSettings()
    query_graph: QueryGraphSettings = QueryGraphSettings()
    network: NetworkSettings = NetworkSettings()
    fetch: FetchSettings = FetchSettings()
    browser: BrowserSettings = BrowserSettings()
    tor: TorSettings = TorSettings()
    auth: AuthSettings = AuthSettings()
    inference: InferenceSettings = InferenceSettings()
    llm: LLMSettings = LLMSettings()
    http: HttpSettings = HttpSettings()
    engines: dict[str, EngineSettings] = Field(default_factory=dict)
    academic: AcademicSettings = AcademicSettings()
    task: TaskSettings = TaskSettings()
    search: SearchSettings = SearchSettings()
    calibration: CalibrationSettings = CalibrationSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        user_file = os.environ.get("LYRA_CONFIG") or None
        return (init_settings, env_settings, _YamlSource(settings_cls, user_file))

    @property
    def home_dir(self) -> Path:
        return Path(os.path.expanduser(str(self.home))).resolve()

    @property
    def db_path(self) -> Path:
        return self.home_dir / self.storage.db_filename

    def engine(self, name: str) -> EngineSettings:
        return self.engines.get(name, EngineSettings())


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (environment read once)."""
    return Settings()


def load_settings(**overrides: Any) -> Settings:
    """Fresh settings; keyword overrides win over every other source."""
    return Settings(**overrides)
