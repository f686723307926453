"""The class server's gate (serve/gate.py): wrong passwords are checked at most a few times
per client and then refused without a hash, a correct password still works for another
client meanwhile, the session cookie passes and a forged or expired one does not, oversized
credentials are refused before any hashing, and the table of failures has a cap."""

from __future__ import annotations

import asyncio
import base64

import pytest

from serve import gate as gate_module
from serve.gate import COOKIE, Answer, FailureTable, Gate, GateServer, Verifier, client_key, cookie_from

USER, PASSWORD, SECRET = "class", "tuesday seminar", "caddy-secret"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def verifier() -> Verifier:
    return Verifier.make(USER, PASSWORD)


def make_gate(verifier: Verifier, *, allowed: int = 4, cap: int = 100) -> tuple[Gate, Clock]:
    clock = Clock()
    said: list[str] = []
    gate = Gate(USER, verifier, b"k" * 32, SECRET, clock=clock, failures=FailureTable(allowed=allowed, cap=cap),
                say=said.append)
    return gate, clock


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def ask(gate: Gate, client: str = "10.0.0.1", *, authorization: str = "", cookie: str = "",
        secret: str = SECRET) -> Answer:
    headers = {"x-gate-secret": secret, "x-gate-client": client}
    if authorization:
        headers["authorization"] = authorization
    if cookie:
        headers["cookie"] = cookie
    return asyncio.run(gate.answer(headers))


def set_cookie(answer: Answer) -> str:
    (value,) = [v for name, v in answer.headers if name == "Set-Cookie"]
    return value


def test_the_verifier_keeps_no_password_and_round_trips(verifier: Verifier) -> None:
    again = Verifier.decode(verifier.encode())
    assert again == verifier
    assert PASSWORD not in verifier.encode()
    assert again.matches(f"{USER}:{PASSWORD}".encode())
    assert not again.matches(f"{USER}:{PASSWORD}!".encode())


def test_no_credentials_get_the_challenge_without_a_check(verifier: Verifier) -> None:
    gate, _ = make_gate(verifier)
    answer = ask(gate)
    assert answer.status == 401 and answer.delay == 0
    assert dict(answer.headers)["WWW-Authenticate"].startswith('Basic realm="')
    assert gate.hashes == 0 and len(gate.failures) == 0


def test_only_caddy_may_ask(verifier: Verifier) -> None:
    gate, _ = make_gate(verifier)
    assert ask(gate, authorization=basic(USER, PASSWORD), secret="guessed").status == 403
    assert gate.hashes == 0


def test_a_wrong_password_flood_is_refused_without_hashing_past_the_limit(verifier: Verifier) -> None:
    gate, clock = make_gate(verifier, allowed=4)
    statuses = []
    for guess in range(30):
        clock.now += 1
        statuses.append(ask(gate, "10.0.0.66", authorization=basic(USER, f"guess {guess}")))
    assert [a.status for a in statuses[:4]] == [401] * 4
    assert {a.status for a in statuses[4:]} == {429}
    assert gate.hashes == 4  # 26 guesses cost nothing past the limit
    retry = int(dict(statuses[4].headers)["Retry-After"])
    assert 0 < retry <= gate.failures.window
    assert all(a.delay > 0 for a in statuses)  # every refused guess waits before its answer
    # A correct password from the same address is refused too: no free comparisons for it.
    assert ask(gate, "10.0.0.66", authorization=basic(USER, PASSWORD)).status == 429
    assert gate.hashes == 4
    # Another client signs in meanwhile, and its cookie passes from then on.
    granted = ask(gate, "10.0.0.7", authorization=basic(USER, PASSWORD))
    assert granted.status == 200 and gate.hashes == 5
    cookie = set_cookie(granted).split(";")[0]
    assert ask(gate, "10.0.0.7", cookie=cookie).status == 204
    # Past its window the flooding client may try again.
    clock.now += gate.failures.window + 1
    assert ask(gate, "10.0.0.66", authorization=basic(USER, "one more")).status == 401
    assert gate.hashes == 6


def test_accepted_credentials_are_not_hashed_again(verifier: Verifier) -> None:
    gate, _ = make_gate(verifier)
    for client in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
        assert ask(gate, client, authorization=basic(USER, PASSWORD)).status == 200
    assert gate.hashes == 1
    assert ask(gate, authorization=basic("someone", PASSWORD)).status == 401  # the user name counts
    assert gate.hashes == 2


def test_the_cookie_is_signed_scoped_and_expires(verifier: Verifier) -> None:
    gate, clock = make_gate(verifier)
    granted = ask(gate, authorization=basic(USER, PASSWORD))
    header = set_cookie(granted)
    for attribute in ("Path=/", "HttpOnly", "SameSite=Strict", "Max-Age="):
        assert attribute in header
    assert "Secure" not in header  # plain HTTP here; over TLS it is added:
    secure = asyncio.run(gate.answer({"x-gate-secret": SECRET, "authorization": basic(USER, PASSWORD),
                                      "x-forwarded-proto": "https"}))
    assert "; Secure" in set_cookie(secure)
    cookie = header.split(";")[0]
    value = cookie_from(f"other=1; {cookie}")
    assert ask(gate, cookie=f"{COOKIE}={value}").status == 204
    expiry, signature = value.split(".")
    forged = [f"{int(expiry) + 10**6}.{signature}",  # a later expiry under the old signature
              f"{expiry}.{signature[:-2]}AA",  # a changed signature
              f"{expiry}.", "", "garbage", f"{'9' * 40}.{signature}"]
    for bad in forged:
        assert ask(gate, cookie=f"{COOKIE}={bad}").status == 401, bad
    other_key = Gate(USER, verifier, b"o" * 32, SECRET, clock=clock)
    assert ask(other_key, cookie=cookie).status == 401  # a cookie of another server run
    clock.now += gate.cookies.lifetime + 1
    assert ask(gate, cookie=cookie).status == 401  # expired
    assert gate.hashes == 1


