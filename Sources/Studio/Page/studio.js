// The studio's page. The server is the source of truth: the prompts, their kept takes and the coverage come from
// /api/state, and each change comes back from the server; the page holds only the take just recorded, until it is
// kept or discarded. While a take is recorded, its pieces go to the studio, which converts them as they come (a
// recording): at the end of the take only the last piece is left to send, and the keep sends no samples.

const token = new URLSearchParams(location.search).get('token') ?? '';
const element = (id) => document.getElementById(id);

const studio = {
  // This page's number, which the studio gave it when it was loaded (POST /api/pages) and which each request
  // carries: the studio takes changes only from the page opened last.
  page: null,
  // What the studio said when another page was opened since this one, until Use here: this page may only read.
  elsewhere: null,
  prompts: [],
  index: 0,
  language: null,
  microphone: null,
  playback: null,
  // While recording: {startFrame, from, blocks, isClipping, stopFrame, stopped, queued, upload}: `from` is the take's
  // first frame, `queued` the end of the pieces sent or waiting to be, `upload` the promise of the recording's id once
  // they have arrived.
  recording: null,
  // The take just recorded, not kept yet: {samples, sampleRate, peak, recording, check}, `recording` the promise of the
  // studio's recording of it, or of null when its pieces did not all arrive; `check` the promise of the studio's check
  // of it (`checkLoudness`).
  pending: null,
  // The position the person chose for the prompt's next take ('none' for no particular place); null keeps the
  // prompt's own.
  chosenPosition: null,
  // The last take kept on this page, for A (redo): {takeId, promptId}; and the take a redo replaces once kept.
  lastKept: null,
  redoing: null,
  // The take whose listening found other words, which the Record it again and Discard that take buttons act on:
  // {take, promptId, number}.
  heardTake: null,
  // Whether the page has said that the voice's language is not checked by listening.
  hasSaidSkipped: false,
  // The quietest block heard while not recording (before the first take, between takes): the room's noise. A take's
  // lead-in does not count, since it holds the click of R.
  noiseFloor: null,
  // The level below which the pack trims a take's ends, in dBFS; null when the voice keeps clips whole.
  trimDecibels: null,
  // The most bytes a take's body may have.
  maximumTakeBytes: Infinity,
  // How a recording becomes a take and what is said of it, from /api/state, as voicebank record does it (TakeChecks):
  // the peak in dBFS above which it clips and below which it is quiet, the seconds left out at its start (the click of
  // R) and end (the click of Space), and the shortest take.
  checks: null,
  isBusy: false,
  // While the room's noise is heard before the first take: {until, done}, `until` the frame it is heard to.
  measuring: null,
};

const decibels = (amplitude) => (amplitude > 0 ? 20 * Math.log10(amplitude) : -Infinity);
const formatDecibels = (value) => (value === -Infinity ? '−∞' : value.toFixed(1).replace('-', '−')) + ' dBFS';
const formatSeconds = (value) => value.toFixed(2) + ' s';
const quoted = (text) => `“${text}”`;
const current = () => studio.prompts[studio.index];

function announce(text) {
  element('status').textContent = text;
}

class RequestError extends Error {
  constructor(message, status, type) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

// A call of the studio's API with its token and this page's number; an error answer becomes a RequestError with the
// server's message. A change refused because another page records now is said at once, whatever asked for it.
async function api(method, path, { headers = {}, body } = {}) {
  let response;
  const page = studio.page === null ? {} : { 'X-Studio-Page': studio.page };
  try {
    response = await fetch(path, { method, headers: { 'X-Studio-Token': token, ...page, ...headers }, body });
  } catch (error) {
    throw new RequestError(`the studio cannot be reached (${error.message}); is voicebank studio still running?`);
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    let type;
    try {
      ({ message, type } = (await response.json()).error);
    } catch {
      // The status line is all there is.
    }
    if (type === 'page_error') elsewhere(message);
    throw new RequestError(message, response.status, type);
  }
  return response;
}

// MARK: The page that records

// Registers this page with the studio: the page opened last is the one that records.
async function register() {
  studio.page = null;
  const page = await (await api('POST', '/api/pages')).json();
  studio.page = String(page.id);
  return page;
}

// Another page was opened on the studio since this one: the take being recorded here is dropped (the studio dropped
// it already), the take not kept yet too, and the page says so, with the button that makes it record again.
function elsewhere(message) {
  const said = sentence(message);
  studio.elsewhere = said;
  if (studio.recording) {
    studio.recording.isDropped = true;
    studio.recording.stopped?.();
    studio.recording = null;
  }
  studio.pending = null;
  studio.redoing = null;
  studio.isBusy = false;
  warn(null);
  element('elsewhere-text').textContent = said;
  element('elsewhere').hidden = false;
  render();
  announce(said);
}

// Use here: this page records again, from the pack as the other page left it.
async function useHere() {
  const page = await register();
  studio.elsewhere = null;
  element('elsewhere').hidden = true;
  await load({ resume: false });
  announce(`This page records now, since ${page.since}. ${describePrompt()}`);
}

// A message of the studio's (`the studio is open in another page …`) as the page's own sentences are: a capital, a
// full stop.
const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith('.') ? '' : '.');

