// SPDX-License-Identifier: GPL-3.0-or-later
// The keys and the buttons: each an action of the page, run through `run` so that a failure is said.

import { element, studio } from './state.js';
import { run } from './announce.js';
import { useHere } from './pages.js';
import { choosePosition, moveTo, skip } from './prompts.js';
import { discard, discardHeard, focusLastTakePosition, keep, play, recordHeardAgain, redo } from './takes.js';
import { record, stop } from './recording.js';
import { addText, listen } from './texts.js';

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

const controls = { record, stop, play, keep, discard };

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
