# SPDX-License-Identifier: GPL-3.0-or-later
"""Drives the studio's page in Debian's headless Chromium through Selenium, as a person at the keyboard would, with
Chromium's fake microphone playing a WAV file. Run by StudioBrowserTests with tools/python-env's interpreter; prints
one JSON object on standard output.

    studio_driver.py session URL MICROPHONE.wav SCREENSHOT.png PASTED_TEXT SENTENCE LISTENED.wav SERVER_PID RESTART RATE
    studio_driver.py positions URL MICROPHONE.wav SCREENSHOT.png TAKE_SECONDS
    studio_driver.py loudness URL MICROPHONE.wav TAKE_SECONDS
    studio_driver.py levels URL LOUD.wav QUIET.wav
    studio_driver.py pages URL MICROPHONE.wav
    studio_driver.py cross_origin URL

RESTART is the command that starts the studio again, as a JSON array; the driver kills SERVER_PID mid-take with
SIGKILL, runs RESTART, opens the address it prints, and ends it. RATE is the rate the microphone's track says it
runs at (`browser`).

`positions` records a script of a phrase and a phrase's final take from a microphone that says one word, with the
position chosen by keyboard, skip, redo, and what listening to each kept take found.

`levels` records a take from a loud microphone and one from a quiet one, each in a browser of its own; `pages` opens
the studio in two tabs of one browser; `cross_origin` sends the studio requests from a page of another port.
"""

import base64
import contextlib
import functools
import http.server
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

# How long a take is held: the fake microphone's file repeats a tone every 1.4 s, and a take of about 2 s once its ends
# are left out begins or ends in the room's noise, which the pack trims (StudioBrowserTests.tone).
TAKE_SECONDS = 2.2


def browser(microphone, profile, device_rate=None):
    """Headless Chromium whose microphone plays `microphone`. Its fake device runs at the rate of the output, 44100 Hz;
    with `device_rate`, its track says it runs at that rate instead, as a real microphone whose own rate is not the
    output's does, and Chromium converts the fake device's samples to it."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in [
        "--headless=new",
        # Root in a container has no user namespaces for Chromium's sandbox.
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--user-data-dir={profile}",
        "--window-size=1000,1150",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        f"--use-file-for-fake-audio-capture={microphone}",
        "--autoplay-policy=no-user-gesture-required",
    ]:
        options.add_argument(argument)
    options.set_capability("goog:loggingOptions", {"browser": "ALL"})
    # Debian's chromedriver, so that Selenium Manager downloads nothing.
    driver = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    if device_rate:
        driver.execute_cdp_cmd(
            "Page.addScriptToEvaluateOnNewDocument",
            {
                "source": f"""
                const settings = MediaStreamTrack.prototype.getSettings;
                MediaStreamTrack.prototype.getSettings = function () {{
                  return {{ ...settings.call(this), sampleRate: {int(device_rate)} }};
                }};
                """
            },
        )
    return driver


class Page:
    def __init__(self, driver):
        self.driver = driver
        self.statuses = []

    def text(self, element_id):
        return self.driver.find_element(By.ID, element_id).text

    def status(self):
        return self.text("status")

    def hear_announcements(self):
        """From now on, keeps every text the live region is given, however soon the next replaces it (`said`)."""
        self.driver.execute_script(
            """
            window.said = [];
            const region = document.getElementById('status');
            new MutationObserver(() => window.said.push(region.textContent)).observe(region, {
              childList: true, characterData: true, subtree: true,
            });
            """
        )

    def said(self):
        return self.driver.execute_script("return window.said")

    def wait_for_said(self, start, seconds=40):
        """Waits until the live region has been given a text starting with `start`, and returns it."""
        try:
            WebDriverWait(self.driver, seconds, poll_frequency=0.05).until(
                lambda _: any(text.startswith(start) for text in self.said())
            )
        except Exception:
            raise SystemExit(f"the live region was never given {start!r}: {self.said()!r}")
        return next(text for text in self.said() if text.startswith(start))

    def press(self, key):
        ActionChains(self.driver).send_keys(key).perform()

    def wait_for_status(self, start, seconds=40):
        """Waits until the live region's text starts with `start`, and keeps it."""
        try:
            WebDriverWait(self.driver, seconds, poll_frequency=0.05).until(lambda _: self.status().startswith(start))
        except Exception:
            raise SystemExit(f"the status never started with {start!r}: {self.status()!r}; before: {self.statuses}")
        self.statuses.append(self.status())
        return self.statuses[-1]

    def record(self):
        self.press("r")
        self.wait_for_status("Recording")
        time.sleep(TAKE_SECONDS)
        self.press(Keys.SPACE)
        return self.wait_for_status("Stopped:")

    def element(self, element_id):
        """The element, scrolled to the middle of the window, clear of the status line fixed at the bottom."""
        element = self.driver.find_element(By.ID, element_id)
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        return element

    def script(self):
        return [item.text for item in self.driver.find_elements(By.CSS_SELECTOR, "#prompts button")]

    def keep(self):
        self.press(Keys.ENTER)
        return self.wait_for_status("Kept take")

    def wait_for_hearing(self, start, seconds=30):
        """Waits until the listening's region says something starting with `start`, and returns it."""
        try:
            WebDriverWait(self.driver, seconds, poll_frequency=0.05).until(
                lambda _: self.text("hearing-text").startswith(start)
            )
        except Exception:
            raise SystemExit(f"the hearing never started with {start!r}: {self.text('hearing-text')!r}")
        return self.text("hearing-text")