// MARK: State from the server

async function load({ resume }) {
  applyState(await (await api('GET', '/api/state')).json());
  if (resume) {
    // Where the recording stopped: the first prompt without a take (for its position).
    const untaken = studio.prompts.findIndex((prompt) => !prompt.isDone);
    studio.index = untaken === -1 ? 0 : untaken;
  }
  render();
}

function applyState(state) {
  studio.prompts = state.prompts;
  studio.language = state.voice.language;
  studio.trimDecibels = state.voice.trimThresholdDecibels ?? null;
  studio.maximumTakeBytes = state.maximumTakeBytes;
  studio.checks = state.takeChecks;
  element('voice').textContent = `· ${state.voice.name} (${state.voice.identifier})`;
  showCoverage(state.coverage);
  showTexts(state.texts);
}

// The --texts files and the texts pasted into the page, which the studio keeps while it runs.
function showTexts(texts) {
  const list = element('texts');
  list.replaceChildren(
    ...texts.map((text) => {
      const item = document.createElement('li');
      item.textContent = text.isPasted ? `${text.name}: ${quoted(text.excerpt)}` : text.name;
      return item;
    }),
  );
  if (texts.length === 0) {
    const item = document.createElement('li');
    item.textContent = 'None: the script is a prompt file or a words list.';
    list.append(item);
  }
}

// No coverage (undefined) without texts.
function showCoverage(coverage) {
  element('coverage').hidden = !coverage;
  if (!coverage) return;
  element('coverage-summary').textContent = coverage.summary;
  const places = coverage.missingPositions.length;
  element('coverage-positions').textContent =
    places === 0
      ? ''
      : `; ${plural(places, 'phrase')} still to record for a place (${plural(coverage.missingPositionUses, 'use')})`;
}

// After a change: the prompts of the take's phrase, one for each position the script has it for.
function replacePrompts(prompts) {
  for (const prompt of prompts) {
    const index = studio.prompts.findIndex((each) => each.id === prompt.id);
    if (index !== -1) studio.prompts[index] = prompt;
  }
}

const plural = (count, noun) => `${count} ${noun}${count === 1 ? '' : 's'}`;
// The takes that count for a prompt: those of its position, or all of them for a prompt without one.
const countedTakes = (prompt) => prompt.takes.filter((take) => !prompt.position || take.position === prompt.position);
// `a final take`, `an initial take`.
const aTake = (position) => `${position === 'initial' ? 'an' : 'a'} ${position} take`;

// MARK: Drawing the page

function render() {
  const prompt = current();
  element('position').textContent = `${studio.index + 1} of ${studio.prompts.length}`;
  const text = element('prompt-text');
  text.textContent = prompt.readText;
  if (studio.language) text.lang = studio.language;
  const how = prompt.howToSay ? `${aTake(prompt.position)}: ${prompt.howToSay}.` : '';
  element('prompt-how').textContent = how.charAt(0).toUpperCase() + how.slice(1);
  element('take-position').value = studio.chosenPosition ?? prompt.position ?? 'none';
  const taken = studio.prompts.filter((each) => each.isDone).length;
  element('progress').textContent = `${taken} of ${studio.prompts.length} prompts have a take in the pack.`;
  renderTakes(prompt);
  renderScript();
  element('stop').disabled = studio.recording === null;
  element('keep').disabled = studio.isBusy;
}

function renderTakes(prompt) {
  const list = element('takes');
  // A take's position list that has the focus keeps it when the list is drawn again (after its own change).
  const focusedTake = document.activeElement?.dataset?.takeId;
  list.replaceChildren();
  if (prompt.takes.length === 0) {
    const item = document.createElement('li');
    item.textContent = 'None yet.';
    list.append(item);
    return;
  }
  prompt.takes.forEach((take, position) => {
    const item = document.createElement('li');
    const number = position + 1;
    item.append(
      `Take ${number}${take.position ? ` (${take.position})` : ''}: ${formatSeconds(take.seconds)} ` +
        `(${formatSeconds(take.recordedSeconds)} recorded at ${take.sampleRate} Hz)` +
        (take.hearing?.heard?.length ? `, heard as ${quoted(take.hearing.heard.join(' '))} ` : ' '),
    );
    item.append(
      button(`Play`, `Play take ${number} of ${quoted(prompt.text)}`, () => playKept(prompt, take, number)),
      ' ',
      button(`Discard`, `Discard take ${number} of ${quoted(prompt.text)}`, () => discardKept(prompt, take, number)),
      ' ',
      positionList(prompt, take, number),
    );
    list.append(item);
  });
  list.querySelector(`select[data-take-id="${focusedTake}"]`)?.focus();
}

