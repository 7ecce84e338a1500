// SPDX-License-Identifier: GPL-3.0-or-later
// The studio's page. The server is the source of truth: the prompts, their kept takes and the coverage come from
// /api/state, and each change comes back from the server; the page holds only the take just recorded, until it is
// kept or discarded. While a take is recorded, its pieces go to the studio, which converts them as they come (a
// recording): at the end of the take only the last piece is left to send, and the keep sends no samples.

import { studio } from './modules/state.js';
import { announce, run } from './modules/announce.js';
import { register } from './modules/pages.js';
import { describePrompt, load } from './modules/prompts.js';
import './modules/keyboard.js';

// Another page on the same studio may have kept or removed takes meanwhile.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && !studio.recording && !studio.isBusy) run(() => load({ resume: false }));
});

run(async () => {
  await register();
  await load({ resume: true });
  announce(describePrompt());
});
