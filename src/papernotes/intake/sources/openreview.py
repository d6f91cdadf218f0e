"""OpenReview source: accepted papers of a venue, from API v2 or a saved response.

In API v2 a submission's ``content.venueid`` is the venue's group id (for
example ``ICML.cc/2026/Conference``) once it is accepted, and
``.../Rejected_Submission`` or ``.../Withdrawn_Submission`` otherwise, so
``GET /notes?content.venueid=ICML.cc/2026/Conference`` lists exactly the
accepted papers (what openreview-py's ``get_all_notes(content={'venueid': ...})``
sends). We page through it with plain ``urllib``: one read-only endpoint does
not justify openreview-py's dependency tree. A saved response (``{"notes":
[...]}`` or a bare list of notes, v2 ``{"value": ...}`` fields or v1 plain
ones) is read the same way and filtered to accepted papers.
"""
from __future__ import annotations

import json
import os
import random
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from papernotes.errors import Diagnostic, error
from papernotes.intake.sources import (
    Paper,
    Source,
    SourceError,
    SourceRequest,
    SourceResult,
    arxiv_id,
    clean_text,
    code_link,
    parse_json,
    read_text,
)

API_URL = "https://api2.openreview.net"
SITE_URL = "https://openreview.net"
PAGE = 1000  # the API's maximum page size
_NOT_ACCEPTED = ("/Rejected_Submission", "/Withdrawn_Submission", "/Desk_Rejected_Submission", "/Submission")


def load(request: SourceRequest) -> SourceResult:
    venue_id = request.args[0] if request.args else ""
    if len(request.args) > 1:
        raise SourceError("openreview takes one venue id, e.g. ICML.cc/2026/Conference")
    if request.from_file is not None:
        where = str(request.from_file)
        notes = _notes_of(parse_json(read_text(request.from_file), where), where)
    elif venue_id:
        where = f"openreview:{venue_id}"
        notes = fetch_accepted(venue_id, request.api_url or API_URL)
    else:
        raise SourceError("openreview needs a venue id (e.g. ICML.cc/2026/Conference) or --from-file")
    papers: list[Paper] = []
    problems: list[Diagnostic] = []
    for index, note in enumerate(notes):
        if not isinstance(note, dict):
            problems.append(error(where, 0, f"note #{index + 1} is not an object", "source"))
            continue
        if not _accepted(note, venue_id):
            continue
        paper = paper_from_note(note)
        if paper is None:
            problems.append(error(where, 0, f"note {note.get('id', '#' + str(index + 1))} has no title", "source"))
            continue
        papers.append(paper)
    return SourceResult(tuple(papers), tuple(problems))



def _notes_of(data: Any, where: str) -> list[Any]:
    if isinstance(data, dict) and isinstance(data.get("notes"), list):
        return list(data["notes"])
    if isinstance(data, list):
        return data
    raise SourceError(f"{where}: expected an OpenReview response {{\"notes\": [...]}} or a list of notes")


def _value(content: dict[str, Any], key: str) -> Any:
    """API v2 wraps every field as ``{"value": ...}``; API v1 does not."""
    item = content.get(key)
    return item.get("value") if isinstance(item, dict) else item


def _accepted(note: dict[str, Any], venue_id: str) -> bool:
    content = note.get("content") or {}
    venueid = _value(content, "venueid")
    if not isinstance(venueid, str):
        return not venue_id  # a v1 dump or a bare list: keep unless a venue was asked for
    if venue_id:
        return venueid == venue_id
    venue = _value(content, "venue")
    return not venueid.endswith(_NOT_ACCEPTED) and not (isinstance(venue, str) and venue.startswith("Submitted to"))


