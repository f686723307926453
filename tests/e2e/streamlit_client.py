"""A browser's side of a Streamlit app without the browser: the HTTP requests a page load
makes and the websocket protocol (Streamlit's own protobuf ``BackMsg`` / ``ForwardMsg``),
for the class-server test (``tests/e2e/test_serve_class.py``) and the class benchmark
(``bench/bench_class.py``), where twenty browsers would take the cores the server needs.

What it does as a browser would: load ``/`` (which sets the proxy's sticky cookie) and
``/_stcore/health`` (Streamlit's XSRF cookie), open ``/_stcore/stream`` with the cookies,
the ``Origin`` and the basic-authentication header, ask for a run with the URL's query
string, keep each widget the page draws (by label), send widget values in a rerun, honour
``auto_rerun`` (a fragment's ``run_every``: one fragment rerun per interval, as the page's
script asks), switch pages by their script hash, and upload a file through Streamlit's
upload endpoint (file URLs over the websocket, a multipart PUT with the XSRF header, then
the file uploader's widget state). What it does not: run any JavaScript, draw anything, or
send the widget values of widgets it was not told to set (Streamlit keeps their last value).
"""

from __future__ import annotations

import asyncio
import base64
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.Common_pb2 import FileUploaderState, UploadedFileInfo
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from tests.deadline import DEADLINE

FINISHED = ForwardMsg.ScriptFinishedStatus.Value("FINISHED_SUCCESSFULLY")
XSRF_COOKIE = "_streamlit_xsrf"
#: Blocking HTTP calls (page loads, uploads) run here, not in asyncio's small default pool.
_HTTP = ThreadPoolExecutor(max_workers=64, thread_name_prefix="http")
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


@dataclass(frozen=True)
class Widget:
    """A widget as the page last drew it: its id (what a widget state names) and element."""

    id: str
    kind: str
    label: str
    element: Any


@dataclass
class HttpAnswer:
    """An HTTP answer; status 0 when the connection broke instead (the body says how)."""

    status: int
    body: bytes
    headers: dict[str, list[str]] = field(default_factory=dict)
    seconds: float = 0.0


