# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs `voicebank record` on a pseudo-terminal and presses its keys as a person would. Run by RecordTests with
tools/python-env's interpreter; prints one JSON object on standard output.

    terminal_driver.py session HOLD_SECONDS COMMAND…   records and keeps a take by its keys, moves back with the left
                                                       arrow, starts another take and interrupts it with SIGINT
    terminal_driver.py end q|SIGTERM COMMAND…          waits for the first prompt, then quits with q or SIGTERM
"""

import json
import os
import select
import signal
import subprocess
import sys
import termios
import time


class Terminal:
    def __init__(self, command):
        self.master, self.slave = os.openpty()
        self.before = termios.tcgetattr(self.slave)
        self.output = bytearray()
        self.searched = 0
        self.process = subprocess.Popen(
            command, stdin=self.slave, stdout=self.slave, stderr=self.slave, start_new_session=True
        )

    def read(self, seconds):
        ready, _, _ = select.select([self.master], [], [], seconds)
        if not ready:
            return False
        try:
            self.output += os.read(self.master, 65536)
        except OSError:
            return False
        return True

    def wait_for(self, text, seconds=20):
        """Waits until the terminal shows `text` after what the last wait found."""
        deadline = time.monotonic() + seconds
        wanted = text.encode()
        while True:
            found = self.output.find(wanted, self.searched)
            if found != -1:
                self.searched = found + len(wanted)
                return
            if time.monotonic() > deadline or not self.read(deadline - time.monotonic()):
                raise SystemExit(f"the terminal never showed {text!r}: {self.output.decode(errors='replace')!r}")

    def press(self, keys):
        os.write(self.master, keys)

    def lflag(self):
        return termios.tcgetattr(self.slave)[3]

    def finish(self):
        status = self.process.wait(20)
        while self.read(0.2):
            pass
        return {
            "output": self.output.decode(errors="replace"),
            "status": status,
            "restored": termios.tcgetattr(self.slave) == self.before,
        }


def session(hold, command):
    terminal = Terminal(command)
    terminal.wait_for("Press R to record.")
    lflag = terminal.lflag()
    raw = not (lflag & termios.ICANON) and not (lflag & termios.ECHO)
    terminal.press(b"r")
    terminal.wait_for("Press Space to stop.")
    time.sleep(hold)
    terminal.press(b" ")
    terminal.wait_for("Stopped: a take of ")
    terminal.press(b"\r")
    terminal.wait_for("Kept take 1 of ")
    terminal.press(b"\x1b[D")
    terminal.wait_for("Prompt 1 of ")
    terminal.press(b"r")
    terminal.wait_for("Press Space to stop.")
    terminal.wait_for("peak ")
    terminal.process.send_signal(signal.SIGINT)
    return {"raw": raw, **terminal.finish()}


def end(how, command):
    terminal = Terminal(command)
    terminal.wait_for("Press R to record.")
    if how == "q":
        terminal.press(b"q")
    else:
        terminal.process.send_signal(getattr(signal, how))
    return terminal.finish()


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "session":
        print(json.dumps(session(float(arguments[0]), arguments[1:])))
    elif command == "end":
        print(json.dumps(end(arguments[0], arguments[1:])))
    else:
        raise SystemExit(f"unknown command {command}")
