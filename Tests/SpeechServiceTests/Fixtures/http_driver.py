"""Drives `concat-synth serve --http` with the real clients apps use: the `openai` package and `speak2mary` (the
MaryTTS client of Home Assistant's integration), from tools/python-env. Prints one JSON object.

    http_driver.py openai BASE_URL OUT TEXT VOICE FORMAT SPEED   client.audio.speech.create, the bytes to OUT
    http_driver.py stream BASE_URL OUT TEXT VOICE FORMAT         with_streaming_response, chunk by chunk to OUT
    http_driver.py openai-error BASE_URL TEXT VOICE FORMAT SPEED the status and message of an API error
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
    http_driver.py bench HOST PORT CLIENTS REQUESTS TEXT         tools/bench: pcm requests on kept-alive connections
                                                                 (http.client, whose own cost is least), each
                                                                 one's time to its answer's first byte
"""

import http.client
import json
import socket
import sys
import threading
import time
import urllib.parse

import openai
from speak2mary import MaryTTS


def client(base_url, key="unused"):
    return openai.OpenAI(base_url=base_url, api_key=key, max_retries=0, timeout=60)


def main(command, *arguments):
    if command == "openai":
        base_url, out, text, voice, response_format, speed = arguments
        audio = client(base_url).audio.speech.create(
            model="tts-1", input=text, voice=voice, response_format=response_format, speed=float(speed))
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
        base_url, text, voice, response_format, speed = arguments
        try:
            client(base_url).audio.speech.create(
                model="tts-1", input=text, voice=voice, response_format=response_format, speed=float(speed))
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
    if command == "bench":
        host, port, clients, requests, text = arguments
        body = json.dumps({"model": "tts-1", "input": text, "response_format": "pcm"})   # the first voice
        first_byte_ms, errors = [], []
        lock = threading.Lock()

        def work():
            connection = http.client.HTTPConnection(host, int(port), timeout=60)
            for _ in range(int(requests)):
                try:
                    started = time.perf_counter()
                    connection.request("POST", "/v1/audio/speech", body, {"Content-Type": "application/json"})
                    response = connection.getresponse()
                    response.read(1)
                    first = time.perf_counter() - started
                    response.read()
                    with lock:
                        if response.status == 200:
                            first_byte_ms.append(first * 1000)
                        else:
                            errors.append(str(response.status))
                except Exception as error:  # every failure counts, whatever its kind
                    with lock:
                        errors.append(repr(error))
                    connection.close()
                    connection = http.client.HTTPConnection(host, int(port), timeout=60)

        threads = [threading.Thread(target=work) for _ in range(int(clients))]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return {"requests": int(clients) * int(requests), "errors": errors[:5], "error_count": len(errors),
                "seconds": time.monotonic() - started, "first_byte_ms": first_byte_ms}
    raise SystemExit("unknown command " + command)


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:])))