def test_oversized_credentials_are_refused_before_any_hashing(verifier: Verifier) -> None:
    gate, _ = make_gate(verifier)
    answer = ask(gate, authorization=basic(USER, "x" * 2000))
    assert answer.status == 431 and gate.hashes == 0
    assert len(gate.failures) == 1  # and counted


def test_malformed_credentials_are_failures_without_a_hash(verifier: Verifier) -> None:
    gate, _ = make_gate(verifier)
    for header in ("Bearer abc", "Basic ***not base64***"):
        assert ask(gate, authorization=header).status == 401
    assert gate.hashes == 0 and len(gate.failures) == 1


def test_a_full_bucket_drains_one_try_at_a_time(verifier: Verifier) -> None:
    """A class behind one address whose bucket one student's typos filled gets its next try
    after window / allowed seconds, not a whole window, and then only one."""
    gate, clock = make_gate(verifier, allowed=4)
    for guess in range(4):
        assert ask(gate, "10.0.0.80", authorization=basic(USER, f"typo {guess}")).status == 401
    assert ask(gate, "10.0.0.80", authorization=basic(USER, PASSWORD)).status == 429
    wait = int(dict(ask(gate, "10.0.0.80", authorization=basic(USER, PASSWORD)).headers)["Retry-After"])
    assert wait <= gate.failures.window / 4 + 1
    clock.now += gate.failures.window / 4 + 1
    assert ask(gate, "10.0.0.80", authorization=basic(USER, PASSWORD)).status == 200  # the right one, checked
    # A right password gives back only its own count: the earlier typos still drain in turn.
    assert ask(gate, "10.0.0.80", authorization=basic(USER, "again")).status == 401
    assert ask(gate, "10.0.0.80", authorization=basic(USER, "once more")).status == 429
    assert gate.hashes == 6


def test_the_table_of_failures_has_a_cap(verifier: Verifier) -> None:
    gate, _ = make_gate(verifier, cap=50)
    table = gate.failures
    for n in range(5000):
        table.record(f"10.1.{n // 256}.{n % 256}", 1.0 + n)
    assert len(table) == 50
    assert table.retry_after("10.1.0.0", 5001.0) == 0  # the oldest were forgotten first


@pytest.mark.parametrize(("address", "key"), [
    ("192.0.2.5", "192.0.2.5"),
    ("::ffff:192.0.2.5", "192.0.2.5"),
    ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
    ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"),
    ("", "unknown"),
], ids=["ipv4", "mapped", "ipv6-a", "ipv6-b-same-64", "missing"])
def test_failures_count_per_address_and_ipv6_per_64(address: str, key: str) -> None:
    assert client_key(address) == key


def test_the_server_speaks_http_and_refuses_bodies_and_huge_heads(verifier: Verifier,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate_module, "REFUSAL_DELAY_S", 0.0)
    gate, _ = make_gate(verifier)

    async def exchange(port: int, raw: bytes) -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(raw)
        await writer.drain()
        answer = await reader.read(4096)
        writer.close()
        return answer

    async def scenario() -> list[bytes]:
        ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(GateServer(gate).serve(0, ready.set_result))
        port = await asyncio.wait_for(ready, 10)
        head = f"GET /check HTTP/1.1\r\nHost: x\r\nX-Gate-Secret: {SECRET}\r\n"
        answers = [
            await exchange(port, (head + f"Authorization: {basic(USER, PASSWORD)}\r\n\r\n").encode()),
            await exchange(port, (head + "Content-Length: 5\r\n\r\nhello").encode()),
            await exchange(port, (head + "X-Big: " + "a" * 40_000 + "\r\n\r\n").encode()),
        ]
        task.cancel()
        return answers

    granted, body, huge = asyncio.run(scenario())
    assert granted.startswith(b"HTTP/1.1 200 ") and f"Set-Cookie: {COOKIE}=".encode() in granted
    assert body.startswith(b"HTTP/1.1 400 ")
    assert huge.startswith(b"HTTP/1.1 431 ")


def test_checks_running_at_once_cannot_pass_the_limit_together(verifier: Verifier) -> None:
    gate, _ = make_gate(verifier, allowed=4)

    async def at_once() -> list[Answer]:
        headers = [{"x-gate-secret": SECRET, "x-gate-client": "10.0.0.9",
                    "authorization": basic(USER, f"parallel {n}")} for n in range(16)]
        return list(await asyncio.gather(*(gate.answer(h) for h in headers)))

    statuses = [a.status for a in asyncio.run(at_once())]
    assert statuses.count(401) == 4 and gate.hashes == 4
    assert set(statuses) <= {401, 429, 503}
    # A right password checked is not left counted as a failure.
    right, _ = make_gate(verifier, allowed=4)
    assert ask(right, "10.0.0.9", authorization=basic(USER, PASSWORD)).status == 200
    assert right.failures.retry_after("10.0.0.9", right.clock()) == 0
    for n in range(3):
        ask(right, "10.0.0.9", authorization=basic(USER, f"typo {n}"))
    assert ask(right, "10.0.0.9", authorization=basic(USER, "typo 4")).status == 401  # the fourth still checked
