// SPDX-License-Identifier: GPL-3.0-or-later
// The page that records: the studio takes changes only from the page opened last; an older page may only read,
// until Use here.

import { element, studio } from './state.js';
import { sentence } from './words.js';
import { announce, warn } from './announce.js';
import { api } from './api.js';
import { describePrompt, load, render } from './prompts.js';

// Registers this page with the studio: the page opened last is the one that records.
export async function register() {
  studio.page = null;
  const page = await (await api('POST', '/api/pages')).json();
  studio.page = String(page.id);
  return page;
}

// Another page was opened on the studio since this one: the take being recorded here is dropped (the studio dropped
// it already), the take not kept yet too, and the page says so, with the button that makes it record again.
export function elsewhere(message) {
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
export async function useHere() {
  const page = await register();
  studio.elsewhere = null;
  element('elsewhere').hidden = true;
  await load({ resume: false });
  announce(`This page records now, since ${page.since}. ${describePrompt()}`);
}