def paper_from_note(note: dict[str, Any]) -> Paper | None:
    content = note.get("content") or {}
    title = clean_text(_value(content, "title"))
    if not title:
        return None
    authors = _value(content, "authors")
    keywords = _value(content, "keywords")
    abstract = clean_text(_value(content, "abstract"))
    forum = str(note.get("forum") or note.get("id") or "")
    links: list[tuple[str, str]] = []
    if forum:
        links.append(("openreview", f"{SITE_URL}/forum?id={forum}"))
    pdf = _value(content, "pdf")
    if isinstance(pdf, str) and pdf:
        links.append(("pdf", pdf if pdf.startswith("http") else f"{SITE_URL}{pdf}"))
    code = next((v for k in ("code", "code_url", "software") if isinstance(v := _value(content, k), str) and
                 v.startswith("http")), "") or code_link(abstract)
    if code:
        links.append(("code", code))
    hints = tuple(v for k in ("venueid", "venue") if isinstance(v := _value(content, k), str))
    pdate = note.get("pdate") or note.get("cdate")
    year = time.gmtime(pdate / 1000).tm_year if isinstance(pdate, (int, float)) else None
    return Paper(
        title=title,
        authors=tuple(clean_text(a) for a in authors if isinstance(a, str)) if isinstance(authors, list) else (),
        abstract=abstract,
        venue_hints=hints,
        year=year,
        arxiv=arxiv_id(str(_value(content, "arxiv") or "")),
        links=tuple(links),
        keywords=tuple(clean_text(k) for k in keywords if isinstance(k, str)) if isinstance(keywords, list) else (),
        origin=(f"openreview:{forum}",) if forum else (),
    )


# ---------------------------------------------------------------- network

def _token(base_url: str) -> str:
    """``OPENREVIEW_TOKEN``, or a login with ``OPENREVIEW_USERNAME``/``OPENREVIEW_PASSWORD``; else anonymous."""
    if token := os.environ.get("OPENREVIEW_TOKEN"):
        return token
    user, password = os.environ.get("OPENREVIEW_USERNAME"), os.environ.get("OPENREVIEW_PASSWORD")
    if not (user and password):
        return ""
    body = json.dumps({"id": user, "password": password}).encode()
    data = _request(f"{base_url}/login", "", body)
    return str(data.get("token", "")) if isinstance(data, dict) else ""


def _request(url: str, token: str, body: bytes | None = None, attempts: int = 4) -> Any:
    headers = {"Accept": "application/json", "User-Agent": "papernotes-ingest"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    for attempt in range(attempts):
        req = urllib.request.Request(url, data=body, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=60) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            retry = exc.code == 429 or exc.code >= 500
            if not retry or attempt == attempts - 1:
                hint = (" (log in: set OPENREVIEW_TOKEN or OPENREVIEW_USERNAME/PASSWORD)"
                        if exc.code in (401, 403) else "")
                raise SourceError(f"openreview: HTTP {exc.code} for {url}{hint}") from None
            wait = _retry_after(exc.headers.get("Retry-After"), attempt)
        except (urllib.error.URLError, TimeoutError, json.JSONDecodeError) as exc:
            if attempt == attempts - 1:
                raise SourceError(f"openreview: cannot fetch {url}: {exc}") from None
            wait = 2.0 ** attempt * (0.5 + random.random())
        time.sleep(min(wait, 60.0))
    raise SourceError(f"openreview: cannot fetch {url}")  # pragma: no cover - loop always returns or raises


def _retry_after(value: str | None, attempt: int) -> float:
    """Seconds to wait before the next attempt: the server's ``Retry-After``, else backoff with jitter."""
    try:
        return max(0.0, float(value)) if value is not None else 2.0 ** attempt * (0.5 + random.random())
    except ValueError:  # an HTTP date: rare here, and backoff is a fine answer to it
        return 2.0 ** attempt * (0.5 + random.random())


def fetch_accepted(venue_id: str, base_url: str = API_URL) -> list[Any]:
    """Every note whose ``content.venueid`` is ``venue_id``, page by page."""
    base_url = base_url.rstrip("/")
    token = _token(base_url)
    notes: list[Any] = []
    while True:
        query = urllib.parse.urlencode({"content.venueid": venue_id, "limit": PAGE, "offset": len(notes),
                                        "count": "true"})
        data = _request(f"{base_url}/notes?{query}", token)
        page = _notes_of(data, f"{base_url}/notes")
        notes.extend(page)
        total = data.get("count") if isinstance(data, dict) else None
        if len(page) < PAGE or (isinstance(total, int) and len(notes) >= total):
            return notes


SOURCE = Source("openreview", load, "a venue id such as ICML.cc/2026/Conference (accepted papers only; --from-file: saved notes JSON)")
