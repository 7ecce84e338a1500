# SPDX-License-Identifier: GPL-3.0-or-later
"""Drives `concat-synth serve --http` with the real clients apps use: the `openai` package and `speak2mary` (the
MaryTTS client of Home Assistant's integration), from tools/python-env. Prints one JSON object.

    http_driver.py openai BASE_URL OUT TEXT VOICE FORMAT SPEED [RATE]
                                                                 client.audio.speech.create, the bytes to OUT; RATE
                                                                 the server's sample_rate, sent as extra_body
    http_driver.py stream BASE_URL OUT TEXT VOICE FORMAT         with_streaming_response, chunk by chunk to OUT
    http_driver.py openai-error BASE_URL TEXT VOICE FORMAT SPEED [RATE]
                                                                 the status and message of an API error
    http_driver.py mary HOST PORT OUT TEXT LOCALE VOICE CODEC    speak2mary's MaryTTS(...).speak, the bytes to OUT
    http_driver.py load BASE_URL CLIENTS REQUESTS TEXT           CLIENTS threads of REQUESTS requests each
    http_driver.py slow HOST PORT                                a request's head a byte at a time, until answered
    http_driver.py hangup HOST PORT TEXT                         a long pcm request, read a little, then gone
    http_driver.py refused CLIENT URL KIND                       a request refused while CLIENT (http.client or
                                                                 openai) is still sending it; the status and body it
                                                                 reads. KIND: body (6 MiB), head (6 MiB of header),
                                                                 malformed (Content-Length and chunked, 6 MiB), slow
                                                                 (1 KiB every 0.1 s for 2 s)
    http_driver.py flood HOST PORT PACE                          a refused head, then bytes sent until the server cuts
                                                                 the connection: at once (PACE 0) or a byte a PACE s
    http_driver.py soak BASE_URL WYOMING_PORT CLIENTS SECONDS OUT
                                                                 tools/bench's soak: CLIENTS threads of mixed
                                                                 requests and faults for SECONDS, the first answer of
                                                                 each good request kept in OUT to check against render
    http_driver.py bench HOST PORT CLIENTS REQUESTS TEXT [RATE]  tools/bench: pcm requests (at RATE) on kept-alive
                                                                 connections, each one's time to its answer's first
                                                                 byte; the clients are asyncio tasks on one thread
                                                                 reading HTTP/1.1 as it comes, as the Wyoming
                                                                 driver's load is, so that both servers are measured
                                                                 with clients of one kind
"""

import asyncio
import http.client
import json
import select
import socket
import sys
import threading
import time
import urllib.parse

import openai
from speak2mary import MaryTTS
from wyoming.audio import AudioChunk, AudioStop
from wyoming.error import Error
from wyoming.event import read_event, write_event
from wyoming.tts import Synthesize, SynthesizeVoice


def client(base_url, key="unused"):
    return openai.OpenAI(base_url=base_url, api_key=key, max_retries=0, timeout=60)


def sample_rate(rate):
    """The server's own `sample_rate` field, sent as the openai package sends fields it does not know."""
    return {"extra_body": {"sample_rate": int(rate[0])}} if rate else {}


