// SPDX-License-Identifier: GPL-3.0-or-later
// The takes of the prompt on show: keeping the take just recorded, playing, discarding and placing kept takes, and
// what listening to a kept take heard and aligning it came to.

import { current, element, studio } from './state.js';
import { aTake, formatSeconds, quoted } from './words.js';
import { announce, button, run, warn } from './announce.js';
import { api } from './api.js';
import { describePrompt, moveTo, render, replacePrompts, showCoverage } from './prompts.js';
import { aboutTake, dropRecording, record } from './recording.js';

export function renderTakes(prompt) {
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
        (take.hearing?.heard?.length ? `, heard as ${quoted(take.hearing.heard.join(' '))}` : '') +
        (alignmentWords[take.alignment?.status] ?? '') +
        ' ',
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

// What the list says of a kept take's alignment; nothing for a voice the aligner does not know.
const alignmentWords = {
  pending: ', being aligned',
  aligned: ', aligned',
  failed: ', not aligned (its audio does not match its phrase)',
  unusable: ', cannot be aligned',
  unavailable: ', not aligned yet',
};

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

export async function play() {
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

export async function keep() {
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
  followAlignment(take, number);
}

// What aligning a kept take to its words and phones came to, asked for until the studio's aligner has done it: the
// take in the list says it, and why not when it was not aligned (in the region under the meter).
async function followAlignment(take, number) {
  try {
    for (;;) {
      const alignment = await (await api('GET', `/api/takes/${take.id}/alignment`)).json();
      if (alignment.status !== 'pending') {
        for (const each of studio.prompts) {
          for (const kept of each.takes) if (kept.id === take.id) kept.alignment = alignment;
        }
        render();
        const isNotAligned = alignment.status !== 'aligned' && alignment.status !== 'skipped';
        element('alignment-text').textContent = isNotAligned ? alignment.message : '';
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    element('alignment-text').textContent = `Whether take ${number} is aligned is not known: ${error.message}`;
  }
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
export async function recordHeardAgain() {
  const heard = studio.heardTake;
  if (!heard) return;
  moveTo(studio.prompts.findIndex((each) => each.id === heard.promptId));
  await record();
}

export async function discardHeard() {
  const heard = studio.heardTake;
  if (!heard) return;
  const prompt = studio.prompts.find((each) => each.id === heard.promptId);
  await discardKept(prompt, heard.take, heard.number);
  studio.heardTake = null;
  element('hearing-text').textContent = '';
  element('hearing-actions').hidden = true;
}

// A: the last take kept on this page recorded again. Its prompt, recording at once; the take it replaces stays in the
// pack until the new one is kept.
export async function redo() {
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

export async function discard() {
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
export function focusLastTakePosition() {
  const lists = document.querySelectorAll('#takes select');
  if (lists.length === 0) {
    announce(`${quoted(current().readText)} has no kept take whose position to change.`);
    return;
  }
  lists[lists.length - 1].focus();
}