// A kept take's position, changed in the pack as it is chosen: the same choices as the next take's.
function positionList(prompt, take, number) {
  const list = element('take-position').cloneNode(true);
  list.removeAttribute('id');
  list.removeAttribute('aria-keyshortcuts');
  list.dataset.takeId = String(take.id);
  list.value = take.position ?? 'none';
  list.setAttribute('aria-label', `Position of take ${number} of ${quoted(prompt.readText)}`);
  list.addEventListener('change', () => run(() => reposition(prompt, take, number, list.value)));
  return list;
}

function renderScript() {
  const list = element('prompts');
  list.replaceChildren(
    ...studio.prompts.map((prompt, index) => {
      const item = document.createElement('li');
      const count = countedTakes(prompt).length;
      const place = prompt.position ? ` (${prompt.position})` : '';
      const label = `${quoted(prompt.readText)}${place}: ${count === 0 ? 'no take' : plural(count, 'take')}`;
      const go = button(label, null, () => moveTo(index));
      if (index === studio.index) go.setAttribute('aria-current', 'step');
      item.append(go);
      return item;
    }),
  );
}

function button(text, label, action) {
  const made = document.createElement('button');
  made.type = 'button';
  made.textContent = text;
  if (label) made.setAttribute('aria-label', label);
  made.addEventListener('click', () => run(action));
  return made;
}

// Runs an action, saying on the page what went wrong if it fails.
async function run(action) {
  try {
    await action();
  } catch (error) {
    studio.isBusy = false;
    // A change refused because another page records now has been said already (`elsewhere`).
    if (error.type === 'page_error') return;
    announce(error instanceof RequestError ? `The studio answered: ${error.message}` : `Error: ${error.message}`);
    render();
  }
}

// MARK: The microphone and the meter

async function openMicrophone() {
  if (studio.microphone) return studio.microphone;
  if (!window.AudioWorkletNode || !navigator.mediaDevices) {
    throw new Error('this browser has no AudioWorklet or no microphone access; the studio needs both');
  }
  let stream;
  let context;
  try {
    // The samples as the microphone makes them: the take's level and noise are the pack's to measure.
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, autoGainControl: false, noiseSuppression: false, channelCount: 1 },
    });
    // At the device's own rate when the browser says it, so that the take is what the microphone made, not a
    // conversion to the output's rate: the import converts it to 22050 Hz as it converts any file.
    const { sampleRate } = stream.getAudioTracks()[0]?.getSettings() ?? {};
    context = new AudioContext(sampleRate ? { sampleRate } : {});
    await context.audioWorklet.addModule('/recorder.js');
  } catch (error) {
    stream?.getTracks().forEach((track) => track.stop());
    context?.close();
    throw new Error(`the microphone could not be opened (${error.message}); allow this page to use it`);
  }
  const node = new AudioWorkletNode(context, 'recorder');
  context.createMediaStreamSource(stream).connect(node);
  node.port.onmessage = (event) => heard(event.data);
  await context.resume();
  studio.microphone = { context, stream, node };
  return studio.microphone;
}

// A block of the microphone's samples: the meter, the noise floor, and the take being recorded.
function heard({ frame, samples }) {
  let peak = 0;
  let squares = 0;
  for (const sample of samples) {
    peak = Math.max(peak, Math.abs(sample));
    squares += sample * sample;
  }
  const rms = Math.sqrt(squares / samples.length);
  drawMeter(peak, rms);
  const recording = studio.recording;
  if ((recording === null || frame + samples.length <= recording.startFrame) && rms > 0) {
    studio.noiseFloor = studio.noiseFloor === null ? rms : Math.min(studio.noiseFloor, rms);
  }
  if (studio.measuring && frame + samples.length >= studio.measuring.until) studio.measuring.done();
  const levels = `Peak ${formatDecibels(decibels(peak))}, RMS ${formatDecibels(decibels(rms))}`;
  const floor = studio.noiseFloor === null ? '' : `; noise floor ${formatDecibels(decibels(studio.noiseFloor))}`;
  element('level').textContent = levels + floor + '.';
  if (recording === null) return;
  recording.blocks.push({ frame, samples });
  // The last frames may be cut off at the stop (the click of Space): a piece holds only frames the take keeps.
  const sendable = frame + samples.length - Math.round(studio.checks.tailSeconds * recording.sampleRate);
  if (recording.stopFrame === undefined && sendable - recording.queued >= pieceSeconds * recording.sampleRate) {
    sendPiece(recording, sendable, false);
  }
  const { clippingDecibels } = studio.checks;
  if (decibels(peak) > clippingDecibels && !recording.isClipping) {
    recording.isClipping = true;
    warn(
      `The take clips: it went above ${clippingDecibels} dBFS. Record it again a little further from the microphone.`,
    );
    announce('Clipping.');
  }
  if (recording.stopFrame !== undefined && frame + samples.length >= recording.stopFrame) recording.stopped();
}

