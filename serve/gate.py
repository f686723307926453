"""The class server's gate: the password check Caddy asks before it passes a request on.

Caddy (``serve/Caddyfile``) sends this loopback service a copy of every request's headers
(never its body) and passes the request to Streamlit only on a 2xx; any other answer goes to
the client as it is. Why a gate of our own instead of Caddy's ``basicauth``: Caddy checks
every new wrong password with bcrypt (about 0.77 s of CPU at ``caddy hash-password``'s cost),
has no limit on how often a client may try (Debian's Caddy has no rate-limit module) and
keeps up to 1,000 checked passwords, each as long as the client sent it. Eight clients
sending wrong passwords held Caddy at 1.93 cores and moved the class's p50 from 0.08 to
0.82 s (docs/BENCHMARKS.md). Here, in order, for each request:

1. An ``Authorization`` header longer than :data:`MAX_AUTHORIZATION` bytes: 431, before any
   hashing (and counted as a failure).
2. A valid session cookie (:class:`Cookies`: an expiry signed with HMAC-SHA256 under a key
   made for this server's run): passed, for microseconds. A browser gets it with its first
   correct password, so its later requests and its websocket need no hash.
3. A client (an address; an IPv6 /64) with :data:`FAILURES_ALLOWED` failures not yet
   drained (:class:`FailureTable`: one drains every :data:`FAILURE_WINDOW_S` /
   :data:`FAILURES_ALLOWED` seconds): 429 with ``Retry-After``, no hashing, no comparison.
   The table of failures holds at most :data:`MAX_CLIENTS` clients (the least recent are
   forgotten first), a few hundred bytes each: never a password.
4. No credentials: 401 with the challenge that makes a browser ask (not a failure).
5. The credentials a correct check already accepted (remembered as an HMAC of the header):
   granted without hashing; anything else: scrypt (:data:`SCRYPT`, about 50 ms of CPU and
   16 MB, one at a time on one thread, at most :data:`MAX_WAITING_HASHES` waiting), then
   granted with a cookie, or 401 and a failure.

Refusals of wrong credentials (401 after a check, 429, 431) are answered after
:data:`REFUSAL_DELAY_S` (an asyncio sleep: no CPU), so a client that ignores ``Retry-After``
gets one answer a second per connection; at most :data:`MAX_DELAYED` refusals wait at once,
past that they are answered at once. The password itself never reaches this process: the
class server hands it the scrypt verifier (:class:`Verifier`) through its environment.

Run by the class server as ``python -m serve.gate`` with ``EXPLORER_GATE_*`` set
(:func:`gate_environment`).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import ipaddress
import math
import os
import secrets
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

#: scrypt's cost: about 50 ms of CPU and 16 MB (128 * r * n bytes) per check on this project's
#: 2-core machine; cheaper than bcrypt at Caddy's cost 14 by 15x, and only reached within the limit.
SCRYPT = {"n": 2**14, "r": 8, "p": 1}
_SCRYPT_MAXMEM = 64 * 2**20
#: The longest ``Authorization`` header checked; a class password fits many times over.
MAX_AUTHORIZATION = 1024
#: The longest request head the gate reads (Caddy's own limit, ``max_header_size``, is below it).
MAX_HEAD = 32 * 1024
#: Wrong passwords a client may send in a row before it is refused without a check; one more
#: each FAILURE_WINDOW_S / FAILURES_ALLOWED seconds after.
FAILURES_ALLOWED = 20
FAILURE_WINDOW_S = 300.0
#: Clients whose failures are remembered; past it the least recently failed is forgotten.
MAX_CLIENTS = 4096
REFUSAL_DELAY_S = 1.0
MAX_DELAYED = 256
#: Password checks waiting for the hashing thread; past it, 503 and ``Retry-After: 1``.
MAX_WAITING_HASHES = 8
COOKIE = "explorer_gate"
#: A cookie's life: a teaching day. A restarted class server makes new keys: browsers then
#: send the password they remember and get a new cookie, unasked.
COOKIE_LIFETIME_S = 12 * 3600
REALM = "Entailment Alignment Explorer (class)"
#: The header Caddy sets (overwriting any a client sent) to the client's address, and the
#: one carrying the secret that shows a request came from this server's Caddy.
CLIENT_HEADER = "x-gate-client"
SECRET_HEADER = "x-gate-secret"
IDLE_TIMEOUT_S = 300.0

ENV_PORT = "EXPLORER_GATE_PORT"
ENV_USER = "EXPLORER_GATE_USER"
ENV_VERIFIER = "EXPLORER_GATE_VERIFIER"
ENV_COOKIE_KEY = "EXPLORER_GATE_COOKIE_KEY"
ENV_SECRET = "EXPLORER_GATE_SECRET"


class GateError(ValueError):
    """The gate's configuration is unusable."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class Verifier:
    """What the gate keeps of ``user:password``: a random salt and its scrypt digest."""

    salt: bytes
    digest: bytes

    @classmethod
    def make(cls, user: str, password: str) -> Verifier:
        salt = secrets.token_bytes(16)
        return cls(salt, _scrypt(f"{user}:{password}".encode(), salt))

    def matches(self, credentials: bytes) -> bool:
        return hmac.compare_digest(_scrypt(credentials, self.salt), self.digest)

    def encode(self) -> str:
        return f"{_b64(self.salt)}.{_b64(self.digest)}"

    @classmethod
    def decode(cls, text: str) -> Verifier:
        try:
            salt, digest = (_unb64(part) for part in text.split("."))
        except (ValueError, binascii.Error):
            raise GateError(f"{ENV_VERIFIER} is not a salt and a digest") from None
        return cls(salt, digest)