def main(command, *arguments):
    if command == "openai":
        base_url, out, text, voice, response_format, speed, *rate = arguments
        audio = client(base_url).audio.speech.create(
            model="tts-1", input=text, voice=voice, response_format=response_format, speed=float(speed),
            **sample_rate(rate))
        audio.write_to_file(out)
        return {"content_type": audio.response.headers.get("content-type")}
    if command == "stream":
        base_url, out, text, voice, response_format = arguments
        chunks = 0
        started = time.monotonic()
        first = None
        with client(base_url).audio.speech.with_streaming_response.create(
                model="tts-1", input=text, voice=voice, response_format=response_format) as response:
            headers = dict(response.headers)
            with open(out, "wb") as file:
                for chunk in response.iter_bytes(4096):
                    if first is None:
                        first = time.monotonic() - started
                    chunks += 1
                    file.write(chunk)
        return {"chunks": chunks, "transfer_encoding": headers.get("transfer-encoding"),
                "first_chunk_seconds": first}
    if command == "openai-error":
        base_url, text, voice, response_format, speed, *rate = arguments
        try:
            client(base_url).audio.speech.create(
                model="tts-1", input=text, voice=voice, response_format=response_format, speed=float(speed),
                **sample_rate(rate))
        except openai.APIStatusError as error:
            return {"status": error.status_code, "body": error.body}
        return {"status": 200}
    if command == "mary":
        host, port, out, text, locale, voice, codec = arguments
        audio = MaryTTS(host=host, port=int(port), codec=codec, locale=locale, voice=voice).speak(text)
        with open(out, "wb") as file:
            file.write(audio)
        return {"bytes": len(audio)}
    if command == "load":
        base_url, clients, requests, text = arguments
        errors = []
        sizes = set()
        lock = threading.Lock()

        def work():
            speech = client(base_url)
            for _ in range(int(requests)):
                try:
                    audio = speech.audio.speech.create(model="tts-1", input=text, voice="org.concatsynth.en",
                                                       response_format="pcm")
                    with lock:
                        sizes.add(len(audio.content))
                except Exception as error:  # every failure counts, whatever its kind
                    with lock:
                        errors.append(repr(error))

        threads = [threading.Thread(target=work) for _ in range(int(clients))]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return {"errors": errors[:5], "error_count": len(errors), "sizes": sorted(sizes),
                "seconds": time.monotonic() - started}
    if command == "slow":
        host, port = arguments
        connection = socket.create_connection((host, int(port)))
        started = time.monotonic()
        answer = b""
        try:
            for byte in b"GET /v1/models HTTP/1.1\r\nHost: localhost\r\n":
                connection.sendall(bytes([byte]))
                connection.settimeout(0.3)
                try:
                    answer += connection.recv(4096)
                    if answer:
                        break
                except socket.timeout:
                    pass
            connection.settimeout(10)
            while True:
                data = connection.recv(4096)
                if not data:
                    break
                answer += data
        except (ConnectionResetError, BrokenPipeError):
            pass
        return {"answer": answer.decode("utf-8", "replace"), "seconds": time.monotonic() - started}
    if command == "hangup":
        host, port, text = arguments
        body = json.dumps({"model": "tts-1", "input": text, "response_format": "pcm"}).encode()
        connection = socket.create_connection((host, int(port)))
        connection.sendall(b"POST /v1/audio/speech HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                           + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        received = connection.recv(65536)
        connection.close()
        return {"received": len(received), "status_line": received.split(b"\r\n")[0].decode()}
    if command == "refused":
        kind_of_client, url, kind = arguments
        size = 6 << 20
        if kind_of_client == "openai":
            headers = {}
            text = "Hello"
            if kind == "body":
                text = "a" * size
            elif kind == "head":
                headers = {"X-Padding": "b" * size}
            elif kind == "malformed":
                headers = {"Transfer-Encoding": "chunked", "Content-Length": "12"}
                text = "a" * (512 << 10)
            try:
                client(url).audio.speech.create(model="tts-1", input=text, voice="org.concatsynth.en",
                                                response_format="wav", extra_headers=headers)
            except openai.APIStatusError as error:
                return {"status": error.status_code, "body": json.dumps(error.body)}
            return {"status": 200}
        parts = urllib.parse.urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        if kind == "body":
            connection.request("POST", "/v1/audio/speech", json.dumps({"model": "tts-1", "input": "a" * size}),
                               {"Content-Type": "application/json"})
        elif kind == "head":
            connection.request("GET", "/v1/models", headers={"X-Padding": "b" * size})
        elif kind == "malformed":
            connection.putrequest("POST", "/v1/audio/speech")
            connection.putheader("Content-Length", str(size))
            connection.putheader("Transfer-Encoding", "chunked")
            connection.endheaders()
            connection.send(b"a" * size)
        elif kind == "slow":
            connection.putrequest("POST", "/v1/audio/speech")
            connection.putheader("Content-Length", str(20 << 10))
            connection.endheaders()
            for _ in range(20):
                connection.send(b"a" * 1024)
                time.sleep(0.1)
        response = connection.getresponse()
        return {"status": response.status, "body": response.read().decode("utf-8", "replace")}
    if command == "flood":
        host, port, pace = arguments
        connection = socket.create_connection((host, int(port)))
        connection.sendall(b"GET /v1/models HTTP/1.1\r\nX-Padding: " + b"b" * (20 << 10))
        sent = 0
        started = time.monotonic()
        chunk = b"b" * (64 << 10 if float(pace) == 0 else 1)
        try:
            while time.monotonic() - started < 120:
                connection.sendall(chunk)
                sent += len(chunk)
                time.sleep(float(pace))
        except OSError as error:  # the server's cut: a reset or a broken pipe
            return {"sent": sent, "error": type(error).__name__}
        return {"sent": sent, "error": None}
    if command == "soak":
        return soak(*arguments)
    if command == "bench":
        host, port, clients, requests, text, *rate = arguments
        fields = {"model": "tts-1", "input": text, "response_format": "pcm"}   # the first voice
        body = json.dumps(fields | ({"sample_rate": int(rate[0])} if rate else {})).encode()
        return asyncio.run(bench(host, int(port), int(clients), int(requests), body))
    raise SystemExit("unknown command " + command)


async def bench(host, port, clients, requests, body):
    """`clients` kept-alive connections sending `requests` pcm requests each, one after another."""
    request = (f"POST /v1/audio/speech HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\n\r\n").encode() + body
    first_byte_ms, errors = [], []

    async def answer(reader, started):
        """Reads one answer; its status and the seconds to its first body byte."""
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
        status = int(head.split(" ", 2)[1])
        if "transfer-encoding: chunked" not in head:
            length = int(head.split("content-length:", 1)[1].split("\r\n", 1)[0])
            await reader.readexactly(length)
            return status, None
        first = None
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if first is None and size > 0:
                first = time.perf_counter() - started
            await reader.readexactly(size + 2)
            if size == 0:
                return status, first

    async def client():
        connection = None
        for _ in range(requests):
            try:
                if connection is None:
                    connection = await asyncio.open_connection(host, port)
                reader, writer = connection
                started = time.perf_counter()
                writer.write(request)
                status, first = await asyncio.wait_for(answer(reader, started), 60)
                if status == 200:
                    first_byte_ms.append(first * 1000)
                else:
                    errors.append(str(status))
            except Exception as error:  # every failure counts, whatever its kind
                errors.append(repr(error))
                if connection is not None:
                    connection[1].close()
                connection = None
        if connection is not None:
            connection[1].close()

    started = time.monotonic()
    await asyncio.gather(*(client() for _ in range(clients)))
    return {"requests": clients * requests, "errors": errors[:5], "error_count": len(errors),
            "seconds": time.monotonic() - started, "first_byte_ms": first_byte_ms}


SOAK_TEXTS = ["Hello, nice to meet you.", "Good morning. Double tap to open.", "The front door is open.",
              '<speak>Hello <break time="250ms"/> goodbye</speak>']
LONG_TEXT = "Good morning. Double tap to open. " * 200


def soak(base_url, wyoming_port, clients, seconds, out):
    """Mixed traffic: good requests in every format, whose answers must be the same each time (and, for the first of
    each, render's: the caller checks), and faults, each of which must be answered as the API says. Each action is one
    request the server logs, but a pipelined pair, which is two."""
    parts = urllib.parse.urlsplit(base_url)
    host, port = parts.hostname, parts.port
    lock = threading.Lock()
    first_answers = {}   # key -> bytes
    samples = []         # what the caller renders to compare
    counts = {}
    failures = []
    requests = [0]

    def raw(payload, read_all=True):
        connection = socket.create_connection((host, port), timeout=60)
        try:
            connection.sendall(payload)
            answer = b""
            while read_all:
                data = connection.recv(65536)
                if not data:
                    break
                answer += data
            return answer
        finally:
            connection.close()

    def voice_list():
        connection = http.client.HTTPConnection(host, port, timeout=60)
        connection.request("GET", "/v1/audio/voices")
        return [voice["id"] for voice in json.loads(connection.getresponse().read())["voices"]]

    voice = voice_list()[0]
    deadline = time.monotonic() + float(seconds)

    def keep(key, answer, kind, text, audio_format):
        """The first answer of a request is kept for the caller; the next ones must equal it."""
        with lock:
            if key not in first_answers:
                first_answers[key] = answer
                name = "sample-%d" % len(samples)
                with open(out + "/" + name, "wb") as file:
                    file.write(answer)
                samples.append({"file": name, "kind": kind, "text": text, "format": audio_format, "voice": voice})
                return True
            return first_answers[key] == answer

    def http_status(method, path, body=None, headers=None):
        connection = http.client.HTTPConnection(host, port, timeout=60)
        try:
            connection.request(method, path, body, headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def speech_body(text, audio_format, voice_name=None):
        return json.dumps({"model": "tts-1", "input": text, "voice": voice_name or voice,
                           "response_format": audio_format})

    def openai_speech(speech, n):
        text = SOAK_TEXTS[n % len(SOAK_TEXTS)]
        audio_format = ["wav", "flac", "mp3", "opus"][n // len(SOAK_TEXTS) % 4]
        audio = speech.audio.speech.create(model="tts-1", input=text, voice=voice, response_format=audio_format)
        return keep(("openai", text, audio_format), audio.content, "openai", text, audio_format)

    def pcm_stream(speech, n):
        text = SOAK_TEXTS[n % len(SOAK_TEXTS)]
        with speech.audio.speech.with_streaming_response.create(
                model="tts-1", input=text, voice=voice, response_format="pcm") as response:
            audio = b"".join(response.iter_bytes(4096))
        return keep(("pcm", text), audio, "openai", text, "pcm")

    def lists(speech, n):
        path = ["/v1/audio/voices", "/v1/models", "/voices", "/locales"][n % 4]
        status, _ = http_status("GET", path)
        return status == 200

    def mary(speech, n):
        text = SOAK_TEXTS[n % 3]
        query = urllib.parse.urlencode({"INPUT_TEXT": text, "INPUT_TYPE": "TEXT", "LOCALE": "en_US", "VOICE": voice,
                                        "AUDIO": "WAVE_FILE", "OUTPUT_TYPE": "AUDIO"})
        status, audio = http_status("GET", "/process?" + query)
        return status == 200 and keep(("mary", text), audio, "mary", text, "WAVE_FILE")

    def wyoming(speech, n):
        text = SOAK_TEXTS[n % 3]
        connection = socket.create_connection((host, int(wyoming_port)), timeout=60)
        try:
            stream = connection.makefile("rwb")
            write_event(Synthesize(text=text, voice=SynthesizeVoice(name=voice)).event(), stream)
            stream.flush()
            audio = bytearray()
            while True:
                event = read_event(stream)
                if event is None or Error.is_type(event.type):
                    return False
                if AudioChunk.is_type(event.type):
                    audio += AudioChunk.from_event(event).audio
                if AudioStop.is_type(event.type):
                    break
            return keep(("wyoming", text), bytes(audio), "wyoming", text, "raw")
        finally:
            connection.close()

    def pipelined(speech, n):
        answer = raw(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"
                     + b"GET /voices HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return answer.count(b"HTTP/1.1 200 OK") == 2

    def hang_up(speech, n):
        connection = socket.create_connection((host, port), timeout=60)
        body = speech_body(LONG_TEXT, "pcm").encode()
        connection.sendall(b"POST /v1/audio/speech HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           + b"Content-Length: %d\r\n\r\n" % len(body) + body)
        answer = connection.recv(65536)
        connection.close()
        return answer.startswith(b"HTTP/1.1 200 OK")

    def wyoming_hang_up(speech, n):
        connection = socket.create_connection((host, int(wyoming_port)), timeout=60)
        stream = connection.makefile("rwb")
        write_event(Synthesize(text=LONG_TEXT, voice=SynthesizeVoice(name=voice)).event(), stream)
        stream.flush()
        event = read_event(stream)
        connection.close()
        return event is not None and not Error.is_type(event.type)

    def slow(speech, n):
        connection = http.client.HTTPConnection(host, port, timeout=60)
        connection.putrequest("POST", "/v1/audio/speech")
        connection.putheader("Content-Length", "100000")
        connection.endheaders()
        started = time.monotonic()
        # Sent slowly until the server's answer is there to read, as a slow client on a bad link would.
        while time.monotonic() - started < 30:
            connection.send(b" ")
            readable, _, _ = select.select([connection.sock], [], [], 0.2)
            if readable:
                break
        response = connection.getresponse()
        return response.status == 408

    def too_large(speech, n):
        status, _ = http_status("POST", "/v1/audio/speech", speech_body("a" * (2 << 20), "wav"),
                                {"Content-Type": "application/json"})
        return status == 413

    def head_too_large(speech, n):
        status, _ = http_status("GET", "/v1/models", None, {"X-Padding": "b" * (64 << 10)})
        return status == 431

    def malformed_json(speech, n):
        status, _ = http_status("POST", "/v1/audio/speech", '{"input": "Hello', {"Content-Type": "application/json"})
        return status == 400

    def malformed_ssml(speech, n):
        status, body = http_status("POST", "/v1/audio/speech", speech_body("<speak>Hello <break", "wav"),
                                   {"Content-Type": "application/json"})
        return status == 400 and b"line 1" in body

    def malformed_http(speech, n):
        return raw(b"HELLO THERE\r\n\r\n").startswith(b"HTTP/1.1 400")

    def unknown_voice(speech, n):
        status, _ = http_status("POST", "/v1/audio/speech", speech_body("Hello", "wav", "nobody.such"),
                                {"Content-Type": "application/json"})
        return status == 400

    good = [openai_speech, openai_speech, openai_speech, pcm_stream, pcm_stream, lists, mary, wyoming, wyoming,
            pipelined]
    faults = [hang_up, wyoming_hang_up, slow, too_large, head_too_large, malformed_json, malformed_ssml,
              malformed_http, unknown_voice]
    # Three good requests to a fault, on the whole.
    actions = [a for i in range(len(faults)) for a in (good[i % len(good)], good[(i + 3) % len(good)],
                                                       good[(i + 7) % len(good)], faults[i])]

    def work(index):
        speech = client(base_url + "/v1")
        n = index
        while time.monotonic() < deadline:
            action = actions[n % len(actions)]
            name = action.__name__
            try:
                ok = action(speech, n // len(actions))
                error = None if ok else "unexpected answer"
            except Exception as caught:  # every failure counts, whatever its kind
                ok, error = False, repr(caught)[:300]
            with lock:
                counts[name] = counts.get(name, 0) + 1
                requests[0] += 2 if action is pipelined else 1
                if not ok:
                    failures.append(name + ": " + error)
            n += 1

    threads = [threading.Thread(target=work, args=(index * 5,)) for index in range(int(clients))]
    # The caller times the server from here, not from this interpreter's start.
    open(out + "/started", "w").close()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"requests": requests[0] + 1, "counts": counts, "failures": failures[:20], "failure_count": len(failures),
            "samples": samples}


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:])))