function drawMeter(peak, rms) {
  const canvas = element('meter');
  const context = canvas.getContext('2d');
  const { width, height } = canvas;
  // -60 dBFS at the left, 0 dBFS at the right.
  const x = (amplitude) => Math.max(0, Math.min(1, (decibels(amplitude) + 60) / 60)) * width;
  context.fillStyle = '#1b1b1b';
  context.fillRect(0, 0, width, height);
  const { clippingDecibels } = studio.checks;
  context.fillStyle = decibels(peak) > clippingDecibels ? '#d0312d' : '#3a9d5d';
  context.fillRect(0, 6, x(rms), height - 12);
  context.fillStyle = '#f2f2f2';
  context.fillRect(Math.max(0, x(peak) - 2), 2, 3, height - 4);
  context.fillStyle = '#d0312d';
  context.fillRect(x(10 ** (clippingDecibels / 20)), 0, 2, height);
}

function warn(text) {
  const warning = element('warning');
  warning.hidden = text === null;
  warning.textContent = text ?? '';
}

// MARK: The take sent in pieces

// How often a piece of the take goes to the studio while it is recorded: what is left to convert at the stop is at most
// this and the end the stop cuts off.
const pieceSeconds = 0.1;

// The take's frames from `start` to `end` (on the audio context's clock), silence where no block came.
function framesOf(recording, start, end) {
  const samples = new Float32Array(Math.max(0, end - start));
  for (const block of recording.blocks) {
    for (let index = 0; index < block.samples.length; index++) {
      const frame = block.frame + index;
      if (frame >= start && frame < end) samples[frame - start] = block.samples[index];
    }
  }
  return samples;
}

// A promise on the recording's chain of requests: one at a time, in order; a failure is seen by the next step, which
// does not run, and by whoever awaits the chain's end, not reported on its own.
function chain(recording, step) {
  recording.upload = recording.upload.then(step);
  recording.upload.catch(() => {});
}

function startUpload(recording) {
  const { sampleRate } = recording;
  recording.upload = Promise.resolve();
  chain(recording, async () => {
    const response = await api('POST', '/api/recordings', takeRequest({ samples: new Float32Array(0), sampleRate }));
    return (await response.json()).id;
  });
}

// Sends the take's frames from the end of the last piece to `end` after the pieces before it; `isLast` ends it.
function sendPiece(recording, end, isLast) {
  const start = recording.queued;
  recording.queued = end;
  const samples = framesOf(recording, start, end);
  chain(recording, async (id) => {
    const path = `/api/recordings/${id}${isLast ? '/end' : ''}?frame=${start - recording.from}`;
    await api('POST', path, takeRequest({ samples, sampleRate: recording.sampleRate }));
    return id;
  });
}

// The studio's recording of a take the page drops: dropped there too, if it got there.
function dropRecording(recordingId) {
  recordingId
    .then((id) => (id === null || id === undefined ? null : api('DELETE', `/api/recordings/${id}`)))
    .catch(() => {});
}

// A request about the take just recorded (`/api/takes/check`, `/api/takes?…`): on the studio's recording of it, or
// with the whole take as its body when its pieces did not all arrive or another page's recording replaced it.
async function aboutTake(pending, path) {
  const id = await pending.recording;
  if (id !== null) {
    try {
      return await api('POST', `${path}${path.includes('?') ? '&' : '?'}recording=${id}`);
    } catch (error) {
      if (!(error instanceof RequestError) || error.status !== 404) throw error;
    }
  }
  return api('POST', path, takeRequest(pending));
}

// MARK: Actions

async function record() {
  if (studio.recording || studio.isBusy) return;
  if (studio.elsewhere) {
    announce(studio.elsewhere);
    return;
  }
  // A second R while the browser asks for the microphone records nothing more.
  studio.isBusy = true;
  const isOpening = studio.microphone === null;
  const { context } = await openMicrophone()
    .then(async (microphone) => {
      if (isOpening) await measureRoom(microphone.context);
      return microphone;
    })
    .finally(() => (studio.isBusy = false));
  if (studio.pending) dropRecording(studio.pending.recording);
  studio.pending = null;
  warn(null);
  const startFrame = Math.round(context.currentTime * context.sampleRate);
  const from = startFrame + Math.round(studio.checks.leadSeconds * context.sampleRate);
  studio.recording = { startFrame, from, queued: from, sampleRate: context.sampleRate, blocks: [] };
  startUpload(studio.recording);
  render();
  announce(`Recording ${quoted(current().readText)}. Press Space to stop.`);
}

// How long the room is heard before the first take.
const roomSeconds = 0.3;

// The room's noise, heard for a moment when the microphone opens, before the first take: so the first take's noise
// floor is the room's, not its lead-in's with the click of R in it.
async function measureRoom(context) {
  announce("Measuring the room's noise…");
  await new Promise((resolve) => {
    studio.measuring = { until: Math.round((context.currentTime + roomSeconds) * context.sampleRate), done: resolve };
    // Should the audio thread send nothing, the take is not held up for it.
    setTimeout(resolve, 3000);
  });
  studio.measuring = null;
}