def _scrypt(data: bytes, salt: bytes) -> bytes:
    return hashlib.scrypt(data, salt=salt, maxmem=_SCRYPT_MAXMEM, dklen=32, **SCRYPT)


class Cookies:
    """Session cookies: ``<expiry>.<HMAC-SHA256 of the expiry>``, under a per-run key."""

    def __init__(self, key: bytes, *, lifetime: float = COOKIE_LIFETIME_S) -> None:
        self._key = key
        self.lifetime = lifetime

    def _sign(self, expiry: int) -> str:
        return _b64(hmac.new(self._key, f"{COOKIE}|{expiry}".encode(), hashlib.sha256).digest())

    def value(self, now: float) -> str:
        expiry = int(now + self.lifetime)
        return f"{expiry}.{self._sign(expiry)}"

    def header(self, now: float, *, secure: bool) -> str:
        """The ``Set-Cookie`` value: the whole site, script-proof, this site's requests only."""
        return (f"{COOKIE}={self.value(now)}; Path=/; Max-Age={int(self.lifetime)}; HttpOnly; SameSite=Strict"
                + ("; Secure" if secure else ""))

    def valid(self, value: str, now: float) -> bool:
        expiry, _, signature = value.partition(".")
        if not expiry.isdigit() or len(expiry) > 12:
            return False
        return hmac.compare_digest(signature, self._sign(int(expiry))) and now < int(expiry)


def cookie_from(header: str) -> str:
    """The gate's cookie among a ``Cookie`` header's pairs ("" when absent)."""
    for pair in header.split(";"):
        name, _, value = pair.strip().partition("=")
        if name == COOKIE:
            return value
    return ""


def client_key(address: str) -> str:
    """Whom failures are counted against: the address, or an IPv6 address's /64 (one
    machine can have a whole /64 to itself)."""
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return address.strip()[:64] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class FailureTable:
    """Failures per client, for at most ``cap`` clients, as a bucket that drains: a client may
    fail ``allowed`` times in a row, and each failure drains away ``window / allowed`` seconds
    later (15 s at the defaults). A class behind one address (a school's NAT), where one
    student's typos fill the bucket, waits seconds for its next try, not a whole window; a
    guesser gets ``allowed`` tries at once and then one each 15 s, as with a fixed window of
    ``allowed`` per ``window``."""

    def __init__(self, *, allowed: int = FAILURES_ALLOWED, window: float = FAILURE_WINDOW_S,
                 cap: int = MAX_CLIENTS) -> None:
        self.allowed, self.window, self.cap = allowed, window, cap
        self.drain = window / allowed  # seconds for one failure to drain away
        self._entries: OrderedDict[str, tuple[float, float]] = OrderedDict()  # (failures counted, when)

    def __len__(self) -> int:
        return len(self._entries)

    def _level(self, client: str, now: float) -> float:
        """The failures still counted for ``client`` (drained down to ``now``)."""
        entry = self._entries.get(client)
        if entry is None:
            return 0.0
        level, then = entry
        return max(0.0, level - max(0.0, now - then) / self.drain)

    def retry_after(self, client: str, now: float) -> float:
        """Seconds until ``client`` may try again (0: it may now)."""
        level = self._level(client, now)
        if level == 0.0:
            self._entries.pop(client, None)
            return 0.0
        over = level - (self.allowed - 1)
        return over * self.drain if over > 1e-9 else 0.0

    def record(self, client: str, now: float) -> bool:
        """One failure; True when it is the one that fills the bucket."""
        level = self._level(client, now) + 1
        self._entries.pop(client, None)
        self._entries[client] = (level, now)
        while len(self._entries) > self.cap:
            self._entries.popitem(last=False)
        return level > self.allowed - 1 >= level - 1

    def forgive(self, client: str) -> None:
        """Take back one failure (a check counted before it ran turned out right)."""
        entry = self._entries.get(client)
        if entry is not None:
            self._entries[client] = (max(0.0, entry[0] - 1), entry[1])


