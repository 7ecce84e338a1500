# SPDX-License-Identifier: GPL-3.0-or-later
"""Drives a Wyoming text-to-speech server with the real client, the `wyoming` package from PyPI.

Used by Tests/SpeechServiceTests and tools/bench. Prints one JSON object on standard output.

  describe URI
  synthesize URI OUT.raw [--voice NAME] [--language LANG] [--format text|ssml] TEXT
  stream URI OUT_PREFIX [--voice NAME] CHUNK...        one OUT_PREFIX-N.raw per audio-start … audio-stop
  load URI --clients N --requests M [--voice NAME] TEXT
  raw URI                                              sends standard input as it is, reads events until the server closes
  hangup URI TEXT [--reset]                            asks for TEXT, reads the first chunk, and disconnects
                                                       (with --reset, by a TCP reset: SO_LINGER of 0)
"""

import argparse
import asyncio
import json
import socket
import struct
import sys
import time

from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncClient
from wyoming.error import Error
from wyoming.event import async_read_event
from wyoming.info import Describe, Info
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeStopped,
    SynthesizeVoice,
)

TIMEOUT = 60


def voice_of(args):
    if args.voice is None and args.language is None:
        return None
    return SynthesizeVoice(name=args.voice, language=args.language)


async def read_speech(client):
    """Reads one audio-start … audio-stop; returns (audio bytes, formats, chunk sizes, seconds to first chunk)."""
    audio = bytearray()
    formats = []
    chunks = []
    started = time.perf_counter()
    first_chunk = None
    while True:
        event = await client.read_event()
        if event is None:
            raise RuntimeError("the server closed the connection mid-request")
        if Error.is_type(event.type):
            raise RuntimeError("error event: " + Error.from_event(event).text)
        if AudioStart.is_type(event.type):
            start = AudioStart.from_event(event)
            formats.append([start.rate, start.width, start.channels])
        elif AudioChunk.is_type(event.type):
            chunk = AudioChunk.from_event(event)
            if first_chunk is None:
                first_chunk = time.perf_counter() - started
            formats.append([chunk.rate, chunk.width, chunk.channels])
            chunks.append(len(chunk.audio))
            audio += chunk.audio
        elif AudioStop.is_type(event.type):
            return bytes(audio), formats, chunks, first_chunk
        else:
            raise RuntimeError("unexpected event " + event.type)


async def describe(args):
    async with AsyncClient.from_uri(args.uri) as client:
        await client.write_event(Describe().event())
        event = await asyncio.wait_for(client.read_event(), TIMEOUT)
        info = Info.from_event(event)
        print(json.dumps({"type": event.type, "data": event.data, "voices": [v.name for v in info.tts[0].voices]}))


async def synthesize(args):
    async with AsyncClient.from_uri(args.uri) as client:
        await client.write_event(
            Synthesize(text=args.text, voice=voice_of(args), text_format=args.format).event()
        )
        try:
            audio, formats, chunks, _ = await asyncio.wait_for(read_speech(client), TIMEOUT)
        except RuntimeError as error:
            print(json.dumps({"error": str(error)}))
            return
        with open(args.out, "wb") as out:
            out.write(audio)
        print(json.dumps({"formats": sorted(set(map(tuple, formats))), "chunks": chunks, "bytes": len(audio)}))


async def stream(args):
    async with AsyncClient.from_uri(args.uri) as client:
        await client.write_event(SynthesizeStart(voice=voice_of(args)).event())
        for chunk in args.chunks:
            await client.write_event(SynthesizeChunk(text=chunk).event())
        # What Home Assistant sends for servers that do not stream; a streaming server ignores it.
        await client.write_event(Synthesize(text="".join(args.chunks), voice=voice_of(args)).event())
        await client.write_event(SynthesizeStop().event())
        sentences = []
        while True:
            event = await asyncio.wait_for(client.read_event(), TIMEOUT)
            if event is None:
                raise RuntimeError("the server closed the connection mid-stream")
            if SynthesizeStopped.is_type(event.type):
                break
            if not AudioStart.is_type(event.type):
                raise RuntimeError("expected audio-start or synthesize-stopped, got " + event.type)
            audio, _, _, _ = await asyncio.wait_for(read_speech(client), TIMEOUT)
            path = "%s-%d.raw" % (args.out_prefix, len(sentences))
            with open(path, "wb") as out:
                out.write(audio)
            sentences.append(len(audio))
        print(json.dumps({"sentences": sentences}))


async def one_client(args, first_chunks, sizes, errors):
    try:
        async with AsyncClient.from_uri(args.uri) as client:
            for _ in range(args.requests):
                await client.write_event(Synthesize(text=args.text, voice=voice_of(args)).event())
                audio, _, _, first_chunk = await asyncio.wait_for(read_speech(client), TIMEOUT)
                first_chunks.append(first_chunk)
                sizes.append(len(audio))
    except Exception as error:  # every failure is counted and reported, none stops the other clients
        errors.append(repr(error))


async def load(args):
    first_chunks, sizes, errors = [], [], []
    started = time.perf_counter()
    await asyncio.gather(*(one_client(args, first_chunks, sizes, errors) for _ in range(args.clients)))
    elapsed = time.perf_counter() - started
    first_chunks.sort()
    print(
        json.dumps(
            {
                "requests": len(sizes),
                "errors": errors,
                "sizes": sorted(set(sizes)),
                "seconds": elapsed,
                "first_chunk_ms": [1000 * s for s in first_chunks],
            }
        )
    )


async def raw(args):
    if args.uri.startswith("unix://"):
        reader, writer = await asyncio.open_unix_connection(args.uri[len("unix://") :])
    else:
        host, port = args.uri[len("tcp://") :].rsplit(":", 1)
        reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(sys.stdin.buffer.read())
    await writer.drain()
    events = []
    while True:
        event = await asyncio.wait_for(async_read_event(reader), TIMEOUT)
        if event is None:
            break
        events.append({"type": event.type, "data": event.data})
    writer.close()
    print(json.dumps({"events": events}))


async def hangup(args):
    async with AsyncClient.from_uri(args.uri) as client:
        await client.write_event(Synthesize(text=args.text, voice=voice_of(args)).event())
        while True:
            event = await asyncio.wait_for(client.read_event(), TIMEOUT)
            if event is None or AudioChunk.is_type(event.type):
                break
        if args.reset:
            client._writer.get_extra_info("socket").setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    print(json.dumps({"hung_up": event is not None}))


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("describe")
    command.add_argument("uri")
    command = commands.add_parser("synthesize")
    command.add_argument("uri")
    command.add_argument("out")
    command.add_argument("text")
    command.add_argument("--format")
    command = commands.add_parser("stream")
    command.add_argument("uri")
    command.add_argument("out_prefix")
    command.add_argument("chunks", nargs="+")
    command = commands.add_parser("load")
    command.add_argument("uri")
    command.add_argument("text")
    command.add_argument("--clients", type=int, default=1)
    command.add_argument("--requests", type=int, default=1)
    command = commands.add_parser("hangup")
    command.add_argument("uri")
    command.add_argument("text")
    command.add_argument("--reset", action="store_true")
    command = commands.add_parser("raw")
    command.add_argument("uri")
    for command in commands.choices.values():
        command.add_argument("--voice")
        command.add_argument("--language")
    args = parser.parse_args()
    asyncio.run(globals()[args.command](args))


if __name__ == "__main__":
    sys.exit(main())
