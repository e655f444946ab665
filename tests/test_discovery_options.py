"""search options of issue 4: academic_apis and dois are checked before a search starts."""

from __future__ import annotations

import pytest

from lyra.jobs.discovery import ids_from_options, validate_discovery_options
from lyra.pipelines.errors import LyraError


def test_dois_are_normalised_from_the_forms_clients_paste() -> None:
    options = validate_discovery_options(
        {
            "dois": [
                "https://doi.org/10.1000/ABC.123.",
                "doi:10.1000/abc.123",
                "10.1038/nature12373),",
                "10.1002/(SICI)1097-0258(19980815/30)17:15/16<1661::AID-SIM968>3.0.CO;2-2",
                "10.5555/trial\u20132015\u2014002",
            ],
            "engines": ["duckduckgo"],
        }
    )
    assert options["dois"] == [
        "10.1000/abc.123",
        "10.1038/nature12373",
        "10.1002/(sici)1097-0258(19980815/30)17:15/16<1661::aid-sim968>3.0.co;2-2",
        "10.5555/trial-2015-002",
    ]
    assert options["engines"] == ["duckduckgo"]
    assert [(i.kind, i.value) for i in ids_from_options(options["dois"])][:2] == [
        ("doi", "10.1000/abc.123"),
        ("doi", "10.1038/nature12373"),
    ]


def test_a_value_that_is_not_a_doi_is_invalid_params_naming_its_position() -> None:
    with pytest.raises(LyraError) as err:
        validate_discovery_options({"dois": ["10.1000/ok", "PMID:12345"]})
    assert err.value.code == "INVALID_PARAMS"
    assert err.value.field == "options.dois"
    assert err.value.message == "options.dois[1] is not a DOI: 'PMID:12345'"


def test_unknown_academic_apis_are_invalid_params() -> None:
    with pytest.raises(LyraError) as err:
        validate_discovery_options({"academic_apis": ["openalex", "scopus"]})
    assert err.value.code == "INVALID_PARAMS"
    assert err.value.field == "options.academic_apis"
    assert "scopus" in err.value.message
    assert validate_discovery_options({"academic_apis": []}) == {"academic_apis": []}
