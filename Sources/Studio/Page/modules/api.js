// SPDX-License-Identifier: GPL-3.0-or-later
// The studio's API: each call with the token and this page's number, and a take as the API takes it.

import { studio, token } from './state.js';
import { elsewhere } from './pages.js';

export class RequestError extends Error {
  constructor(message, status, type) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

// A call of the studio's API with its token and this page's number; an error answer becomes a RequestError with the
// server's message. A change refused because another page records now is said at once, whatever asked for it.
export async function api(method, path, { headers = {}, body } = {}) {
  let response;
  const page = studio.page === null ? {} : { 'X-Studio-Page': studio.page };
  try {
    response = await fetch(path, { method, headers: { 'X-Studio-Token': token, ...page, ...headers }, body });
  } catch (error) {
    throw new RequestError(`the studio cannot be reached (${error.message}); is voicebank studio still running?`);
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    let type;
    try {
      ({ message, type } = (await response.json()).error);
    } catch {
      // The status line is all there is.
    }
    if (type === 'page_error') elsewhere(message);
    throw new RequestError(message, response.status, type);
  }
  return response;
}

// A take as the studio's API takes it: raw Float32 samples, little-endian whatever the machine, as the header says.
export function takeRequest({ samples, sampleRate }) {
  const body = new DataView(new ArrayBuffer(samples.length * 4));
  samples.forEach((sample, index) => body.setFloat32(index * 4, sample, true));
  return {
    headers: {
      'Content-Type': 'application/octet-stream',
      'X-Sample-Rate': String(sampleRate),
      'X-Sample-Format': 'f32le',
    },
    body: body.buffer,
  };
}
