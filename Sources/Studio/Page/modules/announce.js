// SPDX-License-Identifier: GPL-3.0-or-later
// What the page says: the status line (the page's one aria-live region), the warning under the meter, and what
// went wrong when an action fails.

import { element, studio } from './state.js';
import { RequestError } from './api.js';
import { render } from './prompts.js';

export function announce(text) {
  element('status').textContent = text;
}

export function warn(text) {
  const warning = element('warning');
  warning.hidden = text === null;
  warning.textContent = text ?? '';
}

// Runs an action, saying on the page what went wrong if it fails.
export async function run(action) {
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

export function button(text, label, action) {
  const made = document.createElement('button');
  made.type = 'button';
  made.textContent = text;
  if (label) made.setAttribute('aria-label', label);
  made.addEventListener('click', () => run(action));
  return made;
}