@dataclass(frozen=True)
class Answer:
    status: int
    headers: tuple[tuple[str, str], ...] = ()
    #: Wait this long before answering (a refused guess).
    delay: float = 0.0


_REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            429: "Too Many Requests", 431: "Request Header Fields Too Large", 503: "Service Unavailable"}
_BODIES = {
    401: "Sign in with the class's user name and password.\n",
    403: "This service answers the class server's proxy only.\n",
    429: "Too many wrong passwords from your address; try again later.\n",
    431: "The Authorization header is too large.\n",
    503: "The server is busy checking passwords; try again in a moment.\n",
    400: "Bad request.\n",
}


@dataclass
class Gate:
    """The decision for one request's headers (names in lower case), and its counts.

    Args:
        user: the user name students give.
        verifier: the password's scrypt verifier.
        cookie_key: the key that signs session cookies.
        secret: what Caddy sends in :data:`SECRET_HEADER`.
        clock: seconds, for cookies' expiry and the failure windows (``time.time``).
    """

    user: str
    verifier: Verifier
    cookie_key: bytes
    secret: str
    clock: Callable[[], float] = time.time
    failures: FailureTable = field(default_factory=FailureTable)
    #: Password checks run (scrypt computations): the measure of what guesses cost.
    hashes: int = 0
    say: Callable[[str], object] = print

    def __post_init__(self) -> None:
        self.cookies = Cookies(self.cookie_key)
        self._accepted: bytes | None = None  # HMAC of the Authorization header a check accepted
        self._waiting = 0
        self._hasher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="password check")

    def _fingerprint(self, authorization: str) -> bytes:
        return hmac.new(self.cookie_key, b"authorization|" + authorization.encode(), hashlib.sha256).digest()

    def _credentials(self, authorization: str) -> bytes | None:
        scheme, _, encoded = authorization.partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            return base64.b64decode(encoded.strip(), validate=True)
        except (ValueError, binascii.Error):
            return None

    def _count_failure(self, client: str, now: float) -> None:
        if self.failures.record(client, now):
            self.say(f"{self.failures.allowed} wrong passwords from {client}: refusing it without a check, "
                     f"one more try each {self.failures.drain:.0f} s")

    def _refuse(self, client: str, now: float, status: int = 401) -> Answer:
        self._count_failure(client, now)
        return self._challenge(status, delay=REFUSAL_DELAY_S)

    @staticmethod
    def _challenge(status: int = 401, *, delay: float = 0.0) -> Answer:
        headers = (("WWW-Authenticate", f'Basic realm="{REALM}", charset="UTF-8"'),) if status == 401 else ()
        return Answer(status, headers, delay)

    def _grant(self, headers: Mapping[str, str], now: float) -> Answer:
        secure = headers.get("x-forwarded-proto", "").lower() == "https"
        return Answer(200, (("Set-Cookie", self.cookies.header(now, secure=secure)),))

    async def answer(self, headers: Mapping[str, str]) -> Answer:
        if not hmac.compare_digest(headers.get(SECRET_HEADER, "").encode(), self.secret.encode()):
            return Answer(403)
        now = self.clock()
        client = client_key(headers.get(CLIENT_HEADER, ""))
        authorization = headers.get("authorization", "")
        if len(authorization) > MAX_AUTHORIZATION:
            return self._refuse(client, now, 431)
        if self.cookies.valid(cookie_from(headers.get("cookie", "")), now):
            return Answer(204)
        wait = self.failures.retry_after(client, now)
        if wait:
            return Answer(429, (("Retry-After", str(math.ceil(wait))),), REFUSAL_DELAY_S)
        if not authorization:
            return self._challenge()
        credentials = self._credentials(authorization)
        if credentials is None:
            return self._refuse(client, now)
        fingerprint = self._fingerprint(authorization)
        if self._accepted is not None and hmac.compare_digest(fingerprint, self._accepted):
            return self._grant(headers, now)
        if self._waiting >= MAX_WAITING_HASHES:
            return Answer(503, (("Retry-After", "1"),))
        # Counted as a failure before it runs (taken back if right): checks running at once
        # for one client cannot pass its limit together.
        self._count_failure(client, now)
        self._waiting += 1
        try:
            correct = await asyncio.get_running_loop().run_in_executor(self._hasher, self.verifier.matches,
                                                                       credentials)
        finally:
            self._waiting -= 1
            self.hashes += 1
        if not correct:
            return self._challenge(delay=REFUSAL_DELAY_S)
        self.failures.forgive(client)
        self._accepted = fingerprint
        return self._grant(headers, now)