def basic_auth(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode("ascii")


def element_html(msg: ForwardMsg) -> str:
    """The body of an ``st.html`` element the message draws, else ''."""
    if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
        return ""
    element = msg.delta.new_element
    return element.html.body if element.WhichOneof("type") == "html" else ""


def element_kind(msg: ForwardMsg) -> str:
    if msg.WhichOneof("type") != "delta" or msg.delta.WhichOneof("type") != "new_element":
        return ""
    return str(msg.delta.new_element.WhichOneof("type"))


def multipart(name: str, data: bytes) -> tuple[bytes, str]:
    """A one-file ``multipart/form-data`` body and its content type, as a browser sends it."""
    boundary = uuid.uuid4().hex
    head = (f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n").encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


class Session:
    """One browser tab on a served Streamlit app.

    Args:
        base_url: the app's URL (``http://host:port``), through a proxy or not.
        auth: (user, password) for HTTP basic authentication, or None.
        timeout: seconds any single step may take before it fails.
    """

    def __init__(self, base_url: str, *, auth: tuple[str, str] | None = None, timeout: float = DEADLINE) -> None:
        self.base = base_url.rstrip("/")
        self.auth = basic_auth(*auth) if auth else None
        self.timeout = timeout
        self.cookies: dict[str, str] = {}
        self.widgets: dict[str, Widget] = {}
        self.pages: dict[str, str] = {}
        self.page_hash = ""
        self.session_id = ""
        self.query_string = ""
        self.widget_states: dict[str, WidgetState] = {}
        self.received_messages = 0
        self.received_bytes = 0
        self._listeners: list[tuple[Callable[[ForwardMsg], bool], asyncio.Future[float]]] = []
        self._auto_reruns: dict[str, asyncio.Task[None]] = {}
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None

    # -- HTTP ----------------------------------------------------------------------------

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Origin": self.base, **(extra or {})}
        if self.auth:
            headers["Authorization"] = self.auth
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return headers

    def _keep_cookies(self, set_cookies: list[str]) -> None:
        for line in set_cookies:
            name, _, value = line.split(";", 1)[0].partition("=")
            if name.strip():
                self.cookies[name.strip()] = value.strip()

    def _request(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> HttpAnswer:
        url = path if path.startswith("http") else f"{self.base}/{path.lstrip('/')}"
        request = urllib.request.Request(url, data=body, method=method, headers=headers)
        started = time.monotonic()
        try:
            with _OPENER.open(request, timeout=self.timeout) as response:
                answer = HttpAnswer(int(response.status), response.read(),
                                    {"Set-Cookie": response.headers.get_all("Set-Cookie") or []})
        except urllib.error.HTTPError as err:
            answer = HttpAnswer(err.code, err.read(), {"Set-Cookie": err.headers.get_all("Set-Cookie") or []})
        except OSError as err:  # e.g. the server refused a body by closing the connection on it
            answer = HttpAnswer(0, f"{type(err).__name__}: {err}".encode())
        answer.seconds = time.monotonic() - started
        return answer

    async def http(self, method: str, path: str, *, body: bytes | None = None,
                   headers: dict[str, str] | None = None) -> HttpAnswer:
        """One request with this tab's cookies and credentials; keeps the cookies it sets."""
        loop = asyncio.get_running_loop()
        answer = await loop.run_in_executor(_HTTP, self._request, method, path, body, self._headers(headers))
        self._keep_cookies(answer.headers.get("Set-Cookie", []))
        return answer

    # -- the websocket -------------------------------------------------------------------

    async def open(self, query_string: str = "", *, page_name: str = "") -> None:
        """Load the page as a browser does (``/``, then the health check), open the
        websocket and ask for the first run with ``query_string``.

        Raises:
            websockets.exceptions.InvalidStatus: the server refused the websocket (e.g. 401).
        """
        from websockets.asyncio.client import connect
        from websockets.typing import Origin, Subprotocol

        await self.http("GET", "/")
        await self.http("GET", "/_stcore/health")
        ws_url = "ws" + self.base[len("http"):] + "/_stcore/stream"
        headers = {k: v for k, v in self._headers().items() if k != "Origin"}
        self._ws = await connect(ws_url, origin=Origin(self.base), subprotocols=[Subprotocol("streamlit")],
                                 additional_headers=headers, compression=None, proxy=None, max_size=None,
                                 max_queue=None, open_timeout=self.timeout, ping_interval=None)
        self._reader = asyncio.create_task(self._read())
        self.query_string = query_string
        await self.rerun(page_name=page_name)

    async def close(self) -> None:
        for task in self._auto_reruns.values():
            task.cancel()
        self._auto_reruns.clear()
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass

    async def _send(self, msg: BackMsg) -> None:
        await self._ws.send(msg.SerializeToString())

    async def rerun(self, *, page_name: str = "", widgets: dict[str, WidgetState] | None = None,
                    fragment_id: str = "", auto: bool = False) -> None:
        """A rerun of the current page with every widget value set so far (plus ``widgets``)."""
        if widgets:
            self.widget_states.update(widgets)
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query_string
        state.page_script_hash = self.page_hash
        state.page_name = page_name
        state.widget_states.widgets.extend(self.widget_states.values())
        if fragment_id:
            state.fragment_id = fragment_id
            state.is_auto_rerun = auto
        await self._send(msg)

    async def switch_page(self, name: str) -> None:
        """Open another page of ``st.navigation`` (by its title), as its sidebar link does;
        the widget values of the page left behind are dropped, as a browser drops them."""
        self._stop_auto_reruns()
        self.page_hash = self.pages[name]
        self.widget_states.clear()
        await self.rerun()

    def expect(self, predicate: Callable[[ForwardMsg], bool]) -> asyncio.Future[float]:
        """A future for the arrival time (``time.monotonic()``) of the first message from now
        on for which ``predicate`` is true. Register it before sending what causes it."""
        future: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self._listeners.append((predicate, future))
        return future

    async def wait(self, future: asyncio.Future[float], timeout: float | None = None) -> float:
        try:
            return await asyncio.wait_for(future, timeout or self.timeout)
        finally:
            self._listeners = [(p, f) for p, f in self._listeners if f is not future]

    def _stop_auto_reruns(self, fragment_ids: list[str] | None = None) -> None:
        for fid in list(self._auto_reruns) if fragment_ids is None else fragment_ids:
            task = self._auto_reruns.pop(fid, None)
            if task is not None:
                task.cancel()

    async def _auto_rerun(self, fragment_id: str, interval: float) -> None:
        while True:
            await asyncio.sleep(max(interval, 0.1))
            await self.rerun(fragment_id=fragment_id, auto=True)

    def _note(self, msg: ForwardMsg) -> None:
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            self.session_id = msg.new_session.initialize.session_id or self.session_id
            self.page_hash = msg.new_session.page_script_hash or self.page_hash
        elif kind == "navigation":
            self.pages = {p.page_name: p.page_script_hash for p in msg.navigation.app_pages}
            self.page_hash = msg.navigation.page_script_hash or self.page_hash
        elif kind == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string
        elif kind == "auto_rerun":
            fid = msg.auto_rerun.fragment_id
            if fid not in self._auto_reruns:
                self._auto_reruns[fid] = asyncio.create_task(self._auto_rerun(fid, msg.auto_rerun.interval))
        elif kind == "stop_auto_rerun":
            self._stop_auto_reruns(list(msg.stop_auto_rerun.fragment_ids))
        elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            element = msg.delta.new_element
            name = element.WhichOneof("type")
            inner = getattr(element, name) if name else None
            widget_id = getattr(inner, "id", "") if inner is not None else ""
            if widget_id:
                label = str(getattr(inner, "label", ""))
                self.widgets[label] = Widget(widget_id, str(name), label, inner)

    async def _read(self) -> None:
        async for data in self._ws:
            arrived = time.monotonic()
            msg = ForwardMsg()
            msg.ParseFromString(data)
            self.received_messages += 1
            self.received_bytes += len(data)
            self._note(msg)
            for predicate, future in list(self._listeners):
                if not future.done() and predicate(msg):
                    future.set_result(arrived)
        for _, future in self._listeners:  # the server closed the websocket
            if not future.done():
                future.set_exception(ConnectionError("the server closed the websocket"))

    # -- widgets and uploads -------------------------------------------------------------

    def widget(self, label: str) -> Widget:
        """The widget the page last drew with this label.

        Raises:
            KeyError: no such widget drawn yet (the message names the labels seen).
        """
        if label not in self.widgets:
            raise KeyError(f"no widget labelled {label!r} drawn yet; seen: {sorted(self.widgets)}")
        return self.widgets[label]

    def text_value(self, label: str, value: str) -> WidgetState:
        return WidgetState(id=self.widget(label).id, string_value=value)

    def choice_value(self, label: str, option: str) -> WidgetState:
        """A radio or select box set to ``option`` (sent as the option's text, as Streamlit's
        own front end does for these widgets).

        Raises:
            ValueError: ``option`` is not one of the widget's options.
        """
        widget = self.widget(label)
        if option not in widget.element.options:
            raise ValueError(f"{label!r} has no option {option!r}; it has {list(widget.element.options)}")
        return WidgetState(id=widget.id, string_value=option)

    async def ask_upload_urls(self, name: str, request_id: str = "") -> str:
        """Ask for the upload URLs of a file named ``name`` (a ``file_urls_request``) without
        waiting; returns the request's id (``request_id``, else a new one), which its
        ``file_urls_response`` carries."""
        request_id = request_id or uuid.uuid4().hex
        msg = BackMsg()
        msg.file_urls_request.request_id = request_id
        msg.file_urls_request.file_names.append(name)
        msg.file_urls_request.session_id = self.session_id
        await self._send(msg)
        return request_id

    async def put_file(self, name: str, data: bytes) -> tuple[HttpAnswer, Any]:
        """Send ``data`` to Streamlit's upload endpoint as the file uploader does: file URLs
        over the websocket, then a multipart PUT with the XSRF header. Returns the PUT's
        answer and the file's URLs (``FileURLs``).

        Raises:
            TimeoutError: the URLs never came (the message says why they may not).
        """
        request_id = uuid.uuid4().hex
        urls: list[Any] = []

        def answered(m: ForwardMsg) -> bool:
            if m.WhichOneof("type") != "file_urls_response" or m.file_urls_response.response_id != request_id:
                return False
            urls.extend(m.file_urls_response.file_urls)
            return True

        answer = self.expect(answered)
        await self.ask_upload_urls(name, request_id)
        try:
            await self.wait(answer)
        except TimeoutError:
            raise TimeoutError(f"no answer to the request for the upload URLs of {name!r} within {self.timeout:.0f} s "
                               "(Streamlit drops an answer still queued when a run starts, unless the app "
                               "installs components.upload_answers)") from None
        if not urls:
            raise ConnectionError("the server gave no upload URL")
        body, content_type = multipart(name, data)
        put = await self.http("PUT", urls[0].upload_url, body=body, headers={
            "Content-Type": content_type, "X-Xsrftoken": self.cookies.get(XSRF_COOKIE, "")})
        return put, urls[0]

    async def upload(self, label: str, name: str, data: bytes) -> tuple[HttpAnswer, WidgetState]:
        """:meth:`put_file`, for the file uploader ``label``: returns the PUT's answer and the
        widget state that hands the file to the page (send it with :meth:`rerun`)."""
        widget = self.widget(label)
        put, urls = await self.put_file(name, data)
        info = UploadedFileInfo(name=name, size=len(data), file_id=urls.file_id, file_urls=urls)
        return put, WidgetState(id=widget.id, file_uploader_state_value=FileUploaderState(uploaded_file_info=[info]))


def run_finished() -> Callable[[ForwardMsg], bool]:
    """A predicate: the page is drawn, i.e. a full run that started after this predicate was
    made finished successfully (a run cut short by ``st.rerun`` does not count; neither
    does a fragment's rerun, nor the end of a run already going when this was made)."""
    started = [False]

    def check(msg: ForwardMsg) -> bool:
        kind = msg.WhichOneof("type")
        if kind == "new_session":
            started[0] = True
        return started[0] and kind == "script_finished" and msg.script_finished == FINISHED

    return check
