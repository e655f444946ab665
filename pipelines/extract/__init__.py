"""What does this source say?

Bodies sniffed and decoded, HTML (trafilatura), PDF (PyMuPDF), text and Markdown turned
into documents of fragments with offsets, and duplicate detection. May import
`pipelines.net`.
"""