def render(answer: Answer) -> bytes:
    body = _BODIES.get(answer.status, "").encode()
    lines = [f"HTTP/1.1 {answer.status} {_REASONS.get(answer.status, 'Error')}",
             f"Content-Length: {len(body)}", "Cache-Control: no-store"]
    if body:
        lines.append("Content-Type: text/plain; charset=utf-8")
    lines += [f"{name}: {value}" for name, value in answer.headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def parse_head(head: bytes) -> dict[str, str] | None:
    """A request head's headers by lower-case name (repeated ones joined as HTTP allows;
    cookies with ``;``), or None when it is no HTTP request or announces a body."""
    try:
        request_line, *lines = head.decode("latin-1").split("\r\n")
    except UnicodeDecodeError:
        return None
    if len(request_line.split(" ")) != 3:
        return None
    headers: dict[str, str] = {}
    for line in lines:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon:
            return None
        name, value = name.strip().lower(), value.strip()
        if name in headers:
            value = headers[name] + ("; " if name == "cookie" else ", ") + value
        headers[name] = value
    if headers.get("content-length", "0") != "0" or "transfer-encoding" in headers:
        return None
    return headers


class GateServer:
    """The gate on a loopback port: HTTP/1.1 with keep-alive, headers only."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self._delayed = 0

    async def _reply(self, writer: asyncio.StreamWriter, answer: Answer) -> None:
        if answer.delay and self._delayed < MAX_DELAYED:
            self._delayed += 1
            try:
                await asyncio.sleep(answer.delay)
            finally:
                self._delayed -= 1
        writer.write(render(answer))
        await writer.drain()

    async def connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), IDLE_TIMEOUT_S)
                except (asyncio.LimitOverrunError, ValueError):
                    writer.write(render(Answer(431)))
                    break
                headers = parse_head(head)
                if headers is None:
                    writer.write(render(Answer(400)))
                    break
                await self._reply(writer, await self.gate.answer(headers))
        except (TimeoutError, asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def serve(self, port: int, ready: Callable[[int], object] | None = None) -> None:
        server = await asyncio.start_server(self.connection, "127.0.0.1", port, limit=MAX_HEAD)
        if ready is not None:
            ready(int(server.sockets[0].getsockname()[1]))
        async with server:
            await server.serve_forever()


def gate_environment(*, port: int, user: str, password: str) -> tuple[dict[str, str], str]:
    """The ``EXPLORER_GATE_*`` values the gate reads (a fresh verifier, cookie key and
    secret: nothing survives the class server's run), and the secret Caddy sends."""
    secret = secrets.token_urlsafe(32)
    return {
        ENV_PORT: str(port),
        ENV_USER: user,
        ENV_VERIFIER: Verifier.make(user, password).encode(),
        ENV_COOKIE_KEY: secrets.token_hex(32),
        ENV_SECRET: secret,
    }, secret


def gate_from_environment(env: Mapping[str, str]) -> tuple[Gate, int]:
    """The gate and its port from ``EXPLORER_GATE_*``.

    Raises:
        GateError: a value is missing or unusable.
    """
    missing = [name for name in (ENV_PORT, ENV_USER, ENV_VERIFIER, ENV_COOKIE_KEY, ENV_SECRET) if not env.get(name)]
    if missing:
        raise GateError(f"missing {', '.join(missing)} (the class server sets them)")
    try:
        port, key = int(env[ENV_PORT]), bytes.fromhex(env[ENV_COOKIE_KEY])
    except ValueError:
        raise GateError(f"{ENV_PORT} or {ENV_COOKIE_KEY} is unusable") from None
    gate = Gate(env[ENV_USER], Verifier.decode(env[ENV_VERIFIER]), key, env[ENV_SECRET],
                say=lambda line: print(line, flush=True))
    return gate, port


def main() -> int:
    try:
        gate, port = gate_from_environment(os.environ)
    except GateError as err:
        print(f"gate: error: {err}", file=sys.stderr)
        return 2
    try:
        asyncio.run(GateServer(gate).serve(port))
    except OSError as err:
        print(f"gate: error: cannot listen on 127.0.0.1:{port}: {err.strerror or err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