async function stop() {
  const recording = studio.recording;
  if (!recording || recording.stopFrame !== undefined) return;
  const { context } = studio.microphone;
  const rate = context.sampleRate;
  // The blocks up to the key's frame are still on their way from the audio thread.
  await new Promise((resolve) => {
    recording.stopped = resolve;
    recording.stopFrame = Math.round(context.currentTime * rate);
    setTimeout(resolve, 500);
  });
  // Dropped meanwhile, as another page was opened (`elsewhere`): nothing of it is kept.
  if (recording.isDropped) return;
  studio.recording = null;
  const { tailSeconds, shortestSeconds, clippingDecibels, quietDecibels } = studio.checks;
  const from = recording.from;
  const to = recording.stopFrame - Math.round(tailSeconds * rate);
  if (to - from < rate * shortestSeconds) {
    dropRecording(recording.upload.catch(() => null));
    render();
    announce('The take was too short to keep. Press R to record again.');
    return;
  }
  const samples = framesOf(recording, from, to);
  const peak = samples.reduce((largest, sample) => Math.max(largest, Math.abs(sample)), 0);
  // A piece sent past the stop's frame (a clock that did not keep step) is no part of the take: it is sent whole.
  let recordingId = Promise.resolve(null);
  if (to >= recording.queued) {
    sendPiece(recording, to, true);
    recordingId = recording.upload.catch(() => null);
  } else {
    dropRecording(recording.upload.catch(() => null));
  }
  studio.pending = { samples, sampleRate: rate, peak, recording: recordingId };
  const level = decibels(peak);
  let hint = '';
  if (level > clippingDecibels) {
    hint = ` It clips (peak ${formatDecibels(level)}): record it again a little further from the microphone.`;
  } else if (level < quietDecibels) {
    hint = ` It is quiet (peak ${formatDecibels(level)}): move closer to the microphone or raise its input level.`;
  }
  const floor = studio.noiseFloor === null ? -Infinity : decibels(studio.noiseFloor);
  if (studio.trimDecibels !== null && floor > studio.trimDecibels) {
    hint +=
      ` The room's noise (${formatDecibels(floor)}) is above the level the pack trims below ` +
      `(${formatDecibels(studio.trimDecibels)}), so the silence at the ends of takes stays in.`;
  }
  warn(hint === '' ? null : hint.trim());
  render();
  announce(
    `Stopped: a take of ${formatSeconds(samples.length / rate)}, peak ${formatDecibels(level)}.${hint} ` +
      'P plays it, Enter keeps it, Backspace discards it.',
  );
  studio.pending.check = checkLoudness(studio.pending);
}

async function play() {
  if (studio.recording) return;
  const prompt = current();
  if (studio.pending) {
    // As it will be kept: trimmed where the studio's check says, the whole take should the check have failed.
    const { samples, sampleRate, check } = studio.pending;
    const played = (await check)?.played;
    const recorded = formatSeconds(samples.length / sampleRate);
    if (Array.isArray(played)) {
      const kept = samples.slice(played[0], played[1]);
      await playSamples(kept, sampleRate);
      announce(
        `Playing the take just recorded, trimmed as it will be kept: ${formatSeconds(kept.length / sampleRate)} ` +
          `of ${recorded}.`,
      );
    } else {
      await playSamples(samples, sampleRate);
      announce(`Playing the take just recorded, ${recorded}, untrimmed: its trimming could not be worked out.`);
    }
  } else if (prompt.takes.length > 0) {
    await playKept(prompt, prompt.takes.at(-1), prompt.takes.length);
  } else {
    announce(`${quoted(prompt.text)} has no take to play yet. Press R to record one.`);
  }
}

// A kept take as the pack plays it: trimmed, at 22050 Hz.
async function playKept(prompt, take, number) {
  const response = await api('GET', `/api/takes/${take.id}/audio`);
  const rate = Number(response.headers.get('X-Sample-Rate'));
  const bytes = new DataView(await response.arrayBuffer());
  const samples = new Float32Array(bytes.byteLength / 4);
  for (let index = 0; index < samples.length; index++) samples[index] = bytes.getFloat32(index * 4, true);
  await playSamples(samples, rate);
  announce(`Playing take ${number} of ${quoted(prompt.text)} as the pack holds it, ${formatSeconds(take.seconds)}.`);
}

async function playSamples(samples, sampleRate) {
  studio.playback ??= new AudioContext();
  await studio.playback.resume();
  const buffer = studio.playback.createBuffer(1, samples.length, sampleRate);
  buffer.copyToChannel(samples, 0);
  const source = studio.playback.createBufferSource();
  source.buffer = buffer;
  source.connect(studio.playback.destination);
  source.start();
}

