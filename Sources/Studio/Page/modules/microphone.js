// SPDX-License-Identifier: GPL-3.0-or-later
// The microphone and the meter: its blocks of samples, their levels drawn on the canvas, the room's noise.

import { element, studio } from './state.js';
import { decibels, formatDecibels } from './words.js';
import { announce, warn } from './announce.js';
import { pieceSeconds, sendPiece } from './recording.js';

export async function openMicrophone() {
  if (studio.microphone) return studio.microphone;
  if (!window.AudioWorkletNode || !navigator.mediaDevices) {
    throw new Error('this browser has no AudioWorklet or no microphone access; the studio needs both');
  }
  let stream;
  let context;
  try {
    // The samples as the microphone makes them: the take's level and noise are the pack's to measure.
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: false, autoGainControl: false, noiseSuppression: false, channelCount: 1 },
    });
    // At the device's own rate when the browser says it, so that the take is what the microphone made, not a
    // conversion to the output's rate: the import converts it to 22050 Hz as it converts any file.
    const { sampleRate } = stream.getAudioTracks()[0]?.getSettings() ?? {};
    context = new AudioContext(sampleRate ? { sampleRate } : {});
    await context.audioWorklet.addModule('/recorder.js');
  } catch (error) {
    stream?.getTracks().forEach((track) => track.stop());
    context?.close();
    throw new Error(`the microphone could not be opened (${error.message}); allow this page to use it`);
  }
  const node = new AudioWorkletNode(context, 'recorder');
  context.createMediaStreamSource(stream).connect(node);
  node.port.onmessage = (event) => heard(event.data);
  await context.resume();
  studio.microphone = { context, stream, node };
  return studio.microphone;
}

// A block of the microphone's samples: the meter, the noise floor, and the take being recorded.
function heard({ frame, samples }) {
  let peak = 0;
  let squares = 0;
  for (const sample of samples) {
    peak = Math.max(peak, Math.abs(sample));
    squares += sample * sample;
  }
  const rms = Math.sqrt(squares / samples.length);
  drawMeter(peak, rms);
  const recording = studio.recording;
  if ((recording === null || frame + samples.length <= recording.startFrame) && rms > 0) {
    studio.noiseFloor = studio.noiseFloor === null ? rms : Math.min(studio.noiseFloor, rms);
  }
  if (studio.measuring && frame + samples.length >= studio.measuring.until) studio.measuring.done();
  const levels = `Peak ${formatDecibels(decibels(peak))}, RMS ${formatDecibels(decibels(rms))}`;
  const floor = studio.noiseFloor === null ? '' : `; noise floor ${formatDecibels(decibels(studio.noiseFloor))}`;
  element('level').textContent = levels + floor + '.';
  if (recording === null) return;
  recording.blocks.push({ frame, samples });
  // The last frames may be cut off at the stop (the click of Space): a piece holds only frames the take keeps.
  const sendable = frame + samples.length - Math.round(studio.checks.tailSeconds * recording.sampleRate);
  if (recording.stopFrame === undefined && sendable - recording.queued >= pieceSeconds * recording.sampleRate) {
    sendPiece(recording, sendable, false);
  }
  const { clippingDecibels } = studio.checks;
  if (decibels(peak) > clippingDecibels && !recording.isClipping) {
    recording.isClipping = true;
    warn(
      `The take clips: it went above ${clippingDecibels} dBFS. Record it again a little further from the microphone.`,
    );
    announce('Clipping.');
  }
  if (recording.stopFrame !== undefined && frame + samples.length >= recording.stopFrame) recording.stopped();
}

function drawMeter(peak, rms) {
  const canvas = element('meter');
  const context = canvas.getContext('2d');
  const { width, height } = canvas;
  // -60 dBFS at the left, 0 dBFS at the right.
  const x = (amplitude) => Math.max(0, Math.min(1, (decibels(amplitude) + 60) / 60)) * width;
  context.fillStyle = '#1b1b1b';
  context.fillRect(0, 0, width, height);
  const { clippingDecibels } = studio.checks;
  context.fillStyle = decibels(peak) > clippingDecibels ? '#d0312d' : '#3a9d5d';
  context.fillRect(0, 6, x(rms), height - 12);
  context.fillStyle = '#f2f2f2';
  context.fillRect(Math.max(0, x(peak) - 2), 2, 3, height - 4);
  context.fillStyle = '#d0312d';
  context.fillRect(x(10 ** (clippingDecibels / 20)), 0, 2, height);
}

// How long the room is heard before the first take.
const roomSeconds = 0.3;

// The room's noise, heard for a moment when the microphone opens, before the first take: so the first take's noise
// floor is the room's, not its lead-in's with the click of R in it.
export async function measureRoom(context) {
  announce("Measuring the room's noise…");
  await new Promise((resolve) => {
    studio.measuring = { until: Math.round((context.currentTime + roomSeconds) * context.sampleRate), done: resolve };
    // Should the audio thread send nothing, the take is not held up for it.
    setTimeout(resolve, 3000);
  });
  studio.measuring = null;
}
