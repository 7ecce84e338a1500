// SPDX-License-Identifier: GPL-3.0-or-later
// Texts pasted into the page, whose missing words become prompts, and sentences rendered to listen to.

import { element, studio } from './state.js';
import { formatSeconds, quoted } from './words.js';
import { announce } from './announce.js';
import { api } from './api.js';
import { applyState, render } from './prompts.js';

export async function addText() {
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
export async function listen() {
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
