// SPDX-License-Identifier: GPL-3.0-or-later
// What the page holds: this page's number, the prompts as the studio last sent them, where it is in the script,
// and the take being recorded or waiting to be kept. Everything else is the studio's, read again after each change.

export const token = new URLSearchParams(location.search).get('token') ?? '';

export const element = (id) => document.getElementById(id);

export const studio = {
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

export const current = () => studio.prompts[studio.index];
