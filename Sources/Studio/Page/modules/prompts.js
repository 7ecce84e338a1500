// SPDX-License-Identifier: GPL-3.0-or-later
// The script: the state the studio sends, the prompt on show and the list of prompts, moving between them.

import { current, element, studio } from './state.js';
import { aTake, countedTakes, plural, quoted } from './words.js';
import { announce, button, warn } from './announce.js';
import { api } from './api.js';
import { renderTakes } from './takes.js';
import { dropRecording } from './recording.js';

export async function load({ resume }) {
  applyState(await (await api('GET', '/api/state')).json());
  if (resume) {
    // Where the recording stopped: the first prompt without a take (for its position).
    const untaken = studio.prompts.findIndex((prompt) => !prompt.isDone);
    studio.index = untaken === -1 ? 0 : untaken;
  }
  render();
}

export function applyState(state) {
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
export function showCoverage(coverage) {
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
export function replacePrompts(prompts) {
  for (const prompt of prompts) {
    const index = studio.prompts.findIndex((each) => each.id === prompt.id);
    if (index !== -1) studio.prompts[index] = prompt;
  }
}

export function render() {
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

export function moveTo(index, before = '') {
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
export function describePrompt() {
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
export function choosePosition() {
  const prompt = current();
  const chosen = element('take-position').value;
  studio.chosenPosition = chosen === (prompt.position ?? 'none') ? null : chosen;
  const as = chosen === 'none' ? 'a take of no particular place' : aTake(chosen);
  announce(
    `The take of ${quoted(prompt.text)} will be kept as ${as}` +
      (studio.chosenPosition === null ? ', as the prompt asks.' : '.'),
  );
}

// S: on to the next prompt after this one that has no take, round to the first.
export function skip() {
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
