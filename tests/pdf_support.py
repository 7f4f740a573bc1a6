"""Reading a PDF's text back, the way a reviewer reads what the Town hands out."""
from __future__ import annotations

import io


def pdf_text(data: bytes) -> str:
    """All pages' text with runs of whitespace (line breaks from wrapping) folded to one space."""
    from pypdf import PdfReader
    reader = PdfReader(io.BytesIO(data))
    return " ".join(" ".join(page.extract_text() or "" for page in reader.pages).split())
