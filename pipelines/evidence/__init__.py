"""Which claims, who supports or refutes them, and how sure are we?

Embeddings (ONNX Runtime) and their one-time export, ranking (BM25, hybrid, knee
cut-off), claim extraction, stance (NLI cross-encoder and the heuristic fallback),
Bayesian confidence, and the ids and metrics of a search. The top floor of the
pipelines: may import every other sub-package.
"""
