// SPDX-License-Identifier: GPL-3.0-or-later
// Recording a take: R starts it, Space stops it, and its pieces go to the studio while it is recorded, which
// converts them as they come (a recording): at the stop only the last piece is left to send.

import { current, element, studio } from './state.js';
import { decibels, formatDecibels, formatSeconds, quoted } from './words.js';
import { announce, warn } from './announce.js';
import { RequestError, api, takeRequest } from './api.js';
import { render } from './prompts.js';
import { measureRoom, openMicrophone } from './microphone.js';

// How often a piece of the take goes to the studio while it is recorded: what is left to convert at the stop is at most
// this and the end the stop cuts off.
export const pieceSeconds = 0.1;

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
export function sendPiece(recording, end, isLast) {
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
export function dropRecording(recordingId) {
  recordingId
    .then((id) => (id === null || id === undefined ? null : api('DELETE', `/api/recordings/${id}`)))
    .catch(() => {});
}

// A request about the take just recorded (`/api/takes/check`, `/api/takes?…`): on the studio's recording of it, or
// with the whole take as its body when its pieces did not all arrive or another page's recording replaced it.
export async function aboutTake(pending, path) {
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

export async function record() {
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

export async function stop() {
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
