// SPDX-License-Identifier: GPL-3.0-or-later
// How the page says things: levels, lengths, quotations, counts.

export const decibels = (amplitude) => (amplitude > 0 ? 20 * Math.log10(amplitude) : -Infinity);

export const formatDecibels = (value) =>
  (value === -Infinity ? '−∞' : value.toFixed(1).replace('-', '−')) + ' dBFS';

export const formatSeconds = (value) => value.toFixed(2) + ' s';

export const quoted = (text) => `“${text}”`;

// A message of the studio's (`the studio is open in another page …`) as the page's own sentences are: a capital, a
// full stop.
export const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1) + (text.endsWith('.') ? '' : '.');

export const plural = (count, noun) => `${count} ${noun}${count === 1 ? '' : 's'}`;

// The takes that count for a prompt: those of its position, or all of them for a prompt without one.
export const countedTakes = (prompt) =>
  prompt.takes.filter((take) => !prompt.position || take.position === prompt.position);

// `a final take`, `an initial take`.
export const aTake = (position) => `${position === 'initial' ? 'an' : 'a'} ${position} take`;
