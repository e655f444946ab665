"""Where are the sources?

Search engines as data, SERP parsers, query normalisation and mirrors, the academic
APIs' request builders and parsers, papers and their merge, scholarly identifiers,
citation tracking, Wikipedia references and the local corpus scanner. May import
`pipelines.extract`, `pipelines.llm.ollama` and `pipelines.net`.
"""