// A take as the studio's API takes it: raw Float32 samples, little-endian whatever the machine, as the header says.
function takeRequest({ samples, sampleRate }) {
  const body = new DataView(new ArrayBuffer(samples.length * 4));
  samples.forEach((sample, index) => body.setFloat32(index * 4, sample, true));
  return {
    headers: {
      'Content-Type': 'application/octet-stream',
      'X-Sample-Rate': String(sampleRate),
      'X-Sample-Format': 'f32le',
    },
    body: body.buffer,
  };
}

// The studio's check of the take just recorded, while it waits to be kept: what voicebank verify would say of its
// loudness (against the voice's other takes), said when it stands out, and the frames a kept take plays (`played`),
// which P plays. Resolves to the check.
async function checkLoudness(pending) {
  let check;
  try {
    check = await (await aboutTake(pending, '/api/takes/check')).json();
  } catch (error) {
    check = { message: `Its loudness could not be checked: ${error.message}.` };
  }
  if (studio.pending !== pending || !check.message) return check;
  const warning = element('warning');
  warn(warning.hidden ? check.message : `${warning.textContent} ${check.message}`);
  announce(check.message);
  return check;
}

async function keep() {
  if (studio.recording || studio.isBusy) return;
  const prompt = current();
  const position = studio.chosenPosition ?? prompt.position ?? 'none';
  if (!studio.pending) {
    moveTo(Math.min(studio.index + 1, studio.prompts.length - 1));
    return;
  }
  const { samples, sampleRate } = studio.pending;
  if (samples.length * 4 > studio.maximumTakeBytes) {
    const most = studio.maximumTakeBytes / 4 / sampleRate;
    announce(`The take is too long to keep: the studio takes at most ${formatSeconds(most)} at ${sampleRate} Hz.`);
    return;
  }
  studio.isBusy = true;
  render();
  announce(`Keeping the take of ${quoted(prompt.readText)}…`);
  const query = `prompt=${encodeURIComponent(prompt.id)}&position=${position}`;
  const response = await aboutTake(studio.pending, `/api/takes?${query}`);
  let change = await response.json();
  const take = change.take;
  studio.isBusy = false;
  studio.pending = null;
  studio.chosenPosition = null;
  warn(null);
  replacePrompts(change.prompts);
  const number = change.prompts.find((each) => each.id === prompt.id).takes.length;
  // A redo's take replaces the one redone, once it is in the pack: never neither.
  let replaced = '';
  if (studio.redoing && studio.redoing.promptId === prompt.id) {
    const redone = studio.redoing;
    studio.redoing = null;
    change = await (await api('DELETE', `/api/takes/${redone.takeId}`)).json();
    replacePrompts(change.prompts);
    replaced = ' It replaces the take redone.';
  }
  studio.lastKept = { takeId: take.id, promptId: prompt.id };
  showCoverage(change.coverage);
  const kept =
    `Kept take ${number} of ${quoted(prompt.readText)}${position === 'none' ? '' : ` as ${aTake(position)}`}: ` +
    `${formatSeconds(take.seconds)} after trimming.${replaced}` +
    (change.coverage ? ` Your texts: ${change.coverage.summary}.` : '');
  if (studio.index + 1 < studio.prompts.length) studio.index += 1;
  render();
  announce(`${kept} ${describePrompt()}`);
  followHearing(take, prompt, number);
}