@contextlib.contextmanager
def studio_page(url, microphone, device_rate=None):
    """The studio's page at `url` in a browser of its own (see `browser`), once it has said its first prompt."""
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(microphone, profile, device_rate)
        try:
            page = Page(driver)
            driver.get(url)
            page.wait_for_status("Prompt 1 of")
            yield page
        finally:
            driver.quit()


def fetch(driver, element_id, base64):
    """What the page's element loads from its src: the bytes in base64, or the text."""
    answer = driver.execute_async_script(
        """
        const [id, isBinary, done] = arguments;
        fetch(document.getElementById(id).src)
          .then((response) => (isBinary ? response.arrayBuffer() : response.text()))
          .then((body) => {
            if (!isBinary) return done({ body });
            let text = '';
            for (const byte of new Uint8Array(body)) text += String.fromCharCode(byte);
            done({ body: btoa(text) });
          })
          .catch((error) => done({ error: error.message }));
        """,
        element_id,
        base64,
    )
    if "error" in answer:
        raise SystemExit(f"the page could not load #{element_id}'s src: {answer['error']}")
    return answer["body"]


def session(url, microphone, screenshot, pasted, sentence, listened, server, restart, device_rate):
    with studio_page(url, microphone, device_rate) as page:
        driver = page.driver
        output_rate = driver.execute_script("return new AudioContext().sampleRate")
        page.hear_announcements()
        first_prompt = page.text("prompt-text")
        # The first take: the room is heard before it, so the level line's noise floor is the room's from the start.
        page.press("r")
        page.wait_for_status("Recording")
        time.sleep(TAKE_SECONDS)
        first_level = page.text("level")
        page.press(Keys.SPACE)
        page.wait_for_status("Stopped:")
        # P plays the take just recorded; kept, it is on to prompt 2, ↑ goes back, P plays the take as the pack
        # holds it, and → comes on again.
        page.press("p")
        played = page.wait_for_status("Playing the take just recorded, trimmed as it will be kept: ")
        page.keep()  # prompt 1: one take, and on to prompt 2
        page.press(Keys.ARROW_UP)
        went_up = page.wait_for_status("Prompt 1 of")
        page.press("p")
        played_kept = page.wait_for_status("Playing take 1 of ")
        page.press(Keys.ARROW_RIGHT)
        went_on = page.wait_for_status("Prompt 2 of")
        first_said = page.said()
        page.record()
        page.keep()  # prompt 2: one take, and on to prompt 3
        page.record()
        page.keep()  # prompt 3: one take, and on to prompt 4
        page.press(Keys.ARROW_LEFT)
        page.wait_for_status("Prompt 3 of")
        page.press(Keys.ARROW_LEFT)
        page.wait_for_status("Prompt 2 of")
        page.record()
        level = page.text("level")
        driver.save_screenshot(screenshot)
        page.keep()  # prompt 2: a second take, and on to prompt 3
        page.press(Keys.BACKSPACE)
        page.wait_for_status("Removed take 1 of")  # prompt 3's kept take leaves the pack
        page.record()
        page.press(Keys.BACKSPACE)
        page.wait_for_status("Take discarded; nothing was kept")  # never sent
        driver.refresh()
        resumed = page.wait_for_status("Prompt ")
        position = page.text("position")
        coverage = page.text("coverage-summary")
        script = page.script()
        # A pasted text, typed into the text area: its letters (an r among them) are not the studio's keys.
        paste = page.element("paste")
        paste.click()
        paste.send_keys(pasted)
        page.element("add-text").click()
        added = page.wait_for_status("Added pasted text 1:")
        driver.refresh()
        page.wait_for_status("Prompt ")
        pasted_coverage = page.text("coverage-summary")
        pasted_script = page.script()
        texts = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#texts li")]
        # Listen: a sentence typed and rendered with the pack as it stands, its audio and picture on the page.
        field = page.element("sentence")
        field.click()
        field.send_keys(sentence)
        page.element("listen").click()
        rendered = page.wait_for_status("Rendered ")
        WebDriverWait(driver, 20, poll_frequency=0.05).until(
            lambda _: driver.execute_script(
                "const picture = document.getElementById('listen-picture');"
                "return picture.complete && picture.naturalWidth > 0"
            )
        )
        audio = fetch(driver, "listen-audio", base64=True)
        with open(listened, "wb") as file:
            file.write(base64.b64decode(audio))
        picture = fetch(driver, "listen-picture", base64=False)
        listen_result = page.text("listen-result")
        picture_alt = driver.find_element(By.ID, "listen-picture").get_attribute("alt")
        console = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        # The studio killed mid-take, then started again on the same pack, and the page opened at its new address.
        # The keys are the studio's again once the sentence's field has lost the focus.
        driver.execute_script("document.activeElement.blur()")
        page.press("r")
        page.wait_for_status("Recording")
        time.sleep(1)
        os.kill(int(server), signal.SIGKILL)
        restarted = subprocess.Popen(
            json.loads(restart), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        try:
            driver.get(restarted.stdout.readline().strip())
            resumed_again = page.wait_for_status("Prompt ")
            again = {
                "resumed": resumed_again,
                "position": page.text("position"),
                "coverage": page.text("coverage-summary"),
                "script": page.script(),
            }
        finally:
            restarted.terminate()
            restarted.wait()
        return {
            "first_prompt": first_prompt,
            "output_rate": output_rate,
            "first_level": first_level,
            "first_said": first_said,
            "played": played,
            "went_up": went_up,
            "played_kept": played_kept,
            "went_on": went_on,
            "statuses": page.statuses,
            "level": level,
            "resumed": resumed,
            "position": position,
            "coverage": coverage,
            "script": script,
            "added": added,
            "pasted_coverage": pasted_coverage,
            "pasted_script": pasted_script,
            "texts": texts,
            "rendered": rendered,
            "listen_result": listen_result,
            "picture": picture,
            "picture_alt": picture_alt,
            "console": console,
            "restarted": again,
        }


def positions(url, microphone, screenshot, take_seconds):
    take_seconds = float(take_seconds)
    with studio_page(url, microphone) as page:
        driver = page.driver

        def record():
            page.press("r")
            page.wait_for_status("Recording")
            time.sleep(take_seconds)
            page.press(Keys.SPACE)
            page.wait_for_status("Stopped:")

        first = page.statuses[0]
        script = page.script()
        positions_before = page.text("coverage-positions")
        # S skips to the next prompt without a take, and ← comes back.
        page.press("s")
        skipped = page.wait_for_status("Skipped ")
        skipped_how = page.text("prompt-how")
        skipped_choice = driver.find_element(By.ID, "take-position").get_attribute("value")
        page.press(Keys.ARROW_LEFT)
        page.wait_for_status("Prompt 1 of")
        # O goes to the position's list, whose arrows choose, and Escape gives the keys back.
        page.press("o")
        focused = driver.execute_script("return document.activeElement.id")
        page.press(Keys.ARROW_DOWN)
        chosen = page.wait_for_status("The take of ")
        page.press(Keys.ESCAPE)
        record()
        kept_first = page.keep()
        first_hearing = page.wait_for_hearing("Heard take 1 of ")
        # The final take's prompt: the microphone says the other word.
        prompt_text = page.text("prompt-text")
        record()
        kept_final = page.keep()
        final_hearing = page.wait_for_hearing("Heard “")
        actions = driver.find_element(By.ID, "hearing-actions").is_displayed()
        takes = [item.text for item in driver.find_elements(By.CSS_SELECTOR, "#takes li")]
        again_label = driver.find_element(By.ID, "hearing-again").get_attribute("aria-label")
        driver.save_screenshot(screenshot)
        # A: the last kept take recorded again; once kept, the new take replaces it.
        page.press("a")
        redo = page.wait_for_status("Recording")
        time.sleep(take_seconds)
        page.press(Keys.SPACE)
        page.wait_for_status("Stopped:")
        redone = page.keep()
        page.wait_for_hearing("Heard “")
        # T: the position of the prompt's last kept take, changed in place: London's, from initial to final.
        page.press(Keys.ARROW_LEFT)
        page.wait_for_status("Prompt 1 of")
        page.press("t")
        repositioning = driver.execute_script("return document.activeElement.getAttribute('aria-label')")
        page.press(Keys.ARROW_DOWN)
        page.press(Keys.ARROW_DOWN)
        repositioned = page.wait_for_status("Take 1 of “london” is now a final take")
        page.press(Keys.ESCAPE)
        driver.refresh()
        page.wait_for_status("Prompt ")
        console = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
        return {
            "first": first,
            "script": script,
            "skipped": skipped,
            "skipped_how": skipped_how,
            "skipped_choice": skipped_choice,
            "focused": focused,
            "chosen": chosen,
            "kept_first": kept_first,
            "first_hearing": first_hearing,
            "prompt_text": prompt_text,
            "kept_final": kept_final,
            "final_hearing": final_hearing,
            "actions": actions,
            "takes": takes,
            "again_label": again_label,
            "redo": redo,
            "redone": redone,
            "repositioning": repositioning,
            "repositioned": repositioned,
            "positions_before": positions_before,
            "coverage": page.text("coverage-summary"),
            "positions_after": page.text("coverage-positions"),
            "after": page.script(),
            "console": console,
        }


def loudness(url, microphone, take_seconds):
    """Records one take and waits for what the studio says of its loudness against the voice's other takes."""
    with studio_page(url, microphone) as page:
        driver = page.driver
        page.press("r")
        page.wait_for_status("Recording")
        time.sleep(float(take_seconds))
        page.press(Keys.SPACE)
        # The stop's own sentence may be replaced by the check's before it is seen: wait for the check's.
        said = page.wait_for_status("It is ")
        return {"said": said, "warning": page.text("warning")}


def levels(url, loud, quiet):
    """A take from each microphone, each in a browser of its own: what the page warns of while recording and once
    stopped, and what its live region was given meanwhile."""
    answer = {}
    for name, microphone in [("loud", loud), ("quiet", quiet)]:
        with studio_page(url, microphone) as page:
            driver = page.driver
            page.hear_announcements()
            page.press("r")
            # "Clipping." may follow at once.
            page.wait_for_said("Recording")
            # A take long enough to keep: its length is what the microphone plays meanwhile.
            time.sleep(1.5)
            # What the page warns of while recording, once it has measured the take: the loud microphone's clipping
            # comes with its first block, however late the page's blocks come on a busy machine.
            if name == "loud":
                WebDriverWait(driver, 20, poll_frequency=0.05).until(
                    lambda _: driver.find_element(By.ID, "warning").text
                )
            during = driver.find_element(By.ID, "warning").text
            page.press(Keys.SPACE)
            stopped = page.wait_for_said("Stopped:")
            answer[name] = {
                "during": during,
                "stopped": stopped,
                "warning": driver.find_element(By.ID, "warning").text,
                "said": page.said(),
            }
    return answer


def pages(url, microphone):
    """The studio in two tabs: the first records, the second is opened mid-take, and the first may then only read until
    Use here; each one's take is kept while it records."""
    with studio_page(url, microphone) as first:
        driver = first.driver
        first.hear_announcements()
        one = driver.current_window_handle
        first.press("r")
        first.wait_for_status("Recording")
        time.sleep(1)
        # A second tab on the same studio, opened while the first records: it records from now on.
        driver.switch_to.new_window("tab")
        second = Page(driver)
        driver.get(url)
        second.wait_for_status("Prompt 1 of")
        two = driver.current_window_handle
        driver.switch_to.window(one)
        # The first tab's next piece is refused: its take is dropped, and it says so.
        refused = first.wait_for_status("The studio is open in another page since ")
        elsewhere_shown = driver.find_element(By.ID, "elsewhere").is_displayed()
        elsewhere_text = first.text("elsewhere-text")
        # R says so again, and records nothing.
        first.press(Keys.SPACE)
        announced = len(first.said())
        first.press("r")
        WebDriverWait(driver, 10, poll_frequency=0.05).until(lambda _: len(first.said()) > announced)
        again = first.said()[-1]
        # Reads still work in it: another prompt, and Listen.
        first.press(Keys.ARROW_RIGHT)
        moved = first.wait_for_status("Prompt 2 of")
        field = first.element("sentence")
        field.click()
        field.send_keys("Hello.")
        first.element("listen").click()
        listened = first.wait_for_status("Rendered ")
        driver.execute_script("document.activeElement.blur()")
        # The second tab records and keeps prompt 1's take.
        driver.switch_to.window(two)
        second.record()
        second_kept = second.keep()
        # Use here, reached by keyboard: Tab until it has the focus, then Enter.
        driver.switch_to.window(one)
        tabs = 0
        while driver.execute_script("return document.activeElement.id") != "use-here" and tabs < 80:
            first.press(Keys.TAB)
            tabs += 1
        focused = driver.execute_script(
            "const button = document.activeElement;"
            "return {tag: button.tagName, id: button.id, name: button.textContent,"
            " description: document.getElementById(button.getAttribute('aria-describedby') ?? '')?.textContent}"
        )
        first.press(Keys.ENTER)
        used = first.wait_for_status("This page records now, since ")
        elsewhere_hidden = not driver.find_element(By.ID, "elsewhere").is_displayed()
        first.press(Keys.ARROW_LEFT)
        first.wait_for_status("Prompt 1 of")
        first.record()
        first_kept = first.keep()
        # Now the second tab is the older one: its change, removing its kept take, is refused.
        driver.switch_to.window(two)
        second.press(Keys.ARROW_LEFT)
        second.wait_for_status("Prompt 1 of")
        second.press(Keys.BACKSPACE)
        second_refused = second.wait_for_status("The studio is open in another page since ")
        return {
            "refused": refused,
            "elsewhere_shown": elsewhere_shown,
            "elsewhere_text": elsewhere_text,
            "again": again,
            "moved": moved,
            "listened": listened,
            "second_kept": second_kept,
            "focused": focused,
            "used": used,
            "elsewhere_hidden": elsewhere_hidden,
            "first_kept": first_kept,
            "second_refused": second_refused,
        }


def cross_origin(url):
    """A page of another port of this machine that sends the studio a take and a text with the studio's token: what
    its fetches got."""
    token = url.split("token=", 1)[1]
    studio = url.split("/?", 1)[0]
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory() as profile:
        with open(os.path.join(folder, "index.html"), "w") as file:
            file.write("<!doctype html><title>Another page</title><p>Another page of this machine.</p>")
        handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=folder)
        handler.log_message = lambda *arguments: None
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        driver = browser("/dev/null", profile)
        try:
            other = f"http://127.0.0.1:{server.server_address[1]}/"
            driver.get(other)
            answer = driver.execute_async_script(
                """
                const [studio, token, done] = arguments;
                const outcome = (request) =>
                  request.then(
                    (response) => ({ status: response.status, type: response.type }),
                    (error) => ({ error: error.message }),
                  );
                Promise.all([
                  // A take, with the token: its headers need the studio's leave (a preflight), which it refuses.
                  outcome(
                    fetch(`${studio}/api/takes?prompt=1`, {
                      method: 'POST',
                      headers: {
                        'X-Studio-Token': token,
                        'Content-Type': 'application/octet-stream',
                        'X-Sample-Rate': '48000',
                        'X-Sample-Format': 'f32le',
                      },
                      body: new Float32Array(48000).fill(0.25),
                    }),
                  ),
                  // A text sent as a form could be, without a preflight: the token header cannot go with it.
                  outcome(
                    fetch(`${studio}/api/texts`, {
                      method: 'POST',
                      mode: 'no-cors',
                      headers: { 'X-Studio-Token': token, 'Content-Type': 'text/plain' },
                      body: 'Mallory says hello.',
                    }),
                  ),
                ]).then(([take, text]) => done({ take, text }));
                """,
                studio,
                token,
            )
            answer["origin"] = other.rstrip("/")
            return answer
        finally:
            driver.quit()
            server.shutdown()


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "session":
        print(json.dumps(session(*arguments)))
    elif command == "positions":
        print(json.dumps(positions(*arguments)))
    elif command == "loudness":
        print(json.dumps(loudness(*arguments)))
    elif command == "levels":
        print(json.dumps(levels(*arguments)))
    elif command == "pages":
        print(json.dumps(pages(*arguments)))
    elif command == "cross_origin":
        print(json.dumps(cross_origin(*arguments)))
    else:
        raise SystemExit(f"unknown command {command}")
