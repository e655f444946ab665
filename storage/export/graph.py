"""An evidence pack as GraphML: the evidence graph that networkx, Gephi and Cytoscape
read.

Nodes: claims (``kind`` claim; confidence, uncertainty), fragments (``kind``
fragment; the quote and its place), pages (``kind`` web or paper; URL, title, the
citation key of the bibliographic exports when the page is a cited source). Edges:
fragment -> claim with the stance (``relation`` origin / supports / refutes / neutral,
``confidence``), fragment -> page (``part_of``), page -> page (``cites``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

_NS = "http://graphml.graphdrawing.org/xmlns"

# (domain, name, GraphML type)
_KEYS: tuple[tuple[str, str, str], ...] = (
    ("node", "kind", "string"),
    ("node", "label", "string"),
    ("node", "confidence", "double"),
    ("node", "uncertainty", "double"),
    ("node", "supporting", "int"),
    ("node", "refuting", "int"),
    ("node", "url", "string"),
    ("node", "domain", "string"),
    ("node", "citation_key", "string"),
    ("node", "doi", "string"),
    ("node", "year", "int"),
    ("node", "archive", "string"),
    ("node", "char_start", "int"),
    ("node", "char_end", "int"),
    ("node", "page_number", "int"),
    ("edge", "relation", "string"),
    ("edge", "confidence", "double"),
    ("edge", "method", "string"),
)


def _key_id(domain: str, name: str) -> str:
    return f"{domain[0]}_{name}"


def _data(element: ET.Element, domain: str, values: dict[str, Any]) -> None:
    for name, value in values.items():
        if value is None:
            continue
        data = ET.SubElement(element, "data", key=_key_id(domain, name))
        data.text = str(value)


def graphml(pack: dict[str, Any]) -> str:
    """The task's evidence graph as one GraphML document."""
    root = ET.Element("graphml", xmlns=_NS)
    for domain, name, kind in _KEYS:
        ET.SubElement(
            root,
            "key",
            id=_key_id(domain, name),
            attrib={"for": domain, "attr.name": name, "attr.type": kind},
        )
    graph = ET.SubElement(root, "graph", id=pack["task"]["id"], edgedefault="directed")
    nodes: dict[str, dict[str, Any]] = {}
    edges: list[tuple[str, str, dict[str, Any]]] = []
    sources = {s["page_id"]: s for s in pack["sources"]}

    def page_node(page_id: str, url: str | None, title: str | None) -> str:
        node = f"page:{page_id}"
        if node not in nodes:
            s = sources.get(page_id)
            nodes[node] = {
                "kind": s["kind"] if s else "web",
                "label": (s["title"] if s else title) or url,
                "url": url,
                "domain": s["domain"] if s else None,
                "citation_key": s["key"] if s else None,
                "doi": s["doi"] if s else None,
                "year": s["year"] if s else None,
                "archive": s["archive"] if s else None,
            }
        return node

    for claim in pack["claims"]:
        claim_node = f"claim:{claim['id']}"
        nodes[claim_node] = {
            "kind": "claim",
            "label": claim["text"],
            "confidence": claim["confidence"],
            "uncertainty": claim["uncertainty"],
            "supporting": claim["supporting"],
            "refuting": claim["refuting"],
        }
        for e in claim["evidence"]:
            fragment_node = f"fragment:{e['fragment_id']}"
            page = page_node(e["page_id"], e["url"], e["title"])
            if fragment_node not in nodes:
                nodes[fragment_node] = {
                    "kind": "fragment",
                    "label": e["quote"],
                    "char_start": e["char_start"],
                    "char_end": e["char_end"],
                    "page_number": e["page_number"],
                }
                edges.append((fragment_node, page, {"relation": "part_of"}))
            edges.append(
                (
                    fragment_node,
                    claim_node,
                    {
                        "relation": e["relation"],
                        "confidence": e["confidence"],
                        "method": e["method"],
                    },
                )
            )
    for c in pack["citations"]:
        a = page_node(c["source_page_id"], c["source_url"], c["source_title"])
        b = page_node(c["target_page_id"], c["target_url"], c["target_title"])
        edges.append((a, b, {"relation": "cites"}))
    for node_id, values in nodes.items():
        _data(ET.SubElement(graph, "node", id=node_id), "node", values)
    for n, (source, target, values) in enumerate(edges):
        element = ET.SubElement(graph, "edge", id=f"e{n}", source=source, target=target)
        _data(element, "edge", values)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