// What listening to a kept take found, asked for until the studio's listener has got to it: said in the region under
// the meter (its own live region, so that it does not cut off what the status line is saying).
async function followHearing(take, prompt, number) {
  try {
    for (;;) {
      const hearing = await (await api('GET', `/api/takes/${take.id}/hearing`)).json();
      if (hearing.status !== 'pending') {
        showHearing(hearing, take, prompt, number);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    element('hearing-text').textContent = `What listening heard of take ${number} is not known: ${error.message}`;
    element('hearing-actions').hidden = true;
  }
}

function showHearing(hearing, take, prompt, number) {
  // The take in the list says what was heard too, as it does after a reload.
  for (const each of studio.prompts) {
    for (const kept of each.takes) if (kept.id === take.id) kept.hearing = hearing;
  }
  render();
  if (hearing.status === 'skipped') {
    if (studio.hasSaidSkipped) return;
    studio.hasSaidSkipped = true;
  }
  const isDoubtful = hearing.status === 'differs' || hearing.status === 'close';
  studio.heardTake = isDoubtful ? { take, promptId: prompt.id, number } : null;
  element('hearing-text').textContent = hearing.message;
  element('hearing-actions').hidden = !isDoubtful;
  if (isDoubtful) {
    element('hearing-again').setAttribute('aria-label', `Record ${quoted(prompt.readText)} again`);
    element('hearing-discard').setAttribute('aria-label', `Discard take ${number} of ${quoted(prompt.readText)}`);
  }
}

// The take the listening doubted: back to its prompt, recording; or removed from the pack.
async function recordHeardAgain() {
  const heard = studio.heardTake;
  if (!heard) return;
  moveTo(studio.prompts.findIndex((each) => each.id === heard.promptId));
  await record();
}

async function discardHeard() {
  const heard = studio.heardTake;
  if (!heard) return;
  const prompt = studio.prompts.find((each) => each.id === heard.promptId);
  await discardKept(prompt, heard.take, heard.number);
  studio.heardTake = null;
  element('hearing-text').textContent = '';
  element('hearing-actions').hidden = true;
}

// S: on to the next prompt after this one that has no take, round to the first.
function skip() {
  const count = studio.prompts.length;
  for (let step = 1; step < count; step++) {
    const index = (studio.index + step) % count;
    if (!studio.prompts[index].isDone) {
      const skipped = current();
      moveTo(index, `Skipped ${quoted(skipped.readText)}. `);
      return;
    }
  }
  announce('Every other prompt has a take already.');
}

// A: the last take kept on this page recorded again. Its prompt, recording at once; the take it replaces stays in the
// pack until the new one is kept.
async function redo() {
  const last = studio.lastKept;
  if (studio.recording || studio.isBusy) return;
  if (!last) {
    announce('No take has been kept on this page yet: there is nothing to redo.');
    return;
  }
  moveTo(studio.prompts.findIndex((each) => each.id === last.promptId));
  studio.redoing = last;
  await record();
}

async function discard() {
  const prompt = current();
  if (studio.recording) {
    studio.recording.stopped?.();
    dropRecording(studio.recording.upload.catch(() => null));
    studio.recording = null;
    render();
    announce('Recording stopped and discarded.');
  } else if (studio.pending) {
    dropRecording(studio.pending.recording);
    studio.pending = null;
    warn(null);
    announce('Take discarded; nothing was kept. Press R to record again.');
  } else if (prompt.takes.length > 0) {
    await discardKept(prompt, prompt.takes.at(-1), prompt.takes.length);
  } else {
    announce(`${quoted(prompt.text)} has no take to discard.`);
  }
}

async function discardKept(prompt, take, number) {
  if (studio.isBusy) return;
  studio.isBusy = true;
  const change = await (await api('DELETE', `/api/takes/${take.id}`)).json();
  studio.isBusy = false;
  replacePrompts(change.prompts);
  if (studio.lastKept?.takeId === take.id) studio.lastKept = null;
  showCoverage(change.coverage);
  render();
  announce(
    `Removed take ${number} of ${quoted(prompt.readText)} from the pack.` +
      (change.coverage ? ` Your texts: ${change.coverage.summary}.` : ''),
  );
}

// Position changes go to the studio one at a time, in the order they were chosen: arrows pressed quickly on a take's
// list leave it with the last.
let repositioning = Promise.resolve();

async function reposition(prompt, take, number, position) {
  const change = (repositioning = repositioning.catch(() => {}).then(async () => {
    const response = await api('POST', `/api/takes/${take.id}/position?position=${position}`);
    return response.json();
  }));
  const { take: changed, prompts, coverage } = await change;
  replacePrompts(prompts);
  showCoverage(coverage);
  render();
  const as = changed.position ? aTake(changed.position) : 'a take of no particular place';
  announce(
    `Take ${number} of ${quoted(prompt.readText)} is now ${as}, in the pack.` +
      (coverage ? ` Your texts: ${coverage.summary}.` : ''),
  );
}

// T: the position of the prompt's last kept take.
function focusLastTakePosition() {
  const lists = document.querySelectorAll('#takes select');
  if (lists.length === 0) {
    announce(`${quoted(current().readText)} has no kept take whose position to change.`);
    return;
  }
  lists[lists.length - 1].focus();
}

async function addText() {
  if (studio.isBusy) return;
  const text = element('paste').value;
  if (text.trim() === '') {
    announce('Paste or type a text first, then add it.');
    return;
  }
  studio.isBusy = true;
  announce('Adding the text…');
  const response = await api('POST', '/api/texts', {
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    body: text,
  });
  const change = await response.json();
  studio.isBusy = false;
  element('paste').value = '';
  applyState(change.state);
  render();
  const count = change.addedPrompts.length;
  const added = count === 0 ? 'no new prompt' : count === 1 ? '1 new prompt' : `${count} new prompts`;
  announce(
    `Added ${change.text.name}: ${added} at the end of the script.` +
      (change.state.coverage ? ` Your texts: ${change.state.coverage.summary}.` : ''),
  );
}

// A sentence rendered by the studio with the pack as it stands: played, described, and drawn as its render picture.
async function listen() {
  if (studio.isBusy) return;
  const text = element('sentence').value;
  if (text.trim() === '') {
    announce('Type a sentence to listen to first.');
    return;
  }
  studio.isBusy = true;
  announce(`Rendering ${quoted(text)}…`);
  const response = await api('POST', '/api/listen', {
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
    body: text,
  });
  const render = await response.json();
  studio.isBusy = false;
  const fallbacks =
    render.fallbacks.length === 0
      ? 'Every word has a take.'
      : `No take covers ${render.fallbacks.map(quoted).join(', ')}: the voice's fallback speaks ${
          render.fallbacks.length === 1 ? 'it' : 'them'
        }.`;
  const described = `${quoted(text)}, ${formatSeconds(render.seconds)}. ${fallbacks}`;
  element('listen-result').textContent = described;
  const picture = element('listen-picture');
  picture.src = render.picture;
  picture.alt = `The render picture of ${described}`;
  picture.hidden = false;
  const audio = element('listen-audio');
  audio.src = render.audio;
  audio.hidden = false;
  let playing = 'Playing it.';
  try {
    await audio.play();
  } catch (error) {
    playing = `Press play to hear it (${error.message}).`;
  }
  announce(`Rendered ${described} ${playing}`);
}

function moveTo(index, before = '') {
  if (studio.recording || index < 0 || index >= studio.prompts.length) return;
  const dropped = studio.pending !== null;
  if (dropped) dropRecording(studio.pending.recording);
  studio.pending = null;
  studio.chosenPosition = null;
  studio.redoing = null;
  warn(null);
  studio.index = index;
  render();
  announce(before + (dropped ? 'The take that was not kept is discarded. ' : '') + describePrompt());
}

// `Prompt 2 of 5: “York.” (final: say it as the end of a sentence), no final take yet. Press R to record.`
function describePrompt() {
  const prompt = current();
  const place = prompt.position ? ` ${prompt.position}` : '';
  const count = countedTakes(prompt).length;
  const takes = count === 0 ? `no${place} take yet` : count === 1 ? `1${place} take` : `${count}${place} takes`;
  const how = prompt.position ? ` (${prompt.position}: ${prompt.howToSay})` : '';
  return (
    `Prompt ${studio.index + 1} of ${studio.prompts.length}: ${quoted(prompt.readText)}${how}, ${takes}. ` +
    'Press R to record.'
  );
}

// The position chosen for the prompt's next take.
function choosePosition() {
  const prompt = current();
  const chosen = element('take-position').value;
  studio.chosenPosition = chosen === (prompt.position ?? 'none') ? null : chosen;
  const as = chosen === 'none' ? 'a take of no particular place' : aTake(chosen);
  announce(
    `The take of ${quoted(prompt.text)} will be kept as ${as}` +
      (studio.chosenPosition === null ? ', as the prompt asks.' : '.'),
  );
}

// MARK: Keys

const keys = {
  r: record,
  ' ': stop,
  p: play,
  Enter: keep,
  Backspace: discard,
  ArrowLeft: () => moveTo(studio.index - 1),
  ArrowUp: () => moveTo(studio.index - 1),
  ArrowRight: () => moveTo(studio.index + 1),
  ArrowDown: () => moveTo(studio.index + 1),
  s: skip,
  a: redo,
  o: () => element('take-position').focus(),
  t: focusLastTakePosition,
};

document.addEventListener('keydown', (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  // The arrows choose among the positions; Escape gives the keys back to the studio.
  if (event.target instanceof HTMLSelectElement) {
    if (event.key === 'Escape') event.target.blur();
    return;
  }
  // Typing a text is not pressing the studio's keys.
  if (event.target instanceof HTMLTextAreaElement || event.target instanceof HTMLInputElement) return;
  // Enter and Space on a focused button press that button, as everywhere else.
  if (event.target instanceof HTMLButtonElement && (event.key === 'Enter' || event.key === ' ')) return;
  const action = keys[event.key.length === 1 ? event.key.toLowerCase() : event.key];
  if (!action) return;
  event.preventDefault();
  if (!event.repeat) run(action);
});

const controls = { record, stop, play, keep, discard };
for (const [id, action] of Object.entries(controls)) {
  element(id).addEventListener('click', () => run(action));
}
element('add-text').addEventListener('click', () => run(addText));
element('listen').addEventListener('click', () => run(listen));
element('sentence').addEventListener('keydown', (event) => {
  if (event.key !== 'Enter' || event.repeat) return;
  event.preventDefault();
  run(listen);
});
element('previous').addEventListener('click', () => moveTo(studio.index - 1));
element('next').addEventListener('click', () => moveTo(studio.index + 1));
element('skip').addEventListener('click', () => run(skip));
element('redo').addEventListener('click', () => run(redo));
element('hearing-again').addEventListener('click', () => run(recordHeardAgain));
element('hearing-discard').addEventListener('click', () => run(discardHeard));
element('take-position').addEventListener('change', () => run(choosePosition));
element('use-here').addEventListener('click', () => run(useHere));
// A click leaves the focus where it was, so that the keys go on working after the mouse was used.
for (const control of document.querySelectorAll('.controls button')) {
  control.addEventListener('mousedown', (event) => event.preventDefault());
}

// Another page on the same studio may have kept or removed takes meanwhile.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && !studio.recording && !studio.isBusy) run(() => load({ resume: false }));
});

run(async () => {
  await register();
  await load({ resume: true });
  announce(describePrompt());
});
